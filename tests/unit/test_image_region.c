/* Image command regions (runtime/image_region.h): the spec's origin and region rules for
 * every image type, bounds without overflow, byte offsets (a 1D array's layers a slice
 * pitch apart), host pitches, and a sub-region written through padded host pitches into
 * a 2D array's storage and read back. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "runtime/image_region.h"
#include "runtime/mem_object.h"

#include <stdlib.h>
#include <string.h>

static struct kiln_image_layout layout_of(size_t w, size_t h, size_t d, size_t array, size_t row, size_t slice) {
  return (struct kiln_image_layout){w, h, d, array, row, slice, slice * (d > array ? d : array)};
}

#define ORIGIN(x, y, z) ((const size_t[3]){x, y, z})

/* One origin/region case: what the check must answer. */
struct region_case {
  cl_mem_object_type type;
  struct kiln_image_layout layout;
  size_t origin[3], region[3];
  cl_int expected;
};

static void test_rules_per_type(void **state) {
  (void)state;
  const struct kiln_image_layout one_d = layout_of(16, 1, 1, 1, 64, 64), array_1d = layout_of(16, 1, 1, 5, 64, 64),
                                 two_d = layout_of(16, 8, 1, 1, 64, 512), array_2d = layout_of(16, 8, 1, 3, 64, 512),
                                 three_d = layout_of(16, 8, 4, 1, 64, 512);
  const struct region_case cases[] = {
      {CL_MEM_OBJECT_IMAGE1D, one_d, {4, 0, 0}, {12, 1, 1}, CL_SUCCESS},
      {CL_MEM_OBJECT_IMAGE1D, one_d, {4, 1, 0}, {12, 1, 1}, CL_INVALID_VALUE},       /* origin[1] unused: 0 */
      {CL_MEM_OBJECT_IMAGE1D_BUFFER, one_d, {0, 0, 0}, {1, 2, 1}, CL_INVALID_VALUE}, /* region[1] unused: 1 */
      {CL_MEM_OBJECT_IMAGE1D, one_d, {4, 0, 0}, {13, 1, 1}, CL_INVALID_VALUE},       /* past the width */
      {CL_MEM_OBJECT_IMAGE1D, one_d, {0, 0, 0}, {0, 1, 1}, CL_INVALID_VALUE},        /* empty */
      {CL_MEM_OBJECT_IMAGE1D, one_d, {SIZE_MAX, 0, 0}, {2, 1, 1}, CL_INVALID_VALUE}, /* no wrap-around */
      {CL_MEM_OBJECT_IMAGE1D_ARRAY, array_1d, {0, 3, 0}, {16, 2, 1}, CL_SUCCESS},    /* layers 3 and 4 */
      {CL_MEM_OBJECT_IMAGE1D_ARRAY, array_1d, {0, 4, 0}, {16, 2, 1}, CL_INVALID_VALUE},
      {CL_MEM_OBJECT_IMAGE1D_ARRAY, array_1d, {0, 0, 1}, {16, 1, 1}, CL_INVALID_VALUE},
      {CL_MEM_OBJECT_IMAGE2D, two_d, {0, 7, 0}, {16, 1, 1}, CL_SUCCESS},
      {CL_MEM_OBJECT_IMAGE2D, two_d, {0, 0, 0}, {16, 8, 2}, CL_INVALID_VALUE},
      {CL_MEM_OBJECT_IMAGE2D_ARRAY, array_2d, {0, 0, 2}, {16, 8, 1}, CL_SUCCESS},
      {CL_MEM_OBJECT_IMAGE2D_ARRAY, array_2d, {0, 0, 2}, {16, 8, 2}, CL_INVALID_VALUE},
      {CL_MEM_OBJECT_IMAGE3D, three_d, {1, 1, 1}, {15, 7, 3}, CL_SUCCESS},
      {CL_MEM_OBJECT_IMAGE3D, three_d, {0, 0, 4}, {1, 1, 1}, CL_INVALID_VALUE},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    const struct region_case *c = &cases[i];
    cl_int got = kiln_image_region_check(c->type, &c->layout, c->origin, c->region);
    if (got != c->expected) fail_msg("case %zu: %d, expected %d", i, got, c->expected);
  }
  assert_int_equal(CL_INVALID_VALUE, kiln_image_region_check(CL_MEM_OBJECT_IMAGE1D, &one_d, NULL, ORIGIN(1, 1, 1)));
  assert_int_equal(CL_INVALID_VALUE, kiln_image_region_check(CL_MEM_OBJECT_IMAGE1D, &one_d, ORIGIN(0, 0, 0), NULL));
}

