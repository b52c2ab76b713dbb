/* spirv_workarounds.c: rewrites of valid SPIR-V that llvm-spirv-15 cannot read into
 * equivalent SPIR-V it can, applied to the words handed to it (spirv_frontend.cpp).
 *  - OpConstantNull of a scalar (int, float, bool): the translator asserts that a null
 *    constant is composite (vectors are not, to it) or a pointer (the CTS's
 *    op_expect/op_assume modules have both kinds). A scalar's becomes OpConstant 0 /
 *    OpConstantFalse with the same result id; a vector's an OpConstantComposite of such a
 *    zero (a new id past the module's bound when the module has none yet).
 *  - OpCompositeConstruct of values that are not constants: the translator crashes
 *    (it builds an LLVM constant of them). It becomes OpUndef and an OpCompositeInsert per
 *    member, a vector's vector constituents split by OpCompositeExtract first.
 *  - OpVectorShuffle of two vectors of different lengths (valid SPIR-V, also in the CTS's
 *    op_expect): the translator asserts they have one type. It becomes an
 *    OpCompositeExtract per component (OpUndef for the 0xFFFFFFFF index), inserted as above.
 *  - SubgroupDispatch's OpGetKernelMaxNumSubgroups and OpGetKernelLocalSizeForSubgroupCount
 *    (not implemented by the translator): Kiln's sub-groups have one work-item, so a
 *    kernel's maximum number of sub-groups is its work-group size (OpGetKernelWorkGroupSize,
 *    which the translator reads, same operands), and the local size for n sub-groups is n
 *    when n is at most that size, else 0 (a compare and a select; a bool type and a zero
 *    are declared before the first function when the module has none).
 * New ids are numbered past the module's bound, which grows.
 *  - OpSizeOf (SPIR-V 1.1): not implemented by the translator. The size of the pointee is
 *    computed here (OpenCL C's layout: 3-vectors as 4, members aligned unless CPacked) and
 *    the instruction becomes an OpCopyObject of a new constant of that value, declared
 *    before the first function. A type whose size is not known here is left alone. */
#include "device/cpu/compiler/spirv_module.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

enum {
  OP_TYPE_BOOL = 20,
  OP_TYPE_INT = 21,
  OP_TYPE_FLOAT = 22,
  OP_TYPE_VECTOR = 23,
  OP_CONSTANT_FALSE = 42,
  OP_CONSTANT = 43,
  OP_CONSTANT_COMPOSITE = 44,
  OP_CONSTANT_NULL = 46,
  OP_UNDEF = 1,
  OP_DECORATE = 71,
  OP_FUNCTION = 54,
  OP_TYPE_ARRAY = 28,
  OP_TYPE_STRUCT = 30,
  OP_TYPE_POINTER = 32,
  OP_SIZE_OF = 321,
  OP_GET_KERNEL_WORK_GROUP_SIZE = 295,
  OP_GET_KERNEL_LOCAL_SIZE_FOR_SUBGROUP_COUNT = 325,
  OP_GET_KERNEL_MAX_NUM_SUBGROUPS = 326,
  OP_SELECT = 169,
  OP_ULESS_THAN_EQUAL = 178,
  OP_COPY_OBJECT = 83,
  DECORATION_CPACKED = 10,
  OP_VECTOR_SHUFFLE = 79,
  OP_COMPOSITE_CONSTRUCT = 80,
  OP_COMPOSITE_EXTRACT = 81,
  OP_COMPOSITE_INSERT = 82,
};

/* The instruction declaring result id `id` among the types (type declarations have their
 * result first), or NULL. */
static const uint32_t *type_declaration(const uint32_t *words, size_t n, uint32_t id) {
  for (size_t at = 5; at < n;) {
    uint32_t count = words[at] >> 16;
    if (count == 0 || at + count > n) break;
    uint32_t op = words[at] & 0xffffu;
    if (op >= OP_TYPE_BOOL && op <= OP_TYPE_VECTOR && count >= 2 && words[at + 1] == id) return words + at;
    at += count;
  }
  return NULL;
}

/* Words a scalar of `type` needs as an OpConstant literal (1 or 2), 0 for a bool, -1 when
 * `type` is no scalar. */
static int scalar_literal_words(const uint32_t *words, size_t n, uint32_t type) {
  const uint32_t *t = type_declaration(words, n, type);
  if (!t) return -1;
  uint32_t op = t[0] & 0xffffu, count = t[0] >> 16;
  if (op == OP_TYPE_BOOL) return 0;
  if ((op == OP_TYPE_INT || op == OP_TYPE_FLOAT) && count >= 3) return t[2] > 32 ? 2 : 1;
  return -1;
}

