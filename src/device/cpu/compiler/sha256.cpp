// sha256.cpp: the C interface of sha256.h over LLVM's SHA-256 (llvm/Support/SHA256.h):
// one implementation of the hash in the process, the one LLVM tests.
#include "device/cpu/compiler/sha256.h"

#include <llvm/ADT/ArrayRef.h>
#include <llvm/Support/SHA256.h>

#include <cstring>
#include <new>
#include <type_traits>

static_assert(sizeof(llvm::SHA256) <= sizeof(((struct kiln_sha256 *)nullptr)->state), "struct kiln_sha256 too small for llvm::SHA256");
static_assert(alignof(llvm::SHA256) <= alignof(struct kiln_sha256), "struct kiln_sha256 aligned less than llvm::SHA256");
static_assert(std::is_trivially_destructible_v<llvm::SHA256>, "kiln_sha256 has no destroy function");

static llvm::SHA256 *hasher(struct kiln_sha256 *h) { return std::launder(reinterpret_cast<llvm::SHA256 *>(h->state.bytes)); }

extern "C" {

void kiln_sha256_init(struct kiln_sha256 *h) { new (h->state.bytes) llvm::SHA256(); }

void kiln_sha256_update(struct kiln_sha256 *h, const void *data, size_t size) {
  if (size) hasher(h)->update(llvm::ArrayRef<uint8_t>(static_cast<const uint8_t *>(data), size));
}

void kiln_sha256_final(struct kiln_sha256 *h, unsigned char digest[KILN_SHA256_SIZE]) {
  std::array<uint8_t, 32> result = hasher(h)->final();
  memcpy(digest, result.data(), KILN_SHA256_SIZE);
}

void kiln_sha256(const void *data, size_t size, unsigned char digest[KILN_SHA256_SIZE]) {
  struct kiln_sha256 h;
  kiln_sha256_init(&h);
  kiln_sha256_update(&h, data, size);
  kiln_sha256_final(&h, digest);
}

}  // extern "C"
