/* Images in kernels through the loader: read_imagef with every sampler (normalized or not ×
 * none / clamp-to-edge / clamp / repeat / mirrored-repeat × nearest / linear), as a
 * cl_sampler argument and as a constant sampler_t, on 1D, 1D-array, 2D, 2D-array and 3D
 * images, against a host reference written from the environment spec's addressing and
 * filtering formulas; integer coordinates; every supported format read (samplerless) and
 * written against the spec's conversion rules (normalized reads within its 1.5 ulp); the get_image_* queries of every type;
 * read_write images; depth images; a 2D image over a buffer written and read by kernels;
 * integer images read and written with the functions of the other signedness. */
#include "kiln_test.h"

#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

static cl_program build(struct kiln_test_env *env, const char *source, const char *options) {
  cl_int err;
  cl_program p = clCreateProgramWithSource(env->context, 1, &source, NULL, &err);
  assert_cl_success(err);
  err = clBuildProgram(p, 1, &env->device, options, NULL, NULL);
  if (err != CL_SUCCESS) {
    char log[8192] = "";
    clGetProgramBuildInfo(p, env->device, CL_PROGRAM_BUILD_LOG, sizeof log, log, NULL);
    fprintf(stderr, "build log:\n%s\n", log);
  }
  assert_cl_success(err);
  return p;
}

static cl_mem image(struct kiln_test_env *env, cl_mem_flags flags, cl_channel_order order, cl_channel_type type,
                    cl_mem_object_type kind, size_t w, size_t h, size_t d, size_t layers, void *host) {
  cl_image_format f = {order, type};
  cl_image_desc desc = {.image_type = kind, .image_width = w, .image_height = h, .image_depth = d,
                        .image_array_size = layers};
  cl_int err;
  cl_mem m = clCreateImage(env->context, flags | (host ? CL_MEM_COPY_HOST_PTR : 0), &f, &desc, host, &err);
  assert_cl_success(err);
  return m;
}

static cl_mem buffer(struct kiln_test_env *env, size_t bytes, void *host) {
  cl_int err;
  cl_mem m = clCreateBuffer(env->context, CL_MEM_READ_WRITE | (host ? CL_MEM_COPY_HOST_PTR : 0), bytes, host, &err);
  assert_cl_success(err);
  return m;
}

static void run(struct kiln_test_env *env, cl_kernel k, size_t n) {
  assert_cl_success(clEnqueueNDRangeKernel(env->queue, k, 1, NULL, &n, NULL, 0, NULL, NULL));
  assert_cl_success(clFinish(env->queue));
}

/* ---- The reference sampler (env spec, "Image Addressing and Filtering") ---- */

enum { GEOM_1D, GEOM_1DA, GEOM_2D, GEOM_2DA, GEOM_3D };
struct ref_image {
  int w, h, d, layers; /* unused: 1 */
  const float *texels; /* RGBA float, x fastest, then y, then slice/layer */
  bool alpha_border;   /* the order has alpha: border (0,0,0,0), else (0,0,0,1) */
};

struct sampler_case {
  bool normalized;
  cl_addressing_mode address;
  cl_filter_mode filter;
};

static void ref_texel(const struct ref_image *im, int x, int y, int z, float out[4]) {
  if (x < 0 || x >= im->w || y < 0 || y >= im->h || z < 0 || z >= im->d * im->layers) {
    out[0] = out[1] = out[2] = 0;
    out[3] = im->alpha_border ? 0.0f : 1.0f;
    return;
  }
  memcpy(out, im->texels + 4 * (((size_t)z * im->h + y) * im->w + x), 4 * sizeof(float));
}

/* Nearest: "i = ..." of each addressing mode; false when the spec leaves it undefined. */
static bool ref_nearest(const struct sampler_case *s, float c, int size, int *i) {
  if (s->normalized && s->address == CL_ADDRESS_REPEAT) {
    float u = (c - floorf(c)) * size;
    *i = (int)floorf(u);
    if (*i > size - 1) *i -= size;
    return true;
  }
  if (s->normalized && s->address == CL_ADDRESS_MIRRORED_REPEAT) {
    float sp = fabsf(c - 2.0f * rintf(0.5f * c));
    *i = (int)floorf(sp * size);
    if (*i > size - 1) *i = size - 1;
    return true;
  }
  float u = s->normalized ? c * size : c;
  *i = (int)floorf(u);
  if (s->address == CL_ADDRESS_CLAMP_TO_EDGE) *i = *i < 0 ? 0 : *i > size - 1 ? size - 1 : *i;
  if (s->address == CL_ADDRESS_CLAMP) *i = *i < -1 ? -1 : *i > size ? size : *i;
  return s->address != CL_ADDRESS_NONE || (*i >= 0 && *i < size);
}

/* Linear: i0, i1 and the weight a of i1. */
static bool ref_linear(const struct sampler_case *s, float c, int size, int *i0, int *i1, float *a) {
  float u;
  if (s->normalized && s->address == CL_ADDRESS_REPEAT) {
    u = (c - floorf(c)) * size;
    *i0 = (int)floorf(u - 0.5f);
    *i1 = *i0 + 1;
    if (*i0 < 0) *i0 += size;
    if (*i1 > size - 1) *i1 -= size;
  } else if (s->normalized && s->address == CL_ADDRESS_MIRRORED_REPEAT) {
    float sp = fabsf(c - 2.0f * rintf(0.5f * c));
    u = sp * size;
    *i0 = (int)floorf(u - 0.5f);
    *i1 = *i0 + 1;
    if (*i0 < 0) *i0 = 0;
    if (*i1 > size - 1) *i1 = size - 1;
  } else {
    u = s->normalized ? c * size : c;
    *i0 = (int)floorf(u - 0.5f);
    *i1 = *i0 + 1;
    if (s->address == CL_ADDRESS_CLAMP_TO_EDGE) {
      *i0 = *i0 < 0 ? 0 : *i0 > size - 1 ? size - 1 : *i0;
      *i1 = *i1 < 0 ? 0 : *i1 > size - 1 ? size - 1 : *i1;
    }
    if (s->address == CL_ADDRESS_NONE && (*i0 < 0 || *i1 >= size)) return false;
  }
  float t = u - 0.5f;
  *a = t - floorf(t);
  return true;
}

static int ref_layer(float c, int layers) {
  float r = rintf(c);
  return r < 0 ? 0 : r > layers - 1 ? layers - 1 : (int)r;
}

