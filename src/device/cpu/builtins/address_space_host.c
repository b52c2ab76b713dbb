/* address_space_host.c: the host half of builtins/address_spaces.cl (kernel_abi.h's
 * KILN_MEMORY_KIND_SYMBOL), which JIT code calls by name. */
#include "device/cpu/builtins/address_space_host.h"

#include "device/cpu/compiler/compiler.h"
#include "device/cpu/fibers.h"
#include "device/cpu/kernel_abi.h"
#include "device/cpu/ndrange_executor.h"
#include "device/cpu/worker_pool.h"

/* The caller's stack slots lie above this function's frame (stacks grow down on every
 * host Kiln runs on) and below the launcher's return address `stack_top`. noinline: the
 * frame must be this call's own. */
__attribute__((noinline)) static int memory_kind(uintptr_t p, uintptr_t stack_top) {
  uintptr_t frame = (uintptr_t)__builtin_frame_address(0);
  if (p >= frame && p < stack_top) return KILN_MEMORY_PRIVATE;
  /* Another work-group's __local memory or another work-item's private memory is still
   * local or private (a kernel may pass such pointers through global memory). */
  if (kiln_ndrange_is_local_memory(p)) return KILN_MEMORY_LOCAL;
  if (kiln_worker_pool_on_job_stack(p) || kiln_fibers_on_stack(p)) return KILN_MEMORY_PRIVATE;
  return KILN_MEMORY_GLOBAL;
}

void kiln_address_space_host_register(void) { kiln_jit_define_symbol(KILN_MEMORY_KIND_SYMBOL, (void *)memory_kind); }
