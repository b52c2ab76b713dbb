/* SPIR-V kernels through the loader (docs/spirv.md): every kernel of tests/spirv/kernels.cl
 * (arithmetic, math builtins in float and double, barriers and local memory, atomics,
 * vectors, structs, generic pointers) and of features.cl (work-group and sub-group
 * functions, half, async copies and events, pipes, device-side enqueue, images of every
 * kind with literal and argument samplers, 64-bit atomics) gives the same results from the
 * SPIR-V clang-15 and llvm-spirv-15 make of it as from source, and the host's. What
 * llvm-spirv-15 cannot read runs once rewritten (a shuffle of vectors of two lengths,
 * composites constructed from values, OpSizeOf, SubgroupDispatch's queries). */
#include "spirv_test_modules.h"

#include <CL/cl_ext.h>
#include <math.h>

#define N 64

/* ---- kernels: IL against source ---- */

struct run {
  cl_mem buffers[4];
  size_t sizes[4];
  unsigned count;
};

/* Runs kernel `name` of `program` over N work-items in groups of `local`, with arguments
 * made by `args` (it sets every one), and returns buffer `out_index`'s bytes. */
typedef void (*set_args_fn)(struct kiln_test_env *env, cl_kernel kernel, struct run *run);

static void *run_kernel(struct kiln_test_env *env, cl_program program, const char *name, size_t local, set_args_fn args,
                        unsigned out_index) {
  cl_int err;
  cl_kernel kernel = clCreateKernel(program, name, &err);
  assert_cl_success(err);
  struct run run = {0};
  args(env, kernel, &run);
  size_t global = N;
  assert_cl_success(clEnqueueNDRangeKernel(env->queue, kernel, 1, NULL, &global, &local, 0, NULL, NULL));
  void *out = malloc(run.sizes[out_index]);
  assert_cl_success(
      clEnqueueReadBuffer(env->queue, run.buffers[out_index], CL_TRUE, 0, run.sizes[out_index], out, 0, NULL, NULL));
  for (unsigned i = 0; i < run.count; i++) assert_cl_success(clReleaseMemObject(run.buffers[i]));
  assert_cl_success(clReleaseKernel(kernel));
  return out;
}

static void add_buffer(struct kiln_test_env *env, cl_kernel kernel, struct run *run, cl_uint index, const void *data,
                       size_t size) {
  run->buffers[run->count] = make_buffer(env, data, size);
  run->sizes[run->count] = size;
  assert_cl_success(clSetKernelArg(kernel, index, sizeof(cl_mem), &run->buffers[run->count]));
  run->count++;
}

static cl_int ints_a[N], ints_b[N];
static float floats[4 * N];
static double doubles_in[N];

static void fill_inputs(void) {
  cl_uint seed = 42;
  kiln_test_random_ints(&seed, ints_a, N, 100000);
  kiln_test_random_ints(&seed, ints_b, N, 300);
  for (int i = 0; i < 4 * N; i++) floats[i] = (float)(kiln_test_random(&seed) % 20000) / 1000.0f - 10.0f;
  for (int i = 0; i < N; i++) doubles_in[i] = floats[i] * 0.37;
}

