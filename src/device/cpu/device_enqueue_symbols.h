/* device_enqueue_symbols.h: what the compiler (C++) needs of device-side enqueue
 * (device_enqueue.h): the host functions JIT code calls and the clang entry points the
 * compiler rewrites into them (compiler/device_enqueue.cpp). */
#ifndef KILN_DEVICE_CPU_DEVICE_ENQUEUE_SYMBOLS_H
#define KILN_DEVICE_CPU_DEVICE_ENQUEUE_SYMBOLS_H

#include <stdbool.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Makes the functions JIT code calls visible to it (kiln_jit_define_symbol). */
void kiln_device_enqueue_register(void);
/* The functions clang's code generation calls for enqueue_kernel and the kernel queries
 * (__enqueue_kernel_basic, __get_kernel_work_group_size_impl, ...), which the compiler
 * rewrites into calls of the two below. */
bool kiln_device_enqueue_is_clang_entry(const char *name);

/* int (queue, flags, ndrange*, num_events, wait_list*, event_ret*, kernel_index,
 *      block_literal*, num_locals, size_t local_sizes[]) */
#define KILN_ENQUEUE_KERNEL_SYMBOL "__kiln_enqueue_kernel"
/* uint (kernel_index, enum kiln_block_query, ndrange* or NULL) */
#define KILN_BLOCK_QUERY_SYMBOL "__kiln_block_kernel_query"
enum kiln_block_query {
  KILN_BLOCK_QUERY_WORK_GROUP_SIZE,
  KILN_BLOCK_QUERY_PREFERRED_MULTIPLE,
  KILN_BLOCK_QUERY_MAX_SUB_GROUP_SIZE,
  KILN_BLOCK_QUERY_SUB_GROUP_COUNT,
};

#ifdef __cplusplus
}
#endif

#endif
