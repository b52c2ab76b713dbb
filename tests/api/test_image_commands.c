/* Image commands: clEnqueueReadImage / WriteImage with host pitches, CopyImage between
 * every pair of types, CopyImageToBuffer / CopyBufferToImage, FillImage for each format
 * class checked against the spec's conversion rules, MapImage / UnmapMemObject, checked
 * against a host model of each image; their events, wait lists and blocking; and every
 * error the spec lists for them. */
#include "image_test.h"

/* A model of an image in origin/region coordinates (tight, 4-byte elements unless said). */
struct model {
  cl_mem_object_type type;
  size_t extent[3];
  size_t element;
  unsigned char *bytes;
};

static struct model model_make(cl_mem_object_type type, size_t w, size_t h, size_t d, size_t element, unsigned seed) {
  struct model m = {type, {0, 0, 0}, element, NULL};
  image_extent_of(type, w, h, d, m.extent);
  m.bytes = malloc(image_bytes(m.extent, element));
  image_pattern(m.bytes, image_bytes(m.extent, element), seed);
  return m;
}

/* An image of the model's type holding the model's bytes. */
static cl_mem model_image(struct kiln_test_env *env, const struct model *m, const cl_image_format *format) {
  cl_mem image = image_create(env->context, 0, format, m->type, m->extent, NULL);
  image_write_all(env->queue, image, m->extent, m->bytes);
  return image;
}

static void expect_image(struct kiln_test_env *env, cl_mem image, const struct model *m) {
  size_t bytes = image_bytes(m->extent, m->element);
  unsigned char *got = malloc(bytes);
  image_read_all(env->queue, image, m->extent, got);
  assert_memory_equal(got, m->bytes, bytes);
  free(got);
}

/* A region inside the model of every used coordinate: from 1 to extent - 1 (or the one
 * element of an unused coordinate). */
static void inner_region(const struct model *m, size_t origin[3], size_t region[3]) {
  for (int d = 0; d < 3; d++) {
    origin[d] = m->extent[d] > 2 ? 1 : 0;
    region[d] = m->extent[d] > 2 ? m->extent[d] - 2 : m->extent[d];
  }
}

static void test_read_write_regions_with_pitches(void **state) {
  struct kiln_test_env *env = *state;
  for (int t = 0; t < IMAGE_TYPE_COUNT; t++) {
    struct model m = model_make(image_types[t], 7, 5, 4, 4, (unsigned)t);
    cl_mem image = model_image(env, &m, &rgba8);
    expect_image(env, image, &m);
    size_t origin[3], region[3];
    inner_region(&m, origin, region);
    bool sliced = image_types[t] == CL_MEM_OBJECT_IMAGE1D_ARRAY || image_types[t] == CL_MEM_OBJECT_IMAGE2D_ARRAY ||
                  image_types[t] == CL_MEM_OBJECT_IMAGE3D;
    /* host rows of region[0] elements + 3 spare, and for sliced types slices one row longer;
     * a 1D array's layers are its slices */
    size_t row = region[0] * 4 + 12;
    size_t rows_per_slice = image_types[t] == CL_MEM_OBJECT_IMAGE1D_ARRAY ? 1 : region[1];
    size_t slice = sliced ? row * (rows_per_slice + 1) : 0;
    size_t slices = image_types[t] == CL_MEM_OBJECT_IMAGE1D_ARRAY ? region[1] : region[2];
    size_t host_bytes = (sliced ? slice : row * region[1]) * slices;
    unsigned char *host = malloc(host_bytes);
    image_pattern(host, host_bytes, 40 + (unsigned)t);
    assert_cl_success(clEnqueueWriteImage(env->queue, image, CL_TRUE, origin, region, row, slice, host, 0, NULL, NULL));
    /* the model: element (x, y, z) of the region came from the host at its pitches */
    for (size_t z = 0; z < region[2]; z++)
      for (size_t y = 0; y < region[1]; y++) {
        size_t at = image_types[t] == CL_MEM_OBJECT_IMAGE1D_ARRAY ? y * slice : z * slice + y * row;
        memcpy(m.bytes + (((origin[2] + z) * m.extent[1] + origin[1] + y) * m.extent[0] + origin[0]) * 4, host + at,
               region[0] * 4);
      }
    expect_image(env, image, &m);
    /* read the region back with the same pitches: the spare bytes stay as they were */
    unsigned char *back = malloc(host_bytes);
    memset(back, 0x5A, host_bytes);
    assert_cl_success(clEnqueueReadImage(env->queue, image, CL_TRUE, origin, region, row, slice, back, 0, NULL, NULL));
    for (size_t z = 0; z < region[2]; z++)
      for (size_t y = 0; y < region[1]; y++) {
        size_t at = image_types[t] == CL_MEM_OBJECT_IMAGE1D_ARRAY ? y * slice : z * slice + y * row;
        assert_memory_equal(back + at, host + at, region[0] * 4);
        assert_int_equal(back[at + region[0] * 4], 0x5A);
      }
    free(back);
    free(host);
    free(m.bytes);
    assert_cl_success(clReleaseMemObject(image));
  }
}

/* A region both types can address: one row or layer where either has only one, one slice
 * where either lacks the third coordinate. */
static void shared_region(cl_mem_object_type a, cl_mem_object_type b, size_t region[3]) {
  bool one_row = a == CL_MEM_OBJECT_IMAGE1D || a == CL_MEM_OBJECT_IMAGE1D_BUFFER || b == CL_MEM_OBJECT_IMAGE1D ||
                 b == CL_MEM_OBJECT_IMAGE1D_BUFFER;
  bool third = (a == CL_MEM_OBJECT_IMAGE2D_ARRAY || a == CL_MEM_OBJECT_IMAGE3D) &&
               (b == CL_MEM_OBJECT_IMAGE2D_ARRAY || b == CL_MEM_OBJECT_IMAGE3D);
  region[0] = 3;
  region[1] = one_row ? 1 : 2;
  region[2] = third ? 2 : 1;
}

static void origin_in(const struct model *m, size_t x, size_t origin[3]) {
  origin[0] = x;
  origin[1] = m->extent[1] > 2 ? 1 : 0;
  origin[2] = m->extent[2] > 2 ? 1 : 0;
}

