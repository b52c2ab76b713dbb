/* bench_images.c: the image paths imaging and ML code leans on — a bilinear resample
 * through a constant normalized clamp-to-edge linear sampler, and a 3x3 convolution through
 * a nearest sampler with integer coordinates — over RGBA UNORM_INT8 and RGBA FLOAT 2D
 * images, in output Mpixel/s. Results are checked on a grid of pixels against a host
 * reference (1/255 for 8-bit, 1e-4 relative for float). */
#include "bench.h"

#include <math.h>
#include <stdint.h>
#include <string.h>

static const char *image_source =
    "constant sampler_t bilinear = CLK_NORMALIZED_COORDS_TRUE | CLK_ADDRESS_CLAMP_TO_EDGE | CLK_FILTER_LINEAR;\n"
    "constant sampler_t nearest = CLK_NORMALIZED_COORDS_FALSE | CLK_ADDRESS_CLAMP_TO_EDGE | CLK_FILTER_NEAREST;\n"
    "kernel void resample(read_only image2d_t src, write_only image2d_t dst, float2 scale) {\n"
    "  int x = get_global_id(0), y = get_global_id(1);\n"
    "  float2 c = ((float2)(x, y) + 0.5f) * scale;\n"
    "  write_imagef(dst, (int2)(x, y), read_imagef(src, bilinear, c));\n"
    "}\n"
    "kernel void conv3x3(read_only image2d_t src, write_only image2d_t dst, constant float *w) {\n"
    "  int x = get_global_id(0), y = get_global_id(1);\n"
    "  float4 sum = 0.0f;\n"
    "  for (int dy = -1; dy <= 1; dy++)\n"
    "    for (int dx = -1; dx <= 1; dx++)\n"
    "      sum += w[(dy + 1) * 3 + dx + 1] * read_imagef(src, nearest, (int2)(x + dx, y + dy));\n"
    "  write_imagef(dst, (int2)(x, y), sum);\n"
    "}\n";

static const float weights[9] = {0.0625f, 0.125f, 0.0625f, 0.125f, 0.25f, 0.125f, 0.0625f, 0.125f, 0.0625f};

struct picture {
  bool is_float;
  size_t w, h;
  void *pixels; /* RGBA, 4 bytes or 4 floats per pixel */
};

static float channel(const struct picture *p, long x, long y, int c) {
  x = x < 0 ? 0 : x >= (long)p->w ? (long)p->w - 1 : x; /* clamp to edge */
  y = y < 0 ? 0 : y >= (long)p->h ? (long)p->h - 1 : y;
  size_t i = 4 * ((size_t)y * p->w + (size_t)x) + (size_t)c;
  return p->is_float ? ((const float *)p->pixels)[i] : ((const uint8_t *)p->pixels)[i] / 255.0f;
}

static float reference_resample(const struct picture *src, size_t dw, size_t dh, size_t x, size_t y, int c) {
  /* The kernel's float arithmetic, step by step: the sample position is sensitive to it. */
  float u = ((float)x + 0.5f) * (1.0f / (float)dw) * (float)src->w - 0.5f;
  float v = ((float)y + 0.5f) * (1.0f / (float)dh) * (float)src->h - 0.5f;
  long i = (long)floorf(u), j = (long)floorf(v);
  float a = u - floorf(u), b = v - floorf(v);
  return (1 - a) * (1 - b) * channel(src, i, j, c) + a * (1 - b) * channel(src, i + 1, j, c) +
         (1 - a) * b * channel(src, i, j + 1, c) + a * b * channel(src, i + 1, j + 1, c);
}

static float reference_conv(const struct picture *src, size_t x, size_t y, int c) {
  float sum = 0;
  for (int dy = -1; dy <= 1; dy++)
    for (int dx = -1; dx <= 1; dx++)
      sum += weights[(dy + 1) * 3 + dx + 1] * channel(src, (long)x + dx, (long)y + dy, c);
  return sum;
}

static cl_mem image2d(struct bench_env *env, cl_mem_flags flags, bool is_float, size_t w, size_t h, void *host) {
  cl_image_format format = {CL_RGBA, is_float ? CL_FLOAT : CL_UNORM_INT8};
  cl_image_desc desc = {.image_type = CL_MEM_OBJECT_IMAGE2D, .image_width = w, .image_height = h};
  cl_int err;
  cl_mem m = clCreateImage(env->context, flags | (host ? CL_MEM_COPY_HOST_PTR : 0), &format, &desc, host, &err);
  CHECK(err);
  return m;
}

