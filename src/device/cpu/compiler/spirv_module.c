/* spirv_module.c: reading a SPIR-V module (header, parse and validation by SPIRV-Tools)
 * and listing its specialization constants (spirv_module.h). */
#include "device/cpu/compiler/spirv_module.h"

#include <spirv-tools/libspirv.h>

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Opcodes, decorations and operands of the SPIR-V specification this file reads. */
enum {
  OP_MEMORY_MODEL = 14,
  OP_TYPE_BOOL = 20,
  OP_TYPE_INT = 21,
  OP_TYPE_FLOAT = 22,
  OP_SPEC_CONSTANT_TRUE = 48,
  OP_SPEC_CONSTANT_FALSE = 49,
  OP_SPEC_CONSTANT = 50,
  OP_DECORATE = 71,
  DECORATION_SPEC_ID = 1,
  ADDRESSING_PHYSICAL32 = 1,
  ADDRESSING_PHYSICAL64 = 2,
  MEMORY_MODEL_OPENCL = 2,
};

int kiln_spirv_fail(char **message, const char *format, ...) {
  char buffer[512];
  va_list args;
  va_start(args, format);
  vsnprintf(buffer, sizeof buffer, format, args);
  va_end(args);
  *message = strdup(buffer);
  return -1;
}

static uint32_t byte_swap(uint32_t w) { return (w >> 24) | ((w >> 8) & 0xff00u) | ((w << 8) & 0xff0000u) | (w << 24); }

static spv_target_env environment_of(uint32_t version) {
  switch ((version >> 8) & 0xff) {
  case 0:
    return SPV_ENV_UNIVERSAL_1_0;
  case 1:
    return SPV_ENV_UNIVERSAL_1_1;
  case 2:
    return SPV_ENV_UNIVERSAL_1_2;
  case 3:
    return SPV_ENV_UNIVERSAL_1_3;
  default:
    return SPV_ENV_UNIVERSAL_1_4;
  }
}

/* Whether the words parse as SPIR-V: every instruction known, its word count and
 * operands well-formed, ids within the bound. */
static int parse(const struct kiln_spirv_module *module, char **reason) {
  spv_context context = spvContextCreate(environment_of(module->version));
  if (!context) return kiln_spirv_fail(reason, "out of memory reading the module");
  spv_diagnostic diagnostic = NULL;
  spv_result_t result = spvBinaryParse(context, NULL, module->words, module->num_words, NULL, NULL, &diagnostic);
  int status = 0;
  if (result != SPV_SUCCESS)
    status = kiln_spirv_fail(reason, "malformed SPIR-V (word %zu): %s", diagnostic ? diagnostic->position.index : 0,
                             diagnostic && diagnostic->error ? diagnostic->error : "cannot parse");
  spvDiagnosticDestroy(diagnostic);
  spvContextDestroy(context);
  return status;
}

int kiln_spirv_validate(const struct kiln_spirv_module *module, char **message) {
  *message = NULL;
  spv_context context = spvContextCreate(environment_of(module->version));
  if (!context) return 0;
  spv_diagnostic diagnostic = NULL;
  spv_result_t result = spvValidateBinary(context, module->words, module->num_words, &diagnostic);
  if (result != SPV_SUCCESS) {
    const char *error = diagnostic && diagnostic->error ? diagnostic->error : "invalid module";
    size_t n = strlen(error) + 64;
    *message = malloc(n);
    if (*message) snprintf(*message, n, "%s", error);
  }
  spvDiagnosticDestroy(diagnostic);
  spvContextDestroy(context);
  return result == SPV_SUCCESS ? 0 : -1;
}

/* The scalar type of a result id as the translator's --spec-const names it (0: unknown). */
struct scalar_type {
  uint32_t id;
  uint32_t bits;
  char kind; /* 'i', 'f' or 'b' */
  bool is_signed;
};

static const struct scalar_type *find_type(const struct scalar_type *types, size_t count, uint32_t id) {
  for (size_t i = 0; i < count; i++)
    if (types[i].id == id) return &types[i];
  return NULL;
}

/* Lists the spec constants: OpDecorate SpecId comes before the constants it names (the
 * logical layout), types before both. The parse guarantees each instruction's bounds. */
