/* Image objects: clCreateImage / clCreateImageWithProperties for every type with each
 * host-pointer flavour (USE_HOST_PTR zero copy with its pitches, COPY_HOST_PTR from padded
 * host memory, ALLOC_HOST_PTR), images over buffers and sub-buffers (data seen both ways,
 * flags inherited, the buffer kept alive), a 2D image viewing another, the deprecated
 * clCreateImage2D / clCreateImage3D, and every creation error, released handles included. */
#include "image_test.h"

static void test_every_type_round_trips(void **state) {
  struct kiln_test_env *env = *state;
  for (int t = 0; t < IMAGE_TYPE_COUNT; t++) {
    size_t extent[3];
    image_extent_of(image_types[t], 7, 5, 3, extent);
    cl_mem image = image_create(env->context, CL_MEM_READ_WRITE, &rgba8, image_types[t], extent, NULL);
    cl_mem_object_type type = 0;
    assert_cl_success(clGetMemObjectInfo(image, CL_MEM_TYPE, sizeof type, &type, NULL));
    assert_int_equal(type, image_types[t]);
    size_t bytes = image_bytes(extent, 4);
    unsigned char *in = malloc(bytes), *out = calloc(1, bytes);
    image_pattern(in, bytes, (unsigned)t);
    image_write_all(env->queue, image, extent, in);
    image_read_all(env->queue, image, extent, out);
    assert_memory_equal(in, out, bytes);
    free(in);
    free(out);
    assert_cl_success(clReleaseMemObject(image));
  }
}

/* A USE_HOST_PTR 2D image with a padded row pitch is the host memory: reads see the host
 * rows, writes land in them, padding untouched. */
static void test_use_host_ptr_2d_pitch_is_zero_copy(void **state) {
  struct kiln_test_env *env = *state;
  enum { W = 6, H = 4, PITCH = W * 4 + 12 };
  unsigned char *host = kiln_test_host_alloc(PITCH * H);
  image_pattern(host, PITCH * H, 1);
  cl_image_desc desc = {
      .image_type = CL_MEM_OBJECT_IMAGE2D, .image_width = W, .image_height = H, .image_row_pitch = PITCH};
  cl_int err;
  cl_mem image = clCreateImage(env->context, CL_MEM_USE_HOST_PTR, &rgba8, &desc, host, &err);
  assert_cl_success(err);
  void *host_ptr = NULL;
  assert_cl_success(clGetMemObjectInfo(image, CL_MEM_HOST_PTR, sizeof host_ptr, &host_ptr, NULL));
  assert_ptr_equal(host_ptr, host);
  size_t row_pitch = 0;
  assert_cl_success(clGetImageInfo(image, CL_IMAGE_ROW_PITCH, sizeof row_pitch, &row_pitch, NULL));
  assert_int_equal(row_pitch, PITCH);
  unsigned char out[W * 4 * H];
  const size_t extent[3] = {W, H, 1};
  image_read_all(env->queue, image, extent, out);
  for (int y = 0; y < H; y++) assert_memory_equal(out + y * W * 4, host + y * PITCH, W * 4);
  /* a write through the image lands in the host rows */
  unsigned char before[PITCH * H];
  memcpy(before, host, sizeof before);
  const size_t origin[3] = {2, 1, 0}, region[3] = {3, 2, 1};
  unsigned char px[3 * 4 * 2];
  image_pattern(px, sizeof px, 9);
  assert_cl_success(clEnqueueWriteImage(env->queue, image, CL_TRUE, origin, region, 0, 0, px, 0, NULL, NULL));
  for (int y = 0; y < 2; y++) memcpy(before + (1 + y) * PITCH + 2 * 4, px + y * 12, 12);
  assert_memory_equal(host, before, sizeof before);
  /* a map points into the host memory */
  size_t map_pitch = 0;
  void *p =
      clEnqueueMapImage(env->queue, image, CL_TRUE, CL_MAP_READ, origin, region, &map_pitch, NULL, 0, NULL, NULL, &err);
  assert_cl_success(err);
  assert_ptr_equal(p, host + PITCH + 8);
  assert_int_equal(map_pitch, PITCH);
  assert_cl_success(clEnqueueUnmapMemObject(env->queue, image, p, 0, NULL, NULL));
  assert_cl_success(clFinish(env->queue));
  assert_cl_success(clReleaseMemObject(image));
  free(host);
}

