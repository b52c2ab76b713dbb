/* Independent forward progress of sub-groups (cl_khr_subgroups; device/cpu/fibers.h), through
 * the loader: work-items that wait in a loop for other work-items of their group — in
 * reverse order, in a random order, on OpenCL C 1.2 volatile flags and atomic_cmpxchg
 * locks, between barriers and work-group reductions, compare-and-swap retries that must
 * succeed while the others retry too, in 1, 2 and 3 dimensions and partial
 * groups — all finish with the right values; another work-item's private memory is private
 * to the generic address space; a waiting kernel whose private memory exceeds a fiber's
 * stack is refused at enqueue (CL_OUT_OF_RESOURCES) while the same kernel without the wait
 * runs, and so is the parent of such a block kernel; an application thread that helps run such a kernel and exits leaks nothing. */
#include "builtins_harness.h"

#include <pthread.h>
#include <stdlib.h>

/* Work-item l waits until work-item l + 1 (linear ids) has stored its count: the last one
 * starts a chain that runs against the order work-items start in. */
static const char *const chain_source =
    "kernel void chain(global int *out, local atomic_int *flags) {\n"
    "  size_t l = get_local_linear_id(), n = get_local_size(0) * get_local_size(1) * get_local_size(2);\n"
    "  atomic_init(&flags[l], 0);\n"
    "  work_group_barrier(CLK_LOCAL_MEM_FENCE);\n"
    "  int v = 1;\n"
    "  if (l + 1 < n) {\n"
    "    while ((v = atomic_load(&flags[l + 1])) == 0)\n"
    "      ;\n"
    "    v++;\n"
    "  }\n"
    "  atomic_store(&flags[l], v);\n"
    "  work_group_barrier(CLK_LOCAL_MEM_FENCE);\n"
    "  out[get_global_linear_id()] = atomic_load(&flags[l]) + 1000 * atomic_load(&flags[0]);\n"
    "}\n";

static void run_chain(struct kiln_test_env *env, cl_program program, cl_uint dim, const size_t *global,
                      const size_t *local) {
  size_t items = 1, group = 1;
  for (cl_uint d = 0; d < dim; d++) items *= global[d], group *= local[d];
  int *out = calloc(items, sizeof *out);
  assert_non_null(out);
  bt_launch(env, program, "chain", dim, NULL, global, local,
            BT_ARGS(BT_OUT(out, items * sizeof *out), BT_LOCAL(group * sizeof(cl_int))));
  /* Each work-item's count is the number of work-items from it to its group's end. */
  for (size_t i = 0; i < items; i++) {
    size_t id[3] = {0, 0, 0}, rest = i, size[3] = {1, 1, 1}, lid[3], n = 1, linear = 0, stride = 1;
    for (cl_uint d = 0; d < dim; d++) id[d] = rest % global[d], rest /= global[d];
    for (cl_uint d = 0; d < dim; d++) {
      size_t start = id[d] / local[d] * local[d];
      size[d] = global[d] - start < local[d] ? global[d] - start : local[d];
      lid[d] = id[d] - start;
      n *= size[d];
      linear += lid[d] * stride;
      stride *= size[d];
    }
    int want = (int)(n - linear) + 1000 * (int)n;
    if (out[i] != want) fail_msg("dim %u, work-item %zu: %d, expected %d", dim, i, out[i], want);
  }
  free(out);
}

static void test_reverse_chain(void **state) {
  struct kiln_test_env *env = *state;
  cl_program program = bt_build(env, chain_source, BT_CL30);
  static const size_t sizes[][2] = {{1, 1}, {7, 7}, {64, 8}, {4096, 256}, {1000, 256}, {1024, 1024}};
  for (size_t i = 0; i < sizeof sizes / sizeof *sizes; i++) run_chain(env, program, 1, &sizes[i][0], &sizes[i][1]);
  const size_t global2[2] = {40, 24}, local2[2] = {16, 8};
  run_chain(env, program, 2, global2, local2);
  const size_t global3[3] = {8, 6, 5}, local3[3] = {4, 3, 2};
  run_chain(env, program, 3, global3, local3);
  assert_cl_success(clReleaseProgram(program));
}