static int read_spec_constants(struct kiln_spirv_module *module, char **reason) {
  const uint32_t *w = module->words;
  size_t n = module->num_words, num_types = 0, num_ids = 0;
  struct scalar_type *types = calloc(n / 2 + 1, sizeof *types);
  uint32_t(*spec_ids)[2] = calloc(n / 3 + 1, sizeof *spec_ids); /* {target, spec id} */
  struct kiln_spirv_spec_constant *constants = calloc(n / 3 + 1, sizeof *constants);
  if (!types || !spec_ids || !constants) {
    free(types), free(spec_ids), free(constants);
    return kiln_spirv_fail(reason, "out of memory reading the module");
  }
  size_t count = 0;
  for (size_t at = 5; at < n;) {
    uint32_t words = w[at] >> 16, op = w[at] & 0xffffu;
    if (words == 0 || at + words > n) break;
    const uint32_t *operands = w + at + 1;
    if (op == OP_TYPE_BOOL && words >= 2) types[num_types++] = (struct scalar_type){operands[0], 8, 'b', false};
    if ((op == OP_TYPE_INT || op == OP_TYPE_FLOAT) && words >= 3)
      types[num_types++] = (struct scalar_type){operands[0], operands[1], op == OP_TYPE_INT ? 'i' : 'f',
                                                op == OP_TYPE_INT && words >= 4 && operands[2] != 0};
    if (op == OP_DECORATE && words >= 4 && operands[1] == DECORATION_SPEC_ID) {
      spec_ids[num_ids][0] = operands[0];
      spec_ids[num_ids++][1] = operands[2];
    }
    if ((op == OP_SPEC_CONSTANT_TRUE || op == OP_SPEC_CONSTANT_FALSE || op == OP_SPEC_CONSTANT) && words >= 3) {
      const struct scalar_type *type = find_type(types, num_types, operands[0]);
      for (size_t i = 0; i < num_ids && type; i++) {
        if (spec_ids[i][0] != operands[1]) continue;
        struct kiln_spirv_spec_constant *c = &constants[count++];
        c->spec_id = spec_ids[i][1];
        c->size = type->bits / 8;
        c->is_bool = type->kind == 'b';
        c->is_signed = type->is_signed;
        c->at = at;
        break;
      }
    }
    at += words;
  }
  free(types);
  free(spec_ids);
  module->spec_constants = count ? constants : NULL;
  module->num_spec_constants = count;
  if (!count) free(constants);
  return 0;
}

int kiln_spirv_module_read(const void *il, size_t length, unsigned address_bits, unsigned max_minor,
                           struct kiln_spirv_module *module, char **reason) {
  memset(module, 0, sizeof *module);
  *reason = NULL;
  if (length % 4 || length < 20)
    return kiln_spirv_fail(reason, "%zu bytes are not a SPIR-V module (a header and whole words)", length);
  size_t n = length / 4;
  uint32_t *words = malloc(length);
  if (!words) return kiln_spirv_fail(reason, "out of memory reading the module");
  memcpy(words, il, length);
  if (words[0] == byte_swap(KILN_SPIRV_MAGIC))
    for (size_t i = 0; i < n; i++) words[i] = byte_swap(words[i]);
  module->words = words;
  module->num_words = n;
  module->version = words[1];
  int status = 0;
  uint32_t major = (words[1] >> 16) & 0xff, minor = (words[1] >> 8) & 0xff;
  if (words[0] != KILN_SPIRV_MAGIC)
    status = kiln_spirv_fail(reason, "not SPIR-V: magic number 0x%08x", (unsigned)words[0]);
  else if (major != 1 || minor > max_minor || (words[1] & 0xff0000ffu) != 0)
    status = kiln_spirv_fail(reason, "SPIR-V version %u.%u is not one the device accepts (1.0 to 1.%u)",
                             (unsigned)major, (unsigned)minor, max_minor);
  else
    status = parse(module, reason);
  bool has_memory_model = false;
  for (size_t at = 5; status == 0 && at < n;) {
    uint32_t words_here = words[at] >> 16;
    if ((words[at] & 0xffffu) == OP_MEMORY_MODEL && words_here >= 3) {
      has_memory_model = true;
      uint32_t addressing = words[at + 1], model = words[at + 2];
      uint32_t wanted = address_bits == 64 ? ADDRESSING_PHYSICAL64 : ADDRESSING_PHYSICAL32;
      if (addressing != wanted || model != MEMORY_MODEL_OPENCL)
        status = kiln_spirv_fail(
            reason, "the module's memory model (addressing %u, model %u) is not the device's (Physical%u OpenCL)",
            (unsigned)addressing, (unsigned)model, address_bits);
      break;
    }
    at += words_here ? words_here : n;
  }
  if (status == 0 && !has_memory_model) status = kiln_spirv_fail(reason, "the module has no OpMemoryModel");
  if (status == 0) status = read_spec_constants(module, reason);
  if (status != 0) kiln_spirv_module_free(module);
  return status;
}