/* read_imagef(image, sampler, coord); false where the result is undefined. */
static bool ref_sample(const struct ref_image *im, int geom, const struct sampler_case *s, const float c[4],
                       float out[4]) {
  int dims = geom == GEOM_3D ? 3 : geom >= GEOM_2D ? 2 : 1;
  int layer = geom == GEOM_1DA ? ref_layer(c[1], im->layers) : geom == GEOM_2DA ? ref_layer(c[2], im->layers) : 0;
  int size[3] = {im->w, im->h, im->d};
  if (s->filter == CL_FILTER_NEAREST) {
    int i[3] = {0, 0, layer};
    for (int k = 0; k < dims; k++)
      if (!ref_nearest(s, c[k], size[k], &i[k])) return false;
    ref_texel(im, i[0], i[1], i[2], out);
    return true;
  }
  int lo[3] = {0, 0, layer}, hi[3] = {0, 0, layer};
  float w[3] = {0, 0, 0};
  for (int k = 0; k < dims; k++)
    if (!ref_linear(s, c[k], size[k], &lo[k], &hi[k], &w[k])) return false;
  memset(out, 0, 4 * sizeof(float));
  for (int corner = 0; corner < (1 << dims); corner++) {
    float weight = 1, t[4];
    int at[3] = {lo[0], lo[1], lo[2]};
    for (int k = 0; k < dims; k++) {
      bool upper = corner >> k & 1;
      weight *= upper ? w[k] : 1 - w[k];
      at[k] = upper ? hi[k] : lo[k];
    }
    ref_texel(im, at[0], at[1], at[2], t);
    for (int ch = 0; ch < 4; ch++) out[ch] += weight * t[ch];
  }
  return true;
}

static const struct sampler_case all_samplers[] = {
    {false, CL_ADDRESS_NONE, CL_FILTER_NEAREST},          {false, CL_ADDRESS_NONE, CL_FILTER_LINEAR},
    {false, CL_ADDRESS_CLAMP_TO_EDGE, CL_FILTER_NEAREST}, {false, CL_ADDRESS_CLAMP_TO_EDGE, CL_FILTER_LINEAR},
    {false, CL_ADDRESS_CLAMP, CL_FILTER_NEAREST},         {false, CL_ADDRESS_CLAMP, CL_FILTER_LINEAR},
    {true, CL_ADDRESS_NONE, CL_FILTER_NEAREST},           {true, CL_ADDRESS_NONE, CL_FILTER_LINEAR},
    {true, CL_ADDRESS_CLAMP_TO_EDGE, CL_FILTER_NEAREST},  {true, CL_ADDRESS_CLAMP_TO_EDGE, CL_FILTER_LINEAR},
    {true, CL_ADDRESS_CLAMP, CL_FILTER_NEAREST},          {true, CL_ADDRESS_CLAMP, CL_FILTER_LINEAR},
    {true, CL_ADDRESS_REPEAT, CL_FILTER_NEAREST},         {true, CL_ADDRESS_REPEAT, CL_FILTER_LINEAR},
    {true, CL_ADDRESS_MIRRORED_REPEAT, CL_FILTER_NEAREST}, {true, CL_ADDRESS_MIRRORED_REPEAT, CL_FILTER_LINEAR},
};
#define SAMPLER_COUNT (sizeof all_samplers / sizeof all_samplers[0])

static const char *sampler_source(const struct sampler_case *s) {
  static char text[160];
  snprintf(text, sizeof text, "%s | %s | %s",
           s->normalized ? "CLK_NORMALIZED_COORDS_TRUE" : "CLK_NORMALIZED_COORDS_FALSE",
           s->address == CL_ADDRESS_NONE            ? "CLK_ADDRESS_NONE"
           : s->address == CL_ADDRESS_CLAMP_TO_EDGE ? "CLK_ADDRESS_CLAMP_TO_EDGE"
           : s->address == CL_ADDRESS_CLAMP         ? "CLK_ADDRESS_CLAMP"
           : s->address == CL_ADDRESS_REPEAT        ? "CLK_ADDRESS_REPEAT"
                                                    : "CLK_ADDRESS_MIRRORED_REPEAT",
           s->filter == CL_FILTER_LINEAR ? "CLK_FILTER_LINEAR" : "CLK_FILTER_NEAREST");
  return text;
}

struct geometry {
  int geom;
  cl_mem_object_type type;
  const char *image_type, *coord_type;
  int w, h, d, layers;
};
static const struct geometry geometries[] = {
    {GEOM_1D, CL_MEM_OBJECT_IMAGE1D, "image1d_t", "float", 7, 1, 1, 1},
    {GEOM_1DA, CL_MEM_OBJECT_IMAGE1D_ARRAY, "image1d_array_t", "float2", 6, 1, 1, 3},
    {GEOM_2D, CL_MEM_OBJECT_IMAGE2D, "image2d_t", "float2", 5, 4, 1, 1},
    {GEOM_2DA, CL_MEM_OBJECT_IMAGE2D_ARRAY, "image2d_array_t", "float4", 4, 3, 1, 2},
    {GEOM_3D, CL_MEM_OBJECT_IMAGE3D, "image3d_t", "float4", 3, 4, 3, 1},
};

/* Coordinates along one axis of `size` elements: edges, centers, fractions, outside. */
static float axis_value(int k, int size, bool normalized) {
  static const float unnormalized[] = {-1.75f, -1.0f, -0.5f, -0.25f, 0.0f, 0.1f, 0.49f, 0.5f, 0.51f, 0.99f,
                                       1.0f,   1.3f,  1.5f,  2.25f,  2.5f, 2.75f, 3.0f,  3.999f};
  const int n = sizeof unnormalized / sizeof unnormalized[0];
  float base = unnormalized[k % n];
  if (k >= n) base = (float)size - base; /* the far edge too */
  return normalized ? base / (float)size : base;
}
#define AXIS_VALUES 36

static void fill_texels(float *t, size_t count) {
  for (size_t i = 0; i < count; i++) {
    t[4 * i + 0] = (float)i;
    t[4 * i + 1] = (float)(i * 7 % 13) - 6.5f;
    t[4 * i + 2] = 0.125f * (float)(i % 5);
    t[4 * i + 3] = 1.0f + (float)(i % 3);
  }
}

/* One geometry with every sampler, as an argument (constant_sampler false) or as a
 * constant sampler_t compiled into the kernel. */
