/* cl_arm_scheduling_controls 0.6.0, the interface: the extension strings and version, the
 * capabilities query (exactly the controls Kiln implements, with the clGetDeviceInfo size
 * rules), the queries of controls Kiln does not report (warp count, register
 * allocations, the kernel's warp count), every accepted and every refused value of the
 * two batch hints of clSetKernelExecInfo (each accepted value shown taking effect in the
 * scheduling trace, each refused one shown leaving the previous value in place), the
 * refused exec-info names and build option, invalid kernels, clCloneKernel copying the
 * hints, and the three queue properties: every accepted value alone and combined with
 * each other and with CL_QUEUE_PROPERTIES (reported back as given by
 * CL_QUEUE_PROPERTIES_ARRAY), every refused value. What the controls do to the scheduler
 * is test_arm_sched_behaviour.c's subject. */
#include "arm_sched_test.h"

_Static_assert(CL_DEVICE_SCHEDULING_COMPUTE_UNIT_LIMIT_ARM == (1 << 7), "cl.xml: bitpos 7");
_Static_assert(CL_QUEUE_COMPUTE_UNIT_LIMIT_ARM == 0x41F3, "cl.xml: 0x41F3");

static const char *source = "kernel void vec(global const int *a, global int *c) {\n"
                            "  size_t i = get_global_id(0);\n"
                            "  c[i] = a[i] * 3 + (int)i;\n"
                            "}\n";

#define N 4096
#define LOCAL 16
#define GROUPS (N / LOCAL)

static cl_program program;
static cl_mem in, out;
static cl_int input[N];
/* The runtime's batch size for this suite's N / LOCAL launch (learned from the trace). */
static unsigned long long default_batch;

static cl_kernel vec_kernel(void) {
  cl_kernel kernel = kiln_test_kernel(program, "vec");
  kiln_test_arg_mem(kernel, 0, in);
  kiln_test_arg_mem(kernel, 1, out);
  return kernel;
}

/* Runs vec over N items on `queue`, checks every element and returns its trace line. */
static struct kiln_sched_line run_vec(cl_command_queue queue, cl_kernel kernel, const char *what) {
  static cl_int got[N];
  const size_t global = N, local = LOCAL;
  cl_int poison = -7;
  assert_cl_success(clEnqueueFillBuffer(queue, out, &poison, sizeof poison, 0, sizeof got, 0, NULL, NULL));
  assert_cl_success(clFinish(queue)); /* out-of-order queues too */
  long mark = kiln_sched_trace_mark();
  assert_cl_success(clEnqueueNDRangeKernel(queue, kernel, 1, NULL, &global, &local, 0, NULL, NULL));
  assert_cl_success(clFinish(queue));
  struct kiln_sched_line line = kiln_sched_trace_one(mark, "vec", what);
  kiln_test_read(queue, out, sizeof got, got);
  for (size_t i = 0; i < N; i++)
    if (got[i] != input[i] * 3 + (cl_int)i)
      fail_msg("%s: element %zu is %d, expected %d", what, i, got[i], input[i] * 3 + (cl_int)i);
  assert_int_equal(GROUPS, line.groups);
  return line;
}

static void expect_batch(cl_command_queue queue, cl_kernel kernel, unsigned long long want, const char *what) {
  struct kiln_sched_line line = run_vec(queue, kernel, what);
  if (line.batch_size != want) fail_msg("%s: batch_size=%llu, expected %llu", what, line.batch_size, want);
}

static int setup(void **state) {
  kiln_test_program_setup(state, kiln_test_env_setup, &program, source, NULL);
  struct kiln_test_env *env = *state;
  for (size_t i = 0; i < N; i++) input[i] = (cl_int)(i * 7 % 1001) - 500;
  in = kiln_test_buffer(env->context, sizeof input);
  out = kiln_test_buffer(env->context, sizeof input);
  kiln_test_write(env->queue, in, sizeof input, input);
  cl_kernel kernel = vec_kernel();
  default_batch = run_vec(env->queue, kernel, "no hints").batch_size;
  assert_cl_success(clReleaseKernel(kernel));
  return 0;
}

static int teardown(void **state) {
  assert_cl_success(clReleaseMemObject(in));
  assert_cl_success(clReleaseMemObject(out));
  return kiln_test_program_teardown(state, program);
}

/* ---- device queries ---- */

static void test_extension_reported(void **state) {
  struct kiln_test_env *env = *state;
  kiln_test_expect_extension(env->device, "cl_arm_scheduling_controls", CL_MAKE_VERSION(0, 6, 0));
}

