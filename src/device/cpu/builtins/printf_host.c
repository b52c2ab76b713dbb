/* printf_host.c: placeholder, replaced below. */
#include <stdarg.h>
int kiln_printf_host(const char *format, ...);
int kiln_printf_host(const char *format, ...) { (void)format; return -1; }
