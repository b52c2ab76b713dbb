/* cl_ext_image_requirements_info through the loader: clGetImageRequirementsInfoEXT reached
 * through clGetExtensionFunctionAddressForPlatform; alignments that are powers of two, fit
 * the device's pitch and base-address alignments, and are exactly what clCreateImage
 * enforces over a buffer; CL_IMAGE_REQUIREMENTS_SIZE_EXT equal to the CL_MEM_SIZE of an
 * image over a buffer of that size for every type (and one byte less refused); the
 * dimension limits per type, with 0 standing for any; and every error the spec lists. */
#include "image_test.h"

#include <CL/cl_ext.h>

#ifndef CL_IMAGE_REQUIREMENTS_SLICE_PITCH_ALIGNMENT_EXT
#define CL_IMAGE_REQUIREMENTS_SLICE_PITCH_ALIGNMENT_EXT 0x1291
#endif

static clGetImageRequirementsInfoEXT_fn get_requirements;

static int setup(void **state) {
  if (kiln_test_env_setup(state) != 0) return -1;
  struct kiln_test_env *env = *state;
  get_requirements =
      (clGetImageRequirementsInfoEXT_fn)kiln_test_extension_function(env->platform, "clGetImageRequirementsInfoEXT");
  return get_requirements ? 0 : -1;
}
static int teardown(void **state) { return kiln_test_env_teardown(state); }

static size_t size_query(struct kiln_test_env *env, cl_image_requirements_info_ext name, const cl_image_format *format,
                         const cl_image_desc *desc) {
  size_t value = 0, size_ret = 0;
  assert_cl_success(get_requirements(env->context, NULL, CL_MEM_READ_WRITE, format, desc, name, sizeof value, &value,
                                     &size_ret));
  assert_int_equal(size_ret, sizeof(size_t));
  return value;
}

static cl_uint uint_query(struct kiln_test_env *env, cl_image_requirements_info_ext name,
                          const cl_image_format *format, const cl_image_desc *desc) {
  cl_uint value = 0;
  size_t size_ret = 0;
  assert_cl_success(get_requirements(env->context, NULL, 0, format, desc, name, sizeof value, &value, &size_ret));
  assert_int_equal(size_ret, sizeof(cl_uint));
  return value;
}

static bool is_power_of_two(size_t v) { return v && (v & (v - 1)) == 0; }

static void test_extension_listed(void **state) {
  struct kiln_test_env *env = *state;
  kiln_test_expect_extension(env->device, "cl_ext_image_requirements_info", CL_MAKE_VERSION(0, 5, 0));
}

/* Every format of 2D images: alignments a power of two, within the device's alignments in
 * bytes of the largest element, and enforced: a row pitch one alignment step longer works
 * over a buffer, one byte longer is CL_INVALID_IMAGE_FORMAT_DESCRIPTOR (when the step is
 * more than a byte). */
