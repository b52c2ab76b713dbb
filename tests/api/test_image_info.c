/* Image queries: clGetImageInfo for every type (dimensions the type lacks are 0, pitches as
 * the spec's table defines them, given pitches reported), clGetMemObjectInfo of images and
 * images over buffers, clGetSupportedImageFormats with the spec's minimum lists, every
 * listed format creatable, and the errors of the three. */
#include "image_test.h"

static size_t image_info_size(cl_mem image, cl_image_info name) {
  size_t v = 12345;
  size_t size = 0;
  assert_cl_success(clGetImageInfo(image, name, sizeof v, &v, &size));
  assert_int_equal(size, sizeof v);
  return v;
}

/* Per type: width, height, depth, array size, row and slice pitch of a tight 5 x 3 x 2 image. */
static void test_dimensions_and_pitches_per_type(void **state) {
  struct kiln_test_env *env = *state;
  static const struct {
    cl_mem_object_type type;
    size_t height, depth, array_size, slice_pitch;
  } expect[IMAGE_TYPE_COUNT] = {
      {CL_MEM_OBJECT_IMAGE1D, 0, 0, 0, 0},
      {CL_MEM_OBJECT_IMAGE1D_BUFFER, 0, 0, 0, 0},
      {CL_MEM_OBJECT_IMAGE1D_ARRAY, 0, 0, 3, 5 * 8},
      {CL_MEM_OBJECT_IMAGE2D, 3, 0, 0, 0},
      {CL_MEM_OBJECT_IMAGE2D_ARRAY, 3, 0, 2, 5 * 8 * 3},
      {CL_MEM_OBJECT_IMAGE3D, 3, 2, 0, 5 * 8 * 3},
  };
  const cl_image_format rgba16 = {CL_RGBA, CL_UNSIGNED_INT16};
  for (int t = 0; t < IMAGE_TYPE_COUNT; t++) {
    size_t extent[3];
    image_extent_of(expect[t].type, 5, 3, expect[t].type == CL_MEM_OBJECT_IMAGE1D_ARRAY ? 3 : 2, extent);
    cl_mem image = image_create(env->context, 0, &rgba16, expect[t].type, extent, NULL);
    cl_image_format format = {0, 0};
    assert_cl_success(clGetImageInfo(image, CL_IMAGE_FORMAT, sizeof format, &format, NULL));
    assert_int_equal(format.image_channel_order, CL_RGBA);
    assert_int_equal(format.image_channel_data_type, CL_UNSIGNED_INT16);
    assert_int_equal(image_info_size(image, CL_IMAGE_ELEMENT_SIZE), 8);
    assert_int_equal(image_info_size(image, CL_IMAGE_WIDTH), 5);
    assert_int_equal(image_info_size(image, CL_IMAGE_HEIGHT), expect[t].height);
    assert_int_equal(image_info_size(image, CL_IMAGE_DEPTH), expect[t].depth);
    assert_int_equal(image_info_size(image, CL_IMAGE_ARRAY_SIZE), expect[t].array_size);
    assert_int_equal(image_info_size(image, CL_IMAGE_ROW_PITCH), 5 * 8);
    assert_int_equal(image_info_size(image, CL_IMAGE_SLICE_PITCH), expect[t].slice_pitch);
    cl_uint n = 99;
    assert_cl_success(clGetImageInfo(image, CL_IMAGE_NUM_MIP_LEVELS, sizeof n, &n, NULL));
    assert_int_equal(n, 0);
    n = 99;
    assert_cl_success(clGetImageInfo(image, CL_IMAGE_NUM_SAMPLES, sizeof n, &n, NULL));
    assert_int_equal(n, 0);
    cl_mem buffer = (cl_mem)1;
    assert_cl_success(clGetImageInfo(image, CL_IMAGE_BUFFER, sizeof buffer, &buffer, NULL));
    if (expect[t].type == CL_MEM_OBJECT_IMAGE1D_BUFFER) {
      cl_mem associated = NULL;
      assert_cl_success(clGetMemObjectInfo(image, CL_MEM_ASSOCIATED_MEMOBJECT, sizeof associated, &associated, NULL));
      assert_non_null(buffer);
      assert_ptr_equal(buffer, associated);
    } else {
      assert_null(buffer);
    }
    assert_cl_success(clReleaseMemObject(image));
  }
}

