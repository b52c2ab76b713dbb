/* unsupported_svm.c: shared virtual memory entry points. The CPU device reports no
 * SVM capabilities (CL_DEVICE_SVM_CAPABILITIES = 0), so allocation fails like malloc,
 * freeing does nothing, and every SVM enqueue on a valid queue is CL_INVALID_OPERATION. */
#include "runtime/command.h"

static cl_int enqueue_unsupported(cl_command_queue queue) {
  return kiln_queue_is_valid(queue) ? CL_INVALID_OPERATION : CL_INVALID_COMMAND_QUEUE;
}

CL_API_ENTRY void *CL_API_CALL clSVMAlloc(cl_context context, cl_svm_mem_flags flags, size_t size,
                                          cl_uint alignment) {
  KILN_API_CALL;
  (void)context, (void)flags, (void)size, (void)alignment;
  return NULL;
}

CL_API_ENTRY void CL_API_CALL clSVMFree(cl_context context, void *svm_pointer) {
  KILN_API_CALL;
  (void)context, (void)svm_pointer; /* no device in any context supports SVM: no action */
}

CL_API_ENTRY cl_int CL_API_CALL clEnqueueSVMFree(cl_command_queue queue, cl_uint num_svm_pointers,
                                                 void *svm_pointers[],
                                                 void(CL_CALLBACK *pfn_free_func)(cl_command_queue, cl_uint,
                                                                                  void *[], void *),
                                                 void *user_data, cl_uint num_events, const cl_event *wait_list,
                                                 cl_event *event) {
  KILN_API_CALL;
  (void)num_svm_pointers, (void)svm_pointers, (void)pfn_free_func, (void)user_data;
  (void)num_events, (void)wait_list, (void)event;
  return enqueue_unsupported(queue);
}

CL_API_ENTRY cl_int CL_API_CALL clEnqueueSVMMemcpy(cl_command_queue queue, cl_bool blocking, void *dst,
                                                   const void *src, size_t size, cl_uint num_events,
                                                   const cl_event *wait_list, cl_event *event) {
  KILN_API_CALL;
  (void)blocking, (void)dst, (void)src, (void)size, (void)num_events, (void)wait_list, (void)event;
  return enqueue_unsupported(queue);
}

CL_API_ENTRY cl_int CL_API_CALL clEnqueueSVMMemFill(cl_command_queue queue, void *svm_ptr, const void *pattern,
                                                    size_t pattern_size, size_t size, cl_uint num_events,
                                                    const cl_event *wait_list, cl_event *event) {
  KILN_API_CALL;
  (void)svm_ptr, (void)pattern, (void)pattern_size, (void)size, (void)num_events, (void)wait_list, (void)event;
  return enqueue_unsupported(queue);
}

CL_API_ENTRY cl_int CL_API_CALL clEnqueueSVMMap(cl_command_queue queue, cl_bool blocking, cl_map_flags flags,
                                                void *svm_ptr, size_t size, cl_uint num_events,
                                                const cl_event *wait_list, cl_event *event) {
  KILN_API_CALL;
  (void)blocking, (void)flags, (void)svm_ptr, (void)size, (void)num_events, (void)wait_list, (void)event;
  return enqueue_unsupported(queue);
}

CL_API_ENTRY cl_int CL_API_CALL clEnqueueSVMUnmap(cl_command_queue queue, void *svm_ptr, cl_uint num_events,
                                                  const cl_event *wait_list, cl_event *event) {
  KILN_API_CALL;
  (void)svm_ptr, (void)num_events, (void)wait_list, (void)event;
  return enqueue_unsupported(queue);
}

CL_API_ENTRY cl_int CL_API_CALL clEnqueueSVMMigrateMem(cl_command_queue queue, cl_uint num_svm_pointers,
                                                       const void **svm_pointers, const size_t *sizes,
                                                       cl_mem_migration_flags flags, cl_uint num_events,
                                                       const cl_event *wait_list, cl_event *event) {
  KILN_API_CALL;
  (void)num_svm_pointers, (void)svm_pointers, (void)sizes, (void)flags, (void)num_events, (void)wait_list;
  (void)event;
  return enqueue_unsupported(queue);
}