/* Emits a zero of scalar `type` with result `id`. */
static size_t emit_zero(uint32_t *out, uint32_t type, uint32_t id, int literal) {
  size_t w = 0;
  out[w++] = (uint32_t)(3 + literal) << 16 | (literal ? OP_CONSTANT : OP_CONSTANT_FALSE);
  out[w++] = type;
  out[w++] = id;
  for (int i = 0; i < literal; i++) out[w++] = 0;
  return w;
}

/* A zero constant's id per scalar type, made or found so far. */
struct zero {
  uint32_t type, id;
};

/* The instruction whose result id is `id` (operand 1 for types, 2 for constants), or NULL. */
static const uint32_t *declaration(const uint32_t *words, size_t n, uint32_t id, uint32_t op) {
  for (size_t at = 5; at < n;) {
    uint32_t count = words[at] >> 16;
    if (count == 0 || at + count > n) break;
    uint32_t here = words[at] & 0xffffu, slot = here == OP_CONSTANT ? 2 : 1;
    if (here == op && count > slot && words[at + slot] == id) return words + at;
    at += count;
  }
  return NULL;
}

static bool is_packed(const uint32_t *words, size_t n, uint32_t type) {
  for (size_t at = 5; at < n;) {
    uint32_t count = words[at] >> 16;
    if (count == 0 || at + count > n) break;
    if ((words[at] & 0xffffu) == OP_DECORATE && count >= 3 && words[at + 1] == type &&
        words[at + 2] == DECORATION_CPACKED)
      return true;
    at += count;
  }
  return false;
}

/* Size and alignment in bytes of `type` as OpenCL C lays it out (Physical64); false when
 * this file does not know the type. */
static bool layout(const uint32_t *words, size_t n, uint32_t type, int depth, uint64_t *size, uint64_t *align) {
  if (depth > 32) return false;
  const uint32_t *t;
  if ((t = declaration(words, n, type, OP_TYPE_INT)) || (t = declaration(words, n, type, OP_TYPE_FLOAT))) {
    *size = *align = t[2] / 8;
    return *size > 0;
  }
  if (declaration(words, n, type, OP_TYPE_POINTER)) {
    *size = *align = 8;
    return true;
  }
  if ((t = declaration(words, n, type, OP_TYPE_VECTOR)) && (t[0] >> 16) >= 4) {
    uint64_t element, element_align;
    if (!layout(words, n, t[2], depth + 1, &element, &element_align)) return false;
    *size = *align = element * (t[3] == 3 ? 4 : t[3]);
    return true;
  }
  if ((t = declaration(words, n, type, OP_TYPE_ARRAY)) && (t[0] >> 16) >= 4) {
    const uint32_t *length = declaration(words, n, t[3], OP_CONSTANT);
    uint64_t element;
    if (!length || (length[0] >> 16) < 4 || !layout(words, n, t[2], depth + 1, &element, align)) return false;
    uint64_t count = length[3] | ((length[0] >> 16) >= 5 ? (uint64_t)length[4] << 32 : 0);
    *size = element * count;
    return true;
  }
  if ((t = declaration(words, n, type, OP_TYPE_STRUCT))) {
    bool packed = is_packed(words, n, type);
    uint64_t offset = 0, max_align = 1;
    for (uint32_t m = 2; m < (t[0] >> 16); m++) {
      uint64_t member, member_align;
      if (!layout(words, n, t[m], depth + 1, &member, &member_align)) return false;
      if (packed) member_align = 1;
      offset = (offset + member_align - 1) / member_align * member_align + member;
      if (member_align > max_align) max_align = member_align;
    }
    *align = max_align;
    *size = (offset + max_align - 1) / max_align * max_align;
    return true;
  }
  return false;
}

/* Writes the OpConstantNull at words[at] as zeros when its type is a scalar or a vector
 * of scalars; returns the words written (0: left as it is). */