static void args_arithmetic(struct kiln_test_env *env, cl_kernel k, struct run *r) {
  add_buffer(env, k, r, 0, ints_a, sizeof ints_a);
  add_buffer(env, k, r, 1, ints_b, sizeof ints_b);
  add_buffer(env, k, r, 2, NULL, 4 * N * sizeof(cl_int));
}
static void args_math(struct kiln_test_env *env, cl_kernel k, struct run *r) {
  add_buffer(env, k, r, 0, floats, N * sizeof(float));
  add_buffer(env, k, r, 1, NULL, 8 * N * sizeof(float));
}
static void args_doubles(struct kiln_test_env *env, cl_kernel k, struct run *r) {
  add_buffer(env, k, r, 0, doubles_in, sizeof doubles_in);
  add_buffer(env, k, r, 1, NULL, sizeof doubles_in);
}
static void args_reduce(struct kiln_test_env *env, cl_kernel k, struct run *r) {
  add_buffer(env, k, r, 0, ints_a, sizeof ints_a);
  add_buffer(env, k, r, 1, NULL, N / 16 * sizeof(cl_int));
  assert_cl_success(clSetKernelArg(k, 2, 16 * sizeof(cl_int), NULL));
}
static void args_atomics(struct kiln_test_env *env, cl_kernel k, struct run *r) {
  add_buffer(env, k, r, 0, NULL, 5 * sizeof(cl_int));
  add_buffer(env, k, r, 1, ints_b, sizeof ints_b);
}
static void args_vectors(struct kiln_test_env *env, cl_kernel k, struct run *r) {
  add_buffer(env, k, r, 0, floats, sizeof floats);
  add_buffer(env, k, r, 1, NULL, sizeof floats);
  add_buffer(env, k, r, 2, NULL, 4 * N * sizeof(cl_int));
  add_buffer(env, k, r, 3, NULL, 3 * N * sizeof(float));
}

typedef struct {
  cl_int count;
  cl_float scale;
  cl_long offset;
} params;

static void args_structs(struct kiln_test_env *env, cl_kernel k, struct run *r) {
  params p[N];
  for (int i = 0; i < N; i++) p[i] = (params){i, floats[i], 1000 * i};
  add_buffer(env, k, r, 0, p, sizeof p);
  params by_value = {7, 0.5f, -3};
  assert_cl_success(clSetKernelArg(k, 1, sizeof by_value, &by_value));
  add_buffer(env, k, r, 2, NULL, N * sizeof(float));
}
static void args_generic(struct kiln_test_env *env, cl_kernel k, struct run *r) {
  add_buffer(env, k, r, 0, ints_b, sizeof ints_b);
  add_buffer(env, k, r, 1, NULL, sizeof ints_b);
}

static void expect_close_floats(const float *a, const float *b, size_t count) {
  for (size_t i = 0; i < count; i++)
    if (!(fabsf(a[i] - b[i]) <= 1e-5f * fmaxf(1.0f, fabsf(a[i]))))
      fail_msg("element %zu: IL %.9g, source %.9g", i, a[i], b[i]);
}

