/* batch_queue.c: see batch_queue.h. No ABA: a batch taken never returns to a queue, so a
 * queue never holds a value a slow thread read before again. Only a queue's owner fills it
 * while it is empty, so its refills and the rest of a stolen half are plain stores. Claims
 * are relaxed: the job's batches_done counter orders the batches' effects (worker_pool.c). */
#include "device/cpu/batch_queue.h"

#include <stdlib.h>

static uint64_t pack(uint64_t front, uint64_t back) { return front << 32 | back; }
static uint64_t front_of(uint64_t range) { return range >> 32; }
static uint64_t back_of(uint64_t range) { return range & UINT32_MAX; }
static uint64_t min_u64(uint64_t a, uint64_t b) { return a < b ? a : b; }

uint64_t kiln_batch_queues_depth(uint64_t batches, unsigned filled, uint32_t bound) {
  uint64_t share = batches / filled + (batches % filled != 0);
  return bound ? min_u64(bound, share) : share;
}

struct kiln_batch_queues *kiln_batch_queues_create(unsigned count, unsigned filled, uint64_t batches, uint32_t bound) {
  if (filled == 0 || filled > count || batches > UINT32_MAX) return NULL;
  size_t bytes = sizeof(struct kiln_batch_queues) + count * sizeof(struct kiln_batch_queue);
  bytes = (bytes + _Alignof(struct kiln_batch_queue) - 1) / _Alignof(struct kiln_batch_queue) *
          _Alignof(struct kiln_batch_queue);
  struct kiln_batch_queues *queues = aligned_alloc(_Alignof(struct kiln_batch_queue), bytes);
  if (!queues) return NULL;
  queues->count = count;
  /* A bound at or above a share is no bound: every share fits its queue. */
  queues->bound = bound && bound < kiln_batch_queues_depth(batches, filled, 0) ? bound : 0;
  uint64_t queued = queues->bound ? min_u64((uint64_t)queues->bound * filled, batches) : batches;
  for (uint64_t w = 0; w < count; w++) {
    uint64_t range = 0;
    if (w < filled && queues->bound)
      range = pack(min_u64(w * queues->bound, queued), min_u64((w + 1) * queues->bound, queued));
    else if (w < filled)
      range = pack(w * batches / filled, (w + 1) * batches / filled);
    atomic_init(&queues->queue[w].range, range);
  }
  atomic_init(&queues->pool.range, pack(queued, batches));
  return queues;
}

void kiln_batch_queues_peek(const struct kiln_batch_queues *queues, unsigned w, uint64_t *front, uint64_t *back) {
  const struct kiln_batch_queue *queue = w < queues->count ? &queues->queue[w] : &queues->pool;
  uint64_t range = atomic_load_explicit(&((struct kiln_batch_queue *)queue)->range, memory_order_relaxed);
  *front = front_of(range);
  *back = back_of(range);
}

static bool take_front(struct kiln_batch_queue *queue, uint64_t *batch) {
  uint64_t range = atomic_load_explicit(&queue->range, memory_order_relaxed);
  for (;;) {
    if (front_of(range) >= back_of(range)) return false;
    if (atomic_compare_exchange_weak_explicit(&queue->range, &range, pack(front_of(range) + 1, back_of(range)),
                                              memory_order_relaxed, memory_order_relaxed)) {
      *batch = front_of(range);
      return true;
    }
  }
}

/* Takes `taken` batches from the front (from_front) or the back of `queue`, whose range was
 * `range`; the first goes to *batch, the rest to `own` (empty). False when `queue` changed. */
static bool take_some(struct kiln_batch_queue *queue, uint64_t range, uint64_t taken, bool from_front,
                      struct kiln_batch_queue *own, uint64_t *batch) {
  uint64_t front = front_of(range), back = back_of(range);
  uint64_t next = from_front ? pack(front + taken, back) : pack(front, back - taken);
  if (!atomic_compare_exchange_strong_explicit(&queue->range, &range, next, memory_order_relaxed, memory_order_relaxed))
    return false;
  uint64_t first = from_front ? front : back - taken;
  *batch = first;
  if (taken > 1) atomic_store_explicit(&own->range, pack(first + 1, first + taken), memory_order_relaxed);
  return true;
}

bool kiln_batch_queues_claim(struct kiln_batch_queues *queues, unsigned own, uint64_t *batch) {
  struct kiln_batch_queue *mine = own < queues->count ? &queues->queue[own] : NULL;
  if (mine && take_front(mine, batch)) return true;
  uint64_t cap = !mine ? 1 : queues->bound ? queues->bound : UINT32_MAX;
  for (;;) { /* the pool, in order */
    uint64_t range = atomic_load_explicit(&queues->pool.range, memory_order_relaxed);
    uint64_t left = back_of(range) > front_of(range) ? back_of(range) - front_of(range) : 0;
    if (left == 0) break;
    if (take_some(&queues->pool, range, min_u64(cap, left), true, mine, batch)) return true;
  }
  for (;;) { /* the back half of the fullest queue */
    struct kiln_batch_queue *victim = NULL;
    uint64_t seen = 0, most = 0;
    for (unsigned w = 0; w < queues->count; w++) {
      uint64_t range = atomic_load_explicit(&queues->queue[w].range, memory_order_relaxed);
      uint64_t left = back_of(range) > front_of(range) ? back_of(range) - front_of(range) : 0;
      if (&queues->queue[w] != mine && left > most) {
        most = left;
        victim = &queues->queue[w];
        seen = range;
      }
    }
    if (!victim) return false;
    if (take_some(victim, seen, min_u64(cap, (most + 1) / 2), false, mine, batch)) return true;
    /* its owner or another thief came first: look again */
  }
}