static void test_offsets_and_spans(void **state) {
  (void)state;
  struct kiln_image_layout array_1d = layout_of(16, 1, 1, 5, 64, 128);
  assert_int_equal(3 * 4 + 2 * 128,
                   kiln_image_region_offset(CL_MEM_OBJECT_IMAGE1D_ARRAY, &array_1d, 4, ORIGIN(3, 2, 0)));
  struct kiln_image_span span = kiln_image_region_span(CL_MEM_OBJECT_IMAGE1D_ARRAY, 4, ORIGIN(5, 3, 1));
  assert_true(span.row_bytes == 20 && span.rows == 1 && span.slices == 3);
  struct kiln_image_layout three_d = layout_of(16, 8, 4, 1, 80, 640);
  assert_int_equal(2 * 8 + 3 * 80 + 1 * 640,
                   kiln_image_region_offset(CL_MEM_OBJECT_IMAGE3D, &three_d, 8, ORIGIN(2, 3, 1)));
  span = kiln_image_region_span(CL_MEM_OBJECT_IMAGE3D, 8, ORIGIN(4, 2, 3));
  assert_true(span.row_bytes == 32 && span.rows == 2 && span.slices == 3);
}

static void test_host_pitches(void **state) {
  (void)state;
  size_t row, slice;
  assert_int_equal(CL_SUCCESS, kiln_image_host_pitches(CL_MEM_OBJECT_IMAGE2D, 4, ORIGIN(10, 3, 1), 0, 0, &row, &slice));
  assert_true(row == 40 && slice == 120);
  assert_int_equal(CL_INVALID_VALUE,
                   kiln_image_host_pitches(CL_MEM_OBJECT_IMAGE2D, 4, ORIGIN(10, 3, 1), 36, 0, &row, &slice));
  assert_int_equal(CL_INVALID_VALUE,
                   kiln_image_host_pitches(CL_MEM_OBJECT_IMAGE2D, 4, ORIGIN(10, 3, 1), 40, 120, &row, &slice));
  assert_int_equal(CL_INVALID_VALUE,
                   kiln_image_host_pitches(CL_MEM_OBJECT_IMAGE1D, 4, ORIGIN(10, 1, 1), 0, 40, &row, &slice));
  assert_int_equal(CL_SUCCESS,
                   kiln_image_host_pitches(CL_MEM_OBJECT_IMAGE3D, 4, ORIGIN(10, 3, 2), 48, 200, &row, &slice));
  assert_true(row == 48 && slice == 200);
  assert_int_equal(CL_INVALID_VALUE,
                   kiln_image_host_pitches(CL_MEM_OBJECT_IMAGE3D, 4, ORIGIN(10, 3, 2), 48, 100, &row, &slice));
  assert_int_equal(CL_SUCCESS,
                   kiln_image_host_pitches(CL_MEM_OBJECT_IMAGE1D_ARRAY, 4, ORIGIN(10, 3, 1), 0, 0, &row, &slice));
  assert_true(row == 40 && slice == 40); /* one row per layer */
}

static void test_copy_through_pitches(void **state) {
  (void)state;
  /* A 2D array of 8x4 one-byte pixels, 3 layers, row pitch 10, slice pitch 50. */
  struct kiln_image_layout image = layout_of(8, 4, 1, 3, 10, 50);
  unsigned char *storage = calloc(1, image.size);
  const size_t origin[3] = {2, 1, 1}, region[3] = {5, 2, 2};
  assert_int_equal(CL_SUCCESS, kiln_image_region_check(CL_MEM_OBJECT_IMAGE2D_ARRAY, &image, origin, region));
  size_t row, slice;
  assert_int_equal(CL_SUCCESS, kiln_image_host_pitches(CL_MEM_OBJECT_IMAGE2D_ARRAY, 1, region, 7, 20, &row, &slice));
  unsigned char host[40], back[40];
  for (int i = 0; i < 40; i++) host[i] = (unsigned char)(i + 1);
  struct kiln_image_span span = kiln_image_region_span(CL_MEM_OBJECT_IMAGE2D_ARRAY, 1, region);
  size_t at = kiln_image_region_offset(CL_MEM_OBJECT_IMAGE2D_ARRAY, &image, 1, origin);
  const size_t bytes[3] = {span.row_bytes, span.rows, span.slices};
  kiln_mem_copy_rows((char *)storage + at, image.row_pitch, image.slice_pitch, (const char *)host, row, slice, bytes);
  /* Each pixel landed where it belongs, and nothing else was written. */
  size_t written = 0;
  for (size_t z = 0; z < 3; z++)
    for (size_t y = 0; y < 4; y++)
      for (size_t x = 0; x < 10; x++) {
        unsigned char v = storage[z * 50 + y * 10 + x];
        bool inside = z >= 1 && z < 3 && y >= 1 && y < 3 && x >= 2 && x < 7;
        if (!inside) {
          assert_int_equal(0, v);
          continue;
        }
        assert_int_equal(host[(z - 1) * 20 + (y - 1) * 7 + (x - 2)], v);
        written++;
      }
  assert_int_equal(20, written);
  memset(back, 0, sizeof back);
  kiln_mem_copy_rows((char *)back, row, slice, (const char *)storage + at, image.row_pitch, image.slice_pitch, bytes);
  for (size_t z = 0; z < 2; z++)
    for (size_t y = 0; y < 2; y++) assert_memory_equal(back + z * 20 + y * 7, host + z * 20 + y * 7, 5);
  free(storage);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_rules_per_type),
      cmocka_unit_test(test_offsets_and_spans),
      cmocka_unit_test(test_host_pitches),
      cmocka_unit_test(test_copy_through_pitches),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
