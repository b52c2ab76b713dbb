/* builtins_harness.h: what the test_builtins_*.c suites share (header-only: every
 * tests/api/test_*.c is its own executable). A fixture with a context and queue, a build
 * that fails the test with clang's log, and a launcher that moves host arrays in and out
 * of buffers around one NDRange; plus ULP distances for the math checks. */
#ifndef KILN_BUILTINS_HARNESS_H
#define KILN_BUILTINS_HARNESS_H

#include "kiln_test.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define BT_CL12 ""              /* the default: OpenCL C 1.2 */
#define BT_CL30 "-cl-std=CL3.0"

static inline int bt_setup(void **state) { return kiln_test_env_setup(state); }
static inline int bt_teardown(void **state) { return kiln_test_env_teardown(state); }

/* KILN_TEST_VIA_SPIRV=1 (the *_spirv tests of tests/CMakeLists.txt): the program is built
 * from the SPIR-V that clang-15 and llvm-spirv-15 make of the source with the same options
 * (as an offline compiler would), not from the source: every builtin the suite calls then
 * reaches Kiln as the translator writes it (OpenCL.std instructions and the rest). */
static inline cl_program bt_program_via_spirv(struct kiln_test_env *env, const char *source, const char *options) {
  char dir[] = "/tmp/kiln-bt-spirv-XXXXXX";
  assert_non_null(mkdtemp(dir));
  char path[256], command[4096];
  snprintf(path, sizeof path, "%s/program.cl", dir);
  FILE *f = fopen(path, "w");
  assert_non_null(f);
  fputs(source, f);
  fclose(f);
  /* -O0: the builtin calls stay calls, for Kiln's library to answer. */
  snprintf(command, sizeof command,
           "clang-15 -target spir64-unknown-unknown -O0 -emit-llvm -c -Xclang -finclude-default-header %s "
           "%s/program.cl -o %s/program.bc && llvm-spirv-15 --spirv-max-version=1.3 %s/program.bc -o %s/program.spv",
           options ? options : "", dir, dir, dir, dir);
  if (system(command) != 0) fail_msg("clang-15 / llvm-spirv-15 failed: %s", command);
  snprintf(path, sizeof path, "%s/program.spv", dir);
  f = fopen(path, "rb");
  assert_non_null(f);
  fseek(f, 0, SEEK_END);
  long size = ftell(f);
  rewind(f);
  void *il = malloc((size_t)size);
  assert_int_equal((size_t)size, fread(il, 1, (size_t)size, f));
  fclose(f);
  snprintf(command, sizeof command, "rm -rf %s", dir);
  assert_int_equal(0, system(command));
  cl_int err;
  cl_program program = clCreateProgramWithIL(env->context, il, (size_t)size, &err);
  free(il);
  assert_cl_success(err);
  return program;
}

static inline cl_program bt_build(struct kiln_test_env *env, const char *source, const char *options) {
  cl_int err;
  const char *via = getenv("KILN_TEST_VIA_SPIRV");
  bool via_spirv = via && strcmp(via, "1") == 0;
  cl_program program = via_spirv ? bt_program_via_spirv(env, source, options)
                                 : clCreateProgramWithSource(env->context, 1, &source, NULL, &err);
  if (!via_spirv) assert_cl_success(err);
  err = clBuildProgram(program, 1, &env->device, options, NULL, NULL);
  if (err != CL_SUCCESS) {
    size_t size = 0;
    clGetProgramBuildInfo(program, env->device, CL_PROGRAM_BUILD_LOG, 0, NULL, &size);
    char *log = calloc(size + 1, 1);
    clGetProgramBuildInfo(program, env->device, CL_PROGRAM_BUILD_LOG, size, log, NULL);
    print_error("build with \"%s\" failed (%d):\n%s\n", options, err, log);
    free(log);
    clReleaseProgram(program);
    fail();
  }
  return program;
}

/* A kernel argument: IN buffers are copied from the host, OUT buffers too (so unwritten
 * elements keep their sentinels) and are read back after the launch. */
enum bt_kind { BT_KIND_IN, BT_KIND_OUT, BT_KIND_VALUE, BT_KIND_LOCAL };
struct bt_arg {
  enum bt_kind kind;
  void *host;
  size_t size;
};
#define BT_IN(p, n) ((struct bt_arg){BT_KIND_IN, (void *)(p), (n)})
#define BT_OUT(p, n) ((struct bt_arg){BT_KIND_OUT, (void *)(p), (n)})
#define BT_VAL(v) ((struct bt_arg){BT_KIND_VALUE, (void *)&(v), sizeof(v)})
#define BT_LOCAL(n) ((struct bt_arg){BT_KIND_LOCAL, NULL, (n)})
#define BT_ARGS(...) \
  (sizeof((struct bt_arg[]){__VA_ARGS__}) / sizeof(struct bt_arg)), ((struct bt_arg[]){__VA_ARGS__})

