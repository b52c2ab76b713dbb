/* Image formats (runtime/image_format.h): element sizes and texel kinds of every class of
 * format, the combinations the spec rules out, and the device's lists: every format of
 * the spec's minimum list for every image type and kernel access, each listed once and
 * valid. The minimum list is written out here from the spec's table, apart from the
 * module's own. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "runtime/image_format.h"

static const cl_mem_object_type image_types[] = {CL_MEM_OBJECT_IMAGE1D,       CL_MEM_OBJECT_IMAGE1D_BUFFER,
                                                 CL_MEM_OBJECT_IMAGE1D_ARRAY, CL_MEM_OBJECT_IMAGE2D,
                                                 CL_MEM_OBJECT_IMAGE2D_ARRAY, CL_MEM_OBJECT_IMAGE3D};
static const cl_mem_flags accesses[] = {CL_MEM_READ_ONLY, CL_MEM_WRITE_ONLY, CL_MEM_READ_WRITE, 0};

static const cl_channel_type twelve_types[] = {CL_UNORM_INT8,     CL_UNORM_INT16,    CL_SNORM_INT8,   CL_SNORM_INT16,
                                               CL_SIGNED_INT8,    CL_SIGNED_INT16,   CL_SIGNED_INT32, CL_UNSIGNED_INT8,
                                               CL_UNSIGNED_INT16, CL_UNSIGNED_INT32, CL_HALF_FLOAT,   CL_FLOAT};

static bool listed(const cl_image_format *list, size_t count, cl_channel_order order, cl_channel_type type) {
  for (size_t i = 0; i < count; i++)
    if (list[i].image_channel_order == order && list[i].image_channel_data_type == type) return true;
  return false;
}

static void expect_format(cl_channel_order order, cl_channel_type type, unsigned channels, size_t size,
                          enum kiln_texel_kind kind, bool packed, bool srgb) {
  cl_image_format format = {order, type};
  struct kiln_image_format_info info;
  if (!kiln_image_format_describe(&format, &info)) fail_msg("0x%x/0x%x refused", (unsigned)order, (unsigned)type);
  assert_int_equal(channels, info.channels);
  assert_int_equal(size, info.element_size);
  assert_int_equal(kind, info.kind);
  assert_int_equal(packed, info.packed);
  assert_int_equal(srgb, info.srgb);
}

static void test_element_sizes_and_kinds(void **state) {
  (void)state;
  expect_format(CL_RGBA, CL_UNORM_INT8, 4, 4, KILN_TEXEL_FLOAT, false, false);
  expect_format(CL_RGBA, CL_FLOAT, 4, 16, KILN_TEXEL_FLOAT, false, false);
  expect_format(CL_RGBA, CL_HALF_FLOAT, 4, 8, KILN_TEXEL_FLOAT, false, false);
  expect_format(CL_BGRA, CL_UNORM_INT8, 4, 4, KILN_TEXEL_FLOAT, false, false);
  expect_format(CL_R, CL_SIGNED_INT16, 1, 2, KILN_TEXEL_INT, false, false);
  expect_format(CL_RG, CL_UNSIGNED_INT32, 2, 8, KILN_TEXEL_UINT, false, false);
  expect_format(CL_RG, CL_SNORM_INT16, 2, 4, KILN_TEXEL_FLOAT, false, false);
  expect_format(CL_A, CL_UNSIGNED_INT8, 1, 1, KILN_TEXEL_UINT, false, false);
  expect_format(CL_Rx, CL_FLOAT, 2, 8, KILN_TEXEL_FLOAT, false, false);
  expect_format(CL_RGx, CL_SIGNED_INT8, 3, 3, KILN_TEXEL_INT, false, false);
  expect_format(CL_INTENSITY, CL_UNORM_INT16, 1, 2, KILN_TEXEL_FLOAT, false, false);
  expect_format(CL_LUMINANCE, CL_FLOAT, 1, 4, KILN_TEXEL_FLOAT, false, false);
  expect_format(CL_RGB, CL_UNORM_SHORT_565, 3, 2, KILN_TEXEL_FLOAT, true, false);
  expect_format(CL_RGBx, CL_UNORM_SHORT_555, 4, 2, KILN_TEXEL_FLOAT, true, false);
  expect_format(CL_RGB, CL_UNORM_INT_101010, 3, 4, KILN_TEXEL_FLOAT, true, false);
  expect_format(CL_RGBA, CL_UNORM_INT_101010_2, 4, 4, KILN_TEXEL_FLOAT, true, false);
  expect_format(CL_sRGBA, CL_UNORM_INT8, 4, 4, KILN_TEXEL_FLOAT, false, true);
  expect_format(CL_sRGB, CL_UNORM_INT8, 3, 3, KILN_TEXEL_FLOAT, false, true);
  expect_format(CL_DEPTH, CL_FLOAT, 1, 4, KILN_TEXEL_FLOAT, false, false);
  expect_format(CL_DEPTH, CL_UNORM_INT16, 1, 2, KILN_TEXEL_FLOAT, false, false);
}

static void expect_refused(cl_channel_order order, cl_channel_type type) {
  cl_image_format format = {order, type};
  struct kiln_image_format_info info;
  if (kiln_image_format_describe(&format, &info)) fail_msg("0x%x/0x%x accepted", (unsigned)order, (unsigned)type);
}

static void test_invalid_combinations(void **state) {
  (void)state;
  expect_refused(CL_RGB, CL_UNORM_INT8); /* RGB: packed types only */
  expect_refused(CL_RGBx, CL_FLOAT);
  expect_refused(CL_RGBA, CL_UNORM_SHORT_565);   /* 565: RGB or RGBx */
  expect_refused(CL_RGB, CL_UNORM_INT_101010_2); /* 101010_2: RGBA */
  expect_refused(CL_BGRA, CL_FLOAT);             /* BGRA: 8-bit types */
  expect_refused(CL_ARGB, CL_UNSIGNED_INT16);
  expect_refused(CL_INTENSITY, CL_SIGNED_INT8); /* normalized, half and float only */
  expect_refused(CL_LUMINANCE, CL_UNSIGNED_INT32);
  expect_refused(CL_sRGBA, CL_FLOAT);        /* sRGB: UNORM_INT8 only */
  expect_refused(CL_DEPTH, CL_SIGNED_INT16); /* depth: UNORM_INT16 or FLOAT */
  expect_refused(CL_R, CL_UNORM_INT24);      /* 24-bit: depth only */
  expect_refused(0x1234, CL_FLOAT);          /* unknown order */
  expect_refused(CL_RGBA, 0x1234);           /* unknown type */
  struct kiln_image_format_info info;
  assert_false(kiln_image_format_describe(NULL, &info));
}

