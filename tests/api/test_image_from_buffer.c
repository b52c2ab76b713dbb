/* cl_ext_image_from_buffer through the loader: images of every type over a buffer or a
 * sub-buffer at an offset, laid out as the spec says (scanlines padded to the row pitch,
 * slices or layers padded to the slice pitch, tight when 0), with one format per element
 * size. Aliasing both ways, through kernels of every image type and through the image
 * commands (read, write, fill, map, copies): what is written through the buffer is what
 * the image holds and the other way round, and the padding is never touched. The queries
 * (CL_MEM_ASSOCIATED_MEMOBJECT, pitches, dimensions, CL_MEM_SIZE, inherited flags), the
 * buffer kept alive by the image, and the errors: pitches or a host pointer off the
 * alignments clGetImageRequirementsInfoEXT reports (CL_INVALID_IMAGE_FORMAT_DESCRIPTOR),
 * a buffer too small (CL_INVALID_IMAGE_SIZE), pitches that cannot hold a row or slice
 * (CL_INVALID_IMAGE_DESCRIPTOR), flags that contradict the buffer's (CL_INVALID_VALUE). */
#include "image_test.h"

#include <CL/cl_ext.h>
#include <stdint.h>
#include <stdio.h>

static clGetImageRequirementsInfoEXT_fn get_requirements;

static int setup(void **state) { return image_requirements_env_setup(state, &get_requirements); }
static int teardown(void **state) { return kiln_test_env_teardown(state); }

/* One format per element size: 1, 2, 4, 8 and 16 bytes. */
#define FORMAT_COUNT 5
static const cl_image_format formats_by_size[FORMAT_COUNT] = {{CL_R, CL_UNSIGNED_INT8},
                                                              {CL_RG, CL_UNSIGNED_INT8},
                                                              {CL_RGBA, CL_UNSIGNED_INT8},
                                                              {CL_RGBA, CL_UNSIGNED_INT16},
                                                              {CL_RGBA, CL_UNSIGNED_INT32}};

/* Where an image's elements lie in its buffer: the pitches as the image uses them. */
struct layout {
  cl_mem_object_type type;
  size_t extent[3]; /* origin/region coordinates (image_test.h) */
  size_t element, row_pitch, slice_pitch;
};

static bool has_row_pitch(cl_mem_object_type type) {
  return type != CL_MEM_OBJECT_IMAGE1D && type != CL_MEM_OBJECT_IMAGE1D_BUFFER;
}

static bool has_slice_pitch(cl_mem_object_type type) {
  return type == CL_MEM_OBJECT_IMAGE1D_ARRAY || type == CL_MEM_OBJECT_IMAGE2D_ARRAY || type == CL_MEM_OBJECT_IMAGE3D;
}

/* Byte offset of element (x, y, z): y is a 1D array's layer, z a 2D array's layer or a
 * 3D image's slice. */
static size_t offset_of(const struct layout *l, size_t x, size_t y, size_t z) {
  if (l->type == CL_MEM_OBJECT_IMAGE1D_ARRAY) return y * l->slice_pitch + x * l->element;
  return z * l->slice_pitch + y * l->row_pitch + x * l->element;
}

/* The spec's size for the layout: the least a buffer must hold. */
static size_t layout_size(const struct layout *l) {
  switch (l->type) {
  case CL_MEM_OBJECT_IMAGE1D_ARRAY:
    return l->slice_pitch * l->extent[1];
  case CL_MEM_OBJECT_IMAGE2D:
    return l->row_pitch * l->extent[1];
  case CL_MEM_OBJECT_IMAGE2D_ARRAY:
  case CL_MEM_OBJECT_IMAGE3D:
    return l->slice_pitch * l->extent[2];
  default:
    return l->extent[0] * l->element;
  }
}

static size_t round_up(size_t v, size_t to) { return (v + to - 1) / to * to; }

static size_t requirement(struct kiln_test_env *env, cl_image_requirements_info_ext name,
                          const cl_image_format *format, const cl_image_desc *desc) {
  size_t value = 0;
  assert_cl_success(get_requirements(env->context, NULL, CL_MEM_READ_WRITE, format, desc, name, sizeof value, &value,
                                     NULL));
  return value;
}

/* A padded layout of `type` for `format`: rows `pad` elements longer than needed (rounded
 * up to the row pitch alignment), a 1D array's layer two rows, a 2D array's layer or a 3D
 * slice one row more than its rows; `pad` 0: tight (pitches 0 in the descriptor). */
static struct layout layout_of(struct kiln_test_env *env, cl_mem_object_type type, const cl_image_format *format,
                               const size_t extent[3], size_t pad) {
  struct layout l = {.type = type, .element = image_element_size(format)};
  memcpy(l.extent, extent, sizeof l.extent);
  cl_image_desc desc = image_desc_of(type, extent);
  size_t row_alignment = requirement(env, CL_IMAGE_REQUIREMENTS_ROW_PITCH_ALIGNMENT_EXT, format, &desc);
  size_t slice_alignment = requirement(env, CL_IMAGE_REQUIREMENTS_SLICE_PITCH_ALIGNMENT_EXT, format, &desc);
  size_t step = row_alignment > slice_alignment ? row_alignment : slice_alignment;
  l.row_pitch = extent[0] * l.element;
  if (pad && has_row_pitch(type)) l.row_pitch = round_up((extent[0] + pad) * l.element, step);
  size_t rows = type == CL_MEM_OBJECT_IMAGE1D_ARRAY ? 1 : extent[1];
  l.slice_pitch = l.row_pitch * rows;
  if (pad && has_slice_pitch(type)) l.slice_pitch = l.row_pitch * (rows + 1);
  return l;
}

