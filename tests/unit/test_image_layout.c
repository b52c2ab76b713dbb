/* Image descriptors (runtime/image_layout.h) against the API spec's "Image Descriptor"
 * rules: every type's dimensions and limits, default and given pitches, what a host
 * pointer or a buffer allows, mip levels and samples, the pitch alignment over a buffer
 * and size overflow. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "runtime/image_layout.h"

static const struct kiln_image_limits limits = {
    .image2d_max_width = 16384,
    .image2d_max_height = 16384,
    .image3d_max_width = 2048,
    .image3d_max_height = 2048,
    .image3d_max_depth = 2048,
    .image_max_array_size = 2048,
    .image_max_buffer_size = 65536,
    .pitch_alignment = 16,
};

static cl_image_desc desc_of(cl_mem_object_type type, size_t w, size_t h, size_t d, size_t array) {
  cl_image_desc desc = {0};
  desc.image_type = type;
  desc.image_width = w;
  desc.image_height = h;
  desc.image_depth = d;
  desc.image_array_size = array;
  return desc;
}

static cl_int make(cl_image_desc desc, size_t element, enum kiln_image_storage storage,
                   struct kiln_image_layout *layout) {
  return kiln_image_layout_make(&desc, element, storage, &limits, layout);
}

static void test_tight_layouts_of_every_type(void **state) {
  (void)state;
  struct kiln_image_layout l;
  assert_int_equal(CL_SUCCESS, make(desc_of(CL_MEM_OBJECT_IMAGE1D, 100, 7, 7, 7), 4, KILN_IMAGE_OWN, &l));
  assert_true(l.width == 100 && l.height == 1 && l.depth == 1 && l.array_size == 1); /* unused ones ignored */
  assert_true(l.row_pitch == 400 && l.size == 400);
  assert_int_equal(CL_SUCCESS,
                   make(desc_of(CL_MEM_OBJECT_IMAGE1D_BUFFER, 100, 0, 0, 0), 4, KILN_IMAGE_OVER_BUFFER, &l));
  assert_int_equal(400, l.size);
  assert_int_equal(CL_SUCCESS, make(desc_of(CL_MEM_OBJECT_IMAGE1D_ARRAY, 10, 0, 0, 3), 2, KILN_IMAGE_OWN, &l));
  assert_true(l.row_pitch == 20 && l.slice_pitch == 20 && l.size == 60);
  assert_int_equal(CL_SUCCESS, make(desc_of(CL_MEM_OBJECT_IMAGE2D, 10, 5, 0, 0), 16, KILN_IMAGE_OWN, &l));
  assert_true(l.row_pitch == 160 && l.size == 800);
  assert_int_equal(CL_SUCCESS, make(desc_of(CL_MEM_OBJECT_IMAGE2D_ARRAY, 10, 5, 0, 4), 1, KILN_IMAGE_OWN, &l));
  assert_true(l.slice_pitch == 50 && l.size == 200 && l.array_size == 4);
  assert_int_equal(CL_SUCCESS, make(desc_of(CL_MEM_OBJECT_IMAGE3D, 10, 5, 3, 9), 8, KILN_IMAGE_OWN, &l));
  assert_true(l.row_pitch == 80 && l.slice_pitch == 400 && l.size == 1200 && l.depth == 3 && l.array_size == 1);
}

static void test_dimension_limits(void **state) {
  (void)state;
  struct kiln_image_layout l;
  assert_int_equal(CL_INVALID_IMAGE_SIZE, make(desc_of(CL_MEM_OBJECT_IMAGE1D, 0, 1, 1, 1), 4, KILN_IMAGE_OWN, &l));
  assert_int_equal(CL_INVALID_IMAGE_SIZE, make(desc_of(CL_MEM_OBJECT_IMAGE1D, 16385, 1, 1, 1), 4, KILN_IMAGE_OWN, &l));
  assert_int_equal(CL_SUCCESS, make(desc_of(CL_MEM_OBJECT_IMAGE1D, 16384, 1, 1, 1), 4, KILN_IMAGE_OWN, &l));
  assert_int_equal(CL_INVALID_IMAGE_SIZE,
                   make(desc_of(CL_MEM_OBJECT_IMAGE1D_BUFFER, 65537, 1, 1, 1), 4, KILN_IMAGE_OVER_BUFFER, &l));
  assert_int_equal(CL_INVALID_IMAGE_SIZE, make(desc_of(CL_MEM_OBJECT_IMAGE2D, 8, 0, 1, 1), 4, KILN_IMAGE_OWN, &l));
  assert_int_equal(CL_INVALID_IMAGE_SIZE, make(desc_of(CL_MEM_OBJECT_IMAGE2D, 8, 16385, 1, 1), 4, KILN_IMAGE_OWN, &l));
  assert_int_equal(CL_INVALID_IMAGE_SIZE,
                   make(desc_of(CL_MEM_OBJECT_IMAGE2D_ARRAY, 8, 8, 1, 0), 4, KILN_IMAGE_OWN, &l));
  assert_int_equal(CL_INVALID_IMAGE_SIZE,
                   make(desc_of(CL_MEM_OBJECT_IMAGE1D_ARRAY, 8, 8, 1, 2049), 4, KILN_IMAGE_OWN, &l));
  assert_int_equal(CL_INVALID_IMAGE_SIZE, make(desc_of(CL_MEM_OBJECT_IMAGE3D, 2049, 8, 8, 1), 4, KILN_IMAGE_OWN, &l));
  assert_int_equal(CL_INVALID_IMAGE_SIZE, make(desc_of(CL_MEM_OBJECT_IMAGE3D, 8, 8, 0, 1), 4, KILN_IMAGE_OWN, &l));
}