static void test_copy_between_every_pair_of_types(void **state) {
  struct kiln_test_env *env = *state;
  for (int s = 0; s < IMAGE_TYPE_COUNT; s++)
    for (int t = 0; t < IMAGE_TYPE_COUNT; t++) {
      struct model src = model_make(image_types[s], 6, 4, 3, 4, 1), dst = model_make(image_types[t], 7, 5, 4, 4, 2);
      cl_mem a = model_image(env, &src, &rgba8), b = model_image(env, &dst, &rgba8);
      size_t region[3], src_origin[3], dst_origin[3];
      shared_region(image_types[s], image_types[t], region);
      origin_in(&src, 2, src_origin);
      origin_in(&dst, 1, dst_origin);
      assert_cl_success(clEnqueueCopyImage(env->queue, a, b, src_origin, dst_origin, region, 0, NULL, NULL));
      image_model_copy(dst.bytes, dst.extent, dst_origin, src.bytes, src.extent, src_origin, region, 4);
      expect_image(env, b, &dst);
      expect_image(env, a, &src);
      assert_cl_success(clReleaseMemObject(a));
      assert_cl_success(clReleaseMemObject(b));
      free(src.bytes);
      free(dst.bytes);
    }
}

static void test_copy_within_one_image(void **state) {
  struct kiln_test_env *env = *state;
  struct model m = model_make(CL_MEM_OBJECT_IMAGE3D, 8, 6, 4, 4, 3);
  cl_mem image = model_image(env, &m, &rgba8);
  /* disjoint boxes of one image (their byte ranges interleave) */
  const size_t from[3] = {0, 0, 0}, to[3] = {4, 2, 1}, region[3] = {4, 3, 2};
  assert_cl_success(clEnqueueCopyImage(env->queue, image, image, from, to, region, 0, NULL, NULL));
  image_model_copy(m.bytes, m.extent, to, m.bytes, m.extent, from, region, 4);
  expect_image(env, image, &m);
  /* overlapping boxes */
  const size_t near[3] = {3, 2, 1};
  assert_int_equal(clEnqueueCopyImage(env->queue, image, image, from, near, region, 0, NULL, NULL),
                   CL_MEM_COPY_OVERLAP);
  assert_int_equal(clEnqueueCopyImage(env->queue, image, image, from, from, region, 0, NULL, NULL),
                   CL_MEM_COPY_OVERLAP);
  /* formats must be the same, element size aside */
  const cl_image_format bgra = {CL_BGRA, CL_UNORM_INT8}, r32 = {CL_R, CL_UNSIGNED_INT32};
  const size_t extent[3] = {8, 6, 4};
  cl_mem other = image_create(env->context, 0, &bgra, CL_MEM_OBJECT_IMAGE3D, extent, NULL);
  cl_mem same_size = image_create(env->context, 0, &r32, CL_MEM_OBJECT_IMAGE3D, extent, NULL);
  assert_int_equal(clEnqueueCopyImage(env->queue, image, other, from, from, region, 0, NULL, NULL),
                   CL_IMAGE_FORMAT_MISMATCH);
  assert_int_equal(clEnqueueCopyImage(env->queue, same_size, image, from, from, region, 0, NULL, NULL),
                   CL_IMAGE_FORMAT_MISMATCH);
  assert_cl_success(clReleaseMemObject(other));
  assert_cl_success(clReleaseMemObject(same_size));
  assert_cl_success(clReleaseMemObject(image));
  free(m.bytes);
}

static void test_copy_with_buffers_every_type(void **state) {
  struct kiln_test_env *env = *state;
  cl_int err;
  for (int t = 0; t < IMAGE_TYPE_COUNT; t++) {
    struct model m = model_make(image_types[t], 6, 5, 3, 4, 4);
    cl_mem image = model_image(env, &m, &rgba8);
    size_t origin[3], region[3];
    inner_region(&m, origin, region);
    size_t bytes = region[0] * region[1] * region[2] * 4, offset = 12;
    cl_mem buffer = clCreateBuffer(env->context, 0, bytes + offset + 8, NULL, &err);
    assert_cl_success(err);
    assert_cl_success(clEnqueueCopyImageToBuffer(env->queue, image, buffer, origin, region, offset, 0, NULL, NULL));
    /* the buffer holds the region tightly */
    unsigned char *got = malloc(bytes), *expect = malloc(bytes);
    const size_t zero[3] = {0, 0, 0};
    image_model_copy(expect, region, zero, m.bytes, m.extent, origin, region, 4);
    assert_cl_success(clEnqueueReadBuffer(env->queue, buffer, CL_TRUE, offset, bytes, got, 0, NULL, NULL));
    assert_memory_equal(got, expect, bytes);
    /* and back, elsewhere: to the origin corner */
    image_pattern(expect, bytes, 77);
    assert_cl_success(clEnqueueWriteBuffer(env->queue, buffer, CL_TRUE, offset, bytes, expect, 0, NULL, NULL));
    assert_cl_success(clEnqueueCopyBufferToImage(env->queue, buffer, image, offset, zero, region, 0, NULL, NULL));
    image_model_copy(m.bytes, m.extent, zero, expect, region, zero, region, 4);
    expect_image(env, image, &m);
    /* the buffer must hold the region */
    assert_int_equal(clEnqueueCopyImageToBuffer(env->queue, image, buffer, origin, region, offset + 9, 0, NULL, NULL),
                     CL_INVALID_VALUE);
    assert_int_equal(clEnqueueCopyBufferToImage(env->queue, buffer, image, (size_t)-1, zero, region, 0, NULL, NULL),
                     CL_INVALID_VALUE);
    free(got);
    free(expect);
    free(m.bytes);
    assert_cl_success(clReleaseMemObject(buffer));
    assert_cl_success(clReleaseMemObject(image));
  }
}

/* A 1D image buffer made from the buffer is refused as the other operand; a 2D image over
 * it, and a buffer sub-buffer, are ordinary operands. */
static void test_copy_with_own_buffer(void **state) {
  struct kiln_test_env *env = *state;
  cl_int err;
  cl_mem buffer = clCreateBuffer(env->context, 0, 2048, NULL, &err);
  assert_cl_success(err);
  cl_image_desc desc = {.image_type = CL_MEM_OBJECT_IMAGE1D_BUFFER, .image_width = 64, .mem_object = buffer};
  cl_mem image = clCreateImage(env->context, 0, &rgba8, &desc, NULL, &err);
  assert_cl_success(err);
  const size_t origin[3] = {0, 0, 0}, region[3] = {16, 1, 1};
  assert_int_equal(clEnqueueCopyImageToBuffer(env->queue, image, buffer, origin, region, 1024, 0, NULL, NULL),
                   CL_INVALID_MEM_OBJECT);
  assert_int_equal(clEnqueueCopyBufferToImage(env->queue, buffer, image, 1024, origin, region, 0, NULL, NULL),
                   CL_INVALID_MEM_OBJECT);
  assert_cl_success(clReleaseMemObject(image));
  cl_image_desc d2 = {.image_type = CL_MEM_OBJECT_IMAGE2D, .image_width = 16, .image_height = 4, .mem_object = buffer};
  image = clCreateImage(env->context, 0, &rgba8, &d2, NULL, &err);
  assert_cl_success(err);
  unsigned char in[256], out[256];
  image_pattern(in, sizeof in, 12);
  assert_cl_success(clEnqueueWriteBuffer(env->queue, buffer, CL_TRUE, 1024, sizeof in, in, 0, NULL, NULL));
  const size_t r2[3] = {16, 4, 1};
  assert_cl_success(clEnqueueCopyBufferToImage(env->queue, buffer, image, 1024, origin, r2, 0, NULL, NULL));
  assert_cl_success(clEnqueueReadBuffer(env->queue, buffer, CL_TRUE, 0, sizeof out, out, 0, NULL, NULL));
  assert_memory_equal(out, in, sizeof in);
  assert_cl_success(clReleaseMemObject(image));
  assert_cl_success(clReleaseMemObject(buffer));
}

