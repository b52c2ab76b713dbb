/* The kernel compiler end to end: clang diagnostics in the log, kernel descriptions from
 * the metadata, linking, JIT-compiled launchers run over 1-D and 3-D NDRanges (offsets,
 * partial last groups), static and dynamic __local memory under concurrent launches,
 * program binaries. Kernels use the work-item intrinsics of kernel_abi.h directly, so
 * these tests do not depend on the builtin library. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "device/cpu/compiler/compiler.h"
#include "kiln_test_child.h"

#include <CL/cl.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PRELUDE                                                                                                  \
  "size_t __kiln_local_id(uint d); size_t __kiln_group_id(uint d); size_t __kiln_local_size(uint d);\n"        \
  "size_t __kiln_enqueued_local_size(uint d); size_t __kiln_global_offset(uint d);\n"                            \
  "size_t __kiln_global_size(uint d); size_t __kiln_num_groups(uint d); uint __kiln_work_dim(void);\n"           \
  "void __kiln_barrier(uint flags);\n"                                                                          \
  "#define GID(d) (__kiln_group_id(d) * __kiln_enqueued_local_size(d) + __kiln_local_id(d) + "                   \
  "__kiln_global_offset(d))\n"

static kiln_module *compile_ok(const char *source, const char *options) {
  kiln_module *m = NULL;
  char *log = NULL;
  int status = kiln_compiler_compile(source, strlen(source), options, NULL, 0, &m, &log);
  if (status != KILN_COMPILE_OK) print_error("compile failed (%d): %s\n", status, log);
  assert_int_equal(status, KILN_COMPILE_OK);
  assert_non_null(m);
  assert_non_null(log);
  free(log);
  return m;
}

static kiln_module *link_ok(kiln_module *object, const char *options) {
  kiln_module *exe = NULL;
  char *log = NULL;
  int status = kiln_compiler_link(&object, 1, options, false, &exe, &log);
  if (status != KILN_COMPILE_OK) print_error("link failed (%d): %s\n", status, log);
  assert_int_equal(status, KILN_COMPILE_OK);
  assert_int_equal(kiln_module_get_kind(exe), KILN_MODULE_EXECUTABLE);
  free(log);
  return exe;
}

static kiln_jit_program *jit_ok(const kiln_module *exe) {
  kiln_jit_program *jit = NULL;
  char *log = NULL;
  int status = kiln_jit_load(exe, &jit, &log);
  if (status != KILN_COMPILE_OK) print_error("jit failed (%d): %s\n", status, log);
  assert_int_equal(status, KILN_COMPILE_OK);
  free(log);
  return jit;
}

/* source -> executable -> JIT */
struct built {
  kiln_module *exe;
  kiln_jit_program *jit;
};

static struct built build(const char *source, const char *options) {
  kiln_module *object = compile_ok(source, options);
  struct built b = {link_ok(object, options), NULL};
  kiln_module_free(object);
  b.jit = jit_ok(b.exe);
  return b;
}

static void built_free(struct built *b) {
  kiln_jit_free(b->jit);
  kiln_module_free(b->exe);
}

static struct kiln_ndrange ndrange(uint32_t dim, const uint64_t *offset, const uint64_t *global, const uint64_t *local) {
  struct kiln_ndrange nd = {.work_dim = dim};
  for (uint32_t d = 0; d < 3; d++) {
    nd.global_offset[d] = d < dim && offset ? offset[d] : 0;
    nd.global_size[d] = d < dim ? global[d] : 1;
    nd.local_size[d] = d < dim ? local[d] : 1;
    nd.num_groups[d] = (nd.global_size[d] + nd.local_size[d] - 1) / nd.local_size[d];
  }
  return nd;
}

static uint64_t group_total(const struct kiln_ndrange *nd) {
  return nd->num_groups[0] * nd->num_groups[1] * nd->num_groups[2];
}

static void put_arg(unsigned char *block, const struct kiln_kernel_desc *k, uint32_t index, const void *value,
                    size_t size) {
  assert_true(index < k->num_args);
  assert_true(k->args[index].offset + size <= k->args_block_size);
  memcpy(block + k->args[index].offset, value, size);
}

static const struct kiln_kernel_desc *kernel_named(const kiln_module *m, const char *name, size_t *index) {
  for (size_t i = 0; i < kiln_module_kernel_count(m); i++)
    if (strcmp(kiln_module_kernel(m, i)->name, name) == 0) {
      if (index) *index = i;
      return kiln_module_kernel(m, i);
    }
  fail_msg("no kernel %s", name);
  return NULL;
}

static void compile_errors_in_log(void **state) {
  (void)state;
  const char *src = "__kernel void k(__global int *p) {\n  p[0] = 1 +;\n}\n";
  kiln_module *m = NULL;
  char *log = NULL;
  assert_int_equal(kiln_compiler_compile(src, strlen(src), "", NULL, 0, &m, &log), KILN_COMPILE_FAILED);
  assert_null(m);
  assert_non_null(log);
  assert_non_null(strstr(log, "program.cl:2:"));
  assert_non_null(strstr(log, "error"));
  free(log);

  /* #warning: a warning in the log, an error with -Werror, nothing with -w. */
  const char *warn = "#warning watch out\n__kernel void k(__global int *p) { p[0] = 1; }\n";
  assert_int_equal(kiln_compiler_compile(warn, strlen(warn), "", NULL, 0, &m, &log), KILN_COMPILE_OK);
  assert_non_null(strstr(log, "warning: watch out"));
  free(log);
  kiln_module_free(m);
  assert_int_equal(kiln_compiler_compile(warn, strlen(warn), "-Werror", NULL, 0, &m, &log), KILN_COMPILE_FAILED);
  assert_non_null(strstr(log, "watch out"));
  free(log);
  assert_int_equal(kiln_compiler_compile(warn, strlen(warn), "-w", NULL, 0, &m, &log), KILN_COMPILE_OK);
  assert_null(strstr(log, "watch out"));
  free(log);
  kiln_module_free(m);

  /* Invalid options never reach clang. */
  assert_int_equal(kiln_compiler_compile(warn, strlen(warn), "-bogus", NULL, 0, &m, &log),
                   KILN_COMPILE_INVALID_OPTIONS);
  assert_non_null(strstr(log, "-bogus"));
  free(log);
  /* OpenCL C 1.2 has no program-scope __global variables; 3.0 with the feature does. */
  const char *globals = "__global int counter[10];\n__kernel void k(void) { counter[0]++; }\n";
  assert_int_equal(kiln_compiler_compile(globals, strlen(globals), "", NULL, 0, &m, &log), KILN_COMPILE_FAILED);
  free(log);
  assert_int_equal(kiln_compiler_compile(globals, strlen(globals), "-cl-std=CL3.0", NULL, 0, &m, &log),
                   KILN_COMPILE_OK);
  free(log);
  assert_int_equal(kiln_module_global_variable_bytes(m), 40);
  kiln_module_free(m);
}

static void feature_macros(void **state) {
  (void)state;
  const char *src =
      "#if !defined(cl_khr_fp64) || !defined(__opencl_c_fp64) || !defined(__opencl_c_int64)\n#error missing\n#endif\n"
      "#if !defined(__opencl_c_pipes) || !defined(__opencl_c_generic_address_space)\n#error missing\n#endif\n"
      "#if !defined(__opencl_c_images) || !defined(__opencl_c_read_write_images) || "
      "!defined(__opencl_c_3d_image_writes) || !defined(__IMAGE_SUPPORT__)\n#error missing\n#endif\n"
      "#if !defined(__opencl_c_subgroups) || !defined(__opencl_c_device_enqueue) || "
      "!defined(__opencl_c_work_group_collective_functions)\n#error missing\n#endif\n"
      "#if !defined(__opencl_c_program_scope_global_variables) || !defined(cl_khr_global_int32_base_atomics)\n"
      "#error missing\n#endif\n"
      "__kernel void k(__global double *d) { d[0] = 1.0; }\n";
  kiln_module *m = compile_ok(src, "-cl-std=CL3.0");
  kiln_module_free(m);
  m = compile_ok("#if __OPENCL_C_VERSION__ != 120\n#error\n#endif\n__kernel void k(void) {}\n", NULL);
  kiln_module_free(m);
}

