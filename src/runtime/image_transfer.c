/* image_transfer.c: clEnqueueReadImage, clEnqueueWriteImage, clEnqueueCopyImage,
 * clEnqueueCopyImageToBuffer and clEnqueueCopyBufferToImage. Each is validated in the
 * spec's order and becomes one command that copies a region row by row between two
 * pitched memories (an image's storage, host memory, or a buffer holding the region
 * tightly); the copy happens when the command runs. The copy commands take a sink, so
 * command buffers record them (kiln_image_copy* in image.h). */
#include "runtime/image.h"
#include "runtime/debug_err.h"

#include "runtime/image_region.h"

/* One side of a copy: where the region starts and the steps of region[1] and region[2]. */
struct side {
  char *at;
  struct kiln_image_steps steps;
};

struct region_copy {
  char *dst;
  const char *src;
  struct kiln_image_steps dst_steps, src_steps;
  size_t span[3]; /* bytes of a row, rows, slices */
};

static cl_int run_region_copy(struct kiln_command *command) {
  const struct region_copy *p = kiln_command_payload(command);
  kiln_mem_copy_rows(p->dst, p->dst_steps.step1, p->dst_steps.step2, p->src, p->src_steps.step1, p->src_steps.step2,
                     p->span);
  return CL_SUCCESS;
}

/* The region at a checked `origin` of `image`. */
static struct side image_side(cl_mem image, const size_t *origin) {
  const struct kiln_image *im = image->image;
  size_t offset = kiln_image_region_offset(image->type, &im->layout, im->info.element_size, origin);
  return (struct side){image->storage + offset,
                       kiln_image_region_steps(image->type, im->layout.row_pitch, im->layout.slice_pitch)};
}

/* Memory holding a region of an image of `type` with these (resolved) pitches. */
static struct side pitched_side(char *at, cl_mem_object_type type, size_t row_pitch, size_t slice_pitch) {
  return (struct side){at, kiln_image_region_steps(type, row_pitch, slice_pitch)};
}

static struct region_copy region_copy_make(struct side dst, struct side src, size_t element_size,
                                           const size_t *region) {
  return (struct region_copy){dst.at, src.at, dst.steps, src.steps, {region[0] * element_size, region[1], region[2]}};
}

/* ---- host transfers ---- */

/* Read and write share everything but the direction and the host-access rule. */
static cl_int enqueue_host_image(cl_command_queue queue, cl_mem image, bool is_read, cl_bool blocking,
                                 const size_t *origin, const size_t *region, size_t row_pitch, size_t slice_pitch,
                                 void *ptr, cl_uint num_events, const cl_event *wait_list, cl_event *event) {
  if (!kiln_queue_is_valid(queue)) return KILN_FAIL_HANDLE(CL_INVALID_COMMAND_QUEUE, queue, cl_command_queue);
  cl_int err = kiln_mem_check_queue_image(queue, image);
  if (err == CL_SUCCESS) err = kiln_mem_check_host_transfer(image);
  if (err != CL_SUCCESS) return err;
  const struct kiln_image *im = image->image;
  if ((err = kiln_image_region_check(image->type, &im->layout, origin, region)) != CL_SUCCESS) return err;
  size_t host_row, host_slice;
  err = kiln_image_host_pitches(image->type, im->info.element_size, region, row_pitch, slice_pitch, &host_row,
                                &host_slice);
  if (err != CL_SUCCESS) return err;
  if (!ptr) return KILN_FAIL(CL_INVALID_VALUE, "rejected since (%s)", "!ptr");
  if (is_read ? !kiln_mem_host_can_read(image) : !kiln_mem_host_can_write(image))
    return KILN_FAIL(CL_INVALID_OPERATION, "rejected since (%s)",
                     "is_read ? !kiln_mem_host_can_read(image) : !kiln_mem_host_can_write(image)");
  cl_command_type type = is_read ? CL_COMMAND_READ_IMAGE : CL_COMMAND_WRITE_IMAGE;
  if ((err = kiln_command_check_enqueue(queue, type, num_events, wait_list, event)) != CL_SUCCESS) return err;
  struct side host = pitched_side(ptr, image->type, host_row, host_slice);
  struct side stored = image_side(image, origin);
  struct region_copy p = is_read ? region_copy_make(host, stored, im->info.element_size, region)
                                 : region_copy_make(stored, host, im->info.element_size, region);
  struct kiln_command_sink sink = kiln_command_sink_of_queue(queue, num_events, wait_list, event);
  return kiln_mem_submit(&sink, type, run_region_copy, &p, sizeof p, image, NULL, blocking);
}

CL_API_ENTRY cl_int CL_API_CALL clEnqueueReadImage(cl_command_queue queue, cl_mem image, cl_bool blocking,
                                                   const size_t *origin, const size_t *region, size_t row_pitch,
                                                   size_t slice_pitch, void *ptr, cl_uint num_events,
                                                   const cl_event *wait_list, cl_event *event) {
  KILN_API_CALL;
  return enqueue_host_image(queue, image, true, blocking, origin, region, row_pitch, slice_pitch, ptr, num_events,
                            wait_list, event);
}

