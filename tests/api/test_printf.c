/* OpenCL C printf through the loader: the exact text of integer, character, string,
 * floating-point and vector conversions (scalars checked against the host C library's
 * printf of the same values, vectors against the OpenCL C spec's rules), printf's return
 * value, output present when clFinish / clWaitForEvents return (stdout is redirected to a
 * file that is read without flushing anything in the test), output order, the
 * CL_DEVICE_PRINTF_BUFFER_SIZE limit, kernels from program binaries and concurrent
 * launches whose outputs must not interleave. */
#include "kiln_test.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Formats shared by the kernels and the host reference (the kernel adds "\n"). */
#define INT_FORMAT "%d|%i|%u|%x|%X|%o|%5d|%-5d|%05d|%+d|% d|%.3d|%#x|%#o|%hhd|%hd|%hhu|%hu|%.0d|%8.4x|"
#define LONG_FORMAT "%ld|%lu|%lx|%lX|%lo|%22ld|%-22lu|%+ld|"
#define FLOAT_FORMAT "%f|%e|%g|%a|%.2f|%10.3e|%-12g|%+f|%#g|%G|%E|%A|%F|%.0f|%#.0f|%08.3f|%.10g|% .1e|%.3a|"
#define SPECIAL_FORMAT "%f|%F|%e|%g|%5.1f|%-6f|%+f|%E|%a|"
#define CHAR_FORMAT "%c|%5c|%-3c|%s|%.3s|%10s|%-10s|%s|%%|"

static const char *source =
    "kernel void ints(global int *ret, int a, uint b, char e, short f) {\n"
    "  ret[0] = printf(\"" INT_FORMAT "\\n\", a, a, b, b, b, b, a, a, a, a, a, a, b, b, e, f, e, f, 0, b);\n"
    "}\n"
    "kernel void longs(global int *ret, long c, ulong d) {\n"
    "  ret[0] = printf(\"" LONG_FORMAT "\\n\", c, d, d, d, d, c, d, c);\n"
    "}\n"
    "kernel void floats(global int *ret, float x, float y, float z, double w) {\n"
    "  ret[0] = printf(\"" FLOAT_FORMAT "\\n\", x, y, z, x, y, z, y, x, w, z, w, x, y, x, x, y, x, y, w);\n"
    "}\n"
    "kernel void specials(global int *ret, float inf, float nan) {\n"
    "  ret[0] = printf(\"" SPECIAL_FORMAT "\\n\", inf, -inf, inf, nan, -inf, nan, inf, nan, -inf);\n"
    "}\n"
    "kernel void chars(global int *ret) {\n"
    "  ret[0] = printf(\"" CHAR_FORMAT "\\n\", 'A', 'b', 'c', \"hello\", \"hello\", \"right\", \"left\", \"\");\n"
    "}\n"
    /* Vectors, from a helper function (printf below the kernel itself). */
    "void vectors(global int *ret, int k) {\n"
    "  ret[0] = printf(\"f4 = %2.2v4hlf\\n\", (float4)(1.0f, 2.0f, 3.0f, 4.0f));\n"
    "  ret[1] = printf(\"uc = %#v4hhx\\n\", (uchar4)(0xFA, 0xFB, 0xFC, 0xFD));\n"
    "  ret[2] = printf(\"%v4hld|%v3hhd|%v8hx\\n\", (int4)(1, -2, 3, -4) * k, (char3)(1, -2, 127),\n"
    "                  (ushort8)(0, 1, 0xff, 0x100, 0xabcd, 0xffff, 16, 32));\n"
    "  ret[3] = printf(\"%v2ld|%v2lf|%v2hlf\\n\", (long2)(-5000000000L, 7), (double2)(0.5, -1.25), (float2)(1.5f, 2.25f));\n"
    "  ret[4] = printf(\"%v16hhu\\n\", (uchar16)(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15));\n"
    "  ret[5] = printf(\"%5.1v4hle|%+v2hld|%#v2lo|%v3hlg|%v2hla\\n\", (float4)(1.0f, 10.0f, 100.0f, -1000.0f),\n"
    "                  (int2)(3, -3), (ulong2)(8, 0), (float3)(0.0001f, 123456789.0f, 1.5f), (float2)(1.0f, 0.5f));\n"
    "  ret[6] = printf(\"%d %v2hhd %s %%\\n\", 7, (char2)(-1, 2), \"end\");\n"
    "  ret[7] = printf(\"%04v2hx|%-4v2hhu|%v4hX\\n\", (ushort2)(0xffff, 2), (uchar2)(3, 200), (ushort4)(0xa, 0xb, 0xc, 0xd));\n"
    "  ret[8] = printf(\"no conversions\\n\");\n"
    "}\n"
    "kernel void vector_kernel(global int *ret) { vectors(ret, 1); }\n"
    "kernel void pointer(global int *ret) { ret[0] = printf(\"%p\\n\", ret); }\n"
    "kernel void order(void) {\n"
    "  printf(\"item %u group %u\\n\", (uint)get_global_id(0), (uint)get_group_id(0));\n"
    "}\n"
    "kernel void barriers(void) {\n"
    "  uint g = (uint)get_global_id(0);\n"
    "  printf(\"a %u\\n\", g);\n"
    "  barrier(CLK_LOCAL_MEM_FENCE);\n"
    "  printf(\"b %u\\n\", g);\n"
    "}\n"
    "kernel void flood(global int *ret) {\n"
    "  uint g = (uint)get_global_id(0);\n"
    "  ret[g] = printf(\"%s %6u\\n\", \"0123456789012345678901234567890123456789"
    "0123456789012345678901234567890123456789\", g);\n"
    "}\n"
    "kernel void too_wide(global int *ret) { ret[0] = printf(\"%20000000d\\n\", 1); }\n" /* wider than the 8 MiB buffer */
    "kernel void tagged(int tag) {\n"
    "  printf(\"%c %u\\n\", tag, (uint)get_global_id(0));\n"
    "}\n"
    "kernel void quiet(global int *out) { out[get_global_id(0)] = 1; }\n";

