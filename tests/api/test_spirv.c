/* SPIR-V programs through the loader (docs/spirv.md). The modules are made at build time
 * by Debian's tools (tests/CMakeLists.txt): tests/spirv/kernels.cl by clang-15 and
 * llvm-spirv-15, hand-written assembly by spirv-as. Covered: the device's IL queries and
 * cl_khr_il_program; clCreateProgramWithIL's errors (malformed, truncated, wrong version or
 * addressing) and a byte-swapped module; CL_PROGRAM_IL; every kernel of kernels.cl
 * (arithmetic, math builtins in float and double, barriers and local memory, atomics,
 * vectors, structs, generic pointers) and of features.cl (work-group and sub-group
 * functions, half, async copies and events, pipes, device-side enqueue, images with
 * literal and argument samplers) gives the same results from IL as from source;
 * specialization constants of every type, their defaults, rebuilds and errors; argument
 * info from OpName; clCompileProgram of IL linked with a source object; program binaries
 * of IL builds; build failures with a log (unsupported capability, constructors, a module
 * that fails validation); what llvm-spirv-15 cannot read, rewritten (a shuffle of vectors
 * of two lengths, composites constructed from values, OpSizeOf); the compiled-code cache keyed by module and constants.
 * `--crashing-translator` (KILN_LLVM_SPIRV = a script that dies of SIGSEGV): builds and
 * compiles fail with the signal in the log, and the process goes on.
 * `--no-translator` (run with KILN_LLVM_SPIRV set empty): no IL reported, and the IL entry
 * points refuse as the spec says. */
#include "kiln_test.h"

#include <CL/cl_ext.h>
#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define N 64

static void *read_whole_file(const char *path, size_t *size) {
  FILE *f = fopen(path, "rb");
  if (!f) fail_msg("cannot open %s", path);
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  rewind(f);
  char *bytes = malloc((size_t)n + 1);
  assert_non_null(bytes);
  assert_int_equal((size_t)n, fread(bytes, 1, (size_t)n, f));
  bytes[n] = '\0';
  fclose(f);
  *size = (size_t)n;
  return bytes;
}

/* A module of tests/spirv as built into the build tree. */
static void *module_bytes(const char *name, size_t *size) {
  char path[1024];
  snprintf(path, sizeof path, "%s/%s.spv", KILN_SPIRV_MODULE_DIR, name);
  return read_whole_file(path, size);
}

static cl_program il_program(struct kiln_test_env *env, const char *name) {
  size_t size;
  void *il = module_bytes(name, &size);
  cl_int err;
  cl_program program = clCreateProgramWithIL(env->context, il, size, &err);
  assert_cl_success(err);
  free(il);
  return program;
}

static cl_program source_program(struct kiln_test_env *env, const char *file) {
  char path[1024];
  size_t size;
  snprintf(path, sizeof path, "%s/%s", KILN_SPIRV_SOURCE_DIR, file);
  char *source = read_whole_file(path, &size);
  cl_int err;
  cl_program program = clCreateProgramWithSource(env->context, 1, (const char **)&source, NULL, &err);
  assert_cl_success(err);
  free(source);
  return program;
}

static void build(struct kiln_test_env *env, cl_program program, const char *options) {
  cl_int err = clBuildProgram(program, 1, &env->device, options, NULL, NULL);
  if (err != CL_SUCCESS) {
    char log[8192] = "";
    clGetProgramBuildInfo(program, env->device, CL_PROGRAM_BUILD_LOG, sizeof log, log, NULL);
    fail_msg("build failed (%d): %s", err, log);
  }
}

static char *build_log(struct kiln_test_env *env, cl_program program) {
  size_t size = 0;
  assert_cl_success(clGetProgramBuildInfo(program, env->device, CL_PROGRAM_BUILD_LOG, 0, NULL, &size));
  char *log = malloc(size);
  assert_cl_success(clGetProgramBuildInfo(program, env->device, CL_PROGRAM_BUILD_LOG, size, log, NULL));
  return log;
}

/* ---- device ---- */

