/* cl_intel_unified_shared_memory 1.2.0, the command side: clEnqueueMemFillINTEL with every
 * pattern size (1 ... 128 bytes) on every kind of memory, the deprecated
 * clEnqueueMemsetINTEL, clEnqueueMemcpyINTEL between every pair of kinds (system memory
 * included; large copies too), clEnqueueMigrateMemINTEL and clEnqueueMemAdviseINTEL; their
 * events' command types and profiling, their order in a queue, and every error the spec
 * lists (wait lists, contexts, a failed event before a blocking copy), and the
 * families of cl_intel_command_queue_families that refuse them. Kernels use each
 * kind directly (clSetKernelArgMemPointerINTEL, clones included) and indirectly: tables
 * and linked lists whose pointers are stored in USM memory, with the indirect-access exec
 * infos; the host and a running kernel share flags and atomic counters in every kind
 * (the concurrent and atomic access capabilities); USM pointers in core calls (buffers
 * over them, buffer reads and writes, the SVM calls). */
#include "intel_usm_test.h"

#include <stdatomic.h>

static const char *source =
    "kernel void add(global int *p, int v) { p[get_global_id(0)] += v; }\n"
    "kernel void add_constant(global int *out, constant int *in) { out[get_global_id(0)] += in[get_global_id(0)]; }\n"
    "kernel void with_local(global int *p, local int *scratch) { scratch[0] = 1; p[0] = scratch[0]; }\n"
    /* reaches three allocations only through pointers stored in a fourth */
    "typedef struct { global int *a, *b, *c; } ptrs;\n"
    "kernel void indirect(global const ptrs *t) {\n"
    "  size_t i = get_global_id(0);\n"
    "  t->c[i] = t->a[i] * 10 + t->b[i];\n"
    "}\n"
    /* work-item i walks list heads[i] */
    "typedef struct node { global struct node *next; int value; } node;\n"
    "typedef global node *node_ptr;\n"
    "kernel void walk(global const node_ptr *heads, global int *sums) {\n"
    "  int s = 0;\n"
    "  for (global node *n = heads[get_global_id(0)]; n; n = n->next) s += n->value;\n"
    "  sums[get_global_id(0)] = s;\n"
    "}\n"
    /* waits (bounded) for the host's 1, answers, then hands 2 back while still running */
    "kernel void handshake(global volatile int *flag, global int *out, int v) {\n"
    "  long n = 0;\n"
    "  while (atomic_add(flag, 0) != 1 && n < 4000000000L) n++;\n"
    "  *out = n < 4000000000L ? v : -1;\n"
    "  atomic_xchg(flag, 2);\n"
    "  for (n = 0; n < 4000000000L && atomic_add(flag, 0) != 3; n++) {}\n"
    "}\n"
    "kernel void count_c11(global atomic_int *counter, int n) {\n"
    "  for (int i = 0; i < n; i++)\n"
    "    atomic_fetch_add_explicit(counter, 1, memory_order_relaxed, memory_scope_all_svm_devices);\n"
    "}\n"
    "kernel void count_legacy(global volatile int *counter, int n) {\n"
    "  for (int i = 0; i < n; i++) atomic_inc(counter);\n"
    "}\n";

static cl_program program;

static int setup(void **state) {
  return kiln_test_program_setup(state, usm_env_setup, &program, source, "-cl-std=CL3.0");
}
static int teardown(void **state) { return kiln_test_program_teardown(state, program); }

static unsigned char pattern_byte(size_t i) { return (unsigned char)(i * 37 + 11); }

/* ---- fills ---- */

static void test_fill_every_pattern_size(void **state) {
  struct kiln_test_env *env = *state;
  enum { BYTES = 1024, GUARD = 128 };
  unsigned char pattern[128];
  for (int i = 0; i < 128; i++) pattern[i] = pattern_byte(i);
  for (int k = USM_HOST; k < USM_ANY_KIND_COUNT; k++) {
    unsigned char *p = usm_alloc(env, (enum usm_kind)k, BYTES + 2 * GUARD);
    for (size_t size = 1; size <= 128; size *= 2) {
      memset(p, 0xEE, BYTES + 2 * GUARD);
      cl_event event;
      /* Into the middle of the allocation, aligned to the pattern. */
      assert_cl_success(usm.clEnqueueMemFillINTEL(env->queue, p + GUARD, pattern, size, BYTES, 0, NULL, &event));
      memset(pattern, 0, sizeof pattern); /* the pattern was copied at the call */
      usm_expect_event(event, CL_COMMAND_MEMFILL_INTEL, "fill");
      for (int i = 0; i < 128; i++) pattern[i] = pattern_byte(i);
      for (size_t i = 0; i < BYTES; i++)
        if (p[GUARD + i] != pattern[i % size])
          fail_msg("%s memory, pattern of %zu: byte %zu is 0x%02x", usm_kind_names[k], size, i, p[GUARD + i]);
      for (size_t i = 0; i < GUARD; i++) assert_int_equal(0xEE, p[i]);
      for (size_t i = 0; i < GUARD; i++) assert_int_equal(0xEE, p[GUARD + BYTES + i]);
    }
    /* A fill of 0 bytes is a multiple of any pattern: it does nothing. */
    assert_cl_success(usm.clEnqueueMemFillINTEL(env->queue, p, pattern, 4, 0, 0, NULL, NULL));
    assert_cl_success(clFinish(env->queue));
    assert_int_equal(0xEE, p[0]);
    usm_free_any(env, (enum usm_kind)k, p);
  }
}

static void test_fill_errors(void **state) {
  struct kiln_test_env *env = *state;
  unsigned char pattern[256] = {0};
  unsigned char *p = usm_alloc(env, USM_SHARED, 1024);
  memset(p, 0x11, 1024);
  struct {
    void *dst;
    const void *pattern;
    size_t pattern_size, size;
    const char *what;
  } bad[] = {
      {NULL, pattern, 4, 64, "NULL dst_ptr"},
      {p + 2, pattern, 4, 64, "dst_ptr not aligned to the pattern"},
      {p + 64, pattern, 128, 128, "dst_ptr not aligned to 128"},
      {p, NULL, 4, 64, "NULL pattern"},
      {p, pattern, 0, 64, "pattern size 0"},
      {p, pattern, 3, 63, "pattern size 3"},
      {p, pattern, 12, 96, "pattern size 12"},
      {p, pattern, 256, 256, "pattern size 256 (above long16)"},
      {p, pattern, 4, 62, "size not a multiple of the pattern"},
      {p, pattern, 64, 96, "size not a multiple of 64"},
  };
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    cl_event event = NULL;
    cl_int err = usm.clEnqueueMemFillINTEL(env->queue, bad[i].dst, bad[i].pattern, bad[i].pattern_size, bad[i].size,
                                           0, NULL, &event);
    if (err != CL_INVALID_VALUE) fail_msg("fill, %s: %d, expected CL_INVALID_VALUE", bad[i].what, err);
    assert_null(event);
  }
  assert_cl_success(clFinish(env->queue));
  for (int i = 0; i < 1024; i++) assert_int_equal(0x11, p[i]); /* nothing ran */
  usm_free_any(env, USM_SHARED, p);
}