struct fixture {
  struct kiln_test_env env;
  cl_program program;
  cl_mem ret;
};

static cl_program build(struct kiln_test_env *env, const char *options) {
  cl_int err;
  cl_program program = clCreateProgramWithSource(env->context, 1, &source, NULL, &err);
  if (err != CL_SUCCESS) return NULL;
  if (clBuildProgram(program, 0, NULL, options, NULL, NULL) != CL_SUCCESS) {
    char log[8192] = "";
    clGetProgramBuildInfo(program, env->device, CL_PROGRAM_BUILD_LOG, sizeof log, log, NULL);
    print_error("build with %s failed:\n%s\n", options, log);
    clReleaseProgram(program);
    return NULL;
  }
  return program;
}

static int setup(void **state) {
  void *env_state = NULL;
  if (kiln_test_env_setup(&env_state) != 0) return -1;
  struct fixture *f = calloc(1, sizeof *f);
  f->env = *(struct kiln_test_env *)env_state;
  free(env_state);
  *state = f;
  f->program = build(&f->env, "-cl-std=CL1.2");
  cl_int err;
  f->ret = clCreateBuffer(f->env.context, CL_MEM_READ_WRITE, 16 * sizeof(cl_int), NULL, &err);
  return f->program && err == CL_SUCCESS ? 0 : -1;
}

static int teardown(void **state) {
  struct fixture *f = *state;
  if (!f) return -1;
  if (f->ret) clReleaseMemObject(f->ret);
  if (f->program) clReleaseProgram(f->program);
  struct kiln_test_env *env = malloc(sizeof *env);
  *env = f->env;
  void *env_state = env;
  free(f);
  return kiln_test_env_teardown(&env_state);
}

/* stdout redirected to a temporary file. The output is read back before anything in the
 * test flushes stdout: what is there was written by Kiln by the time the wait returned. */
struct capture {
  int saved_stdout;
  FILE *file;
};

static void capture_begin(struct capture *c) {
  fflush(stdout);
  c->file = tmpfile();
  assert_non_null(c->file);
  c->saved_stdout = dup(STDOUT_FILENO);
  assert_true(c->saved_stdout >= 0);
  assert_true(dup2(fileno(c->file), STDOUT_FILENO) >= 0);
}