/* Given pitches (USE_HOST_PTR) are reported as given; so are COPY_HOST_PTR's. */
static void test_given_pitches_reported(void **state) {
  struct kiln_test_env *env = *state;
  unsigned char *host = kiln_test_host_alloc(4096);
  const cl_mem_flags flags[] = {CL_MEM_USE_HOST_PTR, CL_MEM_COPY_HOST_PTR};
  for (int f = 0; f < 2; f++) {
    cl_image_desc desc = {.image_type = CL_MEM_OBJECT_IMAGE2D_ARRAY,
                          .image_width = 3,
                          .image_height = 2,
                          .image_array_size = 2,
                          .image_row_pitch = 16,
                          .image_slice_pitch = 48};
    cl_int err;
    cl_mem image = clCreateImage(env->context, flags[f], &rgba8, &desc, host, &err);
    assert_cl_success(err);
    assert_int_equal(image_info_size(image, CL_IMAGE_ROW_PITCH), 16);
    assert_int_equal(image_info_size(image, CL_IMAGE_SLICE_PITCH), 48);
    assert_cl_success(clReleaseMemObject(image));
    /* a 2D image: its row pitch, and slice pitch 0 even when one was given */
    cl_image_desc d2 = {
        .image_type = CL_MEM_OBJECT_IMAGE2D, .image_width = 3, .image_height = 2, .image_row_pitch = 20};
    image = clCreateImage(env->context, flags[f], &rgba8, &d2, host, &err);
    assert_cl_success(err);
    assert_int_equal(image_info_size(image, CL_IMAGE_ROW_PITCH), 20);
    assert_int_equal(image_info_size(image, CL_IMAGE_SLICE_PITCH), 0);
    assert_cl_success(clReleaseMemObject(image));
  }
  free(host);
}

static void test_mem_object_info_of_images(void **state) {
  struct kiln_test_env *env = *state;
  cl_int err;
  unsigned char *host = kiln_test_host_alloc(4096);
  cl_image_desc desc = {.image_type = CL_MEM_OBJECT_IMAGE3D, .image_width = 4, .image_height = 3, .image_depth = 2};
  cl_mem image = clCreateImage(env->context, CL_MEM_USE_HOST_PTR | CL_MEM_READ_ONLY, &rgba8, &desc, host, &err);
  assert_cl_success(err);
  cl_mem_object_type type;
  assert_cl_success(clGetMemObjectInfo(image, CL_MEM_TYPE, sizeof type, &type, NULL));
  assert_int_equal(type, CL_MEM_OBJECT_IMAGE3D);
  cl_mem_flags flags;
  assert_cl_success(clGetMemObjectInfo(image, CL_MEM_FLAGS, sizeof flags, &flags, NULL));
  assert_int_equal(flags, CL_MEM_USE_HOST_PTR | CL_MEM_READ_ONLY);
  size_t size = 0, offset = 1;
  assert_cl_success(clGetMemObjectInfo(image, CL_MEM_SIZE, sizeof size, &size, NULL));
  assert_int_equal(size, 4 * 4 * 3 * 2);
  assert_cl_success(clGetMemObjectInfo(image, CL_MEM_OFFSET, sizeof offset, &offset, NULL));
  assert_int_equal(offset, 0);
  void *ptr = NULL;
  assert_cl_success(clGetMemObjectInfo(image, CL_MEM_HOST_PTR, sizeof ptr, &ptr, NULL));
  assert_ptr_equal(ptr, host);
  cl_mem associated = (cl_mem)1;
  assert_cl_success(clGetMemObjectInfo(image, CL_MEM_ASSOCIATED_MEMOBJECT, sizeof associated, &associated, NULL));
  assert_null(associated);
  cl_context context = NULL;
  assert_cl_success(clGetMemObjectInfo(image, CL_MEM_CONTEXT, sizeof context, &context, NULL));
  assert_ptr_equal(context, env->context);
  cl_uint count = 99;
  assert_cl_success(clGetMemObjectInfo(image, CL_MEM_MAP_COUNT, sizeof count, &count, NULL));
  assert_int_equal(count, 0);
  assert_cl_success(clGetMemObjectInfo(image, CL_MEM_REFERENCE_COUNT, sizeof count, &count, NULL));
  assert_int_equal(count, 1);
  assert_cl_success(clReleaseMemObject(image));
  /* a 2D image over a buffer: its own size, the buffer associated, offset 0 */
  cl_mem buffer = clCreateBuffer(env->context, 0, 4096, NULL, &err);
  assert_cl_success(err);
  cl_image_desc d2 = {.image_type = CL_MEM_OBJECT_IMAGE2D,
                      .image_width = 8,
                      .image_height = 4,
                      .image_row_pitch = 64,
                      .mem_object = buffer};
  image = clCreateImage(env->context, 0, &rgba8, &d2, NULL, &err);
  assert_cl_success(err);
  assert_cl_success(clGetMemObjectInfo(image, CL_MEM_SIZE, sizeof size, &size, NULL));
  assert_int_equal(size, 64 * 4);
  assert_cl_success(clGetMemObjectInfo(image, CL_MEM_ASSOCIATED_MEMOBJECT, sizeof associated, &associated, NULL));
  assert_ptr_equal(associated, buffer);
  assert_cl_success(clGetMemObjectInfo(image, CL_MEM_OFFSET, sizeof offset, &offset, NULL));
  assert_int_equal(offset, 0);
  assert_int_equal(image_info_size(image, CL_IMAGE_ROW_PITCH), 64);
  assert_cl_success(clReleaseMemObject(image));
  assert_cl_success(clReleaseMemObject(buffer));
  free(host);
}

