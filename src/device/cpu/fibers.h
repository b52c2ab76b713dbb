/* fibers.h: a work-group's work-items as fibers, for kernels whose work-items may wait on
 * each other. OpenCL requires independent forward progress of sub-groups for
 * cl_khr_subgroups: a work-item spinning on a value another work-item of its group stores
 * must see it. Launchers run work-items one after another on the worker's stack
 * (continuation-based barriers), so such a spin never ends there. The compiler gives
 * kernels with a loop whose exit waits on an atomic, volatile or pipe read
 * (compiler/spin_loops.cpp) a launcher that runs a group's work-items on fibers here: one
 * fiber runs them one after another until one of them waits (a barrier, or a further turn
 * of such a loop); then another fiber takes the next unstarted work-item, and the fibers
 * that can run take turns (round-robin): every work-item that can run gets to run.
 * Switches are Boost.Context's (make_fcontext/jump_fcontext, a few nanoseconds); stacks are
 * the calling thread's, kept between groups and launches. */
#ifndef KILN_DEVICE_CPU_FIBERS_H
#define KILN_DEVICE_CPU_FIBERS_H

#include <stdbool.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* A fiber's stack: address space, pages committed as they are touched. The kernel's own
 * code may use what KILN_STACK_RESERVE_BYTES (worker_pool.h) leaves of it. */
#define KILN_FIBER_STACK_BYTES (512u << 10)

/* Whether a fiber launcher needing `code_bytes` of stack for its own code fits a fiber. */
bool kiln_fibers_stack_fits(uint64_t code_bytes);

/* The work-item function of a fiber launcher: runs the work-items of the group `context`
 * describes that it claims from `cursor` (kernel_abi.h's KILN_FIBERS_CURSOR_*). */
typedef void (*kiln_fiber_item_fn)(void *context, uint64_t *cursor);

/* Runs work-items 0 .. items - 1 of a group to their end on fibers; returns 0, or 1 when
 * their stacks could not be had (out of memory). Called by launchers (JIT code, by the
 * name KILN_FIBERS_RUN_GROUP_SYMBOL of kernel_abi.h). */
int kiln_fibers_run_group(kiln_fiber_item_fn item, void *context, uint64_t items);

/* Whether `p` lies in a fiber stack of any thread: another work-item's private memory, for
 * the generic address space's to_private. */
bool kiln_fibers_on_stack(uintptr_t p);

/* Makes run_group, the barrier and the yield (kernel_abi.h's KILN_FIBERS_*_SYMBOL) visible
 * to JIT code. */
void kiln_fibers_register(void);

#ifdef __cplusplus
}
#endif

#endif
