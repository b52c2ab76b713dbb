/* image_map.c: clEnqueueMapImage. Zero copy, like a buffer map (mem_map.c): the pointer is
 * the region's first element in the image's storage, with the image's own pitches;
 * clEnqueueUnmapMemObject (mem_map.c) unmaps it. Write mappings of one image may not
 * share an element (the mapped boxes are compared). */
#include "runtime/image.h"
#include "runtime/debug_err.h"

#include "runtime/image_region.h"

#include <stdlib.h>

static bool has_slices(cl_mem_object_type type) {
  return type == CL_MEM_OBJECT_IMAGE1D_ARRAY || type == CL_MEM_OBJECT_IMAGE2D_ARRAY || type == CL_MEM_OBJECT_IMAGE3D;
}

static cl_int check_map(cl_command_queue queue, cl_mem image, cl_map_flags map_flags, const size_t *origin,
                        const size_t *region, size_t *row_pitch, size_t *slice_pitch) {
  if (!kiln_queue_is_valid(queue)) return KILN_FAIL_HANDLE(CL_INVALID_COMMAND_QUEUE, queue, cl_command_queue);
  cl_int err = kiln_mem_check_queue_image(queue, image);
  if (err == CL_SUCCESS) err = kiln_mem_check_host_transfer(image);
  if (err != CL_SUCCESS) return err;
  if ((err = kiln_image_region_check(image->type, &image->image->layout, origin, region)) != CL_SUCCESS) return err;
  if (!kiln_mem_map_flags_ok(map_flags) || !row_pitch)
    return KILN_FAIL(CL_INVALID_VALUE, "rejected since (%s)", "!kiln_mem_map_flags_ok(map_flags) || !row_pitch");
  if (has_slices(image->type) && !slice_pitch)
    return KILN_FAIL(CL_INVALID_VALUE, "rejected since (%s)", "has_slices(image->type) && !slice_pitch");
  return kiln_mem_map_access_ok(image, map_flags) ? CL_SUCCESS : CL_INVALID_OPERATION;
}

static void *map_image(cl_command_queue queue, cl_mem image, cl_bool blocking, cl_map_flags map_flags,
                       const size_t *origin, const size_t *region, size_t *row_pitch, size_t *slice_pitch,
                       cl_uint num_events, const cl_event *wait_list, cl_event *event, cl_int *err) {
  if ((*err = check_map(queue, image, map_flags, origin, region, row_pitch, slice_pitch)) != CL_SUCCESS) return NULL;
  if ((*err = kiln_command_check_enqueue(queue, CL_COMMAND_MAP_IMAGE, num_events, wait_list, event)) != CL_SUCCESS)
    return NULL;
  const struct kiln_image *im = image->image;
  struct kiln_mem_mapping *mapping = malloc(sizeof *mapping);
  if (!mapping) {
    *err = KILN_FAIL(CL_OUT_OF_HOST_MEMORY, "rejected since (%s)", "!mapping");
    return NULL;
  }
  size_t offset = kiln_image_region_offset(image->type, &im->layout, im->info.element_size, origin);
  *mapping = (struct kiln_mem_mapping){
      .ptr = image->storage + offset,
      .origin = {origin[0], origin[1], origin[2]},
      .region = {region[0], region[1], region[2]},
      .flags = map_flags,
  };
  void *ptr = mapping->ptr;
  *err = kiln_mem_map_submit(queue, image, CL_COMMAND_MAP_IMAGE, mapping, blocking, num_events, wait_list, event);
  if (*err != CL_SUCCESS) return NULL;
  *row_pitch = im->layout.row_pitch;
  /* "For a 1D and 2D image, zero is returned if this argument is not NULL." */
  if (slice_pitch) *slice_pitch = has_slices(image->type) ? im->layout.slice_pitch : 0;
  return ptr;
}

CL_API_ENTRY void *CL_API_CALL clEnqueueMapImage(cl_command_queue queue, cl_mem image, cl_bool blocking,
                                                 cl_map_flags map_flags, const size_t *origin, const size_t *region,
                                                 size_t *row_pitch, size_t *slice_pitch, cl_uint num_events,
                                                 const cl_event *wait_list, cl_event *event, cl_int *errcode_ret) {
  KILN_API_CALL;
  cl_int err;
  void *ptr = map_image(queue, image, blocking, map_flags, origin, region, row_pitch, slice_pitch, num_events,
                        wait_list, event, &err);
  if (errcode_ret) *errcode_ret = err;
  return ptr;
}
