/* Device-side enqueue (OpenCL C 2.0 §6.13.17, __opencl_c_device_enqueue; OpenCL API device
 * queues) through the loader: the device's queries, device queues and the default one
 * (creation, info, clSetDefaultDeviceCommandQueue, host entry points refusing them, queue_t
 * arguments), enqueue_kernel in all four forms with 1D/2D/3D ndranges, local-memory
 * arguments, wait lists, markers, user events, nested enqueues, the block queries, every
 * enqueue error with -g and CLK_ENQUEUE_FAILURE without, a full queue, event profiling, a
 * parent failing with its children, and the block kernels hidden from the API. */
#include "builtins_harness.h"

#include <CL/cl_ext.h>

#include <string.h>

#define CLK_ENQUEUE_FAILURE (-101)
#define CLK_INVALID_QUEUE (-102)
#define CLK_INVALID_NDRANGE (-160)
#define CLK_INVALID_EVENT_WAIT_LIST (-57)
#define CLK_DEVICE_QUEUE_FULL (-161)
#define CLK_INVALID_ARG_SIZE (-51)

static cl_command_queue device_queue(struct kiln_test_env *env, cl_command_queue_properties extra, cl_uint size) {
  cl_queue_properties properties[] = {CL_QUEUE_PROPERTIES,
                                      CL_QUEUE_ON_DEVICE | CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE | extra,
                                      size ? CL_QUEUE_SIZE : 0, size, 0};
  cl_int err;
  cl_command_queue queue = clCreateCommandQueueWithProperties(env->context, env->device, properties, &err);
  assert_cl_success(err);
  return queue;
}

static cl_int create_error(struct kiln_test_env *env, const cl_queue_properties *properties) {
  cl_int err = CL_SUCCESS;
  cl_command_queue queue = clCreateCommandQueueWithProperties(env->context, env->device, properties, &err);
  if (queue) clReleaseCommandQueue(queue);
  return err;
}

static cl_command_queue queue_info_queue(cl_command_queue queue, cl_command_queue_info name) {
  cl_command_queue value = (cl_command_queue)1;
  assert_cl_success(clGetCommandQueueInfo(queue, name, sizeof value, &value, NULL));
  return value;
}

static void test_device_queries(void **state) {
  struct kiln_test_env *env = *state;
  cl_device_device_enqueue_capabilities caps = 0;
  cl_command_queue_properties props = 0;
  cl_uint preferred = 0, max = 0, queues = 0, events = 0;
  assert_cl_success(clGetDeviceInfo(env->device, CL_DEVICE_DEVICE_ENQUEUE_CAPABILITIES, sizeof caps, &caps, NULL));
  assert_cl_success(clGetDeviceInfo(env->device, CL_DEVICE_QUEUE_ON_DEVICE_PROPERTIES, sizeof props, &props, NULL));
  assert_cl_success(clGetDeviceInfo(env->device, CL_DEVICE_QUEUE_ON_DEVICE_PREFERRED_SIZE, sizeof preferred, &preferred, NULL));
  assert_cl_success(clGetDeviceInfo(env->device, CL_DEVICE_QUEUE_ON_DEVICE_MAX_SIZE, sizeof max, &max, NULL));
  assert_cl_success(clGetDeviceInfo(env->device, CL_DEVICE_MAX_ON_DEVICE_QUEUES, sizeof queues, &queues, NULL));
  assert_cl_success(clGetDeviceInfo(env->device, CL_DEVICE_MAX_ON_DEVICE_EVENTS, sizeof events, &events, NULL));
  assert_int_equal(CL_DEVICE_QUEUE_SUPPORTED | CL_DEVICE_QUEUE_REPLACEABLE_DEFAULT, caps);
  /* The OpenCL 2.x minimums: profiling and out-of-order, 16 KiB preferred, 256 KiB max. */
  assert_int_equal(CL_QUEUE_PROFILING_ENABLE | CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE, props);
  assert_true(preferred >= 16 * 1024 && max >= 256 * 1024 && preferred <= max);
  assert_true(queues >= 1 && events >= 1024);
  /* OpenCL C 2.0 is in the versions, and the feature is reported. */
  size_t size = 0;
  assert_cl_success(clGetDeviceInfo(env->device, CL_DEVICE_OPENCL_C_ALL_VERSIONS, 0, NULL, &size));
  cl_name_version versions[16];
  assert_true(size <= sizeof versions);
  assert_cl_success(clGetDeviceInfo(env->device, CL_DEVICE_OPENCL_C_ALL_VERSIONS, size, versions, NULL));
  bool cl20 = false;
  for (size_t i = 0; i < size / sizeof versions[0]; i++) cl20 |= versions[i].version == CL_MAKE_VERSION(2, 0, 0);
  assert_true(cl20);
  assert_cl_success(clGetDeviceInfo(env->device, CL_DEVICE_OPENCL_C_FEATURES, 0, NULL, &size));
  cl_name_version features[64];
  assert_true(size <= sizeof features);
  assert_cl_success(clGetDeviceInfo(env->device, CL_DEVICE_OPENCL_C_FEATURES, size, features, NULL));
  bool feature = false;
  for (size_t i = 0; i < size / sizeof features[0]; i++)
    feature |= strcmp(features[i].name, "__opencl_c_device_enqueue") == 0;
  assert_true(feature);
}