static void test_image_info_errors(void **state) {
  struct kiln_test_env *env = *state;
  const size_t extent[3] = {4, 4, 1};
  cl_mem image = image_create(env->context, 0, &rgba8, CL_MEM_OBJECT_IMAGE2D, extent, NULL);
  size_t v;
  cl_image_format format;
  assert_int_equal(clGetImageInfo(image, CL_IMAGE_WIDTH, sizeof v - 1, &v, NULL), CL_INVALID_VALUE);
  assert_int_equal(clGetImageInfo(image, CL_IMAGE_FORMAT, sizeof format - 1, &format, NULL), CL_INVALID_VALUE);
  assert_int_equal(clGetImageInfo(image, CL_MEM_SIZE, sizeof v, &v, NULL), CL_INVALID_VALUE);
  assert_int_equal(clGetImageInfo(image, 0x7777, sizeof v, &v, NULL), CL_INVALID_VALUE);
  size_t size = 0;
  assert_cl_success(clGetImageInfo(image, CL_IMAGE_FORMAT, 0, NULL, &size));
  assert_int_equal(size, sizeof(cl_image_format));
  cl_int err;
  cl_mem buffer = clCreateBuffer(env->context, 0, 64, NULL, &err);
  assert_cl_success(err);
  assert_int_equal(clGetImageInfo(buffer, CL_IMAGE_WIDTH, sizeof v, &v, NULL), CL_INVALID_MEM_OBJECT);
  assert_cl_success(clReleaseMemObject(buffer));
  const struct _cl_icd_dispatch *d = kiln_test_dispatch_of(env->queue);
  assert_int_equal(d->clGetImageInfo(NULL, CL_IMAGE_WIDTH, sizeof v, &v, NULL), CL_INVALID_MEM_OBJECT);
  assert_int_equal(d->clGetImageInfo((cl_mem)env->queue, CL_IMAGE_WIDTH, sizeof v, &v, NULL), CL_INVALID_MEM_OBJECT);
  assert_cl_success(clReleaseMemObject(image));
}

static bool format_listed(const cl_image_format *list, cl_uint count, cl_channel_order order, cl_channel_type type) {
  for (cl_uint i = 0; i < count; i++)
    if (list[i].image_channel_order == order && list[i].image_channel_data_type == type) return true;
  return false;
}

/* The API spec's minimum lists: for reading or writing, RGBA in ten data types and BGRA
 * UNORM_INT8; for reading and writing in one kernel, R and RGBA in nine. */
static void test_minimum_formats_listed(void **state) {
  struct kiln_test_env *env = *state;
  static const cl_channel_type rw_types[] = {CL_UNORM_INT8,     CL_SIGNED_INT8,   CL_SIGNED_INT16,
                                             CL_SIGNED_INT32,   CL_UNSIGNED_INT8, CL_UNSIGNED_INT16,
                                             CL_UNSIGNED_INT32, CL_HALF_FLOAT,    CL_FLOAT};
  const cl_mem_flags flags[] = {CL_MEM_READ_ONLY, CL_MEM_WRITE_ONLY, CL_MEM_READ_WRITE, CL_MEM_KERNEL_READ_AND_WRITE};
  for (int t = 0; t < IMAGE_TYPE_COUNT; t++) {
    for (int f = 0; f < 4; f++) {
      cl_uint count = 0;
      assert_cl_success(clGetSupportedImageFormats(env->context, flags[f], image_types[t], 0, NULL, &count));
      assert_true(count > 0);
      cl_image_format *list = calloc(count, sizeof *list);
      cl_uint again = 0;
      assert_cl_success(clGetSupportedImageFormats(env->context, flags[f], image_types[t], count, list, &again));
      assert_int_equal(again, count);
      for (size_t i = 0; i < sizeof rw_types / sizeof rw_types[0]; i++) {
        assert_true(format_listed(list, count, CL_RGBA, rw_types[i]));
        if (flags[f] == CL_MEM_KERNEL_READ_AND_WRITE) assert_true(format_listed(list, count, CL_R, rw_types[i]));
      }
      if (flags[f] != CL_MEM_KERNEL_READ_AND_WRITE) {
        assert_true(format_listed(list, count, CL_RGBA, CL_UNORM_INT16));
        assert_true(format_listed(list, count, CL_BGRA, CL_UNORM_INT8));
      }
      /* fewer entries than formats: only that many are written */
      cl_image_format two[3];
      memset(two, 0xEE, sizeof two);
      assert_cl_success(clGetSupportedImageFormats(env->context, flags[f], image_types[t], 2, two, NULL));
      assert_memory_equal(two, list, 2 * sizeof *list);
      assert_int_equal(two[2].image_channel_order, 0xEEEEEEEE);
      free(list);
    }
  }
}

