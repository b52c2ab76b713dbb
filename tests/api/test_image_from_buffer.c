/* cl_ext_image_from_buffer through the loader: images of every type over a buffer (and a
 * sub-buffer at an offset) with padded row and slice pitches, aliasing both ways — bytes
 * written into the buffer are the image's texels for image reads and kernels, and image
 * writes and kernel writes land in the buffer where the layout says —, the queries
 * (CL_MEM_ASSOCIATED_MEMOBJECT, CL_IMAGE_BUFFER, pitches, CL_MEM_SIZE), and the errors:
 * pitches off the alignment (CL_INVALID_IMAGE_FORMAT_DESCRIPTOR), too small or not a
 * multiple of the row pitch (CL_INVALID_IMAGE_DESCRIPTOR), an unaligned host pointer
 * (CL_INVALID_IMAGE_FORMAT_DESCRIPTOR) and a buffer too small (CL_INVALID_IMAGE_SIZE). */
#include "image_test.h"

#include <stdint.h>

static int setup(void **state) { return kiln_test_env_setup(state); }
static int teardown(void **state) { return kiln_test_env_teardown(state); }

/* Element (x, y, z) of an image laid out with these pitches, z a slice or layer. */
static size_t offset_of(cl_mem_object_type type, size_t x, size_t y, size_t z, size_t element, size_t row_pitch,
                        size_t slice_pitch) {
  if (type == CL_MEM_OBJECT_IMAGE1D_ARRAY) return y * slice_pitch + x * element; /* y: the layer */
  return z * slice_pitch + y * row_pitch + x * element;
}

/* Pitches with padding: a row 3 elements longer than needed; a 1D array's layer two rows,
 * a 2D array's layer or 3D slice one row more than its rows. */
static void padded_pitches(cl_mem_object_type type, const size_t extent[3], size_t element, size_t *row_pitch,
                           size_t *slice_pitch) {
  *row_pitch = (extent[0] + 3) * element;
  *slice_pitch = 0;
  if (type == CL_MEM_OBJECT_IMAGE1D_ARRAY) *slice_pitch = *row_pitch * 2;
  if (type == CL_MEM_OBJECT_IMAGE2D_ARRAY || type == CL_MEM_OBJECT_IMAGE3D) *slice_pitch = *row_pitch * (extent[1] + 1);
}

static bool has_row_pitch(cl_mem_object_type type) {
  return type != CL_MEM_OBJECT_IMAGE1D && type != CL_MEM_OBJECT_IMAGE1D_BUFFER;
}

static cl_mem image_over(struct kiln_test_env *env, cl_mem buffer, cl_mem_object_type type, const size_t extent[3],
                         size_t row_pitch, size_t slice_pitch) {
  cl_image_desc desc = image_desc_of(type, extent);
  desc.image_row_pitch = has_row_pitch(type) ? row_pitch : 0;
  desc.image_slice_pitch = slice_pitch;
  desc.mem_object = buffer;
  cl_int err;
  cl_mem image = clCreateImage(env->context, CL_MEM_READ_WRITE, &rgba8, &desc, NULL, &err);
  assert_cl_success(err);
  return image;
}

/* Bytes written into the buffer are the texels clEnqueueReadImage and a kernel see; texels
 * written with clEnqueueWriteImage and by a kernel are where the layout puts them. */
static void check_aliasing(struct kiln_test_env *env, cl_mem buffer, size_t buffer_offset, cl_mem image,
                           cl_mem_object_type type, const size_t extent[3], size_t row_pitch, size_t slice_pitch) {
  const size_t element = 4;
  size_t tight = image_bytes(extent, element);
  size_t span = offset_of(type, extent[0] - 1, extent[1] - 1, extent[2] - 1, element, row_pitch, slice_pitch) + element;
  unsigned char *bytes = malloc(span), *texels = malloc(tight), *back = malloc(tight);
  image_pattern(bytes, span, 3);
  assert_cl_success(clEnqueueWriteBuffer(env->queue, buffer, CL_TRUE, buffer_offset, span, bytes, 0, NULL, NULL));
  image_read_all(env->queue, image, extent, back);
  for (size_t z = 0; z < extent[2]; z++)
    for (size_t y = 0; y < extent[1]; y++)
      for (size_t x = 0; x < extent[0]; x++) {
        size_t t = ((z * extent[1] + y) * extent[0] + x) * element;
        assert_memory_equal(back + t, bytes + offset_of(type, x, y, z, element, row_pitch, slice_pitch), element);
      }
  /* the other way: texels written to the image appear in the buffer's bytes */
  image_pattern(texels, tight, 9);
  image_write_all(env->queue, image, extent, texels);
  assert_cl_success(clEnqueueReadBuffer(env->queue, buffer, CL_TRUE, buffer_offset, span, bytes, 0, NULL, NULL));
  for (size_t z = 0; z < extent[2]; z++)
    for (size_t y = 0; y < extent[1]; y++)
      for (size_t x = 0; x < extent[0]; x++) {
        size_t t = ((z * extent[1] + y) * extent[0] + x) * element;
        assert_memory_equal(bytes + offset_of(type, x, y, z, element, row_pitch, slice_pitch), texels + t, element);
      }
  free(bytes);
  free(texels);
  free(back);
}