static void test_device_queue_objects(void **state) {
  struct kiln_test_env *env = *state;
  cl_uint max = 0, preferred = 0;
  assert_cl_success(clGetDeviceInfo(env->device, CL_DEVICE_QUEUE_ON_DEVICE_MAX_SIZE, sizeof max, &max, NULL));
  assert_cl_success(clGetDeviceInfo(env->device, CL_DEVICE_QUEUE_ON_DEVICE_PREFERRED_SIZE, sizeof preferred, &preferred, NULL));
  /* Errors. */
  const cl_queue_properties in_order[] = {CL_QUEUE_PROPERTIES, CL_QUEUE_ON_DEVICE, 0};
  assert_int_equal(CL_INVALID_VALUE, create_error(env, in_order));
  const cl_queue_properties default_alone[] = {
      CL_QUEUE_PROPERTIES, CL_QUEUE_ON_DEVICE_DEFAULT | CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE, 0};
  assert_int_equal(CL_INVALID_VALUE, create_error(env, default_alone));
  const cl_queue_properties too_big[] = {
      CL_QUEUE_PROPERTIES, CL_QUEUE_ON_DEVICE | CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE, CL_QUEUE_SIZE, max + 1, 0};
  assert_int_equal(CL_INVALID_VALUE, create_error(env, too_big));
  const cl_queue_properties size_on_host[] = {CL_QUEUE_SIZE, 4096, 0};
  assert_int_equal(CL_INVALID_VALUE, create_error(env, size_on_host));
  const cl_queue_properties unknown_bit[] = {
      CL_QUEUE_PROPERTIES, CL_QUEUE_ON_DEVICE | CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE | ((cl_bitfield)1 << 40), 0};
  assert_int_equal(CL_INVALID_VALUE, create_error(env, unknown_bit));
  /* A property an extension knows (cl_intel_command_queue_families' family) is valid, but
   * not for a device queue. */
  const cl_queue_properties with_family[] = {
      CL_QUEUE_PROPERTIES, CL_QUEUE_ON_DEVICE | CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE, CL_QUEUE_FAMILY_INTEL, 0,
      CL_QUEUE_INDEX_INTEL, 0, 0};
  assert_int_equal(CL_INVALID_QUEUE_PROPERTIES, create_error(env, with_family));

  /* Info of a device queue, of the default one, and the default returned again. */
  cl_command_queue plain = device_queue(env, 0, 0), sized = device_queue(env, CL_QUEUE_PROFILING_ENABLE, 8192);
  cl_uint size = 0;
  assert_cl_success(clGetCommandQueueInfo(plain, CL_QUEUE_SIZE, sizeof size, &size, NULL));
  assert_int_equal(preferred, size);
  assert_cl_success(clGetCommandQueueInfo(sized, CL_QUEUE_SIZE, sizeof size, &size, NULL));
  assert_int_equal(8192, size);
  cl_command_queue_properties props = 0;
  assert_cl_success(clGetCommandQueueInfo(sized, CL_QUEUE_PROPERTIES, sizeof props, &props, NULL));
  assert_int_equal(CL_QUEUE_ON_DEVICE | CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE | CL_QUEUE_PROFILING_ENABLE, props);
  assert_int_equal(CL_INVALID_COMMAND_QUEUE, clGetCommandQueueInfo(env->queue, CL_QUEUE_SIZE, sizeof size, &size, NULL));
  assert_null(queue_info_queue(env->queue, CL_QUEUE_DEVICE_DEFAULT));
  cl_command_queue first = device_queue(env, CL_QUEUE_ON_DEVICE_DEFAULT, 0);
  cl_command_queue again = device_queue(env, CL_QUEUE_ON_DEVICE_DEFAULT, 0);
  assert_ptr_equal(first, again);
  cl_uint refs = 0;
  assert_cl_success(clGetCommandQueueInfo(first, CL_QUEUE_REFERENCE_COUNT, sizeof refs, &refs, NULL));
  assert_int_equal(2, refs);
  assert_ptr_equal(first, queue_info_queue(env->queue, CL_QUEUE_DEVICE_DEFAULT));
  assert_ptr_equal(first, queue_info_queue(plain, CL_QUEUE_DEVICE_DEFAULT));

  /* clSetDefaultDeviceCommandQueue: its errors, then a replacement. */
  assert_int_equal(CL_INVALID_CONTEXT, clSetDefaultDeviceCommandQueue(NULL, env->device, plain));
  assert_int_equal(CL_INVALID_DEVICE, clSetDefaultDeviceCommandQueue(env->context, NULL, plain));
  assert_int_equal(CL_INVALID_COMMAND_QUEUE, clSetDefaultDeviceCommandQueue(env->context, env->device, env->queue));
  assert_int_equal(CL_INVALID_COMMAND_QUEUE, clSetDefaultDeviceCommandQueue(env->context, env->device, NULL));
  cl_int err;
  cl_context other = clCreateContext(NULL, 1, &env->device, NULL, NULL, &err);
  assert_cl_success(err);
  assert_int_equal(CL_INVALID_COMMAND_QUEUE, clSetDefaultDeviceCommandQueue(other, env->device, plain));
  assert_cl_success(clReleaseContext(other));
  assert_cl_success(clSetDefaultDeviceCommandQueue(env->context, env->device, plain));
  assert_ptr_equal(plain, queue_info_queue(env->queue, CL_QUEUE_DEVICE_DEFAULT));

  /* Host entry points refuse a device queue; retain and release take it. */
  cl_mem buffer = clCreateBuffer(env->context, CL_MEM_READ_WRITE, 64, NULL, &err);
  assert_cl_success(err);
  char bytes[64] = {0};
  assert_int_equal(CL_INVALID_COMMAND_QUEUE, clEnqueueWriteBuffer(plain, buffer, CL_TRUE, 0, 64, bytes, 0, NULL, NULL));
  assert_int_equal(CL_INVALID_COMMAND_QUEUE, clEnqueueMarkerWithWaitList(plain, 0, NULL, NULL));
  assert_int_equal(CL_INVALID_COMMAND_QUEUE, clFinish(plain));
  assert_int_equal(CL_INVALID_COMMAND_QUEUE, clFlush(plain));
  assert_cl_success(clRetainCommandQueue(plain));
  assert_cl_success(clReleaseCommandQueue(plain));
  assert_cl_success(clReleaseMemObject(buffer));

  assert_cl_success(clReleaseCommandQueue(again));
  assert_cl_success(clReleaseCommandQueue(first));
  /* The default is `plain` until it goes; then there is none. */
  assert_ptr_equal(plain, queue_info_queue(env->queue, CL_QUEUE_DEVICE_DEFAULT));
  assert_cl_success(clReleaseCommandQueue(plain));
  assert_null(queue_info_queue(env->queue, CL_QUEUE_DEVICE_DEFAULT));
  assert_cl_success(clReleaseCommandQueue(sized));
}