static size_t rewrite_null(const uint32_t *words, size_t n, size_t at, struct zero *zeros, size_t *num_zeros,
                           uint32_t *bound, uint32_t *out) {
  const uint32_t *type = type_declaration(words, n, words[at + 1]);
  bool vector = type && (type[0] & 0xffffu) == OP_TYPE_VECTOR && (type[0] >> 16) >= 4;
  uint32_t scalar = vector ? type[2] : type ? words[at + 1] : 0;
  int literal = type ? scalar_literal_words(words, n, scalar) : -1;
  if (literal < 0) return 0;
  uint32_t zero_id = 0;
  for (size_t i = 0; i < *num_zeros && !zero_id; i++)
    if (zeros[i].type == scalar) zero_id = zeros[i].id;
  size_t w = 0;
  if (!vector || !zero_id) {
    zero_id = vector ? (*bound)++ : words[at + 2];
    w += emit_zero(out, scalar, zero_id, literal);
    zeros[(*num_zeros)++] = (struct zero){scalar, zero_id};
  }
  if (vector) {
    uint32_t components = type[3];
    out[w++] = (3 + components) << 16 | OP_CONSTANT_COMPOSITE;
    out[w++] = words[at + 1];
    out[w++] = words[at + 2];
    for (uint32_t i = 0; i < components; i++) out[w++] = zero_id;
  }
  return w;
}

/* Declares, into `out`, the constant the OpSizeOf at words[at] becomes (its id in *id),
 * unless the size is not known here (*id 0); returns the words written. */
static size_t declare_size(const uint32_t *words, size_t n, size_t at, const uint32_t *types, uint32_t *bound,
                           uint32_t *id, uint32_t *out) {
  *id = 0;
  uint32_t pointer_value = words[at + 3];
  const uint32_t *pointer =
      types && pointer_value < words[3] ? declaration(words, n, types[pointer_value], OP_TYPE_POINTER) : NULL;
  const uint32_t *int_type = declaration(words, n, words[at + 1], OP_TYPE_INT);
  uint64_t size, align;
  if (!pointer || (pointer[0] >> 16) < 4 || !int_type || !layout(words, n, pointer[3], 0, &size, &align)) return 0;
  int literal = int_type[2] > 32 ? 2 : 1;
  *id = (*bound)++;
  out[0] = (uint32_t)(3 + literal) << 16 | OP_CONSTANT;
  out[1] = words[at + 1];
  out[2] = *id;
  out[3] = (uint32_t)size;
  if (literal == 2) out[4] = (uint32_t)(size >> 32);
  return 3 + (size_t)literal;
}

/* What OpGetKernelLocalSizeForSubgroupCount's rewrite uses: a bool type, and a zero of the
 * (32-bit integer) result type the module's first such instruction has. */
struct dispatch_ids {
  uint32_t bool_type, result_type, zero;
};

static size_t declare_dispatch(const uint32_t *words, size_t n, uint32_t result_type, uint32_t *bound,
                               struct dispatch_ids *ids, uint32_t *out) {
  size_t w = 0;
  ids->result_type = result_type;
  for (size_t at = 5; at < n && !ids->bool_type;) {
    uint32_t count = words[at] >> 16;
    if (count == 0 || at + count > n) break;
    if ((words[at] & 0xffffu) == OP_TYPE_BOOL && count >= 2) ids->bool_type = words[at + 1];
    at += count;
  }
  if (!ids->bool_type) {
    ids->bool_type = (*bound)++;
    out[w++] = 2u << 16 | OP_TYPE_BOOL;
    out[w++] = ids->bool_type;
  }
  ids->zero = (*bound)++;
  out[w++] = 4u << 16 | OP_CONSTANT;
  out[w++] = result_type;
  out[w++] = ids->zero;
  out[w++] = 0;
  return w;
}

/* %r = OpGetKernelLocalSizeForSubgroupCount %T %count %invoke %param %size %align becomes
 * %wg = OpGetKernelWorkGroupSize ..., %le = count <= %wg, %r = %le ? count : 0. */
static size_t rewrite_local_size_for_count(const uint32_t *instruction, const struct dispatch_ids *ids, uint32_t *bound,
                                           uint32_t *out) {
  uint32_t type = instruction[1], result = instruction[2], count = instruction[3];
  uint32_t work_group_size = (*bound)++, fits = (*bound)++;
  size_t w = 0;
  out[w++] = 7u << 16 | OP_GET_KERNEL_WORK_GROUP_SIZE;
  out[w++] = type;
  out[w++] = work_group_size;
  for (int i = 4; i < 8; i++) out[w++] = instruction[i]; /* invoke, param, param size, param align */
  out[w++] = 5u << 16 | OP_ULESS_THAN_EQUAL;
  out[w++] = ids->bool_type;
  out[w++] = fits;
  out[w++] = count;
  out[w++] = work_group_size;
  out[w++] = 6u << 16 | OP_SELECT;
  out[w++] = type;
  out[w++] = result;
  out[w++] = fits;
  out[w++] = count;
  out[w++] = ids->zero;
  return w;
}

