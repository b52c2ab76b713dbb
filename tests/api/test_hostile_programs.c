/* Programs a careless or hostile application may hand to Kiln, each of which used to kill
 * the process; the cases that could crash run in a child process (kiln_test_child.h):
 * - deep nesting: 10 000 unary minuses and a 100 000-term sum build and run (they
 *   overflowed the calling thread's stack in clang); a million unary minuses is
 *   CL_BUILD_PROGRAM_FAILURE with a log that says the program is nested too deeply; 10 000
 *   nested parentheses are clang's own bracket-depth error; the compiler works afterwards;
 * - private memory: a 256 MiB __private array is CL_OUT_OF_RESOURCES at enqueue (it
 *   enqueued with CL_SUCCESS and then killed the process), with CL_KERNEL_PRIVATE_MEM_SIZE
 *   at least 256 MiB; 4 MiB and 32 MiB arrays run, waited for with clFinish, results right;
 * - wide vectors across barriers: double4, double8, float16 and long8 values kept live
 *   across a barrier, for every work-group size from 1 to 64 (a 32-byte vector store into
 *   a 16-byte aligned frame slot killed a worker);
 * - compiler faults: a program clang 19 crashes on (a vector literal of a pointer) and
 *   inline assembly (which stopped or exited the process in code generation) fail the
 *   build with a log; the compiler works afterwards;
 * - recursion (direct, mutual over two and three functions, a kernel calling itself, and
 *   across separately compiled objects at link time) fails the build with a log naming
 *   the cycle (it built, then failed at enqueue). */
#include "kiln_test.h"
#include "kiln_test_child.h"
#include "kiln_test_objects.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- child cases (plain OpenCL; CMocka assertions exit the child on failure) ---- */

struct child_env {
  cl_device_id device;
  cl_context context;
  cl_command_queue queue;
};

static struct child_env child_env_new(void) {
  struct child_env e;
  e.device = kiln_test_device();
  e.context = kiln_test_context(e.device);
  e.queue = kiln_test_queue(e.context, e.device, 0);
  return e;
}

static void child_env_free(struct child_env *e) {
  assert_cl_success(clReleaseCommandQueue(e->queue));
  assert_cl_success(clReleaseContext(e->context));
}

/* Builds `source`; returns the status and copies the log into `log`. */
static cl_int try_build(struct child_env *e, const char *source, cl_program *program, char *log, size_t log_size) {
  cl_int err;
  *program = clCreateProgramWithSource(e->context, 1, &source, NULL, &err);
  assert_cl_success(err);
  err = clBuildProgram(*program, 1, &e->device, NULL, NULL, NULL);
  log[0] = '\0';
  assert_cl_success(clGetProgramBuildInfo(*program, e->device, CL_PROGRAM_BUILD_LOG, log_size, log, NULL));
  return err;
}

/* kernel k(global int *a) { a[0] = <expression>; } run on a = {0, 1}: returns a[0]. */
static cl_int run_expression_kernel(struct child_env *e, cl_program program) {
  cl_kernel k = kiln_test_kernel(program, "k");
  cl_int values[2] = {0, 1};
  cl_mem a = kiln_test_buffer_with(e->context, 2, values);
  kiln_test_arg_mem(k, 0, a);
  size_t one = 1;
  assert_cl_success(clEnqueueNDRangeKernel(e->queue, k, 1, NULL, &one, NULL, 0, NULL, NULL));
  cl_int result = kiln_test_read_int(e->queue, a, 0);
  assert_cl_success(clReleaseMemObject(a));
  assert_cl_success(clReleaseKernel(k));
  return result;
}

/* "kernel void k(global int *a) { a[0] = " + count x `repeat` + `end` + "; }" */
static char *expression_source(const char *repeat, size_t count, const char *middle, const char *tail, size_t tails) {
  size_t size = 64 + count * strlen(repeat) + strlen(middle) + tails * strlen(tail);
  char *s = malloc(size), *p = s;
  p += sprintf(p, "kernel void k(global int *a) { a[0] = ");
  for (size_t i = 0; i < count; i++) p += sprintf(p, "%s", repeat);
  p += sprintf(p, "%s", middle);
  for (size_t i = 0; i < tails; i++) p += sprintf(p, "%s", tail);
  sprintf(p, "; }\n");
  return s;
}

