/* module_binary.c: the program binary envelope (see module_binary.h). */
#include "device/cpu/compiler/module_binary.h"

#include "device/cpu/compiler/compiler.h"

#include <stdlib.h>
#include <string.h>

#ifndef KILN_LLVM_VERSION_STRING
#error "KILN_LLVM_VERSION_STRING must be defined by the build"
#endif

static const char magic[8] = {'K', 'I', 'L', 'N', 'B', 'I', 'N', '\0'};

uint64_t kiln_fnv1a64(const void *data, size_t size) {
  const unsigned char *p = data;
  uint64_t h = 0xcbf29ce484222325ull;
  for (size_t i = 0; i < size; i++) {
    h ^= p[i];
    h *= 0x100000001b3ull;
  }
  return h;
}

static void put_u32(unsigned char *p, uint32_t v) {
  for (int i = 0; i < 4; i++) p[i] = (unsigned char)(v >> (8 * i));
}
static uint32_t get_u32(const unsigned char *p) {
  uint32_t v = 0;
  for (int i = 0; i < 4; i++) v |= (uint32_t)p[i] << (8 * i);
  return v;
}

/* Header layout offsets. */
enum { OFF_MAGIC = 0, OFF_FORMAT = 8, OFF_KIND = 12, OFF_KILN = 16, OFF_LLVM = 32, OFF_SIZE = 48, OFF_SUM = 56 };

static void put_version(unsigned char *p, const char *v) {
  memset(p, 0, 16);
  size_t n = strlen(v);
  memcpy(p, v, n < 15 ? n : 15);
}

int kiln_binary_wrap(uint32_t kind, const void *payload, size_t payload_size, void **bytes, size_t *size) {
  unsigned char *out = malloc(KILN_BINARY_HEADER_SIZE + payload_size);
  if (!out) return KILN_COMPILE_OUT_OF_MEMORY;
  memcpy(out + OFF_MAGIC, magic, sizeof magic);
  put_u32(out + OFF_FORMAT, KILN_BINARY_FORMAT_VERSION);
  put_u32(out + OFF_KIND, kind);
  put_version(out + OFF_KILN, KILN_VERSION_STRING);
  put_version(out + OFF_LLVM, KILN_LLVM_VERSION_STRING);
  kiln_put_le64(out + OFF_SIZE, payload_size);
  kiln_put_le64(out + OFF_SUM, kiln_fnv1a64(payload, payload_size));
  memcpy(out + KILN_BINARY_HEADER_SIZE, payload, payload_size);
  *bytes = out;
  *size = KILN_BINARY_HEADER_SIZE + payload_size;
  return KILN_COMPILE_OK;
}

int kiln_binary_unwrap(const void *bytes, size_t size, uint32_t *kind, const void **payload, size_t *payload_size,
                       const char **why) {
  const unsigned char *p = bytes;
  unsigned char version[16];
  if (!p || size < KILN_BINARY_HEADER_SIZE || memcmp(p + OFF_MAGIC, magic, sizeof magic) != 0) {
    *why = "not a Kiln program binary";
    return KILN_COMPILE_INVALID_BINARY;
  }
  if (get_u32(p + OFF_FORMAT) != KILN_BINARY_FORMAT_VERSION) {
    *why = "unsupported Kiln binary format version";
    return KILN_COMPILE_INVALID_BINARY;
  }
  put_version(version, KILN_VERSION_STRING);
  if (memcmp(p + OFF_KILN, version, 16) != 0) {
    *why = "binary built by another Kiln version";
    return KILN_COMPILE_INVALID_BINARY;
  }
  put_version(version, KILN_LLVM_VERSION_STRING);
  if (memcmp(p + OFF_LLVM, version, 16) != 0) {
    *why = "binary built with another LLVM version";
    return KILN_COMPILE_INVALID_BINARY;
  }
  uint32_t k = get_u32(p + OFF_KIND);
  if (k < KILN_MODULE_OBJECT || k > KILN_MODULE_EXECUTABLE) {
    *why = "unknown module kind";
    return KILN_COMPILE_INVALID_BINARY;
  }
  uint64_t n = kiln_get_le64(p + OFF_SIZE);
  if (n != size - KILN_BINARY_HEADER_SIZE) {
    *why = "truncated or oversized binary";
    return KILN_COMPILE_INVALID_BINARY;
  }
  if (kiln_fnv1a64(p + KILN_BINARY_HEADER_SIZE, (size_t)n) != kiln_get_le64(p + OFF_SUM)) {
    *why = "checksum mismatch (corrupt binary)";
    return KILN_COMPILE_INVALID_BINARY;
  }
  *kind = k;
  *payload = p + KILN_BINARY_HEADER_SIZE;
  *payload_size = (size_t)n;
  return KILN_COMPILE_OK;
}
