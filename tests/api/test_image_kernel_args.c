/* Image and sampler kernel arguments, the host side: clSetKernelArg takes an image of the
 * declared type and the kernel's context whose flags allow the declared access, and a
 * sampler; every error it names for them (a refused value leaves the argument as it was);
 * what a kernel then sees (each image's view, the sampler's state); an image released
 * after it was set fails the enqueue; the per-kernel limits on read, write and sampler
 * arguments. The image builtins themselves are test_image_kernels.c's subject. */
#include "image_test.h"

#include <stdio.h>

static const char *source =
    "kernel void args(read_only image2d_t ro, write_only image2d_t wo, read_write image2d_t rw, sampler_t s,\n"
    "                 image1d_buffer_t b, image2d_array_t arr, read_only image2d_depth_t depth, image3d_t three,\n"
    "                 image1d_t one, image1d_array_t one_arr, global int *out) {\n"
    "  out[0] = get_image_width(ro);\n"
    "  out[1] = get_image_height(wo);\n"
    "  out[2] = get_image_width(rw);\n"
    "  out[3] = get_image_width(b);\n"
    "  out[4] = (int)get_image_array_size(arr);\n"
    "  out[5] = get_image_width(depth);\n"
    "  out[6] = get_image_depth(three);\n"
    "  out[7] = get_image_width(one);\n"
    "  out[8] = (int)get_image_array_size(one_arr);\n"
    "  out[9] = (int)(read_imagef(ro, s, (float2)(-3.0f, 0.5f)).x * 255.0f + 0.5f);\n"
    "}\n";

enum { ARGS = 11, OUT_INTS = 10 };

struct fixture {
  cl_program program;
  cl_kernel kernel;
  cl_mem images[ARGS - 1]; /* by argument index; [3] is unused (the sampler) */
  cl_mem buffer;           /* the 1D image buffer's */
  cl_mem out;
  cl_sampler edge, border;
};
static struct fixture fx;

static cl_mem make(struct kiln_test_env *env, cl_mem_flags flags, const cl_image_format *format,
                   cl_mem_object_type type, size_t w, size_t h, size_t d) {
  size_t extent[3];
  image_extent_of(type, w, h, d, extent);
  return image_create(env->context, flags, format, type, extent, NULL);
}

static int setup(void **state) {
  kiln_test_env_setup(state);
  struct kiln_test_env *env = *state;
  cl_int err;
  fx.program = clCreateProgramWithSource(env->context, 1, &source, NULL, &err);
  assert_cl_success(err);
  assert_cl_success(clBuildProgram(fx.program, 1, &env->device, "-cl-std=CL3.0", NULL, NULL));
  fx.kernel = clCreateKernel(fx.program, "args", &err);
  assert_cl_success(err);
  const cl_image_format depth = {CL_DEPTH, CL_FLOAT};
  fx.images[0] = make(env, CL_MEM_READ_ONLY, &rgba8, CL_MEM_OBJECT_IMAGE2D, 5, 3, 1);
  fx.images[1] = make(env, CL_MEM_WRITE_ONLY, &rgba8, CL_MEM_OBJECT_IMAGE2D, 6, 7, 1);
  fx.images[2] = make(env, CL_MEM_READ_WRITE, &rgba8, CL_MEM_OBJECT_IMAGE2D, 8, 2, 1);
  fx.buffer = clCreateBuffer(env->context, 0, 64 * 4, NULL, &err);
  assert_cl_success(err);
  cl_image_desc desc = {.image_type = CL_MEM_OBJECT_IMAGE1D_BUFFER, .image_width = 64, .mem_object = fx.buffer};
  fx.images[4] = clCreateImage(env->context, 0, &rgba8, &desc, NULL, &err);
  assert_cl_success(err);
  fx.images[5] = make(env, 0, &rgba8, CL_MEM_OBJECT_IMAGE2D_ARRAY, 2, 2, 11);
  fx.images[6] = make(env, CL_MEM_READ_ONLY, &depth, CL_MEM_OBJECT_IMAGE2D, 12, 2, 1);
  fx.images[7] = make(env, 0, &rgba8, CL_MEM_OBJECT_IMAGE3D, 2, 2, 13);
  fx.images[8] = make(env, 0, &rgba8, CL_MEM_OBJECT_IMAGE1D, 14, 1, 1);
  fx.images[9] = make(env, 0, &rgba8, CL_MEM_OBJECT_IMAGE1D_ARRAY, 3, 15, 1);
  const cl_float white[4] = {1, 1, 1, 1};
  const size_t origin[3] = {0, 0, 0}, region[3] = {5, 3, 1};
  assert_cl_success(clEnqueueFillImage(env->queue, fx.images[0], white, origin, region, 0, NULL, NULL));
  fx.out = clCreateBuffer(env->context, 0, OUT_INTS * sizeof(cl_int), NULL, &err);
  assert_cl_success(err);
  fx.edge = clCreateSampler(env->context, CL_FALSE, CL_ADDRESS_CLAMP_TO_EDGE, CL_FILTER_NEAREST, &err);
  assert_cl_success(err);
  fx.border = clCreateSampler(env->context, CL_FALSE, CL_ADDRESS_CLAMP, CL_FILTER_NEAREST, &err);
  assert_cl_success(err);
  return 0;
}

