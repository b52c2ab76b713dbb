/* mem_migrate.c: clEnqueueMigrateMemObjects. The CPU device and the host share one
 * memory, so migration moves nothing; it is still a real command so that its event
 * and the commands waiting on it are ordered like any other. */
#include "runtime/mem_object.h"
#include "runtime/debug_err.h"

static cl_int run_migrate(struct kiln_command *command) {
  (void)command;
  return CL_SUCCESS;
}

CL_API_ENTRY cl_int CL_API_CALL clEnqueueMigrateMemObjects(cl_command_queue queue, cl_uint num_mem_objects,
                                                           const cl_mem *mem_objects, cl_mem_migration_flags flags,
                                                           cl_uint num_events, const cl_event *wait_list,
                                                           cl_event *event) {
  KILN_API_CALL;
  if (!kiln_queue_is_valid(queue)) return KILN_FAIL_HANDLE(CL_INVALID_COMMAND_QUEUE, queue, cl_command_queue);
  if (num_mem_objects == 0 || !mem_objects)
    return KILN_FAIL(CL_INVALID_VALUE, "rejected since (%s)", "num_mem_objects == 0 || !mem_objects");
  cl_context context = kiln_queue_context(queue);
  for (cl_uint i = 0; i < num_mem_objects; i++) {
    if (!kiln_mem_is_valid(mem_objects[i]))
      return KILN_FAIL(CL_INVALID_MEM_OBJECT, "rejected since (%s)", "!kiln_mem_is_valid(mem_objects[i])");
    if (mem_objects[i]->context != context)
      return KILN_FAIL(CL_INVALID_CONTEXT, "rejected since (%s)", "mem_objects[i]->context != context");
  }
  if (flags & ~(cl_mem_migration_flags)(CL_MIGRATE_MEM_OBJECT_HOST | CL_MIGRATE_MEM_OBJECT_CONTENT_UNDEFINED))
    return KILN_FAIL(
        CL_INVALID_VALUE, "rejected since (%s)",
        "flags & ~(cl_mem_migration_flags)(CL_MIGRATE_MEM_OBJECT_HOST | CL_MIGRATE_MEM_OBJECT_CONTENT_UNDEFINED)");
  cl_int err = kiln_command_check_enqueue(queue, CL_COMMAND_MIGRATE_MEM_OBJECTS, num_events, wait_list, event);
  if (err != CL_SUCCESS) return err;
  /* No object is touched when the command runs, so none needs holding. */
  struct kiln_command_sink sink = kiln_command_sink_of_queue(queue, num_events, wait_list, event);
  return kiln_mem_submit(&sink, CL_COMMAND_MIGRATE_MEM_OBJECTS, run_migrate, NULL, 0, NULL, NULL, CL_FALSE);
}