/* The deprecated byte fill that cl_ext.h still declares. */
static void test_memset(void **state) {
  struct kiln_test_env *env = *state;
  for (int k = USM_HOST; k < USM_ANY_KIND_COUNT; k++) {
    unsigned char *p = usm_alloc(env, (enum usm_kind)k, 1000);
    memset(p, 0, 1000);
    cl_event event;
    assert_cl_success(usm.clEnqueueMemsetINTEL(env->queue, p + 1, 0x1234 /* the low byte counts */, 998, 0, NULL,
                                               &event));
    usm_expect_event(event, CL_COMMAND_MEMFILL_INTEL, "memset");
    assert_int_equal(0, p[0]);
    for (int i = 1; i < 999; i++) assert_int_equal(0x34, p[i]);
    assert_int_equal(0, p[999]);
    usm_free_any(env, (enum usm_kind)k, p);
  }
  assert_int_equal(CL_INVALID_VALUE, usm.clEnqueueMemsetINTEL(env->queue, NULL, 0, 16, 0, NULL, NULL));
  assert_int_equal(CL_INVALID_COMMAND_QUEUE, usm.clEnqueueMemsetINTEL(NULL, &state, 0, 1, 0, NULL, NULL));
}

/* ---- copies ---- */

static void test_memcpy_between_every_kind(void **state) {
  struct kiln_test_env *env = *state;
  enum { BYTES = 3001 };
  for (int s = USM_HOST; s < USM_ANY_KIND_COUNT; s++) {
    for (int d = USM_HOST; d < USM_ANY_KIND_COUNT; d++) {
      unsigned char *src = usm_alloc(env, (enum usm_kind)s, BYTES + 8);
      unsigned char *dst = usm_alloc(env, (enum usm_kind)d, BYTES + 8);
      for (int i = 0; i < BYTES + 8; i++) src[i] = (unsigned char)(i * 13 + s), dst[i] = 0xCD;
      cl_bool blocking = (s + d) % 2 ? CL_TRUE : CL_FALSE;
      cl_event event;
      /* Odd offsets and an odd size. */
      assert_cl_success(usm.clEnqueueMemcpyINTEL(env->queue, blocking, dst + 5, src + 3, BYTES, 0, NULL, &event));
      if (blocking) assert_int_equal(CL_COMPLETE, kiln_test_event_status(event));
      usm_expect_event(event, CL_COMMAND_MEMCPY_INTEL, "memcpy");
      for (int i = 0; i < 5; i++) assert_int_equal(0xCD, dst[i]);
      for (int i = 0; i < BYTES; i++)
        if (dst[5 + i] != src[3 + i])
          fail_msg("%s -> %s: byte %d is 0x%02x, expected 0x%02x", usm_kind_names[s], usm_kind_names[d], i,
                   dst[5 + i], src[3 + i]);
      for (int i = BYTES + 5; i < BYTES + 8; i++) assert_int_equal(0xCD, dst[i]);
      /* A copy of 0 bytes is valid and copies nothing. */
      assert_cl_success(usm.clEnqueueMemcpyINTEL(env->queue, CL_TRUE, dst, src, 0, 0, NULL, NULL));
      assert_int_equal(0xCD, dst[0]);
      usm_free_any(env, (enum usm_kind)s, src);
      usm_free_any(env, (enum usm_kind)d, dst);
    }
  }
}

/* 24 MiB and some: the size at which a worker-pool queue shares a copy among its workers,
 * which must keep USM's command type. */
static void test_large_memcpy(void **state) {
  struct kiln_test_env *env = *state;
  const size_t bytes = (24u << 20) + 13;
  uint32_t *src = usm_alloc(env, USM_DEVICE, bytes + 3), *dst = usm_alloc(env, USM_SHARED, bytes + 3);
  for (size_t i = 0; i < bytes / 4 + 1; i++) src[i] = (uint32_t)(i * 2654435761u);
  memset(dst, 0, bytes + 3);
  for (int blocking = 0; blocking < 2; blocking++) {
    cl_event event;
    assert_cl_success(usm.clEnqueueMemcpyINTEL(env->queue, (cl_bool)blocking, (char *)dst + 1, (char *)src + 1,
                                               bytes - 1, 0, NULL, &event));
    usm_expect_event(event, CL_COMMAND_MEMCPY_INTEL, "large memcpy");
    assert_int_equal(0, ((unsigned char *)dst)[0]);
    if (memcmp((char *)dst + 1, (char *)src + 1, bytes - 1) != 0) fail_msg("the large copy differs");
    memset(dst, 0, bytes + 3);
  }
  usm_free_any(env, USM_DEVICE, src);
  usm_free_any(env, USM_SHARED, dst);
}