static void test_capabilities(void **state) {
  struct kiln_test_env *env = *state;
  cl_device_scheduling_controls_capabilities_arm caps = 0;
  size_t size = 0;
  assert_cl_success(
      clGetDeviceInfo(env->device, CL_DEVICE_SCHEDULING_CONTROLS_CAPABILITIES_ARM, sizeof caps, &caps, &size));
  assert_int_equal(sizeof(cl_bitfield), size);
  const struct {
    cl_bitfield bit;
    bool reported;
    const char *name;
  } controls[] = {
      {CL_DEVICE_SCHEDULING_KERNEL_BATCHING_ARM, true, "KERNEL_BATCHING"},
      {CL_DEVICE_SCHEDULING_WORKGROUP_BATCH_SIZE_ARM, true, "WORKGROUP_BATCH_SIZE"},
      {CL_DEVICE_SCHEDULING_WORKGROUP_BATCH_SIZE_MODIFIER_ARM, true, "WORKGROUP_BATCH_SIZE_MODIFIER"},
      {CL_DEVICE_SCHEDULING_DEFERRED_FLUSH_ARM, true, "DEFERRED_FLUSH"},
      {CL_DEVICE_SCHEDULING_REGISTER_ALLOCATION_ARM, false, "REGISTER_ALLOCATION"},
      {CL_DEVICE_SCHEDULING_WARP_THROTTLING_ARM, false, "WARP_THROTTLING"},
      {CL_DEVICE_SCHEDULING_COMPUTE_UNIT_BATCH_QUEUE_SIZE_ARM, true, "COMPUTE_UNIT_BATCH_QUEUE_SIZE"},
      {CL_DEVICE_SCHEDULING_COMPUTE_UNIT_LIMIT_ARM, true, "COMPUTE_UNIT_LIMIT"},
  };
  cl_bitfield all = 0;
  for (size_t i = 0; i < sizeof controls / sizeof controls[0]; i++) {
    all |= controls[i].bit;
    if (((caps & controls[i].bit) != 0) != controls[i].reported)
      fail_msg("CL_DEVICE_SCHEDULING_%s_ARM is %s, expected %s", controls[i].name,
               caps & controls[i].bit ? "set" : "clear", controls[i].reported ? "set" : "clear");
  }
  if (caps & ~all)
    fail_msg("capabilities 0x%llx have bits no version of the extension defines", (unsigned long long)caps);
}

static void test_capabilities_sizes(void **state) {
  struct kiln_test_env *env = *state;
  const cl_device_info name = CL_DEVICE_SCHEDULING_CONTROLS_CAPABILITIES_ARM;
  size_t size = 0;
  assert_cl_success(clGetDeviceInfo(env->device, name, 0, NULL, &size));
  assert_int_equal(sizeof(cl_bitfield), size);
  assert_cl_success(clGetDeviceInfo(env->device, name, 0, NULL, NULL));
  /* Too small for the value: refused, nothing written. */
  for (size_t small = 0; small < sizeof(cl_bitfield); small++) {
    unsigned char bytes[16];
    memset(bytes, 0xEE, sizeof bytes);
    size = 12345;
    assert_int_equal(CL_INVALID_VALUE, clGetDeviceInfo(env->device, name, small, bytes, &size));
    for (size_t i = 0; i < sizeof bytes; i++)
      if (bytes[i] != 0xEE) fail_msg("a refused %zu-byte query wrote byte %zu", small, i);
  }
  /* Larger than the value: the value, its size. */
  cl_bitfield wide[2] = {0, 0x5555};
  cl_bitfield exact = 0;
  assert_cl_success(clGetDeviceInfo(env->device, name, sizeof exact, &exact, NULL));
  assert_cl_success(clGetDeviceInfo(env->device, name, sizeof wide, wide, &size));
  assert_int_equal(sizeof(cl_bitfield), size);
  assert_int_equal(exact, wide[0]);
  assert_int_equal(0x5555, wide[1]);
  /* An invalid device. */
  struct kiln_test_fake_handle fake = kiln_test_fake_handle_like(env->device);
  assert_int_equal(CL_INVALID_DEVICE, clGetDeviceInfo((cl_device_id)&fake, name, sizeof exact, &exact, NULL));
}

/* The queries of controls Kiln does not report: "When ... is not set, the call to
 * clGetDeviceInfo returns CL_INVALID_VALUE". */