/* One fill case: a format, its fill color's bytes, and the element the spec's conversion
 * gives (in memory order). */
struct fill_case {
  cl_image_format format;
  cl_mem_flags flags;
  unsigned char color[16];
  size_t color_size;
  unsigned char element[16];
  size_t element_size;
};

static struct fill_case fill_case_f(cl_channel_order order, cl_channel_type type, const float c[4], const void *element,
                                    size_t element_size) {
  struct fill_case f = {{order, type}, 0, {0}, 16, {0}, element_size};
  memcpy(f.color, c, 16);
  memcpy(f.element, element, element_size);
  return f;
}

static void run_fill_case(struct kiln_test_env *env, const struct fill_case *c) {
  enum { W = 5, H = 4 };
  const size_t extent[3] = {W, H, 1};
  cl_mem image = image_create(env->context, c->flags, &c->format, CL_MEM_OBJECT_IMAGE2D, extent, NULL);
  unsigned char zero[W * H * 16] = {0}, got[W * H * 16];
  image_write_all(env->queue, image, extent, zero);
  /* the color from memory of exactly its size (a depth fill color is one float) */
  void *color = malloc(c->color_size);
  memcpy(color, c->color, c->color_size);
  const size_t origin[3] = {1, 1, 0}, region[3] = {3, 2, 1};
  assert_cl_success(clEnqueueFillImage(env->queue, image, color, origin, region, 0, NULL, NULL));
  free(color); /* the color is read at enqueue time */
  image_read_all(env->queue, image, extent, got);
  for (size_t y = 0; y < H; y++)
    for (size_t x = 0; x < W; x++) {
      const unsigned char *e = got + (y * W + x) * c->element_size;
      bool inside = x >= 1 && x < 4 && y >= 1 && y < 3;
      if (inside)
        assert_memory_equal(e, c->element, c->element_size);
      else
        assert_memory_equal(e, zero, c->element_size);
    }
  assert_cl_success(clReleaseMemObject(image));
}

static void test_fill_each_format_class(void **state) {
  struct kiln_test_env *env = *state;
  /* normalized: round to nearest even, saturate */
  const float unorm_c[4] = {0.5f, 1.0f, -0.5f, 2.0f};
  const unsigned char unorm8[4] = {128, 255, 0, 255};
  struct fill_case c = fill_case_f(CL_RGBA, CL_UNORM_INT8, unorm_c, unorm8, 4);
  run_fill_case(env, &c);
  /* BGRA stores blue first */
  const float bgra_c[4] = {1.0f, 0.5f, 0.0f, 0.25f};
  const unsigned char bgra8[4] = {0, 128, 255, 64};
  c = fill_case_f(CL_BGRA, CL_UNORM_INT8, bgra_c, bgra8, 4);
  run_fill_case(env, &c);
  const float snorm_c[4] = {-1.0f, 0.5f, -2.0f, 0.0f};
  const int16_t snorm16[4] = {-32767, 16384, -32768, 0}; /* convert_short_sat_rte(f * 32767) */
  c = fill_case_f(CL_RGBA, CL_SNORM_INT16, snorm_c, snorm16, 8);
  run_fill_case(env, &c);
  const float rg_c[4] = {0.5f, 1.0f, 0.3f, 0.3f};
  const uint16_t rg16[2] = {32768, 65535};
  c = fill_case_f(CL_RG, CL_UNORM_INT16, rg_c, rg16, 4);
  run_fill_case(env, &c);
  /* half: round to nearest even */
  const float half_c[4] = {1.5f, -2.0f, 0.0f, 65504.0f};
  const uint16_t half[4] = {0x3E00, 0xC000, 0x0000, 0x7BFF};
  c = fill_case_f(CL_RGBA, CL_HALF_FLOAT, half_c, half, 8);
  run_fill_case(env, &c);
  const float float_c[4] = {1.25f, -3.5f, 1e30f, -0.0f};
  c = fill_case_f(CL_RGBA, CL_FLOAT, float_c, float_c, 16);
  run_fill_case(env, &c);
  /* one channel: R only */
  const float r_c[4] = {0.75f, 9.0f, 9.0f, 9.0f};
  c = fill_case_f(CL_R, CL_FLOAT, r_c, r_c, 4);
  run_fill_case(env, &c);
  /* sRGB: the color channels encoded, alpha linear (READ_ONLY: sRGBA is listed for reading) */
  const float srgb_c[4] = {0.5f, 0.0f, 1.0f, 0.5f};
  const unsigned char srgb8[4] = {188, 0, 255, 128};
  c = fill_case_f(CL_sRGBA, CL_UNORM_INT8, srgb_c, srgb8, 4);
  c.flags = CL_MEM_READ_ONLY;
  run_fill_case(env, &c);
  /* integers: int4 / uint4 colors, saturated to the channel */
  const int32_t int_c[4] = {-200, 127, 5, -1};
  const int8_t int8[4] = {-128, 127, 5, -1};
  c = (struct fill_case){{CL_RGBA, CL_SIGNED_INT8}, 0, {0}, 16, {0}, 4};
  memcpy(c.color, int_c, 16);
  memcpy(c.element, int8, 4);
  run_fill_case(env, &c);
  const uint32_t uint_c[4] = {70000, 1, 0, 65535};
  const uint16_t uint16[4] = {65535, 1, 0, 65535};
  c = (struct fill_case){{CL_RGBA, CL_UNSIGNED_INT16}, 0, {0}, 16, {0}, 8};
  memcpy(c.color, uint_c, 16);
  memcpy(c.element, uint16, 8);
  run_fill_case(env, &c);
  const uint32_t uint32_c[4] = {0xFFFFFFFFu, 7, 0, 0x80000000u};
  c = (struct fill_case){{CL_RGBA, CL_UNSIGNED_INT32}, 0, {0}, 16, {0}, 16};
  memcpy(c.color, uint32_c, 16);
  memcpy(c.element, uint32_c, 16);
  run_fill_case(env, &c);
  const int32_t int32_c[4] = {-2147483647 - 1, 2147483647, -5, 6};
  c = (struct fill_case){{CL_R, CL_SIGNED_INT32}, 0, {0}, 16, {0}, 4};
  memcpy(c.color, int32_c, 16);
  memcpy(c.element, int32_c, 4);
  run_fill_case(env, &c);
  /* depth: the fill color is a single float */
  const float depth = 0.25f;
  c = (struct fill_case){{CL_DEPTH, CL_FLOAT}, 0, {0}, sizeof depth, {0}, 4};
  memcpy(c.color, &depth, 4);
  memcpy(c.element, &depth, 4);
  run_fill_case(env, &c);
  const float depth_half = 0.5f;
  const uint16_t depth16 = 32768;
  c = (struct fill_case){{CL_DEPTH, CL_UNORM_INT16}, 0, {0}, sizeof depth_half, {0}, 2};
  memcpy(c.color, &depth_half, 4);
  memcpy(c.element, &depth16, 2);
  run_fill_case(env, &c);
}