static void test_alignments(void **state) {
  struct kiln_test_env *env = *state;
  cl_uint count = 0;
  assert_cl_success(clGetSupportedImageFormats(env->context, CL_MEM_READ_WRITE, CL_MEM_OBJECT_IMAGE2D, 0, NULL, &count));
  cl_image_format *formats = calloc(count, sizeof *formats);
  assert_cl_success(
      clGetSupportedImageFormats(env->context, CL_MEM_READ_WRITE, CL_MEM_OBJECT_IMAGE2D, count, formats, NULL));
  cl_uint pitch_alignment = 0, base_alignment = 0;
  assert_cl_success(
      clGetDeviceInfo(env->device, CL_DEVICE_IMAGE_PITCH_ALIGNMENT, sizeof pitch_alignment, &pitch_alignment, NULL));
  assert_cl_success(clGetDeviceInfo(env->device, CL_DEVICE_IMAGE_BASE_ADDRESS_ALIGNMENT, sizeof base_alignment,
                                    &base_alignment, NULL));
  const size_t largest_element = 16;
  size_t any_row = size_query(env, CL_IMAGE_REQUIREMENTS_ROW_PITCH_ALIGNMENT_EXT, NULL, NULL);
  assert_true(is_power_of_two(any_row));
  cl_int err;
  cl_mem buffer = clCreateBuffer(env->context, CL_MEM_READ_WRITE, 1 << 16, NULL, &err);
  assert_cl_success(err);
  for (cl_uint i = 0; i < count; i++) {
    const size_t extent[3] = {5, 3, 1};
    cl_image_desc desc = image_desc_of(CL_MEM_OBJECT_IMAGE2D, extent);
    size_t row = size_query(env, CL_IMAGE_REQUIREMENTS_ROW_PITCH_ALIGNMENT_EXT, &formats[i], &desc);
    size_t slice = size_query(env, CL_IMAGE_REQUIREMENTS_SLICE_PITCH_ALIGNMENT_EXT, &formats[i], &desc);
    size_t base = size_query(env, CL_IMAGE_REQUIREMENTS_BASE_ADDRESS_ALIGNMENT_EXT, &formats[i], NULL);
    assert_true(is_power_of_two(row) && is_power_of_two(slice) && is_power_of_two(base));
    assert_true(row <= pitch_alignment * largest_element && base <= base_alignment * largest_element);
    assert_int_equal(any_row % row, 0); /* the format-free answer suits every format */
    desc.mem_object = buffer;
    desc.image_row_pitch = (extent[0] + 1) * image_element_size(&formats[i]);
    desc.image_row_pitch += row - desc.image_row_pitch % row;
    cl_mem image = clCreateImage(env->context, CL_MEM_READ_WRITE, &formats[i], &desc, NULL, &err);
    assert_cl_success(err);
    clReleaseMemObject(image);
    if (row > 1) {
      desc.image_row_pitch += 1;
      assert_int_equal(image_create_error(env->context, CL_MEM_READ_WRITE, &formats[i], &desc, NULL),
                       CL_INVALID_IMAGE_FORMAT_DESCRIPTOR);
    }
  }
  clReleaseMemObject(buffer);
  free(formats);
}

/* The size of every type, tight and with pitches: a buffer of that size backs the image,
 * whose CL_MEM_SIZE is the same; a byte less does not. */
static void test_size_matches_images_over_buffers(void **state) {
  struct kiln_test_env *env = *state;
  for (int t = 0; t < IMAGE_TYPE_COUNT; t++) {
    for (int padded = 0; padded < 2; padded++) {
      cl_mem_object_type type = image_types[t];
      size_t extent[3];
      image_extent_of(type, 9, 4, 3, extent);
      cl_image_desc desc = image_desc_of(type, extent);
      if (padded && type != CL_MEM_OBJECT_IMAGE1D && type != CL_MEM_OBJECT_IMAGE1D_BUFFER) {
        desc.image_row_pitch = 12 * 4;
        if (type == CL_MEM_OBJECT_IMAGE1D_ARRAY) desc.image_slice_pitch = 12 * 4 * 3;
        if (type == CL_MEM_OBJECT_IMAGE2D_ARRAY || type == CL_MEM_OBJECT_IMAGE3D) desc.image_slice_pitch = 12 * 4 * 6;
      }
      size_t size = size_query(env, CL_IMAGE_REQUIREMENTS_SIZE_EXT, &rgba8, &desc);
      assert_true(size >= image_bytes(extent, 4));
      cl_int err;
      cl_mem small = clCreateBuffer(env->context, CL_MEM_READ_WRITE, size - 1, NULL, &err);
      assert_cl_success(err);
      desc.mem_object = small;
      assert_int_equal(image_create_error(env->context, CL_MEM_READ_WRITE, &rgba8, &desc, NULL), CL_INVALID_IMAGE_SIZE);
      cl_mem buffer = clCreateBuffer(env->context, CL_MEM_READ_WRITE, size, NULL, &err);
      assert_cl_success(err);
      desc.mem_object = buffer;
      cl_mem image = clCreateImage(env->context, CL_MEM_READ_WRITE, &rgba8, &desc, NULL, &err);
      assert_cl_success(err);
      size_t mem_size = 0;
      assert_cl_success(clGetMemObjectInfo(image, CL_MEM_SIZE, sizeof mem_size, &mem_size, NULL));
      assert_int_equal(mem_size, size);
      clReleaseMemObject(image);
      clReleaseMemObject(buffer);
      clReleaseMemObject(small);
    }
  }
}