static void kernel_descriptions(void **state) {
  (void)state;
  const char *src =
      "typedef struct { int a; float4 b; char c; } S;\n"
      "__kernel __attribute__((reqd_work_group_size(8, 2, 1))) __attribute__((vec_type_hint(float4)))\n"
      "void many(__global float4 *a, __constant int *b, __local char *c, uint d, float3 e, S s,\n"
      "          const __global int *restrict f, volatile __global int *g, char h, double i) {\n"
      "  __local float tmp[64]; __local int other;\n"
      "  tmp[0] = e.x; other = 1; a[0] = s.b + tmp[d] + other + b[0] + c[0] + f[0] + g[0] + h + (float)i;\n"
      "}\n"
      "__kernel __attribute__((work_group_size_hint(4, 1, 1))) void small(__global int *p) { p[0] = 0; }\n";
  kiln_module *m = compile_ok(src, "-cl-kernel-arg-info");
  assert_int_equal(kiln_module_get_kind(m), KILN_MODULE_OBJECT);
  assert_int_equal(kiln_module_kernel_count(m), 2);
  const struct kiln_kernel_desc *k = kernel_named(m, "many", NULL);
  assert_int_equal(k->num_args, 10);
  static const enum kiln_arg_kind kinds[] = {KILN_ARG_GLOBAL_PTR, KILN_ARG_CONSTANT_PTR, KILN_ARG_LOCAL_PTR,
                                             KILN_ARG_BY_VALUE,   KILN_ARG_BY_VALUE,     KILN_ARG_BY_VALUE,
                                             KILN_ARG_GLOBAL_PTR, KILN_ARG_GLOBAL_PTR,   KILN_ARG_BY_VALUE,
                                             KILN_ARG_BY_VALUE};
  static const uint32_t offsets[] = {0, 8, 16, 24, 32, 48, 96, 104, 112, 120};
  static const uint32_t sizes[] = {8, 8, 0, 4, 16, 48, 8, 8, 1, 8};
  static const char *const types[] = {"float4*", "int*", "char*", "uint", "float3",
                                      "S",       "int*", "int*",  "char", "double"};
  static const char *const names[] = {"a", "b", "c", "d", "e", "s", "f", "g", "h", "i"};
  for (uint32_t i = 0; i < 10; i++) {
    assert_int_equal(k->args[i].kind, kinds[i]);
    assert_int_equal(k->args[i].offset, offsets[i]);
    assert_int_equal(k->args[i].size, sizes[i]);
    assert_string_equal(k->args[i].type_name, types[i]);
    assert_non_null(k->args[i].name);
    assert_string_equal(k->args[i].name, names[i]);
  }
  assert_int_equal(k->args_block_size, 128);
  assert_int_equal(k->args[0].address_qualifier, CL_KERNEL_ARG_ADDRESS_GLOBAL);
  assert_int_equal(k->args[1].address_qualifier, CL_KERNEL_ARG_ADDRESS_CONSTANT);
  assert_int_equal(k->args[2].address_qualifier, CL_KERNEL_ARG_ADDRESS_LOCAL);
  assert_int_equal(k->args[3].address_qualifier, CL_KERNEL_ARG_ADDRESS_PRIVATE);
  assert_int_equal(k->args[0].access_qualifier, CL_KERNEL_ARG_ACCESS_NONE);
  assert_int_equal(k->args[0].type_qualifier, 0);
  assert_int_equal(k->args[1].type_qualifier, CL_KERNEL_ARG_TYPE_CONST);
  assert_int_equal(k->args[6].type_qualifier, CL_KERNEL_ARG_TYPE_CONST | CL_KERNEL_ARG_TYPE_RESTRICT);
  assert_int_equal(k->args[7].type_qualifier, CL_KERNEL_ARG_TYPE_VOLATILE);
  assert_int_equal(k->reqd_work_group_size[0], 8);
  assert_int_equal(k->reqd_work_group_size[1], 2);
  assert_int_equal(k->reqd_work_group_size[2], 1);
  assert_non_null(strstr(k->attributes, "reqd_work_group_size(8,2,1)"));
  assert_non_null(strstr(k->attributes, "vec_type_hint(float4)"));
  assert_int_equal(k->static_local_bytes, 64 * 4 + 4);
  assert_false(k->uses_barriers);
  const struct kiln_kernel_desc *s = kernel_named(m, "small", NULL);
  assert_int_equal(s->work_group_size_hint[0], 4);
  assert_int_equal(s->reqd_work_group_size[0], 0);
  assert_string_equal(s->attributes, "work_group_size_hint(4,1,1)");
  assert_int_equal(s->static_local_bytes, 0);
  kiln_module_free(m);

  /* Without -cl-kernel-arg-info: no names. A barrier is detected. */
  m = compile_ok("__kernel void b(__global int *p) { barrier(CLK_LOCAL_MEM_FENCE); p[0] = 1; }\n", "");
  assert_null(kiln_module_kernel(m, 0)->args[0].name);
  assert_true(kiln_module_kernel(m, 0)->uses_barriers);
  kiln_module_free(m);
}

/* has_loops (the batch planner's cost hint): loops in the kernel or a function it calls,
 * for, while and goto alike, however few iterations; not a loop in an uncalled function. */
static void loop_detection(void **state) {
  (void)state;
  kiln_module *m = compile_ok(
      "int sum_to(int n) { int s = 0; for (int i = 0; i < n; i++) s += i; return s; }\n"
      "int twice(int x) { return 2 * x; }\n"
      "__kernel void straight(__global int *p) { p[get_global_id(0)] = twice(3); }\n"
      "__kernel void own_loop(__global int *p) { for (int k = 0; k < 2; k++) p[k] = k; }\n"
      "__kernel void callee_loop(__global int *p) { p[0] = twice(sum_to(p[1])); }\n"
      "__kernel void while_loop(__global int *p) { int i = p[0]; while (i > 1) i /= 2; p[1] = i; }\n"
      "__kernel void goto_loop(__global int *p) { int i = 0; again: if (p[i]) { i++; goto again; } }\n"
      "__kernel void branches(__global int *p) { if (p[0]) p[1] = 1; else p[2] = 2; }\n",
      "");
  const struct {
    const char *name;
    bool loops;
  } kernels[] = {{"straight", false},  {"own_loop", true},  {"callee_loop", true},
                 {"while_loop", true}, {"goto_loop", true}, {"branches", false}};
  for (size_t i = 0; i < sizeof kernels / sizeof kernels[0]; i++) {
    const struct kiln_kernel_desc *k = kernel_named(m, kernels[i].name, NULL);
    if (k->has_loops != kernels[i].loops)
      fail_msg("%s: has_loops %d, expected %d", kernels[i].name, k->has_loops, kernels[i].loops);
  }
  /* After linking a library with the definition, the kernel sees its callee's loop. */
  kiln_module *caller = compile_ok("int work(int);\n__kernel void k(__global int *p) { p[0] = work(p[1]); }\n", "");
  assert_false(kiln_module_kernel(caller, 0)->has_loops);
  kiln_module *callee = compile_ok("int work(int n) { int s = 0; while (n--) s += n; return s; }\n", "");
  kiln_module *inputs[2] = {caller, callee}, *exe = NULL;
  char *log = NULL;
  assert_int_equal(kiln_compiler_link(inputs, 2, "", false, &exe, &log), KILN_COMPILE_OK);
  free(log);
  assert_true(kiln_module_kernel(exe, 0)->has_loops);
  kiln_module_free(exe);
  kiln_module_free(caller);
  kiln_module_free(callee);
  kiln_module_free(m);
}

