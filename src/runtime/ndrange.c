/* ndrange.c: clEnqueueNDRangeKernel and clEnqueueTask. The launch is validated in the
 * spec's order, the geometry made final (a local size chosen when none is given), and the
 * argument block snapshotted into the command with memory objects resolved to their
 * storage or, for images, their kernel view (and held until the command completes). The
 * command carries the launch, which the device runs in batches (device/cpu/executor.h);
 * the queue's sink submits it or, on a queue carrying a recording, records it. */
#include "runtime/command.h"
#include "runtime/debug_err.h"
#include "runtime/context.h"
#include "runtime/extension.h"
#include "runtime/image.h"
#include "runtime/kernel.h"
#include "runtime/ndrange.h"
#include "runtime/program.h"
#include "runtime/queue.h"

#include "device/cpu/bounds_check.h"
#include "device/cpu/device_enqueue.h"
#include "device/cpu/ndrange_executor.h"
#include "device/cpu/topology.h"
#include "device/cpu/worker_pool.h"

#include <CL/cl_ext.h>
#include <stdalign.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* The command's payload: the launch, then (when it fits) the argument block inline. */
#define ARGS_OFFSET ((sizeof(struct kiln_ndrange_launch) + 15u) & ~(size_t)15u)
#define INLINE_ARGS_BYTES (KILN_COMMAND_PAYLOAD_BYTES - ARGS_OFFSET)
_Static_assert(INLINE_ARGS_BYTES >= 64, "the payload keeps room for small argument blocks");
_Static_assert(INLINE_ARGS_BYTES >= sizeof(struct kiln_printf_buffer) &&
                   ARGS_OFFSET % _Alignof(struct kiln_printf_buffer) == 0,
               "a printf buffer fits in place of the inline arguments");
/* By-value arguments wider than this may need more alignment than the inline payload's. */
#define INLINE_MAX_VALUE_BYTES 16u
/* Default cap on the work-items of a work-group Kiln picks itself. */
#define AUTO_WORK_GROUP_ITEMS 256u

/* The launch's batch plan (device/cpu/batch_plan.h), with the extensions' launch hints as
 * set now. The threads that may run it are the workers, or fewer under the queue's
 * compute-unit limit. */
static size_t plan_batches(struct kiln_ndrange_launch *launch, cl_kernel kernel, cl_command_queue queue) {
  const struct kiln_ndrange *range = &launch->range;
  struct kiln_plan_request request = {
      .groups = range->num_groups[0] * range->num_groups[1] * range->num_groups[2],
      .items = range->global_size[0] * range->global_size[1] * range->global_size[2],
      .group_items = range->local_size[0] * range->local_size[1] * range->local_size[2],
      .threads = kiln_worker_pool_size(),
      .long_items = kernel->desc->has_loops,
  };
  request.item_ns_x1024 = atomic_load_explicit(&kernel->profile.ns_per_kilo_item, memory_order_relaxed);
  const struct kiln_worker_limit *limit = kiln_queue_worker_limit(queue);
  if (limit && limit->max < request.threads) request.threads = limit->max;
  request.queues = kiln_worker_pool_every_worker(request.threads);
  unsigned hint_count;
  const kiln_launch_hints_fn *hints = kiln_extension_launch_hints(&hint_count);
  for (unsigned i = 0; i < hint_count; i++) hints[i](kernel, &request);
  return (size_t)kiln_batch_plan_make(&launch->plan, &request);
}

/* A local size for a NULL local_work_size: uniform when required; otherwise a divisor when
 * a reasonably large one exists, else full groups with a partial last one. */
static void choose_local_size(const size_t *global, cl_uint work_dim, bool uniform, size_t max_group,
                              const size_t *max_items, size_t *local) {
  size_t budget = max_group < AUTO_WORK_GROUP_ITEMS ? max_group : AUTO_WORK_GROUP_ITEMS;
  for (cl_uint d = 0; d < work_dim; d++) {
    size_t limit = budget < max_items[d] ? budget : max_items[d];
    if (limit == 0) limit = 1;
    size_t best = (size_t)kiln_largest_divisor_at_most(global[d], limit);
    size_t full = global[d] < limit ? global[d] : limit;
    if (!uniform && best * 4 < full) best = full;
    local[d] = best;
    budget /= best;
    if (budget == 0) budget = 1;
  }
}

