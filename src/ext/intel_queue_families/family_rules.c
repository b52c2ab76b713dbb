/* family_rules.c: see intel_queue_families.h. */
#include "ext/intel_queue_families/intel_queue_families.h"
#include "runtime/debug_err.h"

/* The spec's capability table: which capability each enqueue call needs. Calls not listed
 * (kernels, native kernels, migrations, command buffers, recordings, SVM,
 * clEnqueueWaitForEvents) need the default capabilities. An unmap is checked as a buffer
 * unmap (the check sees the command type only): every family with MAP_BUFFER has
 * MAP_IMAGE too (queue_families.c). */
static const struct {
  cl_command_type type;
  cl_command_queue_capabilities_intel needs;
} command_capabilities[] = {
    {CL_COMMAND_READ_BUFFER, CL_QUEUE_CAPABILITY_TRANSFER_BUFFER_INTEL},
    {CL_COMMAND_WRITE_BUFFER, CL_QUEUE_CAPABILITY_TRANSFER_BUFFER_INTEL},
    {CL_COMMAND_COPY_BUFFER, CL_QUEUE_CAPABILITY_TRANSFER_BUFFER_INTEL},
    {CL_COMMAND_READ_BUFFER_RECT, CL_QUEUE_CAPABILITY_TRANSFER_BUFFER_RECT_INTEL},
    {CL_COMMAND_WRITE_BUFFER_RECT, CL_QUEUE_CAPABILITY_TRANSFER_BUFFER_RECT_INTEL},
    {CL_COMMAND_COPY_BUFFER_RECT, CL_QUEUE_CAPABILITY_TRANSFER_BUFFER_RECT_INTEL},
    {CL_COMMAND_MAP_BUFFER, CL_QUEUE_CAPABILITY_MAP_BUFFER_INTEL},
    {CL_COMMAND_UNMAP_MEM_OBJECT, CL_QUEUE_CAPABILITY_MAP_BUFFER_INTEL},
    {CL_COMMAND_FILL_BUFFER, CL_QUEUE_CAPABILITY_FILL_BUFFER_INTEL},
    {CL_COMMAND_READ_IMAGE, CL_QUEUE_CAPABILITY_TRANSFER_IMAGE_INTEL},
    {CL_COMMAND_WRITE_IMAGE, CL_QUEUE_CAPABILITY_TRANSFER_IMAGE_INTEL},
    {CL_COMMAND_COPY_IMAGE, CL_QUEUE_CAPABILITY_TRANSFER_IMAGE_INTEL},
    {CL_COMMAND_MAP_IMAGE, CL_QUEUE_CAPABILITY_MAP_IMAGE_INTEL},
    {CL_COMMAND_FILL_IMAGE, CL_QUEUE_CAPABILITY_FILL_IMAGE_INTEL},
    {CL_COMMAND_COPY_BUFFER_TO_IMAGE, CL_QUEUE_CAPABILITY_TRANSFER_BUFFER_IMAGE_INTEL},
    {CL_COMMAND_COPY_IMAGE_TO_BUFFER, CL_QUEUE_CAPABILITY_TRANSFER_IMAGE_BUFFER_INTEL},
    {CL_COMMAND_MARKER, CL_QUEUE_CAPABILITY_MARKER_INTEL},
    {CL_COMMAND_BARRIER, CL_QUEUE_CAPABILITY_BARRIER_INTEL},
};

cl_int kiln_family_check_command(cl_command_queue_capabilities_intel caps, cl_command_type type) {
  if (caps == CL_QUEUE_DEFAULT_CAPABILITIES_INTEL) return CL_SUCCESS;
  for (size_t i = 0; i < sizeof command_capabilities / sizeof command_capabilities[0]; i++)
    if (command_capabilities[i].type == type) return (caps & command_capabilities[i].needs) ? CL_SUCCESS : CL_INVALID_OPERATION;
  return CL_INVALID_OPERATION;
}

cl_int kiln_family_check_wait_list(cl_command_queue_capabilities_intel caps) {
  if (caps == CL_QUEUE_DEFAULT_CAPABILITIES_INTEL || (caps & CL_QUEUE_CAPABILITY_SINGLE_QUEUE_EVENT_WAIT_LIST_INTEL))
    return CL_SUCCESS;
  return CL_INVALID_EVENT_WAIT_LIST;
}

/* An event of another queue needs its own queue able to create cross-queue events and
 * this queue able to wait for them. A user event belongs to no queue: it is another
 * queue's event for the waiting queue, and its creation is not restricted. */
cl_int kiln_family_check_wait_event(cl_command_queue_capabilities_intel caps, bool same_queue, bool has_queue,
                                    cl_command_queue_capabilities_intel event_queue_caps) {
  if (same_queue) return CL_SUCCESS;
  if (has_queue && event_queue_caps != CL_QUEUE_DEFAULT_CAPABILITIES_INTEL &&
      !(event_queue_caps & CL_QUEUE_CAPABILITY_CREATE_CROSS_QUEUE_EVENTS_INTEL))
    return CL_INVALID_EVENT_WAIT_LIST;
  if (caps != CL_QUEUE_DEFAULT_CAPABILITIES_INTEL && !(caps & CL_QUEUE_CAPABILITY_CROSS_QUEUE_EVENT_WAIT_LIST_INTEL))
    return KILN_FAIL(CL_INVALID_EVENT_WAIT_LIST, "rejected since (%s)",
                     "caps != CL_QUEUE_DEFAULT_CAPABILITIES_INTEL && !(caps & "
                     "CL_QUEUE_CAPABILITY_CROSS_QUEUE_EVENT_WAIT_LIST_INTEL)");
  return CL_SUCCESS;
}

cl_int kiln_family_check_event_request(cl_command_queue_capabilities_intel caps) {
  const cl_command_queue_capabilities_intel creates =
      CL_QUEUE_CAPABILITY_CREATE_SINGLE_QUEUE_EVENTS_INTEL | CL_QUEUE_CAPABILITY_CREATE_CROSS_QUEUE_EVENTS_INTEL;
  if (caps == CL_QUEUE_DEFAULT_CAPABILITIES_INTEL || (caps & creates)) return CL_SUCCESS;
  return CL_INVALID_EVENT;
}