/* Work-items take turns in a random order: the one of rank r waits for the turn counter
 * to reach r, notes itself and passes the turn on (sub-group barriers in the loop, as
 * the CTS's forward-progress test has them). */
static void test_random_turns(void **state) {
  struct kiln_test_env *env = *state;
  const char *source =
      "kernel void turns(global const int *rank, global int *order, local atomic_int *turn) {\n"
      "  size_t l = get_local_id(0), g = get_group_id(0), n = get_local_size(0);\n"
      "  if (l == 0) atomic_init(turn, 0);\n"
      "  work_group_barrier(CLK_LOCAL_MEM_FENCE);\n"
      "  int mine = rank[get_global_id(0)];\n"
      "  bool done = false;\n"
      "  while (!done) {\n"
      "    if (atomic_load_explicit(turn, memory_order_acquire, memory_scope_work_group) == mine) {\n"
      "      order[g * n + mine] = (int)l;\n"
      "      atomic_store_explicit(turn, mine + 1, memory_order_release, memory_scope_work_group);\n"
      "      done = true;\n"
      "    }\n"
      "    sub_group_barrier(CLK_LOCAL_MEM_FENCE);\n"
      "  }\n"
      "}\n";
  enum { GROUP = 128, GROUPS = 6 };
  int rank[GROUP * GROUPS], order[GROUP * GROUPS];
  uint64_t seed = 12345;
  for (int g = 0; g < GROUPS; g++) {
    int *r = rank + g * GROUP;
    for (int i = 0; i < GROUP; i++) r[i] = i;
    for (int i = GROUP - 1; i > 0; i--) {
      int j = (int)(bt_random(&seed) % (uint64_t)(i + 1)), t = r[i];
      r[i] = r[j];
      r[j] = t;
    }
  }
  memset(order, 0xff, sizeof order);
  bt_run_source(env, source, BT_CL30, "turns", GROUP * GROUPS, GROUP,
                BT_ARGS(BT_IN(rank, sizeof rank), BT_OUT(order, sizeof order), BT_LOCAL(sizeof(cl_int))));
  for (int g = 0; g < GROUPS; g++)
    for (int i = 0; i < GROUP; i++)
      if (rank[g * GROUP + order[g * GROUP + i]] != i) fail_msg("group %d: turn %d went to work-item %d", g, i, order[g * GROUP + i]);
}

/* OpenCL C 1.2: work-item 0 waits on a volatile __local flag that the group's last sets,
 * work-item 1 on a plain one read between mem_fences that the one before the last sets, and
 * every work-item increments a plain counter under an atomic_cmpxchg lock. */
static void test_opencl_c_1_2_waits(void **state) {
  struct kiln_test_env *env = *state;
  const char *source =
      "kernel void waits(global int *counters, global int *locks, global int *seen) {\n"
      "  local volatile int flag;\n"
      "  local int fenced;\n"
      "  size_t l = get_local_id(0), n = get_local_size(0), g = get_group_id(0);\n"
      "  if (l == 0) flag = fenced = 0;\n"
      "  barrier(CLK_LOCAL_MEM_FENCE);\n"
      "  if (l == 0) { while (flag == 0) ; seen[2 * g] = flag; }\n"
      "  if (l == n - 1) { mem_fence(CLK_LOCAL_MEM_FENCE); flag = 77; }\n"
      "  if (l == 1) { while (fenced == 0) mem_fence(CLK_LOCAL_MEM_FENCE); seen[2 * g + 1] = fenced; }\n"
      "  if (l == n - 2) { fenced = 1000; mem_fence(CLK_LOCAL_MEM_FENCE); }\n"
      "  while (atomic_cmpxchg(&locks[g], 0, 1) != 0)\n"
      "    ;\n"
      "  counters[g] = counters[g] + 1;\n"
      "  mem_fence(CLK_GLOBAL_MEM_FENCE);\n"
      "  atomic_xchg(&locks[g], 0);\n"
      "}\n";
  enum { GROUP = 96, GROUPS = 5 };
  int counters[GROUPS] = {0}, locks[GROUPS] = {0}, seen[2 * GROUPS] = {0};
  bt_run_source(env, source, BT_CL12, "waits", GROUP * GROUPS, GROUP,
                BT_ARGS(BT_OUT(counters, sizeof counters), BT_OUT(locks, sizeof locks), BT_OUT(seen, sizeof seen)));
  for (int g = 0; g < GROUPS; g++) {
    assert_int_equal(GROUP, counters[g]);
    assert_int_equal(0, locks[g]);
    assert_int_equal(77, seen[2 * g]);
    assert_int_equal(1000, seen[2 * g + 1]);
  }
}

