/* builtins_ref.h: access to the embedded builtin library (NULL, 0 when absent). */
#ifndef KILN_DEVICE_CPU_COMPILER_BUILTINS_REF_H
#define KILN_DEVICE_CPU_COMPILER_BUILTINS_REF_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

void kiln_builtins_get(const unsigned char **bitcode, size_t *size);
/* The names the library defines, one per line (NULL, 0 when absent). */
void kiln_builtins_get_symbols(const char **names, size_t *size);

#ifdef __cplusplus
}
#endif

#endif