static void test_unreported_device_queries(void **state) {
  struct kiln_test_env *env = *state;
  const cl_device_info names[] = {CL_DEVICE_MAX_WARP_COUNT_ARM, CL_DEVICE_SUPPORTED_REGISTER_ALLOCATIONS_ARM};
  for (size_t n = 0; n < 2; n++) {
    cl_int values[8] = {0};
    size_t size = 777;
    assert_int_equal(CL_INVALID_VALUE, clGetDeviceInfo(env->device, names[n], sizeof values, values, &size));
    assert_int_equal(CL_INVALID_VALUE, clGetDeviceInfo(env->device, names[n], sizeof(cl_uint), values, NULL));
    assert_int_equal(CL_INVALID_VALUE, clGetDeviceInfo(env->device, names[n], 0, NULL, &size));
    assert_int_equal(777, size);
    for (size_t i = 0; i < 8; i++) assert_int_equal(0, values[i]);
  }
}

static void test_kernel_max_warp_count_refused(void **state) {
  (void)state;
  cl_kernel kernel = vec_kernel();
  cl_uint warps = 99;
  size_t size = 777;
  assert_int_equal(CL_INVALID_VALUE,
                   clGetKernelInfo(kernel, CL_KERNEL_MAX_WARP_COUNT_ARM, sizeof warps, &warps, &size));
  assert_int_equal(CL_INVALID_VALUE, clGetKernelInfo(kernel, CL_KERNEL_MAX_WARP_COUNT_ARM, 0, NULL, &size));
  assert_int_equal(99, warps);
  assert_int_equal(777, size);
  assert_cl_success(clReleaseKernel(kernel));
}

/* ---- kernel exec info ---- */

static void test_batch_size_accepted(void **state) {
  struct kiln_test_env *env = *state;
  cl_kernel kernel = vec_kernel();
  const struct {
    cl_uint value;
    unsigned long long used;
  } sizes[] = {{1, 1},
               {2, 2},
               {7, 7},
               {GROUPS - 1, GROUPS - 1},
               {GROUPS, GROUPS},
               {GROUPS + 1, GROUPS},
               {100000, GROUPS},
               {UINT_MAX, GROUPS},
               {0, default_batch},
               {3, 3}};
  for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
    ast_set_batch_size(kernel, sizes[i].value);
    char what[64];
    snprintf(what, sizeof what, "batch size %u", sizes[i].value);
    expect_batch(env->queue, kernel, sizes[i].used, what);
  }
  assert_cl_success(clReleaseKernel(kernel));
}

static void test_modifier_accepted(void **state) {
  struct kiln_test_env *env = *state;
  cl_kernel kernel = vec_kernel();
  const cl_int modifiers[] = {
      0, -1, 1, 3, -31, 31, INT_MIN, INT_MAX, -(cl_int)default_batch, 1 - (cl_int)default_batch, GROUPS, -GROUPS};
  const cl_uint sizes[] = {0, 10};
  for (size_t s = 0; s < 2; s++) {
    ast_set_batch_size(kernel, sizes[s]);
    for (size_t m = 0; m < sizeof modifiers / sizeof modifiers[0]; m++) {
      ast_set_modifier(kernel, modifiers[m]);
      char what[64];
      snprintf(what, sizeof what, "batch size %u, modifier %d", sizes[s], modifiers[m]);
      expect_batch(env->queue, kernel, ast_expected_batch(default_batch, sizes[s], modifiers[m], GROUPS), what);
    }
  }
  /* Both back to 0: the runtime's choice again. */
  ast_set_hints(kernel, 0, 0);
  expect_batch(env->queue, kernel, default_batch, "both hints reset");
  assert_cl_success(clReleaseKernel(kernel));
}

/* The most batches one compute unit holds queued, as the trace reports it, for a launch of
 * `batches` batches on `units` compute units under a bound (0: none): the workers' queues
 * split the batches evenly (ceil(batches / units) each) unless the bound is lower; one
 * batch (or one compute unit) is one batch held. */
static unsigned long long documented_depth(unsigned long long batches, cl_uint units, cl_uint bound) {
  if (batches < 2 || units < 2) return 1;
  unsigned long long share = (batches + units - 1) / units;
  return bound && bound < share ? bound : share;
}

/* CL_KERNEL_EXEC_INFO_COMPUTE_UNIT_MAX_QUEUED_BATCHES_ARM: every cl_uint is accepted (0 lets
 * Kiln choose), and no compute unit's queue then holds more than that many batches. */