static void test_kernels_match_source(void **state) {
  struct kiln_test_env *env = *state;
  fill_inputs();
  cl_program il = il_program(env, "kernels"), source = source_program(env, "kernels.cl");
  build(env, il, "");
  build(env, source, "-cl-std=CL2.0");
  static const struct {
    const char *name;
    set_args_fn args;
    unsigned out;
    size_t local;
    bool floats;
  } cases[] = {
      {"arithmetic", args_arithmetic, 2, 8, false},
      {"math", args_math, 1, 8, true},
      {"doubles", args_doubles, 1, 8, false},
      {"reduce_local", args_reduce, 1, 16, false},
      {"atomics", args_atomics, 0, 16, false},
      {"vectors", args_vectors, 1, 8, true},
      {"vectors", args_vectors, 2, 8, false},
      {"vectors", args_vectors, 3, 8, true},
      {"structs", args_structs, 1, 8, true},
      {"structs", args_structs, 0, 8, false},
      {"generic_pointers", args_generic, 1, 16, false},
  };
  for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
    struct run probe = {0};
    cl_int err;
    cl_kernel k = clCreateKernel(il, cases[c].name, &err);
    assert_cl_success(err);
    cases[c].args(env, k, &probe);
    size_t bytes = probe.sizes[cases[c].out];
    for (unsigned i = 0; i < probe.count; i++) clReleaseMemObject(probe.buffers[i]);
    clReleaseKernel(k);
    void *from_il = run_kernel(env, il, cases[c].name, cases[c].local, cases[c].args, cases[c].out);
    void *from_source = run_kernel(env, source, cases[c].name, cases[c].local, cases[c].args, cases[c].out);
    if (cases[c].floats)
      expect_close_floats(from_il, from_source, bytes / sizeof(float));
    else if (strcmp(cases[c].name, "doubles") == 0)
      for (size_t i = 0; i < N; i++)
        assert_true(fabs(((double *)from_il)[i] - ((double *)from_source)[i]) <=
                    1e-12 * fmax(1, fabs(((double *)from_il)[i])));
    else if (memcmp(from_il, from_source, bytes) != 0)
      fail_msg("kernel %s: IL and source results differ", cases[c].name);

    /* And both against the host, for a few. */
    if (strcmp(cases[c].name, "arithmetic") == 0)
      for (int i = 0; i < N; i++) {
        const cl_int *o = from_il;
        int x = ints_a[i], y = ints_b[i];
        assert_int_equal(x * y - (x >> 3) + (y ^ 0x55), o[4 * i]);
        assert_int_equal(y != 0 ? x / y : 0, o[4 * i + 1]);
      }
    if (strcmp(cases[c].name, "math") == 0)
      for (int i = 0; i < N; i++) {
        const float *o = from_il;
        assert_true(fabsf(o[8 * i] - sinf(floats[i])) < 1e-5f);
        assert_true(fabsf(o[8 * i + 7] - fmaf(floats[i], floats[i], 1.0f)) <= 1e-6f * fabsf(o[8 * i + 7]));
      }
    if (strcmp(cases[c].name, "reduce_local") == 0)
      for (int g = 0; g < N / 16; g++) {
        cl_int sum = 0;
        for (int i = 0; i < 16; i++) sum += ints_a[16 * g + i];
        assert_int_equal(sum, ((cl_int *)from_il)[g]);
      }
    if (strcmp(cases[c].name, "atomics") == 0) {
      cl_int sum = 0, max = ints_b[0];
      for (int i = 0; i < N; i++) sum += ints_b[i], max = ints_b[i] > max ? ints_b[i] : max;
      const cl_int *o = from_il;
      assert_int_equal(sum, o[0]);
      assert_int_equal(max, o[1]);
      assert_int_equal(N, o[2]);
      assert_int_equal(N, o[3]);
      assert_int_equal(sum, o[4]);
    }
    if (strcmp(cases[c].name, "generic_pointers") == 0)
      for (int i = 0; i < N; i++) {
        int l = i % 16, j = l + 3 <= 16 ? l : 0, base = i - l + j;
        int s = ints_b[base] + ints_b[base + 1] + ints_b[base + 2];
        assert_int_equal(s * 1000 + 2 * s, ((cl_int *)from_il)[i]);
      }
    free(from_il);
    free(from_source);
  }
  assert_cl_success(clReleaseProgram(il));
  assert_cl_success(clReleaseProgram(source));
}

/* ---- OpenCL C 2.0 features: groups, half, events, pipes, device enqueue, images ---- */

/* Runs every feature kernel of `program`; fills *results (laid out as below). */
struct feature_results {
  cl_int groups[4 * N];
  cl_ushort halves[N];
  float half_floats[N];
  cl_int copies[N];
  cl_int piped[N];
  cl_int enqueued[4];
  float image[8 * 4 * 4];
  cl_int image_size[2];
  cl_long counters[2];
  float rw[8 * 4];
  float more[8 * 4];
  float out_line[8 * 4];
  float out_buffer_image[8 * 4];
};