/* Components of vector type `type` (0: not a vector); its component type in *component. */
static uint32_t vector_length(const uint32_t *words, size_t n, uint32_t type, uint32_t *component) {
  const uint32_t *t = type_declaration(words, n, type);
  if (!t || (t[0] & 0xffffu) != OP_TYPE_VECTOR || (t[0] >> 16) < 4) return 0;
  *component = t[2];
  return t[3];
}

/* Writes `result` = the composite of `result_type` whose members are `values[0..count)`:
 * OpUndef, then one OpCompositeInsert per member (the last one defines `result`).
 * Returns the words written. */
static size_t emit_inserts(uint32_t result_type, uint32_t result, const uint32_t *values, uint32_t count,
                           uint32_t *bound, uint32_t *out) {
  size_t w = 0;
  uint32_t previous = (*bound)++;
  out[w++] = 3u << 16 | OP_UNDEF;
  out[w++] = result_type;
  out[w++] = previous;
  for (uint32_t i = 0; i < count; i++) {
    uint32_t id = i + 1 == count ? result : (*bound)++;
    out[w++] = 6u << 16 | OP_COMPOSITE_INSERT;
    out[w++] = result_type;
    out[w++] = id;
    out[w++] = values[i];
    out[w++] = previous;
    out[w++] = i;
    previous = id;
  }
  return w;
}

/* Writes `id` = component `index` of vector `vector` (of scalar type `component`). */
static size_t emit_extract(uint32_t component, uint32_t id, uint32_t vector, uint32_t index, uint32_t *out) {
  out[0] = 5u << 16 | OP_COMPOSITE_EXTRACT;
  out[1] = component;
  out[2] = id;
  out[3] = vector;
  out[4] = index;
  return 5;
}

/* Writes the shuffle at words[at] as extracts and inserts when its vectors differ in
 * type; returns the words written (0: left as it is). */
static size_t rewrite_shuffle(const uint32_t *words, size_t n, size_t at, const uint32_t *types, uint32_t *bound,
                              uint32_t *out) {
  uint32_t count = words[at] >> 16;
  if (!types || count < 5 || count - 5 > 16) return 0;
  uint32_t result_type = words[at + 1], result = words[at + 2], a = words[at + 3], b = words[at + 4];
  if (a >= words[3] || b >= words[3] || types[a] == types[b]) return 0;
  uint32_t component, unused;
  uint32_t length_a = vector_length(words, n, types[a], &unused);
  if (!vector_length(words, n, result_type, &component) || !length_a || !vector_length(words, n, types[b], &unused))
    return 0;
  uint32_t components = count - 5, values[16];
  size_t w = 0;
  for (uint32_t i = 0; i < components; i++) {
    uint32_t index = words[at + 5 + i];
    values[i] = (*bound)++;
    if (index == 0xffffffffu) {
      out[w++] = 3u << 16 | OP_UNDEF;
      out[w++] = component;
      out[w++] = values[i];
    } else {
      w += emit_extract(component, values[i], index < length_a ? a : b, index < length_a ? index : index - length_a,
                        out + w);
    }
  }
  return w + emit_inserts(result_type, result, values, components, bound, out + w);
}

/* Writes the OpCompositeConstruct at words[at] as inserts (a vector's vector constituents
 * extracted first); returns the words written (0: left as it is). */
static size_t rewrite_construct(const uint32_t *words, size_t n, size_t at, const uint32_t *types, uint32_t *bound,
                                uint32_t *out) {
  uint32_t count = words[at] >> 16;
  if (!types || count < 4) return 0;
  uint32_t result_type = words[at + 1], result = words[at + 2], component = 0;
  uint32_t length = vector_length(words, n, result_type, &component);
  uint32_t values[64], num_values = 0;
  size_t w = 0;
  for (uint32_t i = 3; i < count; i++) {
    uint32_t value = words[at + i], part_component, parts = 0;
    if (length && value < words[3]) parts = vector_length(words, n, types[value], &part_component);
    if (num_values + (parts ? parts : 1) > 64) return 0;
    if (!parts) {
      values[num_values++] = value;
      continue;
    }
    for (uint32_t p = 0; p < parts; p++) {
      values[num_values] = (*bound)++;
      w += emit_extract(component, values[num_values++], value, p, out + w);
    }
  }
  return w + emit_inserts(result_type, result, values, num_values, bound, out + w);
}

