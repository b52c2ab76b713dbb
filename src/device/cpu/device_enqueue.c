/* device_enqueue.c: see device_enqueue.h. The scope's lock guards its lists, every
 * command's counts and status and every event's state; the JIT code's calls take it only
 * to link a command or change an event, never while a launch runs. */
#include "device/cpu/device_enqueue.h"

#include "device/cpu/compiler/compiler.h"
#include "device/cpu/executor.h"
#include "device/cpu/worker_pool.h"

#include <CL/cl.h>
#include <stdlib.h>
#include <string.h>

/* OpenCL C's enqueue results (opencl-c-base.h). */
#define CLK_SUCCESS 0
#define CLK_ENQUEUE_FAILURE (-101)
#define CLK_INVALID_QUEUE (-102)
#define CLK_INVALID_NDRANGE (-160)
#define CLK_INVALID_EVENT_WAIT_LIST (-57)
#define CLK_DEVICE_QUEUE_FULL (-161)
#define CLK_INVALID_ARG_SIZE (-51)
#define CLK_EVENT_ALLOCATION_FAILURE (-100)
#define CLK_OUT_OF_RESOURCES (-5)
#define CLK_PROFILING_COMMAND_EXEC_TIME 1
#define CLK_ENQUEUE_FLAGS_WAIT_WORK_GROUP 2

/* A local size enqueue_kernel picks for an ndrange without one: at most this many
 * work-items per group. */
#define AUTO_GROUP_ITEMS 256u

/* OpenCL C's ndrange_t (opencl-c-base.h) as the host's C lays it out: the same. */
struct device_ndrange {
  uint32_t work_dim;
  size_t offset[3], global[3], local[3];
};

struct kiln_device_event {
  int refs;                         /* the kernels' references; 0: released or never used */
  int status;                       /* CL_SUBMITTED, CL_RUNNING, CL_COMPLETE or negative */
  bool user;
  uint64_t start_ns, end_ns, complete_ns;
  uint64_t *capture;                /* capture_event_profiling_info's target, written at completion */
};

struct kiln_enqueue_command {
  struct kiln_ndrange_launch launch; /* first: kiln_ndrange_run_batch's launch is the command */
  size_t batch_count;                /* 0: a marker */
  struct kiln_enqueue_scope *scope;
  struct kiln_enqueue_command *parent; /* NULL: the root */
  struct kiln_enqueue_command *next;   /* pending list, then the list of finished ones */
  struct kiln_device_queue *queue;     /* held; NULL for the root */
  struct kiln_device_event *event;     /* its completion's, or NULL */
  uint32_t wait_count;
  struct kiln_device_event **wait;
  unsigned unfinished;                 /* itself until it ran, and its children not complete */
  int status;                          /* 0 or the first failure of it or a descendant */
  struct kiln_printf_buffer printf_buffer;
};

/* A scope's events live in slabs it frees at its end, so that any value a kernel passes
 * as a clk_event_t can be checked (is_valid_event, wait lists) without reading through it. */
#define EVENTS_PER_SLAB 64u
struct event_slab {
  struct event_slab *next;
  unsigned used;
  struct kiln_device_event events[EVENTS_PER_SLAB];
};

struct kiln_enqueue_scope {
  pthread_mutex_t lock;
  const struct kiln_enqueue_program *program;
  struct kiln_device_queue *default_queue; /* held, or NULL */
  struct kiln_enqueue_command *pending_head, *pending_tail;
  struct kiln_enqueue_command *finished;   /* children that ran, freed with the scope */
  struct event_slab *slabs;                /* every event, newest slab first */
  unsigned live_events;
  struct kiln_worker_limit *limit;
  unsigned lane;
};

static _Thread_local struct kiln_enqueue_command *current;

static uint64_t now_ns(void) { return kiln_monotonic_ns(); }

struct kiln_enqueue_command *kiln_device_enqueue_enter(struct kiln_enqueue_command *command) {
  struct kiln_enqueue_command *previous = current;
  current = command;
  return previous;
}

