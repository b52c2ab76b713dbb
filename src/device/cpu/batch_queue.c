/* batch_queue.c: see batch_queue.h. No ABA: a batch taken never returns to a queue, so a
 * queue never holds a value a slow thread read before again. Claims are relaxed: the job's
 * batches_done counter orders the batches' effects (worker_pool.c). */
#include "device/cpu/batch_queue.h"

#include <stdlib.h>

static uint64_t pack(uint64_t front, uint64_t back) { return front << 32 | back; }

struct kiln_batch_queue *kiln_batch_queues_create(unsigned count, unsigned filled, uint64_t batches) {
  if (filled == 0 || filled > count || batches > UINT32_MAX) return NULL;
  struct kiln_batch_queue *queues = aligned_alloc(_Alignof(struct kiln_batch_queue), count * sizeof *queues);
  if (!queues) return NULL;
  for (uint64_t w = 0; w < count; w++)
    atomic_init(&queues[w].range, w < filled ? pack(w * batches / filled, (w + 1) * batches / filled) : 0);
  return queues;
}

void kiln_batch_queue_peek(const struct kiln_batch_queue *queue, uint64_t *front, uint64_t *back) {
  uint64_t range = atomic_load_explicit(&((struct kiln_batch_queue *)queue)->range, memory_order_relaxed);
  *front = range >> 32;
  *back = range & UINT32_MAX;
}

bool kiln_batch_queue_take_front(struct kiln_batch_queue *queue, uint64_t *batch) {
  uint64_t range = atomic_load_explicit(&queue->range, memory_order_relaxed);
  for (;;) {
    uint64_t front = range >> 32, back = range & UINT32_MAX;
    if (front >= back) return false;
    if (atomic_compare_exchange_weak_explicit(&queue->range, &range, pack(front + 1, back), memory_order_relaxed,
                                              memory_order_relaxed)) {
      *batch = front;
      return true;
    }
  }
}

bool kiln_batch_queue_steal(struct kiln_batch_queue *queues, unsigned count, unsigned own, uint64_t *batch) {
  for (;;) {
    struct kiln_batch_queue *victim = NULL;
    uint64_t seen = 0, most = 0;
    for (unsigned w = 0; w < count; w++) {
      uint64_t range = atomic_load_explicit(&queues[w].range, memory_order_relaxed);
      uint64_t front = range >> 32, back = range & UINT32_MAX;
      if (w != own && front < back && back - front > most) {
        most = back - front;
        victim = &queues[w];
        seen = range;
      }
    }
    if (!victim) return false;
    uint64_t front = seen >> 32, back = seen & UINT32_MAX, taken = own < count ? (back - front + 1) / 2 : 1;
    if (!atomic_compare_exchange_strong_explicit(&victim->range, &seen, pack(front, back - taken), memory_order_relaxed,
                                                 memory_order_relaxed))
      continue; /* its owner or another thief came first: look again */
    *batch = back - taken;
    /* Only its owner fills an empty queue, so a plain store does. */
    if (taken > 1) atomic_store_explicit(&queues[own].range, pack(back - taken + 1, back), memory_order_relaxed);
    return true;
  }
}
