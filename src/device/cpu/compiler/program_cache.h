/* program_cache.h: the compiled-code disk cache. clBuildProgram from source looks here
 * first; an entry holds everything a build produces — the executable module (as
 * kiln_module_serialize writes it), the JIT's object files and the build log — so a hit
 * runs neither clang, nor the linker, nor optimization and code generation.
 *
 * Key: SHA-256 over the source and embedded headers (or the SPIR-V module and the
 * translator's identity), the options, the host (triple, CPU,
 * features: kiln_jit_host_identity), Kiln's and LLVM's versions, and the identity of the
 * binary holding the builtin library (its GNU build id, else the bitcode's SHA-256).
 * Sources that may read files (#include, -I) or use __DATE__/__TIME__ are not cached:
 * the key cannot see what they depend on.
 *
 * Location: $KILN_CACHE_DIR, else $XDG_CACHE_HOME/kiln, else $HOME/.cache/kiln (created
 * as needed). KILN_CACHE=0 disables the cache. Entries are written to a temporary file and
 * renamed into place, so concurrent processes see whole entries or none; a reader checks
 * magic, format, key, size and checksum and treats anything else as a miss. Errors
 * (unwritable directory, full disk) only lose the entry, never the build. */
#ifndef KILN_DEVICE_CPU_COMPILER_PROGRAM_CACHE_H
#define KILN_DEVICE_CPU_COMPILER_PROGRAM_CACHE_H

#include "device/cpu/compiler/compiler.h"
#include "device/cpu/compiler/sha256.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define KILN_PROGRAM_CACHE_SUFFIX ".kcache"
/* Entries beyond this total are removed, least recently used first, when one is stored. */
#define KILN_PROGRAM_CACHE_MAX_BYTES (256ull << 20)

struct kiln_program_cache_key {
  unsigned char digest[KILN_SHA256_SIZE];
};

/* False when the cache is disabled or this source cannot be cached; else fills *key. */
bool kiln_program_cache_key_for_source(const char *source, size_t length, const char *options,
                                       const struct kiln_cl_header *headers, size_t num_headers,
                                       struct kiln_program_cache_key *key);

/* The same for a SPIR-V module (its words with the specialization constants written in),
 * translated by the program at `translator` (its size and modification time are hashed:
 * another translator is another key). */
bool kiln_program_cache_key_for_il(const uint32_t *words, size_t num_words, const char *translator,
                                   const char *options, struct kiln_program_cache_key *key);

/* A hit: true with the executable, its loaded machine code and the build log (malloc'd). A
 * miss, or an entry that is not valid: false, nothing set. */
bool kiln_program_cache_load(const struct kiln_program_cache_key *key, kiln_module **executable,
                             kiln_jit_program **jit, char **log);

/* Stores a build's result (best effort: failures are silent). */
void kiln_program_cache_store(const struct kiln_program_cache_key *key, const kiln_module *executable,
                              const kiln_jit_program *jit, const char *log);

/* The cache directory (malloc'd), or NULL when disabled or no location is known. */
char *kiln_program_cache_dir(void);

#ifdef __cplusplus
}
#endif

#endif