/* kiln_jit_launcher_stack: from the machine code, a launcher's frame (private arrays
 * included); a 4 MiB private array shows in full, a plain kernel needs well under 64 KiB;
 * loading the same code from its objects gives the same. */
/* A fault of the compiler fails the call with a log saying what happened; the compiler
 * works afterwards (on a new thread: a faulted one is not reused). In a child process:
 * CMocka installs signal handlers of its own for each test, over Kiln's. */
static int child_compiler_faults(void) {
  static const struct {
    enum kiln_compiler_fault kind;
    const char *needle;
  } cases[] = {{KILN_FAULT_SIGSEGV, "crashed compiling this program (SIGSEGV"},
               {KILN_FAULT_SIGFPE, "crashed compiling this program (SIGFPE"},
               {KILN_FAULT_LLVM_FATAL_ERROR, "fatal error, caught by Kiln): provoked by a Kiln test"}};
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    char *log = NULL;
    assert_int_equal(KILN_COMPILE_FAILED, kiln_compiler_provoke_fault(cases[i].kind, &log));
    if (!log || !strstr(log, cases[i].needle)) fail_msg("fault %zu: log '%s'", i, log ? log : "(none)");
    free(log);
    kiln_module *m = compile_ok("__kernel void k(__global int *p) { p[0] = 1; }\n", "");
    kiln_module_free(m);
  }
  return 0;
}

/* A fault outside the compiler after Kiln's handlers are installed (by a compile) ends the
 * process as it ends without them (by the signal; under ASan, by its report and exit
 * status): a segmentation fault, and a SIGSEGV sent to the process. */
static volatile uintptr_t null_address;
static void compile_once(void) { kiln_module_free(compile_ok("__kernel void k(__global int *p) { p[0] = 1; }\n", "")); }
static int child_fault_alone(void) {
  *(volatile int *)null_address = 1;
  return 0;
}
static int child_fault_after_compile(void) {
  compile_once();
  return child_fault_alone();
}
static int child_signal_alone(void) {
  raise(SIGSEGV);
  return 0;
}
static int child_signal_after_compile(void) {
  compile_once();
  return child_signal_alone();
}

static const struct kiln_test_child_case child_cases[] = {
    {"compiler_faults", child_compiler_faults},         {"fault_alone", child_fault_alone},
    {"fault_after_compile", child_fault_after_compile}, {"signal_alone", child_signal_alone},
    {"signal_after_compile", child_signal_after_compile}};

static void expect_same_end(const char *alone, const char *after_compile) {
  char output[8192];
  int expected = kiln_test_child_run(alone, 60, output, sizeof output);
  assert_true(WIFSIGNALED(expected) || (WIFEXITED(expected) && WEXITSTATUS(expected) != 0));
  int status = kiln_test_child_run(after_compile, 60, output, sizeof output);
  if (status != expected)
    fail_msg("%s: wait status %#x, %#x without Kiln's handlers; output:\n%s", after_compile, status, expected, output);
}

static void compiler_faults(void **state) {
  (void)state;
  kiln_test_child_expect_ok("compiler_faults", 60);
  expect_same_end("fault_alone", "fault_after_compile");
  expect_same_end("signal_alone", "signal_after_compile");
}

/* The program loaded again from the objects `jit` compiled (the compiled-code cache's path). */
static kiln_jit_program *reloaded(kiln_module *exe, kiln_jit_program *jit) {
  size_t count = kiln_jit_object_count(jit);
  assert_true(count >= 1 && count <= 8);
  const void *objects[8];
  size_t sizes[8];
  for (size_t i = 0; i < count; i++) objects[i] = kiln_jit_object(jit, i, &sizes[i]);
  kiln_jit_program *again = NULL;
  char *log = NULL;
  assert_int_equal(KILN_COMPILE_OK, kiln_jit_load_objects(exe, objects, sizes, count, &again, &log));
  free(log);
  return again;
}

static void stack_sizes(void **state) {
  (void)state;
  kiln_module *m = compile_ok(
      "__kernel void small(__global int *p) { p[get_global_id(0)] += 1; }\n"
      "__kernel void big(__global int *p) { int a[1 << 20]; for (int i = 0; i < (1 << 20); i++) a[i] = p[i & 7] + i;"
      " p[0] = a[p[1] & ((1 << 20) - 1)]; }\n",
      "");
  kiln_module *exe = link_ok(m, "");
  kiln_jit_program *jit = jit_ok(exe);
  size_t small_index, big_index;
  kernel_named(exe, "small", &small_index);
  kernel_named(exe, "big", &big_index);
  uint64_t small = kiln_jit_launcher_stack(jit, small_index), big = kiln_jit_launcher_stack(jit, big_index);
  if (small == 0 || small >= (64u << 10)) fail_msg("small kernel: %llu bytes of stack", (unsigned long long)small);
  if (big < (4u << 20) || big > (4u << 20) + (1u << 20)) fail_msg("4 MiB private array: %llu bytes", (unsigned long long)big);
  kiln_jit_program *again = reloaded(exe, jit);
  assert_int_equal(big, kiln_jit_launcher_stack(again, big_index));
  assert_int_equal(small, kiln_jit_launcher_stack(again, small_index));
  kiln_jit_free(again);
  kiln_jit_free(jit);
  kiln_module_free(exe);
  kiln_module_free(m);
}

/* kiln_jit_launcher_uses_fibers: kernels with a loop whose exit depends on an atomic,
 * volatile or pipe read inside it (or a plain one where the loop has a fence) run their
 * work-items as fibers (a spin lock, a semaphore's wait too); compare-and-swap loops that
 * retry an update (a float atomic add; the CTS's strong exchange with its spurious-failure
 * check) and loops of atomics whose
 * results decide nothing, and reads before a loop, keep the ordinary launchers; the same
 * from the objects (the compiled-code cache's path). */