/* The work-group size checks, in the spec's order. `local` is the final local size (the
 * given one, or the required size when none was given). */
static cl_int check_work_group(cl_kernel kernel, cl_uint work_dim, const size_t *global, const size_t *local,
                               bool local_given, bool uniform, const struct kiln_device_limits *limits) {
  const uint64_t *reqd = kernel->desc->reqd_work_group_size;
  if (local_given) {
    for (cl_uint d = 0; d < work_dim; d++)
      if (local[d] == 0) return KILN_FAIL(CL_INVALID_WORK_GROUP_SIZE, "local_work_size[%u] is 0", d);
    if (reqd[0]) {
      for (cl_uint d = 0; d < 3; d++)
        if ((d < work_dim ? local[d] : 1) != reqd[d])
          return KILN_FAIL(CL_INVALID_WORK_GROUP_SIZE,
                           "local size in dimension %u is %zu: kernel %s requires reqd_work_group_size(%llu,%llu,%llu)",
                           d, d < work_dim ? local[d] : 1, kernel->desc->name, (unsigned long long)reqd[0],
                           (unsigned long long)reqd[1], (unsigned long long)reqd[2]);
    }
    uint64_t items = 1;
    for (cl_uint d = 0; d < work_dim; d++) items *= local[d];
    if (items > kiln_kernel_max_work_group_size(kernel))
      return KILN_FAIL(CL_INVALID_WORK_GROUP_SIZE,
                       "the work-group has %llu work-items: more than kernel %s allows (CL_KERNEL_WORK_GROUP_SIZE %zu)",
                       (unsigned long long)items, kernel->desc->name, (size_t)kiln_kernel_max_work_group_size(kernel));
  }
  if (uniform)
    for (cl_uint d = 0; d < work_dim; d++)
      if (global[d] % local[d] != 0)
        return KILN_FAIL(
            CL_INVALID_WORK_GROUP_SIZE,
            "global_work_size[%u] %zu is not a multiple of the local size %zu (uniform work-groups required)", d,
            global[d], local[d]);
  if (local_given)
    for (cl_uint d = 0; d < work_dim; d++)
      if (local[d] > limits->max_work_item_sizes[d])
        return KILN_FAIL(CL_INVALID_WORK_ITEM_SIZE,
                         "local_work_size[%u] %zu exceeds CL_DEVICE_MAX_WORK_ITEM_SIZES[%u] %zu", d, local[d], d,
                         (size_t)limits->max_work_item_sizes[d]);
  return CL_SUCCESS;
}

static bool is_mem_arg(enum kiln_arg_kind kind) {
  return kind == KILN_ARG_GLOBAL_PTR || kind == KILN_ARG_CONSTANT_PTR || kind == KILN_ARG_IMAGE ||
         kind == KILN_ARG_PIPE;
}

/* Checks every memory-object and device-queue argument: still alive (the kernel does not
 * retain them), aligned when a sub-buffer; counts them. */
static cl_int check_mem_args(cl_kernel kernel, unsigned *mem_count) {
  const struct kiln_kernel_desc *desc = kernel->desc;
  unsigned count = 0;
  for (uint32_t i = 0; i < desc->num_args; i++) {
    enum kiln_arg_kind kind = desc->args[i].kind;
    if (kind == KILN_ARG_QUEUE) { /* released since it was set? */
      if (!kiln_object_is_valid(kernel->values[i].queue, KILN_OBJECT_DEVICE_QUEUE))
        return KILN_FAIL(CL_INVALID_KERNEL_ARGS, "argument %u of kernel %s: its device queue was released", i,
                         desc->name);
      count++;
      continue;
    }
    if (!is_mem_arg(kind)) continue;
    cl_mem mem = kernel->values[i].mem;
    if (!mem) continue;
    /* released since it was set */
    bool alive = kind == KILN_ARG_IMAGE  ? kiln_mem_is_image(mem)
                 : kind == KILN_ARG_PIPE ? kiln_mem_is_pipe(mem)
                                         : kiln_mem_is_buffer(mem);
    if (!alive)
      return KILN_FAIL(CL_INVALID_KERNEL_ARGS,
                       "argument %u of kernel %s: its memory object was released since it was set", i, desc->name);
    cl_int err = kiln_mem_check_alignment(mem);
    if (err != CL_SUCCESS) return err;
    count++;
  }
  *mem_count = count;
  return CL_SUCCESS;
}