/* USE_HOST_PTR with given slice pitches for the three sliced types. */
static void test_use_host_ptr_slice_pitches(void **state) {
  struct kiln_test_env *env = *state;
  const cl_mem_object_type types[] = {CL_MEM_OBJECT_IMAGE1D_ARRAY, CL_MEM_OBJECT_IMAGE2D_ARRAY, CL_MEM_OBJECT_IMAGE3D};
  for (int t = 0; t < 3; t++) {
    size_t extent[3];
    image_extent_of(types[t], 5, 3, 2, extent);
    size_t row = 5 * 4 + 4;
    size_t rows = types[t] == CL_MEM_OBJECT_IMAGE1D_ARRAY ? 1 : 3;
    size_t layers = types[t] == CL_MEM_OBJECT_IMAGE1D_ARRAY ? 3 : 2;
    size_t slice = row * rows + 2 * row; /* two spare rows per slice */
    unsigned char *host = kiln_test_host_alloc(slice * layers);
    image_pattern(host, slice * layers, (unsigned)t + 2);
    cl_image_desc desc = image_desc_of(types[t], extent);
    desc.image_row_pitch = row;
    desc.image_slice_pitch = slice;
    cl_int err;
    cl_mem image = clCreateImage(env->context, CL_MEM_USE_HOST_PTR, &rgba8, &desc, host, &err);
    assert_cl_success(err);
    size_t got_slice = 0;
    assert_cl_success(clGetImageInfo(image, CL_IMAGE_SLICE_PITCH, sizeof got_slice, &got_slice, NULL));
    assert_int_equal(got_slice, slice);
    size_t bytes = image_bytes(extent, 4);
    unsigned char *out = malloc(bytes);
    image_read_all(env->queue, image, extent, out);
    /* element (x, y, z) of the model is at z * slice + y * row (1D array: layer y at y * slice) */
    for (size_t z = 0; z < extent[2]; z++)
      for (size_t y = 0; y < extent[1]; y++) {
        size_t at = types[t] == CL_MEM_OBJECT_IMAGE1D_ARRAY ? y * slice : z * slice + y * row;
        assert_memory_equal(out + ((z * extent[1] + y) * extent[0]) * 4, host + at, extent[0] * 4);
      }
    free(out);
    assert_cl_success(clReleaseMemObject(image));
    free(host);
  }
}

/* COPY_HOST_PTR reads the host memory with its pitches once; later host changes are not
 * seen. ALLOC_HOST_PTR (alone or with COPY_HOST_PTR) behaves as a plain image. */
static void test_copy_and_alloc_host_ptr(void **state) {
  struct kiln_test_env *env = *state;
  enum { W = 4, H = 3, D = 2, ROW = W * 4 + 8, SLICE = ROW * H + ROW };
  unsigned char host[SLICE * D];
  image_pattern(host, sizeof host, 3);
  const cl_mem_flags flags[] = {CL_MEM_COPY_HOST_PTR, CL_MEM_COPY_HOST_PTR | CL_MEM_ALLOC_HOST_PTR};
  for (int f = 0; f < 2; f++) {
    cl_image_desc desc = {.image_type = CL_MEM_OBJECT_IMAGE3D,
                          .image_width = W,
                          .image_height = H,
                          .image_depth = D,
                          .image_row_pitch = ROW,
                          .image_slice_pitch = SLICE};
    cl_int err;
    cl_mem image = clCreateImage(env->context, flags[f], &rgba8, &desc, host, &err);
    assert_cl_success(err);
    void *host_ptr = (void *)1;
    assert_cl_success(clGetMemObjectInfo(image, CL_MEM_HOST_PTR, sizeof host_ptr, &host_ptr, NULL));
    assert_null(host_ptr);
    unsigned char saved = host[0];
    host[0] ^= 0xFF; /* after creation: not seen */
    unsigned char out[W * 4 * H * D];
    const size_t extent[3] = {W, H, D};
    image_read_all(env->queue, image, extent, out);
    host[0] = saved;
    for (int z = 0; z < D; z++)
      for (int y = 0; y < H; y++) assert_memory_equal(out + (z * H + y) * W * 4, host + z * SLICE + y * ROW, W * 4);
    assert_cl_success(clReleaseMemObject(image));
  }
  const size_t extent[3] = {5, 5, 1};
  cl_mem image = image_create(env->context, CL_MEM_ALLOC_HOST_PTR, &rgba8, CL_MEM_OBJECT_IMAGE2D, extent, NULL);
  unsigned char in[100], out[100];
  image_pattern(in, sizeof in, 4);
  image_write_all(env->queue, image, extent, in);
  image_read_all(env->queue, image, extent, out);
  assert_memory_equal(in, out, sizeof in);
  assert_cl_success(clReleaseMemObject(image));
}

/* Bytes written through the buffer are read through the image and the reverse. */
static void check_aliasing(cl_command_queue queue, cl_mem buffer, size_t buffer_offset, cl_mem image,
                           const size_t extent[3], size_t row_pitch) {
  size_t row = extent[0] * 4, bytes = row * extent[1];
  unsigned char *in = malloc(bytes), *out = malloc(bytes), *row_buf = malloc(row);
  image_pattern(in, bytes, 5);
  for (size_t y = 0; y < extent[1]; y++)
    assert_cl_success(
        clEnqueueWriteBuffer(queue, buffer, CL_TRUE, buffer_offset + y * row_pitch, row, in + y * row, 0, NULL, NULL));
  image_read_all(queue, image, extent, out);
  assert_memory_equal(in, out, bytes);
  image_pattern(in, bytes, 6);
  image_write_all(queue, image, extent, in);
  for (size_t y = 0; y < extent[1]; y++) {
    assert_cl_success(
        clEnqueueReadBuffer(queue, buffer, CL_TRUE, buffer_offset + y * row_pitch, row, row_buf, 0, NULL, NULL));
    assert_memory_equal(row_buf, in + y * row, row);
  }
  free(in);
  free(out);
  free(row_buf);
}