static void test_memcpy_errors(void **state) {
  struct kiln_test_env *env = *state;
  unsigned char *a = usm_alloc(env, USM_DEVICE, 256), *b = usm_alloc(env, USM_HOST, 256);
  for (int i = 0; i < 256; i++) a[i] = (unsigned char)i, b[i] = 0;
  assert_int_equal(CL_INVALID_VALUE, usm.clEnqueueMemcpyINTEL(env->queue, CL_TRUE, NULL, a, 16, 0, NULL, NULL));
  assert_int_equal(CL_INVALID_VALUE, usm.clEnqueueMemcpyINTEL(env->queue, CL_TRUE, b, NULL, 16, 0, NULL, NULL));
  assert_int_equal(CL_INVALID_VALUE, usm.clEnqueueMemcpyINTEL(env->queue, CL_FALSE, NULL, NULL, 0, 0, NULL, NULL));
  /* Overlaps: the same range, either end inside the other; adjacent ranges do not. */
  const struct {
    int dst, src, size;
  } overlaps[] = {{0, 0, 16}, {8, 0, 16}, {0, 8, 16}, {0, 15, 16}, {100, 50, 51}};
  for (size_t i = 0; i < sizeof overlaps / sizeof overlaps[0]; i++)
    assert_int_equal(CL_MEM_COPY_OVERLAP, usm.clEnqueueMemcpyINTEL(env->queue, CL_TRUE, a + overlaps[i].dst,
                                                                   a + overlaps[i].src, overlaps[i].size, 0, NULL,
                                                                   NULL));
  for (int i = 0; i < 256; i++) assert_int_equal(i, a[i]); /* nothing moved */
  assert_cl_success(usm.clEnqueueMemcpyINTEL(env->queue, CL_TRUE, a + 16, a, 16, 0, NULL, NULL));
  assert_cl_success(usm.clEnqueueMemcpyINTEL(env->queue, CL_TRUE, a + 64, a + 80, 16, 0, NULL, NULL));
  for (int i = 0; i < 16; i++) assert_int_equal(i, a[16 + i]);
  for (int i = 0; i < 16; i++) assert_int_equal(80 + i, a[64 + i]);
  /* A blocking copy whose wait list fails: CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST,
   * and nothing copied. The event fails while the call blocks. */
  cl_event gate = kiln_test_gate_new(env->context);
  struct usm_opener opener;
  usm_open_event_later(&opener, gate, 50, -1);
  cl_event event = NULL;
  assert_int_equal(CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST,
                   usm.clEnqueueMemcpyINTEL(env->queue, CL_TRUE, b, a, 256, 1, &gate, &event));
  usm_opener_join(&opener);
  if (event) { /* where an event is returned with the error, it says how the command ended */
    assert_true(kiln_test_event_status(event) < 0);
    assert_cl_success(clReleaseEvent(event));
  }
  for (int i = 0; i < 256; i++) assert_int_equal(0, b[i]);
  /* Non-blocking: the call succeeds and the event carries the failure. */
  cl_event gate2 = kiln_test_gate_new(env->context);
  assert_cl_success(usm.clEnqueueMemcpyINTEL(env->queue, CL_FALSE, b, a, 256, 1, &gate2, &event));
  assert_cl_success(clSetUserEventStatus(gate2, -5));
  assert_int_equal(CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST, clWaitForEvents(1, &event));
  assert_true(kiln_test_event_status(event) < 0);
  assert_cl_success(clReleaseEvent(event));
  for (int i = 0; i < 256; i++) assert_int_equal(0, b[i]);
  assert_cl_success(clReleaseEvent(gate));
  assert_cl_success(clReleaseEvent(gate2));
  usm_free_any(env, USM_DEVICE, a);
  usm_free_any(env, USM_HOST, b);
}

/* ---- errors every USM enqueue shares: queue, wait list, context ---- */

enum op { OP_FILL, OP_MEMSET, OP_MEMCPY, OP_MIGRATE, OP_ADVISE, OP_COUNT };
static const char *const op_names[] = {"fill", "memset", "memcpy", "migrate", "advise"};
static const cl_command_type op_types[] = {CL_COMMAND_MEMFILL_INTEL, CL_COMMAND_MEMFILL_INTEL, CL_COMMAND_MEMCPY_INTEL,
                                           CL_COMMAND_MIGRATEMEM_INTEL, CL_COMMAND_MEMADVISE_INTEL};

/* `op` with valid memory arguments on `p` (at least 128 bytes, 128-aligned). */
static cl_int enqueue_op(enum op op, cl_command_queue queue, unsigned char *p, cl_uint n, const cl_event *list,
                         cl_event *event) {
  static const unsigned char pattern[4] = {1, 2, 3, 4};
  switch (op) {
  case OP_FILL:
    return usm.clEnqueueMemFillINTEL(queue, p, pattern, 4, 64, n, list, event);
  case OP_MEMSET:
    return usm.clEnqueueMemsetINTEL(queue, p, 7, 64, n, list, event);
  case OP_MEMCPY:
    return usm.clEnqueueMemcpyINTEL(queue, CL_FALSE, p + 64, p, 64, n, list, event);
  case OP_MIGRATE:
    return usm.clEnqueueMigrateMemINTEL(queue, p, 128, 0, n, list, event);
  default:
    return usm.clEnqueueMemAdviseINTEL(queue, p, 128, 0, n, list, event);
  }
}

static void test_queue_and_wait_list_errors(void **state) {
  struct kiln_test_env *env = *state;
  unsigned char *p = usm_alloc(env, USM_SHARED, 128);
  cl_int err;
  cl_context other = clCreateContext(NULL, 1, &env->device, NULL, NULL, &err);
  assert_cl_success(err);
  cl_event foreign = clCreateUserEvent(other, &err);
  assert_cl_success(err);
  cl_event done = kiln_test_done_marker(env->queue);
  cl_event released = kiln_test_done_marker(env->queue);
  assert_cl_success(clReleaseEvent(released));
  cl_command_queue released_queue = clCreateCommandQueueWithProperties(env->context, env->device, NULL, &err);
  assert_cl_success(err);
  assert_cl_success(clReleaseCommandQueue(released_queue));
  for (int o = 0; o < OP_COUNT; o++) {
    enum op op = (enum op)o;
    cl_event event = NULL;
    const cl_command_queue bad_queues[] = {NULL, (cl_command_queue)env->context, released_queue};
    for (int q = 0; q < 3; q++)
      if (enqueue_op(op, bad_queues[q], p, 0, NULL, NULL) != CL_INVALID_COMMAND_QUEUE)
        fail_msg("%s: invalid queue %d not refused with CL_INVALID_COMMAND_QUEUE", op_names[o], q);
    struct {
      cl_uint n;
      const cl_event *list;
      cl_int want;
      const char *what;
    } lists[] = {
        {1, NULL, CL_INVALID_EVENT_WAIT_LIST, "a count without a list"},
        {0, &done, CL_INVALID_EVENT_WAIT_LIST, "a list without a count"},
        {1, &released, CL_INVALID_EVENT_WAIT_LIST, "a released event"},
        {1, (const cl_event *)&env->queue, CL_INVALID_EVENT_WAIT_LIST, "a queue as event"},
        {1, &foreign, CL_INVALID_CONTEXT, "another context's event"},
    };
    for (size_t l = 0; l < sizeof lists / sizeof lists[0]; l++) {
      err = enqueue_op(op, env->queue, p, lists[l].n, lists[l].list, &event);
      if (err != lists[l].want) fail_msg("%s, %s: %d, expected %d", op_names[o], lists[l].what, err, lists[l].want);
      assert_null(event);
    }
    /* A valid wait list, and the event's type, queue and context. */
    assert_cl_success(enqueue_op(op, env->queue, p, 1, &done, &event));
    assert_cl_success(clWaitForEvents(1, &event));
    kiln_test_expect_event_info(event, op_types[o], env->queue, env->context);
    assert_cl_success(clReleaseEvent(event));
  }
  assert_cl_success(clReleaseEvent(done));
  assert_cl_success(clReleaseEvent(foreign));
  assert_cl_success(clReleaseContext(other));
  usm_free_any(env, USM_SHARED, p);
}