static const char *const basic_source =
    "kernel void parent(global int *out, queue_t q, int v) {\n"
    "  size_t p = get_global_id(0);\n"
    "  int r = enqueue_kernel(q, CLK_ENQUEUE_FLAGS_WAIT_KERNEL, ndrange_1D(4),\n"
    "                         ^{ out[p * 4 + get_global_id(0)] = v + (int)get_global_id(0); });\n"
    "  out[1000 + p] = r;\n"
    "}\n"
    "kernel void geometry(global ulong *out, queue_t q) {\n"
    "  size_t g3[3] = {4, 6, 2}, l3[3] = {2, 3, 1}, o3[3] = {10, 20, 30};\n"
    "  size_t g2[2] = {8, 3}, l2[2] = {4, 1};\n"
    "  int r = enqueue_kernel(q, CLK_ENQUEUE_FLAGS_NO_WAIT, ndrange_3D(o3, g3, l3), ^{\n"
    "    size_t i = (get_global_id(2) - 30) * 24 + (get_global_id(1) - 20) * 4 + get_global_id(0) - 10;\n"
    "    out[i] = get_work_dim() * 1000000 + get_local_size(0) * 10000 + get_local_size(1) * 1000 +\n"
    "             get_num_groups(1) * 100 + get_global_offset(2);\n"
    "  });\n"
    "  r |= enqueue_kernel(q, CLK_ENQUEUE_FLAGS_NO_WAIT, ndrange_2D(g2, l2), ^{\n"
    "    out[100 + get_global_id(1) * 8 + get_global_id(0)] = get_group_id(0) * 10 + get_local_id(0);\n"
    "  });\n"
    "  r |= enqueue_kernel(q, CLK_ENQUEUE_FLAGS_NO_WAIT, ndrange_1D(3, 5, 5), ^{\n"
    "    out[200 + get_global_id(0)] = get_global_size(0) * 100 + get_enqueued_local_size(0);\n"
    "  });\n"
    "  out[300] = r;\n"
    "}\n";

static void test_enqueue_kernel(void **state) {
  struct kiln_test_env *env = *state;
  cl_command_queue q = device_queue(env, 0, 0);
  cl_program program = bt_build(env, basic_source, "-cl-std=CL2.0");
  enum { PARENTS = 64 };
  cl_int out[1000 + PARENTS];
  for (size_t i = 0; i < sizeof out / sizeof out[0]; i++) out[i] = -1;
  cl_int v = 40;
  bt_run(env, program, "parent", PARENTS, 0, BT_ARGS(BT_OUT(out, sizeof out), BT_VAL(q), BT_VAL(v)));
  for (int p = 0; p < PARENTS; p++) {
    assert_int_equal(0, out[1000 + p]);
    for (int i = 0; i < 4; i++) assert_int_equal(40 + i, out[p * 4 + i]);
  }
  cl_ulong geo[300 + 1];
  memset(geo, 0xff, sizeof geo);
  bt_run(env, program, "geometry", 1, 1, BT_ARGS(BT_OUT(geo, sizeof geo), BT_VAL(q)));
  assert_int_equal(0, (cl_int)geo[300]);
  for (int i = 0; i < 48; i++) assert_int_equal(3 * 1000000 + 2 * 10000 + 3 * 1000 + 2 * 100 + 30, geo[i]);
  for (int y = 0; y < 3; y++)
    for (int x = 0; x < 8; x++) assert_int_equal((x / 4) * 10 + x % 4, geo[100 + y * 8 + x]);
  for (int i = 3; i < 8; i++) assert_int_equal(5 * 100 + 5, geo[200 + i]);
  assert_cl_success(clReleaseProgram(program));
  assert_cl_success(clReleaseCommandQueue(q));
}