/* Waits between barriers in a loop and work-group reductions: each round, work-item l
 * waits for l - 1's store of the round (a chain in start order), then the group sums. */
static void test_barriers_and_reductions(void **state) {
  struct kiln_test_env *env = *state;
  const char *source =
      "kernel void rounds(global int *sums, local atomic_int *slot) {\n"
      "  size_t l = get_local_id(0), g = get_group_id(0);\n"
      "  for (int round = 1; round <= 4; round++) {\n"
      "    atomic_store(&slot[l], 0);\n"
      "    work_group_barrier(CLK_LOCAL_MEM_FENCE);\n"
      "    int v = round;\n"
      "    if (l > 0) { while ((v = atomic_load(&slot[l - 1])) == 0) ; v += round; }\n"
      "    atomic_store(&slot[l], v);\n"
      "    int sum = work_group_reduce_add(v);\n"
      "    if (l == 0) sums[g * 4 + round - 1] = sum;\n"
      "    work_group_barrier(CLK_LOCAL_MEM_FENCE);\n"
      "  }\n"
      "}\n";
  enum { GROUP = 64, GROUPS = 4 };
  int sums[GROUPS * 4];
  memset(sums, 0, sizeof sums);
  bt_run_source(env, source, BT_CL30, "rounds", GROUP * GROUPS, GROUP,
                BT_ARGS(BT_OUT(sums, sizeof sums), BT_LOCAL(GROUP * sizeof(cl_int))));
  for (int g = 0; g < GROUPS; g++)
    for (int round = 1; round <= 4; round++) /* work-item l holds (l + 1) * round */
      assert_int_equal(round * GROUP * (GROUP + 1) / 2, sums[g * 4 + round - 1]);
}

/* Compare-and-swap retries from the value the last failure returned, as in the CTS's
 * compare_exchange tests, in a loop that also branches on an atomic read (so it runs on
 * fibers, switching every few turns) and must succeed at least once: every work-item
 * succeeds, and the value counts every success. */
static void test_compare_exchange_retries(void **state) {
  struct kiln_test_env *env = *state;
  const char *source =
      "kernel void retries(global int *successes, global int *totals, local atomic_int *value) {\n"
      "  if (get_local_id(0) == 0) atomic_init(value, 0);\n"
      "  work_group_barrier(CLK_LOCAL_MEM_FENCE);\n"
      "  int expected = -1, previous, count = 0;\n"
      "  for (int i = 0; i < 50 || count == 0; i++) {\n"
      "    previous = expected;\n"
      "    if (atomic_compare_exchange_strong(value, &expected, expected + 1)) count++;\n"
      "    else if (previous == expected) { count = -1000000; break; }\n"
      "    if (atomic_load(value) < 0) break; /* never: makes the loop a wait, so fibers run it */\n"
      "  }\n"
      "  successes[get_global_id(0)] = count;\n"
      "  work_group_barrier(CLK_LOCAL_MEM_FENCE);\n"
      "  if (get_local_id(0) == 0) totals[get_group_id(0)] = atomic_load(value);\n"
      "}\n";
  enum { GROUP = 256, GROUPS = 4 };
  int successes[GROUP * GROUPS], totals[GROUPS];
  memset(successes, 0, sizeof successes);
  memset(totals, 0, sizeof totals);
  bt_run_source(env, source, BT_CL30, "retries", GROUP * GROUPS, GROUP,
                BT_ARGS(BT_OUT(successes, sizeof successes), BT_OUT(totals, sizeof totals), BT_LOCAL(sizeof(cl_int))));
  for (int g = 0; g < GROUPS; g++) {
    long sum = 0;
    for (int i = 0; i < GROUP; i++) {
      assert_true(successes[g * GROUP + i] >= 1);
      sum += successes[g * GROUP + i];
    }
    assert_int_equal(sum, totals[g]); /* each success added one */
  }
}