static const char *kernel_source =
    "kernel void invert2d(read_write image2d_array_t im, global uint *seen) {\n"
    "  int4 c = (int4)(get_global_id(0), get_global_id(1), get_global_id(2), 0);\n"
    "  uint4 v = read_imageui(im, c);\n"
    "  seen[(c.z * get_global_size(1) + c.y) * get_global_size(0) + c.x] = v.x | v.y << 8 | v.z << 16 | v.w << 24;\n"
    "  write_imageui(im, c, (uint4)(255) - v);\n"
    "}\n";

static void test_every_type_aliases_its_buffer(void **state) {
  struct kiln_test_env *env = *state;
  for (int t = 0; t < IMAGE_TYPE_COUNT; t++) {
    cl_mem_object_type type = image_types[t];
    size_t extent[3];
    image_extent_of(type, 7, 5, 3, extent);
    size_t row_pitch, slice_pitch;
    padded_pitches(type, extent, 4, &row_pitch, &slice_pitch);
    cl_int err;
    cl_mem buffer = clCreateBuffer(env->context, CL_MEM_READ_WRITE, 4096, NULL, &err);
    assert_cl_success(err);
    cl_mem image = image_over(env, buffer, type, extent, row_pitch, slice_pitch);
    size_t effective_row = has_row_pitch(type) ? row_pitch : extent[0] * 4;
    check_aliasing(env, buffer, 0, image, type, extent, effective_row, slice_pitch ? slice_pitch : effective_row);
    /* the queries: the buffer, the pitches as given, the size the pitches span */
    cl_mem associated = NULL, image_buffer = NULL;
    assert_cl_success(clGetMemObjectInfo(image, CL_MEM_ASSOCIATED_MEMOBJECT, sizeof associated, &associated, NULL));
    assert_ptr_equal(associated, buffer);
    assert_cl_success(clGetImageInfo(image, CL_IMAGE_BUFFER, sizeof image_buffer, &image_buffer, NULL));
    assert_ptr_equal(image_buffer, buffer);
    size_t got_row = 0, got_slice = 0, size = 0;
    assert_cl_success(clGetImageInfo(image, CL_IMAGE_ROW_PITCH, sizeof got_row, &got_row, NULL));
    assert_int_equal(got_row, effective_row);
    assert_cl_success(clGetImageInfo(image, CL_IMAGE_SLICE_PITCH, sizeof got_slice, &got_slice, NULL));
    if (slice_pitch) assert_int_equal(got_slice, slice_pitch);
    assert_cl_success(clGetMemObjectInfo(image, CL_MEM_SIZE, sizeof size, &size, NULL));
    size_t slices = type == CL_MEM_OBJECT_IMAGE3D || type == CL_MEM_OBJECT_IMAGE2D_ARRAY ? extent[2]
                    : type == CL_MEM_OBJECT_IMAGE1D_ARRAY                                ? extent[1]
                                                                                         : 1;
    size_t expected = slice_pitch ? slice_pitch * slices : effective_row * (type == CL_MEM_OBJECT_IMAGE2D ? extent[1] : 1);
    assert_int_equal(size, expected);
    assert_cl_success(clReleaseMemObject(image));
    assert_cl_success(clReleaseMemObject(buffer));
  }
}

