/* svm_free.c: clEnqueueSVMFree. The pointer list is copied into the command (the
 * application may reuse its array at once); when the command runs, the application's
 * callback gets that copy, or Kiln frees each pointer it allocated in the queue's
 * context. */
#include "runtime/svm.h"
#include "runtime/debug_err.h"

#include <string.h>

typedef void(CL_CALLBACK *svm_free_fn)(cl_command_queue, cl_uint, void *[], void *);

struct svm_free {
  cl_command_queue queue; /* the command keeps its queue alive until it completes */
  cl_context context;
  svm_free_fn callback;
  void *user_data;
  cl_uint count;
  void **pointers;        /* the command's side allocation */
};

static cl_int run_svm_free(struct kiln_command *command) {
  const struct svm_free *p = kiln_command_payload(command);
  if (p->callback) {
    p->callback(p->queue, p->count, p->pointers, p->user_data);
    return CL_SUCCESS;
  }
  for (cl_uint i = 0; i < p->count; i++)
    if (p->pointers[i]) kiln_svm_release(p->context, p->pointers[i], KILN_SVM_BUFFER);
  return CL_SUCCESS;
}

CL_API_ENTRY cl_int CL_API_CALL clEnqueueSVMFree(cl_command_queue queue, cl_uint num_svm_pointers,
                                                 void *svm_pointers[], svm_free_fn pfn_free_func, void *user_data,
                                                 cl_uint num_events, const cl_event *wait_list, cl_event *event) {
  KILN_API_CALL;
  if (!kiln_queue_is_valid(queue)) return KILN_FAIL_HANDLE(CL_INVALID_COMMAND_QUEUE, queue, cl_command_queue);
  if (!num_svm_pointers != !svm_pointers)
    return KILN_FAIL(CL_INVALID_VALUE, "rejected since (%s)", "!num_svm_pointers != !svm_pointers");
  cl_int err = kiln_command_check_enqueue(queue, CL_COMMAND_SVM_FREE, num_events, wait_list, event);
  if (err != CL_SUCCESS) return err;
  struct kiln_command *command = kiln_command_create(queue, CL_COMMAND_SVM_FREE, run_svm_free, &err);
  if (!command) return err;
  struct svm_free *p = kiln_command_payload(command);
  *p = (struct svm_free){.queue = queue, .context = kiln_queue_context(queue), .callback = pfn_free_func,
                         .user_data = user_data, .count = num_svm_pointers};
  if (num_svm_pointers) {
    p->pointers = kiln_command_side_alloc(command, num_svm_pointers * sizeof *p->pointers, sizeof(void *));
    if (!p->pointers) {
      kiln_command_discard(command);
      return CL_OUT_OF_HOST_MEMORY;
    }
    memcpy(p->pointers, svm_pointers, num_svm_pointers * sizeof *p->pointers);
  }
  return kiln_command_submit(command, num_events, wait_list, event, CL_FALSE);
}
