#include "device/cpu/ndrange_executor.h"

#include "device/cpu/worker_pool.h"

#include <pthread.h>
#include <stdlib.h>

/* Ranges of fewer work-items than this run as one batch: waking workers costs more. */
#define SMALL_RANGE_ITEMS 1024u
#define BATCHES_PER_WORKER 4u
/* The first block of a worker; later ones double until the kernel's need fits. */
#define MIN_LOCAL_BLOCK (64u * 1024u)

struct local_block {
  void *memory;
  uint64_t size;
};

static struct local_block *blocks; /* one per worker id, each touched only by its thread */
static unsigned block_count;
static pthread_once_t blocks_once = PTHREAD_ONCE_INIT;

static void blocks_init(void) {
  block_count = kiln_worker_pool_id_count();
  blocks = calloc(block_count, sizeof *blocks);
}

size_t kiln_ndrange_plan(struct kiln_ndrange_launch *launch, const struct kiln_batch_hint *hint) {
  const struct kiln_ndrange *r = &launch->range;
  uint64_t groups = r->num_groups[0] * r->num_groups[1] * r->num_groups[2];
  launch->total_groups = groups;
  uint64_t per_batch = hint->groups;
  if (per_batch == 0) {
    uint64_t items = r->global_size[0] * r->global_size[1] * r->global_size[2];
    uint64_t target = (uint64_t)kiln_worker_pool_size() * BATCHES_PER_WORKER;
    if (items < SMALL_RANGE_ITEMS || target <= 1) target = 1;
    per_batch = (groups + target - 1) / target;
  }
  if (per_batch == 0) per_batch = 1;
  /* The modifier saturates: a batch has at least one group ("rounded up to the next
   * usable value") and at most all of them. */
  if (hint->modifier < 0) {
    uint64_t decrease = (uint64_t)-(hint->modifier + 1) + 1; /* no overflow at INT64_MIN */
    per_batch = decrease >= per_batch ? 1 : per_batch - decrease;
  } else {
    uint64_t increase = (uint64_t)hint->modifier;
    per_batch = increase > UINT64_MAX - per_batch ? UINT64_MAX : per_batch + increase;
  }
  if (per_batch > groups) per_batch = groups ? groups : 1;
  launch->groups_per_batch = per_batch;
  return (size_t)((groups + per_batch - 1) / per_batch);
}

/* This worker's block, grown to at least `bytes` (rarely: sizes only ever double). */
static void *local_memory(unsigned worker_id, uint64_t bytes) {
  pthread_once(&blocks_once, blocks_init);
  if (!blocks || worker_id >= block_count) return NULL;
  struct local_block *block = &blocks[worker_id];
  if (block->size >= bytes && block->memory) return block->memory;
  uint64_t size = block->size ? block->size : MIN_LOCAL_BLOCK;
  while (size < bytes) size *= 2;
  void *memory = aligned_alloc(KILN_LOCAL_MEM_ALIGN, size);
  if (!memory) return NULL;
  free(block->memory);
  block->memory = memory;
  block->size = size;
  return memory;
}

static bool run_groups(const struct kiln_ndrange_launch *launch, size_t batch, unsigned worker_id) {
  uint64_t first = (uint64_t)batch * launch->groups_per_batch;
  uint64_t count = launch->total_groups - first;
  if (count > launch->groups_per_batch) count = launch->groups_per_batch;
  void *local = NULL;
  if (launch->local_mem_bytes) {
    local = local_memory(worker_id, launch->local_mem_bytes);
    if (!local) return false;
  }
  return launch->launcher(launch->args, &launch->range, first, count, local) == 0;
}

bool kiln_ndrange_run_batch(const struct kiln_ndrange_launch *launch, size_t batch, unsigned worker_id) {
  if (!launch->printf_buffer) return run_groups(launch, batch, worker_id);
  /* Every batch ends the printf target, even one that fails: the last writes the output. */
  struct kiln_printf_target previous = kiln_printf_batch_begin(launch->printf_buffer, batch);
  bool ran = run_groups(launch, batch, worker_id);
  kiln_printf_batch_end(launch->printf_buffer, previous);
  return ran;
}

/* The blocks go when the library is unloaded (the worker pool has stopped by then or
 * stops in its own destructor; no batch runs at exit). */
__attribute__((destructor)) static void blocks_free(void) {
  for (unsigned i = 0; blocks && i < block_count; i++) free(blocks[i].memory);
  free(blocks);
  blocks = NULL;
}
