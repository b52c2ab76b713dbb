/* mem_transfer.c: clEnqueueRead/Write/CopyBuffer and their Rect forms. Each is
 * validated in the spec's order, then becomes one command whose payload holds the
 * resolved host addresses; the copy itself happens when the command runs (a
 * non-blocking write reads the application's memory at that time). */
#include "runtime/mem_object.h"
#include "runtime/debug_err.h"

#include <string.h>

cl_int kiln_mem_submit(const struct kiln_command_sink *sink, cl_command_type type, kiln_command_run_fn run,
                       const void *payload, size_t payload_size, cl_mem a, cl_mem b, cl_bool blocking) {
  cl_int err;
  struct kiln_command *command = kiln_command_sink_create(sink, type, run, &err);
  if (!command) return err;
  if (payload_size) memcpy(kiln_command_payload(command), payload, payload_size);
  if (a) kiln_command_hold(command, &a->obj);
  if (b && b != a) kiln_command_hold(command, &b->obj);
  return kiln_command_sink_take(sink, command, blocking);
}

/* ---- linear transfers ---- */

cl_int kiln_mem_run_linear_copy(struct kiln_command *command) {
  const struct kiln_mem_linear_copy *p = kiln_command_payload(command);
  memmove(p->dst, p->src, p->size); /* memmove: a USE_HOST_PTR buffer may alias the host side */
  return CL_SUCCESS;
}

/* The checks read and write share, up to the host-access rule. */
static cl_int check_host_transfer(cl_command_queue queue, cl_mem buffer, size_t offset, size_t size,
                                  const void *ptr) {
  if (!kiln_queue_is_valid(queue)) return KILN_FAIL_HANDLE(CL_INVALID_COMMAND_QUEUE, queue, cl_command_queue);
  cl_int err = kiln_mem_check_queue_buffer(queue, buffer);
  if (err != CL_SUCCESS) return err;
  if (!kiln_mem_range_ok(buffer, offset, size))
    return KILN_FAIL(CL_INVALID_VALUE, "offset %zu + size %zu is past the end of the buffer (%zu bytes)", offset, size,
                     buffer->size);
  if (!ptr) return KILN_FAIL(CL_INVALID_VALUE, "ptr is NULL");
  return kiln_mem_check_host_transfer(buffer);
}

CL_API_ENTRY cl_int CL_API_CALL clEnqueueReadBuffer(cl_command_queue queue, cl_mem buffer, cl_bool blocking_read,
                                                    size_t offset, size_t size, void *ptr, cl_uint num_events,
                                                    const cl_event *wait_list, cl_event *event) {
  KILN_API_CALL;
  cl_int err = check_host_transfer(queue, buffer, offset, size, ptr);
  if (err != CL_SUCCESS) return err;
  if (!kiln_mem_host_can_read(buffer))
    return KILN_FAIL(CL_INVALID_OPERATION,
                     "the buffer was created with CL_MEM_HOST_WRITE_ONLY or CL_MEM_HOST_NO_ACCESS");
  if ((err = kiln_command_check_enqueue(queue, CL_COMMAND_READ_BUFFER, num_events, wait_list, event)) != CL_SUCCESS)
    return err;
  if ((err = kiln_mem_check_alignment(buffer)) != CL_SUCCESS) return err;
  struct kiln_mem_linear_copy p = {.dst = ptr, .src = buffer->storage + offset, .size = size};
  struct kiln_command_sink sink = kiln_command_sink_of_queue(queue, num_events, wait_list, event);
  return kiln_mem_submit(&sink, CL_COMMAND_READ_BUFFER, kiln_mem_run_linear_copy, &p, sizeof p, buffer, NULL, blocking_read);
}

CL_API_ENTRY cl_int CL_API_CALL clEnqueueWriteBuffer(cl_command_queue queue, cl_mem buffer, cl_bool blocking_write,
                                                     size_t offset, size_t size, const void *ptr, cl_uint num_events,
                                                     const cl_event *wait_list, cl_event *event) {
  KILN_API_CALL;
  cl_int err = check_host_transfer(queue, buffer, offset, size, ptr);
  if (err != CL_SUCCESS) return err;
  if (!kiln_mem_host_can_write(buffer))
    return KILN_FAIL(CL_INVALID_OPERATION,
                     "the buffer was created with CL_MEM_HOST_READ_ONLY or CL_MEM_HOST_NO_ACCESS");
  if ((err = kiln_command_check_enqueue(queue, CL_COMMAND_WRITE_BUFFER, num_events, wait_list, event)) != CL_SUCCESS)
    return err;
  if ((err = kiln_mem_check_alignment(buffer)) != CL_SUCCESS) return err;
  struct kiln_mem_linear_copy p = {.dst = buffer->storage + offset, .src = ptr, .size = size};
  struct kiln_command_sink sink = kiln_command_sink_of_queue(queue, num_events, wait_list, event);
  return kiln_mem_submit(&sink, CL_COMMAND_WRITE_BUFFER, kiln_mem_run_linear_copy, &p, sizeof p, buffer, NULL, blocking_write);
}