/* The captured bytes (NUL-terminated, malloc'd); restores stdout. */
static char *capture_end(struct capture *c, size_t *length) {
  long size = lseek(fileno(c->file), 0, SEEK_END);
  char *text = malloc(size > 0 ? (size_t)size + 1 : 1);
  size_t n = size > 0 ? (size_t)pread(fileno(c->file), text, (size_t)size, 0) : 0;
  text[n] = '\0';
  if (length) *length = n;
  fflush(stdout); /* anything left (a late flush would be a failure seen above) stays in the file */
  dup2(c->saved_stdout, STDOUT_FILENO);
  close(c->saved_stdout);
  fclose(c->file);
  return text;
}

static cl_kernel kernel_of(cl_program program, const char *name) {
  cl_int err;
  cl_kernel kernel = clCreateKernel(program, name, &err);
  assert_cl_success(err);
  return kernel;
}

/* Runs a 1-item kernel whose first argument is the return buffer (if it has one) and
 * returns its output; rets receives the first `nrets` returned values. */
static char *run_one(struct fixture *f, cl_kernel k, bool has_ret, cl_int *rets, size_t nrets) {
  if (has_ret) {
    cl_int fill = 12345;
    assert_cl_success(clEnqueueFillBuffer(f->env.queue, f->ret, &fill, sizeof fill, 0, 16 * sizeof fill, 0, NULL, NULL));
    assert_cl_success(clSetKernelArg(k, 0, sizeof f->ret, &f->ret));
  }
  assert_cl_success(clFinish(f->env.queue));
  struct capture c;
  capture_begin(&c);
  size_t one = 1;
  cl_int enqueue = clEnqueueNDRangeKernel(f->env.queue, k, 1, NULL, &one, &one, 0, NULL, NULL);
  cl_int finish = clFinish(f->env.queue);
  char *out = capture_end(&c, NULL);
  assert_cl_success(enqueue);
  assert_cl_success(finish);
  if (has_ret)
    assert_cl_success(clEnqueueReadBuffer(f->env.queue, f->ret, CL_TRUE, 0, nrets * sizeof(cl_int), rets, 0, NULL, NULL));
  return out;
}

static void expect_output(const char *got, const char *expected) {
  if (strcmp(got, expected) != 0) fail_msg("printf output\n  got:      \"%s\"\n  expected: \"%s\"", got, expected);
}

static void test_integers(void **state) {
  struct fixture *f = *state;
  cl_kernel k = kernel_of(f->program, "ints");
  cl_int a = -42;
  cl_uint b = 0xdeadbeefu;
  cl_char e = -5;
  cl_short s = -1234;
  assert_cl_success(clSetKernelArg(k, 1, sizeof a, &a));
  assert_cl_success(clSetKernelArg(k, 2, sizeof b, &b));
  assert_cl_success(clSetKernelArg(k, 3, sizeof e, &e));
  assert_cl_success(clSetKernelArg(k, 4, sizeof s, &s));
  cl_int ret = -7;
  char *out = run_one(f, k, true, &ret, 1);
  char expected[512];
  snprintf(expected, sizeof expected, INT_FORMAT "\n", a, a, b, b, b, b, a, a, a, a, a, a, b, b, e, s, e, s, 0, b);
  expect_output(out, expected);
  assert_int_equal(0, ret);
  free(out);
  clReleaseKernel(k);
}

static void test_longs(void **state) {
  struct fixture *f = *state;
  cl_kernel k = kernel_of(f->program, "longs");
  cl_long c = -1234567890123LL;
  cl_ulong d = 0xfedcba9876543210ULL;
  assert_cl_success(clSetKernelArg(k, 1, sizeof c, &c));
  assert_cl_success(clSetKernelArg(k, 2, sizeof d, &d));
  cl_int ret = -7;
  char *out = run_one(f, k, true, &ret, 1);
  char expected[512];
  snprintf(expected, sizeof expected, LONG_FORMAT "\n", (long)c, (unsigned long)d, (unsigned long)d,
           (unsigned long)d, (unsigned long)d, (long)c, (unsigned long)d, (long)c);
  expect_output(out, expected);
  assert_int_equal(0, ret);
  free(out);
  clReleaseKernel(k);
}