/* Queues. */

struct kiln_device_queue *kiln_device_queue_create(uint32_t size_bytes, bool profiling) {
  struct kiln_device_queue *queue = malloc(sizeof *queue);
  if (!queue) return NULL;
  atomic_init(&queue->refs, 1);
  queue->capacity = size_bytes / KILN_DEVICE_QUEUE_COMMAND_BYTES;
  if (queue->capacity == 0) queue->capacity = 1;
  atomic_init(&queue->outstanding, 0);
  queue->profiling = profiling;
  return queue;
}

void kiln_device_queue_retain(struct kiln_device_queue *queue) {
  atomic_fetch_add_explicit(&queue->refs, 1, memory_order_relaxed);
}

void kiln_device_queue_release(struct kiln_device_queue *queue) {
  if (queue && atomic_fetch_sub_explicit(&queue->refs, 1, memory_order_acq_rel) == 1) free(queue);
}

struct kiln_device_queue *kiln_default_device_queue_get(struct kiln_default_device_queue *slot) {
  pthread_mutex_lock(&slot->lock);
  struct kiln_device_queue *queue = slot->queue;
  if (queue) kiln_device_queue_retain(queue);
  pthread_mutex_unlock(&slot->lock);
  return queue;
}

/* Events (scope lock held). */

static struct kiln_device_event *event_create_locked(struct kiln_enqueue_scope *scope, bool user) {
  if (scope->live_events >= KILN_MAX_ON_DEVICE_EVENTS) return NULL;
  if (!scope->slabs || scope->slabs->used == EVENTS_PER_SLAB) {
    struct event_slab *slab = calloc(1, sizeof *slab);
    if (!slab) return NULL;
    slab->next = scope->slabs;
    scope->slabs = slab;
  }
  struct kiln_device_event *event = &scope->slabs->events[scope->slabs->used++];
  event->refs = 1;
  event->status = CL_SUBMITTED;
  event->user = user;
  scope->live_events++;
  return event;
}

static void capture_locked(struct kiln_device_event *event) {
  if (!event->capture) return;
  event->capture[0] = event->end_ns - event->start_ns;
  event->capture[1] = event->complete_ns - event->start_ns;
  event->capture = NULL;
}

/* One of the scope's events, not released (scope lock held). */
static bool event_valid(const struct kiln_enqueue_scope *scope, const struct kiln_device_event *event) {
  uintptr_t p = (uintptr_t)event;
  for (const struct event_slab *slab = scope->slabs; slab; slab = slab->next) {
    uintptr_t first = (uintptr_t)slab->events, end = (uintptr_t)(slab->events + slab->used);
    if (p >= first && p < end) return (p - first) % sizeof *event == 0 && event->refs > 0;
  }
  return false;
}

/* Commands (scope lock held). */

static void complete_locked(struct kiln_enqueue_command *command) {
  for (;;) {
    if (command->event) {
      command->event->status = command->status < 0 ? command->status : CL_COMPLETE;
      command->event->complete_ns = now_ns();
      capture_locked(command->event);
    }
    if (command->queue) atomic_fetch_sub_explicit(&command->queue->outstanding, 1, memory_order_relaxed);
    struct kiln_enqueue_command *parent = command->parent;
    if (!parent) return;
    if (command->status < 0 && parent->status == 0) parent->status = command->status;
    if (--parent->unfinished) return;
    command = parent;
  }
}

/* The command has run (or will never run): it completes once its children have. */
static void finish_locked(struct kiln_enqueue_command *command, int status) {
  if (status < 0 && command->status == 0) command->status = status;
  if (command->event) command->event->end_ns = now_ns();
  if (--command->unfinished == 0) complete_locked(command);
}

/* The first pending command whose wait list has completed, unlinked; NULL when none. A
 * command waiting for a failed event fails without running. */