static void run_features(struct kiln_test_env *env, cl_program program, struct feature_results *r) {
  cl_mem in = make_buffer(env, ints_b, sizeof ints_b), out = make_buffer(env, NULL, sizeof r->groups);
  cl_kernel k = kernel_of(program, "groups");
  assert_cl_success(clSetKernelArg(k, 0, sizeof in, &in));
  assert_cl_success(clSetKernelArg(k, 1, sizeof out, &out));
  run_1d(env, k, N, 16);
  read_back(env, out, r->groups, sizeof r->groups);
  clReleaseKernel(k);

  cl_ushort halves_in[N];
  for (int i = 0; i < N; i++) halves_in[i] = (cl_ushort)(0x3c00 + 37 * i); /* 1.0 and up */
  cl_mem hin = make_buffer(env, halves_in, sizeof halves_in), hout = make_buffer(env, NULL, sizeof r->halves),
         fout = make_buffer(env, NULL, sizeof r->half_floats);
  k = kernel_of(program, "halves");
  assert_cl_success(clSetKernelArg(k, 0, sizeof hin, &hin));
  assert_cl_success(clSetKernelArg(k, 1, sizeof hout, &hout));
  assert_cl_success(clSetKernelArg(k, 2, sizeof fout, &fout));
  run_1d(env, k, N, 0);
  read_back(env, hout, r->halves, sizeof r->halves);
  read_back(env, fout, r->half_floats, sizeof r->half_floats);
  clReleaseKernel(k);

  k = kernel_of(program, "copies");
  assert_cl_success(clSetKernelArg(k, 0, sizeof in, &in));
  assert_cl_success(clSetKernelArg(k, 1, sizeof out, &out));
  run_1d(env, k, N, 16);
  read_back(env, out, r->copies, sizeof r->copies);
  clReleaseKernel(k);

  cl_int err;
  cl_mem pipe = clCreatePipe(env->context, 0, sizeof(cl_int), N, NULL, &err);
  assert_cl_success(err);
  k = kernel_of(program, "producer");
  assert_cl_success(clSetKernelArg(k, 0, sizeof pipe, &pipe));
  assert_cl_success(clSetKernelArg(k, 1, sizeof in, &in));
  run_1d(env, k, N, 0);
  clReleaseKernel(k);
  k = kernel_of(program, "consumer");
  assert_cl_success(clSetKernelArg(k, 0, sizeof pipe, &pipe));
  assert_cl_success(clSetKernelArg(k, 1, sizeof out, &out));
  run_1d(env, k, N, 0);
  read_back(env, out, r->piped, sizeof r->piped);
  clReleaseKernel(k);
  clReleaseMemObject(pipe);

  cl_queue_properties device_queue[] = {
      CL_QUEUE_PROPERTIES, CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE | CL_QUEUE_ON_DEVICE | CL_QUEUE_ON_DEVICE_DEFAULT, 0};
  cl_command_queue on_device = clCreateCommandQueueWithProperties(env->context, env->device, device_queue, &err);
  assert_cl_success(err);
  cl_mem enqueued = make_buffer(env, NULL, sizeof r->enqueued);
  k = kernel_of(program, "parent");
  assert_cl_success(clSetKernelArg(k, 0, sizeof enqueued, &enqueued));
  run_1d(env, k, 1, 0);
  read_back(env, enqueued, r->enqueued, sizeof r->enqueued);
  clReleaseKernel(k);
  clReleaseMemObject(enqueued);
  clReleaseCommandQueue(on_device);

  cl_image_format format = {CL_RGBA, CL_FLOAT};
  cl_image_desc desc = {.image_type = CL_MEM_OBJECT_IMAGE2D, .image_width = 8, .image_height = 4};
  float pixels[8 * 4 * 4];
  for (int i = 0; i < 8 * 4 * 4; i++) pixels[i] = (float)i;
  cl_mem src = clCreateImage(env->context, CL_MEM_COPY_HOST_PTR, &format, &desc, pixels, &err);
  assert_cl_success(err);
  cl_mem dst = clCreateImage(env->context, 0, &format, &desc, NULL, &err);
  assert_cl_success(err);
  cl_sampler_properties sampler_properties[] = {CL_SAMPLER_NORMALIZED_COORDS, CL_FALSE, CL_SAMPLER_FILTER_MODE,
                                                CL_FILTER_NEAREST, 0};
  cl_sampler sampler = clCreateSamplerWithProperties(env->context, sampler_properties, &err);
  assert_cl_success(err);
  cl_mem size = make_buffer(env, NULL, sizeof r->image_size);
  k = kernel_of(program, "images");
  assert_cl_success(clSetKernelArg(k, 0, sizeof src, &src));
  assert_cl_success(clSetKernelArg(k, 1, sizeof dst, &dst));
  assert_cl_success(clSetKernelArg(k, 2, sizeof sampler, &sampler));
  assert_cl_success(clSetKernelArg(k, 3, sizeof size, &size));
  size_t global[2] = {8, 4}, origin[3] = {0}, region[3] = {8, 4, 1};
  assert_cl_success(clEnqueueNDRangeKernel(env->queue, k, 2, NULL, global, NULL, 0, NULL, NULL));
  assert_cl_success(clEnqueueReadImage(env->queue, dst, CL_TRUE, origin, region, 0, 0, r->image, 0, NULL, NULL));
  read_back(env, size, r->image_size, sizeof r->image_size);
  clReleaseKernel(k);

  /* 64-bit atomics, a read-write image, a 1D buffer image and a 1D image. */
  cl_mem counters = make_buffer(env, NULL, sizeof r->counters), more_out = make_buffer(env, NULL, sizeof r->more);
  cl_image_desc rw_desc = {.image_type = CL_MEM_OBJECT_IMAGE2D, .image_width = 8, .image_height = 1};
  cl_mem rw = clCreateImage(env->context, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, &format, &rw_desc, pixels, &err);
  assert_cl_success(err);
  cl_mem backing = make_buffer(env, pixels + 32, 8 * 4 * sizeof(float));
  cl_image_desc buffer_desc = {.image_type = CL_MEM_OBJECT_IMAGE1D_BUFFER, .image_width = 8, .buffer = backing};
  cl_mem buffer_image = clCreateImage(env->context, CL_MEM_READ_ONLY, &format, &buffer_desc, NULL, &err);
  assert_cl_success(err);
  cl_image_desc line_desc = {.image_type = CL_MEM_OBJECT_IMAGE1D, .image_width = 8};
  cl_mem line =
      clCreateImage(env->context, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, &format, &line_desc, pixels + 64, &err);
  assert_cl_success(err);
  cl_mem out_line = clCreateImage(env->context, CL_MEM_WRITE_ONLY, &format, &line_desc, NULL, &err);
  assert_cl_success(err);
  cl_mem out_backing = make_buffer(env, NULL, sizeof r->out_buffer_image);
  buffer_desc.buffer = out_backing;
  cl_mem out_buffer_image = clCreateImage(env->context, CL_MEM_WRITE_ONLY, &format, &buffer_desc, NULL, &err);
  assert_cl_success(err);
  k = kernel_of(program, "more");
  assert_cl_success(clSetKernelArg(k, 5, sizeof out_line, &out_line));
  assert_cl_success(clSetKernelArg(k, 6, sizeof out_buffer_image, &out_buffer_image));
  assert_cl_success(clSetKernelArg(k, 0, sizeof counters, &counters));
  assert_cl_success(clSetKernelArg(k, 1, sizeof rw, &rw));
  assert_cl_success(clSetKernelArg(k, 2, sizeof buffer_image, &buffer_image));
  assert_cl_success(clSetKernelArg(k, 3, sizeof line, &line));
  assert_cl_success(clSetKernelArg(k, 4, sizeof more_out, &more_out));
  run_1d(env, k, 8, 0);
  size_t rw_region[3] = {8, 1, 1};
  assert_cl_success(clEnqueueReadImage(env->queue, rw, CL_TRUE, origin, rw_region, 0, 0, r->rw, 0, NULL, NULL));
  read_back(env, counters, r->counters, sizeof r->counters);
  read_back(env, more_out, r->more, sizeof r->more);
  assert_cl_success(
      clEnqueueReadImage(env->queue, out_line, CL_TRUE, origin, rw_region, 0, 0, r->out_line, 0, NULL, NULL));
  read_back(env, out_backing, r->out_buffer_image, sizeof r->out_buffer_image);
  clReleaseMemObject(out_line);
  clReleaseMemObject(out_buffer_image);
  clReleaseMemObject(out_backing);
  clReleaseKernel(k);
  clReleaseMemObject(counters);
  clReleaseMemObject(more_out);
  clReleaseMemObject(rw);
  clReleaseMemObject(buffer_image);
  clReleaseMemObject(backing);
  clReleaseMemObject(line);
  clReleaseSampler(sampler);
  clReleaseMemObject(src);
  clReleaseMemObject(dst);
  clReleaseMemObject(size);
  clReleaseMemObject(hin);
  clReleaseMemObject(hout);
  clReleaseMemObject(fout);
  clReleaseMemObject(in);
  clReleaseMemObject(out);
}

