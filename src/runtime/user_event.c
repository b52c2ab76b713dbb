/* User events: created CL_SUBMITTED, completed once by clSetUserEventStatus. */
#include "runtime/context.h"
#include "runtime/debug_err.h"
#include "runtime/event.h"

CL_API_ENTRY cl_event CL_API_CALL clCreateUserEvent(cl_context context, cl_int *errcode_ret) {
  KILN_API_CALL;
  cl_int err = CL_INVALID_CONTEXT;
  cl_event event = NULL;
  if (kiln_context_is_valid(context)) event = kiln_event_create(context, NULL, CL_COMMAND_USER, &err);
  if (event) {
    kiln_object_publish(&event->obj);
    kiln_object_release(&event->obj); /* only the API's hold remains */
  }
  if (errcode_ret) *errcode_ret = err;
  return event;
}

CL_API_ENTRY cl_int CL_API_CALL clSetUserEventStatus(cl_event event, cl_int execution_status) {
  KILN_API_CALL;
  if (!kiln_event_is_valid(event) || event->type != CL_COMMAND_USER)
    return KILN_FAIL(CL_INVALID_EVENT, "rejected since (%s)",
                     "!kiln_event_is_valid(event) || event->type != CL_COMMAND_USER");
  if (execution_status != CL_COMPLETE && execution_status >= 0)
    return KILN_FAIL(CL_INVALID_VALUE, "rejected since (%s)",
                     "execution_status != CL_COMPLETE && execution_status >= 0");
  pthread_mutex_lock(&event->lock);
  bool already = event->user_status_set;
  event->user_status_set = true;
  pthread_mutex_unlock(&event->lock);
  if (already) return KILN_FAIL(CL_INVALID_OPERATION, "rejected since (%s)", "already");
  kiln_object_retain(&event->obj); /* against a concurrent release while completing */
  kiln_event_complete(event, execution_status, true);
  return CL_SUCCESS;
}