static inline void bt_launch(struct kiln_test_env *env, cl_program program, const char *name, cl_uint dim,
                      const size_t *offset, const size_t *global, const size_t *local, size_t nargs,
                      const struct bt_arg *args) {
  cl_int err;
  cl_kernel kernel = clCreateKernel(program, name, &err);
  assert_cl_success(err);
  cl_mem buffers[16] = {0};
  assert_true(nargs <= 16);
  for (size_t i = 0; i < nargs; i++) {
    const struct bt_arg *a = &args[i];
    if (a->kind == BT_KIND_IN || a->kind == BT_KIND_OUT) {
      buffers[i] = clCreateBuffer(env->context, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, a->size, a->host, &err);
      assert_cl_success(err);
      assert_cl_success(clSetKernelArg(kernel, (cl_uint)i, sizeof(cl_mem), &buffers[i]));
    } else {
      assert_cl_success(clSetKernelArg(kernel, (cl_uint)i, a->size, a->host));
    }
  }
  assert_cl_success(clEnqueueNDRangeKernel(env->queue, kernel, dim, offset, global, local, 0, NULL, NULL));
  for (size_t i = 0; i < nargs; i++) {
    if (args[i].kind == BT_KIND_OUT)
      assert_cl_success(clEnqueueReadBuffer(env->queue, buffers[i], CL_TRUE, 0, args[i].size, args[i].host, 0, NULL, NULL));
  }
  assert_cl_success(clFinish(env->queue));
  for (size_t i = 0; i < nargs; i++)
    if (buffers[i]) assert_cl_success(clReleaseMemObject(buffers[i]));
  assert_cl_success(clReleaseKernel(kernel));
}

/* One-dimensional launch; local 0: the implementation picks. */
static inline void bt_run(struct kiln_test_env *env, cl_program program, const char *name, size_t global, size_t local,
                   size_t nargs, const struct bt_arg *args) {
  bt_launch(env, program, name, 1, NULL, &global, local ? &local : NULL, nargs, args);
}

/* Builds `source` with `options`, runs `name` once over `global` work-items, releases. */
static inline void bt_run_source(struct kiln_test_env *env, const char *source, const char *options, const char *name,
                          size_t global, size_t local, size_t nargs, const struct bt_arg *args) {
  cl_program program = bt_build(env, source, options);
  bt_run(env, program, name, global, local, nargs, args);
  assert_cl_success(clReleaseProgram(program));
}

/* Distance in units in the last place of `ref` (precision `mant` bits incl. the implicit
 * one, smallest exponent `emin`) between a result and the exact value; 0 when both are the
 * same NaN/infinity, HUGE_VAL when only one is. */
static inline double bt_ulps(long double got, long double ref, int mant, int emin) {
  if (isnan(ref)) return isnan(got) ? 0.0 : HUGE_VAL;
  if (isinf(ref) || isinf(got)) return got == ref ? 0.0 : HUGE_VAL;
  int e = ref == 0.0L ? emin : ilogbl(ref);
  if (e < emin) e = emin;
  return (double)(fabsl(got - ref) / ldexpl(1.0L, e - (mant - 1)));
}
static inline double bt_ulps_float(float got, long double ref) {
  /* a reference beyond FLT_MAX rounds to infinity when it is within half an ulp */
  if (isinf(got) && !isinf(ref) && fabsl(ref) >= 0x1.ffffffp127L) return (got > 0) == (ref > 0) ? 0.0 : HUGE_VAL;
  return bt_ulps(got, ref, 24, -126);
}
static inline double bt_ulps_double(double got, long double ref) {
  if (isinf(got) && !isinf(ref) && fabsl(ref) >= 0x1.fffffffffffff8p1023L) return (got > 0) == (ref > 0) ? 0.0 : HUGE_VAL;
  return bt_ulps(got, ref, 53, -1022);
}

static inline uint32_t bt_bits_of_float(float f) {
  uint32_t u;
  memcpy(&u, &f, sizeof u);
  return u;
}
static inline uint64_t bt_bits_of_double(double d) {
  uint64_t u;
  memcpy(&u, &d, sizeof u);
  return u;
}

/* A small deterministic generator (the suites must not depend on the host's rand()). */
static inline uint64_t bt_random(uint64_t *state) {
  uint64_t x = *state ? *state : 0x9e3779b97f4a7c15ull;
  x ^= x >> 12, x ^= x << 25, x ^= x >> 27;
  *state = x;
  return x * 0x2545f4914f6cdd1dull;
}

/* Appends `template` to `out` for element type t (unsigned u) and vector size n: the
 * standalone words T and U become the type names, TN the vector type, and LD(i, p) /
 * ST(v, i, p) load and store the i-th value (vloadn/vstoren, or plain for n = 1). */
static inline void bt_instantiate(char *out, const char *template, const char *t, const char *u, int n) {
  char nstr[16] = "";
  if (n > 1) snprintf(nstr, sizeof nstr, "%d", n);
  char *p = out + strlen(out);
  if (n == 1)
    p += sprintf(p, "#undef LD\n#undef ST\n#define LD(i, p) (p)[i]\n#define ST(v, i, p) ((p)[i] = (v))\n");
  else
    p += sprintf(p, "#undef LD\n#undef ST\n#define LD(i, p) vload%d(i, p)\n#define ST(v, i, p) vstore%d(v, i, p)\n", n, n);
  for (const char *s = template; *s; s++) {
    if (*s == 'T' && s[1] == 'N') p += sprintf(p, "%s%s", t, nstr), s++;
    else if (*s == 'T' && !isalnum((unsigned char)s[1]) && (s == template || !isalnum((unsigned char)s[-1]))) p += sprintf(p, "%s", t);
    else if (*s == 'U' && !isalnum((unsigned char)s[1]) && !isalnum((unsigned char)s[-1])) p += sprintf(p, "%s", u);
    else *p++ = *s;
  }
  *p = '\0';
}

#endif