static void test_queue_bound_accepted(void **state) {
  struct kiln_test_env *env = *state;
  cl_uint units = kiln_test_compute_units(env->device);
  cl_kernel kernel = vec_kernel();
  ast_set_batch_size(kernel, 1); /* GROUPS batches */
  const cl_uint bounds[] = {1, 2, 3, 7, GROUPS / 2, GROUPS, UINT_MAX, 0, 2};
  for (size_t i = 0; i < sizeof bounds / sizeof bounds[0]; i++) {
    assert_cl_success(clSetKernelExecInfo(kernel, CL_KERNEL_EXEC_INFO_COMPUTE_UNIT_MAX_QUEUED_BATCHES_ARM,
                                          sizeof bounds[i], &bounds[i]));
    char what[64];
    snprintf(what, sizeof what, "queue bound %u", bounds[i]);
    struct kiln_sched_line line = run_vec(env->queue, kernel, what);
    unsigned long long want = documented_depth(line.batches, units, bounds[i]);
    if (line.batches != GROUPS || line.queue_depth != want)
      fail_msg("%s: %llu batches, queue_depth=%llu, expected %u and %llu on %u compute units", what, line.batches,
               line.queue_depth, GROUPS, want, units);
  }
  /* Under a compute-unit limit of one there are no queues: one batch at a time. */
  cl_queue_properties props[] = {CL_QUEUE_COMPUTE_UNIT_LIMIT_ARM, 1, 0};
  cl_int err;
  cl_command_queue one = clCreateCommandQueueWithProperties(env->context, env->device, props, &err);
  assert_cl_success(err);
  assert_int_equal(1, run_vec(one, kernel, "bound 2, compute-unit limit 1").queue_depth);
  assert_cl_success(clReleaseCommandQueue(one));
  assert_cl_success(clReleaseKernel(kernel));
}

/* The value is exactly a cl_uint or a cl_int: other sizes and a NULL value are refused, and
 * a refused call leaves the previous value. */
static void test_hint_sizes_refused(void **state) {
  struct kiln_test_env *env = *state;
  cl_kernel kernel = vec_kernel();
  ast_set_hints(kernel, 9, -2);
  cl_uint bound = 2;
  assert_cl_success(
      clSetKernelExecInfo(kernel, CL_KERNEL_EXEC_INFO_COMPUTE_UNIT_MAX_QUEUED_BATCHES_ARM, sizeof bound, &bound));
  const cl_kernel_exec_info names[] = {CL_KERNEL_EXEC_INFO_WORKGROUP_BATCH_SIZE_ARM,
                                       CL_KERNEL_EXEC_INFO_WORKGROUP_BATCH_SIZE_MODIFIER_ARM,
                                       CL_KERNEL_EXEC_INFO_COMPUTE_UNIT_MAX_QUEUED_BATCHES_ARM};
  unsigned char bytes[16];
  memset(bytes, 0x01, sizeof bytes); /* as any size: a batch size of 1, or 0x0101... */
  const size_t bad_sizes[] = {0, 1, 2, 3, 5, 8, 16};
  for (size_t n = 0; n < sizeof names / sizeof names[0]; n++) {
    for (size_t s = 0; s < sizeof bad_sizes / sizeof bad_sizes[0]; s++)
      if (clSetKernelExecInfo(kernel, names[n], bad_sizes[s], bytes) != CL_INVALID_VALUE)
        fail_msg("exec info 0x%x with a %zu-byte value was not refused with CL_INVALID_VALUE", names[n], bad_sizes[s]);
    assert_int_equal(CL_INVALID_VALUE, clSetKernelExecInfo(kernel, names[n], 4, NULL));
    assert_int_equal(CL_INVALID_VALUE, clSetKernelExecInfo(kernel, names[n], 0, NULL));
  }
  struct kiln_sched_line line = run_vec(env->queue, kernel, "after the refused calls (9 - 2, bound 2)");
  assert_int_equal(7, line.batch_size);
  assert_int_equal(documented_depth(line.batches, kiln_test_compute_units(env->device), 2), line.queue_depth);
  assert_cl_success(clReleaseKernel(kernel));
}

/* Warp throttling is not reported: its exec info is refused whatever the value, as is an
 * unknown name near the extension's. */
static void test_unreported_exec_info_refused(void **state) {
  struct kiln_test_env *env = *state;
  cl_kernel kernel = vec_kernel();
  ast_set_hints(kernel, 5, 0);
  const cl_kernel_exec_info names[] = {CL_KERNEL_EXEC_INFO_WARP_COUNT_LIMIT_ARM, 0x41E7, 0x41F2};
  const cl_uint values[] = {0, 1, 2, 4, 64, UINT_MAX};
  for (size_t n = 0; n < sizeof names / sizeof names[0]; n++) {
    for (size_t v = 0; v < sizeof values / sizeof values[0]; v++)
      if (clSetKernelExecInfo(kernel, names[n], sizeof values[v], &values[v]) != CL_INVALID_VALUE)
        fail_msg("exec info 0x%x = %u was not refused with CL_INVALID_VALUE", names[n], values[v]);
    cl_ulong wide = 1;
    assert_int_equal(CL_INVALID_VALUE, clSetKernelExecInfo(kernel, names[n], sizeof wide, &wide));
    assert_int_equal(CL_INVALID_VALUE, clSetKernelExecInfo(kernel, names[n], 0, NULL));
  }
  expect_batch(env->queue, kernel, 5, "after the refused names");
  assert_cl_success(clReleaseKernel(kernel));
}

