/* usm_commands.c: the USM enqueues and kernel arguments. Copies and fills are the SVM
 * commands under USM's command types (runtime/svm.h: any host pointer works, USM or not);
 * migration and advice are hints with nothing to move on a CPU, so they are ordering
 * commands that complete in turn. */
#include "ext/intel_usm/intel_usm.h"
#include "runtime/debug_err.h"

#include "runtime/kernel.h"
#include "runtime/svm.h"

cl_int CL_API_CALL kiln_usm_set_kernel_arg(cl_kernel kernel, cl_uint arg_index, const void *arg_value) {
  KILN_API_CALL;
  /* Since 1.1.0 any pointer value is valid for a global or constant pointer argument. */
  return kiln_kernel_set_arg_pointer(kernel, arg_index, arg_value);
}

cl_int CL_API_CALL kiln_usm_enqueue_fill(cl_command_queue queue, void *dst_ptr, const void *pattern,
                                         size_t pattern_size, size_t size, cl_uint num_events,
                                         const cl_event *wait_list, cl_event *event) {
  KILN_API_CALL;
  if (!kiln_queue_is_valid(queue)) return KILN_FAIL_HANDLE(CL_INVALID_COMMAND_QUEUE, queue, cl_command_queue);
  struct kiln_command_sink sink = kiln_command_sink_of_queue(queue, num_events, wait_list, event);
  return kiln_svm_memfill(&sink, CL_COMMAND_MEMFILL_INTEL, dst_ptr, pattern, pattern_size, size);
}

/* The deprecated byte fill that cl_ext.h still declares (earlier drafts of the extension):
 * a fill with a one-byte pattern. */
cl_int CL_API_CALL kiln_usm_enqueue_memset(cl_command_queue queue, void *dst_ptr, cl_int value, size_t size,
                                           cl_uint num_events, const cl_event *wait_list, cl_event *event) {
  KILN_API_CALL;
  if (!kiln_queue_is_valid(queue)) return KILN_FAIL_HANDLE(CL_INVALID_COMMAND_QUEUE, queue, cl_command_queue);
  unsigned char byte = (unsigned char)value;
  struct kiln_command_sink sink = kiln_command_sink_of_queue(queue, num_events, wait_list, event);
  return kiln_svm_memfill(&sink, CL_COMMAND_MEMFILL_INTEL, dst_ptr, &byte, 1, size);
}

cl_int CL_API_CALL kiln_usm_enqueue_memcpy(cl_command_queue queue, cl_bool blocking, void *dst_ptr,
                                           const void *src_ptr, size_t size, cl_uint num_events,
                                           const cl_event *wait_list, cl_event *event) {
  KILN_API_CALL;
  if (!kiln_queue_is_valid(queue)) return KILN_FAIL_HANDLE(CL_INVALID_COMMAND_QUEUE, queue, cl_command_queue);
  struct kiln_command_sink sink = kiln_command_sink_of_queue(queue, num_events, wait_list, event);
  return kiln_svm_memcpy(&sink, CL_COMMAND_MEMCPY_INTEL, dst_ptr, src_ptr, size, blocking);
}

cl_int CL_API_CALL kiln_usm_enqueue_migrate(cl_command_queue queue, const void *ptr, size_t size,
                                            cl_mem_migration_flags flags, cl_uint num_events,
                                            const cl_event *wait_list, cl_event *event) {
  KILN_API_CALL;
  (void)ptr, (void)size; /* a hint: any range may be named (the spec lists no error for it) */
  if (!kiln_queue_is_valid(queue)) return KILN_FAIL_HANDLE(CL_INVALID_COMMAND_QUEUE, queue, cl_command_queue);
  /* 1.2.0: flags 0 is valid (migrate to the queue's device). */
  if (flags & ~(cl_mem_migration_flags)(CL_MIGRATE_MEM_OBJECT_HOST | CL_MIGRATE_MEM_OBJECT_CONTENT_UNDEFINED))
    return KILN_FAIL(
        CL_INVALID_VALUE, "rejected since (%s)",
        "flags & ~(cl_mem_migration_flags)(CL_MIGRATE_MEM_OBJECT_HOST | CL_MIGRATE_MEM_OBJECT_CONTENT_UNDEFINED)");
  struct kiln_command_sink sink = kiln_command_sink_of_queue(queue, num_events, wait_list, event);
  return kiln_svm_submit_sync(&sink, CL_COMMAND_MIGRATEMEM_INTEL, CL_FALSE);
}

cl_int CL_API_CALL kiln_usm_enqueue_advise(cl_command_queue queue, const void *ptr, size_t size,
                                           cl_mem_advice_intel advice, cl_uint num_events,
                                           const cl_event *wait_list, cl_event *event) {
  KILN_API_CALL;
  (void)ptr, (void)size;
  if (!kiln_queue_is_valid(queue)) return KILN_FAIL_HANDLE(CL_INVALID_COMMAND_QUEUE, queue, cl_command_queue);
  /* The extension defines no advice value yet (0x4208-0x420F are reserved), so none is
   * supported; 0, no advice, orders like a marker (runtimes pass it to reset advice). */
  if (advice != 0) return KILN_FAIL(CL_INVALID_VALUE, "rejected since (%s)", "advice != 0");
  struct kiln_command_sink sink = kiln_command_sink_of_queue(queue, num_events, wait_list, event);
  return kiln_svm_submit_sync(&sink, CL_COMMAND_MEMADVISE_INTEL, CL_FALSE);
}
