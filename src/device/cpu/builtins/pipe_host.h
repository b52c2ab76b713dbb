/* pipe_host.h: the pipe functions JIT code calls (device/cpu/pipe.h). */
#ifndef KILN_DEVICE_CPU_BUILTINS_PIPE_HOST_H
#define KILN_DEVICE_CPU_BUILTINS_PIPE_HOST_H

#include <stdbool.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Makes clang's pipe runtime functions (__read_pipe_2, __reserve_write_pipe, ...) visible to
 * JIT code (kiln_jit_define_symbol). */
void kiln_pipe_host_register(void);
/* Whether `name` is one of them (the linker's check for undefined functions). */
bool kiln_pipe_host_defines(const char *name);

#ifdef __cplusplus
}
#endif

#endif