static void test_invalid_kernel(void **state) {
  (void)state;
  /* `live` first: a kernel created after the release could reuse the released address. */
  cl_kernel live = vec_kernel(), released = vec_kernel();
  assert_cl_success(clReleaseKernel(released));
  struct kiln_test_fake_handle fake = kiln_test_fake_handle_like(live);
  const struct _cl_icd_dispatch *dispatch = kiln_test_dispatch_of(live);
  cl_uint size = 4;
  cl_int modifier = 1;
  const struct {
    cl_kernel_exec_info name;
    size_t size;
    const void *value;
  } calls[] = {
      {CL_KERNEL_EXEC_INFO_WORKGROUP_BATCH_SIZE_ARM, sizeof size, &size},
      {CL_KERNEL_EXEC_INFO_WORKGROUP_BATCH_SIZE_MODIFIER_ARM, sizeof modifier, &modifier},
      {CL_KERNEL_EXEC_INFO_WORKGROUP_BATCH_SIZE_ARM, 1, NULL}, /* a bad value too: the kernel is checked first */
      {CL_KERNEL_EXEC_INFO_WARP_COUNT_LIMIT_ARM, sizeof size, &size},
  };
  for (size_t i = 0; i < sizeof calls / sizeof calls[0]; i++) {
    assert_int_equal(CL_INVALID_KERNEL, clSetKernelExecInfo(released, calls[i].name, calls[i].size, calls[i].value));
    assert_int_equal(CL_INVALID_KERNEL,
                     clSetKernelExecInfo((cl_kernel)&fake, calls[i].name, calls[i].size, calls[i].value));
    assert_int_equal(CL_INVALID_KERNEL,
                     dispatch->clSetKernelExecInfo(NULL, calls[i].name, calls[i].size, calls[i].value));
  }
  assert_cl_success(clReleaseKernel(live));
}

/* Each kernel object has its own hints; clCloneKernel copies them, and from then on the
 * two are independent. */
static void test_hints_per_kernel_and_cloned(void **state) {
  struct kiln_test_env *env = *state;
  cl_kernel first = vec_kernel(), second = vec_kernel();
  ast_set_hints(first, 7, -2);
  expect_batch(env->queue, second, default_batch, "another kernel object");
  cl_int err = CL_INVALID_VALUE;
  cl_kernel clone = clCloneKernel(first, &err);
  assert_cl_success(err);
  expect_batch(env->queue, clone, 5, "the clone (7 - 2)");
  ast_set_batch_size(first, 3);
  expect_batch(env->queue, clone, 5, "the clone after the original changed");
  expect_batch(env->queue, first, 1, "the original (3 - 2)");
  ast_set_modifier(clone, 4);
  expect_batch(env->queue, clone, 11, "the clone's own modifier (7 + 4)");
  expect_batch(env->queue, first, 1, "the original after the clone changed");
  /* A clone of a kernel with only a modifier. */
  ast_set_hints(second, 0, 2);
  cl_kernel clone2 = clCloneKernel(second, &err);
  assert_cl_success(err);
  expect_batch(env->queue, clone2, ast_expected_batch(default_batch, 0, 2, GROUPS), "a clone with a modifier only");
  assert_cl_success(clReleaseKernel(clone2));
  assert_cl_success(clReleaseKernel(clone));
  assert_cl_success(clReleaseKernel(second));
  assert_cl_success(clReleaseKernel(first));
}

/* -fregister-allocation is not supported (CL_DEVICE_SCHEDULING_REGISTER_ALLOCATION_ARM is
 * clear): refused as an invalid build option, for programs from source and from a binary
 * ("Specifying these options when building a program created from a binary will result
 * in CL_INVALID_BUILD_OPTIONS"), and as an invalid compiler option by clCompileProgram;
 * the source program still builds without it. */