/* Every format listed for a type and access creates an image of it, and a value written
 * reads back unchanged. */
static void test_every_listed_format_creates(void **state) {
  struct kiln_test_env *env = *state;
  const cl_mem_flags flags[] = {CL_MEM_READ_ONLY, CL_MEM_READ_WRITE};
  for (int t = 0; t < IMAGE_TYPE_COUNT; t++) {
    for (int f = 0; f < 2; f++) {
      cl_uint count = 0;
      assert_cl_success(clGetSupportedImageFormats(env->context, flags[f], image_types[t], 0, NULL, &count));
      cl_image_format *list = calloc(count, sizeof *list);
      assert_cl_success(clGetSupportedImageFormats(env->context, flags[f], image_types[t], count, list, NULL));
      for (cl_uint i = 0; i < count; i++) {
        size_t extent[3];
        image_extent_of(image_types[t], 3, 2, 2, extent);
        cl_mem image = image_create(env->context, flags[f], &list[i], image_types[t], extent, NULL);
        size_t element = image_info_size(image, CL_IMAGE_ELEMENT_SIZE);
        assert_int_equal(element, image_element_size(&list[i]));
        size_t bytes = image_bytes(extent, element);
        unsigned char in[3 * 2 * 2 * 16], out[3 * 2 * 2 * 16];
        image_pattern(in, bytes, i);
        image_write_all(env->queue, image, extent, in);
        image_read_all(env->queue, image, extent, out);
        assert_memory_equal(in, out, bytes);
        assert_cl_success(clReleaseMemObject(image));
      }
      free(list);
    }
  }
}

static void test_supported_formats_errors(void **state) {
  struct kiln_test_env *env = *state;
  const struct _cl_icd_dispatch *d = kiln_test_dispatch_of(env->queue);
  cl_uint count;
  cl_image_format formats[4];
  assert_int_equal(d->clGetSupportedImageFormats((cl_context)env->queue, 0, CL_MEM_OBJECT_IMAGE2D, 0, NULL, &count),
                   CL_INVALID_CONTEXT);
  assert_int_equal(clGetSupportedImageFormats(env->context, 0, CL_MEM_OBJECT_BUFFER, 0, NULL, &count),
                   CL_INVALID_VALUE);
  assert_int_equal(clGetSupportedImageFormats(env->context, 0, CL_MEM_OBJECT_PIPE, 0, NULL, &count), CL_INVALID_VALUE);
  assert_int_equal(
      clGetSupportedImageFormats(env->context, (cl_mem_flags)1 << 40, CL_MEM_OBJECT_IMAGE2D, 0, NULL, &count),
      CL_INVALID_VALUE);
  assert_int_equal(clGetSupportedImageFormats(env->context, CL_MEM_READ_ONLY | CL_MEM_WRITE_ONLY, CL_MEM_OBJECT_IMAGE2D,
                                              0, NULL, &count),
                   CL_INVALID_VALUE);
  assert_int_equal(clGetSupportedImageFormats(env->context, 0, CL_MEM_OBJECT_IMAGE2D, 0, formats, &count),
                   CL_INVALID_VALUE);
  /* no output asked for: nothing to write, still a success */
  assert_cl_success(clGetSupportedImageFormats(env->context, 0, CL_MEM_OBJECT_IMAGE2D, 0, NULL, NULL));
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_dimensions_and_pitches_per_type), cmocka_unit_test(test_given_pitches_reported),
      cmocka_unit_test(test_mem_object_info_of_images),       cmocka_unit_test(test_image_info_errors),
      cmocka_unit_test(test_minimum_formats_listed),          cmocka_unit_test(test_every_listed_format_creates),
      cmocka_unit_test(test_supported_formats_errors),
  };
  return cmocka_run_group_tests(tests, kiln_test_env_setup, kiln_test_env_teardown);
}