static struct kiln_enqueue_command *take_ready_locked(struct kiln_enqueue_scope *scope, bool *failed_dependency) {
  struct kiln_enqueue_command *before = NULL;
  for (struct kiln_enqueue_command *c = scope->pending_head; c; before = c, c = c->next) {
    bool ready = true;
    *failed_dependency = false;
    for (uint32_t i = 0; i < c->wait_count && ready; i++) {
      ready = c->wait[i]->status <= CL_COMPLETE;
      if (c->wait[i]->status < 0) *failed_dependency = true;
    }
    if (!ready) continue;
    if (before) before->next = c->next;
    else scope->pending_head = c->next;
    if (scope->pending_tail == c) scope->pending_tail = before;
    c->next = NULL;
    return c;
  }
  return NULL;
}

static void run_command(struct kiln_enqueue_scope *scope, struct kiln_enqueue_command *command, unsigned worker_id) {
  if (command->event) {
    pthread_mutex_lock(&scope->lock);
    command->event->status = CL_RUNNING;
    command->event->start_ns = now_ns();
    pthread_mutex_unlock(&scope->lock);
  }
  int status = command->batch_count ? kiln_execution_run_launch_alone(&command->launch, command->batch_count,
                                                                       worker_id, scope->limit, scope->lane)
                                    : 0;
  pthread_mutex_lock(&scope->lock);
  finish_locked(command, status);
  command->next = scope->finished;
  scope->finished = command;
  pthread_mutex_unlock(&scope->lock);
}

int kiln_device_enqueue_run(const struct kiln_ndrange_launch *launch, size_t batch_count, unsigned worker_id,
                            struct kiln_worker_limit *limit, unsigned lane, uint64_t *end_ns) {
  struct kiln_enqueue_scope scope = {.program = launch->profile->enqueue, .limit = limit, .lane = lane};
  pthread_mutex_init(&scope.lock, NULL);
  scope.default_queue = kiln_default_device_queue_get(scope.program->default_queue);
  struct kiln_enqueue_command root = {.launch = *launch, .batch_count = batch_count, .scope = &scope, .unfinished = 1};
  root.launch.range.flags |= KILN_NDRANGE_ENQUEUE_COMMAND;
  int status = kiln_execution_run_launch_alone(&root.launch, batch_count, worker_id, limit, lane);
  if (end_ns) *end_ns = now_ns();
  pthread_mutex_lock(&scope.lock);
  finish_locked(&root, status);
  for (;;) {
    bool failed_dependency;
    struct kiln_enqueue_command *next = take_ready_locked(&scope, &failed_dependency);
    if (!next && !scope.pending_head) break;
    if (!next) {
      /* Everything left waits for user events that no running kernel can set any more: it
       * would never run. It fails instead, and so does the launch. */
      next = scope.pending_head;
      scope.pending_head = next->next;
      if (!scope.pending_head) scope.pending_tail = NULL;
      failed_dependency = true;
    }
    if (failed_dependency) {
      finish_locked(next, CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST);
      next->next = scope.finished;
      scope.finished = next;
      continue;
    }
    pthread_mutex_unlock(&scope.lock);
    run_command(&scope, next, worker_id);
    pthread_mutex_lock(&scope.lock);
  }
  pthread_mutex_unlock(&scope.lock);
  for (struct kiln_enqueue_command *c = scope.finished, *n; c; c = n) {
    n = c->next;
    kiln_device_queue_release(c->queue);
    free(c);
  }
  for (struct event_slab *slab = scope.slabs, *n; slab; slab = n) {
    n = slab->next;
    free(slab);
  }
  kiln_device_queue_release(scope.default_queue);
  pthread_mutex_destroy(&scope.lock);
  return root.status;
}

/* enqueue_kernel. */