/* A fill of an inner region of every type touches that region only. */
static void test_fill_regions_every_type(void **state) {
  struct kiln_test_env *env = *state;
  const cl_uint color[4] = {1, 2, 3, 4};
  const cl_image_format rgba8u = {CL_RGBA, CL_UNSIGNED_INT8};
  for (int t = 0; t < IMAGE_TYPE_COUNT; t++) {
    struct model m = model_make(image_types[t], 6, 5, 4, 4, 5);
    cl_mem image = model_image(env, &m, &rgba8u);
    size_t origin[3], region[3];
    inner_region(&m, origin, region);
    assert_cl_success(clEnqueueFillImage(env->queue, image, color, origin, region, 0, NULL, NULL));
    for (size_t z = 0; z < region[2]; z++)
      for (size_t y = 0; y < region[1]; y++)
        for (size_t x = 0; x < region[0]; x++) {
          unsigned char *e =
              m.bytes + (((origin[2] + z) * m.extent[1] + origin[1] + y) * m.extent[0] + origin[0] + x) * 4;
          e[0] = 1, e[1] = 2, e[2] = 3, e[3] = 4;
        }
    expect_image(env, image, &m);
    free(m.bytes);
    assert_cl_success(clReleaseMemObject(image));
  }
}

static bool has_slices(cl_mem_object_type type) {
  return type == CL_MEM_OBJECT_IMAGE1D_ARRAY || type == CL_MEM_OBJECT_IMAGE2D_ARRAY || type == CL_MEM_OBJECT_IMAGE3D;
}

static void test_map_every_type(void **state) {
  struct kiln_test_env *env = *state;
  for (int t = 0; t < IMAGE_TYPE_COUNT; t++) {
    struct model m = model_make(image_types[t], 6, 5, 4, 4, 6);
    cl_mem image = model_image(env, &m, &rgba8);
    size_t origin[3], region[3];
    inner_region(&m, origin, region);
    size_t row_pitch = 0, slice_pitch = 99;
    cl_int err = -1;
    unsigned char *p = clEnqueueMapImage(env->queue, image, CL_TRUE, CL_MAP_READ | CL_MAP_WRITE, origin, region,
                                         &row_pitch, &slice_pitch, 0, NULL, NULL, &err);
    assert_cl_success(err);
    assert_non_null(p);
    size_t image_row = 0, image_slice = 0;
    assert_cl_success(clGetImageInfo(image, CL_IMAGE_ROW_PITCH, sizeof image_row, &image_row, NULL));
    assert_cl_success(clGetImageInfo(image, CL_IMAGE_SLICE_PITCH, sizeof image_slice, &image_slice, NULL));
    assert_int_equal(row_pitch, image_row);
    assert_int_equal(slice_pitch, has_slices(image_types[t]) ? image_slice : 0);
    cl_uint count = 0;
    assert_cl_success(clGetMemObjectInfo(image, CL_MEM_MAP_COUNT, sizeof count, &count, NULL));
    assert_int_equal(count, 1);
    /* read the region through the map, then negate it in place */
    size_t step1 = image_types[t] == CL_MEM_OBJECT_IMAGE1D_ARRAY ? slice_pitch : row_pitch;
    for (size_t z = 0; z < region[2]; z++)
      for (size_t y = 0; y < region[1]; y++) {
        unsigned char *mapped = p + z * slice_pitch + y * step1;
        unsigned char *model =
            m.bytes + (((origin[2] + z) * m.extent[1] + origin[1] + y) * m.extent[0] + origin[0]) * 4;
        assert_memory_equal(mapped, model, region[0] * 4);
        for (size_t i = 0; i < region[0] * 4; i++) mapped[i] = model[i] = (unsigned char)~model[i];
      }
    assert_cl_success(clEnqueueUnmapMemObject(env->queue, image, p, 0, NULL, NULL));
    assert_cl_success(clFinish(env->queue));
    assert_cl_success(clGetMemObjectInfo(image, CL_MEM_MAP_COUNT, sizeof count, &count, NULL));
    assert_int_equal(count, 0);
    expect_image(env, image, &m);
    free(m.bytes);
    assert_cl_success(clReleaseMemObject(image));
  }
}

static void *map_error(struct kiln_test_env *env, cl_mem image, cl_map_flags flags, const size_t *origin,
                       const size_t *region, size_t *row, size_t *slice, cl_int expect) {
  cl_int err = CL_SUCCESS;
  void *p = clEnqueueMapImage(env->queue, image, CL_TRUE, flags, origin, region, row, slice, 0, NULL, NULL, &err);
  assert_int_equal(err, expect);
  if (expect != CL_SUCCESS) assert_null(p);
  return p;
}