static void test_sub_buffer_at_an_offset(void **state) {
  struct kiln_test_env *env = *state;
  cl_uint align_bits = 0;
  assert_cl_success(clGetDeviceInfo(env->device, CL_DEVICE_MEM_BASE_ADDR_ALIGN, sizeof align_bits, &align_bits, NULL));
  size_t offset = align_bits / 8 * 3;
  cl_int err;
  cl_mem buffer = clCreateBuffer(env->context, CL_MEM_READ_WRITE, offset + 8192, NULL, &err);
  assert_cl_success(err);
  cl_buffer_region region = {offset, 8192};
  cl_mem sub = clCreateSubBuffer(buffer, 0, CL_BUFFER_CREATE_TYPE_REGION, &region, &err);
  assert_cl_success(err);
  const size_t extent[3] = {9, 4, 3};
  size_t row_pitch, slice_pitch;
  padded_pitches(CL_MEM_OBJECT_IMAGE3D, extent, 4, &row_pitch, &slice_pitch);
  cl_mem image = image_over(env, sub, CL_MEM_OBJECT_IMAGE3D, extent, row_pitch, slice_pitch);
  check_aliasing(env, buffer, offset, image, CL_MEM_OBJECT_IMAGE3D, extent, row_pitch, slice_pitch);
  assert_cl_success(clReleaseMemObject(image));
  assert_cl_success(clReleaseMemObject(sub));
  assert_cl_success(clReleaseMemObject(buffer));
}

/* A kernel reads the buffer's bytes through a 2D array image over it and writes through it. */
static void test_kernel_reads_and_writes_through_the_image(void **state) {
  struct kiln_test_env *env = *state;
  const cl_image_format format = {CL_RGBA, CL_UNSIGNED_INT8};
  const size_t extent[3] = {6, 4, 3};
  size_t row_pitch = (extent[0] + 2) * 4, slice_pitch = row_pitch * (extent[1] + 2);
  size_t span = slice_pitch * extent[2];
  unsigned char *bytes = malloc(span);
  image_pattern(bytes, span, 5);
  cl_int err;
  cl_mem buffer = clCreateBuffer(env->context, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, span, bytes, &err);
  assert_cl_success(err);
  cl_image_desc desc = image_desc_of(CL_MEM_OBJECT_IMAGE2D_ARRAY, extent);
  desc.image_row_pitch = row_pitch;
  desc.image_slice_pitch = slice_pitch;
  desc.mem_object = buffer;
  cl_mem image = clCreateImage(env->context, CL_MEM_READ_WRITE, &format, &desc, NULL, &err);
  assert_cl_success(err);
  size_t n = extent[0] * extent[1] * extent[2];
  cl_mem seen = clCreateBuffer(env->context, CL_MEM_READ_WRITE, n * 4, NULL, &err);
  assert_cl_success(err);
  cl_program program = clCreateProgramWithSource(env->context, 1, &kernel_source, NULL, &err);
  assert_cl_success(err);
  assert_cl_success(clBuildProgram(program, 1, &env->device, "-cl-std=CL3.0", NULL, NULL));
  cl_kernel kernel = clCreateKernel(program, "invert2d", &err);
  assert_cl_success(err);
  assert_cl_success(clSetKernelArg(kernel, 0, sizeof image, &image));
  assert_cl_success(clSetKernelArg(kernel, 1, sizeof seen, &seen));
  assert_cl_success(clEnqueueNDRangeKernel(env->queue, kernel, 3, NULL, extent, NULL, 0, NULL, NULL));
  uint32_t *got = malloc(n * 4);
  unsigned char *after = malloc(span);
  assert_cl_success(clEnqueueReadBuffer(env->queue, seen, CL_TRUE, 0, n * 4, got, 0, NULL, NULL));
  assert_cl_success(clEnqueueReadBuffer(env->queue, buffer, CL_TRUE, 0, span, after, 0, NULL, NULL));
  for (size_t z = 0; z < extent[2]; z++)
    for (size_t y = 0; y < extent[1]; y++)
      for (size_t x = 0; x < extent[0]; x++) {
        size_t o = z * slice_pitch + y * row_pitch + x * 4;
        uint32_t expect = (uint32_t)bytes[o] | (uint32_t)bytes[o + 1] << 8 | (uint32_t)bytes[o + 2] << 16 |
                          (uint32_t)bytes[o + 3] << 24;
        assert_int_equal(got[(z * extent[1] + y) * extent[0] + x], expect);
        for (int c = 0; c < 4; c++) assert_int_equal(after[o + c], 255 - bytes[o + c]);
      }
  /* padding between rows and slices is not the image's: untouched */
  for (size_t z = 0; z < extent[2]; z++)
    for (size_t y = 0; y < extent[1] + 2; y++)
      for (size_t x = 0; x < extent[0] + 2; x++) {
        if (x < extent[0] && y < extent[1]) continue;
        size_t o = z * slice_pitch + y * row_pitch + x * 4;
        assert_memory_equal(after + o, bytes + o, 4);
      }
  free(got);
  free(after);
  free(bytes);
  clReleaseKernel(kernel);
  clReleaseProgram(program);
  clReleaseMemObject(seen);
  clReleaseMemObject(image);
  clReleaseMemObject(buffer);
}