/* The dimension limits per type, equal to the device's; 0 for any type: one that suits all. */
static void test_dimension_limits(void **state) {
  struct kiln_test_env *env = *state;
  size_t w2 = 0, h2 = 0, w3 = 0, h3 = 0, d3 = 0, layers = 0, buffer_pixels = 0;
  assert_cl_success(clGetDeviceInfo(env->device, CL_DEVICE_IMAGE2D_MAX_WIDTH, sizeof w2, &w2, NULL));
  assert_cl_success(clGetDeviceInfo(env->device, CL_DEVICE_IMAGE2D_MAX_HEIGHT, sizeof h2, &h2, NULL));
  assert_cl_success(clGetDeviceInfo(env->device, CL_DEVICE_IMAGE3D_MAX_WIDTH, sizeof w3, &w3, NULL));
  assert_cl_success(clGetDeviceInfo(env->device, CL_DEVICE_IMAGE3D_MAX_HEIGHT, sizeof h3, &h3, NULL));
  assert_cl_success(clGetDeviceInfo(env->device, CL_DEVICE_IMAGE3D_MAX_DEPTH, sizeof d3, &d3, NULL));
  assert_cl_success(clGetDeviceInfo(env->device, CL_DEVICE_IMAGE_MAX_ARRAY_SIZE, sizeof layers, &layers, NULL));
  assert_cl_success(
      clGetDeviceInfo(env->device, CL_DEVICE_IMAGE_MAX_BUFFER_SIZE, sizeof buffer_pixels, &buffer_pixels, NULL));
  cl_image_desc desc = {0};
  struct {
    cl_mem_object_type type;
    size_t width, height, depth, array_size; /* 0: the query is CL_INVALID_IMAGE_DESCRIPTOR */
  } rows[] = {
      {CL_MEM_OBJECT_IMAGE1D, w2, 0, 0, 0},          {CL_MEM_OBJECT_IMAGE1D_BUFFER, buffer_pixels, 0, 0, 0},
      {CL_MEM_OBJECT_IMAGE1D_ARRAY, w2, 0, 0, layers}, {CL_MEM_OBJECT_IMAGE2D, w2, h2, 0, 0},
      {CL_MEM_OBJECT_IMAGE2D_ARRAY, w2, h2, 0, layers}, {CL_MEM_OBJECT_IMAGE3D, w3, h3, d3, 0},
      {0, w3 < w2 ? w3 : w2, h3 < h2 ? h3 : h2, d3, layers},
  };
  const cl_image_requirements_info_ext names[4] = {
      CL_IMAGE_REQUIREMENTS_MAX_WIDTH_EXT, CL_IMAGE_REQUIREMENTS_MAX_HEIGHT_EXT, CL_IMAGE_REQUIREMENTS_MAX_DEPTH_EXT,
      CL_IMAGE_REQUIREMENTS_MAX_ARRAY_SIZE_EXT};
  for (size_t r = 0; r < sizeof rows / sizeof rows[0]; r++) {
    desc.image_type = rows[r].type;
    const size_t expect[4] = {rows[r].width, rows[r].height, rows[r].depth, rows[r].array_size};
    for (int q = 0; q < 4; q++) {
      if (expect[q]) {
        assert_int_equal(uint_query(env, names[q], &rgba8, &desc), expect[q]);
      } else {
        cl_uint v;
        assert_int_equal(get_requirements(env->context, NULL, 0, &rgba8, &desc, names[q], sizeof v, &v, NULL),
                         CL_INVALID_IMAGE_DESCRIPTOR);
      }
    }
  }
  /* no descriptor: the limits of any type */
  assert_int_equal(uint_query(env, CL_IMAGE_REQUIREMENTS_MAX_WIDTH_EXT, NULL, NULL), w3 < w2 ? w3 : w2);
  assert_int_equal(uint_query(env, CL_IMAGE_REQUIREMENTS_MAX_DEPTH_EXT, NULL, NULL), d3);
}