static void test_map_rules(void **state) {
  struct kiln_test_env *env = *state;
  const size_t extent[3] = {8, 8, 2};
  cl_mem image3d = image_create(env->context, 0, &rgba8, CL_MEM_OBJECT_IMAGE3D, extent, NULL);
  cl_mem image2d = image_create(env->context, 0, &rgba8, CL_MEM_OBJECT_IMAGE2D, extent, NULL);
  const size_t origin[3] = {0, 0, 0}, region3[3] = {8, 8, 2}, region2[3] = {8, 8, 1};
  size_t row, slice;
  /* pitch pointers: a row pitch always, a slice pitch for sliced types */
  map_error(env, image3d, CL_MAP_READ, origin, region3, NULL, &slice, CL_INVALID_VALUE);
  map_error(env, image3d, CL_MAP_READ, origin, region3, &row, NULL, CL_INVALID_VALUE);
  void *p = map_error(env, image2d, CL_MAP_READ, origin, region2, &row, NULL, CL_SUCCESS);
  assert_cl_success(clEnqueueUnmapMemObject(env->queue, image2d, p, 0, NULL, NULL));
  /* flags */
  map_error(env, image2d, CL_MAP_READ | CL_MAP_WRITE_INVALIDATE_REGION, origin, region2, &row, NULL, CL_INVALID_VALUE);
  map_error(env, image2d, (cl_map_flags)1 << 10, origin, region2, &row, NULL, CL_INVALID_VALUE);
  /* regions */
  const size_t out[3] = {1, 0, 0}, bad2d[3] = {8, 8, 2};
  map_error(env, image2d, CL_MAP_READ, out, region2, &row, NULL, CL_INVALID_VALUE);
  map_error(env, image2d, CL_MAP_READ, origin, bad2d, &row, NULL, CL_INVALID_VALUE);
  map_error(env, image2d, CL_MAP_READ, NULL, region2, &row, NULL, CL_INVALID_VALUE);
  /* write maps of one image may not share an element; disjoint column strips may */
  const size_t left[3] = {4, 8, 1}, right_origin[3] = {4, 0, 0}, inner[3] = {2, 2, 1}, inner_origin[3] = {3, 3, 0};
  void *a = map_error(env, image2d, CL_MAP_WRITE, origin, left, &row, NULL, CL_SUCCESS);
  void *b = map_error(env, image2d, CL_MAP_WRITE_INVALIDATE_REGION, right_origin, left, &row, NULL, CL_SUCCESS);
  map_error(env, image2d, CL_MAP_WRITE, inner_origin, inner, &row, NULL, CL_INVALID_OPERATION);
  void *c = map_error(env, image2d, CL_MAP_READ, inner_origin, inner, &row, NULL, CL_SUCCESS);
  assert_cl_success(clEnqueueUnmapMemObject(env->queue, image2d, a, 0, NULL, NULL));
  assert_cl_success(clEnqueueUnmapMemObject(env->queue, image2d, b, 0, NULL, NULL));
  assert_cl_success(clEnqueueUnmapMemObject(env->queue, image2d, c, 0, NULL, NULL));
  /* unmapping what was never mapped (or twice) */
  assert_int_equal(clEnqueueUnmapMemObject(env->queue, image2d, c, 0, NULL, NULL), CL_INVALID_VALUE);
  /* host access */
  cl_mem read_only = image_create(env->context, CL_MEM_HOST_READ_ONLY, &rgba8, CL_MEM_OBJECT_IMAGE2D, extent, NULL);
  cl_mem write_only = image_create(env->context, CL_MEM_HOST_WRITE_ONLY, &rgba8, CL_MEM_OBJECT_IMAGE2D, extent, NULL);
  cl_mem no_access = image_create(env->context, CL_MEM_HOST_NO_ACCESS, &rgba8, CL_MEM_OBJECT_IMAGE2D, extent, NULL);
  map_error(env, read_only, CL_MAP_WRITE, origin, region2, &row, NULL, CL_INVALID_OPERATION);
  map_error(env, write_only, CL_MAP_READ, origin, region2, &row, NULL, CL_INVALID_OPERATION);
  map_error(env, no_access, CL_MAP_READ, origin, region2, &row, NULL, CL_INVALID_OPERATION);
  p = map_error(env, read_only, CL_MAP_READ, origin, region2, &row, NULL, CL_SUCCESS);
  assert_cl_success(clEnqueueUnmapMemObject(env->queue, read_only, p, 0, NULL, NULL));
  /* a non-blocking map: its event is a map-image command */
  cl_event ev = NULL;
  cl_int err;
  p = clEnqueueMapImage(env->queue, image3d, CL_FALSE, CL_MAP_READ, origin, region3, &row, &slice, 0, NULL, &ev, &err);
  assert_cl_success(err);
  assert_cl_success(clWaitForEvents(1, &ev));
  cl_command_type type = 0;
  assert_cl_success(clGetEventInfo(ev, CL_EVENT_COMMAND_TYPE, sizeof type, &type, NULL));
  assert_int_equal(type, CL_COMMAND_MAP_IMAGE);
  assert_cl_success(clReleaseEvent(ev));
  assert_cl_success(clEnqueueUnmapMemObject(env->queue, image3d, p, 0, NULL, &ev));
  assert_cl_success(clWaitForEvents(1, &ev));
  assert_cl_success(clGetEventInfo(ev, CL_EVENT_COMMAND_TYPE, sizeof type, &type, NULL));
  assert_int_equal(type, CL_COMMAND_UNMAP_MEM_OBJECT);
  assert_cl_success(clReleaseEvent(ev));
  /* a buffer is no image; an image is no buffer */
  cl_mem buffer = clCreateBuffer(env->context, 0, 256, NULL, &err);
  assert_cl_success(err);
  map_error(env, buffer, CL_MAP_READ, origin, region2, &row, NULL, CL_INVALID_MEM_OBJECT);
  assert_null(clEnqueueMapBuffer(env->queue, image2d, CL_TRUE, CL_MAP_READ, 0, 4, 0, NULL, NULL, &err));
  assert_int_equal(err, CL_INVALID_MEM_OBJECT);
  assert_cl_success(clReleaseMemObject(buffer));
  assert_cl_success(clFinish(env->queue));
  cl_mem all[] = {image3d, image2d, read_only, write_only, no_access};
  for (int i = 0; i < 5; i++) assert_cl_success(clReleaseMemObject(all[i]));
}

/* The origin/region rules and the host-pitch rules of read and write, and the checks
 * every command makes of them. */