/* The descriptor of an image with layout `l` over `buffer`; pitches given when padded. */
static cl_image_desc desc_of(const struct layout *l, cl_mem buffer, bool give_pitches) {
  cl_image_desc desc = image_desc_of(l->type, l->extent);
  desc.mem_object = buffer;
  if (give_pitches && has_row_pitch(l->type)) desc.image_row_pitch = l->row_pitch;
  if (give_pitches && has_slice_pitch(l->type)) desc.image_slice_pitch = l->slice_pitch;
  return desc;
}

static cl_mem image_over(struct kiln_test_env *env, const struct layout *l, const cl_image_format *format,
                         cl_mem buffer) {
  cl_image_desc desc = desc_of(l, buffer, true);
  cl_int err;
  cl_mem image = clCreateImage(env->context, CL_MEM_READ_WRITE, format, &desc, NULL, &err);
  assert_cl_success(err);
  return image;
}

/* Index of element (x, y, z) in a tight host model. */
static size_t tight_index(const struct layout *l, size_t x, size_t y, size_t z) {
  return ((z * l->extent[1] + y) * l->extent[0] + x) * l->element;
}

/* Which byte of an element byte `b` of the buffer (relative to the image's start) is, or
 * -1 where it is padding. */
static int element_byte(const struct layout *l, size_t b) {
  for (size_t z = 0; z < l->extent[2]; z++)
    for (size_t y = 0; y < l->extent[1]; y++) {
      size_t start = offset_of(l, 0, y, z);
      if (b >= start && b < start + l->extent[0] * l->element) return (int)((b - start) % l->element);
    }
  return -1;
}

/* Bytes written into the buffer are the texels clEnqueueReadImage sees; texels written
 * with clEnqueueWriteImage land where the layout puts them, and nothing else changes. */
static void check_image_commands_alias(struct kiln_test_env *env, cl_mem buffer, size_t offset, size_t buffer_size,
                                       cl_mem image, const struct layout *l) {
  size_t tight = image_bytes(l->extent, l->element);
  unsigned char *bytes = malloc(buffer_size), *texels = malloc(tight), *back = malloc(tight);
  unsigned char *after = malloc(buffer_size);
  image_pattern(bytes, buffer_size, 3);
  assert_cl_success(clEnqueueWriteBuffer(env->queue, buffer, CL_TRUE, 0, buffer_size, bytes, 0, NULL, NULL));
  image_read_all(env->queue, image, l->extent, back);
  for (size_t z = 0; z < l->extent[2]; z++)
    for (size_t y = 0; y < l->extent[1]; y++)
      for (size_t x = 0; x < l->extent[0]; x++)
        assert_memory_equal(back + tight_index(l, x, y, z), bytes + offset + offset_of(l, x, y, z), l->element);
  image_pattern(texels, tight, 9);
  image_write_all(env->queue, image, l->extent, texels);
  assert_cl_success(clEnqueueReadBuffer(env->queue, buffer, CL_TRUE, 0, buffer_size, after, 0, NULL, NULL));
  for (size_t z = 0; z < l->extent[2]; z++)
    for (size_t y = 0; y < l->extent[1]; y++)
      for (size_t x = 0; x < l->extent[0]; x++) {
        size_t o = offset + offset_of(l, x, y, z);
        assert_memory_equal(after + o, texels + tight_index(l, x, y, z), l->element);
        memcpy(bytes + o, after + o, l->element); /* the expected buffer, for the check below */
      }
  assert_memory_equal(after, bytes, buffer_size); /* padding and bytes outside untouched */
  free(bytes);
  free(texels);
  free(back);
  free(after);
}

/* Every type and element size, tight and padded, over a buffer and over a sub-buffer at
 * an offset: the image commands alias the buffer's bytes. */
static void test_image_commands_alias_the_buffer(void **state) {
  struct kiln_test_env *env = *state;
  cl_uint align_bits = 0;
  assert_cl_success(clGetDeviceInfo(env->device, CL_DEVICE_MEM_BASE_ADDR_ALIGN, sizeof align_bits, &align_bits, NULL));
  for (int t = 0; t < IMAGE_TYPE_COUNT; t++)
    for (int f = 0; f < FORMAT_COUNT; f++)
      for (size_t pad = 0; pad < 4; pad += 3)
        for (int sub = 0; sub < 2; sub++) {
          size_t extent[3];
          image_extent_of(image_types[t], 7, 5, 3, extent);
          struct layout l = layout_of(env, image_types[t], &formats_by_size[f], extent, pad);
          size_t offset = sub ? align_bits / 8 * 3 : 0, size = layout_size(&l);
          cl_int err;
          /* the parent is larger than the image on both sides of a sub-buffer */
          size_t parent_size = offset + size + (sub ? 64 : 0);
          cl_mem buffer = clCreateBuffer(env->context, CL_MEM_READ_WRITE, parent_size, NULL, &err);
          assert_cl_success(err);
          cl_mem backing = buffer;
          if (sub) {
            cl_buffer_region region = {offset, size};
            backing = clCreateSubBuffer(buffer, 0, CL_BUFFER_CREATE_TYPE_REGION, &region, &err);
            assert_cl_success(err);
          }
          cl_mem image = image_over(env, &l, &formats_by_size[f], backing);
          check_image_commands_alias(env, buffer, offset, parent_size, image, &l);
          assert_cl_success(clReleaseMemObject(image));
          if (sub) assert_cl_success(clReleaseMemObject(backing));
          assert_cl_success(clReleaseMemObject(buffer));
        }
}

