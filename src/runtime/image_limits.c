/* image_limits.c: the device's image limits, one table for clGetDeviceInfo and image
 * creation. The spec's minimums for a device with images, except the 1D buffer width:
 * the pixels of the largest element (16 bytes) the largest buffer holds, within the
 * int32 width a kernel's image view carries (kernel_abi.h). */
#include "runtime/image.h"

#include "runtime/device.h"

#include <pthread.h>
#include <stdint.h>

static struct kiln_image_limits limits;
static pthread_once_t limits_once = PTHREAD_ONCE_INIT;

static void limits_init(void) {
  cl_ulong buffer_pixels = kiln_device_get()->max_mem_alloc_size / 16;
  limits = (struct kiln_image_limits){
      .image2d_max_width = 16384,
      .image2d_max_height = 16384,
      .image3d_max_width = 2048,
      .image3d_max_height = 2048,
      .image3d_max_depth = 2048,
      .image_max_array_size = 2048,
      .image_max_buffer_size = buffer_pixels < INT32_MAX ? (size_t)buffer_pixels : INT32_MAX,
      /* Any element-aligned address and pitch suits the CPU: elements are read per channel. */
      .pitch_alignment = 1,
      .base_address_alignment = 1,
  };
}

const struct kiln_image_limits *kiln_image_device_limits(void) {
  pthread_once(&limits_once, limits_init);
  return &limits;
}