/* The child's geometry from the ndrange, or CLK_INVALID_NDRANGE. */
static int make_range(const struct device_ndrange *nd, const struct kiln_block_kernel *block, struct kiln_ndrange *range) {
  uint32_t dims = nd->work_dim;
  if (dims < 1 || dims > 3) return CLK_INVALID_NDRANGE;
  bool local_given = false;
  uint64_t items = 1;
  for (uint32_t d = 0; d < dims; d++) {
    if (nd->global[d] == 0 || nd->global[d] > SIZE_MAX - nd->offset[d]) return CLK_INVALID_NDRANGE;
    local_given |= nd->local[d] != 0;
  }
  uint64_t budget = block->max_work_group_size < AUTO_GROUP_ITEMS ? block->max_work_group_size : AUTO_GROUP_ITEMS;
  memset(range, 0, sizeof *range);
  range->work_dim = dims;
  for (uint32_t d = 0; d < 3; d++) {
    bool used = d < dims;
    uint64_t global = used ? nd->global[d] : 1, local = used ? nd->local[d] : 1;
    if (local_given) {
      if (local == 0 || local > block->max_work_item_sizes[d]) return CLK_INVALID_NDRANGE;
      if (block->uniform_work_groups && global % local) return CLK_INVALID_NDRANGE;
    } else {
      uint64_t limit = budget < block->max_work_item_sizes[d] ? budget : block->max_work_item_sizes[d];
      local = kiln_largest_divisor_at_most(global, limit ? limit : 1);
      budget = budget / local ? budget / local : 1;
    }
    items *= local;
    range->global_offset[d] = used ? nd->offset[d] : 0;
    range->global_size[d] = global;
    range->local_size[d] = local;
    range->num_groups[d] = (global + local - 1) / local;
  }
  return items > block->max_work_group_size ? CLK_INVALID_NDRANGE : CLK_SUCCESS;
}

static int check_wait_list(const struct kiln_enqueue_scope *scope, uint32_t count, void *const *list) {
  if ((count == 0) != (list == NULL)) return CLK_INVALID_EVENT_WAIT_LIST;
  for (uint32_t i = 0; i < count; i++)
    if (!event_valid(scope, list[i])) return CLK_INVALID_EVENT_WAIT_LIST;
  return CLK_SUCCESS;
}

/* Takes a place in `queue`, or CLK_DEVICE_QUEUE_FULL. */
static int reserve_place(struct kiln_device_queue *queue) {
  unsigned used = atomic_load_explicit(&queue->outstanding, memory_order_relaxed);
  do {
    if (used >= queue->capacity) return CLK_DEVICE_QUEUE_FULL;
  } while (!atomic_compare_exchange_weak_explicit(&queue->outstanding, &used, used + 1, memory_order_relaxed,
                                                  memory_order_relaxed));
  return CLK_SUCCESS;
}

/* Links a built command as a child of the calling work-item's command, with a new event
 * for `event_ret` when asked; frees it and returns the error otherwise. */
static int link_command(struct kiln_enqueue_command *command, void **event_ret, uint32_t wait_count,
                        void *const *wait_list) {
  struct kiln_enqueue_scope *scope = current->scope;
  command->scope = scope;
  command->unfinished = 1;
  pthread_mutex_lock(&scope->lock);
  int err = check_wait_list(scope, wait_count, wait_list);
  if (err == CLK_SUCCESS && event_ret && !(command->event = event_create_locked(scope, false)))
    err = CLK_EVENT_ALLOCATION_FAILURE;
  if (err == CLK_SUCCESS) err = reserve_place(command->queue);
  if (err != CLK_SUCCESS) {
    pthread_mutex_unlock(&scope->lock);
    free(command);
    return err;
  }
  /* The wait list's events live as long as the scope: pointers suffice. */
  if (wait_count) memcpy(command->wait, wait_list, wait_count * sizeof *command->wait);
  command->wait_count = wait_count;
  command->parent = current;
  current->unfinished++;
  if (scope->pending_tail) scope->pending_tail->next = command;
  else scope->pending_head = command;
  scope->pending_tail = command;
  kiln_device_queue_retain(command->queue);
  if (event_ret) *event_ret = command->event;
  pthread_mutex_unlock(&scope->lock);
  return CLK_SUCCESS;
}

static size_t align_up(size_t n, size_t a) { return (n + a - 1) / a * a; }