/* cl_intel_command_queue_families: its capability table lists no USM command, so a queue
 * of a family without the default capabilities refuses every USM enqueue
 * (CL_INVALID_OPERATION, the families spec's rule for enqueues not in its table), and a
 * queue of a default family takes them. */
static void test_queue_families(void **state) {
  struct kiln_test_env *env = *state;
  size_t size = 0;
  assert_cl_success(clGetDeviceInfo(env->device, CL_DEVICE_QUEUE_FAMILY_PROPERTIES_INTEL, 0, NULL, &size));
  cl_uint count = (cl_uint)(size / sizeof(cl_queue_family_properties_intel));
  assert_true(count > 0);
  cl_queue_family_properties_intel *families = malloc(size);
  assert_cl_success(clGetDeviceInfo(env->device, CL_DEVICE_QUEUE_FAMILY_PROPERTIES_INTEL, size, families, NULL));
  unsigned char *p = usm_alloc(env, USM_SHARED, 128);
  int restricted = 0;
  for (cl_uint f = 0; f < count; f++) {
    cl_queue_properties props[] = {CL_QUEUE_FAMILY_INTEL, f, CL_QUEUE_INDEX_INTEL, 0, 0};
    cl_int err;
    cl_command_queue queue = clCreateCommandQueueWithProperties(env->context, env->device, props, &err);
    assert_cl_success(err);
    bool defaults = families[f].capabilities == CL_QUEUE_DEFAULT_CAPABILITIES_INTEL;
    restricted += !defaults;
    for (int o = 0; o < OP_COUNT; o++) {
      err = enqueue_op((enum op)o, queue, p, 0, NULL, NULL);
      if (err != (defaults ? CL_SUCCESS : CL_INVALID_OPERATION))
        fail_msg("family %u (%s): %s returned %d", f, families[f].name, op_names[o], err);
    }
    assert_cl_success(clFinish(queue));
    assert_cl_success(clReleaseCommandQueue(queue));
  }
  assert_true(restricted > 0); /* Kiln's copy families */
  usm_free_any(env, USM_SHARED, p);
  free(families);
}

/* USM commands wait for their wait lists and keep the queue's order: nothing runs before
 * the gate opens, then fill -> copy -> kernel -> copy back run in turn. Profiling times. */
static void test_commands_in_order(void **state) {
  struct kiln_test_env *env = *state;
  enum { N = 512 };
  cl_int err;
  cl_queue_properties props[] = {CL_QUEUE_PROPERTIES, CL_QUEUE_PROFILING_ENABLE, 0};
  cl_command_queue queue = clCreateCommandQueueWithProperties(env->context, env->device, props, &err);
  assert_cl_success(err);
  int *a = usm_alloc(env, USM_HOST, N * sizeof(int)), *b = usm_alloc(env, USM_DEVICE, N * sizeof(int));
  int *out = usm_alloc(env, USM_SHARED, N * sizeof(int));
  for (int i = 0; i < N; i++) a[i] = -1, b[i] = -2, out[i] = -3;
  cl_kernel add = kiln_test_kernel(program, "add");
  assert_cl_success(usm.clSetKernelArgMemPointerINTEL(add, 0, b));
  kiln_test_arg_int(add, 1, 100);
  cl_event gate = kiln_test_gate_new(env->context), events[6];
  const cl_int value = 5;
  assert_cl_success(usm.clEnqueueMemFillINTEL(queue, a, &value, sizeof value, N * sizeof(int), 1, &gate, &events[0]));
  assert_cl_success(usm.clEnqueueMemcpyINTEL(queue, CL_FALSE, b, a, N * sizeof(int), 0, NULL, &events[1]));
  assert_cl_success(usm.clEnqueueMigrateMemINTEL(queue, b, N * sizeof(int), 0, 0, NULL, &events[2]));
  assert_cl_success(usm.clEnqueueMemAdviseINTEL(queue, b, N * sizeof(int), 0, 0, NULL, &events[3]));
  size_t global = N;
  assert_cl_success(clEnqueueNDRangeKernel(queue, add, 1, NULL, &global, NULL, 0, NULL, &events[4]));
  assert_cl_success(usm.clEnqueueMemcpyINTEL(queue, CL_FALSE, out, b, N * sizeof(int), 0, NULL, &events[5]));
  assert_cl_success(clFlush(queue));
  kiln_test_sleep_ms(30);
  for (int e = 0; e < 6; e++) assert_true(kiln_test_event_status(events[e]) > CL_COMPLETE);
  assert_true(a[0] == -1 && b[0] == -2 && out[0] == -3);
  assert_cl_success(clSetUserEventStatus(gate, CL_COMPLETE));
  assert_cl_success(clFinish(queue));
  for (int i = 0; i < N; i++) assert_int_equal(105, out[i]);
  const cl_command_type types[6] = {CL_COMMAND_MEMFILL_INTEL,   CL_COMMAND_MEMCPY_INTEL,
                                    CL_COMMAND_MIGRATEMEM_INTEL, CL_COMMAND_MEMADVISE_INTEL,
                                    CL_COMMAND_NDRANGE_KERNEL,   CL_COMMAND_MEMCPY_INTEL};
  cl_ulong previous_end = 0;
  for (int e = 0; e < 6; e++) {
    assert_int_equal(types[e], usm_event_type(events[e]));
    cl_ulong t[5];
    char what[32];
    snprintf(what, sizeof what, "command %d", e);
    kiln_test_profiling_times(events[e], t, what);
    if (t[2] < previous_end) fail_msg("command %d started before command %d ended", e, e - 1);
    previous_end = t[3];
    assert_cl_success(clReleaseEvent(events[e]));
  }
  assert_cl_success(clReleaseEvent(gate));
  assert_cl_success(clReleaseKernel(add));
  usm_free_any(env, USM_HOST, a);
  usm_free_any(env, USM_DEVICE, b);
  usm_free_any(env, USM_SHARED, out);
  assert_cl_success(clReleaseCommandQueue(queue));
}

/* ---- hints ---- */