static void check_geometry(struct kiln_test_env *env, const struct geometry *g, bool constant_sampler) {
  size_t elements = (size_t)g->w * g->h * g->d * g->layers;
  float *texels = malloc(16 * elements);
  fill_texels(texels, elements);
  struct ref_image ref = {g->w, g->h, g->d, g->layers, texels, true};
  cl_mem im = image(env, CL_MEM_READ_ONLY, CL_RGBA, CL_FLOAT, g->type, g->w, g->h, g->d, g->layers, texels);

  const size_t n = AXIS_VALUES * AXIS_VALUES;
  float(*coords)[4] = calloc(n, sizeof *coords);
  float(*out)[4] = calloc(n, sizeof *out);
  cl_mem coord_buf = buffer(env, n * sizeof *coords, NULL), out_buf = buffer(env, n * sizeof *out, NULL);
  int checked = 0;
  for (size_t si = 0; si < SAMPLER_COUNT; si++) {
    const struct sampler_case *s = &all_samplers[si];
    for (size_t i = 0; i < n; i++) {
      int a = (int)(i % AXIS_VALUES), b = (int)(i / AXIS_VALUES);
      memset(coords[i], 0, sizeof coords[i]);
      coords[i][0] = axis_value(a, g->w, s->normalized);
      if (g->geom == GEOM_1DA) coords[i][1] = (float)b / 6.0f - 1.5f; /* layers -1.5 .. 4.3 */
      if (g->geom >= GEOM_2D) coords[i][1] = axis_value(b, g->h, s->normalized);
      if (g->geom == GEOM_2DA) coords[i][2] = (float)(a + b) / 20.0f - 0.7f;
      if (g->geom == GEOM_3D) coords[i][2] = axis_value((a + 3 * b) % AXIS_VALUES, g->d, s->normalized);
    }
    assert_cl_success(clEnqueueWriteBuffer(env->queue, coord_buf, CL_TRUE, 0, n * sizeof *coords, coords, 0, NULL, NULL));
    char prelude[256], source[1024];
    if (constant_sampler)
      snprintf(prelude, sizeof prelude, "int unused) {\n  const sampler_t s = %s;\n", sampler_source(s));
    else
      snprintf(prelude, sizeof prelude, "sampler_t s) {\n");
    snprintf(source, sizeof source,
             "kernel void sample(read_only %s im, global const float4 *c, global float4 *o, %s"
             "  size_t i = get_global_id(0);\n"
             "  %s coord = *(global const %s *)&c[i];\n"
             "  o[i] = read_imagef(im, s, coord);\n}\n",
             g->image_type, prelude, g->coord_type, g->coord_type);
    cl_program p = build(env, source, "");
    cl_int err;
    cl_kernel k = clCreateKernel(p, "sample", &err);
    assert_cl_success(err);
    cl_sampler sampler = NULL;
    assert_cl_success(clSetKernelArg(k, 0, sizeof im, &im));
    assert_cl_success(clSetKernelArg(k, 1, sizeof coord_buf, &coord_buf));
    assert_cl_success(clSetKernelArg(k, 2, sizeof out_buf, &out_buf));
    if (constant_sampler) {
      cl_int zero = 0;
      assert_cl_success(clSetKernelArg(k, 3, sizeof zero, &zero));
    } else {
      sampler = clCreateSampler(env->context, s->normalized, s->address, s->filter, &err);
      assert_cl_success(err);
      assert_cl_success(clSetKernelArg(k, 3, sizeof sampler, &sampler));
    }
    run(env, k, n);
    assert_cl_success(clEnqueueReadBuffer(env->queue, out_buf, CL_TRUE, 0, n * sizeof *out, out, 0, NULL, NULL));
    for (size_t i = 0; i < n; i++) {
      float want[4];
      if (!ref_sample(&ref, g->geom, s, coords[i], want)) continue;
      checked++;
      for (int ch = 0; ch < 4; ch++) {
        float tolerance = s->filter == CL_FILTER_LINEAR ? 1e-4f * fmaxf(1.0f, fabsf(want[ch])) : 0.0f;
        if (fabsf(out[i][ch] - want[ch]) > tolerance)
          fail_msg("%s %s sampler %s: coord (%g, %g, %g) channel %d: got %g, want %g", g->image_type,
                   constant_sampler ? "constant" : "argument", sampler_source(s), coords[i][0], coords[i][1],
                   coords[i][2], ch, out[i][ch], want[ch]);
      }
    }
    if (sampler) clReleaseSampler(sampler);
    clReleaseKernel(k);
    clReleaseProgram(p);
  }
  assert_true(checked > (int)(n * SAMPLER_COUNT / 2)); /* most coordinates have a defined result */
  clReleaseMemObject(coord_buf);
  clReleaseMemObject(out_buf);
  clReleaseMemObject(im);
  free(coords);
  free(out);
  free(texels);
}

static void test_sampler_argument(void **state) {
  for (size_t i = 0; i < sizeof geometries / sizeof geometries[0]; i++) check_geometry(*state, &geometries[i], false);
}

static void test_constant_sampler(void **state) {
  for (size_t i = 0; i < sizeof geometries / sizeof geometries[0]; i++) check_geometry(*state, &geometries[i], true);
}

/* Integer coordinates with a sampler (unnormalized, nearest) and without (samplerless). */
static void test_integer_coordinates(void **state) {
  struct kiln_test_env *env = *state;
  enum { W = 5, H = 3 };
  float texels[4 * W * H];
  fill_texels(texels, W * H);
  struct ref_image ref = {W, H, 1, 1, texels, true};
  cl_mem im = image(env, CL_MEM_READ_ONLY, CL_RGBA, CL_FLOAT, CL_MEM_OBJECT_IMAGE2D, W, H, 1, 1, texels);
  const char *source =
      "kernel void k(read_only image2d_t im, sampler_t s, global float4 *o) {\n"
      "  int x = (int)get_global_id(0) - 2, y = (int)get_global_id(1) - 2;\n"
      "  size_t i = get_global_id(1) * get_global_size(0) + get_global_id(0);\n"
      "  o[2 * i] = read_imagef(im, s, (int2)(x, y));\n"
      "  o[2 * i + 1] = x >= 0 && x < 5 && y >= 0 && y < 3 ? read_imagef(im, (int2)(x, y)) : (float4)(-9);\n}\n";
  cl_program p = build(env, source, "");
  cl_int err;
  cl_kernel k = clCreateKernel(p, "k", &err);
  assert_cl_success(err);
  const size_t gw = W + 4, gh = H + 4;
  cl_mem out_buf = buffer(env, gw * gh * 2 * 16, NULL);
  float(*out)[4] = malloc(gw * gh * 2 * 16);
  const cl_addressing_mode modes[] = {CL_ADDRESS_CLAMP_TO_EDGE, CL_ADDRESS_CLAMP};
  for (int m = 0; m < 2; m++) {
    struct sampler_case s = {false, modes[m], CL_FILTER_NEAREST};
    cl_sampler sampler = clCreateSampler(env->context, CL_FALSE, modes[m], CL_FILTER_NEAREST, &err);
    assert_cl_success(err);
    assert_cl_success(clSetKernelArg(k, 0, sizeof im, &im));
    assert_cl_success(clSetKernelArg(k, 1, sizeof sampler, &sampler));
    assert_cl_success(clSetKernelArg(k, 2, sizeof out_buf, &out_buf));
    size_t global[2] = {gw, gh};
    assert_cl_success(clEnqueueNDRangeKernel(env->queue, k, 2, NULL, global, NULL, 0, NULL, NULL));
    assert_cl_success(clEnqueueReadBuffer(env->queue, out_buf, CL_TRUE, 0, gw * gh * 2 * 16, out, 0, NULL, NULL));
    for (size_t y = 0; y < gh; y++)
      for (size_t x = 0; x < gw; x++) {
        size_t i = y * gw + x;
        float c[4] = {(float)x - 2, (float)y - 2, 0, 0}, want[4];
        assert_true(ref_sample(&ref, GEOM_2D, &s, c, want));
        assert_memory_equal(out[2 * i], want, sizeof want);
        if (x >= 2 && x < 2 + W && y >= 2 && y < 2 + H) {
          ref_texel(&ref, (int)x - 2, (int)y - 2, 0, want);
          assert_memory_equal(out[2 * i + 1], want, sizeof want);
        }
      }
    clReleaseSampler(sampler);
  }
  free(out);
  clReleaseMemObject(out_buf);
  clReleaseKernel(k);
  clReleaseProgram(p);
  clReleaseMemObject(im);
}

/* ---- Formats: what a samplerless read returns and what a write stores ---- */

struct format_case {
  cl_channel_order order;
  cl_channel_type type;
  char kind; /* 'f', 'i', 'u': read_imagef / read_imagei / read_imageui */
};