static void test_region_and_pitch_errors(void **state) {
  struct kiln_test_env *env = *state;
  const size_t e2[3] = {8, 4, 1}, e1a[3] = {8, 3, 1}, e3[3] = {4, 4, 4};
  cl_mem image2d = image_create(env->context, 0, &rgba8, CL_MEM_OBJECT_IMAGE2D, e2, NULL);
  cl_mem image1d = image_create(env->context, 0, &rgba8, CL_MEM_OBJECT_IMAGE1D, e2, NULL);
  cl_mem array1d = image_create(env->context, 0, &rgba8, CL_MEM_OBJECT_IMAGE1D_ARRAY, e1a, NULL);
  cl_mem image3d = image_create(env->context, 0, &rgba8, CL_MEM_OBJECT_IMAGE3D, e3, NULL);
  unsigned char data[1024];
  const size_t origin[3] = {0, 0, 0}, region2[3] = {8, 4, 1};
  const float color[4] = {0};
  struct {
    cl_mem image;
    size_t origin[3], region[3];
  } bad[] = {
      {image2d, {0, 0, 0}, {0, 4, 1}},                                           /* zero region */
      {image2d, {0, 0, 0}, {8, 4, 0}},          {image2d, {1, 0, 0}, {8, 4, 1}}, /* beyond the width */
      {image2d, {0, 4, 0}, {1, 1, 1}},                                           /* beyond the height */
      {image2d, {0, 0, 1}, {1, 1, 1}},                                           /* a 2D image's origin[2] */
      {image2d, {0, 0, 0}, {1, 1, 2}},                                           /* a 2D image's region[2] */
      {image1d, {0, 1, 0}, {1, 1, 1}},                                           /* a 1D image's origin[1] */
      {image1d, {0, 0, 0}, {1, 2, 1}},          {array1d, {0, 3, 0}, {1, 1, 1}}, /* beyond the layers */
      {array1d, {0, 0, 1}, {1, 1, 1}},          {image3d, {0, 0, 3}, {1, 1, 2}}, /* beyond the depth */
      {image3d, {(size_t)-1, 0, 0}, {2, 1, 1}},                                  /* wraps around */
  };
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    cl_mem im = bad[i].image;
    const size_t *o = bad[i].origin, *r = bad[i].region;
    assert_int_equal(clEnqueueReadImage(env->queue, im, CL_TRUE, o, r, 0, 0, data, 0, NULL, NULL), CL_INVALID_VALUE);
    assert_int_equal(clEnqueueWriteImage(env->queue, im, CL_TRUE, o, r, 0, 0, data, 0, NULL, NULL), CL_INVALID_VALUE);
    assert_int_equal(clEnqueueFillImage(env->queue, im, color, o, r, 0, NULL, NULL), CL_INVALID_VALUE);
    assert_int_equal(clEnqueueCopyImage(env->queue, im, im == image2d ? image1d : image2d, o, origin, r, 0, NULL, NULL),
                     CL_INVALID_VALUE);
    size_t row, slice;
    map_error(env, im, CL_MAP_READ, o, r, &row, &slice, CL_INVALID_VALUE);
  }
  /* NULL origin, region, pointer and color */
  assert_int_equal(clEnqueueReadImage(env->queue, image2d, CL_TRUE, NULL, region2, 0, 0, data, 0, NULL, NULL),
                   CL_INVALID_VALUE);
  assert_int_equal(clEnqueueReadImage(env->queue, image2d, CL_TRUE, origin, NULL, 0, 0, data, 0, NULL, NULL),
                   CL_INVALID_VALUE);
  assert_int_equal(clEnqueueReadImage(env->queue, image2d, CL_TRUE, origin, region2, 0, 0, NULL, 0, NULL, NULL),
                   CL_INVALID_VALUE);
  assert_int_equal(clEnqueueWriteImage(env->queue, image2d, CL_TRUE, origin, region2, 0, 0, NULL, 0, NULL, NULL),
                   CL_INVALID_VALUE);
  assert_int_equal(clEnqueueFillImage(env->queue, image2d, NULL, origin, region2, 0, NULL, NULL), CL_INVALID_VALUE);
  assert_int_equal(clEnqueueCopyImage(env->queue, image2d, image2d, NULL, origin, region2, 0, NULL, NULL),
                   CL_INVALID_VALUE);
  /* host pitches: a row pitch below a row; a slice pitch for a 1D or 2D image, or below
   * row pitch x rows */
  assert_int_equal(clEnqueueReadImage(env->queue, image2d, CL_TRUE, origin, region2, 31, 0, data, 0, NULL, NULL),
                   CL_INVALID_VALUE);
  assert_int_equal(clEnqueueWriteImage(env->queue, image2d, CL_TRUE, origin, region2, 0, 128, data, 0, NULL, NULL),
                   CL_INVALID_VALUE);
  const size_t region1[3] = {8, 1, 1};
  assert_int_equal(clEnqueueReadImage(env->queue, image1d, CL_TRUE, origin, region1, 0, 32, data, 0, NULL, NULL),
                   CL_INVALID_VALUE);
  const size_t region3[3] = {4, 4, 4};
  assert_int_equal(clEnqueueReadImage(env->queue, image3d, CL_TRUE, origin, region3, 16, 63, data, 0, NULL, NULL),
                   CL_INVALID_VALUE);
  assert_cl_success(clEnqueueReadImage(env->queue, image3d, CL_TRUE, origin, region3, 16, 64, data, 0, NULL, NULL));
  const size_t region1a[3] = {8, 3, 1};
  assert_int_equal(clEnqueueReadImage(env->queue, array1d, CL_TRUE, origin, region1a, 32, 31, data, 0, NULL, NULL),
                   CL_INVALID_VALUE);
  assert_cl_success(clEnqueueReadImage(env->queue, array1d, CL_TRUE, origin, region1a, 32, 32, data, 0, NULL, NULL));
  cl_mem all[] = {image2d, image1d, array1d, image3d};
  for (int i = 0; i < 4; i++) assert_cl_success(clReleaseMemObject(all[i]));
}

