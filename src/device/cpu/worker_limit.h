/* worker_limit.h: a compute-unit limit that worker-pool jobs may share (a queue's
 * CL_QUEUE_COMPUTE_UNIT_LIMIT_ARM): a thread takes one of `max` places before it runs
 * batches of such a job and gives it back when it leaves the job (worker_pool.h). Apart
 * from the pool so that the queues that carry one need not see the pool's job type. */
#ifndef KILN_DEVICE_CPU_WORKER_LIMIT_H
#define KILN_DEVICE_CPU_WORKER_LIMIT_H

#include <stdatomic.h>

struct kiln_worker_limit {
  atomic_uint active;
  unsigned max; /* >= 1 */
};

#endif