static unsigned channel_count(cl_channel_order order) {
  return order == CL_R || order == CL_DEPTH ? 1 : order == CL_RG ? 2 : 4;
}
static unsigned channel_bytes(cl_channel_type type) {
  switch (type) {
  case CL_UNORM_INT8: case CL_SNORM_INT8: case CL_SIGNED_INT8: case CL_UNSIGNED_INT8: return 1;
  case CL_UNORM_INT16: case CL_SNORM_INT16: case CL_SIGNED_INT16: case CL_UNSIGNED_INT16: case CL_HALF_FLOAT: return 2;
  default: return 4;
  }
}

static float half_to_float(uint16_t h) {
  int e = h >> 10 & 0x1f, m = h & 0x3ff;
  float v = e == 0 ? ldexpf((float)m, -24) : e == 31 ? (m ? NAN : INFINITY) : ldexpf((float)(m | 0x400), e - 25);
  return h & 0x8000 ? -v : v;
}
static float srgb_to_linear(float c) { return c <= 0.04045f ? c / 12.92f : powf((c + 0.055f) / 1.055f, 2.4f); }

/* One channel's stored bits as read_image returns them (float, or an integer in *iv). */
static float decode(cl_channel_type type, const unsigned char *p, int32_t *iv) {
  int8_t s8; uint8_t u8 = p[0]; int16_t s16; uint16_t u16; int32_t s32; float f;
  memcpy(&s8, p, 1); memcpy(&s16, p, 2); memcpy(&u16, p, 2); memcpy(&s32, p, 4); memcpy(&f, p, 4);
  switch (type) {
  case CL_UNORM_INT8: return u8 / 255.0f;
  case CL_UNORM_INT16: return u16 / 65535.0f;
  case CL_SNORM_INT8: return fmaxf(-1.0f, s8 / 127.0f);
  case CL_SNORM_INT16: return fmaxf(-1.0f, s16 / 32767.0f);
  case CL_HALF_FLOAT: return half_to_float(u16);
  case CL_FLOAT: return f;
  case CL_SIGNED_INT8: *iv = s8; return 0;
  case CL_SIGNED_INT16: *iv = s16; return 0;
  case CL_UNSIGNED_INT8: *iv = u8; return 0;
  case CL_UNSIGNED_INT16: *iv = u16; return 0;
  default: *iv = s32; return 0;
  }
}

static const struct format_case formats[] = {
    {CL_RGBA, CL_UNORM_INT8, 'f'},    {CL_RGBA, CL_UNORM_INT16, 'f'},   {CL_RGBA, CL_SNORM_INT8, 'f'},
    {CL_RGBA, CL_SNORM_INT16, 'f'},   {CL_RGBA, CL_HALF_FLOAT, 'f'},    {CL_RGBA, CL_FLOAT, 'f'},
    {CL_RGBA, CL_SIGNED_INT8, 'i'},   {CL_RGBA, CL_SIGNED_INT16, 'i'},  {CL_RGBA, CL_SIGNED_INT32, 'i'},
    {CL_RGBA, CL_UNSIGNED_INT8, 'u'}, {CL_RGBA, CL_UNSIGNED_INT16, 'u'}, {CL_RGBA, CL_UNSIGNED_INT32, 'u'},
    {CL_R, CL_UNORM_INT8, 'f'},       {CL_R, CL_HALF_FLOAT, 'f'},       {CL_R, CL_FLOAT, 'f'},
    {CL_R, CL_SIGNED_INT16, 'i'},     {CL_R, CL_UNSIGNED_INT32, 'u'},   {CL_RG, CL_UNORM_INT16, 'f'},
    {CL_RG, CL_SNORM_INT8, 'f'},      {CL_RG, CL_FLOAT, 'f'},           {CL_RG, CL_SIGNED_INT8, 'i'},
    {CL_RG, CL_UNSIGNED_INT16, 'u'},  {CL_BGRA, CL_UNORM_INT8, 'f'},    {CL_sRGBA, CL_UNORM_INT8, 'f'},
};

/* The color read_image returns for one stored element (order applied, missing 0, alpha 1). */
static void reference_read(const struct format_case *fc, const unsigned char *element, float f[4], int32_t iv[4]) {
  unsigned n = channel_count(fc->order), w = channel_bytes(fc->type);
  float raw[4] = {0, 0, 0, 1};
  int32_t iraw[4] = {0, 0, 0, 1};
  for (unsigned c = 0; c < n; c++) raw[c] = decode(fc->type, element + c * w, &iraw[c]);
  static const int bgra[4] = {2, 1, 0, 3}, same[4] = {0, 1, 2, 3};
  const int *map = fc->order == CL_BGRA ? bgra : same;
  for (int c = 0; c < 4; c++) {
    f[c] = raw[map[c]];
    iv[c] = iraw[map[c]];
  }
  if (fc->order == CL_sRGBA)
    for (int c = 0; c < 3; c++) f[c] = srgb_to_linear(f[c]);
}

static void test_format_reads(void **state) {
  struct kiln_test_env *env = *state;
  enum { W = 16, H = 4 };
  const char *source =
      "kernel void rf(read_only image2d_t im, global float4 *o) {\n"
      "  int x = get_global_id(0), y = get_global_id(1); o[y * 16 + x] = read_imagef(im, (int2)(x, y)); }\n"
      "kernel void ri(read_only image2d_t im, global int4 *o) {\n"
      "  int x = get_global_id(0), y = get_global_id(1); o[y * 16 + x] = read_imagei(im, (int2)(x, y)); }\n"
      "kernel void ru(read_only image2d_t im, global uint4 *o) {\n"
      "  int x = get_global_id(0), y = get_global_id(1); o[y * 16 + x] = read_imageui(im, (int2)(x, y)); }\n";
  cl_program p = build(env, source, "");
  cl_int err;
  cl_mem out_buf = buffer(env, W * H * 16, NULL);
  unsigned char bytes[W * H * 16];
  uint64_t seed = 0x9e3779b97f4a7c15u;
  for (size_t i = 0; i < sizeof bytes; i++) {
    seed ^= seed << 13, seed ^= seed >> 7, seed ^= seed << 17;
    bytes[i] = (unsigned char)seed;
  }
  for (size_t fi = 0; fi < sizeof formats / sizeof formats[0]; fi++) {
    const struct format_case *fc = &formats[fi];
    unsigned es = channel_count(fc->order) * channel_bytes(fc->type);
    unsigned char data[W * H * 16];
    memcpy(data, bytes, sizeof data);
    if (fc->type == CL_FLOAT) /* finite values, and the exact ones a float image holds */
      for (size_t i = 0; i < W * H * es / 4; i++) {
        float v = (float)((int)(bytes[i] % 200) - 100) / 8.0f;
        memcpy(data + 4 * i, &v, 4);
      }
    if (fc->type == CL_HALF_FLOAT) /* no NaN (comparisons) */
      for (size_t i = 0; i < W * H * es / 2; i++) data[2 * i + 1] &= 0x7b;
    cl_mem im = image(env, CL_MEM_READ_ONLY, fc->order, fc->type, CL_MEM_OBJECT_IMAGE2D, W, H, 1, 1, data);
    const char *name = fc->kind == 'f' ? "rf" : fc->kind == 'i' ? "ri" : "ru";
    cl_kernel k = clCreateKernel(p, name, &err);
    assert_cl_success(err);
    assert_cl_success(clSetKernelArg(k, 0, sizeof im, &im));
    assert_cl_success(clSetKernelArg(k, 1, sizeof out_buf, &out_buf));
    size_t global[2] = {W, H};
    assert_cl_success(clEnqueueNDRangeKernel(env->queue, k, 2, NULL, global, NULL, 0, NULL, NULL));
    union { float f[4]; int32_t i[4]; } out[W * H];
    assert_cl_success(clEnqueueReadBuffer(env->queue, out_buf, CL_TRUE, 0, sizeof out, out, 0, NULL, NULL));
    for (size_t e = 0; e < W * H; e++) {
      float f[4];
      int32_t iv[4];
      reference_read(fc, data + e * es, f, iv);
      for (int c = 0; c < 4; c++) {
        if (fc->kind != 'f') {
          if (out[e].i[c] != iv[c])
            fail_msg("format %#x/%#x element %zu channel %d: got %d, want %d", fc->order, fc->type, e, c, out[e].i[c],
                     iv[c]);
          continue;
        }
        /* Normalized conversions: within 1.5 ulp (env spec), exact at 0 and 1; sRGB: powf. */
        bool normalized = fc->type == CL_UNORM_INT8 || fc->type == CL_UNORM_INT16 || fc->type == CL_SNORM_INT8 ||
                          fc->type == CL_SNORM_INT16;
        float tolerance = fc->order == CL_sRGBA ? 1e-5f
                          : normalized && f[c] != 0.0f && fabsf(f[c]) != 1.0f ? 1.5f * (nextafterf(fabsf(f[c]), INFINITY) - fabsf(f[c]))
                                                                               : 0.0f;
        if (!(fabsf(out[e].f[c] - f[c]) <= tolerance))
          fail_msg("format %#x/%#x element %zu channel %d: got %a, want %a", fc->order, fc->type, e, c, out[e].f[c],
                   f[c]);
      }
    }
    clReleaseKernel(k);
    clReleaseMemObject(im);
  }
  clReleaseMemObject(out_buf);
  clReleaseProgram(p);
}

