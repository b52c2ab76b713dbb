/* image_region.c: see image_region.h. */
#include "runtime/image_region.h"
#include "runtime/debug_err.h"

/* How many origin/region coordinates the type uses: 1D and 1D buffer 1, 1D array and 2D
 * 2, 2D array and 3D 3. */
static unsigned used_coordinates(cl_mem_object_type type) {
  switch (type) {
  case CL_MEM_OBJECT_IMAGE1D:
  case CL_MEM_OBJECT_IMAGE1D_BUFFER:
    return 1;
  case CL_MEM_OBJECT_IMAGE1D_ARRAY:
  case CL_MEM_OBJECT_IMAGE2D:
    return 2;
  default:
    return 3;
  }
}

/* The image's extent in each coordinate of origin/region. */
static void extent_of(cl_mem_object_type type, const struct kiln_image_layout *layout, size_t extent[3]) {
  extent[0] = layout->width;
  extent[1] = type == CL_MEM_OBJECT_IMAGE1D_ARRAY ? layout->array_size : layout->height;
  extent[2] = type == CL_MEM_OBJECT_IMAGE2D_ARRAY ? layout->array_size : layout->depth;
}

cl_int kiln_image_region_check(cl_mem_object_type type, const struct kiln_image_layout *layout, const size_t *origin,
                               const size_t *region) {
  if (!origin || !region) return KILN_FAIL(CL_INVALID_VALUE, "rejected since (%s)", "!origin || !region");
  unsigned used = used_coordinates(type);
  size_t extent[3];
  extent_of(type, layout, extent);
  for (unsigned d = 0; d < 3; d++) {
    if (region[d] == 0) return KILN_FAIL(CL_INVALID_VALUE, "rejected since (%s)", "region[d] == 0");
    if (d >= used) {
      if (origin[d] != 0 || region[d] != 1)
        return KILN_FAIL(CL_INVALID_VALUE, "rejected since (%s)", "origin[d] != 0 || region[d] != 1");
      continue;
    }
    /* origin + region <= extent, without overflowing. */
    if (origin[d] > extent[d] || region[d] > extent[d] - origin[d])
      return KILN_FAIL(CL_INVALID_VALUE, "rejected since (%s)",
                       "origin[d] > extent[d] || region[d] > extent[d] - origin[d]");
  }
  return CL_SUCCESS;
}

struct kiln_image_span kiln_image_region_span(cl_mem_object_type type, size_t element_size, const size_t *region) {
  /* A 1D array's layers are slices of one row each. */
  if (type == CL_MEM_OBJECT_IMAGE1D_ARRAY) return (struct kiln_image_span){region[0] * element_size, 1, region[1]};
  return (struct kiln_image_span){region[0] * element_size, region[1], region[2]};
}

size_t kiln_image_region_offset(cl_mem_object_type type, const struct kiln_image_layout *layout, size_t element_size,
                                const size_t *origin) {
  size_t offset = origin[0] * element_size;
  if (type == CL_MEM_OBJECT_IMAGE1D_ARRAY) return offset + origin[1] * layout->slice_pitch;
  return offset + origin[1] * layout->row_pitch + origin[2] * layout->slice_pitch;
}

struct kiln_image_steps kiln_image_region_steps(cl_mem_object_type type, size_t row_pitch, size_t slice_pitch) {
  if (type == CL_MEM_OBJECT_IMAGE1D_ARRAY) return (struct kiln_image_steps){slice_pitch, slice_pitch};
  return (struct kiln_image_steps){row_pitch, slice_pitch};
}

cl_int kiln_image_host_pitches(cl_mem_object_type type, size_t element_size, const size_t *region, size_t row_pitch,
                               size_t slice_pitch, size_t *row_out, size_t *slice_out) {
  struct kiln_image_span span = kiln_image_region_span(type, element_size, region);
  if (row_pitch == 0) row_pitch = span.row_bytes;
  if (row_pitch < span.row_bytes)
    return KILN_FAIL(CL_INVALID_VALUE, "rejected since (%s)", "row_pitch < span.row_bytes");
  bool sliced =
      type == CL_MEM_OBJECT_IMAGE1D_ARRAY || type == CL_MEM_OBJECT_IMAGE2D_ARRAY || type == CL_MEM_OBJECT_IMAGE3D;
  if (!sliced && slice_pitch != 0)
    return KILN_FAIL(CL_INVALID_VALUE, "rejected since (%s)", "!sliced && slice_pitch != 0");
  size_t tight_slice = row_pitch * span.rows;
  if (slice_pitch == 0) slice_pitch = tight_slice;
  if (slice_pitch < tight_slice) return KILN_FAIL(CL_INVALID_VALUE, "rejected since (%s)", "slice_pitch < tight_slice");
  *row_out = row_pitch;
  *slice_out = slice_pitch;
  return CL_SUCCESS;
}
