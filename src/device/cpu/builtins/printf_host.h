/* printf_host.h: OpenCL C printf, host side. The compiler (compiler/printf_lowering.cpp)
 * rewrites every call `printf(format, a1, a2, ...)` of an executable into
 *
 *   KILN_PRINTF_HOST_SYMBOL(format, types, count, args)
 *
 * because SPIR-style variadic calls (vectors by value) cannot be read with the host's
 * va_arg. `types` describes each argument (KILN_PRINTF_ARG_TYPE), `args` holds their values
 * in order, each at the next multiple of KILN_PRINTF_ARG_ALIGN bytes, a vector of 3
 * elements taking the room of 4. Arguments arrive as clang passes them to printf: scalar
 * integers promoted to at least int, scalar floats to double (the device has fp64),
 * vectors unpromoted, strings and pointers as 64-bit pointers.
 *
 * The host function formats the call as the OpenCL C spec says (C99 conversions plus the
 * vN vector specifier and the hh/h/hl/l length modifiers) and appends the text to the
 * current launch's printf buffer (device/cpu/printf_buffer.h). It returns 0, or -1 when
 * the format is invalid, arguments are missing, or the text does not fit the buffer. */
#ifndef KILN_DEVICE_CPU_BUILTINS_PRINTF_HOST_H
#define KILN_DEVICE_CPU_BUILTINS_PRINTF_HOST_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define KILN_PRINTF_HOST_SYMBOL "__kiln_printf"

enum kiln_printf_arg_kind {
  KILN_PRINTF_ARG_INT = 1,     /* element bytes 1, 2, 4 or 8 */
  KILN_PRINTF_ARG_FLOAT = 2,   /* element bytes 2 (half), 4 or 8 */
  KILN_PRINTF_ARG_POINTER = 3, /* 8 bytes */
};

/* kind | element bytes << 8 | element count (1 for scalars) << 16. */
#define KILN_PRINTF_ARG_TYPE(kind, element_bytes, count) \
  ((uint32_t)(kind) | (uint32_t)(element_bytes) << 8 | (uint32_t)(count) << 16)
#define KILN_PRINTF_ARG_KIND(type) ((type) & 0xffu)
#define KILN_PRINTF_ARG_ELEMENT_BYTES(type) (((type) >> 8) & 0xffu)
#define KILN_PRINTF_ARG_COUNT(type) ((type) >> 16)
#define KILN_PRINTF_ARG_ALIGN 8u

/* Bytes an argument's value takes in `args` (3-element vectors are stored as 4). */
static inline size_t kiln_printf_arg_bytes(uint32_t type) {
  size_t count = KILN_PRINTF_ARG_COUNT(type);
  return KILN_PRINTF_ARG_ELEMENT_BYTES(type) * (count == 3 ? 4 : count);
}

int kiln_printf_host(const char *format, const uint32_t *types, uint32_t count, const void *args);

/* Makes kiln_printf_host visible to JIT code as KILN_PRINTF_HOST_SYMBOL (idempotent). */
void kiln_printf_host_register(void);

#ifdef __cplusplus
}
#endif

#endif