static int child_deep_nesting(void) {
  struct child_env e = child_env_new();
  static char log[1 << 16];
  cl_program program;
  /* 10 000 unary minuses: an even count, the value is 1. */
  char *source = expression_source("- ", 10000, "1", "", 0);
  assert_cl_success(try_build(&e, source, &program, log, sizeof log));
  assert_int_equal(1, run_expression_kernel(&e, program));
  assert_cl_success(clReleaseProgram(program));
  free(source);
  /* A sum of 100 000 terms a[1] (= 1). */
  source = expression_source("a[1] + ", 99999, "a[1]", "", 0);
  assert_cl_success(try_build(&e, source, &program, log, sizeof log));
  assert_int_equal(100000, run_expression_kernel(&e, program));
  assert_cl_success(clReleaseProgram(program));
  free(source);
  /* A million unary minuses: deeper than the compiler's stack. */
  source = expression_source("-", 1000000, "1", "", 0);
  cl_int err = try_build(&e, source, &program, log, sizeof log);
  if (err != CL_BUILD_PROGRAM_FAILURE || !strstr(log, "nested too deeply"))
    fail_msg("a million unary minuses: %d, log: %.300s", err, log);
  assert_cl_success(clReleaseProgram(program));
  free(source);
  /* 10 000 nested parentheses: clang's bracket depth limit. */
  source = expression_source("(", 10000, "1", ")", 10000);
  err = try_build(&e, source, &program, log, sizeof log);
  if (err != CL_BUILD_PROGRAM_FAILURE || !strstr(log, "bracket nesting"))
    fail_msg("10 000 parentheses: %d, log: %.300s", err, log);
  assert_cl_success(clReleaseProgram(program));
  free(source);
  /* The compiler still works. */
  assert_cl_success(try_build(&e, "kernel void k(global int *a) { a[0] = a[1] + 41; }\n", &program, log, sizeof log));
  assert_int_equal(42, run_expression_kernel(&e, program));
  assert_cl_success(clReleaseProgram(program));
  child_env_free(&e);
  return 0;
}

static const char *private_source =
    "#define HUGE_ITEMS (64 << 20)\n" /* 256 MiB of int */
    "#define BIG_ITEMS (8 << 20)\n"   /* 32 MiB */
    "#define SMALL_ITEMS (1 << 20)\n" /* 4 MiB */
    "#define PRIVATE_KERNEL(name, n)                                          \\\n"
    "  kernel void name(global int *p) {                                      \\\n"
    "    int a[n];                                                            \\\n"
    "    for (int i = 0; i < n; i++) a[i] = p[i & 7] + i;                     \\\n"
    "    p[8 + get_global_id(0)] = a[(p[0] + 12345 * (int)get_global_id(0)) & (n - 1)]; \\\n"
    "  }\n"
    "PRIVATE_KERNEL(huge, HUGE_ITEMS)\n"
    "PRIVATE_KERNEL(big, BIG_ITEMS)\n"
    "PRIVATE_KERNEL(small, SMALL_ITEMS)\n";

static cl_ulong private_size(cl_kernel kernel, cl_device_id device) {
  cl_ulong bytes = 0;
  assert_cl_success(clGetKernelWorkGroupInfo(kernel, device, CL_KERNEL_PRIVATE_MEM_SIZE, sizeof bytes, &bytes, NULL));
  return bytes;
}

/* Runs `name` over 4 work-items and checks each result: p[0..7] = 0..7, so a[j] = (j & 7) + j. */
static void run_private(struct child_env *e, cl_program program, const char *name, int items) {
  cl_kernel k = kiln_test_kernel(program, name);
  cl_int host[12] = {0, 1, 2, 3, 4, 5, 6, 7};
  cl_mem p = kiln_test_buffer_with(e->context, 12, host);
  kiln_test_arg_mem(k, 0, p);
  size_t global = 4;
  assert_cl_success(clEnqueueNDRangeKernel(e->queue, k, 1, NULL, &global, NULL, 0, NULL, NULL));
  assert_cl_success(clFinish(e->queue));
  kiln_test_read(e->queue, p, sizeof host, host);
  for (int g = 0; g < 4; g++) {
    int j = (12345 * g) & (items - 1);
    if (host[8 + g] != (j & 7) + j) fail_msg("%s: work-item %d read %d, expected %d", name, g, host[8 + g], (j & 7) + j);
  }
  assert_cl_success(clReleaseMemObject(p));
  assert_cl_success(clReleaseKernel(k));
}