/* Local memory of two sizes, shared by a child's work-group across a barrier. */
static void test_local_arguments(void **state) {
  struct kiln_test_env *env = *state;
  const char *source =
      "kernel void parent(global int *out, queue_t q) {\n"
      "  int r = enqueue_kernel(q, CLK_ENQUEUE_FLAGS_WAIT_KERNEL, ndrange_1D(64, 16),\n"
      "    ^(local void *a, local void *b) {\n"
      "      local int *x = a; local long *y = b;\n"
      "      size_t l = get_local_id(0);\n"
      "      x[l] = (int)get_global_id(0); y[l] = 2 * (long)get_global_id(0);\n"
      "      barrier(CLK_LOCAL_MEM_FENCE);\n"
      "      out[get_global_id(0)] = x[15 - l] + (int)y[15 - l];\n"
      "    }, 16u * sizeof(int), 16u * sizeof(long));\n"
      "  out[64] = r;\n"
      "}\n";
  cl_command_queue q = device_queue(env, 0, 0);
  cl_int out[65];
  bt_run_source(env, source, "-cl-std=CL3.0", "parent", 1, 1, BT_ARGS(BT_OUT(out, sizeof out), BT_VAL(q)));
  assert_int_equal(0, out[64]);
  for (int i = 0; i < 64; i++) {
    int mirror = (i / 16) * 16 + 15 - i % 16;
    assert_int_equal(3 * mirror, out[i]);
  }
  assert_cl_success(clReleaseCommandQueue(q));
}

/* Wait lists, markers, user events and get_default_queue. Children without dependencies
 * may run in any order; each check below rests on a dependency: C after the marker after
 * A and B, and D after the user event that E, enqueued after D, sets. */
static void test_events(void **state) {
  struct kiln_test_env *env = *state;
  const char *source =
      "kernel void parent(global int *out) {\n"
      "  queue_t q = get_default_queue();\n"
      "  clk_event_t a, b, m, user = create_user_event(), gate = create_user_event();\n"
      "  int r = 0;\n"
      "  r |= !is_valid_event(user);\n"
      "  r |= enqueue_kernel(q, CLK_ENQUEUE_FLAGS_NO_WAIT, ndrange_1D(1), 1, &user, &b, ^{ out[1] = 1; });\n"
      "  r |= enqueue_kernel(q, CLK_ENQUEUE_FLAGS_NO_WAIT, ndrange_1D(1), 0, NULL, &a, ^{ out[0] = 10; });\n"
      "  clk_event_t both[2] = {a, b};\n"
      "  r |= enqueue_marker(q, 2, both, &m);\n"
      "  r |= enqueue_kernel(q, CLK_ENQUEUE_FLAGS_NO_WAIT, ndrange_1D(1), 1, &m, NULL, ^{ out[2] = out[0] + out[1]; });\n"
      "  r |= enqueue_kernel(q, CLK_ENQUEUE_FLAGS_NO_WAIT, ndrange_1D(1), 1, &gate, NULL, ^{ out[4] = out[5] + 1; });\n"
      "  r |= enqueue_kernel(q, CLK_ENQUEUE_FLAGS_NO_WAIT, ndrange_1D(1), ^{\n"
      "    out[5] = 5;\n"
      "    set_user_event_status(gate, CL_COMPLETE);\n"
      "    release_event(gate);\n"
      "  });\n"
      "  r |= is_valid_event(a) ? 0 : 2;\n"
      "  retain_event(a);\n"
      "  release_event(a);\n"
      "  release_event(a);\n"
      "  r |= is_valid_event(a) ? 4 : 0; /* released */\n"
      "  release_event(b);\n"
      "  release_event(m);\n"
      "  set_user_event_status(user, CL_COMPLETE);\n"
      "  release_event(user);\n"
      "  out[3] = r;\n"
      "}\n";
  cl_command_queue q = device_queue(env, CL_QUEUE_ON_DEVICE_DEFAULT, 0);
  cl_int out[6] = {-1, -1, -1, -1, -1, -1};
  bt_run_source(env, source, "-cl-std=CL2.0", "parent", 1, 1, BT_ARGS(BT_OUT(out, sizeof out)));
  assert_cl_success(clReleaseCommandQueue(q));
  const cl_int expected[6] = {10, 1, 11, 0, 6, 5};
  for (int i = 0; i < 6; i++)
    if (out[i] != expected[i]) fail_msg("out[%d] = %d, expected %d", i, out[i], expected[i]);
}

/* Enqueues from enqueued kernels, five levels deep; the host's event completes with the
 * last of them (WAIT_KERNEL's parent-then-child order at every level). */
