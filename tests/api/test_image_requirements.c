/* cl_ext_image_requirements_info (and the slice pitch query of cl_ext_image_from_buffer)
 * through the loader. clGetImageRequirementsInfoEXT is reached through
 * clGetExtensionFunctionAddressForPlatform. Every answer is checked against what it claims:
 *  - alignments: powers of two for every type, format and flags; the answer without a
 *    format, a descriptor or flags suits every format, descriptor and flags; within the
 *    device's pitch and base-address alignments in bytes of the largest element; and
 *    exactly what clCreateImage enforces over a buffer (a pitch or host pointer one byte
 *    off is CL_INVALID_IMAGE_FORMAT_DESCRIPTOR where the alignment exceeds a byte);
 *  - CL_IMAGE_REQUIREMENTS_SIZE_EXT: the size the spec's layout of an image over a buffer
 *    spans, for every type and format, tight and padded; a buffer of that size backs the
 *    image, whose CL_MEM_SIZE is the same, and one byte less is CL_INVALID_IMAGE_SIZE;
 *  - the dimension limits per type (0: any type; other members 0: any value), equal to the
 *    device's and accepted by clCreateImage while one more is not, bounded by given pitches;
 *  - every error the spec lists. */
#include "image_test.h"

#include <CL/cl_ext.h>
#include <stdint.h>

static clGetImageRequirementsInfoEXT_fn get_requirements;

static int setup(void **state) { return image_requirements_env_setup(state, &get_requirements); }
static int teardown(void **state) { return kiln_test_env_teardown(state); }

#define FLAG_COUNT 5
static const cl_mem_flags query_flags[FLAG_COUNT] = {0, CL_MEM_READ_ONLY, CL_MEM_WRITE_ONLY, CL_MEM_READ_WRITE,
                                                     CL_MEM_KERNEL_READ_AND_WRITE};