static int teardown(void **state) {
  for (int i = 0; i < ARGS - 1; i++)
    if (fx.images[i]) assert_cl_success(clReleaseMemObject(fx.images[i]));
  assert_cl_success(clReleaseMemObject(fx.buffer));
  assert_cl_success(clReleaseMemObject(fx.out));
  assert_cl_success(clReleaseSampler(fx.edge));
  assert_cl_success(clReleaseSampler(fx.border));
  assert_cl_success(clReleaseKernel(fx.kernel));
  assert_cl_success(clReleaseProgram(fx.program));
  return kiln_test_env_teardown(state);
}

static void set_all(cl_sampler sampler) {
  for (cl_uint i = 0; i < ARGS - 1; i++)
    if (i != 3) assert_cl_success(clSetKernelArg(fx.kernel, i, sizeof(cl_mem), &fx.images[i]));
  assert_cl_success(clSetKernelArg(fx.kernel, 3, sizeof sampler, &sampler));
  assert_cl_success(clSetKernelArg(fx.kernel, ARGS - 1, sizeof fx.out, &fx.out));
}

static void run_and_expect(struct kiln_test_env *env, int sampled) {
  const size_t one = 1;
  assert_cl_success(clEnqueueNDRangeKernel(env->queue, fx.kernel, 1, NULL, &one, NULL, 0, NULL, NULL));
  cl_int got[OUT_INTS];
  assert_cl_success(clEnqueueReadBuffer(env->queue, fx.out, CL_TRUE, 0, sizeof got, got, 0, NULL, NULL));
  const cl_int want[OUT_INTS] = {5, 7, 8, 64, 11, 12, 13, 14, 15, sampled};
  for (int i = 0; i < OUT_INTS; i++)
    if (got[i] != want[i]) fail_msg("out[%d] = %d, expected %d", i, got[i], want[i]);
}

/* Each image's view reaches the kernel; so do the sampler's bits (an unnormalized read left
 * of the image: the edge pixel with clamp-to-edge, the border with clamp). */
static void test_arguments_reach_the_kernel(void **state) {
  struct kiln_test_env *env = *state;
  set_all(fx.edge);
  run_and_expect(env, 255);
  assert_cl_success(clSetKernelArg(fx.kernel, 3, sizeof fx.border, &fx.border));
  run_and_expect(env, 0);
}

static void expect_set(cl_uint index, size_t size, const void *value, cl_int expected, const char *what) {
  cl_int got = clSetKernelArg(fx.kernel, index, size, value);
  if (got != expected) fail_msg("%s: %d, expected %d", what, got, expected);
}

/* Every refusal clSetKernelArg names for images and samplers; the arguments keep their
 * values, which the run afterwards checks. */