uint32_t *kiln_spirv_translator_workarounds(const uint32_t *words, size_t n, size_t *out_n) {
  /* The most a rewrite writes per word it replaces: a construct of two 8-vectors (5 words)
   * becomes 16 extracts, an undef and 16 inserts (179 words); 40 per word is ample. */
  uint32_t *out = malloc((40 * n + 64) * sizeof *out);
  struct zero *zeros = calloc(n / 3 + 1, sizeof *zeros);
  if (!out || !zeros) {
    free(out), free(zeros);
    return NULL;
  }
  size_t at = 0, written = 0, num_zeros = 0;
  for (; at < 5 && at < n; at++) out[written++] = words[at];
  uint32_t bound = n >= 5 ? words[3] : 0;
  uint32_t *types = NULL; /* result types, read when a shuffle or OpSizeOf needs them */
  bool types_read = false;
  uint32_t *size_ids = NULL; /* per OpSizeOf, in order: the constant it becomes, or 0 */
  struct dispatch_ids dispatch = {0};
  size_t num_sizes = 0;
  while (at < n) {
    uint32_t count = words[at] >> 16, op = words[at] & 0xffffu;
    if (count == 0 || at + count > n) count = (uint32_t)(n - at); /* parsed: not reached */
    if (op == OP_FUNCTION && !size_ids) {
      /* Before the first function: the constants the OpSizeOf instructions become. */
      size_ids = calloc(n / 4 + 1, sizeof *size_ids);
      if (!size_ids) {
        free(out), free(zeros), free(types);
        return NULL;
      }
      if (!types_read) types = kiln_spirv_result_types(words, n), types_read = true;
      size_t i = 0;
      for (size_t scan = at; scan < n;) {
        uint32_t c = words[scan] >> 16;
        if (c == 0 || scan + c > n) break;
        if ((words[scan] & 0xffffu) == OP_SIZE_OF && c == 4) {
          written += declare_size(words, n, scan, types, &bound, &size_ids[i], out + written);
          i++;
        }
        if ((words[scan] & 0xffffu) == OP_GET_KERNEL_LOCAL_SIZE_FOR_SUBGROUP_COUNT && c == 8 && !dispatch.bool_type)
          written += declare_dispatch(words, n, words[scan + 1], &bound, &dispatch, out + written);
        scan += c;
      }
    }
    if (op == OP_GET_KERNEL_MAX_NUM_SUBGROUPS && count == 7) {
      memcpy(out + written, words + at, count * sizeof *out);
      out[written] = (count << 16) | OP_GET_KERNEL_WORK_GROUP_SIZE;
      written += count;
      at += count;
      continue;
    }
    if (op == OP_GET_KERNEL_LOCAL_SIZE_FOR_SUBGROUP_COUNT && count == 8 && dispatch.bool_type &&
        dispatch.result_type == words[at + 1]) {
      written += rewrite_local_size_for_count(words + at, &dispatch, &bound, out + written);
      at += count;
      continue;
    }
    if (op == OP_SIZE_OF && count == 4 && size_ids && size_ids[num_sizes++]) {
      out[written++] = 4u << 16 | OP_COPY_OBJECT;
      out[written++] = words[at + 1];
      out[written++] = words[at + 2];
      out[written++] = size_ids[num_sizes - 1];
      at += count;
      continue;
    }
    if (op == OP_VECTOR_SHUFFLE || op == OP_COMPOSITE_CONSTRUCT) {
      if (!types_read) types = kiln_spirv_result_types(words, n), types_read = true;
      size_t rewritten = op == OP_VECTOR_SHUFFLE ? rewrite_shuffle(words, n, at, types, &bound, out + written)
                                                 : rewrite_construct(words, n, at, types, &bound, out + written);
      if (rewritten) {
        written += rewritten;
        at += count;
        continue;
      }
    }
    size_t rewritten =
        op == OP_CONSTANT_NULL && count == 3 ? rewrite_null(words, n, at, zeros, &num_zeros, &bound, out + written) : 0;
    if (!rewritten) {
      memcpy(out + written, words + at, count * sizeof *out);
      rewritten = count;
    }
    written += rewritten;
    at += count;
  }
  if (n >= 5) out[3] = bound;
  free(zeros);
  free(types);
  free(size_ids);
  *out_n = written;
  return out;
}