/* The kernels of one image type: one copies each texel (RGBA uint8) out as a uint, the
 * other writes a texel made of its coordinates. */
static char *kernel_source_for(cl_mem_object_type type) {
  const char *image_type, *coord;
  switch (type) {
  case CL_MEM_OBJECT_IMAGE1D:
    image_type = "image1d_t", coord = "x";
    break;
  case CL_MEM_OBJECT_IMAGE1D_BUFFER:
    image_type = "image1d_buffer_t", coord = "x";
    break;
  case CL_MEM_OBJECT_IMAGE1D_ARRAY:
    image_type = "image1d_array_t", coord = "(int2)(x, y)";
    break;
  case CL_MEM_OBJECT_IMAGE2D:
    image_type = "image2d_t", coord = "(int2)(x, y)";
    break;
  case CL_MEM_OBJECT_IMAGE2D_ARRAY:
    image_type = "image2d_array_t", coord = "(int4)(x, y, z, 0)";
    break;
  default:
    image_type = "image3d_t", coord = "(int4)(x, y, z, 0)";
    break;
  }
  const char *format =
      "kernel void copy_out(read_only %s im, global uint *seen) {\n"
      "  int x = get_global_id(0), y = get_global_id(1), z = get_global_id(2);\n"
      "  uint4 v = read_imageui(im, %s);\n"
      "  seen[(z * get_global_size(1) + y) * get_global_size(0) + x] = v.x | v.y << 8 | v.z << 16 | v.w << 24;\n"
      "}\n"
      "kernel void write_in(write_only %s im) {\n"
      "  int x = get_global_id(0), y = get_global_id(1), z = get_global_id(2);\n"
      "  write_imageui(im, %s, (uint4)(x + 1, y + 2, z + 3, 200));\n"
      "}\n";
  size_t size = strlen(format) + 4 * 32;
  char *source = malloc(size);
  snprintf(source, size, format, image_type, coord, image_type, coord);
  return source;
}

static void run_kernel(struct kiln_test_env *env, cl_kernel kernel, const size_t extent[3]) {
  assert_cl_success(clEnqueueNDRangeKernel(env->queue, kernel, 3, NULL, extent, NULL, 0, NULL, NULL));
  assert_cl_success(clFinish(env->queue));
}

/* Kernels see the bytes of the buffer through the image at the layout's offsets. */
static void check_kernel_reads(struct kiln_test_env *env, cl_kernel copy_out, size_t offset,
                               const struct layout *l, const unsigned char *bytes) {
  size_t n = l->extent[0] * l->extent[1] * l->extent[2];
  cl_int err;
  cl_mem seen = clCreateBuffer(env->context, CL_MEM_READ_WRITE, n * 4, NULL, &err);
  assert_cl_success(err);
  assert_cl_success(clSetKernelArg(copy_out, 1, sizeof seen, &seen));
  run_kernel(env, copy_out, l->extent);
  uint32_t *got = malloc(n * 4);
  assert_cl_success(clEnqueueReadBuffer(env->queue, seen, CL_TRUE, 0, n * 4, got, 0, NULL, NULL));
  for (size_t z = 0; z < l->extent[2]; z++)
    for (size_t y = 0; y < l->extent[1]; y++)
      for (size_t x = 0; x < l->extent[0]; x++) {
        const unsigned char *e = bytes + offset + offset_of(l, x, y, z);
        uint32_t expect = (uint32_t)e[0] | (uint32_t)e[1] << 8 | (uint32_t)e[2] << 16 | (uint32_t)e[3] << 24;
        assert_int_equal(got[tight_index(l, x, y, z) / 4], expect);
      }
  free(got);
  assert_cl_success(clReleaseMemObject(seen));
}

/* Every type, over a sub-buffer at an offset with padded pitches: a kernel reads what the
 * buffer holds; a kernel's writes land in the buffer at the layout's offsets and nowhere
 * else; bytes written into the buffer afterwards are what the next kernel reads. */