static void test_set_errors(void **state) {
  struct kiln_test_env *env = *state;
  set_all(fx.edge);
  cl_int err;
  const cl_mem none = NULL;
  cl_mem released = make(env, 0, &rgba8, CL_MEM_OBJECT_IMAGE2D, 5, 3, 1);
  assert_cl_success(clReleaseMemObject(released));
  cl_context other = clCreateContext(NULL, 1, &env->device, NULL, NULL, &err);
  assert_cl_success(err);
  size_t extent[3] = {5, 3, 1};
  cl_mem foreign = image_create(other, CL_MEM_READ_ONLY, &rgba8, CL_MEM_OBJECT_IMAGE2D, extent, NULL);
  const cl_image_format r32f = {CL_R, CL_FLOAT};
  cl_mem not_depth = make(env, CL_MEM_READ_ONLY, &r32f, CL_MEM_OBJECT_IMAGE2D, 5, 3, 1);
  cl_mem read_only = make(env, CL_MEM_READ_ONLY, &rgba8, CL_MEM_OBJECT_IMAGE2D, 5, 3, 1);
  cl_mem write_only = make(env, CL_MEM_WRITE_ONLY, &rgba8, CL_MEM_OBJECT_IMAGE2D, 5, 3, 1);

  expect_set(0, sizeof(cl_mem) - 1, &fx.images[0], CL_INVALID_ARG_SIZE, "image, short size");
  expect_set(0, sizeof(cl_mem), NULL, CL_INVALID_MEM_OBJECT, "image, no value");
  expect_set(0, sizeof(cl_mem), &none, CL_INVALID_MEM_OBJECT, "image, NULL");
  expect_set(0, sizeof(cl_mem), &fx.buffer, CL_INVALID_MEM_OBJECT, "a buffer for an image");
  expect_set(0, sizeof(cl_mem), &released, CL_INVALID_MEM_OBJECT, "a released image");
  expect_set(0, sizeof(cl_mem), &foreign, CL_INVALID_MEM_OBJECT, "another context's image");
  expect_set(0, sizeof(cl_mem), &fx.images[7], CL_INVALID_MEM_OBJECT, "a 3D image for image2d_t");
  expect_set(7, sizeof(cl_mem), &fx.images[0], CL_INVALID_MEM_OBJECT, "a 2D image for image3d_t");
  expect_set(4, sizeof(cl_mem), &fx.images[8], CL_INVALID_MEM_OBJECT, "a 1D image for image1d_buffer_t");
  expect_set(8, sizeof(cl_mem), &fx.images[4], CL_INVALID_MEM_OBJECT, "a 1D image buffer for image1d_t");
  expect_set(9, sizeof(cl_mem), &fx.images[5], CL_INVALID_MEM_OBJECT, "a 2D array for image1d_array_t");
  expect_set(6, sizeof(cl_mem), &not_depth, CL_INVALID_MEM_OBJECT, "a CL_R image for image2d_depth_t");
  expect_set(0, sizeof(cl_mem), &write_only, CL_INVALID_ARG_VALUE, "a write-only image for read_only");
  expect_set(1, sizeof(cl_mem), &read_only, CL_INVALID_ARG_VALUE, "a read-only image for write_only");
  expect_set(ARGS - 1, sizeof(cl_mem), &fx.images[0], CL_INVALID_MEM_OBJECT, "an image for a global pointer");
  expect_set(3, sizeof(cl_sampler) + 1, &fx.border, CL_INVALID_ARG_SIZE, "sampler, long size");
  expect_set(3, sizeof(cl_sampler), NULL, CL_INVALID_SAMPLER, "sampler, no value");
  expect_set(3, sizeof(cl_sampler), &fx.buffer, CL_INVALID_SAMPLER, "a buffer for a sampler");
  cl_sampler gone = clCreateSampler(env->context, CL_TRUE, CL_ADDRESS_NONE, CL_FILTER_LINEAR, &err);
  assert_cl_success(err);
  assert_cl_success(clReleaseSampler(gone));
  expect_set(3, sizeof(cl_sampler), &gone, CL_INVALID_SAMPLER, "a released sampler");
  /* a read-write image suits every access; its access flags allow what they name */
  expect_set(0, sizeof(cl_mem), &fx.images[2], CL_SUCCESS, "a read-write image for read_only");
  expect_set(0, sizeof(cl_mem), &fx.images[0], CL_SUCCESS, "back");
  /* the refusals changed nothing: the kernel runs with the values set before */
  run_and_expect(env, 255);
  cl_mem all[] = {foreign, not_depth, read_only, write_only};
  for (int i = 0; i < 4; i++) assert_cl_success(clReleaseMemObject(all[i]));
  assert_cl_success(clReleaseContext(other));
}

/* The kernel does not hold its image arguments: one released after it was set fails the
 * enqueue (CL_INVALID_KERNEL_ARGS), and setting a live one again lets it run. */
static void test_released_image_fails_the_enqueue(void **state) {
  struct kiln_test_env *env = *state;
  set_all(fx.edge);
  assert_cl_success(clReleaseMemObject(fx.images[9]));
  const size_t one = 1;
  assert_int_equal(clEnqueueNDRangeKernel(env->queue, fx.kernel, 1, NULL, &one, NULL, 0, NULL, NULL),
                   CL_INVALID_KERNEL_ARGS);
  fx.images[9] = make(env, 0, &rgba8, CL_MEM_OBJECT_IMAGE1D_ARRAY, 3, 15, 1);
  assert_cl_success(clSetKernelArg(fx.kernel, 9, sizeof(cl_mem), &fx.images[9]));
  run_and_expect(env, 255);
}

