/* address_space_host.h: host support of the generic address space's functions
 * (builtins/address_spaces.cl). */
#ifndef KILN_DEVICE_CPU_BUILTINS_ADDRESS_SPACE_HOST_H
#define KILN_DEVICE_CPU_BUILTINS_ADDRESS_SPACE_HOST_H

#ifdef __cplusplus
extern "C" {
#endif

/* Makes the helper visible to JIT code (kiln_jit_define_symbol). */
void kiln_address_space_host_register(void);

#ifdef __cplusplus
}
#endif

#endif
