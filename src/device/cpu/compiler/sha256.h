/* sha256.h: SHA-256 (FIPS 180-4), incremental: a C interface to LLVM's llvm::SHA256
 * (sha256.cpp). Used for the compiled-code cache's keys and, when the library has no build
 * id, the builtin library's identity. */
#ifndef KILN_DEVICE_CPU_COMPILER_SHA256_H
#define KILN_DEVICE_CPU_COMPILER_SHA256_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define KILN_SHA256_SIZE 32u

/* Room for an llvm::SHA256 (sha256.cpp checks that it fits); opaque to C. */
struct kiln_sha256 {
  union {
    unsigned char bytes[128];
    uint64_t align;
  } state;
};

void kiln_sha256_init(struct kiln_sha256 *h);
void kiln_sha256_update(struct kiln_sha256 *h, const void *data, size_t size);
void kiln_sha256_final(struct kiln_sha256 *h, unsigned char digest[KILN_SHA256_SIZE]);
void kiln_sha256(const void *data, size_t size, unsigned char digest[KILN_SHA256_SIZE]);

#ifdef __cplusplus
}
#endif

#endif