static void test_images_over_buffers_alias(void **state) {
  struct kiln_test_env *env = *state;
  cl_int err;
  cl_mem buffer = clCreateBuffer(env->context, CL_MEM_READ_WRITE, 4096, NULL, &err);
  assert_cl_success(err);
  /* 1D image buffer */
  cl_image_desc desc = {.image_type = CL_MEM_OBJECT_IMAGE1D_BUFFER, .image_width = 100, .mem_object = buffer};
  cl_mem image = clCreateImage(env->context, 0, &rgba8, &desc, NULL, &err);
  assert_cl_success(err);
  const size_t extent1[3] = {100, 1, 1};
  check_aliasing(env->queue, buffer, 0, image, extent1, 400);
  cl_mem got = NULL;
  assert_cl_success(clGetMemObjectInfo(image, CL_MEM_ASSOCIATED_MEMOBJECT, sizeof got, &got, NULL));
  assert_ptr_equal(got, buffer);
  assert_cl_success(clGetImageInfo(image, CL_IMAGE_BUFFER, sizeof got, &got, NULL));
  assert_ptr_equal(got, buffer);
  assert_cl_success(clReleaseMemObject(image));
  /* 2D image over the buffer with a padded row pitch */
  cl_image_desc desc2 = {.image_type = CL_MEM_OBJECT_IMAGE2D,
                         .image_width = 9,
                         .image_height = 7,
                         .image_row_pitch = 9 * 4 + 20,
                         .mem_object = buffer};
  image = clCreateImage(env->context, CL_MEM_READ_ONLY, &rgba8, &desc2, NULL, &err);
  assert_cl_success(err);
  const size_t extent2[3] = {9, 7, 1};
  check_aliasing(env->queue, buffer, 0, image, extent2, 9 * 4 + 20);
  assert_cl_success(clGetImageInfo(image, CL_IMAGE_BUFFER, sizeof got, &got, NULL));
  assert_ptr_equal(got, buffer);
  assert_cl_success(clReleaseMemObject(image));
  /* over a sub-buffer: the image starts at the sub-buffer's origin */
  cl_buffer_region where = {1024, 1024};
  cl_mem sub = clCreateSubBuffer(buffer, 0, CL_BUFFER_CREATE_TYPE_REGION, &where, &err);
  assert_cl_success(err);
  desc.image_width = 64;
  desc.mem_object = sub;
  image = clCreateImage(env->context, 0, &rgba8, &desc, NULL, &err);
  assert_cl_success(err);
  const size_t extent3[3] = {64, 1, 1};
  check_aliasing(env->queue, buffer, 1024, image, extent3, 256);
  assert_cl_success(clReleaseMemObject(image));
  assert_cl_success(clReleaseMemObject(sub));
  assert_cl_success(clReleaseMemObject(buffer));
}

/* The image holds its buffer: released by the application, it still backs the image. */
static void test_image_keeps_buffer_alive(void **state) {
  struct kiln_test_env *env = *state;
  cl_int err;
  unsigned char data[64];
  image_pattern(data, sizeof data, 7);
  cl_mem buffer = clCreateBuffer(env->context, CL_MEM_COPY_HOST_PTR, sizeof data, data, &err);
  assert_cl_success(err);
  cl_image_desc desc = {.image_type = CL_MEM_OBJECT_IMAGE1D_BUFFER, .image_width = 16, .mem_object = buffer};
  cl_mem image = clCreateImage(env->context, 0, &rgba8, &desc, NULL, &err);
  assert_cl_success(err);
  assert_cl_success(clReleaseMemObject(buffer));
  unsigned char out[64];
  const size_t extent[3] = {16, 1, 1};
  image_read_all(env->queue, image, extent, out);
  assert_memory_equal(out, data, sizeof data);
  assert_cl_success(clReleaseMemObject(image));
}

static cl_mem_flags flags_of(cl_mem mem) {
  cl_mem_flags flags = 0;
  assert_cl_success(clGetMemObjectInfo(mem, CL_MEM_FLAGS, sizeof flags, &flags, NULL));
  return flags;
}

/* Flags of an image over a buffer: access, host access and host-pointer flags inherited
 * when not given; host-pointer flags and conflicting access refused. */
