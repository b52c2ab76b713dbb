/* spirv_support.c: the SPIR-V capabilities, extensions and extended instruction sets
 * Kiln runs (the env spec's required set for the features the device reports, less
 * ImageMipmap, which the device lacks), checked before translation so that a module using
 * anything else fails its build with a log line that names it. */
#include "device/cpu/compiler/spirv_module.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { OP_EXTENSION = 10, OP_EXT_INST_IMPORT = 11, OP_EXECUTION_MODE = 16, OP_CAPABILITY = 17 };
enum { MODE_INITIALIZER = 33, MODE_FINALIZER = 34 };

/* The SPIR-V specification's numbers (the names are the spec's). */
static const unsigned capabilities[] = {
    4,    /* Addresses */
    5,    /* Linkage */
    6,    /* Kernel */
    7,    /* Vector16 */
    8,    /* Float16Buffer */
    9,    /* Float16 */
    10,   /* Float64 */
    11,   /* Int64 */
    12,   /* Int64Atomics */
    13,   /* ImageBasic */
    14,   /* ImageReadWrite */
    17,   /* Pipes */
    18,   /* Groups */
    19,   /* DeviceEnqueue */
    20,   /* LiteralSampler */
    22,   /* Int16 */
    38,   /* GenericPointer */
    39,   /* Int8 */
    43,   /* Sampled1D */
    44,   /* Image1D */
    46,   /* SampledBuffer */
    47,   /* ImageBuffer */
    58,   /* SubgroupDispatch */
    5629, /* ExpectAssumeKHR */
};

static const char *const extensions[] = {
    "SPV_KHR_no_integer_wrap_decoration",
    "SPV_KHR_expect_assume",
    "SPV_KHR_linkonce_odr",
};

static const char *const instruction_sets[] = {"OpenCL.std", "OpenCL.DebugInfo.100"};

/* A literal string operand, if NUL-terminated within `words` words. */
static const char *literal(const uint32_t *operand, size_t words) {
  const char *s = (const char *)operand;
  return memchr(s, '\0', words * 4) ? s : NULL;
}

static bool listed(const char *const *names, size_t count, const char *name) {
  for (size_t i = 0; i < count; i++)
    if (strcmp(names[i], name) == 0) return true;
  return false;
}

int kiln_spirv_check_support(const struct kiln_spirv_module *module, char **log_line) {
  *log_line = NULL;
  const uint32_t *w = module->words;
  for (size_t at = 5; at < module->num_words;) {
    uint32_t words = w[at] >> 16, op = w[at] & 0xffffu;
    if (words == 0 || at + words > module->num_words) break;
    const uint32_t *operands = w + at + 1;
    if (op == OP_CAPABILITY && words >= 2) {
      bool known = false;
      for (size_t i = 0; i < sizeof capabilities / sizeof capabilities[0]; i++) known |= capabilities[i] == operands[0];
      if (!known)
        return kiln_spirv_fail(log_line, "error: SPIR-V capability %u is not supported by this device",
                               (unsigned)operands[0]);
    }
    if (op == OP_EXTENSION && words >= 2) {
      const char *name = literal(operands, words - 1);
      if (!name || !listed(extensions, sizeof extensions / sizeof extensions[0], name))
        return kiln_spirv_fail(log_line, "error: SPIR-V extension %s is not supported by this device",
                               name ? name : "?");
    }
    if (op == OP_EXT_INST_IMPORT && words >= 3) {
      const char *name = literal(operands + 1, words - 2);
      if (!name || !listed(instruction_sets, sizeof instruction_sets / sizeof instruction_sets[0], name))
        return kiln_spirv_fail(log_line, "error: SPIR-V extended instruction set %s is not supported by this device",
                               name ? name : "?");
    }
    if (op == OP_EXECUTION_MODE && words >= 3 && (operands[1] == MODE_INITIALIZER || operands[1] == MODE_FINALIZER))
      return kiln_spirv_fail(
          log_line, "error: SPIR-V execution mode %s (program-scope constructors or destructors) is not supported",
          operands[1] == MODE_INITIALIZER ? "Initializer" : "Finalizer");
    at += words;
  }
  return 0;
}