static void test_device_queries(void **state) {
  struct kiln_test_env *env = *state;
  char versions[256];
  assert_cl_success(clGetDeviceInfo(env->device, CL_DEVICE_IL_VERSION, sizeof versions, versions, NULL));
  assert_string_equal("SPIR-V_1.0 SPIR-V_1.1 SPIR-V_1.2 SPIR-V_1.3", versions);
  cl_name_version ils[8];
  size_t size;
  assert_cl_success(clGetDeviceInfo(env->device, CL_DEVICE_ILS_WITH_VERSION, sizeof ils, ils, &size));
  assert_int_equal(4 * sizeof ils[0], size);
  for (cl_uint i = 0; i < 4; i++) {
    assert_string_equal("SPIR-V", ils[i].name);
    assert_int_equal(CL_MAKE_VERSION(1, i, 0), ils[i].version);
  }
  kiln_test_expect_extension(env->device, "cl_khr_il_program", CL_MAKE_VERSION(1, 0, 0));
  kiln_test_expect_extension(env->device, "cl_khr_spirv_no_integer_wrap_decoration", CL_MAKE_VERSION(1, 0, 0));
  kiln_test_expect_extension(env->device, "cl_khr_spirv_linkonce_odr", CL_MAKE_VERSION(1, 0, 0));
  clCreateProgramWithILKHR_fn create = kiln_test_extension_function(env->platform, "clCreateProgramWithILKHR");
  size_t il_size;
  void *il = module_bytes("spec_constants", &il_size);
  cl_int err;
  cl_program program = create(env->context, il, il_size, &err);
  assert_cl_success(err);
  build(env, program, "");
  assert_cl_success(clReleaseProgram(program));
  free(il);
}

/* ---- creation ---- */

static cl_int create_status(struct kiln_test_env *env, const void *il, size_t size) {
  cl_int err = CL_SUCCESS;
  cl_program program = clCreateProgramWithIL(env->context, il, size, &err);
  if (program) {
    assert_cl_success(err);
    assert_cl_success(clReleaseProgram(program));
  } else {
    assert_int_not_equal(CL_SUCCESS, err);
  }
  return err;
}

/* The index of the first instruction with `opcode`. */
static size_t find_instruction(const uint32_t *words, size_t count, uint32_t opcode) {
  for (size_t at = 5; at < count; at += words[at] >> 16)
    if ((words[at] & 0xffff) == opcode) return at;
  fail_msg("no instruction %u", opcode);
  return 0;
}

static void test_create_errors(void **state) {
  struct kiln_test_env *env = *state;
  size_t size;
  uint32_t *words = module_bytes("spec_constants", &size);
  size_t count = size / 4;
  cl_int err;
  assert_null(clCreateProgramWithIL(env->context, NULL, size, &err));
  assert_int_equal(CL_INVALID_VALUE, err);
  assert_null(clCreateProgramWithIL(env->context, words, 0, &err));
  assert_int_equal(CL_INVALID_VALUE, err);
  assert_null(clCreateProgramWithIL(NULL, words, size, &err));
  assert_int_equal(CL_INVALID_CONTEXT, err);
  struct kiln_test_fake_handle fake = kiln_test_fake_handle_like(env->context);
  assert_null(clCreateProgramWithIL((cl_context)&fake, words, size, &err));
  assert_int_equal(CL_INVALID_CONTEXT, err);

  assert_int_equal(CL_SUCCESS, create_status(env, words, size));
  size_t decorate = find_instruction(words, count, 71 /* OpDecorate */);
  assert_int_equal(CL_INVALID_VALUE, create_status(env, words, (decorate + 2) * 4)); /* cut inside an instruction */
  assert_int_equal(CL_INVALID_VALUE, create_status(env, words, size - 2));   /* not whole words */
  assert_int_equal(CL_INVALID_VALUE, create_status(env, words, 16));         /* a header alone, short */
  static const char text[] = "kernel void k(global int *p) { *p = 1; }";
  assert_int_equal(CL_INVALID_VALUE, create_status(env, text, sizeof text - 1)); /* source is no IL */

  uint32_t *copy = malloc(size);
  memcpy(copy, words, size);
  copy[0] ^= 1; /* magic */
  assert_int_equal(CL_INVALID_VALUE, create_status(env, copy, size));
  memcpy(copy, words, size);
  copy[1] = 0x00010400; /* SPIR-V 1.4: the translator does not read all of it (docs/spirv.md) */
  assert_int_equal(CL_INVALID_VALUE, create_status(env, copy, size));
  copy[1] = 0x00020000;
  assert_int_equal(CL_INVALID_VALUE, create_status(env, copy, size));
  memcpy(copy, words, size);
  copy[find_instruction(copy, count, 14 /* OpMemoryModel */) + 1] = 1; /* Physical32 on a 64-bit device */
  assert_int_equal(CL_INVALID_VALUE, create_status(env, copy, size));
  memcpy(copy, words, size);
  copy[decorate] = (copy[decorate] & 0xffff0000u) | 0x7ff0; /* an opcode SPIR-V does not have */
  assert_int_equal(CL_INVALID_VALUE, create_status(env, copy, size));
  memcpy(copy, words, size);
  copy[decorate] = (copy[decorate] & 0xffff) | (200u << 16); /* a word count past the end */
  assert_int_equal(CL_INVALID_VALUE, create_status(env, copy, size));
  /* Random words after a valid header. */
  cl_uint seed = 7;
  for (int round = 0; round < 50; round++) {
    memcpy(copy, words, size);
    for (size_t i = 5 + kiln_test_random(&seed) % (count - 5); i < count; i += 1 + kiln_test_random(&seed) % 7)
      copy[i] = kiln_test_random(&seed);
    cl_int status = create_status(env, copy, size);
    assert_true(status == CL_SUCCESS || status == CL_INVALID_VALUE);
  }

  /* The other byte order is SPIR-V too, and builds and runs. */
  for (size_t i = 0; i < count; i++)
    copy[i] = __builtin_bswap32(words[i]);
  cl_program swapped = clCreateProgramWithIL(env->context, copy, size, &err);
  assert_cl_success(err);
  build(env, swapped, "");
  cl_kernel kernel = clCreateKernel(swapped, "spec_constants", &err);
  assert_cl_success(err);
  assert_cl_success(clReleaseKernel(kernel));
  assert_cl_success(clReleaseProgram(swapped));
  free(copy);
  free(words);
}

