/* scheduler.h: turns commands whose dependencies resolved into work on the CPU device. */
#ifndef KILN_RUNTIME_SCHEDULER_H
#define KILN_RUNTIME_SCHEDULER_H

#include "runtime/event.h"

/* Called once when the last dependency of `event` resolved. A failed wait-list dependency
 * completes it with CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST without running it; a
 * command without run function completes right here; others go to their queue's
 * execution resource (worker-pool lane, copy engine, or the calling thread), or run in
 * the calling thread when `inline_run` (a blocking caller that waits anyway). */
void kiln_scheduler_ready(cl_event event, bool inline_run);

/* Drops a dependency of `event`; the last one makes it ready. */
void kiln_scheduler_resolve(cl_event event, bool inline_run);

/* kiln_scheduler_resolve for the enqueueing thread dropping its submission guard: work
 * made ready here may wait for the application's next flush or wait (worker_pool.h). */
void kiln_scheduler_submit(cl_event event, bool inline_run);

#endif
