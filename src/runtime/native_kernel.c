/* native_kernel.c: clEnqueueNativeKernel. The argument block is copied into the command;
 * when the command runs, the memory-object handles at args_mem_loc are replaced by their
 * storage pointers in that copy and the user function is called with it. */
#include "runtime/command.h"
#include "runtime/debug_err.h"
#include "runtime/mem_object.h"
#include "runtime/queue.h"

#include <stdalign.h>
#include <string.h>

struct native_payload {
  void(CL_CALLBACK *user_func)(void *);
  void *args;              /* the copy (inline below or a side block); NULL when none */
  size_t num_mem;
  size_t *mem_offsets;     /* where each handle sits in the copy */
  cl_mem *mems;            /* held until completion */
};

#define INLINE_OFFSET ((sizeof(struct native_payload) + 15u) & ~(size_t)15u)
#define INLINE_BYTES (KILN_COMMAND_PAYLOAD_BYTES - INLINE_OFFSET)

static cl_int run_native(struct kiln_command *command) {
  struct native_payload *p = kiln_command_payload(command);
  for (size_t i = 0; i < p->num_mem; i++) {
    void *pointer = p->mems[i] ? p->mems[i]->storage : NULL;
    memcpy((char *)p->args + p->mem_offsets[i], &pointer, sizeof pointer);
  }
  p->user_func(p->args);
  return CL_SUCCESS;
}

static bool device_runs_native_kernels(cl_command_queue queue) {
  cl_device_exec_capabilities caps = 0;
  clGetDeviceInfo(queue->device, CL_DEVICE_EXECUTION_CAPABILITIES, sizeof caps, &caps, NULL);
  return (caps & CL_EXEC_NATIVE_KERNEL) != 0;
}

CL_API_ENTRY cl_int CL_API_CALL clEnqueueNativeKernel(cl_command_queue command_queue,
                                                      void(CL_CALLBACK *user_func)(void *), void *args,
                                                      size_t cb_args, cl_uint num_mem_objects, const cl_mem *mem_list,
                                                      const void **args_mem_loc, cl_uint num_events_in_wait_list,
                                                      const cl_event *event_wait_list, cl_event *event) {
  KILN_API_CALL;
  if (!kiln_queue_is_valid(command_queue))
    return KILN_FAIL_HANDLE(CL_INVALID_COMMAND_QUEUE, command_queue, cl_command_queue);
  cl_int err = kiln_command_check_enqueue(command_queue, CL_COMMAND_NATIVE_KERNEL, num_events_in_wait_list,
                                          event_wait_list, event);
  if (err == CL_INVALID_CONTEXT) return err;
  if (!user_func) return KILN_FAIL(CL_INVALID_VALUE, "rejected since (%s)", "!user_func");
  if ((!args && (cb_args > 0 || num_mem_objects > 0)) || (args && cb_args == 0))
    return KILN_FAIL(CL_INVALID_VALUE, "rejected since (%s)",
                     "(!args && (cb_args > 0 || num_mem_objects > 0)) || (args && cb_args == 0)");
  if (num_mem_objects > 0 ? (!mem_list || !args_mem_loc) : (mem_list || args_mem_loc))
    return KILN_FAIL(CL_INVALID_VALUE, "rejected since (%s)",
                     "num_mem_objects > 0 ? (!mem_list || !args_mem_loc) : (mem_list || args_mem_loc)");
  /* Each handle must lie inside the argument block (it is replaced in the copy). */
  for (cl_uint i = 0; i < num_mem_objects; i++) {
    const char *loc = args_mem_loc[i], *base = args;
    if (!loc || loc < base || (size_t)(loc - base) > cb_args || cb_args - (size_t)(loc - base) < sizeof(void *))
      return KILN_FAIL(
          CL_INVALID_VALUE, "rejected since (%s)",
          "!loc || loc < base || (size_t)(loc - base) > cb_args || cb_args - (size_t)(loc - base) < sizeof(void *)");
  }
  if (!device_runs_native_kernels(command_queue))
    return KILN_FAIL(CL_INVALID_OPERATION, "rejected since (%s)", "!device_runs_native_kernels(command_queue)");
  for (cl_uint i = 0; i < num_mem_objects; i++) {
    cl_int mem_err = mem_list[i] ? kiln_mem_check_queue_buffer(command_queue, mem_list[i]) : CL_SUCCESS;
    if (mem_err != CL_SUCCESS) return mem_err;
  }
  if (err != CL_SUCCESS) return err;

  struct kiln_command *command = kiln_command_create(command_queue, CL_COMMAND_NATIVE_KERNEL, run_native, &err);
  if (!command) return err;
  struct native_payload *p = kiln_command_payload(command);
  size_t mem_bytes = num_mem_objects * (sizeof(size_t) + sizeof(cl_mem));
  size_t args_bytes = (cb_args + 15u) & ~(size_t)15u;
  unsigned char *block = (unsigned char *)p + INLINE_OFFSET;
  if (args_bytes + mem_bytes > INLINE_BYTES) block = kiln_command_side_alloc(command, args_bytes + mem_bytes, 16);
  if (!block || !kiln_command_reserve_holds(command, num_mem_objects)) {
    kiln_command_discard(command);
    return CL_OUT_OF_HOST_MEMORY;
  }
  p->user_func = user_func;
  p->args = args ? block : NULL;
  if (args) memcpy(block, args, cb_args);
  p->num_mem = num_mem_objects;
  p->mem_offsets = (size_t *)(block + args_bytes);
  p->mems = (cl_mem *)(block + args_bytes + num_mem_objects * sizeof(size_t));
  for (cl_uint i = 0; i < num_mem_objects; i++) {
    p->mem_offsets[i] = (size_t)((const char *)args_mem_loc[i] - (const char *)args);
    p->mems[i] = mem_list[i];
    if (mem_list[i]) kiln_command_hold(command, &mem_list[i]->obj);
  }
  return kiln_command_submit(command, num_events_in_wait_list, event_wait_list, event, CL_FALSE);
}