/* Queue, object, context and host-access errors of every image command. */
static void test_object_errors(void **state) {
  struct kiln_test_env *env = *state;
  const struct _cl_icd_dispatch *d = kiln_test_dispatch_of(env->queue);
  cl_int err;
  const size_t extent[3] = {4, 4, 1}, origin[3] = {0, 0, 0};
  cl_mem image = image_create(env->context, 0, &rgba8, CL_MEM_OBJECT_IMAGE2D, extent, NULL);
  cl_mem buffer = clCreateBuffer(env->context, 0, 256, NULL, &err);
  assert_cl_success(err);
  cl_context other = clCreateContext(NULL, 1, &env->device, NULL, NULL, &err);
  assert_cl_success(err);
  cl_mem foreign = image_create(other, 0, &rgba8, CL_MEM_OBJECT_IMAGE2D, extent, NULL);
  unsigned char data[64];
  const float color[4] = {0};
  size_t row;
  cl_command_queue bad_queue = (cl_command_queue)env->context;
  /* queue */
  assert_int_equal(d->clEnqueueReadImage(bad_queue, image, CL_TRUE, origin, extent, 0, 0, data, 0, NULL, NULL),
                   CL_INVALID_COMMAND_QUEUE);
  assert_int_equal(d->clEnqueueWriteImage(bad_queue, image, CL_TRUE, origin, extent, 0, 0, data, 0, NULL, NULL),
                   CL_INVALID_COMMAND_QUEUE);
  assert_int_equal(d->clEnqueueCopyImage(bad_queue, image, image, origin, origin, extent, 0, NULL, NULL),
                   CL_INVALID_COMMAND_QUEUE);
  assert_int_equal(d->clEnqueueFillImage(bad_queue, image, color, origin, extent, 0, NULL, NULL),
                   CL_INVALID_COMMAND_QUEUE);
  assert_int_equal(d->clEnqueueCopyImageToBuffer(bad_queue, image, buffer, origin, extent, 0, 0, NULL, NULL),
                   CL_INVALID_COMMAND_QUEUE);
  assert_int_equal(d->clEnqueueCopyBufferToImage(bad_queue, buffer, image, 0, origin, extent, 0, NULL, NULL),
                   CL_INVALID_COMMAND_QUEUE);
  assert_null(
      d->clEnqueueMapImage(bad_queue, image, CL_TRUE, CL_MAP_READ, origin, extent, &row, NULL, 0, NULL, NULL, &err));
  assert_int_equal(err, CL_INVALID_COMMAND_QUEUE);
  /* a buffer where an image is needed, an image where a buffer is, NULL */
  assert_int_equal(clEnqueueReadImage(env->queue, buffer, CL_TRUE, origin, extent, 0, 0, data, 0, NULL, NULL),
                   CL_INVALID_MEM_OBJECT);
  assert_int_equal(clEnqueueWriteImage(env->queue, buffer, CL_TRUE, origin, extent, 0, 0, data, 0, NULL, NULL),
                   CL_INVALID_MEM_OBJECT);
  assert_int_equal(clEnqueueCopyImage(env->queue, image, buffer, origin, origin, extent, 0, NULL, NULL),
                   CL_INVALID_MEM_OBJECT);
  assert_int_equal(clEnqueueFillImage(env->queue, buffer, color, origin, extent, 0, NULL, NULL), CL_INVALID_MEM_OBJECT);
  assert_int_equal(clEnqueueCopyImageToBuffer(env->queue, image, image, origin, extent, 0, 0, NULL, NULL),
                   CL_INVALID_MEM_OBJECT);
  assert_int_equal(clEnqueueCopyImageToBuffer(env->queue, buffer, buffer, origin, extent, 0, 0, NULL, NULL),
                   CL_INVALID_MEM_OBJECT);
  assert_int_equal(clEnqueueCopyBufferToImage(env->queue, image, image, 0, origin, extent, 0, NULL, NULL),
                   CL_INVALID_MEM_OBJECT);
  assert_int_equal(d->clEnqueueReadImage(env->queue, NULL, CL_TRUE, origin, extent, 0, 0, data, 0, NULL, NULL),
                   CL_INVALID_MEM_OBJECT);
  assert_int_equal(clEnqueueReadBuffer(env->queue, image, CL_TRUE, 0, 4, data, 0, NULL, NULL), CL_INVALID_MEM_OBJECT);
  assert_int_equal(clEnqueueCopyBuffer(env->queue, image, buffer, 0, 0, 4, 0, NULL, NULL), CL_INVALID_MEM_OBJECT);
  const unsigned char zero = 0;
  assert_int_equal(clEnqueueFillBuffer(env->queue, image, &zero, 1, 0, 4, 0, NULL, NULL), CL_INVALID_MEM_OBJECT);
  cl_buffer_region where = {0, 16};
  assert_null(clCreateSubBuffer(image, 0, CL_BUFFER_CREATE_TYPE_REGION, &where, &err));
  assert_int_equal(err, CL_INVALID_MEM_OBJECT);
  /* another context's image */
  assert_int_equal(clEnqueueReadImage(env->queue, foreign, CL_TRUE, origin, extent, 0, 0, data, 0, NULL, NULL),
                   CL_INVALID_CONTEXT);
  assert_int_equal(clEnqueueCopyImage(env->queue, image, foreign, origin, origin, extent, 0, NULL, NULL),
                   CL_INVALID_CONTEXT);
  assert_int_equal(clEnqueueFillImage(env->queue, foreign, color, origin, extent, 0, NULL, NULL), CL_INVALID_CONTEXT);
  assert_int_equal(clEnqueueCopyImageToBuffer(env->queue, foreign, buffer, origin, extent, 0, 0, NULL, NULL),
                   CL_INVALID_CONTEXT);
  assert_null(
      clEnqueueMapImage(env->queue, foreign, CL_TRUE, CL_MAP_READ, origin, extent, &row, NULL, 0, NULL, NULL, &err));
  assert_int_equal(err, CL_INVALID_CONTEXT);
  /* host access: read and write refuse, copy and fill ignore the flags */
  cl_mem write_only = image_create(env->context, CL_MEM_HOST_WRITE_ONLY, &rgba8, CL_MEM_OBJECT_IMAGE2D, extent, NULL);
  cl_mem read_only = image_create(env->context, CL_MEM_HOST_READ_ONLY, &rgba8, CL_MEM_OBJECT_IMAGE2D, extent, NULL);
  cl_mem no_access = image_create(env->context, CL_MEM_HOST_NO_ACCESS, &rgba8, CL_MEM_OBJECT_IMAGE2D, extent, NULL);
  assert_int_equal(clEnqueueReadImage(env->queue, write_only, CL_TRUE, origin, extent, 0, 0, data, 0, NULL, NULL),
                   CL_INVALID_OPERATION);
  assert_int_equal(clEnqueueReadImage(env->queue, no_access, CL_TRUE, origin, extent, 0, 0, data, 0, NULL, NULL),
                   CL_INVALID_OPERATION);
  assert_int_equal(clEnqueueWriteImage(env->queue, read_only, CL_TRUE, origin, extent, 0, 0, data, 0, NULL, NULL),
                   CL_INVALID_OPERATION);
  assert_int_equal(clEnqueueWriteImage(env->queue, no_access, CL_TRUE, origin, extent, 0, 0, data, 0, NULL, NULL),
                   CL_INVALID_OPERATION);
  assert_cl_success(clEnqueueWriteImage(env->queue, write_only, CL_TRUE, origin, extent, 0, 0, data, 0, NULL, NULL));
  assert_cl_success(clEnqueueCopyImage(env->queue, write_only, no_access, origin, origin, extent, 0, NULL, NULL));
  assert_cl_success(clEnqueueFillImage(env->queue, no_access, color, origin, extent, 0, NULL, NULL));
  assert_cl_success(clEnqueueCopyImageToBuffer(env->queue, no_access, buffer, origin, extent, 0, 0, NULL, NULL));
  /* wait lists */
  cl_event none = NULL;
  assert_int_equal(clEnqueueReadImage(env->queue, image, CL_TRUE, origin, extent, 0, 0, data, 1, NULL, NULL),
                   CL_INVALID_EVENT_WAIT_LIST);
  assert_int_equal(clEnqueueFillImage(env->queue, image, color, origin, extent, 0, &none, NULL),
                   CL_INVALID_EVENT_WAIT_LIST);
  cl_event foreign_event = clCreateUserEvent(other, &err);
  assert_cl_success(err);
  const size_t one[3] = {1, 1, 1}, corner[3] = {2, 2, 0};
  assert_int_equal(clEnqueueCopyImage(env->queue, image, image, origin, corner, one, 1, &foreign_event, NULL),
                   CL_INVALID_CONTEXT);
  assert_cl_success(clSetUserEventStatus(foreign_event, CL_COMPLETE));
  assert_cl_success(clReleaseEvent(foreign_event));
  cl_mem all[] = {image, buffer, foreign, write_only, read_only, no_access};
  for (int i = 0; i < 6; i++) assert_cl_success(clReleaseMemObject(all[i]));
  assert_cl_success(clReleaseContext(other));
}

