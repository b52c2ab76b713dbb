/* builtins_ref.h: access to the embedded builtin library (device/cpu/builtins/builtins.h);
 * empty when the build has none. */
#ifndef KILN_DEVICE_CPU_COMPILER_BUILTINS_REF_H
#define KILN_DEVICE_CPU_COMPILER_BUILTINS_REF_H

#include "device/cpu/builtins/builtins.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The shards (returns their count; 0 and NULL when absent). */
size_t kiln_builtins_get_shards(const struct kiln_builtins_shard **shards);
/* The names the shards define as "name\tshard index\n" lines (NULL, 0 when absent). */
void kiln_builtins_get_symbols(const char **names, size_t *size);

#ifdef __cplusplus
}
#endif

#endif