static void test_nested(void **state) {
  struct kiln_test_env *env = *state;
  const char *source =
      "void level(queue_t q, global int *out, int depth) {\n"
      "  out[depth * 8 + get_global_id(0)] = depth > 0 ? out[(depth - 1) * 8] + 1 : 1;\n"
      "  if (depth < 4 && get_global_id(0) == 0)\n"
      "    enqueue_kernel(q, CLK_ENQUEUE_FLAGS_WAIT_KERNEL, ndrange_1D(8), ^{ level(q, out, depth + 1); });\n"
      "}\n"
      "kernel void parent(global int *out, queue_t q) { level(q, out, 0); }\n";
  cl_command_queue q = device_queue(env, 0, 0);
  cl_int out[40];
  memset(out, 0xff, sizeof out);
  bt_run_source(env, source, "-cl-std=CL2.0", "parent", 8, 8, BT_ARGS(BT_OUT(out, sizeof out), BT_VAL(q)));
  for (int d = 0; d < 5; d++)
    for (int i = 0; i < 8; i++) assert_int_equal(d + 1, out[d * 8 + i]);
  assert_cl_success(clReleaseCommandQueue(q));
}

/* The block queries agree with the device's limits. */
static void test_block_queries(void **state) {
  struct kiln_test_env *env = *state;
  const char *source =
      "kernel void parent(global uint *out) {\n"
      "  void (^b)(void) = ^{ out[9] = 1; };\n"
      "  out[0] = get_kernel_work_group_size(b);\n"
      "  out[1] = get_kernel_preferred_work_group_size_multiple(b);\n"
      "  out[2] = get_kernel_max_sub_group_size_for_ndrange(ndrange_1D(64, 16), b);\n"
      "  out[3] = get_kernel_sub_group_count_for_ndrange(ndrange_1D(64, 16), b);\n"
      "  out[4] = get_kernel_work_group_size(^(local void *l){ ((local int *)l)[0] = 1; });\n"
      "}\n";
  cl_uint out[10] = {0};
  bt_run_source(env, source, "-cl-std=CL3.0", "parent", 1, 1, BT_ARGS(BT_OUT(out, sizeof out)));
  size_t max_group = 0;
  assert_cl_success(clGetDeviceInfo(env->device, CL_DEVICE_MAX_WORK_GROUP_SIZE, sizeof max_group, &max_group, NULL));
  assert_int_equal(max_group, out[0]);
  assert_int_equal(max_group, out[4]);
  assert_true(out[1] >= 1);
  assert_int_equal(1, out[2]);  /* sub-groups of one work-item */
  assert_int_equal(16, out[3]);
}

static const char *const errors_source =
    "kernel void errors(global int *out, queue_t q) {\n"
    "  clk_event_t e;\n"
    "  out[0] = enqueue_kernel(get_default_queue(), CLK_ENQUEUE_FLAGS_NO_WAIT, ndrange_1D(1), ^{ out[20] = 1; });\n"
    "  out[1] = enqueue_kernel(q, CLK_ENQUEUE_FLAGS_NO_WAIT, ndrange_1D(0), ^{ out[20] = 1; });\n"
    "  out[2] = enqueue_kernel(q, CLK_ENQUEUE_FLAGS_NO_WAIT, ndrange_1D(8, 1u << 20), ^{ out[20] = 1; });\n"
    "  out[3] = enqueue_kernel(q, CLK_ENQUEUE_FLAGS_NO_WAIT, ndrange_1D(1), 1, NULL, NULL, ^{ out[20] = 1; });\n"
    "  out[4] = enqueue_kernel(q, CLK_ENQUEUE_FLAGS_NO_WAIT, ndrange_1D(1), 0, &e, NULL, ^{ out[20] = 1; });\n"
    "  out[5] = enqueue_kernel(q, CLK_ENQUEUE_FLAGS_NO_WAIT, ndrange_1D(1), ^(local void *l){ out[20] = 1; }, 0u);\n"
    "  out[6] = enqueue_marker(q, 0, NULL, &e);\n"
    "  out[7] = enqueue_marker(get_default_queue(), 1, &e, &e);\n"
    "  ndrange_t bad = ndrange_1D(4); bad.workDimension = 4;\n"
    "  out[8] = enqueue_kernel(q, CLK_ENQUEUE_FLAGS_NO_WAIT, bad, ^{ out[20] = 1; });\n"
    "  out[9] = enqueue_kernel(q, CLK_ENQUEUE_FLAGS_NO_WAIT, ndrange_1D(8, 3), ^{ out[20] = 1; });\n"
    "  clk_event_t gone = create_user_event();\n"
    "  release_event(gone);\n"
    "  out[10] = enqueue_kernel(q, CLK_ENQUEUE_FLAGS_NO_WAIT, ndrange_1D(1), 1, &gone, NULL, ^{ out[20] = 1; });\n"
    "  out[11] = enqueue_marker(q, 1, &gone, &e);\n"
    "}\n";

/* Each error the spec names, with -g (a released event counts as invalid in a wait list);
 * CLK_ENQUEUE_FAILURE for every one without it. No failed enqueue runs anything (out[20]
 * stays). No default device queue exists here:
 * get_default_queue() is CLK_NULL_QUEUE. */