static void test_kernels_alias_the_buffer(void **state) {
  struct kiln_test_env *env = *state;
  const cl_image_format format = {CL_RGBA, CL_UNSIGNED_INT8};
  cl_uint align_bits = 0;
  assert_cl_success(clGetDeviceInfo(env->device, CL_DEVICE_MEM_BASE_ADDR_ALIGN, sizeof align_bits, &align_bits, NULL));
  for (int t = 0; t < IMAGE_TYPE_COUNT; t++) {
    cl_mem_object_type type = image_types[t];
    size_t extent[3];
    image_extent_of(type, 9, 5, 3, extent);
    struct layout l = layout_of(env, type, &format, extent, 2);
    size_t offset = align_bits / 8, size = layout_size(&l), parent_size = offset + size + 32;
    unsigned char *bytes = malloc(parent_size), *after = malloc(parent_size);
    image_pattern(bytes, parent_size, (unsigned)t + 1);
    cl_int err;
    cl_mem buffer = clCreateBuffer(env->context, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, parent_size, bytes, &err);
    assert_cl_success(err);
    cl_buffer_region region = {offset, size}; /* exactly the size the image needs */
    cl_mem sub = clCreateSubBuffer(buffer, 0, CL_BUFFER_CREATE_TYPE_REGION, &region, &err);
    assert_cl_success(err);
    cl_mem image = image_over(env, &l, &format, sub);
    char *source = kernel_source_for(type);
    cl_program program = clCreateProgramWithSource(env->context, 1, (const char **)&source, NULL, &err);
    assert_cl_success(err);
    assert_cl_success(clBuildProgram(program, 1, &env->device, "-cl-std=CL3.0", NULL, NULL));
    cl_kernel copy_out = clCreateKernel(program, "copy_out", &err);
    assert_cl_success(err);
    cl_kernel write_in = clCreateKernel(program, "write_in", &err);
    assert_cl_success(err);
    assert_cl_success(clSetKernelArg(copy_out, 0, sizeof image, &image));
    assert_cl_success(clSetKernelArg(write_in, 0, sizeof image, &image));

    check_kernel_reads(env, copy_out, offset, &l, bytes);
    run_kernel(env, write_in, extent);
    assert_cl_success(clEnqueueReadBuffer(env->queue, buffer, CL_TRUE, 0, parent_size, after, 0, NULL, NULL));
    for (size_t z = 0; z < extent[2]; z++)
      for (size_t y = 0; y < extent[1]; y++)
        for (size_t x = 0; x < extent[0]; x++) {
          unsigned char *e = bytes + offset + offset_of(&l, x, y, z);
          e[0] = (unsigned char)(x + 1), e[1] = (unsigned char)(y + 2), e[2] = (unsigned char)(z + 3), e[3] = 200;
        }
    assert_memory_equal(after, bytes, parent_size); /* the texels, and nothing else */
    /* and back: new bytes through the buffer are what the kernel reads next */
    image_pattern(bytes, parent_size, 77);
    assert_cl_success(clEnqueueWriteBuffer(env->queue, buffer, CL_TRUE, 0, parent_size, bytes, 0, NULL, NULL));
    check_kernel_reads(env, copy_out, offset, &l, bytes);

    free(source);
    free(bytes);
    free(after);
    assert_cl_success(clReleaseKernel(copy_out));
    assert_cl_success(clReleaseKernel(write_in));
    assert_cl_success(clReleaseProgram(program));
    assert_cl_success(clReleaseMemObject(image));
    assert_cl_success(clReleaseMemObject(sub));
    assert_cl_success(clReleaseMemObject(buffer));
  }
}

/* clEnqueueFillImage fills the texels in the buffer and leaves the padding alone;
 * clEnqueueMapImage maps the buffer's bytes with the image's pitches, and what is written
 * through the map is in the buffer after unmapping. */
static void test_fill_and_map_through_the_buffer(void **state) {
  struct kiln_test_env *env = *state;
  const cl_image_format format = {CL_RGBA, CL_UNSIGNED_INT16};
  for (int t = 0; t < IMAGE_TYPE_COUNT; t++) {
    size_t extent[3];
    image_extent_of(image_types[t], 6, 4, 3, extent);
    struct layout l = layout_of(env, image_types[t], &format, extent, 3);
    size_t size = layout_size(&l);
    unsigned char *bytes = malloc(size), *after = malloc(size);
    image_pattern(bytes, size, 5);
    cl_int err;
    cl_mem buffer = clCreateBuffer(env->context, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, size, bytes, &err);
    assert_cl_success(err);
    cl_mem image = image_over(env, &l, &format, buffer);
    const cl_uint4 color = {{1000, 2000, 3000, 4000}};
    const size_t origin[3] = {0, 0, 0};
    assert_cl_success(clEnqueueFillImage(env->queue, image, &color, origin, extent, 0, NULL, NULL));
    assert_cl_success(clEnqueueReadBuffer(env->queue, buffer, CL_TRUE, 0, size, after, 0, NULL, NULL));
    const uint16_t texel[4] = {1000, 2000, 3000, 4000};
    for (size_t b = 0; b < size; b++) {
      int in_element = element_byte(&l, b);
      if (in_element >= 0) {
        assert_int_equal(after[b], ((const unsigned char *)texel)[in_element]);
      } else {
        assert_int_equal(after[b], bytes[b]);
      }
    }
    /* map: the pointer and pitches are the buffer's layout */
    size_t row_pitch = 0, slice_pitch = 0;
    unsigned char *mapped = clEnqueueMapImage(env->queue, image, CL_TRUE, CL_MAP_READ | CL_MAP_WRITE, origin, extent,
                                              &row_pitch, &slice_pitch, 0, NULL, NULL, &err);
    assert_cl_success(err);
    assert_int_equal(row_pitch, l.row_pitch);
    if (has_slice_pitch(image_types[t])) assert_int_equal(slice_pitch, l.slice_pitch);
    for (size_t z = 0; z < extent[2]; z++)
      for (size_t y = 0; y < extent[1]; y++)
        for (size_t x = 0; x < extent[0]; x++) {
          unsigned char *e = mapped + offset_of(&l, x, y, z);
          assert_memory_equal(e, texel, l.element);
          e[0] = (unsigned char)(x + y * 16 + z * 64);
        }
    assert_cl_success(clEnqueueUnmapMemObject(env->queue, image, mapped, 0, NULL, NULL));
    assert_cl_success(clEnqueueReadBuffer(env->queue, buffer, CL_TRUE, 0, size, after, 0, NULL, NULL));
    for (size_t z = 0; z < extent[2]; z++)
      for (size_t y = 0; y < extent[1]; y++)
        for (size_t x = 0; x < extent[0]; x++)
          assert_int_equal(after[offset_of(&l, x, y, z)], (unsigned char)(x + y * 16 + z * 64));
    free(bytes);
    free(after);
    assert_cl_success(clReleaseMemObject(image));
    assert_cl_success(clReleaseMemObject(buffer));
  }
}