static int enqueue_kernel(void *queue, uint32_t flags, const struct device_ndrange *nd, uint32_t num_events,
                          void *const *wait_list, void **event_ret, uint32_t kernel_index, const void *literal,
                          uint32_t num_locals, const uint64_t *local_sizes) {
  if (!current) return CLK_ENQUEUE_FAILURE;
  const struct kiln_enqueue_program *program = current->scope->program;
  if (!queue) return CLK_INVALID_QUEUE;
  if (flags > CLK_ENQUEUE_FLAGS_WAIT_WORK_GROUP) return CLK_ENQUEUE_FAILURE;
  if (kernel_index >= program->count || !program->kernels[kernel_index].launcher) return CLK_ENQUEUE_FAILURE;
  const struct kiln_block_kernel *block = &program->kernels[kernel_index];
  const struct kiln_kernel_desc *desc = block->desc;
  struct kiln_ndrange range;
  int err = make_range(nd, block, &range);
  if (err != CLK_SUCCESS) return err;
  if ((num_events == 0) != (wait_list == NULL)) return CLK_INVALID_EVENT_WAIT_LIST;
  if (num_locals + 1 != desc->num_args) return CLK_ENQUEUE_FAILURE;
  uint64_t local_bytes = desc->static_local_bytes;
  for (uint32_t i = 0; i < num_locals; i++) {
    if (local_sizes[i] == 0) return CLK_INVALID_ARG_SIZE;
    local_bytes = align_up(local_bytes, KILN_LOCAL_MEM_ALIGN) + local_sizes[i];
  }
  if (local_bytes > program->local_mem_size) return CLK_OUT_OF_RESOURCES;
  if (!kiln_worker_pool_stack_fits(block->profile.stack_bytes)) return CLK_OUT_OF_RESOURCES;

  /* One block: the command, its argument block, the block literal, the wait list. */
  uint32_t literal_size = *(const uint32_t *)literal;
  size_t args_at = align_up(sizeof(struct kiln_enqueue_command), KILN_LOCAL_MEM_ALIGN);
  size_t literal_at = align_up(args_at + desc->args_block_size, 16);
  size_t wait_at = align_up(literal_at + literal_size, 8);
  struct kiln_enqueue_command *command =
      aligned_alloc(KILN_LOCAL_MEM_ALIGN, align_up(wait_at + num_events * sizeof(void *), KILN_LOCAL_MEM_ALIGN));
  if (!command) return CLK_OUT_OF_RESOURCES;
  memset(command, 0, sizeof *command);
  unsigned char *bytes = (unsigned char *)command, *args = bytes + args_at;
  memcpy(bytes + literal_at, literal, literal_size);
  void *literal_copy = bytes + literal_at;
  memcpy(args + desc->args[0].offset, &literal_copy, sizeof literal_copy);
  uint64_t at = desc->static_local_bytes;
  for (uint32_t i = 0; i < num_locals; i++) {
    at = align_up(at, KILN_LOCAL_MEM_ALIGN);
    memcpy(args + desc->args[i + 1].offset, &at, sizeof at);
    at += local_sizes[i];
  }
  command->wait = (struct kiln_device_event **)(bytes + wait_at);
  command->queue = queue;

  struct kiln_ndrange_launch *launch = &command->launch;
  range.local_mem_bytes = local_bytes;
  range.flags = KILN_NDRANGE_ENQUEUE_COMMAND;
  launch->range = range;
  launch->launcher = block->launcher;
  launch->args = args;
  launch->local_mem_bytes = local_bytes;
  uint64_t group_items = range.local_size[0] * range.local_size[1] * range.local_size[2];
  if (desc->uses_work_group_scratch) launch->local_mem_bytes += kiln_work_group_scratch_bytes(group_items);
  launch->printf_buffer = desc->uses_printf ? &command->printf_buffer : NULL; /* run_launch gives it its own */
  launch->profile = &program->kernels[kernel_index].profile;
  unsigned threads = kiln_worker_pool_size();
  struct kiln_worker_limit *limit = current->scope->limit;
  if (limit && limit->max < threads) threads = limit->max;
  struct kiln_plan_request request = {
      .groups = range.num_groups[0] * range.num_groups[1] * range.num_groups[2],
      .items = range.global_size[0] * range.global_size[1] * range.global_size[2],
      .group_items = group_items,
      .threads = threads,
      .long_items = desc->has_loops,
      .queues = kiln_worker_pool_every_worker(threads),
      .item_ns_x1024 = atomic_load_explicit(&launch->profile->ns_per_kilo_item, memory_order_relaxed),
  };
  command->batch_count = (size_t)kiln_batch_plan_make(&launch->plan, &request);
  return link_command(command, event_ret, num_events, wait_list);
}