static void test_buffer_image_flags(void **state) {
  struct kiln_test_env *env = *state;
  cl_int err;
  void *host = kiln_test_host_alloc(4096);
  cl_mem buffer =
      clCreateBuffer(env->context, CL_MEM_READ_ONLY | CL_MEM_HOST_WRITE_ONLY | CL_MEM_USE_HOST_PTR, 4096, host, &err);
  assert_cl_success(err);
  cl_image_desc desc = {.image_type = CL_MEM_OBJECT_IMAGE1D_BUFFER, .image_width = 32, .mem_object = buffer};
  cl_mem image = clCreateImage(env->context, 0, &rgba8, &desc, NULL, &err);
  assert_cl_success(err);
  assert_int_equal(flags_of(image), CL_MEM_READ_ONLY | CL_MEM_HOST_WRITE_ONLY | CL_MEM_USE_HOST_PTR);
  /* the image's host access is the buffer's: reads refused */
  unsigned char out[128];
  const size_t origin[3] = {0, 0, 0}, region[3] = {32, 1, 1};
  assert_int_equal(clEnqueueReadImage(env->queue, image, CL_TRUE, origin, region, 0, 0, out, 0, NULL, NULL),
                   CL_INVALID_OPERATION);
  assert_cl_success(clReleaseMemObject(image));
  /* given flags that agree are kept */
  image = clCreateImage(env->context, CL_MEM_READ_ONLY | CL_MEM_HOST_NO_ACCESS, &rgba8, &desc, NULL, &err);
  assert_cl_success(err);
  assert_int_equal(flags_of(image), CL_MEM_READ_ONLY | CL_MEM_HOST_NO_ACCESS | CL_MEM_USE_HOST_PTR);
  assert_cl_success(clReleaseMemObject(image));
  /* conflicts */
  assert_int_equal(image_create_error(env->context, CL_MEM_READ_WRITE, &rgba8, &desc, NULL), CL_INVALID_VALUE);
  assert_int_equal(image_create_error(env->context, CL_MEM_WRITE_ONLY, &rgba8, &desc, NULL), CL_INVALID_VALUE);
  assert_int_equal(image_create_error(env->context, CL_MEM_HOST_READ_ONLY, &rgba8, &desc, NULL), CL_INVALID_VALUE);
  assert_int_equal(image_create_error(env->context, CL_MEM_USE_HOST_PTR, &rgba8, &desc, host), CL_INVALID_VALUE);
  assert_int_equal(image_create_error(env->context, CL_MEM_ALLOC_HOST_PTR, &rgba8, &desc, NULL), CL_INVALID_VALUE);
  assert_int_equal(image_create_error(env->context, CL_MEM_COPY_HOST_PTR, &rgba8, &desc, host), CL_INVALID_VALUE);
  /* no host pointer with a buffer */
  assert_int_equal(image_create_error(env->context, 0, &rgba8, &desc, host), CL_INVALID_HOST_PTR);
  assert_cl_success(clReleaseMemObject(buffer));
  free(host);
}

/* Errors of images over buffers: the buffer's size, pitches, a released or foreign
 * buffer, an image where a buffer is needed, an unaligned host pointer (every type may
 * have a buffer: test_image_from_buffer.c). */
static void test_buffer_image_errors(void **state) {
  struct kiln_test_env *env = *state;
  cl_int err;
  cl_mem buffer = clCreateBuffer(env->context, 0, 1024, NULL, &err);
  assert_cl_success(err);
  cl_image_desc desc = {.image_type = CL_MEM_OBJECT_IMAGE1D_BUFFER, .image_width = 257, .mem_object = buffer};
  assert_int_equal(image_create_error(env->context, 0, &rgba8, &desc, NULL), CL_INVALID_IMAGE_SIZE);
  desc.image_width = 256; /* exactly fits */
  cl_mem image = clCreateImage(env->context, 0, &rgba8, &desc, NULL, &err);
  assert_cl_success(err);
  /* an image is no buffer for a 1D image buffer */
  desc.mem_object = image;
  assert_int_equal(image_create_error(env->context, 0, &rgba8, &desc, NULL), CL_INVALID_IMAGE_DESCRIPTOR);
  assert_cl_success(clReleaseMemObject(image));
  desc.mem_object = NULL; /* a 1D image buffer needs one */
  assert_int_equal(image_create_error(env->context, 0, &rgba8, &desc, NULL), CL_INVALID_IMAGE_DESCRIPTOR);
  /* 2D over a buffer: rows must fit, the row pitch must hold a row (else
   * CL_INVALID_IMAGE_DESCRIPTOR) and keep the pitch alignment, whole elements (else
   * CL_INVALID_IMAGE_FORMAT_DESCRIPTOR, cl_ext_image_from_buffer's code) */
  cl_image_desc d2 = {.image_type = CL_MEM_OBJECT_IMAGE2D, .image_width = 16, .image_height = 17, .mem_object = buffer};
  assert_int_equal(image_create_error(env->context, 0, &rgba8, &d2, NULL), CL_INVALID_IMAGE_SIZE);
  d2.image_height = 16;
  d2.image_row_pitch = 60;
  assert_int_equal(image_create_error(env->context, 0, &rgba8, &d2, NULL), CL_INVALID_IMAGE_DESCRIPTOR);
  d2.image_row_pitch = 66;
  assert_int_equal(image_create_error(env->context, 0, &rgba8, &d2, NULL), CL_INVALID_IMAGE_FORMAT_DESCRIPTOR);
  /* a buffer of another context */
  cl_context other = clCreateContext(NULL, 1, &env->device, NULL, NULL, &err);
  assert_cl_success(err);
  desc.mem_object = buffer;
  assert_int_equal(image_create_error(other, 0, &rgba8, &desc, NULL), CL_INVALID_IMAGE_DESCRIPTOR);
  assert_cl_success(clReleaseContext(other));
  /* a released buffer (through the dispatch table: the loader would dereference it) */
  cl_mem gone = clCreateBuffer(env->context, 0, 1024, NULL, &err);
  assert_cl_success(err);
  assert_cl_success(clReleaseMemObject(gone));
  desc.mem_object = gone;
  assert_int_equal(image_create_error(env->context, 0, &rgba8, &desc, NULL), CL_INVALID_IMAGE_DESCRIPTOR);
  /* a 2D image over a USE_HOST_PTR buffer whose pointer is not element-aligned */
  cl_uint base_align = 0;
  assert_cl_success(
      clGetDeviceInfo(env->device, CL_DEVICE_IMAGE_BASE_ADDRESS_ALIGNMENT, sizeof base_align, &base_align, NULL));
  unsigned char *host = kiln_test_host_alloc(4096 + 16);
  cl_mem odd = clCreateBuffer(env->context, CL_MEM_USE_HOST_PTR, 4096, host + 1, &err);
  assert_cl_success(err);
  cl_image_desc d3 = {.image_type = CL_MEM_OBJECT_IMAGE2D, .image_width = 8, .image_height = 8, .mem_object = odd};
  assert_int_equal(image_create_error(env->context, 0, &rgba8, &d3, NULL), CL_INVALID_IMAGE_FORMAT_DESCRIPTOR);
  assert_cl_success(clReleaseMemObject(odd));
  cl_mem aligned = clCreateBuffer(env->context, CL_MEM_USE_HOST_PTR, 4096, host + 4 * base_align, &err);
  assert_cl_success(err);
  d3.mem_object = aligned;
  image = clCreateImage(env->context, 0, &rgba8, &d3, NULL, &err);
  assert_cl_success(err);
  assert_cl_success(clReleaseMemObject(image));
  assert_cl_success(clReleaseMemObject(aligned));
  free(host);
  assert_cl_success(clReleaseMemObject(buffer));
}