static void test_migrate(void **state) {
  struct kiln_test_env *env = *state;
  const cl_mem_migration_flags valid[] = {0, CL_MIGRATE_MEM_OBJECT_HOST, CL_MIGRATE_MEM_OBJECT_CONTENT_UNDEFINED,
                                          CL_MIGRATE_MEM_OBJECT_HOST | CL_MIGRATE_MEM_OBJECT_CONTENT_UNDEFINED};
  for (int k = USM_HOST; k < USM_ANY_KIND_COUNT; k++) {
    unsigned char *p = usm_alloc(env, (enum usm_kind)k, 4096);
    memset(p, 0x77, 4096);
    for (int i = 0; i < 4; i++) {
      cl_event event;
      /* The whole allocation, and a part of it (the range is a hint). */
      assert_cl_success(usm.clEnqueueMigrateMemINTEL(env->queue, p, 4096, valid[i], 0, NULL, &event));
      usm_expect_event(event, CL_COMMAND_MIGRATEMEM_INTEL, "migrate");
      assert_cl_success(usm.clEnqueueMigrateMemINTEL(env->queue, p + 100, 1000, valid[i], 0, NULL, &event));
      usm_expect_event(event, CL_COMMAND_MIGRATEMEM_INTEL, "migrate part");
    }
    /* Migration moves nothing on a CPU: CONTENT_UNDEFINED leaves the bytes as they were. */
    for (int i = 0; i < 4096; i++) assert_int_equal(0x77, p[i]);
    const cl_mem_migration_flags invalid[] = {1u << 2, 1u << 5, (cl_mem_migration_flags)1 << 40,
                                              CL_MIGRATE_MEM_OBJECT_HOST | (1u << 3)};
    for (int i = 0; i < 4; i++)
      assert_int_equal(CL_INVALID_VALUE, usm.clEnqueueMigrateMemINTEL(env->queue, p, 4096, invalid[i], 0, NULL, NULL));
    usm_free_any(env, (enum usm_kind)k, p);
  }
  /* The spec names no invalid pointer or size: a hint with nothing to migrate is ordered
   * like any other command. */
  cl_event event;
  assert_cl_success(usm.clEnqueueMigrateMemINTEL(env->queue, NULL, 0, 0, 0, NULL, &event));
  usm_expect_event(event, CL_COMMAND_MIGRATEMEM_INTEL, "migrate NULL");
  /* A migration waits for its wait list. */
  cl_event gate = kiln_test_gate_new(env->context);
  void *p = usm_alloc(env, USM_SHARED, 64);
  assert_cl_success(usm.clEnqueueMigrateMemINTEL(env->queue, p, 64, 0, 1, &gate, &event));
  kiln_test_sleep_ms(20);
  assert_true(kiln_test_event_status(event) > CL_COMPLETE);
  assert_cl_success(clSetUserEventStatus(gate, CL_COMPLETE));
  usm_expect_event(event, CL_COMMAND_MIGRATEMEM_INTEL, "gated migrate");
  assert_cl_success(clReleaseEvent(gate));
  usm_free_any(env, USM_SHARED, p);
}

static void test_advise(void **state) {
  struct kiln_test_env *env = *state;
  for (int k = USM_HOST; k < USM_ANY_KIND_COUNT; k++) {
    void *p = usm_alloc(env, (enum usm_kind)k, 4096);
    cl_event event;
    /* 0, no advice: the only value there is while the extension defines none. */
    assert_cl_success(usm.clEnqueueMemAdviseINTEL(env->queue, p, 4096, 0, 0, NULL, &event));
    usm_expect_event(event, CL_COMMAND_MEMADVISE_INTEL, "advise");
    /* The reserved values 0x4208-0x420F and others are no supported advice. */
    for (cl_mem_advice_intel advice = 0x4208; advice <= 0x420F; advice++)
      assert_int_equal(CL_INVALID_VALUE, usm.clEnqueueMemAdviseINTEL(env->queue, p, 4096, advice, 0, NULL, NULL));
    assert_int_equal(CL_INVALID_VALUE, usm.clEnqueueMemAdviseINTEL(env->queue, p, 4096, 1, 0, NULL, NULL));
    usm_free_any(env, (enum usm_kind)k, p);
  }
}

/* ---- kernels ---- */

static void test_kernel_arguments_of_each_kind(void **state) {
  struct kiln_test_env *env = *state;
  enum { N = 1000 };
  cl_kernel add = kiln_test_kernel(program, "add");
  cl_kernel add_constant = kiln_test_kernel(program, "add_constant");
  for (int k = USM_HOST; k < USM_ANY_KIND_COUNT; k++) {
    int *p = usm_alloc(env, (enum usm_kind)k, (N + 8) * sizeof *p);
    int *in = usm_alloc(env, (enum usm_kind)((k + 1) % USM_ANY_KIND_COUNT), N * sizeof *in);
    for (int i = 0; i < N + 8; i++) p[i] = i;
    for (int i = 0; i < N; i++) in[i] = 7 * i;
    assert_cl_success(usm.clSetKernelArgMemPointerINTEL(add, 0, p + 8)); /* into the middle */
    kiln_test_arg_int(add, 1, 1000 * (k + 1));
    size_t global = N;
    assert_cl_success(clEnqueueNDRangeKernel(env->queue, add, 1, NULL, &global, NULL, 0, NULL, NULL));
    assert_cl_success(usm.clSetKernelArgMemPointerINTEL(add_constant, 0, p + 8));
    assert_cl_success(usm.clSetKernelArgMemPointerINTEL(add_constant, 1, in)); /* a constant pointer */
    assert_cl_success(clEnqueueNDRangeKernel(env->queue, add_constant, 1, NULL, &global, NULL, 0, NULL, NULL));
    assert_cl_success(clFinish(env->queue));
    for (int i = 0; i < N + 8; i++) {
      int want = i < 8 ? i : i + 1000 * (k + 1) + 7 * (i - 8);
      if (p[i] != want) fail_msg("%s memory: element %d is %d, expected %d", usm_kind_names[k], i, p[i], want);
    }
    usm_free_any(env, (enum usm_kind)k, p);
    usm_free_any(env, (enum usm_kind)((k + 1) % USM_ANY_KIND_COUNT), in);
  }
  assert_cl_success(clReleaseKernel(add_constant));
  assert_cl_success(clReleaseKernel(add));
}

/* A USM pointer replaces a buffer argument and is replaced by one; a clone keeps the
 * pointer its original had. */