/* Non-blocking commands wait for their wait list; each event has its command's type; a
 * failed wait list fails a blocking read. */
static void test_events_and_blocking(void **state) {
  struct kiln_test_env *env = *state;
  cl_int err;
  const size_t extent[3] = {4, 4, 1}, origin[3] = {0, 0, 0};
  cl_mem image = image_create(env->context, 0, &rgba8, CL_MEM_OBJECT_IMAGE2D, extent, NULL);
  cl_mem copy = image_create(env->context, 0, &rgba8, CL_MEM_OBJECT_IMAGE2D, extent, NULL);
  cl_mem buffer = clCreateBuffer(env->context, 0, 64, NULL, &err);
  assert_cl_success(err);
  unsigned char in[64], out[64];
  image_pattern(in, sizeof in, 21);
  cl_event gate = clCreateUserEvent(env->context, &err);
  assert_cl_success(err);
  cl_event events[6];
  const cl_uint color[4] = {9, 9, 9, 9};
  assert_cl_success(clEnqueueWriteImage(env->queue, image, CL_FALSE, origin, extent, 0, 0, in, 1, &gate, &events[0]));
  assert_cl_success(clEnqueueCopyImage(env->queue, image, copy, origin, origin, extent, 0, NULL, &events[1]));
  assert_cl_success(clEnqueueCopyImageToBuffer(env->queue, copy, buffer, origin, extent, 0, 0, NULL, &events[2]));
  assert_cl_success(clEnqueueReadImage(env->queue, copy, CL_FALSE, origin, extent, 0, 0, out, 0, NULL, &events[3]));
  assert_cl_success(clEnqueueCopyBufferToImage(env->queue, buffer, image, 0, origin, extent, 0, NULL, &events[4]));
  assert_cl_success(clEnqueueFillImage(env->queue, image, color, origin, extent, 0, NULL, &events[5]));
  kiln_test_sleep_ms(20);
  cl_int status = 0;
  assert_cl_success(clGetEventInfo(events[3], CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof status, &status, NULL));
  assert_true(status > CL_COMPLETE); /* still waiting for the gate */
  assert_cl_success(clSetUserEventStatus(gate, CL_COMPLETE));
  assert_cl_success(clWaitForEvents(6, events));
  assert_memory_equal(out, in, sizeof in);
  const cl_command_type types[6] = {CL_COMMAND_WRITE_IMAGE,          CL_COMMAND_COPY_IMAGE,
                                    CL_COMMAND_COPY_IMAGE_TO_BUFFER, CL_COMMAND_READ_IMAGE,
                                    CL_COMMAND_COPY_BUFFER_TO_IMAGE, CL_COMMAND_FILL_IMAGE};
  for (int i = 0; i < 6; i++) {
    cl_command_type type = 0;
    assert_cl_success(clGetEventInfo(events[i], CL_EVENT_COMMAND_TYPE, sizeof type, &type, NULL));
    assert_int_equal(type, types[i]);
    assert_cl_success(clReleaseEvent(events[i]));
  }
  assert_cl_success(clReleaseEvent(gate));
  /* a failed wait list */
  cl_event failed = clCreateUserEvent(env->context, &err);
  assert_cl_success(err);
  assert_cl_success(clSetUserEventStatus(failed, -1));
  assert_int_equal(clEnqueueReadImage(env->queue, image, CL_TRUE, origin, extent, 0, 0, out, 1, &failed, NULL),
                   CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST);
  assert_cl_success(clReleaseEvent(failed));
  assert_cl_success(clFinish(env->queue));
  assert_cl_success(clReleaseMemObject(image));
  assert_cl_success(clReleaseMemObject(copy));
  assert_cl_success(clReleaseMemObject(buffer));
}

/* An image released by the application while its commands are queued stays alive for them. */
static void test_commands_hold_images(void **state) {
  struct kiln_test_env *env = *state;
  cl_int err;
  const size_t extent[3] = {16, 16, 1}, origin[3] = {0, 0, 0};
  cl_mem image = image_create(env->context, 0, &rgba8, CL_MEM_OBJECT_IMAGE2D, extent, NULL);
  cl_event gate = clCreateUserEvent(env->context, &err);
  assert_cl_success(err);
  const float color[4] = {1, 1, 1, 1};
  unsigned char out[16 * 16 * 4];
  assert_cl_success(clEnqueueFillImage(env->queue, image, color, origin, extent, 1, &gate, NULL));
  assert_cl_success(clEnqueueReadImage(env->queue, image, CL_FALSE, origin, extent, 0, 0, out, 0, NULL, NULL));
  assert_cl_success(clReleaseMemObject(image));
  assert_cl_success(clSetUserEventStatus(gate, CL_COMPLETE));
  assert_cl_success(clFinish(env->queue));
  for (size_t i = 0; i < sizeof out; i++) assert_int_equal(out[i], 255);
  assert_cl_success(clReleaseEvent(gate));
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_read_write_regions_with_pitches),
      cmocka_unit_test(test_copy_between_every_pair_of_types),
      cmocka_unit_test(test_copy_within_one_image),
      cmocka_unit_test(test_copy_with_buffers_every_type),
      cmocka_unit_test(test_copy_with_own_buffer),
      cmocka_unit_test(test_fill_each_format_class),
      cmocka_unit_test(test_fill_regions_every_type),
      cmocka_unit_test(test_map_every_type),
      cmocka_unit_test(test_map_rules),
      cmocka_unit_test(test_region_and_pitch_errors),
      cmocka_unit_test(test_object_errors),
      cmocka_unit_test(test_events_and_blocking),
      cmocka_unit_test(test_commands_hold_images),
  };
  return cmocka_run_group_tests(tests, kiln_test_env_setup, kiln_test_env_teardown);
}
