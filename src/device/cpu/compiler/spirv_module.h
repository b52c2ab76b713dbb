/* spirv_module.h: what Kiln reads from a SPIR-V module itself, before translation
 * (clCreateProgramWithIL, clSetProgramSpecializationConstant): the header, a parse by
 * SPIRV-Tools (malformed words are CL_INVALID_VALUE), the addressing model, and the
 * specialization constants. What the module may use (capabilities, extensions, extended
 * instruction sets) is checked at build time (kiln_spirv_check_support), so that a refusal
 * has a build log.
 *
 * Full validation (SPIRV-Tools' validator, in the universal environment of the module's
 * version, as the Khronos CTS validates its modules) runs at build time too, but only
 * warns: llvm-spirv-15 itself writes modules it fails (blocks before their dominator in
 * some loops), and it reads them fine; the translator and LLVM's verifier are what decide. */
#ifndef KILN_DEVICE_CPU_COMPILER_SPIRV_MODULE_H
#define KILN_DEVICE_CPU_COMPILER_SPIRV_MODULE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define KILN_SPIRV_MAGIC 0x07230203u

/* One OpSpecConstant / OpSpecConstantTrue / OpSpecConstantFalse with a SpecId. */
struct kiln_spirv_spec_constant {
  uint32_t spec_id;
  uint32_t size; /* bytes clSetProgramSpecializationConstant takes: 1 for a bool */
  bool is_bool;
  bool is_signed; /* a signed integer: narrow values are sign-extended in the word */
  size_t at;      /* the instruction's index in `words` */
  bool set;       /* given by clSetProgramSpecializationConstant */
  uint64_t value; /* its bytes, zero-extended, when set */
};

struct kiln_spirv_module {
  uint32_t *words; /* the module in host byte order (malloc'd) */
  size_t num_words;
  uint32_t version;                                /* header form: 0x00010300 is SPIR-V 1.3 */
  struct kiln_spirv_spec_constant *spec_constants; /* malloc'd, or NULL */
  size_t num_spec_constants;
};

/* Checks `length` bytes as a SPIR-V module for a device of `address_bits` (Physical32 or
 * Physical64 addressing) whose translator reads versions up to 1.`max_minor`; fills
 * *module on success (0). On failure returns -1 and sets *reason (malloc'd) to why. */
int kiln_spirv_module_read(const void *il, size_t length, unsigned address_bits, unsigned max_minor,
                           struct kiln_spirv_module *module, char **reason);
void kiln_spirv_module_free(struct kiln_spirv_module *module);

/* 0 when SPIRV-Tools' validator accepts the module; else -1 and *message (malloc'd) says why. */
int kiln_spirv_validate(const struct kiln_spirv_module *module, char **message);

/* Sets *message to the formatted text (malloc'd; NULL when out of memory); returns -1. */
int kiln_spirv_fail(char **message, const char *format, ...) __attribute__((format(printf, 2, 3)));

/* The module's constant with `spec_id`, or NULL. */
struct kiln_spirv_spec_constant *kiln_spirv_find_spec_constant(struct kiln_spirv_module *module, uint32_t spec_id);

/* The module's words with the constants that were set written in (their defaults
 * replaced, OpSpecConstantTrue/False swapped), malloc'd; NULL when out of memory. Setting
 * values in the module itself keeps them bit-exact (the translator's --spec-const option
 * parses decimal text and refuses denormals). */
uint32_t *kiln_spirv_specialize(const struct kiln_spirv_module *module);

/* SubgroupsPerWorkgroup (or its Id form) of entry point `entry_name`, 0 when not given
 * (CL_KERNEL_COMPILE_NUM_SUB_GROUPS). */
uint32_t kiln_spirv_sub_groups_per_work_group(const struct kiln_spirv_module *module, const char *entry_name);

/* The result type of every result id (0: none), an array of the module's bound entries
 * (malloc'd); NULL when out of memory or the words do not parse. */
uint32_t *kiln_spirv_result_types(const uint32_t *words, size_t num_words);

/* spirv_workarounds.c: the words rewritten where llvm-spirv-15 cannot read valid SPIR-V
 * (same meaning), *out_n of them, malloc'd; NULL when out of memory. */
uint32_t *kiln_spirv_translator_workarounds(const uint32_t *words, size_t n, size_t *out_n);

/* 0 when every capability, extension and extended instruction set the module declares is
 * one Kiln runs (spirv_support.c), else -1 and a malloc'd build-log line naming the first
 * that is not. */
int kiln_spirv_check_support(const struct kiln_spirv_module *module, char **log_line);

#ifdef __cplusplus
}
#endif

#endif