static void test_enqueue_errors(void **state) {
  struct kiln_test_env *env = *state;
  cl_command_queue q = device_queue(env, 0, 0);
  cl_int out[21];
  for (int pass = 0; pass < 2; pass++) {
    for (int i = 0; i < 21; i++) out[i] = 7;
    bt_run_source(env, errors_source, pass ? "-cl-std=CL2.0 -cl-uniform-work-group-size" : "-g -cl-std=CL2.0 -cl-uniform-work-group-size",
                  "errors", 1, 1, BT_ARGS(BT_OUT(out, sizeof out), BT_VAL(q)));
    const cl_int expected[] = {CLK_INVALID_QUEUE,           CLK_INVALID_NDRANGE,         CLK_INVALID_NDRANGE,
                               CLK_INVALID_EVENT_WAIT_LIST, CLK_INVALID_EVENT_WAIT_LIST, CLK_INVALID_ARG_SIZE,
                               CLK_INVALID_EVENT_WAIT_LIST, CLK_INVALID_QUEUE,           CLK_INVALID_NDRANGE,
                               CLK_INVALID_NDRANGE,         CLK_INVALID_EVENT_WAIT_LIST, CLK_INVALID_EVENT_WAIT_LIST};
    for (int i = 0; i < 12; i++) {
      cl_int want = pass ? CLK_ENQUEUE_FAILURE : expected[i];
      if (out[i] != want) fail_msg("%s, case %d: %d, expected %d", pass ? "without -g" : "-g", i, out[i], want);
    }
    assert_int_equal(7, out[20]);
  }
  assert_cl_success(clReleaseCommandQueue(q));
}

/* A queue of 1 KiB holds 8 commands: the ninth enqueue finds it full; once they ran, the
 * next launch's enqueues fit again. */
static void test_queue_full(void **state) {
  struct kiln_test_env *env = *state;
  const char *source =
      "kernel void parent(global int *out, queue_t q) {\n"
      "  for (int i = 0; i < 12; i++)\n"
      "    out[i] = enqueue_kernel(q, CLK_ENQUEUE_FLAGS_NO_WAIT, ndrange_1D(1), ^{ atomic_inc(&out[12]); });\n"
      "}\n";
  cl_command_queue q = device_queue(env, 0, 1024);
  cl_program program = bt_build(env, source, "-g -cl-std=CL2.0");
  for (int launch = 0; launch < 2; launch++) {
    cl_int out[13] = {0};
    bt_run(env, program, "parent", 1, 1, BT_ARGS(BT_OUT(out, sizeof out), BT_VAL(q)));
    for (int i = 0; i < 12; i++) assert_int_equal(i < 8 ? 0 : CLK_DEVICE_QUEUE_FULL, out[i]);
    assert_int_equal(8, out[12]);
  }
  assert_cl_success(clReleaseProgram(program));
  assert_cl_success(clReleaseCommandQueue(q));
}

/* capture_event_profiling_info: a child that loops has taken time, and its completion
 * comes no earlier than the end of its execution; the host's profiling of the parent tells
 * its end from its completion. */
static void test_profiling(void **state) {
  struct kiln_test_env *env = *state;
  const char *source =
      "kernel void parent(global ulong *out, queue_t q) {\n"
      "  clk_event_t e;\n"
      "  enqueue_kernel(q, CLK_ENQUEUE_FLAGS_NO_WAIT, ndrange_1D(64), 0, NULL, &e, ^{\n"
      "    ulong x = get_global_id(0);\n"
      "    for (int i = 0; i < 200000; i++) x = x * 6364136223846793005UL + 1442695040888963407UL;\n"
      "    out[2 + get_global_id(0)] = x;\n"
      "  });\n"
      "  capture_event_profiling_info(e, CLK_PROFILING_COMMAND_EXEC_TIME, out);\n"
      "  release_event(e);\n"
      "}\n";
  cl_command_queue q = device_queue(env, CL_QUEUE_PROFILING_ENABLE, 0);
  cl_int err;
  const cl_queue_properties profiled[] = {CL_QUEUE_PROPERTIES, CL_QUEUE_PROFILING_ENABLE, 0};
  cl_command_queue host = clCreateCommandQueueWithProperties(env->context, env->device, profiled, &err);
  assert_cl_success(err);
  cl_program program = bt_build(env, source, "-cl-std=CL2.0");
  cl_kernel kernel = clCreateKernel(program, "parent", &err);
  assert_cl_success(err);
  cl_mem buffer = clCreateBuffer(env->context, CL_MEM_READ_WRITE, 66 * sizeof(cl_ulong), NULL, &err);
  assert_cl_success(err);
  assert_cl_success(clSetKernelArg(kernel, 0, sizeof buffer, &buffer));
  assert_cl_success(clSetKernelArg(kernel, 1, sizeof q, &q));
  size_t one = 1;
  cl_event event;
  assert_cl_success(clEnqueueNDRangeKernel(host, kernel, 1, NULL, &one, &one, 0, NULL, &event));
  cl_ulong out[66] = {0};
  assert_cl_success(clEnqueueReadBuffer(host, buffer, CL_TRUE, 0, sizeof out, out, 1, &event, NULL));
  assert_true(out[0] > 0);
  assert_true(out[1] >= out[0]);
  assert_true(out[2] != 0);
  /* The host's event: END when the parent's own work-items were done, COMPLETE when its
   * child was too (OpenCL API, CL_PROFILING_COMMAND_COMPLETE). */
  cl_ulong start = 0, end = 0, complete = 0;
  assert_cl_success(clGetEventProfilingInfo(event, CL_PROFILING_COMMAND_START, sizeof start, &start, NULL));
  assert_cl_success(clGetEventProfilingInfo(event, CL_PROFILING_COMMAND_END, sizeof end, &end, NULL));
  assert_cl_success(clGetEventProfilingInfo(event, CL_PROFILING_COMMAND_COMPLETE, sizeof complete, &complete, NULL));
  assert_true(start <= end);
  assert_true(complete - end >= out[0]); /* the child ran in between */
  assert_cl_success(clReleaseEvent(event));
  assert_cl_success(clReleaseMemObject(buffer));
  assert_cl_success(clReleaseKernel(kernel));
  assert_cl_success(clReleaseProgram(program));
  assert_cl_success(clReleaseCommandQueue(host));
  assert_cl_success(clReleaseCommandQueue(q));
}