static void test_floats(void **state) {
  struct fixture *f = *state;
  cl_kernel k = kernel_of(f->program, "floats");
  cl_float x = 3.14159f, y = -0.000123f, z = 12345678.0f;
  cl_double w = 1e100;
  assert_cl_success(clSetKernelArg(k, 1, sizeof x, &x));
  assert_cl_success(clSetKernelArg(k, 2, sizeof y, &y));
  assert_cl_success(clSetKernelArg(k, 3, sizeof z, &z));
  assert_cl_success(clSetKernelArg(k, 4, sizeof w, &w));
  cl_int ret = -7;
  char *out = run_one(f, k, true, &ret, 1);
  char expected[1024];
  double dx = x, dy = y, dz = z;
  snprintf(expected, sizeof expected, FLOAT_FORMAT "\n", dx, dy, dz, dx, dy, dz, dy, dx, w, dz, w, dx, dy, dx, dx,
           dy, dx, dy, w);
  expect_output(out, expected);
  assert_int_equal(0, ret);
  free(out);
  clReleaseKernel(k);
}

static void test_infinity_nan(void **state) {
  struct fixture *f = *state;
  cl_kernel k = kernel_of(f->program, "specials");
  cl_float inf = INFINITY, nan = NAN;
  assert_cl_success(clSetKernelArg(k, 1, sizeof inf, &inf));
  assert_cl_success(clSetKernelArg(k, 2, sizeof nan, &nan));
  cl_int ret = -7;
  char *out = run_one(f, k, true, &ret, 1);
  char expected[512];
  double di = inf, dn = nan;
  snprintf(expected, sizeof expected, SPECIAL_FORMAT "\n", di, -di, di, dn, -di, dn, di, dn, -di);
  expect_output(out, expected);
  assert_int_equal(0, ret);
  free(out);
  clReleaseKernel(k);
}

static void test_chars_strings(void **state) {
  struct fixture *f = *state;
  cl_kernel k = kernel_of(f->program, "chars");
  cl_int ret = -7;
  char *out = run_one(f, k, true, &ret, 1);
  char expected[512];
  snprintf(expected, sizeof expected, CHAR_FORMAT "\n", 'A', 'b', 'c', "hello", "hello", "right", "left", "");
  expect_output(out, expected);
  assert_int_equal(0, ret);
  free(out);
  clReleaseKernel(k);
}

/* The vector conversions: expected text from the spec's rules (value1,value2,...,valueN,
 * each element formatted with the conversion's flags, width and precision). */
static const char *vector_expected =
    "f4 = 1.00,2.00,3.00,4.00\n" /* the spec's own examples */
    "uc = 0xfa,0xfb,0xfc,0xfd\n"
    "1,-2,3,-4|1,-2,127|0,1,ff,100,abcd,ffff,10,20\n"
    "-5000000000,7|0.500000,-1.250000|1.500000,2.250000\n"
    "0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15\n"
    "1.0e+00,1.0e+01,1.0e+02,-1.0e+03|+3,-3|010,0|0.0001,1.23457e+08,1.5|0x1p+0,0x1p-1\n"
    "7 -1,2 end %\n"
    "ffff,0002|3   ,200 |A,B,C,D\n"
    "no conversions\n";

static void check_vectors(struct fixture *f, cl_program program) {
  cl_kernel k = kernel_of(program, "vector_kernel");
  cl_int rets[9];
  char *out = run_one(f, k, true, rets, 9);
  expect_output(out, vector_expected);
  for (int i = 0; i < 9; i++) assert_int_equal(0, rets[i]);
  free(out);
  clReleaseKernel(k);
}

static void test_vectors(void **state) {
  struct fixture *f = *state;
  check_vectors(f, f->program);
  /* OpenCL C 3.0 takes the same path. */
  cl_program other = build(&f->env, "-cl-std=CL3.0");
  assert_non_null(other);
  check_vectors(f, other);
  clReleaseProgram(other);
}

static void test_pointer(void **state) {
  struct fixture *f = *state;
  cl_kernel k = kernel_of(f->program, "pointer");
  cl_int ret = -7;
  char *out = run_one(f, k, true, &ret, 1);
  /* Implementation-defined: Kiln prints the address in hexadecimal. */
  assert_true(strncmp(out, "0x", 2) == 0);
  assert_true(strlen(out) > 3 && out[strlen(out) - 1] == '\n');
  assert_int_equal(0, ret);
  free(out);
  clReleaseKernel(k);
}

/* Kiln's order: by work-group, and within a work-group by local id (no barriers). The
 * range spans many batches, which run on several threads at once. */