static void test_kernel_arguments_replaced_and_cloned(void **state) {
  struct kiln_test_env *env = *state;
  enum { N = 64 };
  cl_kernel add = kiln_test_kernel(program, "add");
  cl_mem buffer = kiln_test_buffer(env->context, N * sizeof(int));
  kiln_test_fill_ints(env->queue, buffer, N, 0);
  int *p = usm_alloc(env, USM_DEVICE, N * sizeof(int));
  memset(p, 0, N * sizeof(int));
  size_t global = N;
  kiln_test_arg_mem(add, 0, buffer);
  assert_cl_success(usm.clSetKernelArgMemPointerINTEL(add, 0, p));
  kiln_test_arg_int(add, 1, 3);
  cl_int err;
  cl_kernel clone = clCloneKernel(add, &err);
  assert_cl_success(err);
  assert_cl_success(clEnqueueNDRangeKernel(env->queue, add, 1, NULL, &global, NULL, 0, NULL, NULL));
  assert_cl_success(clEnqueueNDRangeKernel(env->queue, clone, 1, NULL, &global, NULL, 0, NULL, NULL));
  kiln_test_arg_mem(add, 0, buffer);
  assert_cl_success(clEnqueueNDRangeKernel(env->queue, add, 1, NULL, &global, NULL, 0, NULL, NULL));
  assert_cl_success(clFinish(env->queue));
  for (int i = 0; i < N; i++) assert_int_equal(6, p[i]);
  for (int i = 0; i < N; i++) assert_int_equal(3, kiln_test_read_int(env->queue, buffer, (size_t)i));
  assert_cl_success(clReleaseKernel(clone));
  assert_cl_success(clReleaseKernel(add));
  assert_cl_success(clReleaseMemObject(buffer));
  usm_free_any(env, USM_DEVICE, p);
}

static void test_kernel_argument_errors(void **state) {
  struct kiln_test_env *env = *state;
  cl_kernel add = kiln_test_kernel(program, "add");
  cl_kernel with_local = kiln_test_kernel(program, "with_local");
  int *p = usm_alloc(env, USM_SHARED, 64);
  assert_int_equal(CL_INVALID_KERNEL, usm.clSetKernelArgMemPointerINTEL(NULL, 0, p));
  assert_int_equal(CL_INVALID_KERNEL, usm.clSetKernelArgMemPointerINTEL((cl_kernel)env->queue, 0, p));
  assert_int_equal(CL_INVALID_ARG_INDEX, usm.clSetKernelArgMemPointerINTEL(add, 2, p));
  assert_int_equal(CL_INVALID_ARG_INDEX, usm.clSetKernelArgMemPointerINTEL(add, 0xFFFFFFFFu, p));
  assert_int_equal(CL_INVALID_ARG_VALUE, usm.clSetKernelArgMemPointerINTEL(add, 1, p));        /* an int */
  assert_int_equal(CL_INVALID_ARG_VALUE, usm.clSetKernelArgMemPointerINTEL(with_local, 1, p)); /* local */
  /* Any pointer value is valid (1.1.0): NULL, system memory, a pointer past an allocation. */
  int x;
  assert_cl_success(usm.clSetKernelArgMemPointerINTEL(add, 0, NULL));
  assert_cl_success(usm.clSetKernelArgMemPointerINTEL(add, 0, &x));
  assert_cl_success(usm.clSetKernelArgMemPointerINTEL(add, 0, (char *)p + 4096));
  assert_cl_success(usm.clSetKernelArgMemPointerINTEL(with_local, 0, p));
  usm_free_any(env, USM_SHARED, p);
  assert_cl_success(clReleaseKernel(with_local));
  assert_cl_success(clReleaseKernel(add));
}

static const cl_kernel_exec_info indirect_names[3] = {CL_KERNEL_EXEC_INFO_INDIRECT_HOST_ACCESS_INTEL,
                                                      CL_KERNEL_EXEC_INFO_INDIRECT_DEVICE_ACCESS_INTEL,
                                                      CL_KERNEL_EXEC_INFO_INDIRECT_SHARED_ACCESS_INTEL};

static void test_exec_info_errors(void **state) {
  struct kiln_test_env *env = *state;
  cl_kernel k = kiln_test_kernel(program, "indirect");
  cl_bool yes = CL_TRUE, no = CL_FALSE;
  for (int i = 0; i < 3; i++) {
    assert_cl_success(clSetKernelExecInfo(k, indirect_names[i], sizeof yes, &yes));
    assert_cl_success(clSetKernelExecInfo(k, indirect_names[i], sizeof no, &no));
    assert_int_equal(CL_INVALID_VALUE, clSetKernelExecInfo(k, indirect_names[i], sizeof yes - 1, &yes));
    assert_int_equal(CL_INVALID_VALUE, clSetKernelExecInfo(k, indirect_names[i], sizeof yes + 1, &yes));
    assert_int_equal(CL_INVALID_VALUE, clSetKernelExecInfo(k, indirect_names[i], sizeof yes, NULL));
    assert_int_equal(CL_INVALID_KERNEL, clSetKernelExecInfo((cl_kernel)env->context, indirect_names[i], sizeof yes,
                                                            &yes));
  }
  int x;
  void *pointers[3] = {&x, NULL, (char *)&x + 1}; /* any values (1.1.0) */
  assert_cl_success(clSetKernelExecInfo(k, CL_KERNEL_EXEC_INFO_USM_PTRS_INTEL, sizeof pointers, pointers));
  assert_cl_success(clSetKernelExecInfo(k, CL_KERNEL_EXEC_INFO_USM_PTRS_INTEL, sizeof(void *), pointers));
  assert_cl_success(clSetKernelExecInfo(k, CL_KERNEL_EXEC_INFO_USM_PTRS_INTEL, 0, NULL)); /* the empty set */
  assert_int_equal(CL_INVALID_VALUE, clSetKernelExecInfo(k, CL_KERNEL_EXEC_INFO_USM_PTRS_INTEL, 5, pointers));
  assert_int_equal(CL_INVALID_VALUE,
                   clSetKernelExecInfo(k, CL_KERNEL_EXEC_INFO_USM_PTRS_INTEL, sizeof pointers, NULL));
  assert_int_equal(CL_INVALID_VALUE, clSetKernelExecInfo(k, CL_KERNEL_EXEC_INFO_USM_PTRS_INTEL, 0, pointers));
  /* A name nobody knows. */
  assert_int_equal(CL_INVALID_VALUE, clSetKernelExecInfo(k, 0x4204 /* a command type */, sizeof yes, &yes));
  assert_cl_success(clReleaseKernel(k));
}

/* A kernel that reaches three allocations (host, device, shared) only through pointers
 * stored in a table, with the table itself in each kind of memory in turn; the exec infos
 * say so, and a clone made after them runs too. */
