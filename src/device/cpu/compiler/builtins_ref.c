/* builtins_ref.c: where the compiler finds the embedded builtin library's bitcode and
 * symbol list. Without
 * the builtins target in the build (KILN_HAVE_BUILTINS unset) the symbols are weak and may
 * be absent: the library is then empty and programs that call builtins fail to link. */
#include "device/cpu/compiler/builtins_ref.h"

#ifdef KILN_HAVE_BUILTINS
#include "device/cpu/builtins/builtins.h"
#else
extern const unsigned char kiln_builtins_bitcode[] __attribute__((weak));
extern const size_t kiln_builtins_bitcode_size __attribute__((weak));
extern const unsigned char kiln_builtins_symbols[] __attribute__((weak));
extern const size_t kiln_builtins_symbols_size __attribute__((weak));
#endif

void kiln_builtins_get(const unsigned char **bitcode, size_t *size) {
#ifndef KILN_HAVE_BUILTINS
  if (&kiln_builtins_bitcode_size == NULL || kiln_builtins_bitcode == NULL) {
    *bitcode = NULL;
    *size = 0;
    return;
  }
#endif
  *bitcode = kiln_builtins_bitcode;
  *size = kiln_builtins_bitcode_size;
}

void kiln_builtins_get_symbols(const char **names, size_t *size) {
#ifndef KILN_HAVE_BUILTINS
  if (&kiln_builtins_symbols_size == NULL || kiln_builtins_symbols == NULL) {
    *names = NULL;
    *size = 0;
    return;
  }
#endif
  *names = (const char *)kiln_builtins_symbols;
  *size = kiln_builtins_symbols_size;
}