/* A 2D image viewing another in a compatible order shares its data; other views refused. */
static void test_image_from_image(void **state) {
  struct kiln_test_env *env = *state;
  cl_int err;
  const size_t extent[3] = {4, 3, 1};
  cl_mem base = image_create(env->context, CL_MEM_READ_ONLY, &rgba8, CL_MEM_OBJECT_IMAGE2D, extent, NULL);
  unsigned char in[48], out[48];
  image_pattern(in, sizeof in, 8);
  image_write_all(env->queue, base, extent, in);
  cl_image_desc desc = image_desc_of(CL_MEM_OBJECT_IMAGE2D, extent);
  desc.mem_object = base;
  const cl_image_format srgba = {CL_sRGBA, CL_UNORM_INT8};
  cl_mem view = clCreateImage(env->context, 0, &srgba, &desc, NULL, &err);
  assert_cl_success(err);
  image_read_all(env->queue, view, extent, out);
  assert_memory_equal(in, out, sizeof in);
  cl_mem got = NULL;
  assert_cl_success(clGetMemObjectInfo(view, CL_MEM_ASSOCIATED_MEMOBJECT, sizeof got, &got, NULL));
  assert_ptr_equal(got, base);
  assert_cl_success(clGetImageInfo(view, CL_IMAGE_BUFFER, sizeof got, &got, NULL));
  assert_null(got);
  assert_int_equal(flags_of(view), CL_MEM_READ_ONLY);
  assert_cl_success(clReleaseMemObject(view));
  /* not a compatible order, another data type, another size */
  const cl_image_format bgra = {CL_BGRA, CL_UNORM_INT8}, srgba16 = {CL_sRGBA, CL_UNORM_INT16};
  assert_int_equal(image_create_error(env->context, 0, &bgra, &desc, NULL), CL_INVALID_IMAGE_FORMAT_DESCRIPTOR);
  assert_int_equal(image_create_error(env->context, 0, &srgba16, &desc, NULL), CL_INVALID_IMAGE_FORMAT_DESCRIPTOR);
  desc.image_width = 5;
  assert_int_equal(image_create_error(env->context, 0, &srgba, &desc, NULL), CL_INVALID_IMAGE_DESCRIPTOR);
  /* only 2D images view 2D images */
  desc = image_desc_of(CL_MEM_OBJECT_IMAGE2D_ARRAY, extent);
  desc.mem_object = base;
  assert_int_equal(image_create_error(env->context, 0, &srgba, &desc, NULL), CL_INVALID_IMAGE_DESCRIPTOR);
  assert_cl_success(clReleaseMemObject(base));
  /* a depth view of an R float image */
  const cl_image_format r32f = {CL_R, CL_FLOAT}, depth32f = {CL_DEPTH, CL_FLOAT};
  base = image_create(env->context, CL_MEM_READ_WRITE, &r32f, CL_MEM_OBJECT_IMAGE2D, extent, NULL);
  desc = image_desc_of(CL_MEM_OBJECT_IMAGE2D, extent);
  desc.mem_object = base;
  view = clCreateImage(env->context, 0, &depth32f, &desc, NULL, &err);
  assert_cl_success(err);
  assert_cl_success(clReleaseMemObject(base)); /* the view keeps it */
  image_write_all(env->queue, view, extent, in);
  image_read_all(env->queue, view, extent, out);
  assert_memory_equal(in, out, sizeof in);
  assert_cl_success(clReleaseMemObject(view));
}

static void test_properties(void **state) {
  struct kiln_test_env *env = *state;
  cl_int err;
  const size_t extent[3] = {4, 4, 1};
  cl_image_desc desc = image_desc_of(CL_MEM_OBJECT_IMAGE2D, extent);
  const cl_mem_properties empty[] = {0};
  cl_mem image = clCreateImageWithProperties(env->context, empty, 0, &rgba8, &desc, NULL, &err);
  assert_cl_success(err);
  cl_mem_properties got[4] = {99, 99, 99, 99};
  size_t size = 0;
  assert_cl_success(clGetMemObjectInfo(image, CL_MEM_PROPERTIES, sizeof got, got, &size));
  assert_int_equal(size, sizeof(cl_mem_properties));
  assert_int_equal(got[0], 0);
  assert_cl_success(clReleaseMemObject(image));
  image = clCreateImageWithProperties(env->context, NULL, 0, &rgba8, &desc, NULL, &err);
  assert_cl_success(err);
  assert_cl_success(clGetMemObjectInfo(image, CL_MEM_PROPERTIES, 0, NULL, &size));
  assert_int_equal(size, 0);
  assert_cl_success(clReleaseMemObject(image));
  const cl_mem_properties unknown[] = {0x7FFF, 1, 0};
  err = CL_SUCCESS;
  assert_null(clCreateImageWithProperties(env->context, unknown, 0, &rgba8, &desc, NULL, &err));
  assert_int_equal(err, CL_INVALID_PROPERTY);
}