static void test_pitches(void **state) {
  (void)state;
  struct kiln_image_layout l;
  cl_image_desc d = desc_of(CL_MEM_OBJECT_IMAGE2D_ARRAY, 10, 5, 0, 2);
  d.image_row_pitch = 48;    /* >= 40, a multiple of 4 */
  d.image_slice_pitch = 480; /* >= 48 * 5, a multiple of 48 */
  assert_int_equal(CL_SUCCESS, make(d, 4, KILN_IMAGE_HOST_POINTER, &l));
  assert_true(l.row_pitch == 48 && l.slice_pitch == 480 && l.size == 960);
  assert_int_equal(CL_INVALID_IMAGE_DESCRIPTOR, make(d, 4, KILN_IMAGE_OWN, &l)); /* pitches without a host pointer */
  d.image_row_pitch = 36;                                                        /* < width * element */
  assert_int_equal(CL_INVALID_IMAGE_DESCRIPTOR, make(d, 4, KILN_IMAGE_HOST_POINTER, &l));
  d.image_row_pitch = 42; /* not a multiple of the element */
  assert_int_equal(CL_INVALID_IMAGE_DESCRIPTOR, make(d, 4, KILN_IMAGE_HOST_POINTER, &l));
  d.image_row_pitch = 48;
  d.image_slice_pitch = 200; /* < 48 * 5 */
  assert_int_equal(CL_INVALID_IMAGE_DESCRIPTOR, make(d, 4, KILN_IMAGE_HOST_POINTER, &l));
  d.image_slice_pitch = 264; /* not a multiple of the row pitch */
  assert_int_equal(CL_INVALID_IMAGE_DESCRIPTOR, make(d, 4, KILN_IMAGE_HOST_POINTER, &l));
  /* A 1D array's slice is at least one row, in whole rows. */
  cl_image_desc a = desc_of(CL_MEM_OBJECT_IMAGE1D_ARRAY, 10, 0, 0, 3);
  a.image_slice_pitch = 80;
  assert_int_equal(CL_SUCCESS, make(a, 4, KILN_IMAGE_HOST_POINTER, &l));
  assert_true(l.row_pitch == 40 && l.slice_pitch == 80 && l.size == 240);
  a.image_slice_pitch = 48;
  assert_int_equal(CL_INVALID_IMAGE_DESCRIPTOR, make(a, 4, KILN_IMAGE_HOST_POINTER, &l));
  /* A slice pitch without a host pointer is refused for any type. */
  cl_image_desc two = desc_of(CL_MEM_OBJECT_IMAGE2D, 10, 5, 0, 0);
  two.image_slice_pitch = 400;
  assert_int_equal(CL_INVALID_IMAGE_DESCRIPTOR, make(two, 4, KILN_IMAGE_OWN, &l));
}