static void test_pitch_and_size_errors(void **state) {
  struct kiln_test_env *env = *state;
  cl_int err;
  cl_mem buffer = clCreateBuffer(env->context, CL_MEM_READ_WRITE, 4096, NULL, &err);
  assert_cl_success(err);
  const size_t extent[3] = {8, 4, 2};
  const cl_mem_object_type sliced[] = {CL_MEM_OBJECT_IMAGE2D_ARRAY, CL_MEM_OBJECT_IMAGE3D};
  for (int i = 0; i < 2; i++) {
    cl_image_desc desc = image_desc_of(sliced[i], extent);
    desc.mem_object = buffer;
    desc.image_row_pitch = 8 * 4 + 2; /* not whole elements: off the alignment */
    assert_int_equal(image_create_error(env->context, 0, &rgba8, &desc, NULL), CL_INVALID_IMAGE_FORMAT_DESCRIPTOR);
    desc.image_row_pitch = 8 * 4;
    desc.image_slice_pitch = 8 * 4 * 4 + 2; /* off the alignment */
    assert_int_equal(image_create_error(env->context, 0, &rgba8, &desc, NULL), CL_INVALID_IMAGE_FORMAT_DESCRIPTOR);
    desc.image_slice_pitch = 8 * 4 * 4 + 4; /* aligned, but not a multiple of the row pitch */
    assert_int_equal(image_create_error(env->context, 0, &rgba8, &desc, NULL), CL_INVALID_IMAGE_DESCRIPTOR);
    desc.image_slice_pitch = 8 * 4 * 3; /* smaller than a slice's rows */
    assert_int_equal(image_create_error(env->context, 0, &rgba8, &desc, NULL), CL_INVALID_IMAGE_DESCRIPTOR);
    desc.image_slice_pitch = 4096; /* 2 slices of 4096 bytes: more than the buffer */
    assert_int_equal(image_create_error(env->context, 0, &rgba8, &desc, NULL), CL_INVALID_IMAGE_SIZE);
  }
  /* every type: one element more than the buffer holds */
  for (int t = 0; t < IMAGE_TYPE_COUNT; t++) {
    size_t e[3];
    image_extent_of(image_types[t], 1024 + 1, 1, 1, e);
    cl_image_desc desc = image_desc_of(image_types[t], e);
    desc.mem_object = buffer;
    assert_int_equal(image_create_error(env->context, 0, &rgba8, &desc, NULL), CL_INVALID_IMAGE_SIZE);
  }
  /* a USE_HOST_PTR buffer at an address off the base address alignment (one element) */
  unsigned char *memory = malloc(4096 + 4);
  unsigned char *odd = memory + (4 - (uintptr_t)memory % 4) % 4 + 1;
  cl_mem host_buffer = clCreateBuffer(env->context, CL_MEM_USE_HOST_PTR, 4000, odd, &err);
  assert_cl_success(err);
  for (int t = 0; t < IMAGE_TYPE_COUNT; t++) {
    size_t e[3];
    image_extent_of(image_types[t], 4, 2, 2, e);
    cl_image_desc desc = image_desc_of(image_types[t], e);
    desc.mem_object = host_buffer;
    assert_int_equal(image_create_error(env->context, 0, &rgba8, &desc, NULL), CL_INVALID_IMAGE_FORMAT_DESCRIPTOR);
  }
  clReleaseMemObject(host_buffer);
  free(memory);
  clReleaseMemObject(buffer);
}

static void test_extension_listed(void **state) {
  struct kiln_test_env *env = *state;
  kiln_test_expect_extension(env->device, "cl_ext_image_from_buffer", CL_MAKE_VERSION(1, 0, 0));
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_extension_listed),
      cmocka_unit_test(test_every_type_aliases_its_buffer),
      cmocka_unit_test(test_sub_buffer_at_an_offset),
      cmocka_unit_test(test_kernel_reads_and_writes_through_the_image),
      cmocka_unit_test(test_pitch_and_size_errors),
  };
  return cmocka_run_group_tests(tests, setup, teardown);
}