static void test_creation_errors(void **state) {
  struct kiln_test_env *env = *state;
  const struct _cl_icd_dispatch *d = kiln_test_dispatch_of(env->queue);
  const size_t extent[3] = {8, 8, 1};
  cl_image_desc desc = image_desc_of(CL_MEM_OBJECT_IMAGE2D, extent);
  unsigned char host[8 * 8 * 16];
  cl_int err = CL_SUCCESS;
  /* context */
  assert_null(d->clCreateImage((cl_context)env->queue, 0, &rgba8, &desc, NULL, &err));
  assert_int_equal(err, CL_INVALID_CONTEXT);
  assert_null(d->clCreateImage(NULL, 0, &rgba8, &desc, NULL, &err));
  assert_int_equal(err, CL_INVALID_CONTEXT);
  /* flags */
  assert_int_equal(image_create_error(env->context, CL_MEM_READ_ONLY | CL_MEM_WRITE_ONLY, &rgba8, &desc, NULL),
                   CL_INVALID_VALUE);
  assert_int_equal(image_create_error(env->context, (cl_mem_flags)1 << 40, &rgba8, &desc, NULL), CL_INVALID_VALUE);
  assert_int_equal(image_create_error(env->context, CL_MEM_USE_HOST_PTR | CL_MEM_COPY_HOST_PTR, &rgba8, &desc, host),
                   CL_INVALID_VALUE);
  /* format */
  assert_int_equal(image_create_error(env->context, 0, NULL, &desc, NULL), CL_INVALID_IMAGE_FORMAT_DESCRIPTOR);
  const cl_image_format bad_order = {0x1234, CL_UNORM_INT8}, bad_type = {CL_RGBA, 0x1234},
                        bad_pair = {CL_RGBA, CL_UNORM_SHORT_565};
  assert_int_equal(image_create_error(env->context, 0, &bad_order, &desc, NULL), CL_INVALID_IMAGE_FORMAT_DESCRIPTOR);
  assert_int_equal(image_create_error(env->context, 0, &bad_type, &desc, NULL), CL_INVALID_IMAGE_FORMAT_DESCRIPTOR);
  assert_int_equal(image_create_error(env->context, 0, &bad_pair, &desc, NULL), CL_INVALID_IMAGE_FORMAT_DESCRIPTOR);
  /* valid formats the device does not list for the type and access */
  const cl_image_format rgb565 = {CL_RGB, CL_UNORM_SHORT_565}, srgba = {CL_sRGBA, CL_UNORM_INT8},
                        depth = {CL_DEPTH, CL_FLOAT};
  assert_int_equal(image_create_error(env->context, 0, &rgb565, &desc, NULL), CL_IMAGE_FORMAT_NOT_SUPPORTED);
  assert_int_equal(image_create_error(env->context, CL_MEM_READ_WRITE, &srgba, &desc, NULL),
                   CL_IMAGE_FORMAT_NOT_SUPPORTED);
  cl_mem ok = clCreateImage(env->context, CL_MEM_READ_ONLY, &srgba, &desc, NULL, &err);
  assert_cl_success(err);
  assert_cl_success(clReleaseMemObject(ok));
  cl_image_desc desc3d = {.image_type = CL_MEM_OBJECT_IMAGE3D, .image_width = 4, .image_height = 4, .image_depth = 4};
  assert_int_equal(image_create_error(env->context, 0, &depth, &desc3d, NULL), CL_IMAGE_FORMAT_NOT_SUPPORTED);
  /* descriptor */
  assert_int_equal(image_create_error(env->context, 0, &rgba8, NULL, NULL), CL_INVALID_IMAGE_DESCRIPTOR);
  cl_image_desc bad = desc;
  bad.image_type = CL_MEM_OBJECT_BUFFER;
  assert_int_equal(image_create_error(env->context, 0, &rgba8, &bad, NULL), CL_INVALID_IMAGE_DESCRIPTOR);
  bad = desc;
  bad.num_mip_levels = 2;
  assert_int_equal(image_create_error(env->context, 0, &rgba8, &bad, NULL), CL_INVALID_IMAGE_DESCRIPTOR);
  bad = desc;
  bad.num_samples = 4;
  assert_int_equal(image_create_error(env->context, 0, &rgba8, &bad, NULL), CL_INVALID_IMAGE_DESCRIPTOR);
  bad = desc;
  bad.image_row_pitch = 64; /* pitches need a host pointer */
  assert_int_equal(image_create_error(env->context, 0, &rgba8, &bad, NULL), CL_INVALID_IMAGE_DESCRIPTOR);
  bad.image_row_pitch = 28; /* smaller than a row */
  assert_int_equal(image_create_error(env->context, CL_MEM_COPY_HOST_PTR, &rgba8, &bad, host),
                   CL_INVALID_IMAGE_DESCRIPTOR);
  bad.image_row_pitch = 34; /* not whole elements */
  assert_int_equal(image_create_error(env->context, CL_MEM_COPY_HOST_PTR, &rgba8, &bad, host),
                   CL_INVALID_IMAGE_DESCRIPTOR);
  cl_image_desc bad3d = desc3d;
  bad3d.image_row_pitch = 16;
  bad3d.image_slice_pitch = 48; /* below row pitch x height */
  assert_int_equal(image_create_error(env->context, CL_MEM_USE_HOST_PTR, &rgba8, &bad3d, host),
                   CL_INVALID_IMAGE_DESCRIPTOR);
  /* sizes */
  size_t max2d = 0, max3d = 0, max_array = 0;
  assert_cl_success(clGetDeviceInfo(env->device, CL_DEVICE_IMAGE2D_MAX_WIDTH, sizeof max2d, &max2d, NULL));
  assert_cl_success(clGetDeviceInfo(env->device, CL_DEVICE_IMAGE3D_MAX_DEPTH, sizeof max3d, &max3d, NULL));
  assert_cl_success(clGetDeviceInfo(env->device, CL_DEVICE_IMAGE_MAX_ARRAY_SIZE, sizeof max_array, &max_array, NULL));
  bad = desc;
  bad.image_width = 0;
  assert_int_equal(image_create_error(env->context, 0, &rgba8, &bad, NULL), CL_INVALID_IMAGE_SIZE);
  bad.image_width = max2d + 1;
  assert_int_equal(image_create_error(env->context, 0, &rgba8, &bad, NULL), CL_INVALID_IMAGE_SIZE);
  bad = desc;
  bad.image_height = 0;
  assert_int_equal(image_create_error(env->context, 0, &rgba8, &bad, NULL), CL_INVALID_IMAGE_SIZE);
  bad3d = desc3d;
  bad3d.image_depth = max3d + 1;
  assert_int_equal(image_create_error(env->context, 0, &rgba8, &bad3d, NULL), CL_INVALID_IMAGE_SIZE);
  cl_image_desc arr = {.image_type = CL_MEM_OBJECT_IMAGE1D_ARRAY, .image_width = 4, .image_array_size = 0};
  assert_int_equal(image_create_error(env->context, 0, &rgba8, &arr, NULL), CL_INVALID_IMAGE_SIZE);
  arr.image_array_size = max_array + 1;
  assert_int_equal(image_create_error(env->context, 0, &rgba8, &arr, NULL), CL_INVALID_IMAGE_SIZE);
  /* beyond CL_DEVICE_MAX_MEM_ALLOC_SIZE though within every dimension */
  cl_ulong max_alloc = 0;
  assert_cl_success(clGetDeviceInfo(env->device, CL_DEVICE_MAX_MEM_ALLOC_SIZE, sizeof max_alloc, &max_alloc, NULL));
  const cl_image_format rgba32f = {CL_RGBA, CL_FLOAT};
  cl_image_desc huge = {
      .image_type = CL_MEM_OBJECT_IMAGE3D, .image_width = 2048, .image_height = 2048, .image_depth = 2048};
  if ((cl_ulong)2048 * 2048 * 2048 * 16 > max_alloc)
    assert_int_equal(image_create_error(env->context, 0, &rgba32f, &huge, NULL), CL_INVALID_IMAGE_SIZE);
  /* host pointer */
  assert_int_equal(image_create_error(env->context, CL_MEM_USE_HOST_PTR, &rgba8, &desc, NULL), CL_INVALID_HOST_PTR);
  assert_int_equal(image_create_error(env->context, CL_MEM_COPY_HOST_PTR, &rgba8, &desc, NULL), CL_INVALID_HOST_PTR);
  assert_int_equal(image_create_error(env->context, 0, &rgba8, &desc, host), CL_INVALID_HOST_PTR);
  assert_int_equal(image_create_error(env->context, CL_MEM_ALLOC_HOST_PTR, &rgba8, &desc, host), CL_INVALID_HOST_PTR);
}