/* Two objects alias when they are the same or share a parent; offsets are then
 * compared in the parent's storage. */
static bool same_storage(cl_mem a, cl_mem b) { return kiln_mem_root(a) == kiln_mem_root(b); }

cl_int kiln_mem_copy(const struct kiln_command_sink *sink, cl_mem src, cl_mem dst, size_t src_offset,
                     size_t dst_offset, size_t size) {
  cl_int err = kiln_mem_check_queue_buffer(sink->queue, src);
  if (err == CL_SUCCESS) err = kiln_mem_check_queue_buffer(sink->queue, dst);
  if (err == CL_SUCCESS) err = kiln_mem_check_host_transfer(src);
  if (err == CL_SUCCESS) err = kiln_mem_check_host_transfer(dst);
  if (err != CL_SUCCESS) return err;
  if (!kiln_mem_range_ok(src, src_offset, size))
    return KILN_FAIL(CL_INVALID_VALUE, "src_offset %zu + size %zu is past the end of src_buffer (%zu bytes)",
                     src_offset, size, src->size);
  if (!kiln_mem_range_ok(dst, dst_offset, size))
    return KILN_FAIL(CL_INVALID_VALUE, "dst_offset %zu + size %zu is past the end of dst_buffer (%zu bytes)",
                     dst_offset, size, dst->size);
  if ((err = kiln_command_sink_check(sink, CL_COMMAND_COPY_BUFFER)) != CL_SUCCESS) return err;
  if ((err = kiln_mem_check_alignment(src)) != CL_SUCCESS) return err;
  if ((err = kiln_mem_check_alignment(dst)) != CL_SUCCESS) return err;
  if (same_storage(src, dst)) {
    size_t a = src->offset + src_offset, b = dst->offset + dst_offset;
    if ((a <= b ? b - a : a - b) < size)
      return KILN_FAIL(CL_MEM_COPY_OVERLAP, "the source and destination ranges (%zu bytes each) overlap", size);
  }
  struct kiln_mem_linear_copy p = {.dst = dst->storage + dst_offset, .src = src->storage + src_offset, .size = size};
  return kiln_mem_submit(sink, CL_COMMAND_COPY_BUFFER, kiln_mem_run_linear_copy, &p, sizeof p, src, dst, CL_FALSE);
}

CL_API_ENTRY cl_int CL_API_CALL clEnqueueCopyBuffer(cl_command_queue queue, cl_mem src, cl_mem dst,
                                                    size_t src_offset, size_t dst_offset, size_t size,
                                                    cl_uint num_events, const cl_event *wait_list,
                                                    cl_event *event) {
  KILN_API_CALL;
  if (!kiln_queue_is_valid(queue)) return KILN_FAIL_HANDLE(CL_INVALID_COMMAND_QUEUE, queue, cl_command_queue);
  struct kiln_command_sink sink = kiln_command_sink_of_queue(queue, num_events, wait_list, event);
  return kiln_mem_copy(&sink, src, dst, src_offset, dst_offset, size);
}

/* ---- rectangular transfers ---- */

/* One side of a rectangular transfer: pitches resolved (0 → computed) and the offset
 * of its first byte. */
struct rect_side {
  size_t row_pitch, slice_pitch, offset;
};

/* Applies the pitch rules and computes the side's offset and the bytes it spans
 * (*extent, from its first byte). CL_INVALID_VALUE on a bad pitch or overflow. */