/* A work-item's private variable seen by the others through the generic address space,
 * while they wait for each other: private, not local or global. */
static void test_private_pointers(void **state) {
  struct kiln_test_env *env = *state;
  const char *source =
      "kernel void peek(global int *out, local ulong *addresses, local atomic_int *ready) {\n"
      "  size_t l = get_local_id(0), n = get_local_size(0);\n"
      "  int mine = (int)l * 3;\n"
      "  if (l == 0) atomic_init(ready, 0);\n"
      "  work_group_barrier(CLK_LOCAL_MEM_FENCE);\n"
      "  addresses[l] = (ulong)(uintptr_t)&mine;\n"
      "  atomic_fetch_add(ready, 1);\n"
      "  while (atomic_load(ready) != (int)n)\n"
      "    ;\n"
      "  int *other = (int *)(uintptr_t)addresses[(l + 1) % n];\n"
      "  out[get_global_id(0)] = (to_private(other) != 0) + 2 * (to_local(other) != 0) + 4 * (to_global(other) != 0)\n"
      "                          + 8 * (mine == (int)l * 3);\n"
      "  work_group_barrier(CLK_LOCAL_MEM_FENCE);\n"
      "}\n";
  enum { GROUP = 32, GROUPS = 8 };
  int out[GROUP * GROUPS];
  memset(out, 0, sizeof out);
  bt_run_source(env, source, BT_CL30, "peek", GROUP * GROUPS, GROUP,
                BT_ARGS(BT_OUT(out, sizeof out), BT_LOCAL(GROUP * sizeof(cl_ulong)), BT_LOCAL(sizeof(cl_int))));
  for (int i = 0; i < GROUP * GROUPS; i++) assert_int_equal(1 + 8, out[i]);
}

/* Private memory beyond what a fiber's stack leaves the kernel (KILN_FIBER_STACK_BYTES less
 * the library's reserve): refused with the wait, run without it. */
static void test_private_memory_limit(void **state) {
  struct kiln_test_env *env = *state;
  const char *source =
      "kernel void waits(global int *p, local atomic_int *go) {\n"
      "  int big[96 * 1024];\n"
      "  for (int i = 0; i < 96 * 1024; i++) big[i] = p[i & 7] + i;\n"
      "  if (get_local_id(0) == 0) atomic_store(go, 1);\n"
      "  while (atomic_load(go) == 0)\n"
      "    ;\n"
      "  p[get_global_id(0)] = big[p[8] & (96 * 1024 - 1)];\n"
      "}\n"
      "kernel void plain(global int *p) {\n"
      "  int big[96 * 1024];\n"
      "  for (int i = 0; i < 96 * 1024; i++) big[i] = p[i & 7] + i;\n"
      "  p[get_global_id(0)] = big[p[8] & (96 * 1024 - 1)];\n"
      "}\n";
  cl_program program = bt_build(env, source, BT_CL30);
  cl_int err;
  cl_mem buffer = clCreateBuffer(env->context, CL_MEM_READ_WRITE, 64 * sizeof(cl_int), NULL, &err);
  assert_cl_success(err);
  cl_int zero = 0;
  assert_cl_success(clEnqueueFillBuffer(env->queue, buffer, &zero, sizeof zero, 0, 64 * sizeof(cl_int), 0, NULL, NULL));
  size_t global = 2, local = 2;
  cl_kernel waits = clCreateKernel(program, "waits", &err);
  assert_cl_success(err);
  assert_cl_success(clSetKernelArg(waits, 0, sizeof buffer, &buffer));
  assert_cl_success(clSetKernelArg(waits, 1, sizeof(cl_int), NULL));
  assert_int_equal(CL_OUT_OF_RESOURCES, clEnqueueNDRangeKernel(env->queue, waits, 1, NULL, &global, &local, 0, NULL, NULL));
  cl_kernel plain = clCreateKernel(program, "plain", &err);
  assert_cl_success(err);
  assert_cl_success(clSetKernelArg(plain, 0, sizeof buffer, &buffer));
  assert_cl_success(clEnqueueNDRangeKernel(env->queue, plain, 1, NULL, &global, &local, 0, NULL, NULL));
  cl_int out[2] = {-1, -1};
  assert_cl_success(clEnqueueReadBuffer(env->queue, buffer, CL_TRUE, 0, sizeof out, out, 0, NULL, NULL));
  assert_int_equal(0, out[0]); /* big[0] = p[0] + 0 */
  assert_cl_success(clReleaseKernel(waits));
  assert_cl_success(clReleaseKernel(plain));
  assert_cl_success(clReleaseMemObject(buffer));
  assert_cl_success(clReleaseProgram(program));
}

