/* batch_queue.h: per-worker queues of one job's batches (worker_pool.h). Each queue is a
 * contiguous range of batch indices; its worker takes batches from the front. A thread
 * whose queue is empty refills it from the pool of batches not yet queued, if any, then
 * steals the back half of the fullest other queue. Every batch is taken exactly once.
 * Without a bound, the pool is empty and queue w starts with the w-th range of the batches:
 * launch after launch of the same plan a worker runs the same work-groups, whose data its
 * caches still hold, and stealing evens out the end of a launch. With a bound N
 * (cl_arm_scheduling_controls' CL_KERNEL_EXEC_INFO_COMPUTE_UNIT_MAX_QUEUED_BATCHES_ARM) no
 * queue ever holds more than N batches: queue w starts with batches w*N .. w*N+N-1, the rest
 * wait in the pool in order, and refills and steals take at most N. */
#ifndef KILN_DEVICE_CPU_BATCH_QUEUE_H
#define KILN_DEVICE_CPU_BATCH_QUEUE_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

/* The batches front .. back-1, packed as front << 32 | back so that the owner and thieves
 * claim with one compare-and-swap; on its own cache line, so that owners never share one. */
struct kiln_batch_queue {
  _Alignas(64) _Atomic uint64_t range;
};

struct kiln_batch_queues {
  unsigned count;                 /* queues, one per thread id */
  uint32_t bound;                 /* most batches a queue ever holds; 0: none */
  struct kiln_batch_queue pool;   /* the batches no queue has taken yet (bounded only) */
  struct kiln_batch_queue queue[];
};

/* `count` queues for the thread ids 0 .. count-1, the first `filled` (1 .. count) sharing
 * batches 0 .. batches-1 as above, the others empty (threads that only refill and steal);
 * `bound` 0: no bound. Free with free(). NULL when batches do not fit 32 bits or memory is
 * short. */
struct kiln_batch_queues *kiln_batch_queues_create(unsigned count, unsigned filled, uint64_t batches, uint32_t bound);

/* The next batch for the thread `own` (< count: its queue; any other id takes one batch at
 * a time, from the pool, then from the back of the fullest queue): its queue's front, a
 * refill from the pool, or a stolen half. False when every batch is taken. */
bool kiln_batch_queues_claim(struct kiln_batch_queues *queues, unsigned own, uint64_t *batch);

/* The batches queue `w` (count: the pool) holds now: front .. back-1 (front >= back: none). */
void kiln_batch_queues_peek(const struct kiln_batch_queues *queues, unsigned w, uint64_t *front, uint64_t *back);

/* The most batches one queue held at a time, by construction (the scheduling trace). */
uint64_t kiln_batch_queues_depth(uint64_t batches, unsigned filled, uint32_t bound);

#endif