static void test_program_queries(void **state) {
  struct kiln_test_env *env = *state;
  size_t size, got;
  void *il = module_bytes("kernels", &size);
  cl_int err;
  cl_program program = clCreateProgramWithIL(env->context, il, size, &err);
  assert_cl_success(err);
  unsigned char *back = malloc(size);
  assert_cl_success(clGetProgramInfo(program, CL_PROGRAM_IL, size, back, &got));
  assert_int_equal(size, got);
  assert_memory_equal(il, back, size);
  assert_int_equal(CL_INVALID_VALUE, clGetProgramInfo(program, CL_PROGRAM_IL, size - 1, back, NULL));
  char source[4];
  assert_cl_success(clGetProgramInfo(program, CL_PROGRAM_SOURCE, sizeof source, source, &got));
  assert_int_equal(1, got);
  assert_string_equal("", source);
  build(env, program, "");
  char names[512];
  assert_cl_success(clGetProgramInfo(program, CL_PROGRAM_KERNEL_NAMES, sizeof names, names, NULL));
  for (const char *k = "arithmetic\0math\0doubles\0reduce_local\0atomics\0vectors\0structs\0generic_pointers\0"; *k;
       k += strlen(k) + 1)
    assert_non_null(strstr(names, k));
  cl_bool present = CL_TRUE;
  assert_cl_success(clGetProgramInfo(program, CL_PROGRAM_SCOPE_GLOBAL_CTORS_PRESENT, sizeof present, &present, NULL));
  assert_int_equal(CL_FALSE, present);
  assert_cl_success(clReleaseProgram(program));

  cl_program from_source = source_program(env, "linked.cl");
  assert_cl_success(clGetProgramInfo(from_source, CL_PROGRAM_IL, 0, NULL, &got));
  assert_int_equal(0, got);
  assert_cl_success(clReleaseProgram(from_source));
  free(back);
  free(il);
}

/* ---- kernels: IL against source ---- */

struct run {
  cl_mem buffers[4];
  size_t sizes[4];
  unsigned count;
};

static cl_mem make_buffer(struct kiln_test_env *env, const void *data, size_t size) {
  cl_int err;
  cl_mem buffer = clCreateBuffer(env->context, CL_MEM_READ_WRITE | (data ? CL_MEM_COPY_HOST_PTR : 0), size,
                                 (void *)data, &err);
  assert_cl_success(err);
  if (!data) {
    static const unsigned char zero = 0;
    assert_cl_success(clEnqueueFillBuffer(env->queue, buffer, &zero, 1, 0, size, 0, NULL, NULL));
  }
  return buffer;
}

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
      {"arithmetic", args_arithmetic, 2, 8, false}, {"math", args_math, 1, 8, true},
      {"doubles", args_doubles, 1, 8, false},       {"reduce_local", args_reduce, 1, 16, false},
      {"atomics", args_atomics, 0, 16, false},      {"vectors", args_vectors, 1, 8, true},
      {"vectors", args_vectors, 2, 8, false},       {"vectors", args_vectors, 3, 8, true},
      {"structs", args_structs, 1, 8, true},        {"structs", args_structs, 0, 8, false},
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
        assert_true(fabs(((double *)from_il)[i] - ((double *)from_source)[i]) <= 1e-12 * fmax(1, fabs(((double *)from_il)[i])));
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