static void test_errors(void **state) {
  struct kiln_test_env *env = *state;
  const size_t extent[3] = {8, 8, 1};
  cl_image_desc desc = image_desc_of(CL_MEM_OBJECT_IMAGE2D, extent);
  size_t v = 0;
  const cl_image_requirements_info_ext row = CL_IMAGE_REQUIREMENTS_ROW_PITCH_ALIGNMENT_EXT;
  assert_int_equal(get_requirements(NULL, NULL, 0, &rgba8, &desc, row, sizeof v, &v, NULL), CL_INVALID_CONTEXT);
  struct kiln_test_fake_handle fake = kiln_test_fake_handle_like(env->context);
  assert_int_equal(get_requirements((cl_context)&fake, NULL, 0, &rgba8, &desc, row, sizeof v, &v, NULL),
                   CL_INVALID_CONTEXT);
  const cl_mem_properties bad_property[] = {0x7fff, 1, 0};
  assert_int_equal(get_requirements(env->context, bad_property, 0, &rgba8, &desc, row, sizeof v, &v, NULL),
                   CL_INVALID_PROPERTY);
  assert_int_equal(get_requirements(env->context, NULL, (cl_mem_flags)-1, &rgba8, &desc, row, sizeof v, &v, NULL),
                   CL_INVALID_VALUE);
  assert_int_equal(get_requirements(env->context, NULL, CL_MEM_READ_ONLY | CL_MEM_WRITE_ONLY, &rgba8, &desc, row,
                                    sizeof v, &v, NULL),
                   CL_INVALID_VALUE);
  const cl_image_format bad_format = {CL_INTENSITY, CL_UNORM_SHORT_555};
  assert_int_equal(get_requirements(env->context, NULL, 0, &bad_format, &desc, row, sizeof v, &v, NULL),
                   CL_INVALID_IMAGE_FORMAT_DESCRIPTOR);
  cl_image_desc not_image = {.image_type = CL_MEM_OBJECT_BUFFER, .image_width = 8};
  assert_int_equal(get_requirements(env->context, NULL, 0, &rgba8, &not_image, row, sizeof v, &v, NULL),
                   CL_INVALID_IMAGE_DESCRIPTOR);
  cl_image_desc no_width = {.image_type = CL_MEM_OBJECT_IMAGE1D};
  assert_int_equal(get_requirements(env->context, NULL, 0, &rgba8, &no_width, row, sizeof v, &v, NULL),
                   CL_INVALID_IMAGE_DESCRIPTOR);
  /* the size needs both the format and the descriptor */
  assert_int_equal(get_requirements(env->context, NULL, 0, NULL, &desc, CL_IMAGE_REQUIREMENTS_SIZE_EXT, sizeof v, &v,
                                    NULL),
                   CL_INVALID_VALUE);
  assert_int_equal(get_requirements(env->context, NULL, 0, &rgba8, NULL, CL_IMAGE_REQUIREMENTS_SIZE_EXT, sizeof v, &v,
                                    NULL),
                   CL_INVALID_VALUE);
  assert_int_equal(get_requirements(env->context, NULL, 0, &rgba8, &desc, CL_IMAGE_FORMAT, sizeof v, &v, NULL),
                   CL_INVALID_VALUE);
  assert_int_equal(get_requirements(env->context, NULL, 0, &rgba8, &desc, row, sizeof v - 1, &v, NULL),
                   CL_INVALID_VALUE);
  cl_uint u;
  assert_int_equal(get_requirements(env->context, NULL, 0, &rgba8, &desc, CL_IMAGE_REQUIREMENTS_MAX_HEIGHT_EXT,
                                    sizeof u - 1, &u, NULL),
                   CL_INVALID_VALUE);
  /* no value asked: only its size */
  size_t size_ret = 0;
  assert_cl_success(get_requirements(env->context, NULL, 0, &rgba8, &desc, CL_IMAGE_REQUIREMENTS_MAX_HEIGHT_EXT, 0,
                                     NULL, &size_ret));
  assert_int_equal(size_ret, sizeof(cl_uint));
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_extension_listed),
      cmocka_unit_test(test_alignments),
      cmocka_unit_test(test_size_matches_images_over_buffers),
      cmocka_unit_test(test_dimension_limits),
      cmocka_unit_test(test_errors),
  };
  return cmocka_run_group_tests(tests, setup, teardown);
}
