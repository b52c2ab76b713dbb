/* sha256.h: SHA-256 (FIPS 180-4), incremental. Used for the compiled-code cache's keys
 * and, when the library has no build id, the builtin library's identity. */
#ifndef KILN_DEVICE_CPU_COMPILER_SHA256_H
#define KILN_DEVICE_CPU_COMPILER_SHA256_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define KILN_SHA256_SIZE 32u

struct kiln_sha256 {
  uint32_t state[8];
  uint64_t length;          /* bytes hashed so far */
  unsigned char block[64];  /* pending bytes (length % 64 of them) */
};

void kiln_sha256_init(struct kiln_sha256 *h);
void kiln_sha256_update(struct kiln_sha256 *h, const void *data, size_t size);
void kiln_sha256_final(struct kiln_sha256 *h, unsigned char digest[KILN_SHA256_SIZE]);
void kiln_sha256(const void *data, size_t size, unsigned char digest[KILN_SHA256_SIZE]);

#ifdef __cplusplus
}
#endif

#endif