static void test_register_allocation_refused(void **state) {
  struct kiln_test_env *env = *state;
  const char *options[] = {"-fregister-allocation=32", "-fregister-allocation=vec:32",
                           "-fregister-allocation=vec:32,other:64", "-cl-std=CL1.2 -fregister-allocation=64"};
  cl_int err = CL_INVALID_VALUE;
  cl_program p = clCreateProgramWithSource(env->context, 1, &source, NULL, &err);
  assert_cl_success(err);
  for (size_t i = 0; i < sizeof options / sizeof options[0]; i++) {
    err = clBuildProgram(p, 1, &env->device, options[i], NULL, NULL);
    if (err != CL_INVALID_BUILD_OPTIONS)
      fail_msg("clBuildProgram(\"%s\") returned %d, expected CL_INVALID_BUILD_OPTIONS", options[i], err);
    err = clCompileProgram(p, 1, &env->device, options[i], 0, NULL, NULL, NULL, NULL);
    if (err != CL_INVALID_COMPILER_OPTIONS)
      fail_msg("clCompileProgram(\"%s\") returned %d, expected CL_INVALID_COMPILER_OPTIONS", options[i], err);
  }
  assert_cl_success(clBuildProgram(p, 1, &env->device, NULL, NULL, NULL));
  cl_kernel kernel = kiln_test_kernel(p, "vec");
  assert_cl_success(clReleaseKernel(kernel));

  size_t size = 0;
  assert_cl_success(clGetProgramInfo(p, CL_PROGRAM_BINARY_SIZES, sizeof size, &size, NULL));
  unsigned char *binary = malloc(size);
  assert_cl_success(clGetProgramInfo(p, CL_PROGRAM_BINARIES, sizeof binary, &binary, NULL));
  for (size_t i = 0; i < sizeof options / sizeof options[0]; i++) {
    cl_int status = CL_INVALID_VALUE;
    cl_program from_binary =
        clCreateProgramWithBinary(env->context, 1, &env->device, &size, (const unsigned char **)&binary, &status, &err);
    assert_cl_success(err);
    err = clBuildProgram(from_binary, 1, &env->device, options[i], NULL, NULL);
    assert_cl_success(clReleaseProgram(from_binary));
    if (err != CL_INVALID_BUILD_OPTIONS)
      fail_msg("clBuildProgram(\"%s\") of a binary program returned %d, expected CL_INVALID_BUILD_OPTIONS", options[i],
               err);
  }
  free(binary);
  assert_cl_success(clReleaseProgram(p));
}

/* ---- queue properties ---- */

static const cl_command_queue_properties queue_bits[] = {
    0, CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE, CL_QUEUE_PROFILING_ENABLE,
    CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE | CL_QUEUE_PROFILING_ENABLE};

/* A queue from `props` (`count` entries with the terminating 0) reports them back as given
 * and the CL_QUEUE_PROPERTIES bits among them, and runs a kernel correctly. */
static void expect_queue(struct kiln_test_env *env, const cl_queue_properties *props, size_t count,
                         cl_command_queue_properties bits, cl_uint cu_limit, cl_kernel kernel) {
  cl_command_queue queue = ast_queue(env->context, env->device, props);
  cl_queue_properties got[16];
  size_t size = 0;
  memset(got, 0xEE, sizeof got);
  assert_cl_success(clGetCommandQueueInfo(queue, CL_QUEUE_PROPERTIES_ARRAY, sizeof got, got, &size));
  assert_int_equal(count * sizeof(cl_queue_properties), size);
  for (size_t i = 0; i < count; i++)
    if (got[i] != props[i])
      fail_msg("CL_QUEUE_PROPERTIES_ARRAY[%zu] is 0x%llx, expected 0x%llx", i, (unsigned long long)got[i],
               (unsigned long long)props[i]);
  cl_command_queue_properties reported = 99;
  assert_cl_success(clGetCommandQueueInfo(queue, CL_QUEUE_PROPERTIES, sizeof reported, &reported, NULL));
  assert_int_equal(bits, reported);
  struct kiln_sched_line line = run_vec(queue, kernel, "a queue with scheduling properties");
  if (line.cu_limit != cu_limit) fail_msg("trace cu_limit=%u, expected %u", line.cu_limit, cu_limit);
  assert_cl_success(clReleaseCommandQueue(queue));
}

static void test_bool_properties_accepted(void **state) {
  struct kiln_test_env *env = *state;
  cl_kernel kernel = vec_kernel();
  ast_set_batch_size(kernel, 1); /* many batches */
  const cl_queue_properties names[] = {CL_QUEUE_KERNEL_BATCHING_ARM, CL_QUEUE_DEFERRED_FLUSH_ARM};
  const cl_queue_properties values[] = {CL_TRUE, CL_FALSE};
  for (size_t n = 0; n < 2; n++)
    for (size_t v = 0; v < 2; v++) {
      cl_queue_properties alone[] = {names[n], values[v], 0};
      expect_queue(env, alone, 3, 0, 0, kernel);
      for (size_t b = 0; b < sizeof queue_bits / sizeof queue_bits[0]; b++) {
        cl_queue_properties before[] = {CL_QUEUE_PROPERTIES, queue_bits[b], names[n], values[v], 0};
        cl_queue_properties after[] = {names[n], values[v], CL_QUEUE_PROPERTIES, queue_bits[b], 0};
        expect_queue(env, before, 5, queue_bits[b], 0, kernel);
        expect_queue(env, after, 5, queue_bits[b], 0, kernel);
      }
    }
  assert_cl_success(clReleaseKernel(kernel));
}