static void fiber_launchers(void **state) {
  (void)state;
  static const struct {
    const char *name;
    bool fibers;
  } kernels[] = {{"spin", true},          {"volatile_spin", true},  {"spin_lock", true},    {"pipe_spin", true},
                 {"fenced_spin", true},   {"semaphore", true},      {"cas_retry", false},   {"float_add", false},
                 {"strong_retry", false},
                 {"histogram", false},    {"read_before", false},   {"counter_index", false},
                 {"fenced_loop", false},  {"plain", false}};
  kiln_module *m = compile_ok(
      "kernel void spin(local atomic_int *f, global int *p) { while (atomic_load(f) == 0) ; p[0] = 1; }\n"
      "kernel void volatile_spin(volatile global int *f) { while (*f == 0) ; f[1] = 1; }\n"
      "kernel void cas_retry(global atomic_int *c) { int old = atomic_load(c);\n"
      "  while (!atomic_compare_exchange_weak(c, &old, old * 2 + 1)) ; }\n"
      "kernel void float_add(volatile global float *p, float v) { union { uint u; float f; } o, n;\n"
      "  do { o.f = *p; n.f = o.f + v; } while (atomic_cmpxchg((volatile global uint *)p, o.u, n.u) != o.u); }\n"
      "kernel void strong_retry(global atomic_int *d, global int *p) { int expected = p[0], previous, n = 0;\n"
      "  for (int i = 0; i < 100 || n == 0; i++) { previous = expected;\n"
      "    if (atomic_compare_exchange_strong(d, &expected, p[1])) n++; else if (previous == expected) break; }\n"
      "  p[2] = n; }\n"
      "kernel void spin_lock(volatile global int *lock, global int *p) {\n"
      "  while (atomic_cmpxchg(lock, 0, 1) != 0) ; p[0]++; atomic_xchg(lock, 0); }\n"
      "kernel void semaphore(global atomic_int *s) { for (;;) { int old = atomic_load(s);\n"
      "  if (old > 0 && atomic_compare_exchange_strong(s, &old, old - 1)) break; } }\n"
      "kernel void pipe_spin(read_only pipe int in, global int *p) { int v; while (read_pipe(in, &v) != 0) ; p[0] = v; }\n"
      "kernel void histogram(global const uchar *in, global atomic_int *h, int n) {\n"
      "  for (int i = 0; i < n; i++) atomic_fetch_add(&h[in[i]], 1); }\n"
      "kernel void read_before(global atomic_int *c, global int *p) { int n = atomic_load(c);\n"
      "  for (int i = 0; i < n; i++) p[i] = i; }\n"
      "kernel void counter_index(global atomic_int *c, global int *p, int n) {\n"
      "  for (int i = 0; i < n; i++) p[atomic_fetch_add(c, 1)] = i; }\n"
      "kernel void fenced_spin(global int *f) { while (f[0] == 0) mem_fence(CLK_GLOBAL_MEM_FENCE); f[1] = 1; }\n"
      "kernel void fenced_loop(global int *p, int n) { for (int i = 0; i < n; i++) { p[i] = p[i + n];\n"
      "  mem_fence(CLK_GLOBAL_MEM_FENCE); } }\n"
      "kernel void plain(global int *p, int n) { for (int i = 0; i < n; i++) p[i] += i; }\n",
      "-cl-std=CL2.0");
  /* Unoptimized, a read reaches the exit's branch through a stack variable. */
  kiln_module *unoptimized = compile_ok(
      "kernel void spin(local atomic_int *f, global int *p) { int v; do { v = atomic_load(f); if (v != 0) break; }\n"
      "  while (true); p[0] = v; }\n"
      "kernel void histogram(global const uchar *in, global atomic_int *h, global int *seen, int n) {\n"
      "  for (int i = 0; i < n; i++) { int old = atomic_fetch_add(&h[in[i]], 1); seen[i] = old; } }\n",
      "-cl-std=CL2.0 -cl-opt-disable");
  kiln_module *unoptimized_exe = link_ok(unoptimized, "-cl-opt-disable");
  kiln_jit_program *unoptimized_jit = jit_ok(unoptimized_exe);
  size_t spin_index, histogram_index;
  kernel_named(unoptimized_exe, "spin", &spin_index);
  kernel_named(unoptimized_exe, "histogram", &histogram_index);
  assert_true(kiln_jit_launcher_uses_fibers(unoptimized_jit, spin_index));
  assert_false(kiln_jit_launcher_uses_fibers(unoptimized_jit, histogram_index));
  kiln_jit_free(unoptimized_jit);
  kiln_module_free(unoptimized_exe);
  kiln_module_free(unoptimized);

  kiln_module *exe = link_ok(m, "");
  kiln_jit_program *jit = jit_ok(exe);
  kiln_jit_program *again = reloaded(exe, jit);
  for (size_t i = 0; i < sizeof kernels / sizeof kernels[0]; i++) {
    size_t index;
    kernel_named(exe, kernels[i].name, &index);
    if (kiln_jit_launcher_uses_fibers(jit, index) != kernels[i].fibers)
      fail_msg("%s: fibers %d, expected %d", kernels[i].name, !kernels[i].fibers, kernels[i].fibers);
    assert_int_equal(kernels[i].fibers, kiln_jit_launcher_uses_fibers(again, index));
  }
  kiln_jit_free(again);
  kiln_jit_free(jit);
  kiln_module_free(exe);
  kiln_module_free(m);
}

static void link_errors(void **state) {
  (void)state;
  kiln_module *m = compile_ok("int helper(int);\n__kernel void k(__global int *p) { p[0] = helper(1); }\n", "");
  kiln_module *exe = NULL;
  char *log = NULL;
  assert_int_equal(kiln_compiler_link(&m, 1, "", false, &exe, &log), KILN_COMPILE_FAILED);
  assert_null(exe);
  assert_non_null(strstr(log, "undefined function helper"));
  free(log);
  /* As a library the open reference is fine; linked with its definition it resolves. */
  kiln_module *lib = NULL;
  assert_int_equal(kiln_compiler_link(&m, 1, "-create-library", true, &lib, &log), KILN_COMPILE_OK);
  free(log);
  assert_int_equal(kiln_module_get_kind(lib), KILN_MODULE_LIBRARY);
  kiln_module *def = compile_ok("int helper(int x) { return x + 41; }\n", "");
  kiln_module *inputs[2] = {lib, def};
  assert_int_equal(kiln_compiler_link(inputs, 2, "", false, &exe, &log), KILN_COMPILE_OK);
  free(log);
  kiln_jit_program *jit = jit_ok(exe);
  int out = 0;
  int *p = &out;
  struct kiln_ndrange nd = ndrange(1, NULL, (uint64_t[]){1}, (uint64_t[]){1});
  kiln_jit_launcher(jit, 0)(&p, &nd, 0, 1, NULL);
  assert_int_equal(out, 42);
  kiln_jit_free(jit);
  kiln_module_free(exe);
  /* Two definitions of the same function: a link error. */
  inputs[1] = def;
  inputs[0] = def;
  assert_int_equal(kiln_compiler_link(inputs, 2, "", false, &exe, &log), KILN_COMPILE_FAILED);
  assert_true(strlen(log) > 0);
  free(log);
  kiln_module_free(def);
  kiln_module_free(lib);
  kiln_module_free(m);
}

static const char vector_add_src[] = PRELUDE
    "__kernel void vadd(__global const float *a, __global const float *b, __global float *c, float scale) {\n"
    "  size_t i = GID(0);\n"
    "  c[i] = (a[i] + b[i]) * scale;\n"
    "}\n";

static void vector_add(void **state) {
  (void)state;
  struct built b = build(vector_add_src, NULL);
  size_t index = 0;
  const struct kiln_kernel_desc *k = kernel_named(b.exe, "vadd", &index);
  enum { N = 1000 };
  float *a = malloc(N * sizeof *a), *bb = malloc(N * sizeof *bb), *c = calloc(N, sizeof *c);
  for (int i = 0; i < N; i++) {
    a[i] = (float)i;
    bb[i] = 0.5f * (float)i;
  }
  unsigned char block[64] __attribute__((aligned(16))) = {0};
  float scale = 2.0f;
  put_arg(block, k, 0, &a, sizeof a);
  put_arg(block, k, 1, &bb, sizeof bb);
  put_arg(block, k, 2, &c, sizeof c);
  put_arg(block, k, 3, &scale, sizeof scale);
  struct kiln_ndrange nd = ndrange(1, NULL, (uint64_t[]){N}, (uint64_t[]){64}); /* 16 groups, last partial */
  assert_int_equal(group_total(&nd), 16);
  kiln_launcher_fn fn = kiln_jit_launcher(b.jit, index);
  assert_non_null(fn);
  assert_null(kiln_jit_launcher(b.jit, 5));
  fn(block, &nd, 0, 10, NULL); /* two batches of groups */
  fn(block, &nd, 10, 6, NULL);
  for (int i = 0; i < N; i++) assert_true(c[i] == (a[i] + bb[i]) * 2.0f);
  free(a);
  free(bb);
  free(c);
  built_free(&b);
}

/* Launches with KILN_NDRANGE_STREAMING_STORES take the non-temporal copies of streaming
 * stores (compiler/streaming_stores.hpp) where the address is aligned, the ordinary stores
 * elsewhere: the same results either way, for aligned and misaligned buffers, partial
 * groups, and kernels whose stores do not stream (read back, gaps). */