static cl_int rect_side_init(struct rect_side *side, const size_t origin[3], const size_t region[3],
                             size_t row_pitch, size_t slice_pitch, size_t *extent) {
  if (row_pitch == 0) row_pitch = region[0];
  else if (row_pitch < region[0])
    return KILN_FAIL(CL_INVALID_VALUE, "rejected since (%s)", "row_pitch < region[0]");
  size_t min_slice;
  if (__builtin_mul_overflow(region[1], row_pitch, &min_slice))
    return KILN_FAIL(CL_INVALID_VALUE, "rejected since (%s)",
                     "__builtin_mul_overflow(region[1], row_pitch, &min_slice)");
  if (slice_pitch == 0) slice_pitch = min_slice;
  else if (slice_pitch < min_slice || slice_pitch % row_pitch != 0)
    return KILN_FAIL(CL_INVALID_VALUE, "rejected since (%s)",
                     "slice_pitch < min_slice || slice_pitch % row_pitch != 0");
  size_t z, y, ez, ey;
  if (__builtin_mul_overflow(origin[2], slice_pitch, &z) || __builtin_mul_overflow(origin[1], row_pitch, &y) ||
      __builtin_add_overflow(z, y, &side->offset) || __builtin_add_overflow(side->offset, origin[0], &side->offset))
    return CL_INVALID_VALUE;
  if (__builtin_mul_overflow(region[2] - 1, slice_pitch, &ez) || __builtin_mul_overflow(region[1] - 1, row_pitch, &ey) ||
      __builtin_add_overflow(ez, ey, extent) || __builtin_add_overflow(*extent, region[0], extent))
    return CL_INVALID_VALUE;
  side->row_pitch = row_pitch;
  side->slice_pitch = slice_pitch;
  return CL_SUCCESS;
}

/* A buffer side must also lie inside the buffer. */
static cl_int rect_buffer_side_init(struct rect_side *side, cl_mem buffer, const size_t origin[3],
                                    const size_t region[3], size_t row_pitch, size_t slice_pitch) {
  size_t extent;
  cl_int err = rect_side_init(side, origin, region, row_pitch, slice_pitch, &extent);
  if (err != CL_SUCCESS) return err;
  return side->offset <= buffer->size && extent <= buffer->size - side->offset ? CL_SUCCESS : CL_INVALID_VALUE;
}

static bool region_ok(const size_t *region) { return region[0] && region[1] && region[2]; }

struct rect_copy {
  char *dst;
  const char *src;
  size_t region[3];
  size_t dst_row_pitch, dst_slice_pitch, src_row_pitch, src_slice_pitch;
};

void kiln_mem_copy_rows(char *dst, size_t dst_row_pitch, size_t dst_slice_pitch, const char *src, size_t src_row_pitch,
                        size_t src_slice_pitch, const size_t region[3]) {
  for (size_t z = 0; z < region[2]; z++)
    for (size_t y = 0; y < region[1]; y++)
      memmove(dst + z * dst_slice_pitch + y * dst_row_pitch, src + z * src_slice_pitch + y * src_row_pitch,
              region[0]);
}

static cl_int run_rect_copy(struct kiln_command *command) {
  const struct rect_copy *p = kiln_command_payload(command);
  kiln_mem_copy_rows(p->dst, p->dst_row_pitch, p->dst_slice_pitch, p->src, p->src_row_pitch, p->src_slice_pitch,
                     p->region);
  return CL_SUCCESS;
}

static struct rect_copy rect_copy_make(char *dst, const struct rect_side *d, const char *src,
                                       const struct rect_side *s, const size_t region[3]) {
  struct rect_copy p = {
      .dst = dst + d->offset,
      .src = src + s->offset,
      .region = {region[0], region[1], region[2]},
      .dst_row_pitch = d->row_pitch,
      .dst_slice_pitch = d->slice_pitch,
      .src_row_pitch = s->row_pitch,
      .src_slice_pitch = s->slice_pitch,
  };
  return p;
}