/* Copies between an image over a buffer and other objects: to a buffer (tight), from a
 * buffer, and to an ordinary image, for a padded 3D image and a padded 1D array. */
static void test_copies_through_the_buffer(void **state) {
  struct kiln_test_env *env = *state;
  const cl_image_format format = {CL_RGBA, CL_UNSIGNED_INT8};
  const cl_mem_object_type types[2] = {CL_MEM_OBJECT_IMAGE3D, CL_MEM_OBJECT_IMAGE1D_ARRAY};
  for (int t = 0; t < 2; t++) {
    size_t extent[3];
    image_extent_of(types[t], 5, 4, 3, extent);
    struct layout l = layout_of(env, types[t], &format, extent, 2);
    size_t size = layout_size(&l), tight = image_bytes(extent, 4);
    unsigned char *bytes = malloc(size), *got = malloc(tight), *model = malloc(tight);
    image_pattern(bytes, size, 11);
    for (size_t z = 0; z < extent[2]; z++)
      for (size_t y = 0; y < extent[1]; y++)
        for (size_t x = 0; x < extent[0]; x++)
          memcpy(model + tight_index(&l, x, y, z), bytes + offset_of(&l, x, y, z), 4);
    cl_int err;
    cl_mem buffer = clCreateBuffer(env->context, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, size, bytes, &err);
    assert_cl_success(err);
    cl_mem image = image_over(env, &l, &format, buffer);
    cl_mem out = clCreateBuffer(env->context, CL_MEM_READ_WRITE, tight, NULL, &err);
    assert_cl_success(err);
    const size_t origin[3] = {0, 0, 0};
    assert_cl_success(clEnqueueCopyImageToBuffer(env->queue, image, out, origin, extent, 0, 0, NULL, NULL));
    assert_cl_success(clEnqueueReadBuffer(env->queue, out, CL_TRUE, 0, tight, got, 0, NULL, NULL));
    assert_memory_equal(got, model, tight);
    /* an ordinary image gets the texels, and an image over a buffer takes them back */
    cl_mem plain = image_create(env->context, CL_MEM_READ_WRITE, &format, types[t], extent, NULL);
    assert_cl_success(clEnqueueCopyImage(env->queue, image, plain, origin, origin, extent, 0, NULL, NULL));
    image_read_all(env->queue, plain, extent, got);
    assert_memory_equal(got, model, tight);
    image_pattern(model, tight, 21);
    assert_cl_success(clEnqueueWriteBuffer(env->queue, out, CL_TRUE, 0, tight, model, 0, NULL, NULL));
    assert_cl_success(clEnqueueCopyBufferToImage(env->queue, out, image, 0, origin, extent, 0, NULL, NULL));
    unsigned char *after = malloc(size);
    assert_cl_success(clEnqueueReadBuffer(env->queue, buffer, CL_TRUE, 0, size, after, 0, NULL, NULL));
    for (size_t b = 0; b < size; b++)
      if (element_byte(&l, b) < 0) assert_int_equal(after[b], bytes[b]);
    for (size_t z = 0; z < extent[2]; z++)
      for (size_t y = 0; y < extent[1]; y++)
        for (size_t x = 0; x < extent[0]; x++)
          assert_memory_equal(after + offset_of(&l, x, y, z), model + tight_index(&l, x, y, z), 4);
    free(after);
    free(bytes);
    free(got);
    free(model);
    assert_cl_success(clReleaseMemObject(plain));
    assert_cl_success(clReleaseMemObject(out));
    assert_cl_success(clReleaseMemObject(image));
    assert_cl_success(clReleaseMemObject(buffer));
  }
}

/* What the queries say of an image over a buffer or sub-buffer: the object it was made
 * from, its dimensions, the pitches given (or, left 0, the tight ones), its size, its type,
 * and access flags inherited from the buffer when none are given. */