/* The bits write_image stores for one channel value (round to nearest even, saturate). */
static void encode(cl_channel_type type, float f, int32_t iv, unsigned char *p) {
  float lo = 0, hi = 0;
  switch (type) {
  case CL_UNORM_INT8: hi = 255; break;
  case CL_UNORM_INT16: hi = 65535; break;
  case CL_SNORM_INT8: lo = -128, hi = 127; break;
  case CL_SNORM_INT16: lo = -32768, hi = 32767; break;
  default: break;
  }
  int64_t q = 0;
  if (hi != 0) {
    float scaled = f * (type == CL_SNORM_INT8 ? 127.0f : type == CL_SNORM_INT16 ? 32767.0f : hi);
    q = isnan(scaled) ? 0 : (int64_t)rintf(fminf(fmaxf(scaled, lo), hi));
  }
  int64_t i = iv;
  switch (type) {
  case CL_UNORM_INT8: case CL_SNORM_INT8: p[0] = (unsigned char)q; break;
  case CL_UNORM_INT16: case CL_SNORM_INT16: { uint16_t v = (uint16_t)q; memcpy(p, &v, 2); break; }
  case CL_HALF_FLOAT: { _Float16 h = (_Float16)f; memcpy(p, &h, 2); break; }
  case CL_FLOAT: memcpy(p, &f, 4); break;
  case CL_SIGNED_INT8: p[0] = (unsigned char)(i < -128 ? -128 : i > 127 ? 127 : i); break;
  case CL_SIGNED_INT16: { int16_t v = (int16_t)(i < -32768 ? -32768 : i > 32767 ? 32767 : i); memcpy(p, &v, 2); break; }
  case CL_UNSIGNED_INT8: p[0] = (unsigned char)((uint32_t)iv > 255 ? 255 : (uint32_t)iv); break;
  case CL_UNSIGNED_INT16: { uint16_t v = (uint16_t)((uint32_t)iv > 65535 ? 65535 : (uint32_t)iv); memcpy(p, &v, 2); break; }
  default: memcpy(p, &iv, 4); break;
  }
}

static void test_format_writes(void **state) {
  struct kiln_test_env *env = *state;
  enum { N = 64 };
  const char *source =
      "kernel void wf(write_only image1d_t im, global const float4 *c) { int x = get_global_id(0); write_imagef(im, x, c[x]); }\n"
      "kernel void wi(write_only image1d_t im, global const int4 *c) { int x = get_global_id(0); write_imagei(im, x, c[x]); }\n"
      "kernel void wu(write_only image1d_t im, global const uint4 *c) { int x = get_global_id(0); write_imageui(im, x, c[x]); }\n";
  cl_program p = build(env, source, "");
  union { float f[4]; int32_t i[4]; } colors[N];
  uint64_t seed = 77;
  for (size_t fi = 0; fi < sizeof formats / sizeof formats[0]; fi++) {
    const struct format_case *fc = &formats[fi];
    if (fc->order == CL_sRGBA) continue; /* not writable (no cl_khr_srgb_image_writes) */
    for (int e = 0; e < N; e++)
      for (int c = 0; c < 4; c++) {
        seed ^= seed << 13, seed ^= seed >> 7, seed ^= seed << 17;
        if (fc->kind == 'f') {
          static const float specials[] = {0.0f, 1.0f, -1.0f, 0.5f, 1.0f / 510, 3.0f / 510, NAN, 2.0f, -3.0f};
          colors[e].f[c] = e < 9 ? specials[(e + c) % 9] : (float)((int)(seed % 2400) - 1200) / 1000.0f;
        } else {
          colors[e].i[c] = e < 4 ? (int32_t[]){0, -1, 70000, -70000}[e] : (int32_t)(seed % 100000) - 50000;
        }
      }
    cl_mem im = image(env, CL_MEM_WRITE_ONLY, fc->order, fc->type, CL_MEM_OBJECT_IMAGE1D, N, 1, 1, 1, NULL);
    cl_mem colors_buf = buffer(env, sizeof colors, colors);
    cl_int err;
    cl_kernel k = clCreateKernel(p, fc->kind == 'f' ? "wf" : fc->kind == 'i' ? "wi" : "wu", &err);
    assert_cl_success(err);
    assert_cl_success(clSetKernelArg(k, 0, sizeof im, &im));
    assert_cl_success(clSetKernelArg(k, 1, sizeof colors_buf, &colors_buf));
    run(env, k, N);
    unsigned es = channel_count(fc->order) * channel_bytes(fc->type), w = channel_bytes(fc->type);
    unsigned char got[N * 16], want[N * 16];
    size_t origin[3] = {0, 0, 0}, region[3] = {N, 1, 1};
    assert_cl_success(clEnqueueReadImage(env->queue, im, CL_TRUE, origin, region, 0, 0, got, 0, NULL, NULL));
    for (int e = 0; e < N; e++)
      for (unsigned c = 0; c < channel_count(fc->order); c++) {
        int comp = fc->order == CL_BGRA ? (int[]){2, 1, 0, 3}[c] : (int)c;
        encode(fc->type, colors[e].f[comp], colors[e].i[comp], want + e * es + c * w);
      }
    for (int e = 0; e < N; e++)
      if (memcmp(got + e * es, want + e * es, es))
        fail_msg("format %#x/%#x: element %d (%g %g %g %g / %d %d %d %d) stored wrongly", fc->order, fc->type, e,
                 colors[e].f[0], colors[e].f[1], colors[e].f[2], colors[e].f[3], colors[e].i[0], colors[e].i[1],
                 colors[e].i[2], colors[e].i[3]);
    clReleaseKernel(k);
    clReleaseMemObject(colors_buf);
    clReleaseMemObject(im);
  }
  clReleaseProgram(p);
}