static void test_indirect_access_through_tables(void **state) {
  struct kiln_test_env *env = *state;
  enum { N = 256 };
  typedef struct {
    int *a, *b, *c;
  } table_t;
  int *a = usm_alloc(env, USM_HOST, N * sizeof *a), *b = usm_alloc(env, USM_DEVICE, N * sizeof *b);
  int *c = usm_alloc(env, USM_SHARED, N * sizeof *c);
  for (int i = 0; i < N; i++) a[i] = i, b[i] = -3 * i;
  for (int t = USM_HOST; t < USM_ANY_KIND_COUNT; t++) {
    table_t *table = usm_alloc(env, (enum usm_kind)t, sizeof *table);
    *table = (table_t){a, b, c};
    for (int i = 0; i < N; i++) c[i] = 12345;
    cl_kernel k = kiln_test_kernel(program, "indirect");
    assert_cl_success(usm.clSetKernelArgMemPointerINTEL(k, 0, table));
    cl_bool yes = CL_TRUE;
    for (int i = 0; i < 3; i++) assert_cl_success(clSetKernelExecInfo(k, indirect_names[i], sizeof yes, &yes));
    void *named[3] = {a, b, c};
    assert_cl_success(clSetKernelExecInfo(k, CL_KERNEL_EXEC_INFO_USM_PTRS_INTEL, sizeof named, named));
    cl_int err;
    cl_kernel clone = clCloneKernel(k, &err);
    assert_cl_success(err);
    size_t global = N / 2, offset = N / 2;
    assert_cl_success(clEnqueueNDRangeKernel(env->queue, k, 1, NULL, &global, NULL, 0, NULL, NULL));
    assert_cl_success(clEnqueueNDRangeKernel(env->queue, clone, 1, &offset, &global, NULL, 0, NULL, NULL));
    assert_cl_success(clFinish(env->queue));
    for (int i = 0; i < N; i++)
      if (c[i] != 7 * i) fail_msg("table in %s memory: c[%d] = %d, expected %d", usm_kind_names[t], i, c[i], 7 * i);
    assert_cl_success(clReleaseKernel(clone));
    assert_cl_success(clReleaseKernel(k));
    usm_free_any(env, (enum usm_kind)t, table);
  }
  usm_free_any(env, USM_HOST, a);
  usm_free_any(env, USM_DEVICE, b);
  usm_free_any(env, USM_SHARED, c);
}

/* Linked lists whose nodes cycle through host, device, shared and system memory, their
 * heads in a device allocation: every pointer the kernel follows is stored in memory. */
static void test_linked_lists_across_kinds(void **state) {
  struct kiln_test_env *env = *state;
  enum { LISTS = 64, NODES = 40 };
  typedef struct node {
    struct node *next;
    int value;
  } node_t;
  node_t *nodes[LISTS][NODES];
  node_t **heads = usm_alloc(env, USM_DEVICE, LISTS * sizeof *heads);
  int *sums = usm_alloc(env, USM_SHARED, LISTS * sizeof *sums);
  int want[LISTS];
  for (int l = 0; l < LISTS; l++) {
    want[l] = 0;
    for (int n = 0; n < NODES; n++) {
      nodes[l][n] = usm_alloc(env, (enum usm_kind)((l + n) % USM_ANY_KIND_COUNT), sizeof(node_t));
      nodes[l][n]->value = l * 1000 + n;
      want[l] += l * 1000 + n;
    }
    for (int n = 0; n < NODES; n++) nodes[l][n]->next = n + 1 < NODES ? nodes[l][n + 1] : NULL;
    heads[l] = l == LISTS - 1 ? NULL : nodes[l][0]; /* the last list is empty */
    sums[l] = -1;
  }
  want[LISTS - 1] = 0;
  cl_kernel walk = kiln_test_kernel(program, "walk");
  assert_cl_success(usm.clSetKernelArgMemPointerINTEL(walk, 0, heads));
  assert_cl_success(usm.clSetKernelArgMemPointerINTEL(walk, 1, sums));
  cl_bool yes = CL_TRUE;
  for (int i = 0; i < 3; i++) assert_cl_success(clSetKernelExecInfo(walk, indirect_names[i], sizeof yes, &yes));
  size_t global = LISTS;
  assert_cl_success(clEnqueueNDRangeKernel(env->queue, walk, 1, NULL, &global, NULL, 0, NULL, NULL));
  assert_cl_success(clFinish(env->queue));
  for (int l = 0; l < LISTS; l++)
    if (sums[l] != want[l]) fail_msg("list %d: sum %d, expected %d", l, sums[l], want[l]);
  assert_cl_success(clReleaseKernel(walk));
  for (int l = 0; l < LISTS; l++)
    for (int n = 0; n < NODES; n++) usm_free_any(env, (enum usm_kind)((l + n) % USM_ANY_KIND_COUNT), nodes[l][n]);
  usm_free_any(env, USM_DEVICE, heads);
  usm_free_any(env, USM_SHARED, sums);
}

/* ---- concurrent access and atomics ---- */

/* For each kind: a running kernel waits for the host's 1 in a flag, answers in `out` and
 * hands 2 back, which the host sees while the kernel is still running (it then waits for
 * the host's 3). */
static void test_concurrent_access(void **state) {
  struct kiln_test_env *env = *state;
  cl_kernel k = kiln_test_kernel(program, "handshake");
  for (int kind = USM_HOST; kind < USM_ANY_KIND_COUNT; kind++) {
    volatile cl_int *flag = usm_alloc(env, (enum usm_kind)kind, sizeof(cl_int));
    cl_int *out = usm_alloc(env, (enum usm_kind)((kind + 2) % USM_ANY_KIND_COUNT), sizeof(cl_int));
    *flag = 0, *out = 0;
    assert_cl_success(usm.clSetKernelArgMemPointerINTEL(k, 0, (void *)flag));
    assert_cl_success(usm.clSetKernelArgMemPointerINTEL(k, 1, out));
    kiln_test_arg_int(k, 2, 40 + kind);
    cl_event running;
    assert_cl_success(clEnqueueTask(env->queue, k, 0, NULL, &running));
    assert_cl_success(clFlush(env->queue));
    __atomic_store_n(flag, 1, __ATOMIC_SEQ_CST);
    bool answered = kiln_test_poll_ints(flag, 1, 2, true, 10000);
    cl_int status = kiln_test_event_status(running);
    __atomic_store_n(flag, 3, __ATOMIC_SEQ_CST); /* lets the kernel end in any case */
    assert_cl_success(clWaitForEvents(1, &running));
    if (!answered) fail_msg("%s memory: the kernel never handed 2 back", usm_kind_names[kind]);
    assert_true(status > CL_COMPLETE); /* the host saw it while the kernel ran */
    assert_int_equal(40 + kind, *out);
    assert_cl_success(clReleaseEvent(running));
    usm_free_any(env, (enum usm_kind)kind, (void *)flag);
    usm_free_any(env, (enum usm_kind)((kind + 2) % USM_ANY_KIND_COUNT), out);
  }
  assert_cl_success(clReleaseKernel(k));
}