void kiln_spirv_module_free(struct kiln_spirv_module *module) {
  free(module->words);
  free(module->spec_constants);
  memset(module, 0, sizeof *module);
}

struct kiln_spirv_spec_constant *kiln_spirv_find_spec_constant(struct kiln_spirv_module *module, uint32_t spec_id) {
  for (size_t i = 0; i < module->num_spec_constants; i++)
    if (module->spec_constants[i].spec_id == spec_id) return &module->spec_constants[i];
  return NULL;
}

uint32_t *kiln_spirv_specialize(const struct kiln_spirv_module *module) {
  uint32_t *words = malloc(module->num_words * sizeof *words);
  if (!words) return NULL;
  memcpy(words, module->words, module->num_words * sizeof *words);
  for (size_t i = 0; i < module->num_spec_constants; i++) {
    const struct kiln_spirv_spec_constant *c = &module->spec_constants[i];
    if (!c->set) continue;
    uint32_t *instruction = words + c->at;
    if (c->is_bool) {
      *instruction = (*instruction & 0xffff0000u) | (c->value ? OP_SPEC_CONSTANT_TRUE : OP_SPEC_CONSTANT_FALSE);
      continue;
    }
    uint64_t value = c->value;
    if (c->is_signed && c->size < 8) { /* sign-extend narrow signed integers (SPIR-V 2.2.1 literals) */
      unsigned shift = 64 - 8 * c->size;
      value = (uint64_t)((int64_t)(value << shift) >> shift);
    }
    instruction[3] = (uint32_t)value;
    if (c->size == 8) instruction[4] = (uint32_t)(value >> 32);
  }
  return words;
}

/* Records each instruction's result type under its result id. */
static spv_result_t record_result_type(void *user_data, const spv_parsed_instruction_t *instruction) {
  struct {
    uint32_t *types;
    uint32_t bound;
  } *map = user_data;
  if (instruction->result_id && instruction->result_id < map->bound)
    map->types[instruction->result_id] = instruction->type_id;
  return SPV_SUCCESS;
}

uint32_t *kiln_spirv_result_types(const uint32_t *words, size_t num_words) {
  if (num_words < 5) return NULL;
  struct {
    uint32_t *types;
    uint32_t bound;
  } map = {calloc(words[3] + 1, sizeof(uint32_t)), words[3]};
  spv_context context = map.types ? spvContextCreate(environment_of(words[1])) : NULL;
  if (!context || spvBinaryParse(context, &map, words, num_words, NULL, record_result_type, NULL) != SPV_SUCCESS) {
    free(map.types);
    map.types = NULL;
  }
  if (context) spvContextDestroy(context);
  return map.types;
}

/* The literal string at `words` (NUL-terminated within `count` words), or NULL. */
static const char *string_operand(const uint32_t *words, size_t count) {
  const char *s = (const char *)words;
  return memchr(s, '\0', count * 4) ? s : NULL;
}

uint32_t kiln_spirv_sub_groups_per_work_group(const struct kiln_spirv_module *module, const char *entry_name) {
  enum { OP_ENTRY_POINT = 15, OP_EXECUTION_MODE = 16, OP_CONSTANT = 43, OP_EXECUTION_MODE_ID = 331 };
  enum { MODE_SUBGROUPS_PER_WORKGROUP = 36, MODE_SUBGROUPS_PER_WORKGROUP_ID = 37 };
  const uint32_t *w = module->words;
  size_t n = module->num_words;
  uint32_t entry = 0, value = 0, constant = 0;
  for (size_t at = 5; at < n;) {
    uint32_t count = w[at] >> 16, op = w[at] & 0xffffu;
    if (count == 0 || at + count > n) break;
    if (op == OP_ENTRY_POINT && count >= 4) {
      const char *name = string_operand(w + at + 3, count - 3);
      if (name && strcmp(name, entry_name) == 0) entry = w[at + 2];
    }
    if (entry && op == OP_EXECUTION_MODE && count >= 4 && w[at + 1] == entry && w[at + 2] == MODE_SUBGROUPS_PER_WORKGROUP)
      value = w[at + 3];
    if (entry && op == OP_EXECUTION_MODE_ID && count >= 4 && w[at + 1] == entry &&
        w[at + 2] == MODE_SUBGROUPS_PER_WORKGROUP_ID)
      constant = w[at + 3];
    if (constant && op == OP_CONSTANT && count >= 4 && w[at + 2] == constant) value = w[at + 3];
    at += count;
  }
  return value;
}