/* Read and write rect share everything but the direction and the host-access rule. */
static cl_int enqueue_host_rect(cl_command_queue queue, cl_mem buffer, bool is_read, cl_bool blocking,
                                const size_t *buffer_origin, const size_t *host_origin, const size_t *region,
                                size_t buffer_row_pitch, size_t buffer_slice_pitch, size_t host_row_pitch,
                                size_t host_slice_pitch, void *ptr, cl_uint num_events, const cl_event *wait_list,
                                cl_event *event) {
  if (!kiln_queue_is_valid(queue)) return KILN_FAIL_HANDLE(CL_INVALID_COMMAND_QUEUE, queue, cl_command_queue);
  cl_int err = kiln_mem_check_queue_buffer(queue, buffer);
  if (err == CL_SUCCESS) err = kiln_mem_check_host_transfer(buffer);
  if (err != CL_SUCCESS) return err;
  if (!buffer_origin || !host_origin || !region || !region_ok(region))
    return KILN_FAIL(CL_INVALID_VALUE, "rejected since (%s)",
                     "!buffer_origin || !host_origin || !region || !region_ok(region)");
  struct rect_side b, h;
  size_t host_extent;
  if ((err = rect_buffer_side_init(&b, buffer, buffer_origin, region, buffer_row_pitch, buffer_slice_pitch)) ||
      (err = rect_side_init(&h, host_origin, region, host_row_pitch, host_slice_pitch, &host_extent)))
    return err;
  if (!ptr) return KILN_FAIL(CL_INVALID_VALUE, "rejected since (%s)", "!ptr");
  if (is_read ? !kiln_mem_host_can_read(buffer) : !kiln_mem_host_can_write(buffer))
    return KILN_FAIL(CL_INVALID_OPERATION, "rejected since (%s)",
                     "is_read ? !kiln_mem_host_can_read(buffer) : !kiln_mem_host_can_write(buffer)");
  cl_command_type type = is_read ? CL_COMMAND_READ_BUFFER_RECT : CL_COMMAND_WRITE_BUFFER_RECT;
  if ((err = kiln_command_check_enqueue(queue, type, num_events, wait_list, event)) != CL_SUCCESS) return err;
  if ((err = kiln_mem_check_alignment(buffer)) != CL_SUCCESS) return err;
  struct rect_copy p = is_read ? rect_copy_make(ptr, &h, buffer->storage, &b, region)
                               : rect_copy_make(buffer->storage, &b, ptr, &h, region);
  struct kiln_command_sink sink = kiln_command_sink_of_queue(queue, num_events, wait_list, event);
  return kiln_mem_submit(&sink, is_read ? CL_COMMAND_READ_BUFFER_RECT : CL_COMMAND_WRITE_BUFFER_RECT, run_rect_copy,
                         &p, sizeof p, buffer, NULL, blocking);
}

CL_API_ENTRY cl_int CL_API_CALL clEnqueueReadBufferRect(cl_command_queue queue, cl_mem buffer, cl_bool blocking_read,
                                                        const size_t *buffer_origin, const size_t *host_origin,
                                                        const size_t *region, size_t buffer_row_pitch,
                                                        size_t buffer_slice_pitch, size_t host_row_pitch,
                                                        size_t host_slice_pitch, void *ptr, cl_uint num_events,
                                                        const cl_event *wait_list, cl_event *event) {
  KILN_API_CALL;
  return enqueue_host_rect(queue, buffer, true, blocking_read, buffer_origin, host_origin, region, buffer_row_pitch,
                           buffer_slice_pitch, host_row_pitch, host_slice_pitch, ptr, num_events, wait_list, event);
}

CL_API_ENTRY cl_int CL_API_CALL clEnqueueWriteBufferRect(cl_command_queue queue, cl_mem buffer,
                                                         cl_bool blocking_write, const size_t *buffer_origin,
                                                         const size_t *host_origin, const size_t *region,
                                                         size_t buffer_row_pitch, size_t buffer_slice_pitch,
                                                         size_t host_row_pitch, size_t host_slice_pitch,
                                                         const void *ptr, cl_uint num_events,
                                                         const cl_event *wait_list, cl_event *event) {
  KILN_API_CALL;
  return enqueue_host_rect(queue, buffer, false, blocking_write, buffer_origin, host_origin, region,
                           buffer_row_pitch, buffer_slice_pitch, host_row_pitch, host_slice_pitch, (void *)ptr,
                           num_events, wait_list, event);
}

/* Rows of a rectangle in one storage: [base + y*row + z*slice, + width) for y < height,
 * z < depth. */
struct rect_rows {
  long long base, row, slice, height, depth;
};

static long long floor_div(long long a, long long b) {
  long long q = a / b;
  return (a % b != 0 && (a < 0) != (b < 0)) ? q - 1 : q;
}

/* Does [start, start + width) intersect a row of `rows` (rows are `width` wide)? For
 * each slice, the first row ending after `start` is the only candidate. */
static bool rows_hit(const struct rect_rows *rows, long long start, long long width) {
  for (long long z = 0; z < rows->depth; z++) {
    long long t = start - rows->base - z * rows->slice;
    long long y = floor_div(t - width, rows->row) + 1; /* first y with y*row > t - width */
    if (y < 0) y = 0;
    if (y < rows->height && y * rows->row < t + width) return true;
  }
  return false;
}

