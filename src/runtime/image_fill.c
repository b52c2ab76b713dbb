/* image_fill.c: clEnqueueFillImage. The fill color is converted to one element of the
 * image's format at enqueue time (image_texel.h: the spec's conversion rules), which the
 * command then repeats over the region. kiln_image_fill takes a sink, so command buffers
 * record it too. */
#include "runtime/image.h"
#include "runtime/debug_err.h"

#include "runtime/image_region.h"
#include "runtime/image_texel.h"

#include <string.h>

struct fill {
  char *dst;
  struct kiln_image_steps steps;
  size_t span[3]; /* bytes of a row, rows, slices */
  size_t element_size;
  unsigned char element[16]; /* the largest element: four 32-bit channels */
};

static cl_int run_fill(struct kiln_command *command) {
  const struct fill *p = kiln_command_payload(command);
  /* One row of elements (doubling the filled prefix), then every other row from it. */
  memcpy(p->dst, p->element, p->element_size);
  for (size_t done = p->element_size; done < p->span[0];) {
    size_t n = done <= p->span[0] - done ? done : p->span[0] - done;
    memcpy(p->dst + done, p->dst, n);
    done += n;
  }
  for (size_t z = 0; z < p->span[2]; z++)
    for (size_t y = 0; y < p->span[1]; y++)
      if (y || z) memcpy(p->dst + z * p->steps.step2 + y * p->steps.step1, p->dst, p->span[0]);
  return CL_SUCCESS;
}

/* The color as the spec reads fill_color: one float for CL_DEPTH, else four floats, ints
 * or unsigned ints by the format's kind (the same union bytes for the three). */
static union kiln_texel read_color(const struct kiln_image *image, const void *fill_color) {
  union kiln_texel color = {{0}};
  size_t bytes = image->format.image_channel_order == CL_DEPTH ? sizeof(float) : sizeof color;
  memcpy(&color, fill_color, bytes);
  return color;
}

cl_int kiln_image_fill(const struct kiln_command_sink *sink, cl_mem image, const void *fill_color, const size_t *origin,
                       const size_t *region) {
  cl_int err = kiln_mem_check_queue_image(sink->queue, image);
  if (err == CL_SUCCESS) err = kiln_mem_check_host_transfer(image);
  if (err != CL_SUCCESS) return err;
  if (!fill_color) return KILN_FAIL(CL_INVALID_VALUE, "rejected since (%s)", "!fill_color");
  const struct kiln_image *im = image->image;
  if ((err = kiln_image_region_check(image->type, &im->layout, origin, region)) != CL_SUCCESS) return err;
  if ((err = kiln_command_sink_check(sink, CL_COMMAND_FILL_IMAGE)) != CL_SUCCESS) return err;
  size_t offset = kiln_image_region_offset(image->type, &im->layout, im->info.element_size, origin);
  struct fill p = {
      .dst = image->storage + offset,
      .steps = kiln_image_region_steps(image->type, im->layout.row_pitch, im->layout.slice_pitch),
      .span = {region[0] * im->info.element_size, region[1], region[2]},
      .element_size = im->info.element_size,
  };
  union kiln_texel color = read_color(im, fill_color);
  kiln_texel_pack(&im->format, &color, p.element);
  return kiln_mem_submit(sink, CL_COMMAND_FILL_IMAGE, run_fill, &p, sizeof p, image, NULL, CL_FALSE);
}

CL_API_ENTRY cl_int CL_API_CALL clEnqueueFillImage(cl_command_queue queue, cl_mem image, const void *fill_color,
                                                   const size_t *origin, const size_t *region, cl_uint num_events,
                                                   const cl_event *wait_list, cl_event *event) {
  KILN_API_CALL;
  if (!kiln_queue_is_valid(queue)) return KILN_FAIL_HANDLE(CL_INVALID_COMMAND_QUEUE, queue, cl_command_queue);
  struct kiln_command_sink sink = kiln_command_sink_of_queue(queue, num_events, wait_list, event);
  return kiln_image_fill(&sink, image, fill_color, origin, region);
}