/* A child that waits for a user event set to an error, or never set, fails, and so does
 * its parent; what ran before still ran. */
static void test_failures(void **state) {
  struct kiln_test_env *env = *state;
  const char *source =
      "kernel void failed(global int *out, queue_t q) {\n"
      "  clk_event_t u = create_user_event();\n"
      "  enqueue_kernel(q, CLK_ENQUEUE_FLAGS_NO_WAIT, ndrange_1D(1), ^{ out[0] = 1; });\n"
      "  enqueue_kernel(q, CLK_ENQUEUE_FLAGS_NO_WAIT, ndrange_1D(1), 1, &u, NULL, ^{ out[1] = 1; });\n"
      "  set_user_event_status(u, -77);\n"
      "  release_event(u);\n"
      "}\n"
      "kernel void never(global int *out, queue_t q) {\n"
      "  clk_event_t u = create_user_event();\n"
      "  enqueue_kernel(q, CLK_ENQUEUE_FLAGS_NO_WAIT, ndrange_1D(1), 1, &u, NULL, ^{ out[2] = 1; });\n"
      "  release_event(u);\n"
      "}\n";
  cl_command_queue q = device_queue(env, 0, 0);
  cl_program program = bt_build(env, source, "-cl-std=CL2.0");
  const char *names[] = {"failed", "never"};
  cl_int err;
  cl_mem buffer = clCreateBuffer(env->context, CL_MEM_READ_WRITE, 3 * sizeof(cl_int), NULL, &err);
  assert_cl_success(err);
  cl_int zero[3] = {0};
  assert_cl_success(clEnqueueWriteBuffer(env->queue, buffer, CL_TRUE, 0, sizeof zero, zero, 0, NULL, NULL));
  for (int k = 0; k < 2; k++) {
    cl_kernel kernel = clCreateKernel(program, names[k], &err);
    assert_cl_success(err);
    assert_cl_success(clSetKernelArg(kernel, 0, sizeof buffer, &buffer));
    assert_cl_success(clSetKernelArg(kernel, 1, sizeof q, &q));
    size_t one = 1;
    cl_event event;
    assert_cl_success(clEnqueueNDRangeKernel(env->queue, kernel, 1, NULL, &one, &one, 0, NULL, &event));
    assert_int_equal(CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST, clWaitForEvents(1, &event));
    cl_int status = 0;
    assert_cl_success(clGetEventInfo(event, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof status, &status, NULL));
    assert_true(status < 0);
    assert_cl_success(clReleaseEvent(event));
    assert_cl_success(clReleaseKernel(kernel));
  }
  cl_int out[3];
  assert_cl_success(clEnqueueReadBuffer(env->queue, buffer, CL_TRUE, 0, sizeof out, out, 0, NULL, NULL));
  assert_int_equal(1, out[0]);
  assert_int_equal(0, out[1]);
  assert_int_equal(0, out[2]);
  assert_cl_success(clReleaseMemObject(buffer));
  assert_cl_success(clReleaseProgram(program));
  assert_cl_success(clReleaseCommandQueue(q));
}