/* The spec's minimum list (OpenCL 2.0 full profile, which Kiln offers under 3.0), per
 * type and access. */
static void test_minimum_list_for_every_type_and_access(void **state) {
  (void)state;
  for (size_t t = 0; t < sizeof image_types / sizeof image_types[0]; t++) {
    for (size_t a = 0; a < sizeof accesses / sizeof accesses[0]; a++) {
      size_t count;
      const cl_image_format *list = kiln_image_formats_supported(image_types[t], accesses[a], &count);
      const cl_channel_order orders[] = {CL_R, CL_RG, CL_RGBA};
      for (size_t o = 0; o < 3; o++)
        for (size_t d = 0; d < 12; d++)
          if (!listed(list, count, orders[o], twelve_types[d]))
            fail_msg("type 0x%x access 0x%x: 0x%x/0x%x missing", (unsigned)image_types[t], (unsigned)accesses[a],
                     (unsigned)orders[o], (unsigned)twelve_types[d]);
      assert_true(listed(list, count, CL_BGRA, CL_UNORM_INT8));
      bool reads_only = accesses[a] == CL_MEM_READ_ONLY;
      assert_int_equal(reads_only, listed(list, count, CL_sRGBA, CL_UNORM_INT8));
      bool depth = image_types[t] == CL_MEM_OBJECT_IMAGE2D || image_types[t] == CL_MEM_OBJECT_IMAGE2D_ARRAY;
      assert_int_equal(depth, listed(list, count, CL_DEPTH, CL_UNORM_INT16));
      assert_int_equal(depth, listed(list, count, CL_DEPTH, CL_FLOAT));
    }
  }
}

static void test_listed_formats_are_valid_and_unique(void **state) {
  (void)state;
  for (size_t t = 0; t < sizeof image_types / sizeof image_types[0]; t++) {
    for (size_t a = 0; a < sizeof accesses / sizeof accesses[0]; a++) {
      size_t count;
      const cl_image_format *list = kiln_image_formats_supported(image_types[t], accesses[a], &count);
      for (size_t i = 0; i < count; i++) {
        struct kiln_image_format_info info;
        assert_true(kiln_image_format_describe(&list[i], &info));
        for (size_t j = i + 1; j < count; j++)
          assert_false(list[i].image_channel_order == list[j].image_channel_order &&
                       list[i].image_channel_data_type == list[j].image_channel_data_type);
      }
    }
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_element_sizes_and_kinds),
      cmocka_unit_test(test_invalid_combinations),
      cmocka_unit_test(test_minimum_list_for_every_type_and_access),
      cmocka_unit_test(test_listed_formats_are_valid_and_unique),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
