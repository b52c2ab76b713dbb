/* builtins_ref.c: where the compiler finds the embedded builtin library. Without the
 * builtins target in the build (KILN_HAVE_BUILTINS unset) the symbols are weak and may be
 * absent: the library is then empty and programs that call builtins fail to link. */
#include "device/cpu/compiler/builtins_ref.h"

#ifndef KILN_HAVE_BUILTINS
#pragma weak kiln_builtins_shards
#pragma weak kiln_builtins_shard_count
#pragma weak kiln_builtins_symbols
#pragma weak kiln_builtins_symbols_size
#endif

size_t kiln_builtins_get_shards(const struct kiln_builtins_shard **shards) {
#ifndef KILN_HAVE_BUILTINS
  if (&kiln_builtins_shard_count == NULL || kiln_builtins_shards == NULL) {
    *shards = NULL;
    return 0;
  }
#endif
  *shards = kiln_builtins_shards;
  return kiln_builtins_shard_count;
}

void kiln_builtins_get_symbols(const char **names, size_t *size) {
#ifndef KILN_HAVE_BUILTINS
  if (&kiln_builtins_symbols_size == NULL || kiln_builtins_symbols == NULL) {
    *names = NULL;
    *size = 0;
    return;
  }
#endif
  *names = kiln_builtins_symbols;
  *size = kiln_builtins_symbols_size;
}