static void test_compute_unit_limit_accepted(void **state) {
  struct kiln_test_env *env = *state;
  cl_kernel kernel = vec_kernel();
  ast_set_batch_size(kernel, 1);
  cl_uint units = kiln_test_compute_units(env->device);
  for (cl_uint limit = 1; limit <= units; limit++) {
    cl_queue_properties alone[] = {CL_QUEUE_COMPUTE_UNIT_LIMIT_ARM, limit, 0};
    expect_queue(env, alone, 3, 0, limit, kernel);
    for (size_t b = 0; b < sizeof queue_bits / sizeof queue_bits[0]; b++) {
      cl_queue_properties with_bits[] = {CL_QUEUE_PROPERTIES, queue_bits[b], CL_QUEUE_COMPUTE_UNIT_LIMIT_ARM, limit, 0};
      expect_queue(env, with_bits, 5, queue_bits[b], limit, kernel);
    }
  }
  /* A queue without the property has no limit. */
  expect_queue(env, (cl_queue_properties[]){CL_QUEUE_PROPERTIES, 0, 0}, 3, 0, 0, kernel);
  assert_cl_success(clReleaseKernel(kernel));
}

/* All three together, in different orders, with every CL_QUEUE_PROPERTIES combination. */
static void test_properties_combined(void **state) {
  struct kiln_test_env *env = *state;
  cl_kernel kernel = vec_kernel();
  ast_set_batch_size(kernel, 2);
  cl_uint units = kiln_test_compute_units(env->device);
  const cl_uint limits[] = {1, units};
  for (size_t b = 0; b < sizeof queue_bits / sizeof queue_bits[0]; b++)
    for (int batching = 0; batching < 2; batching++)
      for (int deferred = 0; deferred < 2; deferred++)
        for (size_t l = 0; l < 2; l++) {
          cl_queue_properties forward[] = {CL_QUEUE_KERNEL_BATCHING_ARM,
                                           (cl_queue_properties)batching,
                                           CL_QUEUE_DEFERRED_FLUSH_ARM,
                                           (cl_queue_properties)deferred,
                                           CL_QUEUE_COMPUTE_UNIT_LIMIT_ARM,
                                           limits[l],
                                           CL_QUEUE_PROPERTIES,
                                           queue_bits[b],
                                           0};
          cl_queue_properties backward[] = {CL_QUEUE_PROPERTIES,
                                            queue_bits[b],
                                            CL_QUEUE_COMPUTE_UNIT_LIMIT_ARM,
                                            limits[l],
                                            CL_QUEUE_DEFERRED_FLUSH_ARM,
                                            (cl_queue_properties)deferred,
                                            CL_QUEUE_KERNEL_BATCHING_ARM,
                                            (cl_queue_properties)batching,
                                            0};
          expect_queue(env, forward, 9, queue_bits[b], limits[l], kernel);
          expect_queue(env, backward, 9, queue_bits[b], limits[l], kernel);
        }
  /* Pairs without CL_QUEUE_PROPERTIES. */
  cl_queue_properties pair1[] = {CL_QUEUE_DEFERRED_FLUSH_ARM, CL_FALSE, CL_QUEUE_KERNEL_BATCHING_ARM, CL_FALSE, 0};
  cl_queue_properties pair2[] = {CL_QUEUE_COMPUTE_UNIT_LIMIT_ARM, 1, CL_QUEUE_KERNEL_BATCHING_ARM, CL_TRUE, 0};
  cl_queue_properties pair3[] = {CL_QUEUE_DEFERRED_FLUSH_ARM, CL_TRUE, CL_QUEUE_COMPUTE_UNIT_LIMIT_ARM, units, 0};
  expect_queue(env, pair1, 5, 0, 0, kernel);
  expect_queue(env, pair2, 5, 0, 1, kernel);
  expect_queue(env, pair3, 5, 0, units, kernel);
  assert_cl_success(clReleaseKernel(kernel));
}

static void expect_queue_refused(struct kiln_test_env *env, const cl_queue_properties *props, const char *what) {
  cl_int err = CL_SUCCESS;
  cl_command_queue queue = clCreateCommandQueueWithProperties(env->context, env->device, props, &err);
  if (queue) clReleaseCommandQueue(queue);
  if (queue || err != CL_INVALID_VALUE)
    fail_msg("%s: clCreateCommandQueueWithProperties returned %p with %d, expected NULL and CL_INVALID_VALUE", what,
             (void *)queue, err);
  queue = clCreateCommandQueueWithProperties(env->context, env->device, props, NULL);
  if (queue) {
    clReleaseCommandQueue(queue);
    fail_msg("%s: with errcode_ret NULL the queue was created", what);
  }
}

