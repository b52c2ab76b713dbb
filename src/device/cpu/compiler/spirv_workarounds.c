/* spirv_workarounds.c: rewrites of valid SPIR-V that llvm-spirv-15 cannot read into
 * equivalent SPIR-V it can, applied to the words handed to it (spirv_frontend.cpp).
 *  - OpConstantNull of a scalar (int, float, bool): the translator asserts that a null
 *    constant is composite (vectors are not, to it) or a pointer (the CTS's
 *    op_expect/op_assume modules have both kinds). A scalar's becomes OpConstant 0 /
 *    OpConstantFalse with the same result id; a vector's an OpConstantComposite of such a
 *    zero (a new id past the module's bound when the module has none yet). */
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

uint32_t *kiln_spirv_translator_workarounds(const uint32_t *words, size_t n, size_t *out_n) {
  /* A rewrite turns three words into at most 5 + (a new zero) 5 + 16 (a vector's
   * components): 26 words per null, 9 per word of input is ample. */
  uint32_t *out = malloc((9 * n + 8) * sizeof *out);
  struct zero *zeros = calloc(n / 3 + 1, sizeof *zeros);
  if (!out || !zeros) {
    free(out), free(zeros);
    return NULL;
  }
  size_t at = 0, written = 0, num_zeros = 0;
  for (; at < 5 && at < n; at++) out[written++] = words[at];
  uint32_t bound = n >= 5 ? words[3] : 0;
  while (at < n) {
    uint32_t count = words[at] >> 16, op = words[at] & 0xffffu;
    if (count == 0 || at + count > n) count = (uint32_t)(n - at); /* validated: not reached */
    const uint32_t *type = op == OP_CONSTANT_NULL && count == 3 ? type_declaration(words, n, words[at + 1]) : NULL;
    bool vector = type && (type[0] & 0xffffu) == OP_TYPE_VECTOR && (type[0] >> 16) >= 4;
    uint32_t scalar = vector ? type[2] : type ? words[at + 1] : 0;
    int literal = type ? scalar_literal_words(words, n, scalar) : -1;
    if (literal < 0) {
      memcpy(out + written, words + at, count * sizeof *out);
      written += count;
      at += count;
      continue;
    }
    uint32_t zero_id = 0;
    for (size_t i = 0; i < num_zeros && !zero_id; i++)
      if (zeros[i].type == scalar) zero_id = zeros[i].id;
    if (!vector || !zero_id) {
      zero_id = vector ? bound++ : words[at + 2];
      written += emit_zero(out + written, scalar, zero_id, literal);
      zeros[num_zeros++] = (struct zero){scalar, zero_id};
    }
    if (vector) {
      uint32_t components = type[3];
      out[written++] = (3 + components) << 16 | OP_CONSTANT_COMPOSITE;
      out[written++] = words[at + 1];
      out[written++] = words[at + 2];
      for (uint32_t i = 0; i < components; i++) out[written++] = zero_id;
    }
    at += count;
  }
  if (n >= 5) out[3] = bound;
  free(zeros);
  *out_n = written;
  return out;
}
