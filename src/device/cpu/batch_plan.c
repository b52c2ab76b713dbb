#include "device/cpu/batch_plan.h"

/* Loop-free launches of fewer work-items run as one batch: waking a worker costs more. */
#define SMALL_RANGE_ITEMS 1024u
/* Loop-free kernels: a batch has at least this many work-items, unless that would leave a
 * thread without work. */
#define MIN_BATCH_ITEMS 1024u
/* Measured kernels with loops: a batch has at least this much work (a claim costs about
 * 0.1 us under contention), unless that would leave a thread without work. */
#define MIN_BATCH_NS 2000u
/* Batches per thread of a launch on per-worker queues: at the end, the threads finish
 * within about one batch, 1/16 of a thread's share, of each other (less where stealing
 * halves is quicker). */
#define QUEUE_BATCHES 16u

static uint64_t ceil_div(uint64_t a, uint64_t b) { return a / b + (a % b != 0); }

/* `size` plus the modifier, at least 1 and at most the work-groups. */
static uint64_t modified(const struct kiln_batch_plan *plan, uint64_t size) {
  int64_t modifier = plan->modifier;
  if (modifier < 0) {
    uint64_t decrease = (uint64_t)-modifier;
    size = decrease >= size ? 1 : size - decrease;
  } else {
    uint64_t increase = (uint64_t)modifier;
    size = increase > UINT64_MAX - size ? UINT64_MAX : size + increase;
  }
  return size > plan->groups ? plan->groups : size;
}

/* The size of round `round`'s batches before the modifier: halving, down to the smallest. */
static uint64_t nominal_size(const struct kiln_batch_plan *plan, unsigned round) {
  uint64_t size = round < 64 ? plan->first >> round : 0;
  return size > plan->smallest ? size : plan->smallest;
}

/* Walks the rounds up to the one holding batch `batch` (UINT64_MAX: the range's last
 * round). Returns that round's batch size; *base is its first group, *index the batch's
 * index within it, *batches the batches before it. */
static uint64_t find_round(const struct kiln_batch_plan *plan, uint64_t batch, uint64_t *base, uint64_t *index,
                           uint64_t *batches) {
  uint64_t width = plan->round_batches;
  *base = 0;
  *batches = 0;
  for (unsigned round = 0;; round++) {
    uint64_t nominal = nominal_size(plan, round), size = modified(plan, nominal);
    uint64_t left = plan->groups - *base, round_groups;
    /* The rounds end at the smallest size, or where the range ends (width x size >= left;
     * a multiplication, not a division: this runs on every claim). */
    bool last = nominal == plan->smallest || __builtin_mul_overflow(width, size, &round_groups) || round_groups >= left;
    if (last || batch - *batches < width) {
      *index = batch == UINT64_MAX ? ceil_div(left, size) - 1 : batch - *batches;
      return size;
    }
    *base += round_groups;
    *batches += width;
  }
}

uint64_t kiln_batch_plan_make(struct kiln_batch_plan *plan, const struct kiln_plan_request *request) {
  uint64_t groups = request->groups ? request->groups : 1;
  unsigned threads = request->threads ? request->threads : 1;
  plan->groups = groups;
  plan->round_batches = threads;
  plan->queue_bound = request->queue_bound;
  int64_t modifier = request->modifier;
  plan->modifier = modifier < INT32_MIN ? INT32_MIN : modifier > INT32_MAX ? INT32_MAX : (int32_t)modifier;
  if (request->batch_size) {
    plan->first = plan->smallest = request->batch_size; /* the modifier, then the cap */
  } else if (threads == 1 || (!request->long_items && request->items < SMALL_RANGE_ITEMS)) {
    plan->first = plan->smallest = groups;
  } else {
    uint64_t group_items = request->group_items ? request->group_items : 1;
    uint64_t smallest = ceil_div(MIN_BATCH_ITEMS, group_items);
    if (request->long_items) {
      unsigned __int128 group_ns_x1024 = (unsigned __int128)group_items * request->item_ns_x1024;
      smallest = group_ns_x1024 == 0 ? 1 : (uint64_t)(((unsigned __int128)MIN_BATCH_NS * 1024 + group_ns_x1024 - 1) / group_ns_x1024);
    }
    uint64_t per_thread = groups / threads;
    if (smallest > per_thread) smallest = per_thread ? per_thread : 1;
    uint64_t first = request->queues ? ceil_div(groups, (uint64_t)threads * QUEUE_BATCHES)
                                     : ceil_div(groups, 2 * (uint64_t)threads);
    plan->smallest = smallest;
    plan->first = first > smallest ? first : smallest;
    if (request->queues) plan->smallest = plan->first; /* one size */
  }
  if (plan->first == plan->smallest) { /* one size: no rounds to walk (the one-batch launches of small kernels) */
    uint64_t size = modified(plan, plan->first);
    return size == groups ? 1 : ceil_div(groups, size);
  }
  uint64_t base, index, batches;
  find_round(plan, UINT64_MAX, &base, &index, &batches);
  return batches + index + 1;
}

void kiln_batch_plan_range(const struct kiln_batch_plan *plan, uint64_t batch, uint64_t *first, uint64_t *count) {
  uint64_t size;
  if (plan->first == plan->smallest) {
    size = modified(plan, plan->first);
    *first = batch * size;
  } else {
    uint64_t base, index, batches;
    size = find_round(plan, batch, &base, &index, &batches);
    *first = base + index * size;
  }
  uint64_t left = plan->groups - *first;
  *count = left < size ? left : size;
}

void kiln_batch_plan_sizes(const struct kiln_batch_plan *plan, uint64_t *largest, uint64_t *smallest) {
  uint64_t base, index, batches;
  *largest = modified(plan, nominal_size(plan, 0));
  *smallest = find_round(plan, UINT64_MAX, &base, &index, &batches);
}