static cl_kernel kernel_of(cl_program program, const char *name) {
  cl_int err;
  cl_kernel kernel = clCreateKernel(program, name, &err);
  assert_cl_success(err);
  return kernel;
}

static void run_1d(struct kiln_test_env *env, cl_kernel kernel, size_t global, size_t local) {
  assert_cl_success(clEnqueueNDRangeKernel(env->queue, kernel, 1, NULL, &global, local ? &local : NULL, 0, NULL, NULL));
}

static void read_back(struct kiln_test_env *env, cl_mem buffer, void *out, size_t size) {
  assert_cl_success(clEnqueueReadBuffer(env->queue, buffer, CL_TRUE, 0, size, out, 0, NULL, NULL));
}

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

  cl_queue_properties device_queue[] = {CL_QUEUE_PROPERTIES,
                                        CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE | CL_QUEUE_ON_DEVICE |
                                            CL_QUEUE_ON_DEVICE_DEFAULT,
                                        0};
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
  cl_mem line = clCreateImage(env->context, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, &format, &line_desc, pixels + 64, &err);
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
  assert_cl_success(clEnqueueReadImage(env->queue, out_line, CL_TRUE, origin, rw_region, 0, 0, r->out_line, 0, NULL, NULL));
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

/* ---- specialization constants ---- */

static void run_spec_constants(struct kiln_test_env *env, cl_program program, cl_ulong out[9]) {
  cl_int err;
  cl_kernel kernel = clCreateKernel(program, "spec_constants", &err);
  assert_cl_success(err);
  cl_mem buffer = make_buffer(env, NULL, 9 * sizeof(cl_ulong));
  cl_uint marker = 77;
  assert_cl_success(clSetKernelArg(kernel, 0, sizeof buffer, &buffer));
  assert_cl_success(clSetKernelArg(kernel, 1, sizeof marker, &marker));
  size_t one = 1;
  assert_cl_success(clEnqueueNDRangeKernel(env->queue, kernel, 1, NULL, &one, NULL, 0, NULL, NULL));
  assert_cl_success(clEnqueueReadBuffer(env->queue, buffer, CL_TRUE, 0, 9 * sizeof(cl_ulong), out, 0, NULL, NULL));
  assert_int_equal(77, out[8]);
  assert_cl_success(clReleaseMemObject(buffer));
  assert_cl_success(clReleaseKernel(kernel));
}

static cl_ulong bits_of_float(float f) {
  cl_uint u;
  memcpy(&u, &f, sizeof u);
  return u;
}

static cl_ulong bits_of_double(double d) {
  cl_ulong u;
  memcpy(&u, &d, sizeof u);
  return u;
}

static void test_spec_constants(void **state) {
  struct kiln_test_env *env = *state;
  cl_program program = il_program(env, "spec_constants");
  cl_ulong out[9];
  build(env, program, "");
  run_spec_constants(env, program, out);
  const cl_ulong defaults[8] = {1, 200, 1000, 123456, 4886718345ull, 0x3e00 /* half 1.5 */, bits_of_float(2.5f),
                                bits_of_double(-0.125)};
  assert_memory_equal(defaults, out, sizeof defaults);

  /* Set every one (a float denormal and a NaN payload stay bit-exact), rebuild. */
  cl_uchar no = 0;
  cl_uchar u8 = 255;
  cl_ushort u16 = 65535;
  cl_uint u32 = 0xdeadbeef;
  cl_ulong u64 = 0xfedcba9876543210ull;
  cl_ushort h = 0x7bff; /* the largest half */
  cl_uint f = 0x00000001; /* the smallest float denormal */
  cl_ulong d = 0x7ff8000000000123ull; /* a NaN with a payload */
  assert_cl_success(clSetProgramSpecializationConstant(program, 1, 1, &no));
  assert_cl_success(clSetProgramSpecializationConstant(program, 2, 1, &u8));
  assert_cl_success(clSetProgramSpecializationConstant(program, 3, 2, &u16));
  assert_cl_success(clSetProgramSpecializationConstant(program, 4, 4, &u32));
  assert_cl_success(clSetProgramSpecializationConstant(program, 5, 8, &u64));
  assert_cl_success(clSetProgramSpecializationConstant(program, 6, 2, &h));
  assert_cl_success(clSetProgramSpecializationConstant(program, 7, 4, &f));
  assert_cl_success(clSetProgramSpecializationConstant(program, 8, 8, &d));
  /* The built executable keeps its values until the next build. */
  run_spec_constants(env, program, out);
  assert_memory_equal(defaults, out, sizeof defaults);
  build(env, program, "");
  run_spec_constants(env, program, out);
  const cl_ulong set[8] = {0, 255, 65535, 0xdeadbeef, 0xfedcba9876543210ull, 0x7bff, 1, 0x7ff8000000000123ull};
  assert_memory_equal(set, out, sizeof set);

  /* The last value wins; any non-zero uchar is true. */
  cl_uchar yes = 42;
  cl_uint u32b = 5;
  assert_cl_success(clSetProgramSpecializationConstant(program, 1, 1, &yes));
  assert_cl_success(clSetProgramSpecializationConstant(program, 4, 4, &u32b));
  build(env, program, "");
  run_spec_constants(env, program, out);
  assert_int_equal(1, out[0]);
  assert_int_equal(5, out[3]);
  assert_int_equal(255, out[1]);
  assert_cl_success(clReleaseProgram(program));
}