/* Host and kernel atomics on one counter of each kind at the same time, through OpenCL C
 * 3.0 atomics at all-SVM-devices scope and through OpenCL 1.x atomic_inc. */
static void test_concurrent_atomics(void **state) {
  struct kiln_test_env *env = *state;
  enum { ITEMS = 64, PER_ITEM = 20000, HOST_ADDS = 300000 };
  const char *kernels[2] = {"count_c11", "count_legacy"};
  for (int kind = USM_HOST; kind < USM_ANY_KIND_COUNT; kind++) {
    for (int which = 0; which < 2; which++) {
      cl_kernel k = kiln_test_kernel(program, kernels[which]);
      atomic_int *counter = usm_alloc(env, (enum usm_kind)kind, sizeof *counter);
      atomic_init(counter, 0);
      assert_cl_success(usm.clSetKernelArgMemPointerINTEL(k, 0, counter));
      kiln_test_arg_int(k, 1, PER_ITEM);
      size_t global = ITEMS;
      assert_cl_success(clEnqueueNDRangeKernel(env->queue, k, 1, NULL, &global, NULL, 0, NULL, NULL));
      assert_cl_success(clFlush(env->queue));
      for (int i = 0; i < HOST_ADDS; i++) atomic_fetch_add_explicit(counter, 1, memory_order_relaxed);
      assert_cl_success(clFinish(env->queue));
      int got = atomic_load(counter);
      if (got != ITEMS * PER_ITEM + HOST_ADDS)
        fail_msg("%s memory, %s: %d, expected %d", usm_kind_names[kind], kernels[which], got,
                 ITEMS * PER_ITEM + HOST_ADDS);
      usm_free_any(env, (enum usm_kind)kind, counter);
      assert_cl_success(clReleaseKernel(k));
    }
  }
}

/* ---- USM pointers in core calls ---- */

static void test_usm_in_core_calls(void **state) {
  struct kiln_test_env *env = *state;
  enum { N = 256 };
  const size_t bytes = N * sizeof(int);
  /* A buffer over a host allocation is that allocation's memory; it is no SVM pointer. */
  int *host = usm_alloc(env, USM_HOST, bytes);
  for (int i = 0; i < N; i++) host[i] = i;
  cl_int err;
  cl_mem over = clCreateBuffer(env->context, CL_MEM_USE_HOST_PTR, bytes, host, &err);
  assert_cl_success(err);
  cl_bool uses_svm = CL_TRUE;
  assert_cl_success(clGetMemObjectInfo(over, CL_MEM_USES_SVM_POINTER, sizeof uses_svm, &uses_svm, NULL));
  assert_int_equal(CL_FALSE, uses_svm);
  cl_kernel add = kiln_test_kernel(program, "add");
  kiln_test_arg_mem(add, 0, over);
  kiln_test_arg_int(add, 1, 10);
  size_t global = N;
  assert_cl_success(clEnqueueNDRangeKernel(env->queue, add, 1, NULL, &global, NULL, 0, NULL, NULL));
  assert_cl_success(clFinish(env->queue));
  for (int i = 0; i < N; i++) assert_int_equal(i + 10, host[i]);
  /* Buffer reads into and writes from USM memory. */
  int *device = usm_alloc(env, USM_DEVICE, bytes), *shared = usm_alloc(env, USM_SHARED, bytes);
  memset(device, 0, bytes);
  assert_cl_success(clEnqueueReadBuffer(env->queue, over, CL_TRUE, 0, bytes, device, 0, NULL, NULL));
  for (int i = 0; i < N; i++) assert_int_equal(i + 10, device[i]);
  for (int i = 0; i < N; i++) shared[i] = -i;
  assert_cl_success(clEnqueueWriteBuffer(env->queue, over, CL_TRUE, 0, bytes, shared, 0, NULL, NULL));
  for (int i = 0; i < N; i++) assert_int_equal(-i, host[i]);
  /* The SVM calls take USM pointers: memcpy, fill, kernel arguments. */
  cl_event event;
  assert_cl_success(clEnqueueSVMMemcpy(env->queue, CL_TRUE, device, host, bytes, 0, NULL, &event));
  usm_expect_event(event, CL_COMMAND_SVM_MEMCPY, "SVM memcpy of USM memory");
  for (int i = 0; i < N; i++) assert_int_equal(-i, device[i]);
  const int nine = 9;
  assert_cl_success(clEnqueueSVMMemFill(env->queue, shared, &nine, sizeof nine, bytes, 0, NULL, NULL));
  assert_cl_success(clSetKernelArgSVMPointer(add, 0, shared));
  assert_cl_success(clEnqueueNDRangeKernel(env->queue, add, 1, NULL, &global, NULL, 0, NULL, NULL));
  assert_cl_success(clFinish(env->queue));
  for (int i = 0; i < N; i++) assert_int_equal(19, shared[i]);
  assert_cl_success(clReleaseKernel(add));
  assert_cl_success(clReleaseMemObject(over));
  usm_free_any(env, USM_HOST, host);
  usm_free_any(env, USM_DEVICE, device);
  usm_free_any(env, USM_SHARED, shared);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      KILN_GATED_TEST(test_fill_every_pattern_size),
      KILN_GATED_TEST(test_fill_errors),
      KILN_GATED_TEST(test_memset),
      KILN_GATED_TEST(test_memcpy_between_every_kind),
      KILN_GATED_TEST(test_large_memcpy),
      KILN_GATED_TEST(test_memcpy_errors),
      KILN_GATED_TEST(test_queue_and_wait_list_errors),
      KILN_GATED_TEST(test_queue_families),
      KILN_GATED_TEST(test_commands_in_order),
      KILN_GATED_TEST(test_migrate),
      KILN_GATED_TEST(test_advise),
      KILN_GATED_TEST(test_kernel_arguments_of_each_kind),
      KILN_GATED_TEST(test_kernel_arguments_replaced_and_cloned),
      KILN_GATED_TEST(test_kernel_argument_errors),
      KILN_GATED_TEST(test_exec_info_errors),
      KILN_GATED_TEST(test_indirect_access_through_tables),
      KILN_GATED_TEST(test_linked_lists_across_kinds),
      KILN_GATED_TEST(test_concurrent_access),
      KILN_GATED_TEST(test_concurrent_atomics),
      KILN_GATED_TEST(test_usm_in_core_calls),
  };
  return cmocka_run_group_tests(tests, setup, teardown);
}