/* A program built with -g learns why an enqueue failed (OpenCL C §6.13.17.1); any other
 * gets CLK_ENQUEUE_FAILURE for every failure. */
static int reported(int err) {
  return err == CLK_SUCCESS || (current && current->scope->program->detailed_errors) ? err : CLK_ENQUEUE_FAILURE;
}

/* What JIT code calls (compiler/device_enqueue.cpp rewrites clang's calls into this). */
static int host_enqueue_kernel(void *queue, uint32_t flags, const void *ndrange, uint32_t num_events,
                               void *const *wait_list, void **event_ret, uint32_t kernel_index, const void *literal,
                               uint32_t num_locals, const uint64_t *local_sizes) {
  return reported(enqueue_kernel(queue, flags, ndrange, num_events, wait_list, event_ret, kernel_index, literal,
                                 num_locals, local_sizes));
}

static int enqueue_marker(void *queue, uint32_t num_events, void *const *wait_list, void **event_ret) {
  if (!current) return CLK_ENQUEUE_FAILURE;
  if (!queue) return CLK_INVALID_QUEUE;
  if (num_events == 0 || !wait_list) return CLK_INVALID_EVENT_WAIT_LIST;
  if (!event_ret) return CLK_SUCCESS; /* "otherwise this is a no-op" */
  struct kiln_enqueue_command *command = malloc(sizeof *command + num_events * sizeof(void *));
  if (!command) return CLK_OUT_OF_RESOURCES;
  memset(command, 0, sizeof *command);
  command->wait = (struct kiln_device_event **)(command + 1);
  command->queue = queue;
  return link_command(command, event_ret, num_events, wait_list);
}

static int host_enqueue_marker(void *queue, uint32_t num_events, void *const *wait_list, void **event_ret) {
  return reported(enqueue_marker(queue, num_events, wait_list, event_ret));
}

static void *host_default_queue(void) { return current ? current->scope->default_queue : NULL; }

/* The event functions act on one of the running scope's events, under its lock; on
 * anything else they do nothing (the spec leaves that undefined). */
static struct kiln_enqueue_scope *lock_for(const struct kiln_device_event *event) {
  if (!current) return NULL;
  struct kiln_enqueue_scope *scope = current->scope;
  pthread_mutex_lock(&scope->lock);
  if (event_valid(scope, event)) return scope;
  pthread_mutex_unlock(&scope->lock);
  return NULL;
}

static void host_retain_event(struct kiln_device_event *event) {
  struct kiln_enqueue_scope *scope = lock_for(event);
  if (!scope) return;
  event->refs++;
  pthread_mutex_unlock(&scope->lock);
}

static void host_release_event(struct kiln_device_event *event) {
  struct kiln_enqueue_scope *scope = lock_for(event);
  if (!scope) return;
  if (--event->refs == 0) scope->live_events--;
  pthread_mutex_unlock(&scope->lock);
}

static void *host_create_user_event(void) {
  if (!current) return NULL;
  pthread_mutex_lock(&current->scope->lock);
  struct kiln_device_event *event = event_create_locked(current->scope, true);
  if (event) event->start_ns = event->end_ns = now_ns();
  pthread_mutex_unlock(&current->scope->lock);
  return event;
}

static int host_is_valid_event(struct kiln_device_event *event) {
  struct kiln_enqueue_scope *scope = lock_for(event);
  if (scope) pthread_mutex_unlock(&scope->lock);
  return scope != NULL;
}