static void test_spec_constant_errors(void **state) {
  struct kiln_test_env *env = *state;
  cl_program program = il_program(env, "spec_constants");
  cl_uint value = 1;
  assert_int_equal(CL_INVALID_SPEC_ID, clSetProgramSpecializationConstant(program, 9, 4, &value));
  assert_int_equal(CL_INVALID_SPEC_ID, clSetProgramSpecializationConstant(program, 0, 4, &value));
  assert_int_equal(CL_INVALID_VALUE, clSetProgramSpecializationConstant(program, 4, 8, &value)); /* a 4-byte one */
  assert_int_equal(CL_INVALID_VALUE, clSetProgramSpecializationConstant(program, 4, 2, &value));
  assert_int_equal(CL_INVALID_VALUE, clSetProgramSpecializationConstant(program, 1, 4, &value)); /* bool: 1 byte */
  assert_int_equal(CL_INVALID_VALUE, clSetProgramSpecializationConstant(program, 4, 4, NULL));
  assert_int_equal(CL_INVALID_PROGRAM, clSetProgramSpecializationConstant(NULL, 4, 4, &value));
  struct kiln_test_fake_handle fake = kiln_test_fake_handle_like(program);
  assert_int_equal(CL_INVALID_PROGRAM, clSetProgramSpecializationConstant((cl_program)&fake, 4, 4, &value));
  /* A source program has no specialization constants to set. */
  cl_program source = source_program(env, "linked.cl");
  assert_int_equal(CL_INVALID_PROGRAM, clSetProgramSpecializationConstant(source, 4, 4, &value));
  assert_cl_success(clReleaseProgram(source));
  /* Failed calls changed nothing: the defaults are built. */
  build(env, program, "");
  cl_ulong out[9];
  run_spec_constants(env, program, out);
  assert_int_equal(123456, out[3]);
  assert_cl_success(clReleaseProgram(program));
}

/* ---- argument info, compile and link, binaries ---- */

static void test_kernel_arg_info(void **state) {
  struct kiln_test_env *env = *state;
  cl_program program = il_program(env, "spec_constants");
  build(env, program, "");
  cl_int err;
  cl_kernel kernel = clCreateKernel(program, "spec_constants", &err);
  assert_cl_success(err);
  char text[64];
  assert_cl_success(clGetKernelArgInfo(kernel, 0, CL_KERNEL_ARG_NAME, sizeof text, text, NULL));
  assert_string_equal("out", text);
  assert_cl_success(clGetKernelArgInfo(kernel, 1, CL_KERNEL_ARG_NAME, sizeof text, text, NULL));
  assert_string_equal("marker", text);
  /* SPIR-V's integers have no sign in OpenCL modules: the translator names them signed. */
  assert_cl_success(clGetKernelArgInfo(kernel, 0, CL_KERNEL_ARG_TYPE_NAME, sizeof text, text, NULL));
  assert_string_equal("long*", text);
  cl_kernel_arg_address_qualifier address;
  assert_cl_success(clGetKernelArgInfo(kernel, 0, CL_KERNEL_ARG_ADDRESS_QUALIFIER, sizeof address, &address, NULL));
  assert_int_equal(CL_KERNEL_ARG_ADDRESS_GLOBAL, address);
  assert_cl_success(clGetKernelArgInfo(kernel, 1, CL_KERNEL_ARG_ADDRESS_QUALIFIER, sizeof address, &address, NULL));
  assert_int_equal(CL_KERNEL_ARG_ADDRESS_PRIVATE, address);
  cl_uint num_args;
  assert_cl_success(clGetKernelInfo(kernel, CL_KERNEL_NUM_ARGS, sizeof num_args, &num_args, NULL));
  assert_int_equal(2, num_args);
  assert_cl_success(clReleaseKernel(kernel));
  assert_cl_success(clReleaseProgram(program));

  /* clang-15 kept the source's names in the module (-fno-discard-value-names). */
  program = il_program(env, "kernels");
  build(env, program, "");
  kernel = clCreateKernel(program, "structs", &err);
  assert_cl_success(err);
  assert_cl_success(clGetKernelArgInfo(kernel, 1, CL_KERNEL_ARG_NAME, sizeof text, text, NULL));
  assert_string_equal("by_value", text);
  assert_cl_success(clReleaseKernel(kernel));
  assert_cl_success(clReleaseProgram(program));
}