static bool args_fit_inline(const struct kiln_kernel_desc *desc) {
  if (desc->args_block_size > INLINE_ARGS_BYTES) return false;
  for (uint32_t i = 0; i < desc->num_args; i++)
    if (desc->args[i].kind == KILN_ARG_BY_VALUE && desc->args[i].size > INLINE_MAX_VALUE_BYTES) return false;
  return true;
}

/* Copies the argument block into `args`, resolving buffers and pipes to storage pointers
 * and images to their kernel view (image.h), holding them, and laying out local memory. Returns the
 * local bytes per group; *buffer_bytes: the sizes of the buffer arguments, added up. */
static uint64_t snapshot_args(cl_kernel kernel, struct kiln_command *command, unsigned char *args,
                              uint64_t *buffer_bytes) {
  const struct kiln_kernel_desc *desc = kernel->desc;
  memcpy(args, kernel->args, desc->args_block_size);
  *buffer_bytes = 0;
  for (uint32_t i = 0; i < desc->num_args; i++) {
    enum kiln_arg_kind kind = desc->args[i].kind;
    if (kind == KILN_ARG_QUEUE) {
      cl_command_queue queue = kernel->values[i].queue;
      memcpy(args + desc->args[i].offset, &queue->device_queue, sizeof queue->device_queue);
      kiln_command_hold(command, &queue->obj);
      continue;
    }
    if (!is_mem_arg(kind)) continue;
    if (kernel->values[i].pointer) continue; /* an SVM address, already in the block */
    cl_mem mem = kernel->values[i].mem;
    void *pointer = !mem ? NULL : kind == KILN_ARG_IMAGE ? (void *)&mem->image->device : (void *)mem->storage;
    memcpy(args + desc->args[i].offset, &pointer, sizeof pointer);
    if (mem) kiln_command_hold(command, &mem->obj);
    if (mem && kind != KILN_ARG_IMAGE && kind != KILN_ARG_PIPE) *buffer_bytes += mem->size;
  }
  return kiln_kernel_local_mem_layout(kernel, args);
}

/* At most this much of the last-level cache counts per core Kiln runs on: a virtual
 * machine sees its host's whole L3 (300 MiB on a 2-core guest here), which the host's other
 * cores and tenants share. There, vector add over 192 MiB ran 25 % faster with streaming
 * stores than with ordinary ones. Server and desktop parts have 1.5-5 MiB of L3 per core. */
#define CACHE_SHARE_PER_CORE ((uint64_t)4 << 20)

/* Whether a launch over buffers of `bytes` in all asks its launcher for non-temporal stores
 * (KILN_NDRANGE_STREAMING_STORES): when they cannot all stay in the last-level cache (Kiln's
 * share of it), the stored lines would be evicted before anyone reads them, and ordinary
 * stores read each line first. Below that, the next kernel finds the output in the cache. */
static bool streams_stores(uint64_t bytes) {
  /* KILN_STREAMING_STORES=0: never, 1: always (to test or compare); read once. */
  static atomic_int forced = -2;
  int force = atomic_load_explicit(&forced, memory_order_relaxed);
  if (force == -2) {
    const char *env = getenv("KILN_STREAMING_STORES");
    force = env && strcmp(env, "0") == 0 ? 0 : env && strcmp(env, "1") == 0 ? 1 : -1;
    atomic_store_explicit(&forced, force, memory_order_relaxed);
  }
  if (force >= 0) return force;
  const struct kiln_cpu_topology *topology = kiln_cpu_topology_get();
  uint64_t cache = topology->l3_cache_bytes ? topology->l3_cache_bytes : topology->l2_cache_bytes;
  uint64_t share = (uint64_t)topology->core_count * CACHE_SHARE_PER_CORE;
  if (!cache || cache > share) cache = share;
  return bytes > cache;
}

