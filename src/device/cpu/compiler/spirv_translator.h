/* spirv_translator.h: SPIR-V -> LLVM bitcode by Khronos' SPIRV-LLVM-Translator, run as a
 * separate program (Debian's llvm-spirv-15). A process, not the library: libLLVMSPIRVLib
 * is built against LLVM 15 and cannot share a process with Kiln's LLVM 19, while LLVM 19
 * reads LLVM 15's bitcode; a translator that crashes on a hostile module takes only its
 * own process down. docs/spirv.md says more.
 *
 * Which program: $KILN_LLVM_SPIRV when set (empty: none), else the one found when Kiln was
 * configured (KILN_LLVM_SPIRV_PATH). It is probed once per process (`--help` lists the
 * SPIR-V versions it writes, and so reads); without it the device reports no IL. */
#ifndef KILN_DEVICE_CPU_COMPILER_SPIRV_TRANSLATOR_H
#define KILN_DEVICE_CPU_COMPILER_SPIRV_TRANSLATOR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

struct kiln_spirv_translator {
  const char *path;
  unsigned max_minor; /* the device takes SPIR-V 1.0 to 1.max_minor (at most 1.3: spirv_translator.c) */
};

/* The translator, or NULL when there is none that works. Thread-safe. */
const struct kiln_spirv_translator *kiln_spirv_translator(void);

/* Runs it on `num_words` host-order words: 0 and the bitcode (malloc'd), or -1 and
 * *log (malloc'd) saying why, with the translator's own messages. */
int kiln_spirv_translate(const uint32_t *words, size_t num_words, void **bitcode, size_t *size, char **log);

#ifdef __cplusplus
}
#endif

#endif