static void test_compile_and_link_with_source(void **state) {
  struct kiln_test_env *env = *state;
  cl_program il = il_program(env, "linked");
  static const char *helper_source = "int helper(int x) { return x * x + 1; }\n";
  cl_int err;
  cl_program source = clCreateProgramWithSource(env->context, 1, &helper_source, NULL, &err);
  assert_cl_success(err);
  assert_cl_success(clCompileProgram(il, 1, &env->device, "", 0, NULL, NULL, NULL, NULL));
  assert_cl_success(clCompileProgram(source, 1, &env->device, "", 0, NULL, NULL, NULL, NULL));
  cl_program_binary_type type;
  assert_cl_success(clGetProgramBuildInfo(il, env->device, CL_PROGRAM_BINARY_TYPE, sizeof type, &type, NULL));
  assert_int_equal(CL_PROGRAM_BINARY_TYPE_COMPILED_OBJECT, type);
  /* Building the IL alone leaves `helper` undefined: a failure with a log. */
  cl_program alone = il_program(env, "linked");
  assert_int_equal(CL_BUILD_PROGRAM_FAILURE, clBuildProgram(alone, 1, &env->device, "", NULL, NULL));
  char *log = build_log(env, alone);
  assert_non_null(strstr(log, "helper"));
  free(log);
  assert_cl_success(clReleaseProgram(alone));

  cl_program inputs[2] = {il, source};
  cl_program linked = clLinkProgram(env->context, 1, &env->device, "", 2, inputs, NULL, NULL, &err);
  assert_cl_success(err);
  cl_kernel kernel = clCreateKernel(linked, "uses_helper", &err);
  assert_cl_success(err);
  cl_mem buffer = make_buffer(env, NULL, N * sizeof(cl_int));
  assert_cl_success(clSetKernelArg(kernel, 0, sizeof buffer, &buffer));
  size_t global = N;
  assert_cl_success(clEnqueueNDRangeKernel(env->queue, kernel, 1, NULL, &global, NULL, 0, NULL, NULL));
  cl_int out[N];
  assert_cl_success(clEnqueueReadBuffer(env->queue, buffer, CL_TRUE, 0, sizeof out, out, 0, NULL, NULL));
  for (int i = 0; i < N; i++) assert_int_equal(i * i + 1, out[i]);
  assert_cl_success(clReleaseMemObject(buffer));
  assert_cl_success(clReleaseKernel(kernel));
  assert_cl_success(clReleaseProgram(linked));
  assert_cl_success(clReleaseProgram(source));
  assert_cl_success(clReleaseProgram(il));
}

static void test_binary_of_il_build(void **state) {
  struct kiln_test_env *env = *state;
  cl_program program = il_program(env, "spec_constants");
  cl_uint u32 = 99;
  assert_cl_success(clSetProgramSpecializationConstant(program, 4, 4, &u32));
  build(env, program, "");
  size_t size;
  assert_cl_success(clGetProgramInfo(program, CL_PROGRAM_BINARY_SIZES, sizeof size, &size, NULL));
  unsigned char *binary = malloc(size);
  assert_cl_success(clGetProgramInfo(program, CL_PROGRAM_BINARIES, sizeof binary, &binary, NULL));
  cl_int err, status;
  cl_program reloaded = clCreateProgramWithBinary(env->context, 1, &env->device, &size,
                                                  (const unsigned char **)&binary, &status, &err);
  assert_cl_success(err);
  build(env, reloaded, NULL);
  cl_ulong out[9];
  run_spec_constants(env, reloaded, out);
  assert_int_equal(99, out[3]);
  size_t il_size;
  assert_cl_success(clGetProgramInfo(reloaded, CL_PROGRAM_IL, 0, NULL, &il_size));
  assert_int_equal(0, il_size); /* a binary program holds no IL */
  assert_cl_success(clReleaseProgram(reloaded));
  assert_cl_success(clReleaseProgram(program));
  free(binary);
}

