/* module_binary.h: the envelope of a program binary (CL_PROGRAM_BINARIES):
 *   "KILNBIN\0" | u32 format version | u32 module kind | char kiln_version[16] |
 *   char llvm_version[16] | u64 payload size | u64 FNV-1a 64 of the payload | payload (bitcode)
 * All integers little-endian. A binary from another Kiln or LLVM version is rejected:
 * bitcode is only guaranteed readable by the LLVM that wrote it or a newer one, and the
 * launcher ABI may change between Kiln versions. */
#ifndef KILN_DEVICE_CPU_COMPILER_MODULE_BINARY_H
#define KILN_DEVICE_CPU_COMPILER_MODULE_BINARY_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* 2: executables no longer carry the builtin library (the JIT links it). */
#define KILN_BINARY_FORMAT_VERSION 2u
#define KILN_BINARY_HEADER_SIZE 64u

uint64_t kiln_fnv1a64(const void *data, size_t size);

/* Little-endian 64-bit fields of Kiln's binary and cache formats. */
static inline void kiln_put_le64(unsigned char *p, uint64_t v) {
  for (int i = 0; i < 8; i++) p[i] = (unsigned char)(v >> (8 * i));
}
static inline uint64_t kiln_get_le64(const unsigned char *p) {
  uint64_t v = 0;
  for (int i = 0; i < 8; i++) v |= (uint64_t)p[i] << (8 * i);
  return v;
}

/* Allocates (malloc) header + payload. 0, or KILN_COMPILE_OUT_OF_MEMORY. */
int kiln_binary_wrap(uint32_t kind, const void *payload, size_t payload_size, void **bytes, size_t *size);

/* Checks the envelope; on success points *payload into bytes. 0, or
 * KILN_COMPILE_INVALID_BINARY with a static reason in *why. */
int kiln_binary_unwrap(const void *bytes, size_t size, uint32_t *kind, const void **payload, size_t *payload_size,
                       const char **why);

#ifdef __cplusplus
}
#endif

#endif
