/* batch_plan.h: how an NDRange's work-groups are cut into the batches that threads claim
 * one at a time from the worker pool (consecutive groups in linear order, batch 0 first).
 *
 * Kiln's own plans for launches on the pool's shared counter (under a compute-unit limit
 * below the workers; launches on per-worker queues: below) are factoring schedules
 * (Hummel, Schonberg & Flynn, 1992): rounds of
 * `round_batches` batches (one per thread that may run the launch), each round's batches
 * half the size of the previous round's, down to a smallest size, which the rest of the
 * range then uses. The first round hands out half of the work-groups. So every thread gets
 * work as soon as there are as many groups as threads; the last batches are small, and the
 * threads finish within one small batch of each other, even when groups differ in cost or
 * a thread is slowed; and a launch takes about round_batches x (log2(first / smallest) + 2)
 * claims, not one per group. A batch's groups depend only on its index, so a plan can be
 * recorded and replayed, and printf output keeps batch order.
 *
 * The smallest size is the planner's view of a work-group's cost. For kernels with loops
 * (a work-item may run for long: a few heavy groups must spread over every thread): one
 * group, or, once the kernel's launches were measured (kernel_profile.h), enough groups
 * for 2 us of work. For loop-free kernels: enough groups for 1024 work-items (a claim then
 * costs little beside its work). Never so many that a thread would go without work.
 * Loop-free launches of fewer than 1024 work-items are one batch (waking a worker costs
 * more than running them), and so is any launch one thread runs alone. A kernel with
 * loops is never one batch for being cheap so far: its next launch may loop longer.
 *
 * A launch that runs on the workers' own queues (worker_pool.h: each worker takes a
 * contiguous range of the batches, and steals halves of others' when its range is done)
 * needs no shrinking rounds for its balance, since stealing evens out the end: its batches
 * have one size, QUEUE_BATCHES per thread, or the smallest size above if that is larger.
 * Its ranges then cover the same groups launch after launch, and their data stays in the
 * caches of the core that used it last.
 *
 * The application's batch size (cl_arm_scheduling_controls) is honoured exactly: every
 * batch has that size. Its modifier is added to the size of every batch, the application's
 * or Kiln's; a size ends up at least 1 and at most the work-groups. */
#ifndef KILN_DEVICE_CPU_BATCH_PLAN_H
#define KILN_DEVICE_CPU_BATCH_PLAN_H

#include <stdbool.h>
#include <stdint.h>

/* What the planner knows of a launch. */
struct kiln_plan_request {
  uint64_t groups;             /* work-groups (the last ones may be partial) */
  uint64_t items;              /* work-items of the range */
  uint64_t group_items;        /* work-items of a full work-group */
  unsigned threads;            /* threads that may run it at once (workers, or a compute-unit limit) */
  bool long_items;             /* the kernel has loops */
  bool queues;                 /* it runs on per-worker queues (every worker may run it) */
  uint64_t item_ns_x1024;      /* measured nanoseconds per 1024 work-items; 0: unknown */
  uint64_t batch_size;         /* CL_KERNEL_EXEC_INFO_WORKGROUP_BATCH_SIZE_ARM; 0: Kiln picks */
  int64_t modifier;            /* CL_KERNEL_EXEC_INFO_WORKGROUP_BATCH_SIZE_MODIFIER_ARM */
  uint32_t queue_bound;        /* CL_KERNEL_EXEC_INFO_COMPUTE_UNIT_MAX_QUEUED_BATCHES_ARM; 0: Kiln picks */
};

/* A plan: batch b's groups follow from these alone (kiln_batch_plan_range). */
struct kiln_batch_plan {
  uint64_t groups;
  uint64_t first;              /* batch size of the first round, before the modifier */
  uint64_t smallest;           /* the size the rounds end at, before the modifier; == first: one size */
  int32_t modifier;            /* the extension's value is a cl_int (wider requests saturate) */
  uint32_t round_batches;      /* >= 1 */
  uint32_t queue_bound;        /* the request's, passed on to the job (worker_pool.h) */
};

/* Plans `request` (groups >= 1) into `plan` and returns the number of batches (>= 1). */
uint64_t kiln_batch_plan_make(struct kiln_batch_plan *plan, const struct kiln_plan_request *request);

/* The groups of batch `batch` (< the batch count): first .. first + count - 1. */
void kiln_batch_plan_range(const struct kiln_batch_plan *plan, uint64_t batch, uint64_t *first, uint64_t *count);

/* For the scheduling trace: the size of the first batch and the size of the rounds' last
 * batches (the range's very last batch may be cut short), after the modifier. */
void kiln_batch_plan_sizes(const struct kiln_batch_plan *plan, uint64_t *largest, uint64_t *smallest);

#endif