static const char streaming_src[] = PRELUDE
    "__kernel void add(__global const float *a, __global const float *b, __global float *c) {\n"
    "  size_t i = GID(0);\n"
    "  c[i] = a[i] + b[i];\n"
    "}\n"
    "__kernel void accumulate(__global const float *a, __global const float *b, __global float *c) {\n"
    "  size_t i = GID(0);\n"
    "  c[i] += a[i] * b[i];\n"
    "}\n"
    "__kernel void spread(__global const float *a, __global const float *b, __global float *c) {\n"
    "  size_t i = GID(0);\n"
    "  c[2 * i] = a[i] - b[i];\n"
    "}\n";

static void streaming_stores(void **state) {
  (void)state;
  struct built b = build(streaming_src, NULL);
  enum { N = 1000 };
  enum { ROOM = 4096 * sizeof(float) }; /* a multiple of the alignment, past 2 * N + 1 floats */
  float *a = aligned_alloc(64, ROOM), *bb = aligned_alloc(64, ROOM), *c = aligned_alloc(64, ROOM);
  float *expect = malloc(2 * N * sizeof *expect);
  const char *names[] = {"add", "accumulate", "spread"};
  for (int kernel = 0; kernel < 3; kernel++) {
    size_t index = 0;
    const struct kiln_kernel_desc *k = kernel_named(b.exe, names[kernel], &index);
    kiln_launcher_fn fn = kiln_jit_launcher(b.jit, index);
    assert_non_null(fn);
    for (unsigned variant = 0; variant < 8; variant++) {
      uint32_t flags = variant & 1 ? KILN_NDRANGE_STREAMING_STORES : 0;
      size_t shift = variant & 2 ? 1 : 0;          /* c one float off its 64-byte alignment */
      uint64_t local = variant & 4 ? 7 : 64;       /* partial groups, odd vector starts */
      float *cs = c + shift;
      for (int i = 0; i < N; i++) {
        a[i] = (float)i;
        bb[i] = 0.25f * (float)(i % 13);
      }
      for (int i = 0; i < 2 * N; i++) cs[i] = expect[i] = (float)(i % 5);
      for (int i = 0; i < N; i++) {
        if (kernel == 0) expect[i] = a[i] + bb[i];
        if (kernel == 1) expect[i] += a[i] * bb[i];
        if (kernel == 2) expect[2 * i] = a[i] - bb[i];
      }
      unsigned char block[64] __attribute__((aligned(16))) = {0};
      put_arg(block, k, 0, &a, sizeof a);
      put_arg(block, k, 1, &bb, sizeof bb);
      put_arg(block, k, 2, &cs, sizeof cs);
      struct kiln_ndrange nd = ndrange(1, NULL, (uint64_t[]){N}, (uint64_t[]){local});
      nd.flags = flags;
      uint64_t groups = group_total(&nd), half = groups / 2;
      assert_int_equal(fn(block, &nd, 0, half, NULL), 0);
      assert_int_equal(fn(block, &nd, half, groups - half, NULL), 0);
      for (int i = 0; i < 2 * N; i++)
        if (cs[i] != expect[i]) fail_msg("%s, variant %u: c[%d] = %g, not %g", names[kernel], variant, i, cs[i], expect[i]);
    }
  }
  free(a);
  free(bb);
  free(c);
  free(expect);
  built_free(&b);
}

/* Every work-item records its global id, local id, group id and the sizes it sees. */
static const char ndrange_src[] = PRELUDE
    "__kernel void where(__global ulong *out, uint stride) {\n"
    "  size_t x = GID(0) - __kiln_global_offset(0), y = GID(1) - __kiln_global_offset(1);\n"
    "  size_t z = GID(2) - __kiln_global_offset(2);\n"
    "  __global ulong *o = out + ((z * __kiln_global_size(1) + y) * __kiln_global_size(0) + x) * stride;\n"
    "  for (uint d = 0; d < 3; d++) {\n"
    "    o[d] = GID(d); o[3 + d] = __kiln_local_id(d); o[6 + d] = __kiln_group_id(d);\n"
    "    o[9 + d] = __kiln_local_size(d); o[12 + d] = __kiln_num_groups(d);\n"
    "  }\n"
    "  o[15] = __kiln_work_dim(); o[16] += 1;\n"
    "}\n";

static void ndrange_3d(void **state) {
  (void)state;
  struct built b = build(ndrange_src, "-cl-std=CL3.0");
  enum { STRIDE = 17 };
  uint64_t off[3] = {5, 7, 11}, gs[3] = {10, 7, 5}, ls[3] = {4, 3, 2};
  struct kiln_ndrange nd = ndrange(3, off, gs, ls);
  size_t items = gs[0] * gs[1] * gs[2];
  uint64_t *out = calloc(items * STRIDE, sizeof *out);
  uint64_t *block[1] = {out};
  unsigned char args[16] __attribute__((aligned(16))) = {0};
  uint32_t stride = STRIDE;
  const struct kiln_kernel_desc *k = kiln_module_kernel(b.exe, 0);
  put_arg(args, k, 0, block, sizeof block[0]);
  put_arg(args, k, 1, &stride, sizeof stride);
  uint64_t total = group_total(&nd);
  assert_int_equal(total, 3 * 3 * 3);
  for (uint64_t g = 0; g < total; g++) kiln_jit_launcher(b.jit, 0)(args, &nd, g, 1, NULL);
  for (uint64_t z = 0; z < gs[2]; z++)
    for (uint64_t y = 0; y < gs[1]; y++)
      for (uint64_t x = 0; x < gs[0]; x++) {
        const uint64_t *o = out + ((z * gs[1] + y) * gs[0] + x) * STRIDE;
        uint64_t id[3] = {x, y, z};
        for (int d = 0; d < 3; d++) {
          assert_int_equal(o[d], id[d] + off[d]);
          assert_int_equal(o[3 + d], id[d] % ls[d]);
          assert_int_equal(o[6 + d], id[d] / ls[d]);
          uint64_t group_start = id[d] / ls[d] * ls[d];
          uint64_t actual = gs[d] - group_start < ls[d] ? gs[d] - group_start : ls[d];
          assert_int_equal(o[9 + d], actual);
          assert_int_equal(o[12 + d], nd.num_groups[d]);
        }
        assert_int_equal(o[15], 3);
        assert_int_equal(o[16], 1); /* each work-item ran exactly once */
      }
  free(out);
  built_free(&b);
}

/* Static __local memory and a dynamic __local argument; two threads run disjoint halves of
 * the groups at once, each with its own local memory. */
static const char local_src[] = PRELUDE
    "__kernel void loc(__global int *out, __local int *dyn) {\n"
    "  __local int tmp[32];\n"
    "  size_t l = __kiln_local_id(0), g = GID(0);\n"
    "  tmp[l] = 0; dyn[l] = 0;\n"
    "  for (int k = 0; k < 2000; k++) { tmp[l] += (int)g; dyn[l] += 1; }\n"
    "  out[g] = tmp[l] + dyn[l];\n"
    "}\n";

struct local_run {
  kiln_launcher_fn fn;
  const void *args;
  const struct kiln_ndrange *nd;
  uint64_t first, count;
  void *local_mem;
};

static void *local_thread(void *p) {
  struct local_run *r = p;
  for (int rep = 0; rep < 20; rep++)
    for (uint64_t g = r->first; g < r->first + r->count; g++) r->fn(r->args, r->nd, g, 1, r->local_mem);
  return NULL;
}