static void test_order_and_event(void **state) {
  struct fixture *f = *state;
  cl_kernel k = kernel_of(f->program, "order");
  size_t global = 4096, local = 64;
  struct capture c;
  capture_begin(&c);
  cl_event event = NULL;
  cl_int enqueue = clEnqueueNDRangeKernel(f->env.queue, k, 1, NULL, &global, &local, 0, NULL, &event);
  cl_int wait = enqueue == CL_SUCCESS ? clWaitForEvents(1, &event) : enqueue;
  size_t length;
  char *out = capture_end(&c, &length);
  assert_cl_success(enqueue);
  assert_cl_success(wait);
  assert_cl_success(clReleaseEvent(event));
  size_t pos = 0;
  for (size_t i = 0; i < global; i++) {
    char line[64];
    int n = snprintf(line, sizeof line, "item %zu group %zu\n", i, i / local);
    if (strncmp(out + pos, line, (size_t)n) != 0) fail_msg("line %zu: expected \"%s\" at \"%.40s\"", i, line, out + pos);
    pos += (size_t)n;
  }
  assert_int_equal(length, pos);
  free(out);
  clReleaseKernel(k);
}

/* With barriers, each work-item's lines keep their order and a work-group's lines before
 * the barrier precede its lines after it. */
static void test_barrier_kernel(void **state) {
  struct fixture *f = *state;
  cl_kernel k = kernel_of(f->program, "barriers");
  size_t global = 256, local = 16;
  struct capture c;
  capture_begin(&c);
  cl_int enqueue = clEnqueueNDRangeKernel(f->env.queue, k, 1, NULL, &global, &local, 0, NULL, NULL);
  cl_int finish = clFinish(f->env.queue);
  char *out = capture_end(&c, NULL);
  assert_cl_success(enqueue);
  assert_cl_success(finish);
  long a_line[256], b_line[256];
  for (int i = 0; i < 256; i++) a_line[i] = b_line[i] = -1;
  long line = 0;
  for (char *p = out; *p; line++) {
    char which;
    unsigned g;
    assert_int_equal(2, sscanf(p, "%c %u", &which, &g));
    assert_true(g < 256 && (which == 'a' || which == 'b'));
    long *slot = which == 'a' ? &a_line[g] : &b_line[g];
    assert_int_equal(-1, *slot);
    *slot = line;
    char *eol = strchr(p, '\n');
    assert_non_null(eol);
    p = eol + 1;
  }
  assert_int_equal(512, line);
  for (unsigned group = 0; group < 256 / 16; group++) {
    long last_a = -1, first_b = 1L << 30;
    for (unsigned i = group * 16; i < group * 16 + 16; i++) {
      if (a_line[i] > last_a) last_a = a_line[i];
      if (b_line[i] < first_b) first_b = b_line[i];
    }
    assert_true(last_a < first_b);
  }
  free(out);
  clReleaseKernel(k);
}

/* A printf whose result is used after a barrier prints once per work-item: the barrier
 * transformation may recompute cheap values in later regions, never a printf call. */
static void test_result_used_after_barrier(void **state) {
  struct fixture *f = *state;
  const char *text = "kernel void once(global int *ret) {\n"
                     "  int r = printf(\"x\\n\");\n"
                     "  barrier(CLK_LOCAL_MEM_FENCE);\n"
                     "  ret[get_local_id(0)] = r;\n"
                     "}\n";
  cl_int err;
  cl_program program = clCreateProgramWithSource(f->env.context, 1, &text, NULL, &err);
  assert_cl_success(err);
  assert_cl_success(clBuildProgram(program, 1, &f->env.device, NULL, NULL, NULL));
  cl_kernel k = kernel_of(program, "once");
  assert_cl_success(clSetKernelArg(k, 0, sizeof f->ret, &f->ret));
  size_t four = 4;
  struct capture c;
  capture_begin(&c);
  cl_int enqueue = clEnqueueNDRangeKernel(f->env.queue, k, 1, NULL, &four, &four, 0, NULL, NULL);
  cl_int finish = clFinish(f->env.queue);
  char *out = capture_end(&c, NULL);
  assert_cl_success(enqueue);
  assert_cl_success(finish);
  expect_output(out, "x\nx\nx\nx\n");
  cl_int rets[4];
  assert_cl_success(clEnqueueReadBuffer(f->env.queue, f->ret, CL_TRUE, 0, sizeof rets, rets, 0, NULL, NULL));
  for (int i = 0; i < 4; i++) assert_int_equal(0, rets[i]);
  free(out);
  clReleaseKernel(k);
  clReleaseProgram(program);
}