static size_t size_query(struct kiln_test_env *env, cl_mem_flags flags, cl_image_requirements_info_ext name,
                         const cl_image_format *format, const cl_image_desc *desc) {
  size_t value = 0, size_ret = 0;
  assert_cl_success(get_requirements(env->context, NULL, flags, format, desc, name, sizeof value, &value, &size_ret));
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

static cl_int query_error(struct kiln_test_env *env, cl_image_requirements_info_ext name,
                          const cl_image_format *format, const cl_image_desc *desc) {
  size_t value[2] = {0}; /* room for any return type */
  return get_requirements(env->context, NULL, 0, format, desc, name, sizeof value, value, NULL);
}

static bool is_power_of_two(size_t v) { return v && (v & (v - 1)) == 0; }

static size_t round_up(size_t v, size_t to) { return (v + to - 1) / to * to; }

/* The formats listed for `type` and `flags` (freed by the caller). */
static cl_image_format *formats_of(struct kiln_test_env *env, cl_mem_object_type type, cl_mem_flags flags,
                                   cl_uint *count) {
  assert_cl_success(clGetSupportedImageFormats(env->context, flags, type, 0, NULL, count));
  assert_true(*count > 0);
  cl_image_format *formats = calloc(*count, sizeof *formats);
  assert_cl_success(clGetSupportedImageFormats(env->context, flags, type, *count, formats, NULL));
  return formats;
}

/* The alignment queries: (row, slice, base). */
static const cl_image_requirements_info_ext alignment_names[3] = {CL_IMAGE_REQUIREMENTS_ROW_PITCH_ALIGNMENT_EXT,
                                                                  CL_IMAGE_REQUIREMENTS_SLICE_PITCH_ALIGNMENT_EXT,
                                                                  CL_IMAGE_REQUIREMENTS_BASE_ADDRESS_ALIGNMENT_EXT};

static void test_extension_listed_and_function_reachable(void **state) {
  struct kiln_test_env *env = *state;
  kiln_test_expect_extension(env->device, "cl_ext_image_requirements_info", CL_MAKE_VERSION(0, 5, 0));
  /* the platform's lookup finds it by its exact name only */
  assert_non_null(get_requirements);
  assert_null(clGetExtensionFunctionAddressForPlatform(env->platform, "clGetImageRequirementsInfo"));
}

/* Every type, flags and listed format, with and without a descriptor: powers of two; the
 * answers without a format, without a descriptor or for flags 0 hold for all of them
 * (they are multiples of every specific answer); and the answers for the format with the
 * largest element fit in the device's alignments converted to bytes of that element
 * (the consistency the extension asks with cl_khr_image2d_from_buffer). */
static void test_alignments_are_powers_of_two_and_general_answers_suit_all(void **state) {
  struct kiln_test_env *env = *state;
  cl_uint pitch_pixels = 0, base_pixels = 0;
  assert_cl_success(
      clGetDeviceInfo(env->device, CL_DEVICE_IMAGE_PITCH_ALIGNMENT, sizeof pitch_pixels, &pitch_pixels, NULL));
  assert_cl_success(
      clGetDeviceInfo(env->device, CL_DEVICE_IMAGE_BASE_ADDRESS_ALIGNMENT, sizeof base_pixels, &base_pixels, NULL));
  size_t any_format[3];
  for (int q = 0; q < 3; q++) {
    any_format[q] = size_query(env, 0, alignment_names[q], NULL, NULL);
    assert_true(is_power_of_two(any_format[q]));
  }
  size_t largest_element = 0, largest_answer[3] = {0};
  for (int t = 0; t < IMAGE_TYPE_COUNT; t++) {
    size_t extent[3];
    image_extent_of(image_types[t], 6, 5, 3, extent);
    cl_image_desc desc = image_desc_of(image_types[t], extent);
    for (int f = 0; f < FLAG_COUNT; f++) {
      cl_uint count;
      cl_image_format *formats = formats_of(env, image_types[t], query_flags[f] ? query_flags[f] : CL_MEM_READ_WRITE,
                                            &count);
      for (cl_uint i = 0; i < count; i++) {
        size_t element = image_element_size(&formats[i]);
        for (int q = 0; q < 3; q++) {
          size_t with_desc = size_query(env, query_flags[f], alignment_names[q], &formats[i], &desc);
          size_t without_desc = size_query(env, query_flags[f], alignment_names[q], &formats[i], NULL);
          size_t all_flags = size_query(env, 0, alignment_names[q], &formats[i], &desc);
          size_t no_format = size_query(env, query_flags[f], alignment_names[q], NULL, &desc);
          assert_true(is_power_of_two(with_desc) && is_power_of_two(without_desc) && is_power_of_two(all_flags) &&
                      is_power_of_two(no_format));
          assert_int_equal(without_desc % with_desc, 0);
          assert_int_equal(all_flags % with_desc, 0);
          assert_int_equal(no_format % with_desc, 0);
          assert_int_equal(any_format[q] % with_desc, 0);
          if (element > largest_element) {
            largest_element = element;
            memset(largest_answer, 0, sizeof largest_answer);
          }
          if (element == largest_element && with_desc > largest_answer[q]) largest_answer[q] = with_desc;
        }
      }
      free(formats);
    }
  }
  assert_true(largest_answer[0] <= pitch_pixels * largest_element);
  assert_true(largest_answer[2] <= base_pixels * largest_element);
}

/* An image over `buffer` of every type that has rows, every format: pitches rounded up
 * to the reported alignments (plus a spare step) are accepted; pitches `off` bytes beyond
 * them are CL_INVALID_IMAGE_FORMAT_DESCRIPTOR whenever `off` breaks the alignment. */
static void check_pitch_alignment_enforced(struct kiln_test_env *env, cl_mem buffer, cl_mem_object_type type,
                                           const cl_image_format *format) {
  size_t extent[3];
  image_extent_of(type, 5, 3, 2, extent);
  cl_image_desc desc = image_desc_of(type, extent);
  size_t row_alignment = size_query(env, CL_MEM_READ_WRITE, CL_IMAGE_REQUIREMENTS_ROW_PITCH_ALIGNMENT_EXT, format, &desc);
  size_t slice_alignment =
      size_query(env, CL_MEM_READ_WRITE, CL_IMAGE_REQUIREMENTS_SLICE_PITCH_ALIGNMENT_EXT, format, &desc);
  size_t element = image_element_size(format);
  /* a row pitch that satisfies both, so that whole rows make an aligned slice pitch */
  size_t step = row_alignment > slice_alignment ? row_alignment : slice_alignment;
  size_t row_pitch = round_up(extent[0] * element, step) + step;
  size_t rows = type == CL_MEM_OBJECT_IMAGE1D_ARRAY ? 1 : extent[1];
  bool has_slices = type != CL_MEM_OBJECT_IMAGE2D;
  size_t slice_pitch = has_slices ? row_pitch * (rows + 1) : 0;
  desc.mem_object = buffer;
  desc.image_row_pitch = row_pitch;
  desc.image_slice_pitch = slice_pitch;
  cl_int err;
  cl_mem image = clCreateImage(env->context, CL_MEM_READ_WRITE, format, &desc, NULL, &err);
  assert_cl_success(err);
  assert_cl_success(clReleaseMemObject(image));
  for (size_t off = 1; off < row_alignment; off *= 2) {
    desc.image_row_pitch = row_pitch + off;
    desc.image_slice_pitch = has_slices ? desc.image_row_pitch * (rows + 1) : 0;
    assert_int_equal(image_create_error(env->context, CL_MEM_READ_WRITE, format, &desc, NULL),
                     CL_INVALID_IMAGE_FORMAT_DESCRIPTOR);
  }
  desc.image_row_pitch = row_pitch;
  for (size_t off = 1; has_slices && off < slice_alignment; off *= 2) {
    desc.image_slice_pitch = slice_pitch + off;
    assert_int_equal(image_create_error(env->context, CL_MEM_READ_WRITE, format, &desc, NULL),
                     CL_INVALID_IMAGE_FORMAT_DESCRIPTOR);
  }
}

/* A USE_HOST_PTR buffer at an address aligned exactly to the reported base alignment
 * backs an image of every type; one byte further on (if that breaks it) it does not. */
static void check_base_alignment_enforced(struct kiln_test_env *env, cl_mem_object_type type,
                                          const cl_image_format *format) {
  size_t extent[3];
  image_extent_of(type, 4, 3, 2, extent);
  cl_image_desc desc = image_desc_of(type, extent);
  size_t base = size_query(env, CL_MEM_READ_WRITE, CL_IMAGE_REQUIREMENTS_BASE_ADDRESS_ALIGNMENT_EXT, format, &desc);
  size_t size = size_query(env, CL_MEM_READ_WRITE, CL_IMAGE_REQUIREMENTS_SIZE_EXT, format, &desc);
  unsigned char *memory = malloc(size + 4 * base + 1);
  /* aligned to `base` but not to twice it, so a stricter check would fail */
  unsigned char *aligned = memory + (base - (uintptr_t)memory % base) % base;
  if ((uintptr_t)aligned % (2 * base) == 0) aligned += base;
  cl_int err;
  for (size_t off = 0; off < base; off = off ? off * 2 : 1) {
    cl_mem buffer = clCreateBuffer(env->context, CL_MEM_USE_HOST_PTR | CL_MEM_READ_WRITE, size, aligned + off, &err);
    assert_cl_success(err);
    desc.mem_object = buffer;
    cl_mem image = clCreateImage(env->context, CL_MEM_READ_WRITE, format, &desc, NULL, &err);
    if (off == 0) {
      assert_cl_success(err);
      assert_cl_success(clReleaseMemObject(image));
    } else {
      assert_null(image);
      assert_int_equal(err, CL_INVALID_IMAGE_FORMAT_DESCRIPTOR);
    }
    assert_cl_success(clReleaseMemObject(buffer));
  }
  free(memory);
}

static void test_alignments_are_what_clCreateImage_enforces(void **state) {
  struct kiln_test_env *env = *state;
  cl_int err;
  cl_mem buffer = clCreateBuffer(env->context, CL_MEM_READ_WRITE, 1 << 16, NULL, &err);
  assert_cl_success(err);
  for (int t = 0; t < IMAGE_TYPE_COUNT; t++) {
    cl_uint count;
    cl_image_format *formats = formats_of(env, image_types[t], CL_MEM_READ_WRITE, &count);
    for (cl_uint i = 0; i < count; i++) {
      bool has_rows = image_types[t] != CL_MEM_OBJECT_IMAGE1D && image_types[t] != CL_MEM_OBJECT_IMAGE1D_BUFFER;
      if (has_rows) check_pitch_alignment_enforced(env, buffer, image_types[t], &formats[i]);
      check_base_alignment_enforced(env, image_types[t], &formats[i]);
    }
    free(formats);
  }
  assert_cl_success(clReleaseMemObject(buffer));
}

/* The smallest buffer the spec's layout of an image over a buffer needs: the 1D types one
 * row of elements, a 2D image row pitch x height, the arrays and 3D slice pitch x slices. */
static size_t spec_span(const cl_image_desc *desc, size_t element) {
  size_t row = desc->image_row_pitch ? desc->image_row_pitch : desc->image_width * element;
  switch (desc->image_type) {
  case CL_MEM_OBJECT_IMAGE1D_ARRAY:
    return (desc->image_slice_pitch ? desc->image_slice_pitch : row) * desc->image_array_size;
  case CL_MEM_OBJECT_IMAGE2D:
    return row * desc->image_height;
  case CL_MEM_OBJECT_IMAGE2D_ARRAY:
    return (desc->image_slice_pitch ? desc->image_slice_pitch : row * desc->image_height) * desc->image_array_size;
  case CL_MEM_OBJECT_IMAGE3D:
    return (desc->image_slice_pitch ? desc->image_slice_pitch : row * desc->image_height) * desc->image_depth;
  default:
    return desc->image_width * element;
  }
}

/* Every type and format, tight and padded: the size is the spec's span, the same for every
 * flags; a buffer that size backs the image, whose CL_MEM_SIZE it is; a byte less does not. */
static void test_size_is_the_buffer_an_image_needs(void **state) {
  struct kiln_test_env *env = *state;
  for (int t = 0; t < IMAGE_TYPE_COUNT; t++) {
    cl_mem_object_type type = image_types[t];
    cl_uint count;
    cl_image_format *formats = formats_of(env, type, CL_MEM_READ_WRITE, &count);
    for (cl_uint i = 0; i < count; i++) {
      size_t element = image_element_size(&formats[i]);
      for (int padded = 0; padded < 2; padded++) {
        size_t extent[3];
        image_extent_of(type, 9, 4, 3, extent);
        cl_image_desc desc = image_desc_of(type, extent);
        size_t alignment =
            size_query(env, CL_MEM_READ_WRITE, CL_IMAGE_REQUIREMENTS_ROW_PITCH_ALIGNMENT_EXT, &formats[i], &desc);
        if (padded && type != CL_MEM_OBJECT_IMAGE1D && type != CL_MEM_OBJECT_IMAGE1D_BUFFER) {
          desc.image_row_pitch = round_up(12 * element, alignment);
          if (type == CL_MEM_OBJECT_IMAGE1D_ARRAY) desc.image_slice_pitch = desc.image_row_pitch * 3;
          if (type == CL_MEM_OBJECT_IMAGE2D_ARRAY || type == CL_MEM_OBJECT_IMAGE3D)
            desc.image_slice_pitch = desc.image_row_pitch * (extent[1] + 2);
        }
        size_t size = size_query(env, CL_MEM_READ_WRITE, CL_IMAGE_REQUIREMENTS_SIZE_EXT, &formats[i], &desc);
        assert_int_equal(size, spec_span(&desc, element));
        for (int f = 0; f < FLAG_COUNT; f++)
          assert_int_equal(size_query(env, query_flags[f], CL_IMAGE_REQUIREMENTS_SIZE_EXT, &formats[i], &desc), size);
        cl_int err;
        cl_mem small = clCreateBuffer(env->context, CL_MEM_READ_WRITE, size - 1, NULL, &err);
        assert_cl_success(err);
        desc.mem_object = small;
        assert_int_equal(image_create_error(env->context, CL_MEM_READ_WRITE, &formats[i], &desc, NULL),
                         CL_INVALID_IMAGE_SIZE);
        cl_mem buffer = clCreateBuffer(env->context, CL_MEM_READ_WRITE, size, NULL, &err);
        assert_cl_success(err);
        desc.mem_object = buffer;
        cl_mem image = clCreateImage(env->context, CL_MEM_READ_WRITE, &formats[i], &desc, NULL, &err);
        assert_cl_success(err);
        size_t mem_size = 0;
        assert_cl_success(clGetMemObjectInfo(image, CL_MEM_SIZE, sizeof mem_size, &mem_size, NULL));
        assert_int_equal(mem_size, size);
        assert_cl_success(clReleaseMemObject(image));
        assert_cl_success(clReleaseMemObject(buffer));
        assert_cl_success(clReleaseMemObject(small));
      }
    }
    free(formats);
  }
}

struct device_limits {
  size_t w2, h2, w3, h3, d3, layers, buffer_pixels;
};

static struct device_limits device_limits_of(cl_device_id device) {
  struct device_limits l;
  assert_cl_success(clGetDeviceInfo(device, CL_DEVICE_IMAGE2D_MAX_WIDTH, sizeof l.w2, &l.w2, NULL));
  assert_cl_success(clGetDeviceInfo(device, CL_DEVICE_IMAGE2D_MAX_HEIGHT, sizeof l.h2, &l.h2, NULL));
  assert_cl_success(clGetDeviceInfo(device, CL_DEVICE_IMAGE3D_MAX_WIDTH, sizeof l.w3, &l.w3, NULL));
  assert_cl_success(clGetDeviceInfo(device, CL_DEVICE_IMAGE3D_MAX_HEIGHT, sizeof l.h3, &l.h3, NULL));
  assert_cl_success(clGetDeviceInfo(device, CL_DEVICE_IMAGE3D_MAX_DEPTH, sizeof l.d3, &l.d3, NULL));
  assert_cl_success(clGetDeviceInfo(device, CL_DEVICE_IMAGE_MAX_ARRAY_SIZE, sizeof l.layers, &l.layers, NULL));
  assert_cl_success(
      clGetDeviceInfo(device, CL_DEVICE_IMAGE_MAX_BUFFER_SIZE, sizeof l.buffer_pixels, &l.buffer_pixels, NULL));
  return l;
}

static size_t min_of(size_t a, size_t b) { return a < b ? a : b; }

static const cl_image_requirements_info_ext dimension_names[4] = {
    CL_IMAGE_REQUIREMENTS_MAX_WIDTH_EXT, CL_IMAGE_REQUIREMENTS_MAX_HEIGHT_EXT, CL_IMAGE_REQUIREMENTS_MAX_DEPTH_EXT,
    CL_IMAGE_REQUIREMENTS_MAX_ARRAY_SIZE_EXT};

/* The limits per type equal the device's; type 0 (or no descriptor) the smallest of the
 * types that have the dimension; a query for a dimension the type lacks is
 * CL_INVALID_IMAGE_DESCRIPTOR. With and without a format, other members 0 or set, and the
 * queried member ignored. */
static void test_dimension_limits_per_type(void **state) {
  struct kiln_test_env *env = *state;
  struct device_limits l = device_limits_of(env->device);
  struct {
    cl_mem_object_type type;
    size_t width, height, depth, array_size; /* 0: the query is CL_INVALID_IMAGE_DESCRIPTOR */
  } rows[] = {
      {CL_MEM_OBJECT_IMAGE1D, l.w2, 0, 0, 0},
      {CL_MEM_OBJECT_IMAGE1D_BUFFER, l.buffer_pixels, 0, 0, 0},
      {CL_MEM_OBJECT_IMAGE1D_ARRAY, l.w2, 0, 0, l.layers},
      {CL_MEM_OBJECT_IMAGE2D, l.w2, l.h2, 0, 0},
      {CL_MEM_OBJECT_IMAGE2D_ARRAY, l.w2, l.h2, 0, l.layers},
      {CL_MEM_OBJECT_IMAGE3D, l.w3, l.h3, l.d3, 0},
      {0, min_of(min_of(l.w3, l.w2), l.buffer_pixels), min_of(l.h3, l.h2), l.d3, l.layers},
  };
  const cl_image_format float4 = {CL_RGBA, CL_FLOAT};
  const cl_image_format *formats[3] = {NULL, &rgba8, &float4};
  for (size_t r = 0; r < sizeof rows / sizeof rows[0]; r++) {
    const size_t expect[4] = {rows[r].width, rows[r].height, rows[r].depth, rows[r].array_size};
    for (int q = 0; q < 4; q++) {
      for (int f = 0; f < 3; f++) {
        for (int filled = 0; filled < 2; filled++) {
          size_t extent[3];
          image_extent_of(rows[r].type, 7, 5, 3, extent);
          cl_image_desc desc = {.image_type = rows[r].type};
          if (filled && rows[r].type) desc = image_desc_of(rows[r].type, extent);
          /* the queried member is ignored, however large */
          size_t *queried[4] = {&desc.image_width, &desc.image_height, &desc.image_depth, &desc.image_array_size};
          *queried[q] = (size_t)1 << 40;
          if (expect[q]) {
            assert_int_equal(uint_query(env, dimension_names[q], formats[f], &desc), min_of(expect[q], UINT32_MAX));
          } else {
            assert_int_equal(query_error(env, dimension_names[q], formats[f], &desc), CL_INVALID_IMAGE_DESCRIPTOR);
          }
        }
      }
    }
  }
  /* no descriptor: the limits that suit every type */
  for (int q = 0; q < 4; q++) {
    const size_t any_type[4] = {rows[6].width, rows[6].height, rows[6].depth, rows[6].array_size};
    assert_int_equal(uint_query(env, dimension_names[q], NULL, NULL), any_type[q]);
    assert_int_equal(uint_query(env, dimension_names[q], &rgba8, NULL), any_type[q]);
  }
}

/* clCreateImage over a buffer accepts each reported maximum (the other dimensions 1) and
 * refuses one more (CL_INVALID_IMAGE_SIZE). The 1D image buffer's maximum, as large as the
 * largest allocation allows, is left out: such a buffer is not made in a test. */
static void test_dimension_limits_are_what_clCreateImage_accepts(void **state) {
  struct kiln_test_env *env = *state;
  const cl_image_format r8 = {CL_R, CL_UNSIGNED_INT8};
  const cl_mem_object_type types[] = {CL_MEM_OBJECT_IMAGE1D, CL_MEM_OBJECT_IMAGE1D_ARRAY, CL_MEM_OBJECT_IMAGE2D,
                                      CL_MEM_OBJECT_IMAGE2D_ARRAY, CL_MEM_OBJECT_IMAGE3D};
  for (size_t t = 0; t < sizeof types / sizeof types[0]; t++) {
    for (int q = 0; q < 4; q++) {
      size_t one[3] = {1, 1, 1};
      cl_image_desc desc = image_desc_of(types[t], one);
      if (query_error(env, dimension_names[q], &r8, &desc) == CL_INVALID_IMAGE_DESCRIPTOR) continue;
      size_t max = uint_query(env, dimension_names[q], &r8, &desc);
      size_t *member[4] = {&desc.image_width, &desc.image_height, &desc.image_depth, &desc.image_array_size};
      for (size_t extra = 0; extra < 2; extra++) {
        *member[q] = max + extra;
        desc.mem_object = NULL;
        size_t size = extra ? max + 1 : size_query(env, 0, CL_IMAGE_REQUIREMENTS_SIZE_EXT, &r8, &desc);
        cl_int err;
        cl_mem buffer = clCreateBuffer(env->context, CL_MEM_READ_WRITE, size, NULL, &err);
        assert_cl_success(err);
        desc.mem_object = buffer;
        cl_mem image = clCreateImage(env->context, CL_MEM_READ_WRITE, &r8, &desc, NULL, &err);
        if (extra) {
          assert_null(image);
          assert_int_equal(err, CL_INVALID_IMAGE_SIZE);
        } else {
          assert_cl_success(err);
          assert_cl_success(clReleaseMemObject(image));
        }
        assert_cl_success(clReleaseMemObject(buffer));
      }
    }
  }
}

/* A given row pitch bounds the width (elements it holds) and, with a slice pitch, the
 * height of the arrays and 3D images (rows a slice holds); clCreateImage agrees. */
static void test_dimension_limits_bounded_by_pitches(void **state) {
  struct kiln_test_env *env = *state;
  cl_image_desc desc = {.image_type = CL_MEM_OBJECT_IMAGE3D, .image_row_pitch = 40, .image_slice_pitch = 400};
  cl_uint width = uint_query(env, CL_IMAGE_REQUIREMENTS_MAX_WIDTH_EXT, &rgba8, &desc);
  cl_uint height = uint_query(env, CL_IMAGE_REQUIREMENTS_MAX_HEIGHT_EXT, &rgba8, &desc);
  assert_int_equal(width, 40 / 4);
  assert_int_equal(height, 400 / 40);
  cl_int err;
  cl_mem buffer = clCreateBuffer(env->context, CL_MEM_READ_WRITE, 400 * 2, NULL, &err);
  assert_cl_success(err);
  desc.mem_object = buffer;
  desc.image_depth = 2;
  desc.image_width = width;
  desc.image_height = height;
  cl_mem image = clCreateImage(env->context, CL_MEM_READ_WRITE, &rgba8, &desc, NULL, &err);
  assert_cl_success(err);
  assert_cl_success(clReleaseMemObject(image));
  desc.image_width = width + 1;
  assert_int_equal(image_create_error(env->context, CL_MEM_READ_WRITE, &rgba8, &desc, NULL),
                   CL_INVALID_IMAGE_DESCRIPTOR);
  desc.image_width = width;
  desc.image_height = height + 1;
  assert_int_equal(image_create_error(env->context, CL_MEM_READ_WRITE, &rgba8, &desc, NULL),
                   CL_INVALID_IMAGE_DESCRIPTOR);
  assert_cl_success(clReleaseMemObject(buffer));
  /* a 2D image has one slice: a slice pitch bounds nothing */
  cl_image_desc flat = {.image_type = CL_MEM_OBJECT_IMAGE2D, .image_row_pitch = 40, .image_slice_pitch = 400};
  size_t h2 = 0;
  assert_cl_success(clGetDeviceInfo(env->device, CL_DEVICE_IMAGE2D_MAX_HEIGHT, sizeof h2, &h2, NULL));
  assert_int_equal(uint_query(env, CL_IMAGE_REQUIREMENTS_MAX_HEIGHT_EXT, &rgba8, &flat), h2);
}

/* Descriptors a dimension query refuses: a type that is no image's, mip levels or samples,
 * another member out of the limits or a pitch too small for the members given. */
static void test_dimension_query_descriptor_errors(void **state) {
  struct kiln_test_env *env = *state;
  size_t h2 = 0;
  assert_cl_success(clGetDeviceInfo(env->device, CL_DEVICE_IMAGE2D_MAX_HEIGHT, sizeof h2, &h2, NULL));
  const struct {
    cl_image_requirements_info_ext name;
    cl_image_desc desc;
  } bad[] = {
      {CL_IMAGE_REQUIREMENTS_MAX_WIDTH_EXT, {.image_type = CL_MEM_OBJECT_BUFFER}},
      {CL_IMAGE_REQUIREMENTS_MAX_WIDTH_EXT, {.image_type = CL_MEM_OBJECT_PIPE}},
      {CL_IMAGE_REQUIREMENTS_MAX_WIDTH_EXT, {.image_type = CL_MEM_OBJECT_IMAGE2D, .num_mip_levels = 2}},
      {CL_IMAGE_REQUIREMENTS_MAX_HEIGHT_EXT, {.image_type = CL_MEM_OBJECT_IMAGE2D, .num_samples = 4}},
      {CL_IMAGE_REQUIREMENTS_MAX_DEPTH_EXT, {.image_type = 0, .num_samples = 4}},
      {CL_IMAGE_REQUIREMENTS_MAX_WIDTH_EXT, {.image_type = CL_MEM_OBJECT_IMAGE2D, .image_height = h2 + 1}},
      /* a row pitch that cannot hold the 16 elements given */
      {CL_IMAGE_REQUIREMENTS_MAX_HEIGHT_EXT,
       {.image_type = CL_MEM_OBJECT_IMAGE2D, .image_width = 16, .image_row_pitch = 16 * 4 - 4}},
  };
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
    assert_int_equal(query_error(env, bad[i].name, &rgba8, &bad[i].desc), CL_INVALID_IMAGE_DESCRIPTOR);
  /* the same member is fine where it is the queried, ignored one */
  assert_cl_success(query_error(env, CL_IMAGE_REQUIREMENTS_MAX_HEIGHT_EXT, &rgba8, &bad[5].desc));
  assert_cl_success(query_error(env, CL_IMAGE_REQUIREMENTS_MAX_WIDTH_EXT, &rgba8, &bad[6].desc));
}

/* The generic errors, each alone on an otherwise valid call. */
static void test_errors(void **state) {
  struct kiln_test_env *env = *state;
  const size_t extent[3] = {8, 8, 1};
  cl_image_desc desc = image_desc_of(CL_MEM_OBJECT_IMAGE2D, extent);
  size_t v = 0;
  const cl_image_requirements_info_ext row = CL_IMAGE_REQUIREMENTS_ROW_PITCH_ALIGNMENT_EXT;
  /* CL_INVALID_CONTEXT */
  assert_int_equal(get_requirements(NULL, NULL, 0, &rgba8, &desc, row, sizeof v, &v, NULL), CL_INVALID_CONTEXT);
  struct kiln_test_fake_handle fake = kiln_test_fake_handle_like(env->context);
  assert_int_equal(get_requirements((cl_context)&fake, NULL, 0, &rgba8, &desc, row, sizeof v, &v, NULL),
                   CL_INVALID_CONTEXT);
  assert_int_equal(get_requirements((cl_context)env->queue, NULL, 0, &rgba8, &desc, row, sizeof v, &v, NULL),
                   CL_INVALID_CONTEXT);
  /* CL_INVALID_PROPERTY: no image property is supported; nor twice */
  const cl_mem_properties bad_property[] = {0x7fff, 1, 0};
  assert_int_equal(get_requirements(env->context, bad_property, 0, &rgba8, &desc, row, sizeof v, &v, NULL),
                   CL_INVALID_PROPERTY);
  const cl_mem_properties twice[] = {0x7fff, 1, 0x7fff, 1, 0};
  assert_int_equal(get_requirements(env->context, twice, 0, &rgba8, &desc, row, sizeof v, &v, NULL),
                   CL_INVALID_PROPERTY);
  const cl_mem_properties empty[] = {0};
  assert_cl_success(get_requirements(env->context, empty, 0, &rgba8, &desc, row, sizeof v, &v, NULL));
  /* CL_INVALID_VALUE for flags: unknown bits, two access qualifiers, conflicting host flags */
  const cl_mem_flags bad_flags[] = {(cl_mem_flags)-1,
                                    (cl_mem_flags)1 << 40,
                                    CL_MEM_READ_ONLY | CL_MEM_WRITE_ONLY,
                                    CL_MEM_READ_WRITE | CL_MEM_READ_ONLY,
                                    CL_MEM_HOST_READ_ONLY | CL_MEM_HOST_NO_ACCESS,
                                    CL_MEM_USE_HOST_PTR | CL_MEM_COPY_HOST_PTR};
  for (size_t i = 0; i < sizeof bad_flags / sizeof bad_flags[0]; i++)
    assert_int_equal(get_requirements(env->context, NULL, bad_flags[i], &rgba8, &desc, row, sizeof v, &v, NULL),
                     CL_INVALID_VALUE);
  /* every flag the spec names to specialize the query is accepted */
  for (int f = 0; f < FLAG_COUNT; f++)
    assert_cl_success(get_requirements(env->context, NULL, query_flags[f], &rgba8, &desc, row, sizeof v, &v, NULL));
  /* CL_INVALID_IMAGE_FORMAT_DESCRIPTOR */
  const cl_image_format bad_formats[] = {
      {CL_INTENSITY, CL_UNORM_SHORT_555}, {0, CL_UNORM_INT8}, {CL_RGBA, 0}, {CL_RGB, CL_UNORM_INT8}};
  for (size_t i = 0; i < sizeof bad_formats / sizeof bad_formats[0]; i++)
    assert_int_equal(get_requirements(env->context, NULL, 0, &bad_formats[i], &desc, row, sizeof v, &v, NULL),
                     CL_INVALID_IMAGE_FORMAT_DESCRIPTOR);
  /* CL_INVALID_IMAGE_DESCRIPTOR for the other queries: a whole, valid descriptor */
  size_t h2 = 0;
  assert_cl_success(clGetDeviceInfo(env->device, CL_DEVICE_IMAGE2D_MAX_HEIGHT, sizeof h2, &h2, NULL));
  const cl_image_desc bad_descs[] = {
      {.image_type = CL_MEM_OBJECT_BUFFER, .image_width = 8},
      {.image_type = CL_MEM_OBJECT_IMAGE1D},                                      /* no width */
      {.image_type = CL_MEM_OBJECT_IMAGE2D, .image_width = 8},                   /* no height */
      {.image_type = CL_MEM_OBJECT_IMAGE2D, .image_width = 8, .image_height = h2 + 1},
      {.image_type = CL_MEM_OBJECT_IMAGE2D_ARRAY, .image_width = 8, .image_height = 8}, /* no layers */
      {.image_type = CL_MEM_OBJECT_IMAGE3D, .image_width = 8, .image_height = 8},       /* no depth */
      {.image_type = CL_MEM_OBJECT_IMAGE2D, .image_width = 8, .image_height = 8, .num_mip_levels = 2},
      {.image_type = CL_MEM_OBJECT_IMAGE2D, .image_width = 8, .image_height = 8, .num_samples = 2},
      {.image_type = CL_MEM_OBJECT_IMAGE2D, .image_width = 8, .image_height = 8, .image_row_pitch = 28},
      {.image_type = CL_MEM_OBJECT_IMAGE2D, .image_width = 8, .image_height = 8, .image_row_pitch = 34},
      {.image_type = CL_MEM_OBJECT_IMAGE3D, .image_width = 8, .image_height = 8, .image_depth = 2,
       .image_row_pitch = 32, .image_slice_pitch = 32 * 7},
      {.image_type = CL_MEM_OBJECT_IMAGE3D, .image_width = 8, .image_height = 8, .image_depth = 2,
       .image_row_pitch = 32, .image_slice_pitch = 32 * 8 + 4},
  };
  const cl_image_requirements_info_ext whole_desc_queries[] = {
      CL_IMAGE_REQUIREMENTS_ROW_PITCH_ALIGNMENT_EXT, CL_IMAGE_REQUIREMENTS_SLICE_PITCH_ALIGNMENT_EXT,
      CL_IMAGE_REQUIREMENTS_BASE_ADDRESS_ALIGNMENT_EXT, CL_IMAGE_REQUIREMENTS_SIZE_EXT};
  for (size_t i = 0; i < sizeof bad_descs / sizeof bad_descs[0]; i++)
    for (int q = 0; q < 4; q++)
      assert_int_equal(query_error(env, whole_desc_queries[q], &rgba8, &bad_descs[i]), CL_INVALID_IMAGE_DESCRIPTOR);
  /* CL_INVALID_VALUE: the size needs both the format and the descriptor */
  assert_int_equal(query_error(env, CL_IMAGE_REQUIREMENTS_SIZE_EXT, NULL, &desc), CL_INVALID_VALUE);
  assert_int_equal(query_error(env, CL_IMAGE_REQUIREMENTS_SIZE_EXT, &rgba8, NULL), CL_INVALID_VALUE);
  assert_int_equal(query_error(env, CL_IMAGE_REQUIREMENTS_SIZE_EXT, NULL, NULL), CL_INVALID_VALUE);
  /* CL_INVALID_VALUE: names that are not this query's */
  const cl_image_requirements_info_ext bad_names[] = {CL_IMAGE_FORMAT, 0, 0x128F, 0x1293, 0x12B1, 0x12B7};
  for (size_t i = 0; i < sizeof bad_names / sizeof bad_names[0]; i++)
    assert_int_equal(query_error(env, bad_names[i], &rgba8, &desc), CL_INVALID_VALUE);
}

/* param_value_size against each query's return type: too small with a destination is
 * CL_INVALID_VALUE (and writes nothing); larger is fine; no destination: only the size. */
static void test_param_value_sizes(void **state) {
  struct kiln_test_env *env = *state;
  const size_t extent[3] = {8, 8, 2};
  cl_image_desc desc = image_desc_of(CL_MEM_OBJECT_IMAGE3D, extent);
  const struct {
    cl_image_requirements_info_ext name;
    size_t size;
  } queries[] = {
      {CL_IMAGE_REQUIREMENTS_ROW_PITCH_ALIGNMENT_EXT, sizeof(size_t)},
      {CL_IMAGE_REQUIREMENTS_SLICE_PITCH_ALIGNMENT_EXT, sizeof(size_t)},
      {CL_IMAGE_REQUIREMENTS_BASE_ADDRESS_ALIGNMENT_EXT, sizeof(size_t)},
      {CL_IMAGE_REQUIREMENTS_SIZE_EXT, sizeof(size_t)},
      {CL_IMAGE_REQUIREMENTS_MAX_WIDTH_EXT, sizeof(cl_uint)},
      {CL_IMAGE_REQUIREMENTS_MAX_HEIGHT_EXT, sizeof(cl_uint)},
      {CL_IMAGE_REQUIREMENTS_MAX_DEPTH_EXT, sizeof(cl_uint)},
  };
  for (size_t i = 0; i < sizeof queries / sizeof queries[0]; i++) {
    unsigned char value[16];
    memset(value, 0xAB, sizeof value);
    size_t size_ret = 0;
    assert_int_equal(get_requirements(env->context, NULL, 0, &rgba8, &desc, queries[i].name, queries[i].size - 1,
                                      value, &size_ret),
                     CL_INVALID_VALUE);
    for (size_t b = 0; b < sizeof value; b++) assert_int_equal(value[b], 0xAB);
    assert_cl_success(
        get_requirements(env->context, NULL, 0, &rgba8, &desc, queries[i].name, 0, NULL, &size_ret));
    assert_int_equal(size_ret, queries[i].size);
    assert_cl_success(get_requirements(env->context, NULL, 0, &rgba8, &desc, queries[i].name, queries[i].size - 1,
                                       NULL, NULL));
    assert_cl_success(get_requirements(env->context, NULL, 0, &rgba8, &desc, queries[i].name, sizeof value, value,
                                       &size_ret));
    assert_int_equal(size_ret, queries[i].size);
    for (size_t b = queries[i].size; b < sizeof value; b++) assert_int_equal(value[b], 0xAB);
  }
  cl_image_desc array = {.image_type = CL_MEM_OBJECT_IMAGE2D_ARRAY};
  size_t size_ret = 0;
  assert_cl_success(get_requirements(env->context, NULL, 0, &rgba8, &array, CL_IMAGE_REQUIREMENTS_MAX_ARRAY_SIZE_EXT,
                                     0, NULL, &size_ret));
  assert_int_equal(size_ret, sizeof(cl_uint));
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_extension_listed_and_function_reachable),
      cmocka_unit_test(test_alignments_are_powers_of_two_and_general_answers_suit_all),
      cmocka_unit_test(test_alignments_are_what_clCreateImage_enforces),
      cmocka_unit_test(test_size_is_the_buffer_an_image_needs),
      cmocka_unit_test(test_dimension_limits_per_type),
      cmocka_unit_test(test_dimension_limits_are_what_clCreateImage_accepts),
      cmocka_unit_test(test_dimension_limits_bounded_by_pitches),
      cmocka_unit_test(test_dimension_query_descriptor_errors),
      cmocka_unit_test(test_errors),
      cmocka_unit_test(test_param_value_sizes),
  };
  return cmocka_run_group_tests(tests, setup, teardown);
}