static void local_memory(void **state) {
  (void)state;
  struct built b = build(local_src, NULL);
  const struct kiln_kernel_desc *k = kiln_module_kernel(b.exe, 0);
  assert_int_equal(k->static_local_bytes, 32 * 4);
  assert_int_equal(k->args[1].kind, KILN_ARG_LOCAL_PTR);
  enum { N = 32 * 64 };
  int *out = calloc(N, sizeof *out);
  unsigned char args[16] __attribute__((aligned(16))) = {0};
  uint64_t dyn_offset = 256; /* after the static variables */
  put_arg(args, k, 0, &out, sizeof out);
  put_arg(args, k, 1, &dyn_offset, sizeof dyn_offset);
  struct kiln_ndrange nd = ndrange(1, NULL, (uint64_t[]){N}, (uint64_t[]){32});
  size_t local_bytes = 256 + 32 * 4;
  void *mem[2] = {aligned_alloc(KILN_LOCAL_MEM_ALIGN, 512), aligned_alloc(KILN_LOCAL_MEM_ALIGN, 512)};
  assert_true(local_bytes <= 512);
  memset(mem[0], 0xff, 512);
  memset(mem[1], 0xff, 512);
  struct local_run runs[2] = {{kiln_jit_launcher(b.jit, 0), args, &nd, 0, 32, mem[0]},
                              {kiln_jit_launcher(b.jit, 0), args, &nd, 32, 32, mem[1]}};
  pthread_t threads[2];
  for (int t = 0; t < 2; t++) assert_int_equal(pthread_create(&threads[t], NULL, local_thread, &runs[t]), 0);
  for (int t = 0; t < 2; t++) pthread_join(threads[t], NULL);
  for (int i = 0; i < N; i++) assert_int_equal(out[i], i * 2000 + 2000);
  /* The variables really live in the given local memory: the last group of thread 1. */
  const int *tmp = mem[1], *dyn = (const int *)((char *)mem[1] + 256);
  for (int l = 0; l < 32; l++) {
    assert_int_equal(tmp[l], (63 * 32 + l) * 2000);
    assert_int_equal(dyn[l], 2000);
  }
  free(mem[0]);
  free(mem[1]);
  free(out);
  built_free(&b);
}


/* By-value arguments of every shape the SPIR kernel ABI has: byval structs (written to by
 * the kernel: each work-item gets its own copy), vectors incl. 3-element, small integers,
 * doubles, longs. */
static const char abi_src[] = PRELUDE
    "typedef struct { char c; int i; float4 v; double d; } S;\n"
    "__kernel void abi(__global double *out, S s, float3 f3, char c, uchar uc, short sh, long l, double d,\n"
    "                  int4 i4, __constant float *k) {\n"
    "  size_t g = GID(0);\n"
    "  s.i += (int)g; /* private copy */\n"
    "  __global double *o = out + g * 16;\n"
    "  o[0] = s.c; o[1] = s.i; o[2] = s.v.x + s.v.w; o[3] = s.d; o[4] = f3.x + f3.y + f3.z;\n"
    "  o[5] = c; o[6] = uc; o[7] = sh; o[8] = (double)l; o[9] = d; o[10] = i4.x - i4.w; o[11] = k[g];\n"
    "}\n";

typedef struct {
  cl_char c;
  cl_int i;
  cl_float4 v;
  cl_double d;
} abi_struct;

static void by_value_arguments(void **state) {
  (void)state;
  struct built b = build(abi_src, "-cl-std=CL1.2");
  const struct kiln_kernel_desc *k = kiln_module_kernel(b.exe, 0);
  assert_int_equal(k->num_args, 10);
  assert_int_equal(k->args[1].size, sizeof(abi_struct));
  assert_int_equal(k->args[2].size, sizeof(cl_float3));
  assert_int_equal(k->args[8].size, sizeof(cl_int4));
  unsigned char block[256] __attribute__((aligned(16)));
  memset(block, 0xcd, sizeof block);
  assert_true(k->args_block_size <= sizeof block);
  double out[4 * 16];
  double *po = out;
  abi_struct s = {.c = -3, .i = 100, .v = {{1.5f, 2, 3, 4.25f}}, .d = 0.125};
  cl_float3 f3 = {{1, 2, 4}};
  cl_char c = -7;
  cl_uchar uc = 250;
  cl_short sh = -30000;
  cl_long l = -5000000000LL;
  cl_double d = 3.75;
  cl_int4 i4 = {{10, 0, 0, 4}};
  float konst[4] = {0.5f, 1.5f, 2.5f, 3.5f};
  float *pk = konst;
  const void *values[] = {&po, &s, &f3, &c, &uc, &sh, &l, &d, &i4, &pk};
  const size_t sizes[] = {8, sizeof s, sizeof f3, 1, 1, 2, 8, 8, sizeof i4, 8};
  for (uint32_t i = 0; i < 10; i++) put_arg(block, k, i, values[i], sizes[i]);
  struct kiln_ndrange nd = ndrange(1, NULL, (uint64_t[]){4}, (uint64_t[]){4});
  kiln_jit_launcher(b.jit, 0)(block, &nd, 0, 1, NULL);
  for (int g = 0; g < 4; g++) {
    const double *o = out + g * 16;
    assert_true(o[0] == -3 && o[1] == 100 + g && o[2] == 5.75 && o[3] == 0.125 && o[4] == 7);
    assert_true(o[5] == -7 && o[6] == 250 && o[7] == -30000 && o[8] == -5000000000.0 && o[9] == 3.75);
    assert_true(o[10] == 6 && o[11] == konst[g]);
  }
  built_free(&b);
}


/* With the builtin library: OpenCL C work-item, math and vector functions resolve, and a
 * call of a builtin that does not exist for the given types is a link error. */
static const char builtins_src[] =
    "__kernel void b(__global const float *in, __global float *out) {\n"
    "  size_t i = get_global_id(0);\n"
    "  float4 v = vload4(i, in);\n"
    "  out[i] = sqrt(v.x) + fabs(v.y) + max(v.z, v.w) + (float)get_local_size(0);\n"
    "}\n"
    "__kernel void sum(__global const int *in, __global int *out) {\n"
    "  __local int tile[16];\n"
    "  size_t l = get_local_id(0);\n"
    "  tile[l] = in[get_global_id(0)];\n"
    "  barrier(CLK_LOCAL_MEM_FENCE);\n"
    "  for (size_t s = get_local_size(0) / 2; s > 0; s /= 2) {\n"
    "    if (l < s) tile[l] += tile[l + s];\n"
    "    work_group_barrier(CLK_LOCAL_MEM_FENCE);\n"
    "  }\n"
    "  if (l == 0) out[get_group_id(0)] = tile[0];\n"
    "}\n";

static void builtin_library(void **state) {
  (void)state;
  struct built b = build(builtins_src, "-cl-std=CL3.0");
  enum { N = 37 };
  float in[4 * N], out[N];
  for (int i = 0; i < 4 * N; i++) in[i] = (float)(i % 4 == 1 ? -i : i);
  const float *pin = in;
  float *pout = out;
  size_t bi = 0, si = 0;
  const struct kiln_kernel_desc *k = kernel_named(b.exe, "b", &bi);
  unsigned char block[16] __attribute__((aligned(16)));
  put_arg(block, k, 0, &pin, 8);
  put_arg(block, k, 1, &pout, 8);
  struct kiln_ndrange nd = ndrange(1, NULL, (uint64_t[]){N}, (uint64_t[]){8});
  kiln_jit_launcher(b.jit, bi)(block, &nd, 0, group_total(&nd), NULL);
  for (int i = 0; i < N; i++) {
    float local = i < 32 ? 8.0f : 5.0f; /* the last group has 5 work-items */
    float expect = sqrtf(in[4 * i]) + fabsf(in[4 * i + 1]) + fmaxf(in[4 * i + 2], in[4 * i + 3]) + local;
    assert_float_equal(out[i], expect, 1e-5f * expect);
  }
  /* barrier() and work_group_barrier() from the library, static __local tile */
  k = kernel_named(b.exe, "sum", &si);
  assert_true(k->uses_barriers);
  assert_int_equal(k->static_local_bytes, 64);
  int ints[64], sums[4];
  for (int i = 0; i < 64; i++) ints[i] = i * i;
  const int *pints = ints;
  int *psums = sums;
  put_arg(block, k, 0, &pints, 8);
  put_arg(block, k, 1, &psums, 8);
  nd = ndrange(1, NULL, (uint64_t[]){64}, (uint64_t[]){16});
  void *local = aligned_alloc(KILN_LOCAL_MEM_ALIGN, KILN_LOCAL_MEM_ALIGN);
  kiln_jit_launcher(b.jit, si)(block, &nd, 0, 4, local);
  free(local);
  for (int g = 0; g < 4; g++) {
    int expect = 0;
    for (int i = g * 16; i < g * 16 + 16; i++) expect += i * i;
    assert_int_equal(sums[g], expect);
  }
  built_free(&b);
}