/* More output than CL_DEVICE_PRINTF_BUFFER_SIZE: calls that do not fit return -1 and
 * print nothing; the others print whole lines; nothing crashes, and the next launch
 * has its full buffer again. */
static void test_buffer_overflow(void **state) {
  struct fixture *f = *state;
  size_t buffer_size = 0;
  assert_cl_success(clGetDeviceInfo(f->env.device, CL_DEVICE_PRINTF_BUFFER_SIZE, sizeof buffer_size, &buffer_size, NULL));
  assert_true(buffer_size >= 1024 * 1024); /* the full profile's minimum */
  const size_t line_length = 80 + 1 + 6 + 1;
  size_t global = 2 * buffer_size / line_length, local = 64;
  global = (global + local - 1) / local * local;
  cl_int err;
  cl_mem rets = clCreateBuffer(f->env.context, CL_MEM_READ_WRITE, global * sizeof(cl_int), NULL, &err);
  assert_cl_success(err);
  cl_kernel k = kernel_of(f->program, "flood");
  assert_cl_success(clSetKernelArg(k, 0, sizeof rets, &rets));
  struct capture c;
  capture_begin(&c);
  cl_int enqueue = clEnqueueNDRangeKernel(f->env.queue, k, 1, NULL, &global, &local, 0, NULL, NULL);
  cl_int finish = clFinish(f->env.queue);
  size_t length;
  char *out = capture_end(&c, &length);
  assert_cl_success(enqueue);
  assert_cl_success(finish);
  cl_int *ret = malloc(global * sizeof *ret);
  assert_cl_success(clEnqueueReadBuffer(f->env.queue, rets, CL_TRUE, 0, global * sizeof *ret, ret, 0, NULL, NULL));
  size_t succeeded = 0, failed = 0;
  for (size_t i = 0; i < global; i++) {
    if (ret[i] == 0) succeeded++;
    else if (ret[i] == -1) failed++;
    else fail_msg("printf returned %d", ret[i]);
  }
  assert_true(succeeded > 0 && failed > 0);
  assert_true(length <= buffer_size);
  assert_int_equal(succeeded * line_length, length);
  /* Every line is whole and belongs to a work-item whose printf succeeded, once. */
  char *seen = calloc(global, 1);
  for (size_t pos = 0; pos < length; pos += line_length) {
    unsigned g;
    char expected[128];
    assert_int_equal(1, sscanf(out + pos + 81, "%6u", &g));
    assert_true(g < global && ret[g] == 0 && !seen[g]);
    seen[g] = 1;
    snprintf(expected, sizeof expected, "%s %6u\n",
             "01234567890123456789012345678901234567890123456789012345678901234567890123456789", g);
    assert_memory_equal(expected, out + pos, line_length);
  }
  free(seen);
  free(ret);
  free(out);
  clReleaseKernel(k);
  clReleaseMemObject(rets);

  /* One call wider than the whole buffer. */
  k = kernel_of(f->program, "too_wide");
  cl_int wide_ret = 0;
  out = run_one(f, k, true, &wide_ret, 1);
  assert_int_equal(-1, wide_ret);
  assert_string_equal("", out);
  free(out);
  clReleaseKernel(k);

  /* The next launch prints normally. */
  k = kernel_of(f->program, "chars");
  cl_int chars_ret = -7;
  out = run_one(f, k, true, &chars_ret, 1);
  char expected[512];
  snprintf(expected, sizeof expected, CHAR_FORMAT "\n", 'A', 'b', 'c', "hello", "hello", "right", "left", "");
  expect_output(out, expected);
  assert_int_equal(0, chars_ret);
  free(out);
  clReleaseKernel(k);
}

/* A program created from the binary of a built one keeps printing. */
static void test_program_binary(void **state) {
  struct fixture *f = *state;
  size_t size = 0;
  assert_cl_success(clGetProgramInfo(f->program, CL_PROGRAM_BINARY_SIZES, sizeof size, &size, NULL));
  unsigned char *binary = malloc(size);
  assert_cl_success(clGetProgramInfo(f->program, CL_PROGRAM_BINARIES, sizeof binary, &binary, NULL));
  cl_int status, err;
  const unsigned char *binaries[1] = {binary};
  cl_program program =
      clCreateProgramWithBinary(f->env.context, 1, &f->env.device, &size, binaries, &status, &err);
  assert_cl_success(err);
  assert_cl_success(clBuildProgram(program, 0, NULL, NULL, NULL, NULL));
  check_vectors(f, program);
  clReleaseProgram(program);
  free(binary);
}