static int child_private_memory(void) {
  struct child_env e = child_env_new();
  cl_program program = kiln_test_program(e.context, e.device, private_source, NULL);
  cl_kernel huge = kiln_test_kernel(program, "huge");
  if (private_size(huge, e.device) < (256ull << 20))
    fail_msg("256 MiB array: CL_KERNEL_PRIVATE_MEM_SIZE %llu", (unsigned long long)private_size(huge, e.device));
  cl_mem p = kiln_test_buffer(e.context, 64);
  kiln_test_arg_mem(huge, 0, p);
  size_t global = 4;
  assert_int_equal(CL_OUT_OF_RESOURCES, clEnqueueNDRangeKernel(e.queue, huge, 1, NULL, &global, NULL, 0, NULL, NULL));
  assert_cl_success(clReleaseMemObject(p));
  assert_cl_success(clReleaseKernel(huge));
  cl_kernel small = kiln_test_kernel(program, "small");
  cl_ulong small_bytes = private_size(small, e.device);
  if (small_bytes < (4u << 20) || small_bytes > (5u << 20))
    fail_msg("4 MiB array: CL_KERNEL_PRIVATE_MEM_SIZE %llu", (unsigned long long)small_bytes);
  assert_cl_success(clReleaseKernel(small));
  run_private(&e, program, "small", 1 << 20);
  run_private(&e, program, "big", 8 << 20);
  assert_cl_success(clReleaseProgram(program));
  child_env_free(&e);
  return 0;
}

/* keep_T(out, in): a T loaded before a barrier and an int loaded after it, both used
 * after the barrier: frame slots of T and int, whose sum (T's size + 4, rounded to 16) is
 * not a multiple of T's alignment, so only a stride rounded to it keeps every work-item's
 * T aligned. The int is in[...] & 1 (0 or 1): the result is T + 1 + that - that. */
#define WIDE_KERNEL(T, S, N)                                                                \
  "kernel void keep_" #T "(global " #T " *out, global const " #S " *in) {\n"                 \
  "  size_t g = get_global_id(0);\n"                                                         \
  "  " #T " v = vload" #N "(g, in) * (" #T ")(" WIDE_LANES_##N ");\n"                        \
  "  int odd = (int)in[g * " #N "] & 1;\n"                                                   \
  "  barrier(CLK_LOCAL_MEM_FENCE);\n"                                                        \
  "  out[g] = v + (" #S ")(1 + odd) - (" #S ")odd;\n"                                        \
  "}\n"
#define WIDE_LANES_4 "1, 2, 3, 4"
#define WIDE_LANES_8 "1, 2, 3, 4, 5, 6, 7, 8"
#define WIDE_LANES_16 "1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16"

static const char *wide_source = "#pragma OPENCL EXTENSION cl_khr_fp64 : enable\n" WIDE_KERNEL(double4, double, 4)
    WIDE_KERNEL(double8, double, 8) WIDE_KERNEL(float16, float, 16) WIDE_KERNEL(long8, long, 8);

static const struct {
  const char *kernel;
  size_t element, lanes;
  bool is_float, is_double;
} wide_types[] = {
    {"keep_double4", 8, 4, false, true},
    {"keep_double8", 8, 8, false, true},
    {"keep_float16", 4, 16, true, false},
    {"keep_long8", 8, 8, false, false},
};

/* Lane i of item g: in[g * lanes + i] * (i + 1) + 1, with in[j] = j % 97. */
static bool wide_lane_ok(const unsigned char *out, size_t t, size_t g, size_t i) {
  size_t lanes = wide_types[t].lanes, j = g * lanes + i;
  double want = (double)(j % 97) * (double)(i + 1) + 1;
  const unsigned char *at = out + (g * lanes + i) * wide_types[t].element;
  if (wide_types[t].is_double) return *(const double *)at == want;
  if (wide_types[t].is_float) return *(const float *)at == (float)want;
  return *(const long long *)at == (long long)want;
}