/* get_image_* for every type. */
static void test_queries(void **state) {
  struct kiln_test_env *env = *state;
  const char *source =
      "kernel void q(read_only image1d_t a, read_only image1d_array_t b, read_only image2d_t c,\n"
      "              read_only image2d_array_t d, write_only image3d_t e, read_only image1d_buffer_t f, global int *o) {\n"
      "  o[0] = get_image_width(a); o[1] = get_image_width(b); o[2] = (int)get_image_array_size(b);\n"
      "  o[3] = get_image_width(c); o[4] = get_image_height(c); int2 dc = get_image_dim(c); o[5] = dc.x * 1000 + dc.y;\n"
      "  o[6] = get_image_width(d); o[7] = get_image_height(d); o[8] = (int)get_image_array_size(d);\n"
      "  int2 dd = get_image_dim(d); o[9] = dd.x * 1000 + dd.y;\n"
      "  o[10] = get_image_width(e); o[11] = get_image_height(e); o[12] = get_image_depth(e);\n"
      "  int4 de = get_image_dim(e); o[13] = de.x * 1000000 + de.y * 1000 + de.z; o[14] = de.w;\n"
      "  o[15] = get_image_width(f);\n"
      "  o[16] = get_image_channel_order(a) == CLK_RGBA; o[17] = get_image_channel_data_type(a) == CLK_UNORM_INT8;\n"
      "  o[18] = get_image_channel_order(c) == CLK_RG; o[19] = get_image_channel_data_type(c) == CLK_SIGNED_INT16;\n"
      "  o[20] = get_image_channel_order(e) == CLK_R; o[21] = get_image_channel_data_type(e) == CLK_FLOAT;\n"
      "}\n";
  cl_program p = build(env, source, "");
  cl_int err;
  cl_kernel k = clCreateKernel(p, "q", &err);
  assert_cl_success(err);
  cl_mem a = image(env, CL_MEM_READ_ONLY, CL_RGBA, CL_UNORM_INT8, CL_MEM_OBJECT_IMAGE1D, 17, 1, 1, 1, NULL);
  cl_mem b = image(env, CL_MEM_READ_ONLY, CL_R, CL_FLOAT, CL_MEM_OBJECT_IMAGE1D_ARRAY, 9, 1, 1, 5, NULL);
  cl_mem c = image(env, CL_MEM_READ_ONLY, CL_RG, CL_SIGNED_INT16, CL_MEM_OBJECT_IMAGE2D, 31, 7, 1, 1, NULL);
  cl_mem d = image(env, CL_MEM_READ_ONLY, CL_R, CL_FLOAT, CL_MEM_OBJECT_IMAGE2D_ARRAY, 6, 4, 1, 3, NULL);
  cl_mem e = image(env, CL_MEM_WRITE_ONLY, CL_R, CL_FLOAT, CL_MEM_OBJECT_IMAGE3D, 5, 6, 7, 1, NULL);
  cl_mem backing = buffer(env, 64 * 4, NULL);
  cl_image_format ff = {CL_RGBA, CL_UNORM_INT8};
  cl_image_desc fd = {.image_type = CL_MEM_OBJECT_IMAGE1D_BUFFER, .image_width = 64, .mem_object = backing};
  cl_mem f = clCreateImage(env->context, CL_MEM_READ_ONLY, &ff, &fd, NULL, &err);
  assert_cl_success(err);
  cl_mem o = buffer(env, 22 * sizeof(cl_int), NULL);
  cl_mem args[] = {a, b, c, d, e, f, o};
  for (cl_uint i = 0; i < 7; i++) assert_cl_success(clSetKernelArg(k, i, sizeof(cl_mem), &args[i]));
  run(env, k, 1);
  cl_int got[22];
  assert_cl_success(clEnqueueReadBuffer(env->queue, o, CL_TRUE, 0, sizeof got, got, 0, NULL, NULL));
  const cl_int want[22] = {17, 9, 5, 31, 7, 31007, 6, 4, 3, 6004, 5, 6, 7, 5006007, 0, 64, 1, 1, 1, 1, 1, 1};
  assert_memory_equal(got, want, sizeof want);
  for (int i = 0; i < 7; i++) clReleaseMemObject(args[i]);
  clReleaseMemObject(backing);
  clReleaseKernel(k);
  clReleaseProgram(p);
}

/* read_write images (OpenCL C 3.0 with __opencl_c_read_write_images): each work-item
 * reads its element, writes it back changed; a fence orders a second read after it. */
static void test_read_write(void **state) {
  struct kiln_test_env *env = *state;
  const char *source =
      "kernel void rw(read_write image2d_t im, global float4 *o) {\n"
      "  int2 p = (int2)(get_global_id(0), get_global_id(1));\n"
      "  float4 v = read_imagef(im, p);\n"
      "  write_imagef(im, p, v * 2.0f + 1.0f);\n"
      "  atomic_work_item_fence(CLK_IMAGE_MEM_FENCE, memory_order_acq_rel, memory_scope_work_item);\n"
      "  o[p.y * get_image_width(im) + p.x] = read_imagef(im, p);\n}\n";
  cl_program p = build(env, source, "-cl-std=CL3.0");
  cl_int err;
  cl_kernel k = clCreateKernel(p, "rw", &err);
  assert_cl_success(err);
  enum { W = 9, H = 5 };
  float texels[4 * W * H];
  fill_texels(texels, W * H);
  cl_mem im = image(env, CL_MEM_READ_WRITE, CL_RGBA, CL_FLOAT, CL_MEM_OBJECT_IMAGE2D, W, H, 1, 1, texels);
  cl_mem o = buffer(env, sizeof texels, NULL);
  assert_cl_success(clSetKernelArg(k, 0, sizeof im, &im));
  assert_cl_success(clSetKernelArg(k, 1, sizeof o, &o));
  size_t global[2] = {W, H};
  assert_cl_success(clEnqueueNDRangeKernel(env->queue, k, 2, NULL, global, NULL, 0, NULL, NULL));
  float got[4 * W * H], stored[4 * W * H];
  assert_cl_success(clEnqueueReadBuffer(env->queue, o, CL_TRUE, 0, sizeof got, got, 0, NULL, NULL));
  size_t origin[3] = {0, 0, 0}, region[3] = {W, H, 1};
  assert_cl_success(clEnqueueReadImage(env->queue, im, CL_TRUE, origin, region, 0, 0, stored, 0, NULL, NULL));
  for (size_t i = 0; i < 4 * W * H; i++) {
    assert_true(got[i] == texels[i] * 2.0f + 1.0f);
    assert_true(stored[i] == got[i]);
  }
  clReleaseMemObject(o);
  clReleaseMemObject(im);
  clReleaseKernel(k);
  clReleaseProgram(p);
}