static void test_legacy_entry_points(void **state) {
  struct kiln_test_env *env = *state;
  cl_int err;
  unsigned char host[6 * 4 * 40];
  image_pattern(host, sizeof host, 11);
  cl_mem image = clCreateImage2D(env->context, CL_MEM_COPY_HOST_PTR, &rgba8, 6, 4, 6 * 4 + 8, host, &err);
  assert_cl_success(err);
  unsigned char out[6 * 4 * 4];
  const size_t extent2[3] = {6, 4, 1};
  image_read_all(env->queue, image, extent2, out);
  for (int y = 0; y < 4; y++) assert_memory_equal(out + y * 24, host + y * 32, 24);
  cl_mem_object_type type;
  assert_cl_success(clGetMemObjectInfo(image, CL_MEM_TYPE, sizeof type, &type, NULL));
  assert_int_equal(type, CL_MEM_OBJECT_IMAGE2D);
  assert_cl_success(clReleaseMemObject(image));
  image = clCreateImage3D(env->context, 0, &rgba8, 3, 2, 2, 0, 0, NULL, &err);
  assert_cl_success(err);
  assert_cl_success(clGetMemObjectInfo(image, CL_MEM_TYPE, sizeof type, &type, NULL));
  assert_int_equal(type, CL_MEM_OBJECT_IMAGE3D);
  assert_cl_success(clReleaseMemObject(image));
  /* their errors: a depth of 1 and bad pitches are CL_INVALID_IMAGE_SIZE */
  err = CL_SUCCESS;
  assert_null(clCreateImage3D(env->context, 0, &rgba8, 3, 2, 1, 0, 0, NULL, &err));
  assert_int_equal(err, CL_INVALID_IMAGE_SIZE);
  assert_null(clCreateImage2D(env->context, 0, &rgba8, 6, 4, 32, NULL, &err));
  assert_int_equal(err, CL_INVALID_IMAGE_SIZE);
  assert_null(clCreateImage2D(env->context, CL_MEM_COPY_HOST_PTR, &rgba8, 6, 4, 20, host, &err));
  assert_int_equal(err, CL_INVALID_IMAGE_SIZE);
  assert_null(clCreateImage3D(env->context, CL_MEM_COPY_HOST_PTR, &rgba8, 3, 2, 2, 12, 20, host, &err));
  assert_int_equal(err, CL_INVALID_IMAGE_SIZE);
  assert_null(clCreateImage2D(env->context, 0, NULL, 6, 4, 0, NULL, &err));
  assert_int_equal(err, CL_INVALID_IMAGE_FORMAT_DESCRIPTOR);
  const struct _cl_icd_dispatch *d = kiln_test_dispatch_of(env->queue);
  assert_null(d->clCreateImage2D((cl_context)env->queue, 0, &rgba8, 6, 4, 0, NULL, &err));
  assert_int_equal(err, CL_INVALID_CONTEXT);
}