/* Two queues print at once: each launch's output comes out in one piece. */
static void test_concurrent_launches(void **state) {
  struct fixture *f = *state;
  cl_int err;
  cl_command_queue second = clCreateCommandQueueWithProperties(f->env.context, f->env.device, NULL, &err);
  assert_cl_success(err);
  cl_kernel ka = kernel_of(f->program, "tagged"), kb = kernel_of(f->program, "tagged");
  cl_int tag_a = 'A', tag_b = 'B';
  assert_cl_success(clSetKernelArg(ka, 0, sizeof tag_a, &tag_a));
  assert_cl_success(clSetKernelArg(kb, 0, sizeof tag_b, &tag_b));
  size_t global = 2048;
  struct capture c;
  capture_begin(&c);
  cl_int e1 = clEnqueueNDRangeKernel(f->env.queue, ka, 1, NULL, &global, NULL, 0, NULL, NULL);
  cl_int e2 = clEnqueueNDRangeKernel(second, kb, 1, NULL, &global, NULL, 0, NULL, NULL);
  cl_int f1 = clFinish(f->env.queue), f2 = clFinish(second);
  char *out = capture_end(&c, NULL);
  assert_cl_success(e1);
  assert_cl_success(e2);
  assert_cl_success(f1);
  assert_cl_success(f2);
  char *p = out;
  char first = *p;
  assert_true(first == 'A' || first == 'B');
  for (int part = 0; part < 2; part++) {
    char tag = part == 0 ? first : (first == 'A' ? 'B' : 'A');
    for (size_t i = 0; i < global; i++) {
      char line[32];
      int n = snprintf(line, sizeof line, "%c %zu\n", tag, i);
      if (strncmp(p, line, (size_t)n) != 0) fail_msg("expected \"%s\" at \"%.20s\"", line, p);
      p += n;
    }
  }
  assert_string_equal("", p);
  free(out);
  clReleaseKernel(ka);
  clReleaseKernel(kb);
  clReleaseCommandQueue(second);
}

/* Kernels without printf print nothing and still run. */
static void test_quiet_kernel(void **state) {
  struct fixture *f = *state;
  cl_kernel k = kernel_of(f->program, "quiet");
  cl_int err;
  cl_mem out_buffer = clCreateBuffer(f->env.context, CL_MEM_READ_WRITE, 64 * sizeof(cl_int), NULL, &err);
  assert_cl_success(err);
  assert_cl_success(clSetKernelArg(k, 0, sizeof out_buffer, &out_buffer));
  size_t global = 64;
  struct capture c;
  capture_begin(&c);
  cl_int enqueue = clEnqueueNDRangeKernel(f->env.queue, k, 1, NULL, &global, NULL, 0, NULL, NULL);
  cl_int finish = clFinish(f->env.queue);
  char *out = capture_end(&c, NULL);
  assert_cl_success(enqueue);
  assert_cl_success(finish);
  assert_string_equal("", out);
  cl_int values[64];
  assert_cl_success(clEnqueueReadBuffer(f->env.queue, out_buffer, CL_TRUE, 0, sizeof values, values, 0, NULL, NULL));
  for (int i = 0; i < 64; i++) assert_int_equal(1, values[i]);
  free(out);
  clReleaseKernel(k);
  clReleaseMemObject(out_buffer);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_integers),        cmocka_unit_test(test_longs),
      cmocka_unit_test(test_floats),          cmocka_unit_test(test_infinity_nan),
      cmocka_unit_test(test_chars_strings),   cmocka_unit_test(test_vectors),
      cmocka_unit_test(test_pointer),         cmocka_unit_test(test_order_and_event),
      cmocka_unit_test(test_barrier_kernel),  cmocka_unit_test(test_result_used_after_barrier),  cmocka_unit_test(test_buffer_overflow),
      cmocka_unit_test(test_program_binary),  cmocka_unit_test(test_concurrent_launches),
      cmocka_unit_test(test_quiet_kernel),
  };
  return cmocka_run_group_tests(tests, setup, teardown);
}