/* Integer images read and written with the functions of the other signedness (undefined in
 * the spec): the bits are kept, as on GPUs. */
static void test_integer_other_signedness(void **state) {
  struct kiln_test_env *env = *state;
  const char *source =
      "kernel void cross(read_only image1d_t u8, read_only image1d_t s16, write_only image1d_t u8_out,\n"
      "                  write_only image1d_t s8_out, global int4 *o) {\n"
      "  int x = get_global_id(0);\n"
      "  o[2 * x] = read_imagei(u8, x);\n"
      "  o[2 * x + 1] = as_int4(read_imageui(s16, x));\n"
      "  write_imagei(u8_out, x, (int4)(-1, 7, 300, x));\n"
      "  write_imageui(s8_out, x, (uint4)(200, 5, 0xFFFFFFFFu, x));\n"
      "}\n";
  cl_program p = build(env, source, NULL);
  cl_int err;
  cl_kernel k = clCreateKernel(p, "cross", &err);
  assert_cl_success(err);
  enum { W = 4 };
  cl_uchar u8[4 * W];
  cl_short s16[4 * W];
  for (int i = 0; i < 4 * W; i++) {
    u8[i] = (cl_uchar)(250 - i);
    s16[i] = (cl_short)(-3000 + i);
  }
  cl_mem in_u8 = image(env, CL_MEM_READ_ONLY, CL_RGBA, CL_UNSIGNED_INT8, CL_MEM_OBJECT_IMAGE1D, W, 1, 1, 1, u8);
  cl_mem in_s16 = image(env, CL_MEM_READ_ONLY, CL_RGBA, CL_SIGNED_INT16, CL_MEM_OBJECT_IMAGE1D, W, 1, 1, 1, s16);
  cl_mem out_u8 = image(env, CL_MEM_WRITE_ONLY, CL_RGBA, CL_UNSIGNED_INT8, CL_MEM_OBJECT_IMAGE1D, W, 1, 1, 1, NULL);
  cl_mem out_s8 = image(env, CL_MEM_WRITE_ONLY, CL_RGBA, CL_SIGNED_INT8, CL_MEM_OBJECT_IMAGE1D, W, 1, 1, 1, NULL);
  cl_mem o = buffer(env, 2 * W * sizeof(cl_int4), NULL);
  cl_mem args[5] = {in_u8, in_s16, out_u8, out_s8, o};
  for (cl_uint i = 0; i < 5; i++) assert_cl_success(clSetKernelArg(k, i, sizeof(cl_mem), &args[i]));
  run(env, k, W);
  cl_int got[8 * W];
  cl_uchar wrote_u8[4 * W];
  cl_char wrote_s8[4 * W];
  assert_cl_success(clEnqueueReadBuffer(env->queue, o, CL_TRUE, 0, sizeof got, got, 0, NULL, NULL));
  size_t origin[3] = {0, 0, 0}, region[3] = {W, 1, 1};
  assert_cl_success(clEnqueueReadImage(env->queue, out_u8, CL_TRUE, origin, region, 0, 0, wrote_u8, 0, NULL, NULL));
  assert_cl_success(clEnqueueReadImage(env->queue, out_s8, CL_TRUE, origin, region, 0, 0, wrote_s8, 0, NULL, NULL));
  for (int x = 0; x < W; x++) {
    for (int c = 0; c < 4; c++) {
      assert_int_equal(250 - (4 * x + c), got[8 * x + c]);        /* unsigned: zero-extended */
      assert_int_equal(-3000 + 4 * x + c, got[8 * x + 4 + c]);    /* signed: sign-extended bits */
    }
    const int u8_want[4] = {255, 7, 255, x}, s8_want[4] = {127, 5, -1, x}; /* bits, then the format's saturation */
    for (int c = 0; c < 4; c++) {
      assert_int_equal(u8_want[c], wrote_u8[4 * x + c]);
      assert_int_equal(s8_want[c], wrote_s8[4 * x + c]);
    }
  }
  clReleaseMemObject(o);
  clReleaseMemObject(in_u8);
  clReleaseMemObject(in_s16);
  clReleaseMemObject(out_u8);
  clReleaseMemObject(out_s8);
  clReleaseKernel(k);
  clReleaseProgram(p);
}

/* Depth images: read_imagef returns one float, write_imagef stores one. */
static void test_depth(void **state) {
  struct kiln_test_env *env = *state;
  enum { W = 6, H = 3 };
  const char *source =
      "kernel void d(read_only image2d_depth_t in, write_only image2d_depth_t out, sampler_t s, global float *o) {\n"
      "  int2 p = (int2)(get_global_id(0), get_global_id(1));\n"
      "  float v = read_imagef(in, s, (float2)(p.x + 0.5f, p.y + 0.5f));\n"
      "  o[p.y * 6 + p.x] = v + read_imagef(in, p);\n"
      "  write_imagef(out, p, v * 0.5f);\n}\n";
  cl_program p = build(env, source, "");
  cl_int err;
  cl_kernel k = clCreateKernel(p, "d", &err);
  assert_cl_success(err);
  float depth[W * H];
  for (int i = 0; i < W * H; i++) depth[i] = (float)i / 32.0f;
  cl_mem in = image(env, CL_MEM_READ_ONLY, CL_DEPTH, CL_FLOAT, CL_MEM_OBJECT_IMAGE2D, W, H, 1, 1, depth);
  cl_mem out = image(env, CL_MEM_WRITE_ONLY, CL_DEPTH, CL_UNORM_INT16, CL_MEM_OBJECT_IMAGE2D, W, H, 1, 1, NULL);
  cl_mem o = buffer(env, sizeof depth, NULL);
  cl_sampler s = clCreateSampler(env->context, CL_FALSE, CL_ADDRESS_CLAMP, CL_FILTER_LINEAR, &err);
  assert_cl_success(err);
  assert_cl_success(clSetKernelArg(k, 0, sizeof in, &in));
  assert_cl_success(clSetKernelArg(k, 1, sizeof out, &out));
  assert_cl_success(clSetKernelArg(k, 2, sizeof s, &s));
  assert_cl_success(clSetKernelArg(k, 3, sizeof o, &o));
  size_t global[2] = {W, H};
  assert_cl_success(clEnqueueNDRangeKernel(env->queue, k, 2, NULL, global, NULL, 0, NULL, NULL));
  float got[W * H];
  uint16_t stored[W * H];
  assert_cl_success(clEnqueueReadBuffer(env->queue, o, CL_TRUE, 0, sizeof got, got, 0, NULL, NULL));
  size_t origin[3] = {0, 0, 0}, region[3] = {W, H, 1};
  assert_cl_success(clEnqueueReadImage(env->queue, out, CL_TRUE, origin, region, 0, 0, stored, 0, NULL, NULL));
  for (int i = 0; i < W * H; i++) {
    assert_true(got[i] == 2 * depth[i]); /* linear at texel centers is the texel */
    assert_int_equal(stored[i], (uint16_t)rintf(depth[i] * 0.5f * 65535.0f));
  }
  clReleaseSampler(s);
  clReleaseMemObject(o);
  clReleaseMemObject(out);
  clReleaseMemObject(in);
  clReleaseKernel(k);
  clReleaseProgram(p);
}