static void test_queries(void **state) {
  struct kiln_test_env *env = *state;
  cl_uint align_bits = 0;
  assert_cl_success(clGetDeviceInfo(env->device, CL_DEVICE_MEM_BASE_ADDR_ALIGN, sizeof align_bits, &align_bits, NULL));
  for (int t = 0; t < IMAGE_TYPE_COUNT; t++)
    for (int f = 0; f < FORMAT_COUNT; f += 2)
      for (int padded = 0; padded < 2; padded++) {
        cl_mem_object_type type = image_types[t];
        const cl_image_format *format = &formats_by_size[f];
        size_t extent[3];
        image_extent_of(type, 6, 5, 4, extent);
        struct layout l = layout_of(env, type, format, extent, padded ? 5 : 0);
        size_t offset = align_bits / 8 * 2;
        cl_int err;
        cl_mem buffer = clCreateBuffer(env->context, CL_MEM_READ_ONLY, offset + layout_size(&l), NULL, &err);
        assert_cl_success(err);
        cl_buffer_region region = {offset, layout_size(&l)};
        cl_mem sub = clCreateSubBuffer(buffer, 0, CL_BUFFER_CREATE_TYPE_REGION, &region, &err);
        assert_cl_success(err);
        cl_mem parent = padded ? sub : buffer;
        cl_image_desc desc = desc_of(&l, parent, padded);
        cl_mem image = clCreateImage(env->context, 0, format, &desc, NULL, &err);
        assert_cl_success(err);
        cl_mem associated = NULL;
        assert_cl_success(clGetMemObjectInfo(image, CL_MEM_ASSOCIATED_MEMOBJECT, sizeof associated, &associated, NULL));
        assert_ptr_equal(associated, parent);
        cl_mem_object_type got_type = 0;
        assert_cl_success(clGetMemObjectInfo(image, CL_MEM_TYPE, sizeof got_type, &got_type, NULL));
        assert_int_equal(got_type, type);
        cl_mem_flags flags = 0;
        assert_cl_success(clGetMemObjectInfo(image, CL_MEM_FLAGS, sizeof flags, &flags, NULL));
        assert_true(flags & CL_MEM_READ_ONLY);
        size_t size = 0;
        assert_cl_success(clGetMemObjectInfo(image, CL_MEM_SIZE, sizeof size, &size, NULL));
        assert_int_equal(size, layout_size(&l));
        size_t row = 0, slice = 0, element = 0, width = 0, height = 0, depth = 0, layers = 0;
        assert_cl_success(clGetImageInfo(image, CL_IMAGE_ROW_PITCH, sizeof row, &row, NULL));
        assert_cl_success(clGetImageInfo(image, CL_IMAGE_SLICE_PITCH, sizeof slice, &slice, NULL));
        assert_cl_success(clGetImageInfo(image, CL_IMAGE_ELEMENT_SIZE, sizeof element, &element, NULL));
        assert_cl_success(clGetImageInfo(image, CL_IMAGE_WIDTH, sizeof width, &width, NULL));
        assert_cl_success(clGetImageInfo(image, CL_IMAGE_HEIGHT, sizeof height, &height, NULL));
        assert_cl_success(clGetImageInfo(image, CL_IMAGE_DEPTH, sizeof depth, &depth, NULL));
        assert_cl_success(clGetImageInfo(image, CL_IMAGE_ARRAY_SIZE, sizeof layers, &layers, NULL));
        assert_int_equal(row, l.row_pitch);
        assert_int_equal(slice, has_slice_pitch(type) ? l.slice_pitch : 0);
        assert_int_equal(element, l.element);
        assert_int_equal(width, desc.image_width);
        assert_int_equal(height, desc.image_height);
        assert_int_equal(depth, desc.image_depth);
        assert_int_equal(layers, desc.image_array_size);
        /* the image is read-only like its buffer: a read-write one may not be made */
        assert_int_equal(image_create_error(env->context, CL_MEM_READ_WRITE, format, &desc, NULL), CL_INVALID_VALUE);
        assert_cl_success(clReleaseMemObject(image));
        assert_cl_success(clReleaseMemObject(sub));
        assert_cl_success(clReleaseMemObject(buffer));
      }
}

/* The image keeps its buffer: released first, the buffer's bytes stay the image's. */
static void test_image_keeps_its_buffer(void **state) {
  struct kiln_test_env *env = *state;
  const size_t extent[3] = {8, 4, 2};
  struct layout l = layout_of(env, CL_MEM_OBJECT_IMAGE2D_ARRAY, &rgba8, extent, 1);
  cl_int err;
  cl_mem buffer = clCreateBuffer(env->context, CL_MEM_READ_WRITE, layout_size(&l), NULL, &err);
  assert_cl_success(err);
  cl_mem image = image_over(env, &l, &rgba8, buffer);
  assert_cl_success(clReleaseMemObject(buffer)); /* the application's last reference */
  size_t tight = image_bytes(extent, 4);
  unsigned char *texels = malloc(tight), *back = malloc(tight);
  image_pattern(texels, tight, 4);
  image_write_all(env->queue, image, extent, texels);
  image_read_all(env->queue, image, extent, back);
  assert_memory_equal(back, texels, tight);
  cl_mem associated = NULL;
  assert_cl_success(clGetMemObjectInfo(image, CL_MEM_ASSOCIATED_MEMOBJECT, sizeof associated, &associated, NULL));
  assert_ptr_equal(associated, buffer); /* still the object the image was made from */
  free(texels);
  free(back);
  assert_cl_success(clReleaseMemObject(image));
}

/* Pitches off the reported alignments, for every type with rows or slices and every
 * element size: CL_INVALID_IMAGE_FORMAT_DESCRIPTOR. Pitches that cannot hold a row or a
 * slice, or a slice pitch that is not whole rows: CL_INVALID_IMAGE_DESCRIPTOR. */
