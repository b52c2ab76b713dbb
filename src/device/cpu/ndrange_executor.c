#include "device/cpu/ndrange_executor.h"

#include "device/cpu/bounds_check.h"

#include "device/cpu/device_enqueue.h"
#include "device/cpu/worker_pool.h"

#include <pthread.h>
#include <stdlib.h>
#include <time.h>

/* A waiting thread runs batches of launches estimated to take less than this per thread. */
#define HELPED_LAUNCH_NS 200000u
/* The first block of a worker; later ones double until the kernel's need fits. */
#define MIN_LOCAL_BLOCK (64u * 1024u)

/* Written only by its thread; read by any (kiln_ndrange_is_local_memory): atomics. */
struct local_block {
  _Atomic(char *) memory;
  _Atomic uint64_t size;
};

static struct local_block *blocks; /* one per worker id, each touched only by its thread */
static unsigned block_count;
static pthread_once_t blocks_once = PTHREAD_ONCE_INIT;

static void blocks_init(void) {
  block_count = kiln_worker_pool_id_count();
  blocks = calloc(block_count, sizeof *blocks);
}

/* This worker's block, grown to at least `bytes` (rarely: sizes only ever double). */
static void *local_memory(unsigned worker_id, uint64_t bytes) {
  pthread_once(&blocks_once, blocks_init);
  if (!blocks || worker_id >= block_count) return NULL;
  struct local_block *block = &blocks[worker_id];
  char *current = atomic_load_explicit(&block->memory, memory_order_relaxed);
  uint64_t current_size = atomic_load_explicit(&block->size, memory_order_relaxed);
  if (current_size >= bytes && current) return current;
  uint64_t size = current_size ? current_size : MIN_LOCAL_BLOCK;
  while (size < bytes) size *= 2;
  char *memory = aligned_alloc(KILN_LOCAL_MEM_ALIGN, size + 2 * KILN_LOCAL_MEM_PADDING);
  if (!memory) return NULL;
  /* Emptied first, so that a reader never sees the new size with the old block. */
  atomic_store_explicit(&block->size, 0, memory_order_relaxed);
  atomic_store_explicit(&block->memory, memory + KILN_LOCAL_MEM_PADDING, memory_order_relaxed);
  atomic_store_explicit(&block->size, size, memory_order_relaxed);
  if (current) free(current - KILN_LOCAL_MEM_PADDING);
  return memory + KILN_LOCAL_MEM_PADDING;
}

bool kiln_ndrange_is_local_memory(uintptr_t p) {
  for (unsigned i = 0; blocks && i < block_count; i++) {
    uintptr_t memory = (uintptr_t)atomic_load_explicit(&blocks[i].memory, memory_order_relaxed);
    if (memory && p >= memory && p - memory < atomic_load_explicit(&blocks[i].size, memory_order_relaxed)) return true;
  }
  return false;
}

static uint64_t now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static uint64_t group_items(const struct kiln_ndrange *range) {
  return range->local_size[0] * range->local_size[1] * range->local_size[2];
}

/* Batches of multi-batch launches are timed for the kernel's profile; a launch of one
 * batch (the small ones, whose latency counts) is not. */
static bool run_groups(const struct kiln_ndrange_launch *launch, size_t batch, unsigned worker_id) {
  uint64_t first, count;
  kiln_batch_plan_range(&launch->plan, batch, &first, &count);
  void *local = NULL;
  if (launch->local_mem_bytes) {
    local = local_memory(worker_id, launch->local_mem_bytes);
    if (!local) return false;
  }
  bool timed = count < launch->plan.groups && launch->profile;
  uint64_t start = timed ? now_ns() : 0;
  bool checked = kiln_bounds_checking();
  if (checked) kiln_bounds_batch_begin();
  bool ran = launch->launcher(launch->args, &launch->range, first, count, local) == 0;
  if (checked && kiln_bounds_batch_violated()) ran = false; /* the command fails (bounds_check.h) */
  if (timed && ran) kiln_kernel_profile_record(launch->profile, now_ns() - start, count * group_items(&launch->range));
  return ran;
}

bool kiln_ndrange_welcomes_helpers(const struct kiln_ndrange_launch *launch) {
  const struct kiln_ndrange *r = &launch->range;
  uint64_t items = r->global_size[0] * r->global_size[1] * r->global_size[2];
  uint64_t estimate = launch->profile ? kiln_kernel_profile_estimate(launch->profile, items) : 0;
  return estimate < (uint64_t)HELPED_LAUNCH_NS * launch->plan.round_batches;
}

static bool run_printing(const struct kiln_ndrange_launch *launch, size_t batch, unsigned worker_id) {
  if (!launch->printf_buffer) return run_groups(launch, batch, worker_id);
  /* Every batch ends the printf target, even one that fails: the last writes the output. */
  struct kiln_printf_target previous = kiln_printf_batch_begin(launch->printf_buffer, batch);
  bool ran = run_groups(launch, batch, worker_id);
  kiln_printf_batch_end(launch->printf_buffer, previous);
  return ran;
}

bool kiln_ndrange_run_batch(const struct kiln_ndrange_launch *launch, size_t batch, unsigned worker_id) {
  if (!(launch->range.flags & KILN_NDRANGE_ENQUEUE_COMMAND)) return run_printing(launch, batch, worker_id);
  struct kiln_enqueue_command *previous = kiln_device_enqueue_enter((struct kiln_enqueue_command *)launch);
  bool ran = run_printing(launch, batch, worker_id);
  kiln_device_enqueue_enter(previous);
  return ran;
}

/* The blocks go when the library is unloaded (the worker pool has stopped by then or
 * stops in its own destructor; no batch runs at exit). */
__attribute__((destructor)) static void blocks_free(void) {
  for (unsigned i = 0; blocks && i < block_count; i++)
    if (blocks[i].memory) free(blocks[i].memory - KILN_LOCAL_MEM_PADDING);
  free(blocks);
  blocks = NULL;
}