static int child_wide_barrier_values(void) {
  struct child_env e = child_env_new();
  cl_program program = kiln_test_program(e.context, e.device, wide_source, NULL);
  enum { GROUPS = 3, MAX_LOCAL = 64, MAX_ITEMS = GROUPS * MAX_LOCAL * 16 };
  static unsigned char in[MAX_ITEMS * 8], out[MAX_ITEMS * 8];
  for (size_t t = 0; t < sizeof wide_types / sizeof wide_types[0]; t++) {
    for (size_t j = 0; j < MAX_ITEMS; j++) {
      if (wide_types[t].is_double) ((double *)in)[j] = (double)(j % 97);
      else if (wide_types[t].is_float) ((float *)in)[j] = (float)(j % 97);
      else ((long long *)in)[j] = (long long)(j % 97);
    }
    cl_mem in_buf = kiln_test_buffer(e.context, sizeof in), out_buf = kiln_test_buffer(e.context, sizeof out);
    kiln_test_write(e.queue, in_buf, sizeof in, in);
    cl_kernel k = kiln_test_kernel(program, wide_types[t].kernel);
    kiln_test_arg_mem(k, 0, out_buf);
    kiln_test_arg_mem(k, 1, in_buf);
    for (size_t local = 1; local <= MAX_LOCAL; local++) {
      size_t global = local * GROUPS;
      assert_cl_success(clEnqueueNDRangeKernel(e.queue, k, 1, NULL, &global, &local, 0, NULL, NULL));
      kiln_test_read(e.queue, out_buf, global * wide_types[t].lanes * wide_types[t].element, out);
      for (size_t g = 0; g < global; g++)
        for (size_t i = 0; i < wide_types[t].lanes; i++)
          if (!wide_lane_ok(out, t, g, i))
            fail_msg("%s, work-group size %zu: item %zu lane %zu wrong", wide_types[t].kernel, local, g, i);
    }
    assert_cl_success(clReleaseKernel(k));
    assert_cl_success(clReleaseMemObject(in_buf));
    assert_cl_success(clReleaseMemObject(out_buf));
  }
  assert_cl_success(clReleaseProgram(program));
  child_env_free(&e);
  return 0;
}

/* Builds `source` and expects CL_BUILD_PROGRAM_FAILURE with every one of `needles` in the log. */
static void expect_build_failure(struct child_env *e, const char *what, const char *source, const char *const *needles) {
  static char log[1 << 14];
  cl_program program;
  cl_int err = try_build(e, source, &program, log, sizeof log);
  if (err != CL_BUILD_PROGRAM_FAILURE) fail_msg("%s: clBuildProgram %d, log: %.300s", what, err, log);
  for (; *needles; needles++)
    if (!strstr(log, *needles)) fail_msg("%s: the log lacks '%s': %.600s", what, *needles, log);
  assert_cl_success(clReleaseProgram(program));
}

static int child_compiler_faults(void) {
  struct child_env e = child_env_new();
  /* clang 19 dereferences NULL in Sema for a vector literal of a pointer (fixed in LLVM 23
   * by a diagnostic): a compiler that has the fix reports an error instead of crashing, so
   * only the failure and a log line are required. Twice: the second runs on a new compiler
   * thread. */
  const char *vector_of_pointer = "kernel void k(global float4 *o, global int *p) { o[0] = (float4)(p); }\n";
  const char *crash_needles[] = {"error", NULL};
  for (int i = 0; i < 2; i++) expect_build_failure(&e, "vector literal of a pointer", vector_of_pointer, crash_needles);
  /* Inline assembly: refused at build (it stopped the process at code generation, with
   * "LLVM ERROR: Inline asm not supported by this streamer", or exited it for an
   * unallocatable register constraint). */
  const char *asm_needles[] = {"inline assembly is not supported", "in function k", NULL};
  expect_build_failure(&e, "inline assembly", "kernel void k(global int *a) { __asm__ volatile(\"nop\"); }\n", asm_needles);
  expect_build_failure(&e, "unallocatable asm operand",
                       "kernel void k(global int *a) { int x; __asm__(\"movl %1, %0\" : \"={foo}\"(x) : \"r\"(a[0])); a[1] = x; }\n",
                       asm_needles);
  const char *file_asm_needles[] = {"inline assembly is not supported", "at file scope", NULL};
  expect_build_failure(&e, "file-scope assembly", "__asm__(\".globl kiln_test_symbol\");\nkernel void k(global int *a) { a[0] = 1; }\n",
                       file_asm_needles);
  /* The compiler still works. */
  cl_program program;
  static char log[4096];
  assert_cl_success(try_build(&e, "kernel void k(global int *a) { a[0] = a[1] + 41; }\n", &program, log, sizeof log));
  assert_int_equal(42, run_expression_kernel(&e, program));
  assert_cl_success(clReleaseProgram(program));
  child_env_free(&e);
  return 0;
}

static const struct kiln_test_child_case child_cases[] = {
    {"compiler_faults", child_compiler_faults},
    {"deep_nesting", child_deep_nesting},
    {"private_memory", child_private_memory},
    {"wide_barrier_values", child_wide_barrier_values},
};