/* The same limit for a block kernel that waits: the enqueue of its parent is refused (its
 * children run on the parent's thread, as fibers here). */
static void test_private_memory_limit_of_children(void **state) {
  struct kiln_test_env *env = *state;
  const char *source =
      "kernel void parent(global int *p) {\n"
      "  enqueue_kernel(get_default_queue(), CLK_ENQUEUE_FLAGS_NO_WAIT, ndrange_1D(2, 2), ^{\n"
      "    int big[96 * 1024];\n"
      "    for (int i = 0; i < 96 * 1024; i++) big[i] = p[i & 7] + i;\n"
      "    while (atomic_load((volatile global atomic_int *)p) == 0)\n"
      "      ;\n"
      "    p[get_global_id(0)] = big[p[8] & (96 * 1024 - 1)];\n"
      "  });\n"
      "}\n";
  cl_int err;
  const cl_queue_properties properties[] = {
      CL_QUEUE_PROPERTIES,
      CL_QUEUE_ON_DEVICE | CL_QUEUE_ON_DEVICE_DEFAULT | CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE, 0};
  cl_command_queue device_queue = clCreateCommandQueueWithProperties(env->context, env->device, properties, &err);
  assert_cl_success(err);
  cl_program program = bt_build(env, source, "-cl-std=CL2.0");
  cl_kernel parent = clCreateKernel(program, "parent", &err);
  assert_cl_success(err);
  cl_mem buffer = clCreateBuffer(env->context, CL_MEM_READ_WRITE, 64 * sizeof(cl_int), NULL, &err);
  assert_cl_success(err);
  assert_cl_success(clSetKernelArg(parent, 0, sizeof buffer, &buffer));
  size_t one = 1;
  assert_int_equal(CL_OUT_OF_RESOURCES, clEnqueueNDRangeKernel(env->queue, parent, 1, NULL, &one, NULL, 0, NULL, NULL));
  assert_cl_success(clReleaseMemObject(buffer));
  assert_cl_success(clReleaseKernel(parent));
  assert_cl_success(clReleaseProgram(program));
  assert_cl_success(clReleaseCommandQueue(device_queue));
}

/* An application thread that waits for a waiting kernel may run its groups (fibers on
 * stacks of that thread's), then exits: its stacks go with it (LeakSanitizer, TSan). */
struct helper_args {
  struct kiln_test_env *env;
  cl_program program;
};
static void *helper_thread(void *arg) {
  struct helper_args *a = arg;
  const size_t global = 2048, local = 128;
  run_chain(a->env, a->program, 1, &global, &local);
  return NULL;
}
static void test_helping_threads(void **state) {
  struct kiln_test_env *env = *state;
  struct helper_args args = {env, bt_build(env, chain_source, BT_CL30)};
  for (int round = 0; round < 3; round++) {
    pthread_t threads[2];
    for (int i = 0; i < 2; i++) assert_int_equal(0, pthread_create(&threads[i], NULL, helper_thread, &args));
    for (int i = 0; i < 2; i++) assert_int_equal(0, pthread_join(threads[i], NULL));
  }
  assert_cl_success(clReleaseProgram(args.program));
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_reverse_chain),        cmocka_unit_test(test_random_turns),
      cmocka_unit_test(test_opencl_c_1_2_waits),   cmocka_unit_test(test_barriers_and_reductions),
      cmocka_unit_test(test_compare_exchange_retries), cmocka_unit_test(test_private_pointers),
      cmocka_unit_test(test_private_memory_limit), cmocka_unit_test(test_private_memory_limit_of_children),
      cmocka_unit_test(test_helping_threads),
  };
  return cmocka_run_group_tests(tests, bt_setup, bt_teardown);
}