/* ---- build failures ---- */

static void expect_build_failure(struct kiln_test_env *env, const char *module, const char *log_says) {
  cl_program program = il_program(env, module);
  assert_int_equal(CL_BUILD_PROGRAM_FAILURE, clBuildProgram(program, 1, &env->device, "", NULL, NULL));
  cl_build_status status;
  assert_cl_success(clGetProgramBuildInfo(program, env->device, CL_PROGRAM_BUILD_STATUS, sizeof status, &status, NULL));
  assert_int_equal(CL_BUILD_ERROR, status);
  char *log = build_log(env, program);
  if (!strstr(log, log_says)) fail_msg("the log of %s lacks \"%s\": %s", module, log_says, log);
  free(log);
  cl_int err;
  assert_null(clCreateKernel(program, "k", &err));
  assert_int_equal(CL_INVALID_PROGRAM_EXECUTABLE, err);
  assert_cl_success(clReleaseProgram(program));
}

static void test_build_failures(void **state) {
  struct kiln_test_env *env = *state;
  expect_build_failure(env, "mipmap_capability", "capability 15 is not supported");
  expect_build_failure(env, "initializer", "Initializer");

  /* Cut at an instruction's end, the module parses (CL_SUCCESS at creation) but is not
   * valid: the validator's warning and the translator's refusal are in the log. */
  size_t size;
  void *il = module_bytes("spec_constants", &size);
  cl_int err;
  cl_program cut = clCreateProgramWithIL(env->context, il, size - 4 /* OpFunctionEnd */, &err);
  assert_cl_success(err);
  assert_int_equal(CL_BUILD_PROGRAM_FAILURE, clBuildProgram(cut, 1, &env->device, "", NULL, NULL));
  char *log = build_log(env, cut);
  assert_non_null(strstr(log, "warning: SPIR-V validation"));
  assert_non_null(strstr(log, "translator refused the module"));
  free(log);
  free(il);
  assert_cl_success(clReleaseProgram(cut));
  /* Bad options are the options' error, as for source. */
  cl_program program = il_program(env, "spec_constants");
  assert_int_equal(CL_INVALID_BUILD_OPTIONS, clBuildProgram(program, 1, &env->device, "-no-such-option", NULL, NULL));
  assert_cl_success(clReleaseProgram(program));
}

/* ---- what the translator cannot read, rewritten (spirv_workarounds.c) ---- */

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

  program = il_program(env, "sizes");
  build(env, program, "");
  kernel = kernel_of(program, "k");
  out = make_buffer(env, NULL, 6 * sizeof(cl_uint));
  assert_cl_success(clSetKernelArg(kernel, 0, sizeof out, &out));
  run_1d(env, kernel, 1, 0);
  cl_uint sizes[6];
  read_back(env, out, sizes, sizeof sizes);
  const cl_uint want_sizes[6] = {4, 16, 64, 5, 10, 8};
  assert_memory_equal(want_sizes, sizes, sizeof sizes);
  clReleaseMemObject(out);
  clReleaseKernel(kernel);
  assert_cl_success(clReleaseProgram(program));
}

/* ---- the compiled-code cache ---- */

static char cache_dir[256];

static unsigned cache_entries(void) {
  DIR *dir = opendir(cache_dir);
  unsigned count = 0;
  for (struct dirent *e; dir && (e = readdir(dir));) count += strstr(e->d_name, ".kcache") != NULL;
  if (dir) closedir(dir);
  return count;
}

static void build_and_load(struct kiln_test_env *env, cl_program program) {
  build(env, program, "");
  cl_int err;
  cl_kernel kernel = clCreateKernel(program, "spec_constants", &err); /* the code is made (and stored) here */
  assert_cl_success(err);
  assert_cl_success(clReleaseKernel(kernel));
}

static void test_cache(void **state) {
  struct kiln_test_env *env = *state;
  unsigned before = cache_entries();
  cl_program program = il_program(env, "spec_constants");
  cl_uint u32 = 31337;
  assert_cl_success(clSetProgramSpecializationConstant(program, 4, 4, &u32));
  build_and_load(env, program);
  assert_int_equal(before + 1, cache_entries());
  assert_cl_success(clReleaseProgram(program));
  /* The same module and constants: a hit (no new entry), with the right value. */
  program = il_program(env, "spec_constants");
  assert_cl_success(clSetProgramSpecializationConstant(program, 4, 4, &u32));
  build_and_load(env, program);
  assert_int_equal(before + 1, cache_entries());
  cl_ulong out[9];
  run_spec_constants(env, program, out);
  assert_int_equal(31337, out[3]);
  /* Another value is another entry. */
  u32 = 31338;
  assert_cl_success(clSetProgramSpecializationConstant(program, 4, 4, &u32));
  build_and_load(env, program);
  assert_int_equal(before + 2, cache_entries());
  run_spec_constants(env, program, out);
  assert_int_equal(31338, out[3]);
  assert_cl_success(clReleaseProgram(program));
}

