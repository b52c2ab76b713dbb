/* svm_enqueue.c: the SVM commands. SVM memory is host memory on this device, so a copy or
 * fill runs on the pointers themselves (any host pointer: fine-grain system SVM), and map,
 * unmap and migrate are ordering points with no data to move. A large copy on a queue of
 * the worker pool is a launch of chunks that every worker shares (parallel_copy.h). */
#include "runtime/svm.h"
#include "runtime/debug_err.h"

#include "device/cpu/parallel_copy.h"
#include "device/cpu/worker_pool.h"
#include "runtime/mem_object.h"
#include "runtime/queue.h"

#include <stddef.h>
#include <stdint.h>
#include <string.h>

static bool ranges_overlap(const char *a, const char *b, size_t size) {
  return size && (uintptr_t)a < (uintptr_t)b + size && (uintptr_t)b < (uintptr_t)a + size;
}

/* The payload of a parallel copy: its launch, then what the launch copies. */
struct parallel_copy_payload {
  struct kiln_ndrange_launch launch;
  struct kiln_parallel_copy copy;
};
_Static_assert(sizeof(struct parallel_copy_payload) <= KILN_COMMAND_PAYLOAD_BYTES, "fits the inline payload");

static cl_int submit_parallel_copy(const struct kiln_command_sink *sink, cl_command_type type, void *dst,
                                   const void *src, size_t size, cl_bool blocking) {
  cl_int err;
  struct kiln_command *command = kiln_command_sink_create(sink, type, NULL, &err);
  if (!command) return err;
  struct parallel_copy_payload *p = kiln_command_payload(command);
  p->copy = (struct kiln_parallel_copy){dst, src, size};
  unsigned threads = kiln_worker_pool_size();
  const struct kiln_worker_limit *limit = kiln_queue_worker_limit(sink->queue);
  if (limit && limit->max < threads) threads = limit->max;
  kiln_command_set_launch(command, &p->launch, kiln_parallel_copy_launch(&p->launch, &p->copy, threads));
  return kiln_command_sink_take(sink, command, blocking);
}

cl_int kiln_svm_memcpy(const struct kiln_command_sink *sink, cl_command_type type, void *dst, const void *src,
                       size_t size, cl_bool blocking) {
  if (!dst || !src) return KILN_FAIL(CL_INVALID_VALUE, "rejected since (%s)", "!dst || !src");
  if (ranges_overlap(dst, src, size))
    return KILN_FAIL(CL_MEM_COPY_OVERLAP, "rejected since (%s)", "ranges_overlap(dst, src, size)");
  cl_int err = kiln_command_sink_check(sink, type);
  if (err != CL_SUCCESS) return err;
  if (size >= KILN_PARALLEL_COPY_MIN_BYTES && sink->queue->config.placement.engine == KILN_ENGINE_WORKERS)
    return submit_parallel_copy(sink, type, dst, src, size, blocking);
  struct kiln_mem_linear_copy p = {dst, src, size};
  return kiln_mem_submit(sink, type, kiln_mem_run_linear_copy, &p, sizeof p, NULL, NULL, blocking);
}

struct svm_fill {
  char *dst;
  size_t size, pattern_size;
  unsigned char pattern[KILN_MEM_MAX_PATTERN_BYTES];
};

static cl_int run_svm_fill(struct kiln_command *command) {
  const struct svm_fill *p = kiln_command_payload(command);
  kiln_mem_fill_pattern(p->dst, p->pattern, p->pattern_size, p->size);
  return CL_SUCCESS;
}

cl_int kiln_svm_memfill(const struct kiln_command_sink *sink, cl_command_type type, void *dst, const void *pattern,
                        size_t pattern_size, size_t size) {
  if (!dst || !pattern || !kiln_mem_fill_pattern_size_ok(pattern_size))
    return KILN_FAIL(CL_INVALID_VALUE, "rejected since (%s)",
                     "!dst || !pattern || !kiln_mem_fill_pattern_size_ok(pattern_size)");
  if ((uintptr_t)dst % pattern_size || size % pattern_size)
    return KILN_FAIL(CL_INVALID_VALUE, "rejected since (%s)", "(uintptr_t)dst % pattern_size || size % pattern_size");
  cl_int err = kiln_command_sink_check(sink, type);
  if (err != CL_SUCCESS) return err;
  struct svm_fill p = {.dst = dst, .size = size, .pattern_size = pattern_size};
  memcpy(p.pattern, pattern, pattern_size);
  return kiln_mem_submit(sink, type, run_svm_fill, &p, sizeof p, NULL, NULL, CL_FALSE);
}

cl_int kiln_svm_submit_sync(const struct kiln_command_sink *sink, cl_command_type type, cl_bool blocking) {
  cl_int err = kiln_command_sink_check(sink, type);
  if (err != CL_SUCCESS) return err;
  return kiln_mem_submit(sink, type, NULL, NULL, 0, NULL, NULL, blocking); /* no run: completes like a marker */
}