/* A released image is no image to any entry point; its context and buffer outlive it only
 * as long as the image does. */
static void test_released_handles(void **state) {
  struct kiln_test_env *env = *state;
  const struct _cl_icd_dispatch *d = kiln_test_dispatch_of(env->queue);
  const size_t extent[3] = {4, 4, 1};
  cl_mem image = image_create(env->context, 0, &rgba8, CL_MEM_OBJECT_IMAGE2D, extent, NULL);
  assert_cl_success(clRetainMemObject(image));
  cl_uint refs = 0;
  assert_cl_success(clGetMemObjectInfo(image, CL_MEM_REFERENCE_COUNT, sizeof refs, &refs, NULL));
  assert_int_equal(refs, 2);
  assert_cl_success(clReleaseMemObject(image));
  assert_cl_success(clReleaseMemObject(image));
  size_t width;
  unsigned char data[64];
  const size_t origin[3] = {0, 0, 0};
  assert_int_equal(d->clGetImageInfo(image, CL_IMAGE_WIDTH, sizeof width, &width, NULL), CL_INVALID_MEM_OBJECT);
  assert_int_equal(d->clReleaseMemObject(image), CL_INVALID_MEM_OBJECT);
  assert_int_equal(d->clRetainMemObject(image), CL_INVALID_MEM_OBJECT);
  assert_int_equal(d->clEnqueueReadImage(env->queue, image, CL_TRUE, origin, extent, 0, 0, data, 0, NULL, NULL),
                   CL_INVALID_MEM_OBJECT);
  cl_image_desc desc = image_desc_of(CL_MEM_OBJECT_IMAGE2D, extent);
  desc.mem_object = image; /* a released image to view */
  assert_int_equal(image_create_error(env->context, 0, &rgba8, &desc, NULL), CL_INVALID_IMAGE_DESCRIPTOR);
  /* an image keeps its context alive */
  cl_int err;
  cl_context ctx = clCreateContext(NULL, 1, &env->device, NULL, NULL, &err);
  assert_cl_success(err);
  cl_mem kept = image_create(ctx, 0, &rgba8, CL_MEM_OBJECT_IMAGE2D, extent, NULL);
  assert_cl_success(clReleaseContext(ctx));
  cl_context got = NULL;
  assert_cl_success(clGetMemObjectInfo(kept, CL_MEM_CONTEXT, sizeof got, &got, NULL));
  assert_ptr_equal(got, ctx);
  assert_cl_success(clReleaseMemObject(kept));
  /* a released context creates nothing */
  assert_null(d->clCreateImage(ctx, 0, &rgba8, &desc, NULL, &err));
  assert_int_equal(err, CL_INVALID_CONTEXT);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_every_type_round_trips),
      cmocka_unit_test(test_use_host_ptr_2d_pitch_is_zero_copy),
      cmocka_unit_test(test_use_host_ptr_slice_pitches),
      cmocka_unit_test(test_copy_and_alloc_host_ptr),
      cmocka_unit_test(test_images_over_buffers_alias),
      cmocka_unit_test(test_image_keeps_buffer_alive),
      cmocka_unit_test(test_buffer_image_flags),
      cmocka_unit_test(test_buffer_image_errors),
      cmocka_unit_test(test_image_from_image),
      cmocka_unit_test(test_properties),
      cmocka_unit_test(test_creation_errors),
      cmocka_unit_test(test_legacy_entry_points),
      cmocka_unit_test(test_released_handles),
  };
  return cmocka_run_group_tests(tests, kiln_test_env_setup, kiln_test_env_teardown);
}
