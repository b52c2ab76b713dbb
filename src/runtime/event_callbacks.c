/* Event callbacks run on one dedicated thread, in the order they became due, never under
 * a runtime lock. The thread is started on first use and joined at unload. */
#include "runtime/event.h"
#include "runtime/debug_err.h"

#include "device/cpu/worker_pool.h"

#include <stdlib.h>

static pthread_mutex_t callbacks_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t callbacks_cond = PTHREAD_COND_INITIALIZER;
static struct kiln_event_callback *due_head, **due_tail = &due_head;
static bool thread_started, stopping;
static pthread_t callback_thread;

static void *callback_main(void *arg) {
  (void)arg;
  pthread_mutex_lock(&callbacks_lock);
  for (;;) {
    while (!due_head && !stopping) pthread_cond_wait(&callbacks_cond, &callbacks_lock);
    struct kiln_event_callback *callback = due_head;
    if (!callback) break; /* stopping and drained */
    due_head = callback->next;
    if (!due_head) due_tail = &due_head;
    pthread_mutex_unlock(&callbacks_lock);
    callback->notify(callback->event, callback->fire_status, callback->user_data);
    kiln_object_release(&callback->event->obj);
    free(callback);
    pthread_mutex_lock(&callbacks_lock);
  }
  pthread_mutex_unlock(&callbacks_lock);
  return NULL;
}

void kiln_event_callbacks_post(cl_event event, struct kiln_event_callback *callback, cl_int status) {
  kiln_object_retain(&event->obj);
  callback->event = event;
  callback->fire_status = status;
  callback->next = NULL;
  pthread_mutex_lock(&callbacks_lock);
  if (!thread_started) {
    if (pthread_create(&callback_thread, NULL, callback_main, NULL) != 0) abort();
    thread_started = true;
  }
  *due_tail = callback;
  due_tail = &callback->next;
  pthread_cond_signal(&callbacks_cond);
  pthread_mutex_unlock(&callbacks_lock);
}

__attribute__((destructor)) static void callbacks_shutdown(void) {
  pthread_mutex_lock(&callbacks_lock);
  bool started = thread_started;
  stopping = true;
  pthread_cond_signal(&callbacks_cond);
  pthread_mutex_unlock(&callbacks_lock);
  if (started) pthread_join(callback_thread, NULL);
}

CL_API_ENTRY cl_int CL_API_CALL clSetEventCallback(cl_event event, cl_int command_exec_callback_type,
                                                   void (CL_CALLBACK *pfn_notify)(cl_event, cl_int, void *),
                                                   void *user_data) {
  KILN_API_CALL;
  if (!kiln_event_is_valid(event)) return KILN_FAIL_HANDLE(CL_INVALID_EVENT, event, cl_event);
  if (!pfn_notify || (command_exec_callback_type != CL_SUBMITTED && command_exec_callback_type != CL_RUNNING &&
                      command_exec_callback_type != CL_COMPLETE))
    return CL_INVALID_VALUE;
  struct kiln_event_callback *callback = calloc(1, sizeof *callback);
  if (!callback) return KILN_FAIL(CL_OUT_OF_HOST_MEMORY, "rejected since (%s)", "!callback");
  callback->notify = pfn_notify;
  callback->user_data = user_data;
  callback->type = command_exec_callback_type;
  kiln_worker_pool_flush(); /* an application waiting for the callback expects progress */
  pthread_mutex_lock(&event->lock);
  cl_int status = atomic_load(&event->status);
  bool due = status <= command_exec_callback_type;
  if (!due) {
    *event->callbacks_tail = callback;
    event->callbacks_tail = &callback->next;
  }
  pthread_mutex_unlock(&event->lock);
  /* Already reached: still called, asynchronously like all others. */
  if (due) kiln_event_callbacks_post(event, callback, status < 0 ? status : command_exec_callback_type);
  return CL_SUCCESS;
}