/* Barriers (continuation-based synchronization): a tree reduction with a barrier in a
 * loop, private values live across barriers, a barrier under a condition that is uniform
 * per group, static and dynamic __local memory, partial last groups, 2-D groups. */
static const char barrier_src[] = PRELUDE
    "__kernel void reduce(__global const int *in, __global int *out, __local int *scratch) {\n"
    "  size_t l = __kiln_local_id(0), n = __kiln_local_size(0);\n"
    "  scratch[l] = in[GID(0)];\n"
    "  __kiln_barrier(1);\n"
    "  for (size_t s = 1; s < n; s *= 2) {\n"
    "    int v = (l % (2 * s) == 0 && l + s < n) ? scratch[l + s] : 0;\n"
    "    __kiln_barrier(1);\n"
    "    scratch[l] += v;\n"
    "    __kiln_barrier(1);\n"
    "  }\n"
    "  if (l == 0) out[__kiln_group_id(0)] = scratch[0];\n"
    "}\n"
    "__kernel void rotate(__global int *out, float f) {\n"
    "  __local int ring[64];\n"
    "  size_t lx = __kiln_local_id(0), ly = __kiln_local_id(1);\n"
    "  size_t nx = __kiln_local_size(0), ny = __kiln_local_size(1);\n"
    "  size_t l = ly * nx + lx, n = nx * ny;\n"
    "  int mine = (int)(GID(0) * 1000 + GID(1)) + (int)f;\n"
    "  ring[l] = mine;\n"
    "  __kiln_barrier(1);\n"
    "  int neighbour = ring[(l + 1) % n];\n"
    "  if (__kiln_group_id(0) % 2 == 1) {\n"
    "    __kiln_barrier(1);\n"
    "    ring[l] = -neighbour;\n"
    "    __kiln_barrier(1);\n"
    "    neighbour = -ring[(l + n - 1) % n];\n"
    "  }\n"
    "  size_t gw = __kiln_global_size(0);\n"
    "  out[2 * (GID(1) * gw + GID(0))] = mine;\n"
    "  out[2 * (GID(1) * gw + GID(0)) + 1] = neighbour;\n"
    "}\n"
    "typedef struct { int base; int arr[4]; } P;\n"
    "void shift(__local int *buf, size_t l, size_t n) {\n"
    "  int v = buf[(l + 1) % n];\n"
    "  __kiln_barrier(1);\n"
    "  buf[l] = v;\n"
    "  __kiln_barrier(1);\n"
    "}\n"
    "__kernel void priv(__global int *out, P p) {\n"
    "  __local int buf[32];\n"
    "  size_t l = __kiln_local_id(0), n = __kiln_local_size(0);\n"
    "  int arr[4];\n"
    "  for (int i = 0; i < 4; i++) arr[i] = (int)l * 10 + i + p.arr[i];\n"
    "  p.base += (int)l;\n"
    "  buf[l] = (int)l;\n"
    "  __kiln_barrier(1);\n"
    "  for (int k = 0; k < 3; k++) shift(buf, l, n);\n"
    "  out[GID(0)] = buf[l] * 100000 + arr[l % 4] + p.base * 1000;\n"
    "}\n";

static void barriers(void **state) {
  (void)state;
  struct built b = build(barrier_src, NULL);
  size_t ri = 0, rot = 0;
  const struct kiln_kernel_desc *reduce = kernel_named(b.exe, "reduce", &ri);
  const struct kiln_kernel_desc *rotate = kernel_named(b.exe, "rotate", &rot);
  assert_true(reduce->uses_barriers);
  assert_true(rotate->uses_barriers);
  assert_int_equal(rotate->static_local_bytes, 64 * 4);

  /* Reduction: 1000 items in groups of 64 (the last has 40). */
  enum { N = 1000, LS = 64 };
  int *in = malloc(N * sizeof *in), out[(N + LS - 1) / LS];
  for (int i = 0; i < N; i++) in[i] = i * 3 + 1;
  unsigned char block[32] __attribute__((aligned(16)));
  int *pout = out;
  uint64_t scratch = 0;
  put_arg(block, reduce, 0, &in, 8);
  put_arg(block, reduce, 1, &pout, 8);
  put_arg(block, reduce, 2, &scratch, 8);
  void *local = aligned_alloc(KILN_LOCAL_MEM_ALIGN, 1024);
  struct kiln_ndrange nd = ndrange(1, NULL, (uint64_t[]){N}, (uint64_t[]){LS});
  kiln_jit_launcher(b.jit, ri)(block, &nd, 0, group_total(&nd), local);
  for (uint64_t g = 0; g < nd.num_groups[0]; g++) {
    int expect = 0;
    for (uint64_t i = g * LS; i < (g + 1) * LS && i < N; i++) expect += in[i];
    assert_int_equal(out[g], expect);
  }

  /* Rotation in 2-D groups of 4x3 over 10x7 (partial groups in both dimensions). */
  uint64_t gs[2] = {10, 7}, ls[2] = {4, 3};
  int *rout = calloc(2 * gs[0] * gs[1], sizeof *rout);
  float f = 5.0f;
  put_arg(block, rotate, 0, &rout, 8);
  put_arg(block, rotate, 1, &f, 4);
  nd = ndrange(2, NULL, gs, ls);
  kiln_jit_launcher(b.jit, rot)(block, &nd, 0, group_total(&nd), local);
  for (uint64_t y = 0; y < gs[1]; y++)
    for (uint64_t x = 0; x < gs[0]; x++) {
      uint64_t gx = x / ls[0], gy = y / ls[1];
      uint64_t nx = gs[0] - gx * ls[0] < ls[0] ? gs[0] - gx * ls[0] : ls[0];
      uint64_t ny = gs[1] - gy * ls[1] < ls[1] ? gs[1] - gy * ls[1] : ls[1];
      uint64_t n = nx * ny, l = (y % ls[1]) * nx + x % ls[0];
      /* odd groups rotate back: each item sees its own value again */
      uint64_t src = gx % 2 ? l : (l + 1) % n;
      uint64_t sx = gx * ls[0] + src % nx, sy = gy * ls[1] + src / nx;
      const int *o = rout + 2 * (y * gs[0] + x);
      assert_int_equal(o[0], (int)(x * 1000 + y) + 5);
      assert_int_equal(o[1], (int)(sx * 1000 + sy) + 5);
    }
  free(rout);

  /* Private arrays, a modified by-value struct and a helper function with barriers. */
  size_t pi = 0;
  const struct kiln_kernel_desc *priv = kernel_named(b.exe, "priv", &pi);
  struct { cl_int base, arr[4]; } p = {7, {1, 2, 3, 4}};
  int shifted[80];
  int *pshifted = shifted;
  put_arg(block, priv, 0, &pshifted, 8);
  put_arg(block, priv, 1, &p, sizeof p);
  nd = ndrange(1, NULL, (uint64_t[]){80}, (uint64_t[]){32});
  kiln_jit_launcher(b.jit, pi)(block, &nd, 0, group_total(&nd), local);
  for (int i = 0; i < 80; i++) {
    int l = i % 32, n = i < 64 ? 32 : 16;
    assert_int_equal(shifted[i], ((l + 3) % n) * 100000 + (l * 10 + l % 4 + p.arr[l % 4]) + (p.base + l) * 1000);
  }
  free(local);
  free(in);
  built_free(&b);
}