CL_API_ENTRY cl_int CL_API_CALL clEnqueueWriteImage(cl_command_queue queue, cl_mem image, cl_bool blocking,
                                                    const size_t *origin, const size_t *region, size_t row_pitch,
                                                    size_t slice_pitch, const void *ptr, cl_uint num_events,
                                                    const cl_event *wait_list, cl_event *event) {
  KILN_API_CALL;
  return enqueue_host_image(queue, image, false, blocking, origin, region, row_pitch, slice_pitch, (void *)ptr,
                            num_events, wait_list, event);
}

/* ---- image to image ---- */

/* CL_INVALID_MEM_OBJECT unless `image` is an image and `other_ok` (the other object is of
 * its kind), then CL_INVALID_CONTEXT unless both are of the queue's context. */
static cl_int check_objects(cl_command_queue queue, cl_mem image, cl_mem other, bool other_ok) {
  if (!kiln_mem_is_image(image) || !other_ok)
    return KILN_FAIL(CL_INVALID_MEM_OBJECT, "rejected since (%s)", "!kiln_mem_is_image(image) || !other_ok");
  cl_context context = kiln_queue_context(queue);
  return image->context == context && other->context == context ? CL_SUCCESS : CL_INVALID_CONTEXT;
}

static bool same_format(const cl_image_format *a, const cl_image_format *b) {
  return a->image_channel_order == b->image_channel_order && a->image_channel_data_type == b->image_channel_data_type;
}

/* Whether two boxes of `region` at these origins share an element. */
static bool boxes_overlap(const size_t *a, const size_t *b, const size_t *region) {
  for (int d = 0; d < 3; d++)
    if (a[d] >= b[d] + region[d] || b[d] >= a[d] + region[d]) return false;
  return true;
}

cl_int kiln_image_copy(const struct kiln_command_sink *sink, cl_mem src, cl_mem dst, const size_t *src_origin,
                       const size_t *dst_origin, const size_t *region) {
  cl_int err = check_objects(sink->queue, src, dst, kiln_mem_is_image(dst));
  if (err == CL_SUCCESS) err = kiln_mem_check_host_transfer(src);
  if (err == CL_SUCCESS) err = kiln_mem_check_host_transfer(dst);
  if (err != CL_SUCCESS) return err;
  if (!same_format(&src->image->format, &dst->image->format))
    return KILN_FAIL(CL_IMAGE_FORMAT_MISMATCH, "rejected since (%s)",
                     "!same_format(&src->image->format, &dst->image->format)");
  if ((err = kiln_image_region_check(src->type, &src->image->layout, src_origin, region)) != CL_SUCCESS ||
      (err = kiln_image_region_check(dst->type, &dst->image->layout, dst_origin, region)) != CL_SUCCESS)
    return err;
  if ((err = kiln_command_sink_check(sink, CL_COMMAND_COPY_IMAGE)) != CL_SUCCESS) return err;
  if (src == dst && boxes_overlap(src_origin, dst_origin, region))
    return KILN_FAIL(CL_MEM_COPY_OVERLAP, "rejected since (%s)",
                     "src == dst && boxes_overlap(src_origin, dst_origin, region)");
  struct region_copy p =
      region_copy_make(image_side(dst, dst_origin), image_side(src, src_origin), src->image->info.element_size, region);
  return kiln_mem_submit(sink, CL_COMMAND_COPY_IMAGE, run_region_copy, &p, sizeof p, src, dst, CL_FALSE);
}

CL_API_ENTRY cl_int CL_API_CALL clEnqueueCopyImage(cl_command_queue queue, cl_mem src, cl_mem dst,
                                                   const size_t *src_origin, const size_t *dst_origin,
                                                   const size_t *region, cl_uint num_events, const cl_event *wait_list,
                                                   cl_event *event) {
  KILN_API_CALL;
  if (!kiln_queue_is_valid(queue)) return KILN_FAIL_HANDLE(CL_INVALID_COMMAND_QUEUE, queue, cl_command_queue);
  struct kiln_command_sink sink = kiln_command_sink_of_queue(queue, num_events, wait_list, event);
  return kiln_image_copy(&sink, src, dst, src_origin, dst_origin, region);
}

/* ---- between images and buffers ---- */

/* The checks both directions share, up to the wait list: CL_INVALID_MEM_OBJECT for a 1D
 * image buffer made from the buffer itself; the region, and the buffer's bytes of it
 * (held tightly, as the spec's src_cb / dst_cb) inside the buffer. */