static void host_set_user_event_status(struct kiln_device_event *event, int status) {
  if (status != CL_COMPLETE && status >= 0) return;
  struct kiln_enqueue_scope *scope = lock_for(event);
  if (!scope) return;
  if (event->user && event->status > CL_COMPLETE) {
    event->status = status;
    event->end_ns = event->complete_ns = now_ns();
  }
  pthread_mutex_unlock(&scope->lock);
}

static void host_capture_profiling(struct kiln_device_event *event, int name, uint64_t *value) {
  if (name != CLK_PROFILING_COMMAND_EXEC_TIME || !value) return;
  struct kiln_enqueue_scope *scope = lock_for(event);
  if (!scope) return;
  event->capture = value;
  if (event->status <= CL_COMPLETE) capture_locked(event);
  pthread_mutex_unlock(&scope->lock);
}

static uint32_t host_block_query(uint32_t kernel_index, uint32_t which, const struct device_ndrange *nd) {
  if (!current) return 0;
  const struct kiln_enqueue_program *program = current->scope->program;
  if (kernel_index >= program->count || !program->kernels[kernel_index].launcher) return 0;
  const struct kiln_block_kernel *block = &program->kernels[kernel_index];
  switch (which) {
  case KILN_BLOCK_QUERY_WORK_GROUP_SIZE:
    return block->max_work_group_size;
  case KILN_BLOCK_QUERY_PREFERRED_MULTIPLE:
    return block->preferred_multiple;
  case KILN_BLOCK_QUERY_MAX_SUB_GROUP_SIZE:
    return KILN_SUB_GROUP_SIZE;
  case KILN_BLOCK_QUERY_SUB_GROUP_COUNT: {
    /* Sub-groups of one work-item: as many as a work-group of the ndrange has. */
    struct kiln_ndrange range;
    if (make_range(nd, block, &range) != CLK_SUCCESS) return 0;
    uint64_t items = range.local_size[0] * range.local_size[1] * range.local_size[2];
    return (uint32_t)(items / KILN_SUB_GROUP_SIZE);
  }
  default:
    return 0;
  }
}

static const char *const clang_entries[] = {
    "__enqueue_kernel_basic",
    "__enqueue_kernel_basic_events",
    "__enqueue_kernel_varargs",
    "__enqueue_kernel_events_varargs",
    "__get_kernel_work_group_size_impl",
    "__get_kernel_preferred_work_group_size_multiple_impl",
    "__get_kernel_max_sub_group_size_for_ndrange_impl",
    "__get_kernel_sub_group_count_for_ndrange_impl",
};

bool kiln_device_enqueue_is_clang_entry(const char *name) {
  for (size_t i = 0; i < sizeof clang_entries / sizeof clang_entries[0]; i++)
    if (strcmp(name, clang_entries[i]) == 0) return true;
  return false;
}

void kiln_device_enqueue_register(void) {
  kiln_jit_define_symbol(KILN_ENQUEUE_KERNEL_SYMBOL, (void *)host_enqueue_kernel);
  kiln_jit_define_symbol(KILN_BLOCK_QUERY_SYMBOL, (void *)host_block_query);
  kiln_jit_define_symbol("__kiln_enqueue_marker", (void *)host_enqueue_marker);
  kiln_jit_define_symbol("__kiln_default_queue", (void *)host_default_queue);
  kiln_jit_define_symbol("__kiln_retain_event", (void *)host_retain_event);
  kiln_jit_define_symbol("__kiln_release_event", (void *)host_release_event);
  kiln_jit_define_symbol("__kiln_create_user_event", (void *)host_create_user_event);
  kiln_jit_define_symbol("__kiln_is_valid_event", (void *)host_is_valid_event);
  kiln_jit_define_symbol("__kiln_set_user_event_status", (void *)host_set_user_event_status);
  kiln_jit_define_symbol("__kiln_capture_event_profiling_info", (void *)host_capture_profiling);
}