/* Programs built and run on two threads at once (clang, the linker and the JIT in parallel). */
static void *build_and_run(void *arg) {
  (void)arg;
  for (int rep = 0; rep < 3; rep++) {
    kiln_module *object = NULL, *exe = NULL;
    kiln_jit_program *jit = NULL;
    char *log = NULL;
    if (kiln_compiler_compile(vector_add_src, strlen(vector_add_src), "-D UNUSED=1", NULL, 0, &object, &log)) return log;
    free(log);
    if (kiln_compiler_link(&object, 1, "", false, &exe, &log)) return log;
    free(log);
    if (kiln_jit_load(exe, &jit, &log)) return log;
    free(log);
    float a[40], b[40], c[40];
    for (int i = 0; i < 40; i++) a[i] = (float)i, b[i] = (float)(2 * i), c[i] = 0;
    struct { float *a, *b, *c; float scale; } block = {a, b, c, 1.0f};
    struct kiln_ndrange nd = ndrange(1, NULL, (uint64_t[]){40}, (uint64_t[]){8});
    kiln_jit_launcher(jit, 0)(&block, &nd, 0, 5, NULL);
    for (int i = 0; i < 40; i++)
      if (c[i] != (float)(3 * i)) return strdup("wrong result");
    kiln_jit_free(jit);
    kiln_module_free(exe);
    kiln_module_free(object);
  }
  return NULL;
}

static void concurrent_builds(void **state) {
  (void)state;
  pthread_t threads[2];
  for (int t = 0; t < 2; t++) assert_int_equal(pthread_create(&threads[t], NULL, build_and_run, NULL), 0);
  for (int t = 0; t < 2; t++) {
    void *error = NULL;
    pthread_join(threads[t], &error);
    if (error) print_error("thread %d: %s\n", t, (char *)error);
    assert_null(error);
  }
}

static void options_reach_clang(void **state) {
  (void)state;
  const char *src = PRELUDE "#include \"values.h\"\n"
                            "__kernel void v(__global int *o) { o[0] = VALUE + FROM_HEADER; }\n";
  struct kiln_cl_header header = {"values.h", "#define FROM_HEADER 100\n", strlen("#define FROM_HEADER 100\n")};
  kiln_module *m = NULL;
  char *log = NULL;
  assert_int_equal(kiln_compiler_compile(src, strlen(src), "-D VALUE=23 -cl-opt-disable", &header, 1, &m, &log),
                   KILN_COMPILE_OK);
  free(log);
  kiln_module *exe = link_ok(m, "");
  kiln_jit_program *jit = jit_ok(exe);
  int out = 0, *p = &out;
  struct kiln_ndrange nd = ndrange(1, NULL, (uint64_t[]){1}, (uint64_t[]){1});
  kiln_jit_launcher(jit, 0)(&p, &nd, 0, 1, NULL);
  assert_int_equal(out, 123);
  kiln_jit_free(jit);
  kiln_module_free(exe);
  kiln_module_free(m);
  /* Without the header: an error naming it. */
  assert_int_equal(kiln_compiler_compile(src, strlen(src), "-D VALUE=23", NULL, 0, &m, &log), KILN_COMPILE_FAILED);
  assert_non_null(strstr(log, "values.h"));
  free(log);
}

static void binaries(void **state) {
  (void)state;
  struct built b = build(vector_add_src, NULL);
  void *bytes = NULL;
  size_t size = 0;
  assert_int_equal(kiln_module_serialize(b.exe, &bytes, &size), KILN_COMPILE_OK);
  kiln_module *back = NULL;
  char *log = NULL;
  assert_int_equal(kiln_module_deserialize(bytes, size, &back, &log), KILN_COMPILE_OK);
  free(log);
  assert_int_equal(kiln_module_get_kind(back), KILN_MODULE_EXECUTABLE);
  assert_int_equal(kiln_module_kernel_count(back), 1);
  const struct kiln_kernel_desc *k = kiln_module_kernel(back, 0);
  assert_string_equal(k->name, "vadd");
  assert_int_equal(k->num_args, 4);
  assert_int_equal(k->args_block_size, kiln_module_kernel(b.exe, 0)->args_block_size);
  kiln_jit_program *jit = jit_ok(back);
  float a[3] = {1, 2, 3}, bb[3] = {10, 20, 30}, c[3] = {0};
  float *pa = a, *pb = bb, *pc = c, scale = 1.0f;
  unsigned char block[32] __attribute__((aligned(16)));
  put_arg(block, k, 0, &pa, 8);
  put_arg(block, k, 1, &pb, 8);
  put_arg(block, k, 2, &pc, 8);
  put_arg(block, k, 3, &scale, 4);
  struct kiln_ndrange nd = ndrange(1, NULL, (uint64_t[]){3}, (uint64_t[]){3});
  kiln_jit_launcher(jit, 0)(block, &nd, 0, 1, NULL);
  assert_true(c[0] == 11 && c[1] == 22 && c[2] == 33);
  kiln_jit_free(jit);
  kiln_module_free(back);

  /* Corruption anywhere is caught; foreign data is rejected. */
  unsigned char *p = bytes;
  p[size / 2] ^= 0x10;
  assert_int_equal(kiln_module_deserialize(bytes, size, &back, &log), KILN_COMPILE_INVALID_BINARY);
  assert_null(back);
  assert_non_null(strstr(log, "checksum"));
  free(log);
  p[size / 2] ^= 0x10;
  assert_int_equal(kiln_module_deserialize(bytes, size - 7, &back, &log), KILN_COMPILE_INVALID_BINARY);
  free(log);
  const char foreign[] = "\x7f" "ELF this is not a Kiln binary at all, but long enough for a header.....";
  assert_int_equal(kiln_module_deserialize(foreign, sizeof foreign, &back, &log), KILN_COMPILE_INVALID_BINARY);
  free(log);
  assert_int_equal(kiln_module_deserialize(NULL, 0, &back, &log), KILN_COMPILE_INVALID_BINARY);
  free(log);
  free(bytes);

  /* An object round-trips as an object (and links afterwards). */
  kiln_module *object = compile_ok(vector_add_src, NULL);
  assert_int_equal(kiln_module_serialize(object, &bytes, &size), KILN_COMPILE_OK);
  assert_int_equal(kiln_module_deserialize(bytes, size, &back, &log), KILN_COMPILE_OK);
  free(log);
  assert_int_equal(kiln_module_get_kind(back), KILN_MODULE_OBJECT);
  kiln_module *exe = link_ok(back, NULL);
  kiln_module_free(exe);
  kiln_module_free(back);
  kiln_module_free(object);
  free(bytes);
  built_free(&b);
}

int main(int argc, char **argv) {
  kiln_test_child_main(argc, argv, child_cases, sizeof child_cases / sizeof child_cases[0]);
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(compile_errors_in_log), cmocka_unit_test(feature_macros),
      cmocka_unit_test(kernel_descriptions),   cmocka_unit_test(loop_detection),
      cmocka_unit_test(stack_sizes), cmocka_unit_test(fiber_launchers),           cmocka_unit_test(compiler_faults),
      cmocka_unit_test(link_errors),
      cmocka_unit_test(vector_add),            cmocka_unit_test(streaming_stores),
      cmocka_unit_test(ndrange_3d),
      cmocka_unit_test(local_memory),          cmocka_unit_test(options_reach_clang),
      cmocka_unit_test(binaries),              cmocka_unit_test(by_value_arguments),
      cmocka_unit_test(builtin_library),       cmocka_unit_test(barriers),
      cmocka_unit_test(concurrent_builds),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