cl_int kiln_ndrange_enqueue(const struct kiln_command_sink *sink, cl_kernel kernel, cl_uint work_dim,
                            const size_t *global_work_offset, const size_t *global_work_size,
                            const size_t *local_work_size) {
  if (!kiln_kernel_is_valid(kernel)) return KILN_FAIL_HANDLE(CL_INVALID_KERNEL, kernel, cl_kernel);
  if (kernel->context != kiln_queue_context(sink->queue))
    return KILN_FAIL(CL_INVALID_CONTEXT, "the kernel and the command queue belong to different contexts");
  if (!kernel->launcher)
    return KILN_FAIL(CL_INVALID_PROGRAM_EXECUTABLE, "kernel %s has no executable for the device", kernel->desc->name);
  if (kernel->unset_args) {
    uint32_t unset = 0;
    while (unset < kernel->desc->num_args && kernel->values[unset].set) unset++;
    return KILN_FAIL(CL_INVALID_KERNEL_ARGS, "argument %u of kernel %s is not set (%u of %u arguments unset)", unset,
                     kernel->desc->name, (unsigned)kernel->unset_args, kernel->desc->num_args);
  }
  const struct kiln_device_limits *limits = kiln_device_limits();
  if (work_dim < 1 || work_dim > 3)
    return KILN_FAIL(CL_INVALID_WORK_DIMENSION, "work_dim is %u: not 1, 2 or 3", work_dim);

  /* OpenCL 2.1+: a NULL or zero global size is a valid launch that does nothing. */
  bool empty = !global_work_size;
  for (cl_uint d = 0; !empty && d < work_dim; d++) empty = global_work_size[d] == 0;
  if (global_work_offset && global_work_size)
    for (cl_uint d = 0; d < work_dim; d++)
      if (global_work_size[d] > SIZE_MAX - global_work_offset[d])
        return KILN_FAIL(CL_INVALID_GLOBAL_OFFSET, "global_work_offset[%u] + global_work_size[%u] overflows size_t", d,
                         d);

  bool uniform = kernel->program->flags.uniform_work_groups || !limits->non_uniform_work_groups;
  const uint64_t *reqd = kernel->desc->reqd_work_group_size;
  size_t local[3] = {1, 1, 1};
  if (local_work_size) {
    for (cl_uint d = 0; d < work_dim; d++) local[d] = local_work_size[d];
  } else if (reqd[0]) {
    for (cl_uint d = 0; d < work_dim; d++) local[d] = (size_t)reqd[d];
  }
  cl_int err;
  if (!empty) {
    if (!local_work_size && !reqd[0])
      choose_local_size(global_work_size, work_dim, uniform, kiln_kernel_max_work_group_size(kernel),
                        limits->max_work_item_sizes, local);
    err = check_work_group(kernel, work_dim, global_work_size, local, local_work_size != NULL, uniform, limits);
    if (err != CL_SUCCESS) return err;
  } else if (local_work_size) {
    size_t zeros[3] = {0, 0, 0};
    err = check_work_group(kernel, work_dim, zeros, local, true, false, limits);
    if (err != CL_SUCCESS) return err;
  }
  unsigned mem_count;
  if ((err = check_mem_args(kernel, &mem_count)) != CL_SUCCESS) return err;
  if ((err = kiln_command_sink_check(sink, CL_COMMAND_NDRANGE_KERNEL)) != CL_SUCCESS) return err;
  if (kernel->too_many_image_args)
    return KILN_FAIL(CL_OUT_OF_RESOURCES, "rejected since (%s)", "kernel->too_many_image_args");
  uint64_t local_bytes = kiln_kernel_local_mem_layout(kernel, NULL);
  if (local_bytes > limits->local_mem_size)
    return KILN_FAIL(CL_OUT_OF_RESOURCES, "rejected since (%s)", "local_bytes > limits->local_mem_size");
  /* Private memory is on the stack of the thread running the launcher, or of a fiber
   * (device/cpu/fibers.h); for a kernel that enqueues kernels, that thread runs theirs too. */
  const struct kiln_enqueue_program *enqueue = kernel->profile.enqueue;
  if (!kiln_kernel_profile_stack_fits(&kernel->profile) || (enqueue && !enqueue->blocks_fit))
    return KILN_FAIL(CL_OUT_OF_RESOURCES, "rejected since (%s)",
                     "!kiln_kernel_profile_stack_fits(&kernel->profile) || (enqueue && !enqueue->blocks_fit)");
  uint64_t stack_bytes = kernel->profile.stack_bytes;
  if (enqueue && enqueue->stack_bytes > stack_bytes) stack_bytes = enqueue->stack_bytes;

  /* An empty launch completes like a marker once its dependencies have. */
  struct kiln_command *command = kiln_command_sink_create(sink, CL_COMMAND_NDRANGE_KERNEL, NULL, &err);
  if (!command) return err;
  struct kiln_ndrange_call call = {kernel, work_dim, global_work_offset, global_work_size, local_work_size};
  if (empty) return kiln_command_sink_take_ndrange(sink, command, &call);

  struct kiln_ndrange_launch *launch = kiln_command_payload(command);
  unsigned char *args = (unsigned char *)launch + ARGS_OFFSET;
  /* A kernel that calls printf keeps its printf buffer where the arguments would go. */
  bool uses_printf = kernel->desc->uses_printf;
  launch->printf_buffer = uses_printf ? (struct kiln_printf_buffer *)args : NULL;
  /* Bounds-checked code reads its arguments' extents after the block (kernel_abi.h). */
  bool checked = kiln_bounds_checking();
  if (uses_printf || checked || !args_fit_inline(kernel->desc)) {
    size_t bytes = kernel->desc->args_block_size;
    if (checked) bytes = kiln_bounds_table_offset(bytes) + 16 * (size_t)kernel->desc->num_args;
    args = kiln_command_side_alloc(command, bytes, KILN_LOCAL_MEM_ALIGN);
  }
  if (!args || !kiln_command_reserve_holds(command, mem_count + 1)) {
    kiln_command_discard(command);
    return CL_OUT_OF_HOST_MEMORY;
  }
  kiln_command_hold(command, &kernel->obj); /* keeps the program and its code alive */
  uint64_t buffer_bytes;
  launch->local_mem_bytes = snapshot_args(kernel, command, args, &buffer_bytes);
  if (checked) kiln_kernel_bounds_table(kernel, args);
  uint64_t group_bytes = launch->local_mem_bytes;
  launch->args = args;
  launch->launcher = kernel->launcher;
  struct kiln_ndrange *range = &launch->range;
  range->work_dim = work_dim;
  range->flags = streams_stores(buffer_bytes) ? KILN_NDRANGE_STREAMING_STORES : 0;
  range->local_mem_bytes = group_bytes;
  for (cl_uint d = 0; d < 3; d++) {
    bool used = d < work_dim;
    range->global_offset[d] = used && global_work_offset ? global_work_offset[d] : 0;
    range->global_size[d] = used ? global_work_size[d] : 1;
    range->local_size[d] = used ? local[d] : 1;
    range->num_groups[d] = (range->global_size[d] + range->local_size[d] - 1) / range->local_size[d];
  }
  if (kernel->desc->uses_work_group_scratch) /* not counted against the device's limit */
    launch->local_mem_bytes +=
        kiln_work_group_scratch_bytes(range->local_size[0] * range->local_size[1] * range->local_size[2]);
  launch->profile = &kernel->profile;
  size_t batches = plan_batches(launch, kernel, sink->queue);
  if (uses_printf) kiln_printf_buffer_init(launch->printf_buffer, KILN_PRINTF_BUFFER_SIZE, batches);
  kiln_command_set_launch(command, launch, batches);
  kiln_command_set_stack(command, stack_bytes);
  return kiln_command_sink_take_ndrange(sink, command, &call);
}

