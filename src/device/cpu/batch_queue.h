/* batch_queue.h: per-worker queues of one job's batches (worker_pool.h). Each queue is a
 * contiguous range of batch indices; its worker takes batches from the front, and a thread
 * whose own queue is empty steals the back half of the fullest other queue into its own
 * (a thread without a queue, one batch). Every batch is taken exactly once. Launch after
 * launch of the same plan, a worker so runs the same work-groups, whose data its caches
 * still hold, and stealing evens out the end of a launch. */
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

/* `count` queues, the first `filled` (1 .. count) over batches 0 .. batches-1, queue w
 * starting at w * batches / filled, the others empty (threads that only steal); free with
 * free(). NULL when batches do not fit 32 bits or memory is short. */
struct kiln_batch_queue *kiln_batch_queues_create(unsigned count, unsigned filled, uint64_t batches);

/* Takes the front batch of `queue` into *batch; false when it is empty. */
bool kiln_batch_queue_take_front(struct kiln_batch_queue *queue, uint64_t *batch);

/* For the thread owning queues[own] (own >= count: a thread without a queue), whose queue
 * is empty: takes the back half (at least one batch; one without a queue) of the fullest
 * other queue, returns its first batch in *batch and leaves the rest in queues[own].
 * False when every queue is empty. */
bool kiln_batch_queue_steal(struct kiln_batch_queue *queues, unsigned count, unsigned own, uint64_t *batch);

/* The batches queue holds now: front .. back-1 (front >= back: none). */
void kiln_batch_queue_peek(const struct kiln_batch_queue *queue, uint64_t *front, uint64_t *back);

#endif