static int compare_ints(const void *a, const void *b) { return *(const cl_int *)a - *(const cl_int *)b; }

static void test_features_match_source(void **state) {
  struct kiln_test_env *env = *state;
  fill_inputs();
  cl_program il = il_program(env, "features"), source = source_program(env, "features.cl");
  build(env, il, "");
  build(env, source, "-cl-std=CL3.0");
  struct feature_results *from_il = calloc(1, sizeof *from_il), *from_source = calloc(1, sizeof *from_source);
  run_features(env, il, from_il);
  run_features(env, source, from_source);
  assert_memory_equal(from_source, from_il, sizeof *from_il);

  for (int g = 0; g < N / 16; g++) {
    cl_int sum = 0, scan = 0;
    for (int l = 0; l < 16; l++) sum += ints_b[16 * g + l];
    for (int l = 0; l < 16; l++) {
      int i = 16 * g + l;
      scan += ints_b[i];
      assert_int_equal(sum, from_il->groups[4 * i]);
      assert_int_equal(ints_b[16 * g + 3], from_il->groups[4 * i + 1]);
      assert_int_equal(scan, from_il->groups[4 * i + 3]);
      assert_int_equal(ints_b[15 - l + 16 * g], from_il->copies[i]);
    }
  }
  assert_int_equal(0x4000 + 2 * 37 * 0 + 0x0200, from_il->halves[0]); /* 1.0 * 2 + 1 = 3.0 = 0x4200 */
  assert_true(fabsf(from_il->half_floats[0] - 2.0f) == 0.0f);
  cl_int sorted_in[N];
  memcpy(sorted_in, ints_b, sizeof sorted_in);
  qsort(sorted_in, N, sizeof(cl_int), compare_ints);
  qsort(from_il->piped, N, sizeof(cl_int), compare_ints);
  assert_memory_equal(sorted_in, from_il->piped, sizeof sorted_in);
  for (int i = 0; i < 4; i++) assert_int_equal(7 + i, from_il->enqueued[i]);
  for (int i = 0; i < 8 * 4 * 4; i++) assert_true(from_il->image[i] == 2.0f * (float)i);
  assert_int_equal(8, from_il->image_size[0]);
  assert_int_equal(4, from_il->image_size[1]);
  assert_int_equal((cl_long)(0 + 1 + 2 + 3 + 4 + 5 + 6 + 7) << 33, from_il->counters[0]);
  assert_int_equal(8, from_il->counters[1]);
  for (int i = 0; i < 8 * 4; i++) {
    assert_true(from_il->rw[i] == 3.0f * (float)i);
    assert_true(from_il->more[i] == (float)(32 + i) + (float)(64 + i));
    assert_true(from_il->out_line[i] == from_il->more[i] + 1.0f);
    assert_true(from_il->out_buffer_image[i] == from_il->more[i] + 2.0f);
  }
  free(from_il);
  free(from_source);
  assert_cl_success(clReleaseProgram(il));
  assert_cl_success(clReleaseProgram(source));
}