/* Times `kernel` over dw x dh output pixels and checks a grid of them with `reference`. */
static void run_case(struct bench_env *env, cl_kernel kernel, const struct picture *src, cl_mem dst, size_t dw,
                     size_t dh, bool resample, const char *what) {
  size_t global[2] = {dw, dh};
  double best = best_launch_us(env, kernel, 2, global, NULL, env->quick ? 3 : 10);
  size_t pixel = src->is_float ? 16 : 4;
  unsigned char *out = malloc(dw * dh * pixel);
  size_t origin[3] = {0, 0, 0}, region[3] = {dw, dh, 1};
  CHECK(clEnqueueReadImage(env->queue, dst, CL_TRUE, origin, region, 0, 0, out, 0, NULL, NULL));
  for (size_t y = 0; y < dh; y += 37)
    for (size_t x = 0; x < dw; x += 41)
      for (int c = 0; c < 4; c++) {
        float want = resample ? reference_resample(src, dw, dh, x, y, c) : reference_conv(src, x, y, c);
        size_t i = 4 * (y * dw + x) + (size_t)c;
        float got = src->is_float ? ((const float *)out)[i] : out[i] / 255.0f;
        float tolerance = src->is_float ? 1e-4f * fmaxf(1.0f, fabsf(want)) : 1.01f / 255.0f;
        if (fabsf(got - want) > tolerance) {
          fprintf(stderr, "%s: pixel (%zu, %zu) channel %d: got %g, want %g\n", what, x, y, c, got, want);
          fail(what);
        }
      }
  free(out);
  report(env->platform_name, what, (double)(dw * dh) / best, "Mpixel/s");
}

void bench_images(struct bench_env *env) {
  cl_bool supported = CL_FALSE;
  CHECK(clGetDeviceInfo(env->device, CL_DEVICE_IMAGE_SUPPORT, sizeof supported, &supported, NULL));
  if (!supported) {
    printf("%-10s %-44s %12s\n", env->platform_name, "images", "no image support");
    return;
  }
  const size_t w = env->quick ? 512 : 2048, h = env->quick ? 512 : 2048;
  const size_t dw = env->quick ? 640 : 2560, dh = env->quick ? 360 : 1440;
  cl_program program = build(env, image_source, NULL);
  cl_kernel resample = kernel_of(program, "resample"), conv = kernel_of(program, "conv3x3");
  cl_mem w_buf = buffer(env, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, sizeof weights, (void *)weights);
  for (int f = 0; f < 2; f++) {
    struct picture src = {f == 1, w, h, malloc(w * h * (f ? 16 : 4))};
    uint32_t seed = 12345;
    for (size_t i = 0; i < 4 * w * h; i++) {
      seed = seed * 1664525u + 1013904223u;
      /* smooth ramps plus noise: what pictures and feature maps look like */
      uint8_t v = (uint8_t)((i / 4 % w + i / 4 / w) / 8 + (seed >> 28));
      if (src.is_float) ((float *)src.pixels)[i] = v / 255.0f * 2.0f - 0.5f;
      else ((uint8_t *)src.pixels)[i] = v;
    }
    cl_mem in = image2d(env, CL_MEM_READ_ONLY, src.is_float, w, h, src.pixels);
    cl_mem out = image2d(env, CL_MEM_WRITE_ONLY, src.is_float, dw, dh, NULL);
    cl_mem conv_out = image2d(env, CL_MEM_WRITE_ONLY, src.is_float, w, h, NULL);
    cl_float2 scale = {{1.0f / (float)dw, 1.0f / (float)dh}};
    CHECK(clSetKernelArg(resample, 0, sizeof in, &in));
    CHECK(clSetKernelArg(resample, 1, sizeof out, &out));
    CHECK(clSetKernelArg(resample, 2, sizeof scale, &scale));
    CHECK(clSetKernelArg(conv, 0, sizeof in, &in));
    CHECK(clSetKernelArg(conv, 1, sizeof conv_out, &conv_out));
    CHECK(clSetKernelArg(conv, 2, sizeof w_buf, &w_buf));
    run_case(env, resample, &src, out, dw, dh, true,
             src.is_float ? "image bilinear resample RGBA float" : "image bilinear resample RGBA8");
    run_case(env, conv, &src, conv_out, w, h, false,
             src.is_float ? "image 3x3 convolution RGBA float" : "image 3x3 convolution RGBA8");
    clReleaseMemObject(in);
    clReleaseMemObject(out);
    clReleaseMemObject(conv_out);
    free(src.pixels);
  }
  clReleaseMemObject(w_buf);
  clReleaseKernel(resample);
  clReleaseKernel(conv);
  clReleaseProgram(program);
}