CL_API_ENTRY cl_int CL_API_CALL clEnqueueNDRangeKernel(cl_command_queue command_queue, cl_kernel kernel,
                                                       cl_uint work_dim, const size_t *global_work_offset,
                                                       const size_t *global_work_size, const size_t *local_work_size,
                                                       cl_uint num_events_in_wait_list,
                                                       const cl_event *event_wait_list, cl_event *event) {
  KILN_API_CALL;
  if (!kiln_queue_is_valid(command_queue))
    return KILN_FAIL_HANDLE(CL_INVALID_COMMAND_QUEUE, command_queue, cl_command_queue);
  /* Submitted, or recorded by the recording the queue carries. */
  struct kiln_command_sink sink;
  kiln_queue_sink_open(command_queue, num_events_in_wait_list, event_wait_list, event, &sink);
  cl_int err = kiln_ndrange_enqueue(&sink, kernel, work_dim, global_work_offset, global_work_size, local_work_size);
  kiln_queue_sink_close(&sink);
  return err;
}

CL_API_ENTRY cl_int CL_API_CALL clEnqueueTask(cl_command_queue command_queue, cl_kernel kernel,
                                              cl_uint num_events_in_wait_list, const cl_event *event_wait_list,
                                              cl_event *event) {
  KILN_API_CALL;
  const size_t one = 1;
  return clEnqueueNDRangeKernel(command_queue, kernel, 1, NULL, &one, &one, num_events_in_wait_list,
                                event_wait_list, event);
}
