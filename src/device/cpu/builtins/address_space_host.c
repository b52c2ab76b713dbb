/* address_space_host.c: the host half of builtins/address_spaces.cl (kernel_abi.h's
 * KILN_ON_STACK_SYMBOL), which JIT code calls by name. */
#include "device/cpu/builtins/address_space_host.h"

#include "device/cpu/compiler/compiler.h"
#include "device/cpu/kernel_abi.h"

/* The caller's stack slots lie above this function's frame (stacks grow down on every
 * host Kiln runs on) and below the launcher's return address `stack_top`. noinline: the
 * frame must be this call's own. */
__attribute__((noinline)) static int on_stack(uintptr_t p, uintptr_t stack_top) {
  uintptr_t frame = (uintptr_t)__builtin_frame_address(0);
  return p >= frame && p < stack_top;
}

void kiln_address_space_host_register(void) { kiln_jit_define_symbol(KILN_ON_STACK_SYMBOL, (void *)on_stack); }