/* ---- what the translator cannot read, rewritten (spirv_workarounds.c) ---- */

/* Builds `module`, runs its kernel "k" (one buffer argument) once and reads that buffer
 * into `out`; returns the program, and the kernel in *kernel (the caller releases both). */
static cl_program run_single_output(struct kiln_test_env *env, const char *module, void *out, size_t size,
                                    cl_kernel *kernel) {
  cl_program program = il_program(env, module);
  build(env, program, "");
  *kernel = kernel_of(program, "k");
  cl_mem buffer = make_buffer(env, NULL, size);
  assert_cl_success(clSetKernelArg(*kernel, 0, sizeof buffer, &buffer));
  run_1d(env, *kernel, 1, 0);
  read_back(env, buffer, out, size);
  clReleaseMemObject(buffer);
  return program;
}

static void test_translator_workarounds(void **state) {
  struct kiln_test_env *env = *state;
  cl_program program = il_program(env, "composites");
  build(env, program, "");
  cl_kernel kernel = kernel_of(program, "k");
  cl_mem out = make_buffer(env, NULL, 8 * sizeof(cl_uint)), pairs = make_buffer(env, NULL, 2 * sizeof(cl_uint));
  cl_uint x = 5;
  assert_cl_success(clSetKernelArg(kernel, 0, sizeof out, &out));
  assert_cl_success(clSetKernelArg(kernel, 1, sizeof pairs, &pairs));
  assert_cl_success(clSetKernelArg(kernel, 2, sizeof x, &x));
  run_1d(env, kernel, 1, 0);
  cl_uint vectors[8], pair[2];
  read_back(env, out, vectors, sizeof vectors);
  read_back(env, pairs, pair, sizeof pair);
  const cl_uint want_vectors[8] = {5, 5, 3, 3, 5, 3, 3, 6}, want_pair[2] = {5, 7};
  assert_memory_equal(want_vectors, vectors, sizeof vectors);
  assert_memory_equal(want_pair, pair, sizeof pair);
  clReleaseMemObject(out);
  clReleaseMemObject(pairs);
  clReleaseKernel(kernel);
  assert_cl_success(clReleaseProgram(program));

  /* SubgroupDispatch: the queries, and the execution mode as the kernel's query answers. */
  cl_uint dispatch[3];
  program = run_single_output(env, "sub_group_dispatch", dispatch, sizeof dispatch, &kernel);
  size_t max_work_group = 0, compile_num = 0, required_size = 0;
  assert_cl_success(
      clGetDeviceInfo(env->device, CL_DEVICE_MAX_WORK_GROUP_SIZE, sizeof max_work_group, &max_work_group, NULL));
  assert_int_equal(max_work_group, dispatch[0]);
  assert_int_equal(4, dispatch[1]);
  assert_int_equal(0, dispatch[2]);
  assert_cl_success(clGetKernelSubGroupInfo(kernel, env->device, CL_KERNEL_COMPILE_NUM_SUB_GROUPS, 0, NULL,
                                            sizeof compile_num, &compile_num, NULL));
  assert_int_equal(4, compile_num);
  assert_cl_success(clGetKernelSubGroupInfo(kernel, env->device, CL_KERNEL_COMPILE_SUB_GROUP_SIZE_INTEL, 0, NULL,
                                            sizeof required_size, &required_size, NULL));
  assert_int_equal(1, required_size);
  clReleaseKernel(kernel);
  assert_cl_success(clReleaseProgram(program));

  cl_uint sizes[6];
  program = run_single_output(env, "sizes", sizes, sizeof sizes, &kernel);
  const cl_uint want_sizes[6] = {4, 16, 64, 5, 10, 8};
  assert_memory_equal(want_sizes, sizes, sizeof sizes);
  clReleaseKernel(kernel);
  assert_cl_success(clReleaseProgram(program));
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_kernels_match_source),
      cmocka_unit_test(test_features_match_source),
      cmocka_unit_test(test_translator_workarounds),
  };
  return cmocka_run_group_tests(tests, kiln_test_env_setup, kiln_test_env_teardown);
}