/* cl_khr_image2d_from_buffer: a kernel writes the image, the buffer holds the result; the
 * host writes the buffer, a kernel reads it through the image. */
static void test_image_over_buffer(void **state) {
  struct kiln_test_env *env = *state;
  cl_uint pitch_alignment = 0;
  assert_cl_success(clGetDeviceInfo(env->device, CL_DEVICE_IMAGE_PITCH_ALIGNMENT, sizeof pitch_alignment,
                                    &pitch_alignment, NULL));
  assert_true(pitch_alignment > 0);
  enum { W = 10, H = 4 };
  size_t row_pitch = ((W + pitch_alignment - 1) / pitch_alignment) * pitch_alignment * 4;
  cl_mem buf = buffer(env, row_pitch * H, NULL);
  cl_image_format f = {CL_RGBA, CL_UNORM_INT8};
  cl_image_desc d = {.image_type = CL_MEM_OBJECT_IMAGE2D, .image_width = W, .image_height = H,
                     .image_row_pitch = row_pitch, .mem_object = buf};
  cl_int err;
  cl_mem im = clCreateImage(env->context, CL_MEM_READ_WRITE, &f, &d, NULL, &err);
  assert_cl_success(err);
  const char *source =
      "kernel void w(write_only image2d_t im) {\n"
      "  int x = get_global_id(0), y = get_global_id(1);\n"
      "  write_imageui(im, (int2)(x, y), (uint4)(x, y, x + y, 255)); }\n"
      "kernel void wf(write_only image2d_t im) {\n"
      "  int x = get_global_id(0), y = get_global_id(1);\n"
      "  write_imagef(im, (int2)(x, y), (float4)(x / 255.0f, y / 255.0f, 1.0f, 0.0f)); }\n"
      "kernel void r(read_only image2d_t im, global uint *o) {\n"
      "  int x = get_global_id(0), y = get_global_id(1);\n"
      "  float4 v = read_imagef(im, (int2)(x, y)) * 255.0f;\n"
      "  o[y * 10 + x] = (uint)v.x | (uint)v.y << 8 | (uint)v.z << 16 | (uint)v.w << 24; }\n";
  cl_program p = build(env, source, "");
  cl_kernel wf = clCreateKernel(p, "wf", &err);
  assert_cl_success(err);
  assert_cl_success(clSetKernelArg(wf, 0, sizeof im, &im));
  size_t global[2] = {W, H};
  assert_cl_success(clEnqueueNDRangeKernel(env->queue, wf, 2, NULL, global, NULL, 0, NULL, NULL));
  unsigned char *bytes = malloc(row_pitch * H);
  assert_cl_success(clEnqueueReadBuffer(env->queue, buf, CL_TRUE, 0, row_pitch * H, bytes, 0, NULL, NULL));
  for (int y = 0; y < H; y++)
    for (int x = 0; x < W; x++) {
      const unsigned char *e = bytes + y * row_pitch + 4 * x;
      assert_int_equal(e[0], x);
      assert_int_equal(e[1], y);
      assert_int_equal(e[2], 255);
      assert_int_equal(e[3], 0);
    }
  for (int y = 0; y < H; y++)
    for (int x = 0; x < W; x++) {
      unsigned char *e = bytes + y * row_pitch + 4 * x;
      e[0] = (unsigned char)(3 * x), e[1] = (unsigned char)(5 * y), e[2] = 7, e[3] = (unsigned char)(x * y);
    }
  assert_cl_success(clEnqueueWriteBuffer(env->queue, buf, CL_TRUE, 0, row_pitch * H, bytes, 0, NULL, NULL));
  cl_kernel r = clCreateKernel(p, "r", &err);
  assert_cl_success(err);
  cl_mem o = buffer(env, W * H * 4, NULL);
  assert_cl_success(clSetKernelArg(r, 0, sizeof im, &im));
  assert_cl_success(clSetKernelArg(r, 1, sizeof o, &o));
  assert_cl_success(clEnqueueNDRangeKernel(env->queue, r, 2, NULL, global, NULL, 0, NULL, NULL));
  cl_uint got[W * H];
  assert_cl_success(clEnqueueReadBuffer(env->queue, o, CL_TRUE, 0, sizeof got, got, 0, NULL, NULL));
  for (int y = 0; y < H; y++)
    for (int x = 0; x < W; x++)
      assert_int_equal(got[y * W + x], (cl_uint)(3 * x) | (cl_uint)(5 * y) << 8 | 7u << 16 | (cl_uint)(x * y) << 24);
  free(bytes);
  clReleaseMemObject(o);
  clReleaseKernel(r);
  clReleaseKernel(wf);
  clReleaseProgram(p);
  clReleaseMemObject(im);
  clReleaseMemObject(buf);
}

/* The OpenCL C features the device reports for images match what kernels can do. */
static void test_features_reported(void **state) {
  struct kiln_test_env *env = *state;
  cl_bool images = CL_FALSE;
  assert_cl_success(clGetDeviceInfo(env->device, CL_DEVICE_IMAGE_SUPPORT, sizeof images, &images, NULL));
  assert_true(images);
  size_t size = 0;
  assert_cl_success(clGetDeviceInfo(env->device, CL_DEVICE_OPENCL_C_FEATURES, 0, NULL, &size));
  cl_name_version *features = malloc(size);
  assert_cl_success(clGetDeviceInfo(env->device, CL_DEVICE_OPENCL_C_FEATURES, size, features, NULL));
  const char *wanted[] = {"__opencl_c_images", "__opencl_c_read_write_images", "__opencl_c_3d_image_writes"};
  for (size_t w = 0; w < 3; w++) {
    bool found = false;
    for (size_t i = 0; i < size / sizeof *features; i++) found |= !strcmp(features[i].name, wanted[w]);
    if (!found) fail_msg("%s not reported", wanted[w]);
  }
  free(features);
  for (const char **e = (const char *[]){"cl_khr_3d_image_writes", "cl_khr_image2d_from_buffer", "cl_khr_depth_images",
                                         NULL};
       *e; e++)
    assert_true(kiln_test_extension_listed(env->device, *e));
  /* And kernels see them. */
  const char *source =
      "#if !defined(__IMAGE_SUPPORT__) || !defined(__opencl_c_images) || !defined(__opencl_c_3d_image_writes) || "
      "!defined(__opencl_c_read_write_images) || !defined(cl_khr_depth_images) || !defined(cl_khr_3d_image_writes)\n"
      "#error image macros missing\n#endif\nkernel void k(void) {}\n";
  clReleaseProgram(build(env, source, "-cl-std=CL3.0"));
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_features_reported), cmocka_unit_test(test_sampler_argument),
      cmocka_unit_test(test_constant_sampler),  cmocka_unit_test(test_integer_coordinates),
      cmocka_unit_test(test_format_reads),      cmocka_unit_test(test_format_writes),
      cmocka_unit_test(test_queries),           cmocka_unit_test(test_read_write),
      cmocka_unit_test(test_depth),             cmocka_unit_test(test_image_over_buffer),
      cmocka_unit_test(test_integer_other_signedness),
  };
  return cmocka_run_group_tests(tests, kiln_test_env_setup, kiln_test_env_teardown);
}