/* ---- without a translator (KILN_LLVM_SPIRV="") ---- */

static void test_no_translator(void **state) {
  struct kiln_test_env *env = *state;
  char versions[64] = "x";
  size_t size;
  assert_cl_success(clGetDeviceInfo(env->device, CL_DEVICE_IL_VERSION, sizeof versions, versions, &size));
  assert_int_equal(1, size);
  assert_string_equal("", versions);
  assert_cl_success(clGetDeviceInfo(env->device, CL_DEVICE_ILS_WITH_VERSION, 0, NULL, &size));
  assert_int_equal(0, size);
  assert_false(kiln_test_extension_listed(env->device, "cl_khr_il_program"));
  assert_false(kiln_test_extension_listed(env->device, "cl_khr_spirv_no_integer_wrap_decoration"));
  assert_false(kiln_test_extension_listed(env->device, "cl_khr_spirv_linkonce_odr"));
  assert_null(clGetExtensionFunctionAddressForPlatform(env->platform, "clCreateProgramWithILKHR"));
  size_t il_size;
  void *il = module_bytes("spec_constants", &il_size);
  cl_int err;
  assert_null(clCreateProgramWithIL(env->context, il, il_size, &err));
  assert_int_equal(CL_INVALID_OPERATION, err);
  free(il);
  cl_program source = source_program(env, "linked.cl");
  cl_uint value = 1;
  assert_int_equal(CL_INVALID_OPERATION, clSetProgramSpecializationConstant(source, 4, 4, &value));
  assert_cl_success(clReleaseProgram(source));
}

/* ---- a translator that crashes (KILN_LLVM_SPIRV=tests/spirv/crashing_translator.sh) ---- */

static void test_crashing_translator(void **state) {
  struct kiln_test_env *env = *state;
  expect_build_failure(env, "spec_constants", "killed by signal 11");
  /* Compile fails the same way, and the process goes on: another build, the same. */
  cl_program program = il_program(env, "kernels");
  assert_int_equal(CL_COMPILE_PROGRAM_FAILURE, clCompileProgram(program, 1, &env->device, "", 0, NULL, NULL, NULL, NULL));
  char *log = build_log(env, program);
  assert_non_null(strstr(log, "translator refused the module"));
  free(log);
  assert_cl_success(clReleaseProgram(program));
  expect_build_failure(env, "features", "killed by signal 11");
}

int main(int argc, char **argv) {
  if (argc > 1 && strcmp(argv[1], "--crashing-translator") == 0) {
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_crashing_translator)};
    return cmocka_run_group_tests(tests, kiln_test_env_setup, kiln_test_env_teardown);
  }
  if (argc > 1 && strcmp(argv[1], "--no-translator") == 0) {
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_no_translator)};
    return cmocka_run_group_tests(tests, kiln_test_env_setup, kiln_test_env_teardown);
  }
  /* A cache of this run's own, set before Kiln reads the environment. */
  snprintf(cache_dir, sizeof cache_dir, "/tmp/kiln-test-spirv-cache-%d", (int)getpid());
  setenv("KILN_CACHE_DIR", cache_dir, 1);
  unsetenv("KILN_CACHE");
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_device_queries),      cmocka_unit_test(test_create_errors),
      cmocka_unit_test(test_program_queries),     cmocka_unit_test(test_kernels_match_source),
      cmocka_unit_test(test_features_match_source),
      cmocka_unit_test(test_spec_constants),      cmocka_unit_test(test_spec_constant_errors),
      cmocka_unit_test(test_kernel_arg_info),     cmocka_unit_test(test_compile_and_link_with_source),
      cmocka_unit_test(test_binary_of_il_build),  cmocka_unit_test(test_build_failures),
      cmocka_unit_test(test_translator_workarounds),
      cmocka_unit_test(test_cache),
  };
  int failed = cmocka_run_group_tests(tests, kiln_test_env_setup, kiln_test_env_teardown);
  char command[400];
  snprintf(command, sizeof command, "rm -rf '%s'", cache_dir);
  if (system(command) != 0) fprintf(stderr, "could not remove %s\n", cache_dir);
  return failed;
}