static void test_pitch_errors(void **state) {
  struct kiln_test_env *env = *state;
  cl_int err;
  cl_mem buffer = clCreateBuffer(env->context, CL_MEM_READ_WRITE, 1 << 16, NULL, &err);
  assert_cl_success(err);
  for (int t = 0; t < IMAGE_TYPE_COUNT; t++)
    for (int f = 0; f < FORMAT_COUNT; f++) {
      cl_mem_object_type type = image_types[t];
      const cl_image_format *format = &formats_by_size[f];
      size_t extent[3];
      image_extent_of(type, 8, 4, 2, extent);
      struct layout l = layout_of(env, type, format, extent, 1);
      cl_image_desc desc = desc_of(&l, buffer, true);
      size_t row_alignment = requirement(env, CL_IMAGE_REQUIREMENTS_ROW_PITCH_ALIGNMENT_EXT, format, &desc);
      size_t slice_alignment = requirement(env, CL_IMAGE_REQUIREMENTS_SLICE_PITCH_ALIGNMENT_EXT, format, &desc);
      if (has_row_pitch(type)) {
        for (size_t off = 1; off < row_alignment; off++) {
          desc.image_row_pitch = l.row_pitch + off;
          if (has_slice_pitch(type)) desc.image_slice_pitch = desc.image_row_pitch * 8;
          assert_int_equal(image_create_error(env->context, 0, format, &desc, NULL), CL_INVALID_IMAGE_FORMAT_DESCRIPTOR);
        }
        desc = desc_of(&l, buffer, true);
        desc.image_row_pitch = extent[0] * l.element - row_alignment; /* aligned, but shorter than a row */
        desc.image_slice_pitch = 0;
        assert_int_equal(image_create_error(env->context, 0, format, &desc, NULL), CL_INVALID_IMAGE_DESCRIPTOR);
      }
      if (has_slice_pitch(type)) {
        desc = desc_of(&l, buffer, true);
        for (size_t off = 1; off < slice_alignment; off++) {
          desc.image_slice_pitch = l.slice_pitch + off;
          assert_int_equal(image_create_error(env->context, 0, format, &desc, NULL), CL_INVALID_IMAGE_FORMAT_DESCRIPTOR);
        }
        size_t rows = type == CL_MEM_OBJECT_IMAGE1D_ARRAY ? 1 : extent[1];
        desc.image_slice_pitch = l.row_pitch * rows - l.row_pitch; /* fewer rows than a slice has */
        if (desc.image_slice_pitch) {
          assert_int_equal(image_create_error(env->context, 0, format, &desc, NULL), CL_INVALID_IMAGE_DESCRIPTOR);
        }
        /* aligned, holds the rows, but not whole rows */
        desc.image_slice_pitch = l.row_pitch * rows + (slice_alignment > l.element ? slice_alignment : l.element);
        if (desc.image_slice_pitch % l.row_pitch != 0)
          assert_int_equal(image_create_error(env->context, 0, format, &desc, NULL), CL_INVALID_IMAGE_DESCRIPTOR);
      }
    }
  assert_cl_success(clReleaseMemObject(buffer));
}

/* A USE_HOST_PTR buffer whose address is off the reported base address alignment backs
 * no image, of any type; at the alignment it backs one. */
static void test_base_address_errors(void **state) {
  struct kiln_test_env *env = *state;
  for (int t = 0; t < IMAGE_TYPE_COUNT; t++)
    for (int f = 0; f < FORMAT_COUNT; f++) {
      const cl_image_format *format = &formats_by_size[f];
      size_t extent[3];
      image_extent_of(image_types[t], 4, 3, 2, extent);
      struct layout l = layout_of(env, image_types[t], format, extent, 0);
      cl_image_desc desc = desc_of(&l, NULL, false);
      size_t base = requirement(env, CL_IMAGE_REQUIREMENTS_BASE_ADDRESS_ALIGNMENT_EXT, format, &desc);
      size_t size = layout_size(&l);
      unsigned char *memory = malloc(size + 2 * base);
      unsigned char *aligned = memory + (base - (uintptr_t)memory % base) % base;
      for (size_t off = 0; off < base; off++) {
        cl_int err;
        cl_mem buffer = clCreateBuffer(env->context, CL_MEM_USE_HOST_PTR, size, aligned + off, &err);
        assert_cl_success(err);
        desc.mem_object = buffer;
        cl_mem image = clCreateImage(env->context, 0, format, &desc, NULL, &err);
        if (off) {
          assert_null(image);
          assert_int_equal(err, CL_INVALID_IMAGE_FORMAT_DESCRIPTOR);
        } else {
          assert_cl_success(err);
          assert_cl_success(clReleaseMemObject(image));
        }
        assert_cl_success(clReleaseMemObject(buffer));
      }
      free(memory);
    }
}

/* A buffer smaller than the image needs, for every type, the smallest and the largest
 * element, tight and padded: one byte short, and half the size (the CTS's case). */
static void test_buffer_too_small(void **state) {
  struct kiln_test_env *env = *state;
  const int sizes[2] = {0, FORMAT_COUNT - 1};
  for (int t = 0; t < IMAGE_TYPE_COUNT; t++)
    for (int s = 0; s < 2; s++)
      for (size_t pad = 0; pad < 3; pad += 2) {
        const cl_image_format *format = &formats_by_size[sizes[s]];
        size_t extent[3];
        image_extent_of(image_types[t], 16, 8, 4, extent);
        struct layout l = layout_of(env, image_types[t], format, extent, pad);
        size_t need = layout_size(&l);
        const size_t short_sizes[2] = {need - 1, need / 2};
        for (int k = 0; k < 2; k++) {
          cl_int err;
          cl_mem buffer = clCreateBuffer(env->context, CL_MEM_READ_WRITE, short_sizes[k], NULL, &err);
          assert_cl_success(err);
          cl_image_desc desc = desc_of(&l, buffer, pad != 0);
          assert_int_equal(image_create_error(env->context, CL_MEM_READ_WRITE, format, &desc, NULL),
                           CL_INVALID_IMAGE_SIZE);
          assert_cl_success(clReleaseMemObject(buffer));
        }
      }
}