/* queue_t arguments: their errors, their info, a released queue at enqueue. */
static void test_queue_arguments(void **state) {
  struct kiln_test_env *env = *state;
  cl_program program = bt_build(env, basic_source, "-cl-std=CL2.0 -cl-kernel-arg-info");
  cl_int err;
  cl_kernel kernel = clCreateKernel(program, "parent", &err);
  assert_cl_success(err);
  char type[32];
  assert_cl_success(clGetKernelArgInfo(kernel, 1, CL_KERNEL_ARG_TYPE_NAME, sizeof type, type, NULL));
  assert_string_equal("queue_t", type);
  cl_kernel_arg_address_qualifier address = 0;
  assert_cl_success(clGetKernelArgInfo(kernel, 1, CL_KERNEL_ARG_ADDRESS_QUALIFIER, sizeof address, &address, NULL));
  assert_int_equal(CL_KERNEL_ARG_ADDRESS_PRIVATE, address);
  cl_command_queue q = device_queue(env, 0, 0);
  assert_int_equal(CL_INVALID_ARG_SIZE, clSetKernelArg(kernel, 1, sizeof q - 1, &q));
  assert_int_equal(CL_INVALID_ARG_VALUE, clSetKernelArg(kernel, 1, sizeof q, NULL));
  assert_int_equal(CL_INVALID_DEVICE_QUEUE, clSetKernelArg(kernel, 1, sizeof env->queue, &env->queue));
  cl_context other = clCreateContext(NULL, 1, &env->device, NULL, NULL, &err);
  assert_cl_success(err);
  cl_command_queue foreign = NULL;
  cl_queue_properties props[] = {CL_QUEUE_PROPERTIES, CL_QUEUE_ON_DEVICE | CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE, 0};
  foreign = clCreateCommandQueueWithProperties(other, env->device, props, &err);
  assert_cl_success(err);
  assert_int_equal(CL_INVALID_DEVICE_QUEUE, clSetKernelArg(kernel, 1, sizeof foreign, &foreign));
  assert_cl_success(clReleaseCommandQueue(foreign));
  assert_cl_success(clReleaseContext(other));
  cl_mem out = clCreateBuffer(env->context, CL_MEM_READ_WRITE, 4096 * sizeof(cl_int), NULL, &err);
  assert_cl_success(err);
  cl_int v = 1;
  assert_cl_success(clSetKernelArg(kernel, 0, sizeof out, &out));
  assert_cl_success(clSetKernelArg(kernel, 1, sizeof q, &q));
  assert_cl_success(clSetKernelArg(kernel, 2, sizeof v, &v));
  assert_cl_success(clReleaseCommandQueue(q)); /* the kernel does not hold it */
  size_t one = 1;
  assert_int_equal(CL_INVALID_KERNEL_ARGS, clEnqueueNDRangeKernel(env->queue, kernel, 1, NULL, &one, NULL, 0, NULL, NULL));
  assert_cl_success(clReleaseMemObject(out));
  assert_cl_success(clReleaseKernel(kernel));
  assert_cl_success(clReleaseProgram(program));
}

/* The kernels clang makes of blocks are the device's, not the application's. */
static void test_block_kernels_hidden(void **state) {
  struct kiln_test_env *env = *state;
  cl_program program = bt_build(env, basic_source, "-cl-std=CL2.0");
  size_t count = 0;
  assert_cl_success(clGetProgramInfo(program, CL_PROGRAM_NUM_KERNELS, sizeof count, &count, NULL));
  assert_int_equal(2, count);
  char names[64];
  assert_cl_success(clGetProgramInfo(program, CL_PROGRAM_KERNEL_NAMES, sizeof names, names, NULL));
  assert_string_equal("parent;geometry", names);
  cl_kernel kernels[4];
  cl_uint created = 0;
  assert_cl_success(clCreateKernelsInProgram(program, 4, kernels, &created));
  assert_int_equal(2, created);
  for (cl_uint i = 0; i < created; i++) assert_cl_success(clReleaseKernel(kernels[i]));
  cl_int err = CL_SUCCESS;
  assert_null(clCreateKernel(program, "__parent_block_invoke_kernel", &err));
  assert_int_equal(CL_INVALID_KERNEL_NAME, err);
  assert_cl_success(clReleaseProgram(program));
}

/* OpenCL C 1.2 has no blocks: such a build fails and says why. */
static void test_opencl_c_1_2(void **state) {
  struct kiln_test_env *env = *state;
  const char *source =
      "kernel void k(global int *out) { void (^b)(void) = ^{ out[0] = 1; }; b(); }\n";
  cl_int err;
  cl_program program = clCreateProgramWithSource(env->context, 1, &source, NULL, &err);
  assert_cl_success(err);
  assert_int_equal(CL_BUILD_PROGRAM_FAILURE, clBuildProgram(program, 1, &env->device, "-cl-std=CL1.2", NULL, NULL));
  char log[4096];
  assert_cl_success(clGetProgramBuildInfo(program, env->device, CL_PROGRAM_BUILD_LOG, sizeof log, log, NULL));
  assert_non_null(strstr(log, "blocks"));
  assert_cl_success(clReleaseProgram(program));
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_device_queries),   cmocka_unit_test(test_device_queue_objects),
      cmocka_unit_test(test_enqueue_kernel),   cmocka_unit_test(test_local_arguments),
      cmocka_unit_test(test_events),           cmocka_unit_test(test_nested),
      cmocka_unit_test(test_block_queries),    cmocka_unit_test(test_enqueue_errors),
      cmocka_unit_test(test_queue_full),       cmocka_unit_test(test_profiling),
      cmocka_unit_test(test_failures),         cmocka_unit_test(test_queue_arguments),
      cmocka_unit_test(test_block_kernels_hidden), cmocka_unit_test(test_opencl_c_1_2),
  };
  return cmocka_run_group_tests(tests, bt_setup, bt_teardown);
}
