/* mem_fill.c: clEnqueueFillBuffer. The pattern is copied into the command at
 * enqueue time (the application may reuse its memory right after the call). */
#include "runtime/mem_object.h"
#include "runtime/debug_err.h"

#include <string.h>


struct fill {
  char *dst;
  size_t size;
  size_t pattern_size;
  unsigned char pattern[KILN_MEM_MAX_PATTERN_BYTES];
};

void kiln_mem_fill_pattern(char *dst, const unsigned char *pattern, size_t pattern_size, size_t size) {
  if (size == 0) return;
  if (pattern_size == 1) {
    memset(dst, pattern[0], size);
    return;
  }
  /* Write one copy, then double the filled prefix: log2(size) memcpy calls. */
  size_t done = pattern_size;
  memcpy(dst, pattern, done);
  while (done < size) {
    size_t n = done <= size - done ? done : size - done;
    memcpy(dst + done, dst, n);
    done += n;
  }
}

static cl_int run_fill(struct kiln_command *command) {
  const struct fill *p = kiln_command_payload(command);
  kiln_mem_fill_pattern(p->dst, p->pattern, p->pattern_size, p->size);
  return CL_SUCCESS;
}

bool kiln_mem_fill_pattern_size_ok(size_t size) {
  return size != 0 && size <= KILN_MEM_MAX_PATTERN_BYTES && (size & (size - 1)) == 0;
}

cl_int kiln_mem_fill(const struct kiln_command_sink *sink, cl_mem buffer, const void *pattern, size_t pattern_size,
                     size_t offset, size_t size) {
  cl_int err = kiln_mem_check_queue_buffer(sink->queue, buffer);
  if (err == CL_SUCCESS) err = kiln_mem_check_host_transfer(buffer);
  if (err != CL_SUCCESS) return err;
  if (!kiln_mem_range_ok(buffer, offset, size))
    return KILN_FAIL(CL_INVALID_VALUE, "rejected since (%s)", "!kiln_mem_range_ok(buffer, offset, size)");
  if (!pattern || !kiln_mem_fill_pattern_size_ok(pattern_size))
    return KILN_FAIL(CL_INVALID_VALUE, "rejected since (%s)",
                     "!pattern || !kiln_mem_fill_pattern_size_ok(pattern_size)");
  if (offset % pattern_size || size % pattern_size)
    return KILN_FAIL(CL_INVALID_VALUE, "rejected since (%s)", "offset % pattern_size || size % pattern_size");
  if ((err = kiln_command_sink_check(sink, CL_COMMAND_FILL_BUFFER)) != CL_SUCCESS) return err;
  if ((err = kiln_mem_check_alignment(buffer)) != CL_SUCCESS) return err;
  struct fill p = {.dst = buffer->storage + offset, .size = size, .pattern_size = pattern_size};
  memcpy(p.pattern, pattern, pattern_size);
  return kiln_mem_submit(sink, CL_COMMAND_FILL_BUFFER, run_fill, &p, sizeof p, buffer, NULL, CL_FALSE);
}

CL_API_ENTRY cl_int CL_API_CALL clEnqueueFillBuffer(cl_command_queue queue, cl_mem buffer, const void *pattern,
                                                    size_t pattern_size, size_t offset, size_t size,
                                                    cl_uint num_events, const cl_event *wait_list,
                                                    cl_event *event) {
  KILN_API_CALL;
  if (!kiln_queue_is_valid(queue)) return KILN_FAIL_HANDLE(CL_INVALID_COMMAND_QUEUE, queue, cl_command_queue);
  struct kiln_command_sink sink = kiln_command_sink_of_queue(queue, num_events, wait_list, event);
  return kiln_mem_fill(&sink, buffer, pattern, pattern_size, offset, size);
}