/* Whether two rectangles of `region` at absolute offsets in one storage share a byte. */
static bool rects_overlap(size_t src_at, const struct rect_side *s, size_t dst_at, const struct rect_side *d,
                          const size_t region[3]) {
  long long w = (long long)region[0], h = (long long)region[1], depth = (long long)region[2];
  if (s->row_pitch == d->row_pitch && s->slice_pitch == d->slice_pitch) {
    /* Same layout: rows (y,z) and (y',z') meet when the start difference plus
     * dy*row + dz*slice is within one row width, for |dy| < h and |dz| < depth. */
    long long row = (long long)s->row_pitch, slice = (long long)s->slice_pitch;
    struct rect_rows diffs = {-((h - 1) * row + (depth - 1) * slice), row, slice, 2 * h - 1, 2 * depth - 1};
    return rows_hit(&diffs, (long long)src_at - (long long)dst_at, w);
  }
  struct rect_rows dst_rows = {(long long)dst_at, (long long)d->row_pitch, (long long)d->slice_pitch, h, depth};
  for (long long z = 0; z < depth; z++)
    for (long long y = 0; y < h; y++)
      if (rows_hit(&dst_rows, (long long)src_at + y * (long long)s->row_pitch + z * (long long)s->slice_pitch, w))
        return true;
  return false;
}

cl_int kiln_mem_copy_rect(const struct kiln_command_sink *sink, cl_mem src, cl_mem dst, const size_t *src_origin,
                          const size_t *dst_origin, const size_t *region, size_t src_row_pitch, size_t src_slice_pitch,
                          size_t dst_row_pitch, size_t dst_slice_pitch) {
  cl_int err = kiln_mem_check_queue_buffer(sink->queue, src);
  if (err == CL_SUCCESS) err = kiln_mem_check_queue_buffer(sink->queue, dst);
  if (err == CL_SUCCESS) err = kiln_mem_check_host_transfer(src);
  if (err == CL_SUCCESS) err = kiln_mem_check_host_transfer(dst);
  if (err != CL_SUCCESS) return err;
  if (!src_origin || !dst_origin || !region || !region_ok(region))
    return KILN_FAIL(CL_INVALID_VALUE, "rejected since (%s)",
                     "!src_origin || !dst_origin || !region || !region_ok(region)");
  struct rect_side s, d;
  if ((err = rect_buffer_side_init(&s, src, src_origin, region, src_row_pitch, src_slice_pitch)) ||
      (err = rect_buffer_side_init(&d, dst, dst_origin, region, dst_row_pitch, dst_slice_pitch)))
    return err;
  if (src == dst && s.slice_pitch != d.slice_pitch && s.row_pitch != d.row_pitch)
    return KILN_FAIL(CL_INVALID_VALUE, "rejected since (%s)",
                     "src == dst && s.slice_pitch != d.slice_pitch && s.row_pitch != d.row_pitch");
  if ((err = kiln_command_sink_check(sink, CL_COMMAND_COPY_BUFFER_RECT)) != CL_SUCCESS) return err;
  if (same_storage(src, dst) && rects_overlap(src->offset + s.offset, &s, dst->offset + d.offset, &d, region))
    return KILN_FAIL(
        CL_MEM_COPY_OVERLAP, "rejected since (%s)",
        "same_storage(src, dst) && rects_overlap(src->offset + s.offset, &s, dst->offset + d.offset, &d, region)");
  if ((err = kiln_mem_check_alignment(src)) != CL_SUCCESS) return err;
  if ((err = kiln_mem_check_alignment(dst)) != CL_SUCCESS) return err;
  struct rect_copy p = rect_copy_make(dst->storage, &d, src->storage, &s, region);
  return kiln_mem_submit(sink, CL_COMMAND_COPY_BUFFER_RECT, run_rect_copy, &p, sizeof p, src, dst, CL_FALSE);
}

CL_API_ENTRY cl_int CL_API_CALL clEnqueueCopyBufferRect(cl_command_queue queue, cl_mem src, cl_mem dst,
                                                        const size_t *src_origin, const size_t *dst_origin,
                                                        const size_t *region, size_t src_row_pitch,
                                                        size_t src_slice_pitch, size_t dst_row_pitch,
                                                        size_t dst_slice_pitch, cl_uint num_events,
                                                        const cl_event *wait_list, cl_event *event) {
  KILN_API_CALL;
  if (!kiln_queue_is_valid(queue)) return KILN_FAIL_HANDLE(CL_INVALID_COMMAND_QUEUE, queue, cl_command_queue);
  struct kiln_command_sink sink = kiln_command_sink_of_queue(queue, num_events, wait_list, event);
  return kiln_mem_copy_rect(&sink, src, dst, src_origin, dst_origin, region, src_row_pitch, src_slice_pitch,
                            dst_row_pitch, dst_slice_pitch);
}