static void test_properties_refused(void **state) {
  struct kiln_test_env *env = *state;
  cl_uint units = kiln_test_compute_units(env->device);
  /* Not CL_TRUE or CL_FALSE, including values whose low 32 bits are. */
  const cl_queue_properties bad_bools[] = {2, 3, 0xFFFFFFFFu, 1ull << 32, (1ull << 32) | 1, ~0ull};
  const cl_queue_properties bool_names[] = {CL_QUEUE_KERNEL_BATCHING_ARM, CL_QUEUE_DEFERRED_FLUSH_ARM};
  char what[96];
  for (size_t n = 0; n < 2; n++)
    for (size_t v = 0; v < sizeof bad_bools / sizeof bad_bools[0]; v++) {
      snprintf(what, sizeof what, "property 0x%llx = 0x%llx", (unsigned long long)bool_names[n],
               (unsigned long long)bad_bools[v]);
      cl_queue_properties alone[] = {bool_names[n], bad_bools[v], 0};
      cl_queue_properties among[] = {CL_QUEUE_COMPUTE_UNIT_LIMIT_ARM,
                                     1,
                                     CL_QUEUE_PROPERTIES,
                                     CL_QUEUE_PROFILING_ENABLE,
                                     bool_names[n],
                                     bad_bools[v],
                                     0};
      expect_queue_refused(env, alone, what);
      expect_queue_refused(env, among, what);
    }
  /* "must be greater than 0 and less than or equal to CL_DEVICE_MAX_COMPUTE_UNITS" */
  const cl_queue_properties bad_limits[] = {
      0,    (cl_queue_properties)units + 1, (cl_queue_properties)units + 100, 0xFFFFFFFFu, 1ull << 32, (1ull << 32) | 1,
      ~0ull};
  for (size_t v = 0; v < sizeof bad_limits / sizeof bad_limits[0]; v++) {
    snprintf(what, sizeof what, "CL_QUEUE_COMPUTE_UNIT_LIMIT_ARM = 0x%llx (%u compute units)",
             (unsigned long long)bad_limits[v], units);
    cl_queue_properties alone[] = {CL_QUEUE_COMPUTE_UNIT_LIMIT_ARM, bad_limits[v], 0};
    cl_queue_properties among[] = {CL_QUEUE_KERNEL_BATCHING_ARM,
                                   CL_TRUE,
                                   CL_QUEUE_PROPERTIES,
                                   CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE,
                                   CL_QUEUE_COMPUTE_UNIT_LIMIT_ARM,
                                   bad_limits[v],
                                   0};
    expect_queue_refused(env, alone, what);
    expect_queue_refused(env, among, what);
  }
  /* A property given twice. */
  cl_queue_properties twice[] = {CL_QUEUE_KERNEL_BATCHING_ARM, CL_TRUE, CL_QUEUE_KERNEL_BATCHING_ARM, CL_FALSE, 0};
  cl_queue_properties twice_limit[] = {CL_QUEUE_COMPUTE_UNIT_LIMIT_ARM, 1, CL_QUEUE_COMPUTE_UNIT_LIMIT_ARM, 1, 0};
  expect_queue_refused(env, twice, "CL_QUEUE_KERNEL_BATCHING_ARM twice");
  expect_queue_refused(env, twice_limit, "CL_QUEUE_COMPUTE_UNIT_LIMIT_ARM twice");
}

int main(void) {
  kiln_sched_trace_enable("arm-sched-controls");
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_extension_reported),
      cmocka_unit_test(test_capabilities),
      cmocka_unit_test(test_capabilities_sizes),
      cmocka_unit_test(test_unreported_device_queries),
      cmocka_unit_test(test_kernel_max_warp_count_refused),
      cmocka_unit_test(test_batch_size_accepted),
      cmocka_unit_test(test_modifier_accepted),
      cmocka_unit_test(test_queue_bound_accepted),
      cmocka_unit_test(test_hint_sizes_refused),
      cmocka_unit_test(test_unreported_exec_info_refused),
      cmocka_unit_test(test_invalid_kernel),
      cmocka_unit_test(test_hints_per_kernel_and_cloned),
      cmocka_unit_test(test_register_allocation_refused),
      cmocka_unit_test(test_bool_properties_accepted),
      cmocka_unit_test(test_compute_unit_limit_accepted),
      cmocka_unit_test(test_properties_combined),
      cmocka_unit_test(test_properties_refused),
  };
  int failed = cmocka_run_group_tests(tests, setup, teardown);
  kiln_sched_trace_remove();
  return failed;
}