static cl_int check_image_buffer(const struct kiln_command_sink *sink, cl_mem image, cl_mem buffer,
                                 const size_t *origin, const size_t *region, size_t buffer_offset,
                                 struct side *buffer_side) {
  cl_int err = check_objects(sink->queue, image, buffer, kiln_mem_is_buffer(buffer));
  if (err != CL_SUCCESS) return err;
  if (image->type == CL_MEM_OBJECT_IMAGE1D_BUFFER && image->image->desc.mem_object == buffer)
    return KILN_FAIL(CL_INVALID_MEM_OBJECT, "rejected since (%s)",
                     "image->type == CL_MEM_OBJECT_IMAGE1D_BUFFER && image->image->desc.mem_object == buffer");
  if ((err = kiln_mem_check_host_transfer(image)) != CL_SUCCESS) return err;
  if ((err = kiln_mem_check_host_transfer(buffer)) != CL_SUCCESS) return err;
  const struct kiln_image *im = image->image;
  if ((err = kiln_image_region_check(image->type, &im->layout, origin, region)) != CL_SUCCESS) return err;
  /* Within the image's extent, so no product overflows. */
  size_t bytes = region[0] * region[1] * region[2] * im->info.element_size;
  if (!kiln_mem_range_ok(buffer, buffer_offset, bytes))
    return KILN_FAIL(CL_INVALID_VALUE, "rejected since (%s)", "!kiln_mem_range_ok(buffer, buffer_offset, bytes)");
  size_t row, slice;
  kiln_image_host_pitches(image->type, im->info.element_size, region, 0, 0, &row, &slice);
  *buffer_side = pitched_side(buffer->storage + buffer_offset, image->type, row, slice);
  return CL_SUCCESS;
}

cl_int kiln_image_copy_to_buffer(const struct kiln_command_sink *sink, cl_mem src_image, cl_mem dst_buffer,
                                 const size_t *src_origin, const size_t *region, size_t dst_offset) {
  struct side dst;
  cl_int err = check_image_buffer(sink, src_image, dst_buffer, src_origin, region, dst_offset, &dst);
  if (err != CL_SUCCESS) return err;
  if ((err = kiln_command_sink_check(sink, CL_COMMAND_COPY_IMAGE_TO_BUFFER)) != CL_SUCCESS) return err;
  if ((err = kiln_mem_check_alignment(dst_buffer)) != CL_SUCCESS) return err;
  struct region_copy p =
      region_copy_make(dst, image_side(src_image, src_origin), src_image->image->info.element_size, region);
  return kiln_mem_submit(sink, CL_COMMAND_COPY_IMAGE_TO_BUFFER, run_region_copy, &p, sizeof p, src_image, dst_buffer,
                         CL_FALSE);
}

cl_int kiln_image_copy_from_buffer(const struct kiln_command_sink *sink, cl_mem src_buffer, cl_mem dst_image,
                                   size_t src_offset, const size_t *dst_origin, const size_t *region) {
  struct side src;
  cl_int err = check_image_buffer(sink, dst_image, src_buffer, dst_origin, region, src_offset, &src);
  if (err != CL_SUCCESS) return err;
  if ((err = kiln_command_sink_check(sink, CL_COMMAND_COPY_BUFFER_TO_IMAGE)) != CL_SUCCESS) return err;
  if ((err = kiln_mem_check_alignment(src_buffer)) != CL_SUCCESS) return err;
  struct region_copy p =
      region_copy_make(image_side(dst_image, dst_origin), src, dst_image->image->info.element_size, region);
  return kiln_mem_submit(sink, CL_COMMAND_COPY_BUFFER_TO_IMAGE, run_region_copy, &p, sizeof p, src_buffer, dst_image,
                         CL_FALSE);
}

CL_API_ENTRY cl_int CL_API_CALL clEnqueueCopyImageToBuffer(cl_command_queue queue, cl_mem src, cl_mem dst,
                                                           const size_t *src_origin, const size_t *region,
                                                           size_t dst_offset, cl_uint num_events,
                                                           const cl_event *wait_list, cl_event *event) {
  KILN_API_CALL;
  if (!kiln_queue_is_valid(queue)) return KILN_FAIL_HANDLE(CL_INVALID_COMMAND_QUEUE, queue, cl_command_queue);
  struct kiln_command_sink sink = kiln_command_sink_of_queue(queue, num_events, wait_list, event);
  return kiln_image_copy_to_buffer(&sink, src, dst, src_origin, region, dst_offset);
}

CL_API_ENTRY cl_int CL_API_CALL clEnqueueCopyBufferToImage(cl_command_queue queue, cl_mem src, cl_mem dst,
                                                           size_t src_offset, const size_t *dst_origin,
                                                           const size_t *region, cl_uint num_events,
                                                           const cl_event *wait_list, cl_event *event) {
  KILN_API_CALL;
  if (!kiln_queue_is_valid(queue)) return KILN_FAIL_HANDLE(CL_INVALID_COMMAND_QUEUE, queue, cl_command_queue);
  struct kiln_command_sink sink = kiln_command_sink_of_queue(queue, num_events, wait_list, event);
  return kiln_image_copy_from_buffer(&sink, src, dst, src_offset, dst_origin, region);
}