/* What a buffer does not allow: host-pointer flags or a host pointer for the image, access
 * the buffer's flags exclude; and what the descriptor must not be: a 3D image over an
 * image (only a 2D image may be made from an image). */
static void test_flag_and_descriptor_errors(void **state) {
  struct kiln_test_env *env = *state;
  cl_int err;
  const size_t extent[3] = {4, 4, 2};
  struct layout l = layout_of(env, CL_MEM_OBJECT_IMAGE3D, &rgba8, extent, 0);
  cl_mem write_only = clCreateBuffer(env->context, CL_MEM_WRITE_ONLY | CL_MEM_HOST_READ_ONLY, 4096, NULL, &err);
  assert_cl_success(err);
  cl_image_desc desc = desc_of(&l, write_only, false);
  assert_int_equal(image_create_error(env->context, CL_MEM_READ_ONLY, &rgba8, &desc, NULL), CL_INVALID_VALUE);
  assert_int_equal(image_create_error(env->context, CL_MEM_HOST_WRITE_ONLY, &rgba8, &desc, NULL), CL_INVALID_VALUE);
  char host[16];
  assert_int_equal(image_create_error(env->context, CL_MEM_USE_HOST_PTR, &rgba8, &desc, host), CL_INVALID_VALUE);
  assert_int_equal(image_create_error(env->context, CL_MEM_COPY_HOST_PTR, &rgba8, &desc, host), CL_INVALID_VALUE);
  assert_int_equal(image_create_error(env->context, CL_MEM_ALLOC_HOST_PTR, &rgba8, &desc, NULL), CL_INVALID_VALUE);
  assert_int_equal(image_create_error(env->context, 0, &rgba8, &desc, host), CL_INVALID_HOST_PTR);
  cl_mem image = clCreateImage(env->context, CL_MEM_WRITE_ONLY, &rgba8, &desc, NULL, &err);
  assert_cl_success(err);
  /* an image is no buffer for a 3D image */
  cl_image_desc over_image = desc_of(&l, image, false);
  assert_int_equal(image_create_error(env->context, 0, &rgba8, &over_image, NULL), CL_INVALID_IMAGE_DESCRIPTOR);
  assert_cl_success(clReleaseMemObject(image));
  assert_cl_success(clReleaseMemObject(write_only));
}

/* A 1D image is one scanline: over a buffer of exactly width x element bytes it may be
 * given a longer row pitch, which adds nothing to its size (the spec's "image_width x
 * size of element in bytes must be <= size of the buffer object"). */
static void test_one_dimensional_images_ignore_row_padding(void **state) {
  struct kiln_test_env *env = *state;
  const cl_mem_object_type types[2] = {CL_MEM_OBJECT_IMAGE1D, CL_MEM_OBJECT_IMAGE1D_BUFFER};
  for (int t = 0; t < 2; t++) {
    const size_t extent[3] = {10, 1, 1};
    cl_int err;
    cl_mem buffer = clCreateBuffer(env->context, CL_MEM_READ_WRITE, 10 * 4, NULL, &err);
    assert_cl_success(err);
    cl_image_desc desc = image_desc_of(types[t], extent);
    desc.image_row_pitch = 16 * 4;
    desc.mem_object = buffer;
    size_t required = requirement(env, CL_IMAGE_REQUIREMENTS_SIZE_EXT, &rgba8, &desc);
    assert_int_equal(required, 10 * 4);
    cl_mem image = clCreateImage(env->context, CL_MEM_READ_WRITE, &rgba8, &desc, NULL, &err);
    assert_cl_success(err);
    size_t size = 0;
    assert_cl_success(clGetMemObjectInfo(image, CL_MEM_SIZE, sizeof size, &size, NULL));
    assert_int_equal(size, required);
    unsigned char texels[40], back[40];
    image_pattern(texels, sizeof texels, 6);
    image_write_all(env->queue, image, extent, texels);
    assert_cl_success(clEnqueueReadBuffer(env->queue, buffer, CL_TRUE, 0, sizeof back, back, 0, NULL, NULL));
    assert_memory_equal(back, texels, sizeof back);
    assert_cl_success(clReleaseMemObject(image));
    assert_cl_success(clReleaseMemObject(buffer));
  }
}

static void test_extension_listed(void **state) {
  struct kiln_test_env *env = *state;
  kiln_test_expect_extension(env->device, "cl_ext_image_from_buffer", CL_MAKE_VERSION(1, 0, 0));
  /* it depends on cl_ext_image_requirements_info (cl.xml) */
  assert_true(kiln_test_extension_listed(env->device, "cl_ext_image_requirements_info"));
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_extension_listed),
      cmocka_unit_test(test_image_commands_alias_the_buffer),
      cmocka_unit_test(test_kernels_alias_the_buffer),
      cmocka_unit_test(test_fill_and_map_through_the_buffer),
      cmocka_unit_test(test_copies_through_the_buffer),
      cmocka_unit_test(test_queries),
      cmocka_unit_test(test_image_keeps_its_buffer),
      cmocka_unit_test(test_pitch_errors),
      cmocka_unit_test(test_base_address_errors),
      cmocka_unit_test(test_buffer_too_small),
      cmocka_unit_test(test_flag_and_descriptor_errors),
      cmocka_unit_test(test_one_dimensional_images_ignore_row_padding),
  };
  return cmocka_run_group_tests(tests, setup, teardown);
}