/* A kernel declaring `count` arguments of `type` (each used), and one output. */
static cl_kernel many_args_kernel(struct kiln_test_env *env, cl_program *program, const char *type, int count) {
  size_t cap = 256 + (size_t)count * 64;
  char *src = malloc(cap);
  size_t n = (size_t)snprintf(src, cap, "kernel void many(global int *out");
  for (int i = 0; i < count; i++) n += (size_t)snprintf(src + n, cap - n, ", %s a%d", type, i);
  n += (size_t)snprintf(src + n, cap - n, ") {\n  int sum = 0;\n");
  for (int i = 0; i < count; i++)
    n += (size_t)snprintf(src + n, cap - n, "  sum += %s;\n",
                          strcmp(type, "sampler_t") == 0 ? "1" : "get_image_width(a0)");
  snprintf(src + n, cap - n, "  out[0] = sum;\n}\n");
  cl_int err;
  const char *text = src;
  *program = clCreateProgramWithSource(env->context, 1, &text, NULL, &err);
  assert_cl_success(err);
  assert_cl_success(clBuildProgram(*program, 1, &env->device, "-cl-std=CL3.0", NULL, NULL));
  free(src);
  cl_kernel kernel = clCreateKernel(*program, "many", &err);
  assert_cl_success(err);
  return kernel;
}

/* CL_DEVICE_MAX_SAMPLERS, _MAX_READ_IMAGE_ARGS and _MAX_READ_WRITE_IMAGE_ARGS: a kernel
 * within them runs, one beyond fails its enqueue with CL_OUT_OF_RESOURCES. */
static void test_argument_limits(void **state) {
  struct kiln_test_env *env = *state;
  cl_uint max_samplers = 0, max_read = 0, max_write = 0;
  assert_cl_success(clGetDeviceInfo(env->device, CL_DEVICE_MAX_SAMPLERS, sizeof max_samplers, &max_samplers, NULL));
  assert_cl_success(clGetDeviceInfo(env->device, CL_DEVICE_MAX_READ_IMAGE_ARGS, sizeof max_read, &max_read, NULL));
  assert_cl_success(
      clGetDeviceInfo(env->device, CL_DEVICE_MAX_READ_WRITE_IMAGE_ARGS, sizeof max_write, &max_write, NULL));
  const struct {
    const char *type;
    cl_uint limit;
    cl_mem image;
  } kinds[] = {{"sampler_t", max_samplers, NULL},
               {"read_only image2d_t", max_read, fx.images[0]},
               {"write_only image2d_t", max_write, fx.images[1]}};
  const size_t one = 1;
  for (int k = 0; k < 3; k++) {
    for (cl_uint extra = 0; extra < 2; extra++) {
      cl_program program;
      cl_kernel kernel = many_args_kernel(env, &program, kinds[k].type, (int)(kinds[k].limit + extra));
      assert_cl_success(clSetKernelArg(kernel, 0, sizeof fx.out, &fx.out));
      for (cl_uint i = 1; i <= kinds[k].limit + extra; i++) {
        if (kinds[k].image)
          assert_cl_success(clSetKernelArg(kernel, i, sizeof(cl_mem), &kinds[k].image));
        else
          assert_cl_success(clSetKernelArg(kernel, i, sizeof fx.edge, &fx.edge));
      }
      cl_int err = clEnqueueNDRangeKernel(env->queue, kernel, 1, NULL, &one, NULL, 0, NULL, NULL);
      if (err != (extra ? CL_OUT_OF_RESOURCES : CL_SUCCESS))
        fail_msg("%u arguments of %s: %d", kinds[k].limit + extra, kinds[k].type, err);
      assert_cl_success(clFinish(env->queue));
      assert_cl_success(clReleaseKernel(kernel));
      assert_cl_success(clReleaseProgram(program));
    }
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_arguments_reach_the_kernel),
      cmocka_unit_test(test_set_errors),
      cmocka_unit_test(test_released_image_fails_the_enqueue),
      cmocka_unit_test(test_argument_limits),
  };
  return cmocka_run_group_tests(tests, setup, teardown);
}