CL_API_ENTRY cl_int CL_API_CALL clEnqueueSVMMemcpy(cl_command_queue queue, cl_bool blocking, void *dst,
                                                   const void *src, size_t size, cl_uint num_events,
                                                   const cl_event *wait_list, cl_event *event) {
  KILN_API_CALL;
  if (!kiln_queue_is_valid(queue)) return KILN_FAIL_HANDLE(CL_INVALID_COMMAND_QUEUE, queue, cl_command_queue);
  struct kiln_command_sink sink = kiln_command_sink_of_queue(queue, num_events, wait_list, event);
  return kiln_svm_memcpy(&sink, CL_COMMAND_SVM_MEMCPY, dst, src, size, blocking);
}

CL_API_ENTRY cl_int CL_API_CALL clEnqueueSVMMemFill(cl_command_queue queue, void *svm_ptr, const void *pattern,
                                                    size_t pattern_size, size_t size, cl_uint num_events,
                                                    const cl_event *wait_list, cl_event *event) {
  KILN_API_CALL;
  if (!kiln_queue_is_valid(queue)) return KILN_FAIL_HANDLE(CL_INVALID_COMMAND_QUEUE, queue, cl_command_queue);
  struct kiln_command_sink sink = kiln_command_sink_of_queue(queue, num_events, wait_list, event);
  return kiln_svm_memfill(&sink, CL_COMMAND_SVM_MEMFILL, svm_ptr, pattern, pattern_size, size);
}

CL_API_ENTRY cl_int CL_API_CALL clEnqueueSVMMap(cl_command_queue queue, cl_bool blocking, cl_map_flags flags,
                                                void *svm_ptr, size_t size, cl_uint num_events,
                                                const cl_event *wait_list, cl_event *event) {
  KILN_API_CALL;
  if (!kiln_queue_is_valid(queue)) return KILN_FAIL_HANDLE(CL_INVALID_COMMAND_QUEUE, queue, cl_command_queue);
  if (!svm_ptr || size == 0 || !kiln_mem_map_flags_ok(flags))
    return KILN_FAIL(CL_INVALID_VALUE, "rejected since (%s)", "!svm_ptr || size == 0 || !kiln_mem_map_flags_ok(flags)");
  struct kiln_command_sink sink = kiln_command_sink_of_queue(queue, num_events, wait_list, event);
  return kiln_svm_submit_sync(&sink, CL_COMMAND_SVM_MAP, blocking);
}

CL_API_ENTRY cl_int CL_API_CALL clEnqueueSVMUnmap(cl_command_queue queue, void *svm_ptr, cl_uint num_events,
                                                  const cl_event *wait_list, cl_event *event) {
  KILN_API_CALL;
  if (!kiln_queue_is_valid(queue)) return KILN_FAIL_HANDLE(CL_INVALID_COMMAND_QUEUE, queue, cl_command_queue);
  if (!svm_ptr) return KILN_FAIL(CL_INVALID_VALUE, "rejected since (%s)", "!svm_ptr");
  struct kiln_command_sink sink = kiln_command_sink_of_queue(queue, num_events, wait_list, event);
  return kiln_svm_submit_sync(&sink, CL_COMMAND_SVM_UNMAP, CL_FALSE);
}

CL_API_ENTRY cl_int CL_API_CALL clEnqueueSVMMigrateMem(cl_command_queue queue, cl_uint num_svm_pointers,
                                                       const void **svm_pointers, const size_t *sizes,
                                                       cl_mem_migration_flags flags, cl_uint num_events,
                                                       const cl_event *wait_list, cl_event *event) {
  KILN_API_CALL;
  if (!kiln_queue_is_valid(queue)) return KILN_FAIL_HANDLE(CL_INVALID_COMMAND_QUEUE, queue, cl_command_queue);
  if (!num_svm_pointers || !svm_pointers)
    return KILN_FAIL(CL_INVALID_VALUE, "rejected since (%s)", "!num_svm_pointers || !svm_pointers");
  if (flags & ~(cl_mem_migration_flags)(CL_MIGRATE_MEM_OBJECT_HOST | CL_MIGRATE_MEM_OBJECT_CONTENT_UNDEFINED))
    return KILN_FAIL(
        CL_INVALID_VALUE, "rejected since (%s)",
        "flags & ~(cl_mem_migration_flags)(CL_MIGRATE_MEM_OBJECT_HOST | CL_MIGRATE_MEM_OBJECT_CONTENT_UNDEFINED)");
  for (cl_uint i = 0; i < num_svm_pointers; i++) {
    if (!svm_pointers[i]) return KILN_FAIL(CL_INVALID_VALUE, "rejected since (%s)", "!svm_pointers[i]");
    if (!sizes || !sizes[i]) continue;
    /* A sized range must lie inside one allocation Kiln made. */
    struct kiln_svm_allocation a;
    if (!kiln_svm_lookup(svm_pointers[i], &a) ||
        sizes[i] > a.size - (size_t)((const char *)svm_pointers[i] - a.base))
      return CL_INVALID_VALUE;
  }
  struct kiln_command_sink sink = kiln_command_sink_of_queue(queue, num_events, wait_list, event);
  return kiln_svm_submit_sync(&sink, CL_COMMAND_SVM_MIGRATE_MEM, CL_FALSE);
}