/* ---- the tests ---- */

static void test_deep_nesting(void **state) {
  (void)state;
  kiln_test_child_expect_ok("deep_nesting", 240);
}

static void test_compiler_faults(void **state) {
  (void)state;
  kiln_test_child_expect_ok("compiler_faults", 120);
}

static void test_private_memory(void **state) {
  (void)state;
  kiln_test_child_expect_ok("private_memory", 120);
}

static void test_wide_values_across_barriers(void **state) {
  (void)state;
  kiln_test_child_expect_ok("wide_barrier_values", 120);
}

/* Builds `source` and expects CL_BUILD_PROGRAM_FAILURE with `cycle` in the log. */
static void expect_recursion_refused(struct kiln_test_env *env, const char *source, const char *cycle) {
  cl_int err;
  cl_program program = clCreateProgramWithSource(env->context, 1, &source, NULL, &err);
  assert_cl_success(err);
  err = clBuildProgram(program, 1, &env->device, NULL, NULL, NULL);
  char log[2048] = "";
  assert_cl_success(clGetProgramBuildInfo(program, env->device, CL_PROGRAM_BUILD_LOG, sizeof log, log, NULL));
  if (err != CL_BUILD_PROGRAM_FAILURE || !strstr(log, "recursion") || !strstr(log, cycle))
    fail_msg("%s: clBuildProgram %d, log '%s', expected the cycle '%s'", source, err, log, cycle);
  assert_cl_success(clReleaseProgram(program));
}

static void test_recursion_refused(void **state) {
  struct kiln_test_env *env = *state;
  expect_recursion_refused(env, "int f(int n) { return n ? f(n - 1) : 0; }\n"
                                "kernel void k(global int *a) { a[0] = f(a[1]); }\n",
                           "f -> f");
  expect_recursion_refused(env, "int g(int);\nint f(int n) { return n ? g(n - 1) : 0; }\nint g(int n) { return f(n); }\n"
                                "kernel void k(global int *a) { a[0] = f(a[1]); }\n",
                           "-> f");
  expect_recursion_refused(env, "int h(int);\nint g(int n) { return h(n); }\nint f(int n) { return n ? g(n - 1) : 0; }\n"
                                "int h(int n) { return f(n); }\nkernel void k(global int *a) { a[0] = f(a[1]); }\n",
                           "f -> g -> h -> f");
  expect_recursion_refused(env, "kernel void k(global int *a) { if (a[0]) k(a + 1); }\n", "k -> k");
  /* Compiled apart, the cycle shows when the objects are linked. */
  const char *sources[2] = {"int g(int);\nint f(int n) { return n ? g(n - 1) : 0; }\n"
                            "kernel void k(global int *a) { a[0] = f(a[1]); }\n",
                            "int f(int);\nint g(int n) { return f(n); }\n"};
  cl_program objects[2];
  for (int i = 0; i < 2; i++) {
    cl_int err;
    objects[i] = clCreateProgramWithSource(env->context, 1, &sources[i], NULL, &err);
    assert_cl_success(err);
    assert_cl_success(clCompileProgram(objects[i], 1, &env->device, NULL, 0, NULL, NULL, NULL, NULL));
  }
  cl_int err;
  cl_program linked = clLinkProgram(env->context, 1, &env->device, NULL, 2, objects, NULL, NULL, &err);
  assert_int_equal(CL_LINK_PROGRAM_FAILURE, err);
  if (linked) {
    char log[2048] = "";
    assert_cl_success(clGetProgramBuildInfo(linked, env->device, CL_PROGRAM_BUILD_LOG, sizeof log, log, NULL));
    if (!strstr(log, "recursion")) fail_msg("link log '%s' does not name the recursion", log);
    assert_cl_success(clReleaseProgram(linked));
  }
  for (int i = 0; i < 2; i++) assert_cl_success(clReleaseProgram(objects[i]));
}

int main(int argc, char **argv) {
  kiln_test_child_main(argc, argv, child_cases, sizeof child_cases / sizeof child_cases[0]);
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_deep_nesting),
      cmocka_unit_test(test_compiler_faults),
      cmocka_unit_test(test_private_memory),
      cmocka_unit_test(test_wide_values_across_barriers),
      cmocka_unit_test_setup_teardown(test_recursion_refused, kiln_test_env_setup, kiln_test_env_teardown),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