static void test_images_over_buffers(void **state) {
  (void)state;
  struct kiln_image_layout l;
  /* A 1D image buffer may name its one row's pitch (the CTS does), which must hold the row. */
  cl_image_desc one = desc_of(CL_MEM_OBJECT_IMAGE1D_BUFFER, 100, 0, 0, 0);
  one.image_row_pitch = 400;
  assert_int_equal(CL_SUCCESS, make(one, 4, KILN_IMAGE_OVER_BUFFER, &l));
  assert_true(l.row_pitch == 400 && l.size == 400);
  one.image_row_pitch = 396;
  assert_int_equal(CL_INVALID_IMAGE_DESCRIPTOR, make(one, 4, KILN_IMAGE_OVER_BUFFER, &l));
  /* 2D over a buffer: a row pitch is allowed and must keep the pitch alignment (16 pixels). */
  cl_image_desc d = desc_of(CL_MEM_OBJECT_IMAGE2D, 10, 5, 0, 0);
  d.image_row_pitch = 64; /* 16 pixels of 4 bytes */
  assert_int_equal(CL_SUCCESS, make(d, 4, KILN_IMAGE_OVER_BUFFER, &l));
  assert_int_equal(320, l.size);
  d.image_row_pitch = 68; /* 17 pixels */
  assert_int_equal(CL_INVALID_IMAGE_FORMAT_DESCRIPTOR, make(d, 4, KILN_IMAGE_OVER_BUFFER, &l));
  /* Any type may be over a buffer (cl_ext_image_from_buffer), with a slice pitch that keeps
   * the pitch alignment (else CL_INVALID_IMAGE_FORMAT_DESCRIPTOR) and is whole rows (else
   * CL_INVALID_IMAGE_DESCRIPTOR); a 1D buffer image must be over one. */
  cl_image_desc three = desc_of(CL_MEM_OBJECT_IMAGE3D, 4, 4, 4, 0);
  assert_int_equal(CL_SUCCESS, make(three, 4, KILN_IMAGE_OVER_BUFFER, &l));
  assert_true(l.row_pitch == 16 && l.slice_pitch == 64 && l.size == 256);
  three.image_row_pitch = 64;
  three.image_slice_pitch = 64 * 5;
  assert_int_equal(CL_SUCCESS, make(three, 4, KILN_IMAGE_OVER_BUFFER, &l));
  assert_int_equal(64 * 5 * 4, l.size);
  three.image_slice_pitch = 64 * 5 + 4; /* one pixel: off the 16-pixel alignment */
  assert_int_equal(CL_INVALID_IMAGE_FORMAT_DESCRIPTOR, make(three, 4, KILN_IMAGE_OVER_BUFFER, &l));
  three.image_row_pitch = 128;
  three.image_slice_pitch = 64 * 9; /* aligned, not whole rows of 128 */
  assert_int_equal(CL_INVALID_IMAGE_DESCRIPTOR, make(three, 4, KILN_IMAGE_OVER_BUFFER, &l));
  assert_int_equal(CL_INVALID_IMAGE_DESCRIPTOR,
                   make(desc_of(CL_MEM_OBJECT_IMAGE1D_BUFFER, 4, 0, 0, 0), 4, KILN_IMAGE_OWN, &l));
  assert_int_equal(CL_INVALID_IMAGE_DESCRIPTOR,
                   make(desc_of(CL_MEM_OBJECT_IMAGE1D_BUFFER, 4, 0, 0, 0), 4, KILN_IMAGE_HOST_POINTER, &l));
}

static void test_bad_descriptors_and_overflow(void **state) {
  (void)state;
  struct kiln_image_layout l;
  assert_int_equal(CL_INVALID_IMAGE_DESCRIPTOR, make(desc_of(CL_MEM_OBJECT_BUFFER, 4, 4, 1, 1), 4, KILN_IMAGE_OWN, &l));
  cl_image_desc d = desc_of(CL_MEM_OBJECT_IMAGE2D, 4, 4, 0, 0);
  d.num_mip_levels = 1;
  assert_int_equal(CL_INVALID_IMAGE_DESCRIPTOR, make(d, 4, KILN_IMAGE_OWN, &l));
  d.num_mip_levels = 0;
  d.num_samples = 1;
  assert_int_equal(CL_INVALID_IMAGE_DESCRIPTOR, make(d, 4, KILN_IMAGE_OWN, &l));
  /* Within every limit, yet more bytes than size_t holds. */
  struct kiln_image_limits huge = limits;
  huge.image3d_max_width = huge.image3d_max_height = huge.image3d_max_depth = SIZE_MAX;
  cl_image_desc big = desc_of(CL_MEM_OBJECT_IMAGE3D, (size_t)1 << 22, (size_t)1 << 22, (size_t)1 << 22, 0);
  assert_int_equal(CL_INVALID_IMAGE_SIZE, kiln_image_layout_make(&big, 16, KILN_IMAGE_OWN, &huge, &l));
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_tight_layouts_of_every_type),
      cmocka_unit_test(test_dimension_limits),
      cmocka_unit_test(test_pitches),
      cmocka_unit_test(test_images_over_buffers),
      cmocka_unit_test(test_bad_descriptors_and_overflow),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
