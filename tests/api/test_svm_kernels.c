/* Shared virtual memory in kernels, from the OpenCL 3.0 API and OpenCL C specs:
 * clSetKernelArgSVMPointer (pointers into the middle of allocations for global and constant
 * arguments, and each error); a linked list in SVM walked and changed by a kernel (nodes
 * in one allocation, in one allocation each named by CL_KERNEL_EXEC_INFO_SVM_PTRS, and in
 * malloc'd memory); CL_KERNEL_EXEC_INFO_SVM_PTRS and CL_KERNEL_EXEC_INFO_SVM_FINE_GRAIN_SYSTEM
 * and their CL_INVALID_VALUE cases (and clCloneKernel keeping both); fine-grain system SVM
 * from malloc, the host stack and mmap; and host/kernel concurrency through SVM atomics
 * (OpenCL C 3.0 atomics with memory_scope_all_svm_devices against the host's <stdatomic.h>):
 * a kernel that waits for a flag the host sets after the launch and reports back while it
 * still runs, many work-items counting on one counter with the host at the same time
 * (every value taken exactly once), and a spinlock both sides take around a plain int.
 * Every wait is bounded (kernels cap their spins, the host gives up after 10 s), so a
 * failure cannot hang. */
#include "kiln_test.h"
#include "kiln_test_objects.h"

#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#define SPIN_CAP     "2000000000L" /* a kernel's spin gives up after this many loads */
#define HOST_WAIT_MS 10000

static const char *source =
    "kernel void add(global int *p, int v) { p[get_global_id(0)] += v; }\n"
    "kernel void copy_const(constant int *in, global int *out) { out[get_global_id(0)] = in[get_global_id(0)] * 2; }\n"
    "kernel void uses_local(global int *p, local int *scratch) {\n"
    "  scratch[get_local_id(0)] = 1; p[get_global_id(0)] = scratch[get_local_id(0)];\n"
    "}\n"
    "typedef struct node { global struct node *next; int value; } node;\n"
    /* walks the list: counts, sums and doubles each value */
    "kernel void walk(global node *head, global int *out) {\n"
    "  int sum = 0, count = 0;\n"
    "  for (global node *n = head; n && count < 100000; n = n->next) { sum += n->value; n->value *= 2; count++; }\n"
    "  out[0] = sum; out[1] = count;\n"
    "}\n"
    /* reaches arrays only through a table of pointers */
    "kernel void through_table(global int *global *table, int tables) {\n"
    "  size_t i = get_global_id(0);\n"
    "  for (int t = 0; t < tables; t++) table[t][i] = table[t][i] * 3 + t;\n"
    "}\n"
    /* reports it runs, waits (bounded) for the host's flag, answers with the flag's value
     * plus one, waits for the host to acknowledge, and ends */
    "kernel void handshake(global atomic_int *flag, global atomic_int *answer, global atomic_int *ack,\n"
    "                      global atomic_int *stage) {\n"
    "  atomic_store_explicit(stage, 1, memory_order_release, memory_scope_all_svm_devices);\n"
    "  int seen = 0;\n"
    "  for (long n = 0; n < " SPIN_CAP
    " && !seen; n++)\n"
    "    seen = atomic_load_explicit(flag, memory_order_acquire, memory_scope_all_svm_devices);\n"
    "  if (!seen) { atomic_store_explicit(stage, -1, memory_order_release, memory_scope_all_svm_devices); return; }\n"
    "  atomic_store_explicit(answer, seen + 1, memory_order_release, memory_scope_all_svm_devices);\n"
    "  atomic_store_explicit(stage, 2, memory_order_release, memory_scope_all_svm_devices);\n"
    "  int acked = 0;\n"
    "  for (long n = 0; n < " SPIN_CAP
    " && !acked; n++)\n"
    "    acked = atomic_load_explicit(ack, memory_order_acquire, memory_scope_all_svm_devices);\n"
    "  atomic_store_explicit(stage, acked ? 3 : -2, memory_order_release, memory_scope_all_svm_devices);\n"
    "}\n"
    /* every work-item checks in, waits (bounded) for the host's go, then adds `per_item` times,
     * marking each value it took in `taken` (a bit per value; a bit already set is a
     * duplicate, counted in dup) */
    "kernel void count(global atomic_int *counter, global atomic_int *started, global atomic_int *go,\n"
    "                  global atomic_uint *taken, global atomic_int *dup, int per_item, int words) {\n"
    "  atomic_fetch_add_explicit(started, 1, memory_order_relaxed, memory_scope_all_svm_devices);\n"
    "  for (long n = 0; n < " SPIN_CAP
    " && !atomic_load_explicit(go, memory_order_acquire, memory_scope_all_svm_devices); n++)\n"
    "    ;\n"
    "  for (int i = 0; i < per_item; i++) {\n"
    "    int old = atomic_fetch_add_explicit(counter, 1, memory_order_relaxed, memory_scope_all_svm_devices);\n"
    "    if (old < 0 || old / 32 >= words) {\n"
    "      atomic_fetch_add_explicit(dup, 1, memory_order_relaxed, memory_scope_all_svm_devices);\n"
    "      continue;\n"
    "    }\n"
    "    uint bit = 1u << (old % 32);\n"
    "    if (atomic_fetch_or_explicit(&taken[old / 32], bit, memory_order_relaxed, memory_scope_all_svm_devices) & "
    "bit)\n"
    "      atomic_fetch_add_explicit(dup, 1, memory_order_relaxed, memory_scope_all_svm_devices);\n"
    "  }\n"
    "}\n"
    /* adds to a plain int under a spinlock the host takes too (bounded: a failed acquisition
     * is counted and the work-item stops) */
    "kernel void locked_add(global atomic_int *lock, global int *plain, global atomic_int *started,\n"
    "                       global atomic_int *failures, int per_item) {\n"
    "  atomic_fetch_add_explicit(started, 1, memory_order_relaxed, memory_scope_all_svm_devices);\n"
    "  for (int i = 0; i < per_item; i++) {\n"
    "    int expected = 0;\n"
    "    long n = 0;\n"
    "    while (!atomic_compare_exchange_strong_explicit(lock, &expected, 1, memory_order_acquire,\n"
    "                                                    memory_order_relaxed, memory_scope_all_svm_devices)) {\n"
    "      expected = 0;\n"
    "      if (++n > 200000000L) {\n"
    "        atomic_fetch_add_explicit(failures, 1, memory_order_relaxed, memory_scope_all_svm_devices);\n"
    "        return;\n"
    "      }\n"
    "    }\n"
    "    *plain += 1;\n"
    "    atomic_store_explicit(lock, 0, memory_order_release, memory_scope_all_svm_devices);\n"
    "  }\n"
    "}\n";

static cl_program program;

static int setup(void **state) {
  return kiln_test_program_setup(state, kiln_test_env_setup, &program, source, "-cl-std=CL3.0");
}
static int teardown(void **state) { return kiln_test_program_teardown(state, program); }

static void run_1d(cl_command_queue queue, cl_kernel kernel, size_t global) {
  assert_cl_success(clEnqueueNDRangeKernel(queue, kernel, 1, NULL, &global, NULL, 0, NULL, NULL));
  assert_cl_success(clFinish(queue));
}

/* ---- clSetKernelArgSVMPointer ---- */

static void test_arg_svm_pointer_middle(void **state) {
  struct kiln_test_env *env = *state;
  enum { N = 1000, SKIP = 37 };
  cl_int *coarse = clSVMAlloc(env->context, CL_MEM_READ_WRITE, N * sizeof(cl_int), 0);
  cl_int *fine = clSVMAlloc(env->context, CL_MEM_READ_WRITE | CL_MEM_SVM_FINE_GRAIN_BUFFER, N * sizeof(cl_int), 0);
  assert_non_null(coarse);
  assert_non_null(fine);
  assert_cl_success(clEnqueueSVMMap(env->queue, CL_TRUE, CL_MAP_WRITE, coarse, N * sizeof(cl_int), 0, NULL, NULL));
  for (int i = 0; i < N; i++) coarse[i] = i, fine[i] = -i;
  assert_cl_success(clEnqueueSVMUnmap(env->queue, coarse, 0, NULL, NULL));
  /* add: p = the middle of the allocation; only [SKIP, SKIP + 500) changes. */
  cl_kernel add = kiln_test_kernel(program, "add");
  assert_cl_success(clSetKernelArgSVMPointer(add, 0, coarse + SKIP));
  kiln_test_arg_int(add, 1, 1000);
  run_1d(env->queue, add, 500);
  /* copy_const: a constant argument from the middle of one allocation into the middle of another. */
  cl_kernel copy = kiln_test_kernel(program, "copy_const");
  assert_cl_success(clSetKernelArgSVMPointer(copy, 0, coarse + 100));
  assert_cl_success(clSetKernelArgSVMPointer(copy, 1, fine + 200));
  run_1d(env->queue, copy, 300);
  assert_cl_success(clEnqueueSVMMap(env->queue, CL_TRUE, CL_MAP_READ, coarse, N * sizeof(cl_int), 0, NULL, NULL));
  for (int i = 0; i < N; i++) {
    cl_int c = i + (i >= SKIP && i < SKIP + 500 ? 1000 : 0);
    if (coarse[i] != c) fail_msg("coarse[%d] is %d, expected %d", i, coarse[i], c);
    cl_int f = (i >= 200 && i < 500) ? 2 * (i - 100 + (i - 100 >= SKIP && i - 100 < SKIP + 500 ? 1000 : 0)) : -i;
    if (fine[i] != f) fail_msg("fine[%d] is %d, expected %d", i, fine[i], f);
  }
  assert_cl_success(clEnqueueSVMUnmap(env->queue, coarse, 0, NULL, NULL));
  /* The last value set is the one used: a buffer argument replaced by an SVM pointer. */
  cl_mem buffer = kiln_test_buffer(env->context, N * sizeof(cl_int));
  kiln_test_fill_ints(env->queue, buffer, N, 5);
  kiln_test_arg_mem(add, 0, buffer);
  assert_cl_success(clSetKernelArgSVMPointer(add, 0, fine));
  kiln_test_arg_int(add, 1, 1);
  run_1d(env->queue, add, 10);
  assert_int_equal(1, fine[0]);
  assert_int_equal(-9 + 1, fine[9]);
  assert_int_equal(5, kiln_test_read_int(env->queue, buffer, 0));
  assert_cl_success(clReleaseMemObject(buffer));
  assert_cl_success(clReleaseKernel(add));
  assert_cl_success(clReleaseKernel(copy));
  clSVMFree(env->context, coarse);
  clSVMFree(env->context, fine);
}

static void test_arg_svm_pointer_errors(void **state) {
  struct kiln_test_env *env = *state;
  cl_int *svm = clSVMAlloc(env->context, CL_MEM_READ_WRITE, 256, 0);
  assert_non_null(svm);
  cl_kernel add = kiln_test_kernel(program, "add");
  cl_kernel local = kiln_test_kernel(program, "uses_local");
  assert_int_equal(CL_INVALID_ARG_INDEX, clSetKernelArgSVMPointer(add, 2, svm));
  assert_int_equal(CL_INVALID_ARG_INDEX, clSetKernelArgSVMPointer(add, 1000, svm));
  assert_int_equal(CL_INVALID_ARG_INDEX, clSetKernelArgSVMPointer(add, (cl_uint)-1, svm));
  /* Only global and constant pointer arguments take an SVM pointer. */
  assert_int_equal(CL_INVALID_ARG_VALUE, clSetKernelArgSVMPointer(add, 1, svm));   /* int */
  assert_int_equal(CL_INVALID_ARG_VALUE, clSetKernelArgSVMPointer(local, 1, svm)); /* local int * */
  /* Invalid kernels (through Kiln's dispatch table: the loader would not forward them). */
  const struct _cl_icd_dispatch *d = kiln_test_dispatch_of(env->queue);
  assert_int_equal(CL_INVALID_KERNEL, d->clSetKernelArgSVMPointer(NULL, 0, svm));
  assert_int_equal(CL_INVALID_KERNEL, d->clSetKernelArgSVMPointer((cl_kernel)env->context, 0, svm));
  struct kiln_test_fake_handle fake = kiln_test_fake_handle_like(env->queue);
  assert_int_equal(CL_INVALID_KERNEL, d->clSetKernelArgSVMPointer((cl_kernel)&fake, 0, svm));
  cl_kernel gone = kiln_test_kernel(program, "add");
  assert_cl_success(clReleaseKernel(gone));
  assert_int_equal(CL_INVALID_KERNEL, d->clSetKernelArgSVMPointer(gone, 0, svm));
  /* The valid argument still works after the refusals. */
  assert_cl_success(clEnqueueSVMMap(env->queue, CL_TRUE, CL_MAP_WRITE, svm, 256, 0, NULL, NULL));
  for (int i = 0; i < 64; i++) svm[i] = i;
  assert_cl_success(clEnqueueSVMUnmap(env->queue, svm, 0, NULL, NULL));
  assert_cl_success(clSetKernelArgSVMPointer(add, 0, svm));
  kiln_test_arg_int(add, 1, 3);
  run_1d(env->queue, add, 64);
  assert_cl_success(clEnqueueSVMMap(env->queue, CL_TRUE, CL_MAP_READ, svm, 256, 0, NULL, NULL));
  for (int i = 0; i < 64; i++) assert_int_equal(i + 3, svm[i]);
  assert_cl_success(clEnqueueSVMUnmap(env->queue, svm, 0, NULL, NULL));
  assert_cl_success(clFinish(env->queue));
  assert_cl_success(clReleaseKernel(add));
  assert_cl_success(clReleaseKernel(local));
  clSVMFree(env->context, svm);
}

/* ---- a linked list in SVM ---- */

struct node {
  struct node *next;
  cl_int value;
};

/* Links nodes[0 .. n - 1] in a scrambled order (stride 7, n not a multiple of 7); returns
 * the head, *sum gets the sum of the values. */
static struct node *link_list(struct node **nodes, int n, cl_int *sum) {
  *sum = 0;
  for (int i = 0; i < n; i++) {
    struct node *at = nodes[(i * 7) % n];
    at->value = i * 5 - 300;
    at->next = i + 1 < n ? nodes[((i + 1) * 7) % n] : NULL;
    *sum += at->value;
  }
  return nodes[0];
}

static void walk_and_check(struct kiln_test_env *env, cl_kernel walk, struct node *head, struct node **nodes, int n,
                           cl_int sum, cl_int *out, const char *what) {
  out[0] = out[1] = -1;
  assert_cl_success(clSetKernelArgSVMPointer(walk, 0, head));
  assert_cl_success(clSetKernelArgSVMPointer(walk, 1, out));
  run_1d(env->queue, walk, 1);
  if (out[0] != sum || out[1] != n)
    fail_msg("%s: sum %d over %d nodes, expected %d over %d", what, out[0], out[1], sum, n);
  for (int i = 0; i < n; i++) {
    cl_int want = 2 * (i * 5 - 300);
    if (nodes[(i * 7) % n]->value != want)
      fail_msg("%s: node %d holds %d, expected %d", what, i, nodes[(i * 7) % n]->value, want);
  }
}

static void test_linked_list(void **state) {
  struct kiln_test_env *env = *state;
  enum { N = 500 };
  cl_kernel walk = kiln_test_kernel(program, "walk");
  cl_int *out = clSVMAlloc(env->context, CL_MEM_READ_WRITE | CL_MEM_SVM_FINE_GRAIN_BUFFER, 2 * sizeof(cl_int), 0);
  assert_non_null(out);
  struct node *ptrs[N];
  cl_int sum;

  /* All nodes in one fine-grain allocation. */
  struct node *block = clSVMAlloc(env->context, CL_MEM_READ_WRITE | CL_MEM_SVM_FINE_GRAIN_BUFFER, N * sizeof *block, 0);
  assert_non_null(block);
  for (int i = 0; i < N; i++) ptrs[i] = &block[i];
  struct node *head = link_list(ptrs, N, &sum);
  walk_and_check(env, walk, head, ptrs, N, sum, out, "one allocation");

  /* One coarse-grain allocation per node, reached through the list: the kernel is told of
   * them with CL_KERNEL_EXEC_INFO_SVM_PTRS. */
  for (int i = 0; i < N; i++) {
    ptrs[i] = clSVMAlloc(env->context, CL_MEM_READ_WRITE, sizeof(struct node), 0);
    assert_non_null(ptrs[i]);
    assert_cl_success(clEnqueueSVMMap(env->queue, CL_TRUE, CL_MAP_WRITE, ptrs[i], sizeof(struct node), 0, NULL, NULL));
  }
  head = link_list(ptrs, N, &sum);
  for (int i = 0; i < N; i++) assert_cl_success(clEnqueueSVMUnmap(env->queue, ptrs[i], 0, NULL, NULL));
  assert_cl_success(clSetKernelExecInfo(walk, CL_KERNEL_EXEC_INFO_SVM_PTRS, sizeof ptrs, ptrs));
  out[0] = out[1] = -1;
  assert_cl_success(clSetKernelArgSVMPointer(walk, 0, head));
  assert_cl_success(clSetKernelArgSVMPointer(walk, 1, out));
  run_1d(env->queue, walk, 1);
  assert_int_equal(sum, out[0]);
  assert_int_equal(N, out[1]);
  for (int i = 0; i < N; i++)
    assert_cl_success(clEnqueueSVMMap(env->queue, CL_TRUE, CL_MAP_READ, ptrs[i], sizeof(struct node), 0, NULL, NULL));
  for (int i = 0; i < N; i++) {
    cl_int want = 2 * (i * 5 - 300);
    if (ptrs[(i * 7) % N]->value != want)
      fail_msg("separate allocations: node %d holds %d, expected %d", i, ptrs[(i * 7) % N]->value, want);
  }
  for (int i = 0; i < N; i++) assert_cl_success(clEnqueueSVMUnmap(env->queue, ptrs[i], 0, NULL, NULL));
  assert_cl_success(clFinish(env->queue));
  for (int i = 0; i < N; i++) clSVMFree(env->context, ptrs[i]);

  /* malloc'd nodes (fine-grain system SVM): nothing to declare. */
  assert_cl_success(clSetKernelExecInfo(walk, CL_KERNEL_EXEC_INFO_SVM_PTRS, 0, NULL));
  for (int i = 0; i < N; i++) ptrs[i] = malloc(sizeof(struct node));
  head = link_list(ptrs, N, &sum);
  walk_and_check(env, walk, head, ptrs, N, sum, out, "malloc'd nodes");
  for (int i = 0; i < N; i++) free(ptrs[i]);

  assert_cl_success(clReleaseKernel(walk));
  clSVMFree(env->context, block);
  clSVMFree(env->context, out);
}

/* ---- clSetKernelExecInfo ---- */

static void test_exec_info_svm_ptrs(void **state) {
  struct kiln_test_env *env = *state;
  enum { N = 256, T = 4 };
  cl_int *arrays[T];
  for (int t = 0; t < T; t++) {
    arrays[t] = clSVMAlloc(env->context, CL_MEM_READ_WRITE | CL_MEM_SVM_FINE_GRAIN_BUFFER, N * sizeof(cl_int), 0);
    assert_non_null(arrays[t]);
    for (int i = 0; i < N; i++) arrays[t][i] = t * 1000 + i;
  }
  cl_int **table = clSVMAlloc(env->context, CL_MEM_READ_WRITE | CL_MEM_SVM_FINE_GRAIN_BUFFER, T * sizeof *table, 0);
  assert_non_null(table);
  for (int t = 0; t < T; t++) table[t] = arrays[t];
  cl_kernel k = kiln_test_kernel(program, "through_table");
  assert_cl_success(clSetKernelArgSVMPointer(k, 0, table));
  kiln_test_arg_int(k, 1, T);
  /* One pointer per allocation is enough, into its middle or at its end. */
  void *reached[T] = {arrays[0], arrays[1] + 1, arrays[2] + N / 2, arrays[3] + N - 1};
  assert_cl_success(clSetKernelExecInfo(k, CL_KERNEL_EXEC_INFO_SVM_PTRS, sizeof reached, reached));
  run_1d(env->queue, k, N);
  /* Each call replaces the set: a new table over two arrays, named alone. */
  cl_int **half = clSVMAlloc(env->context, CL_MEM_READ_WRITE, 2 * sizeof *half, 0);
  assert_non_null(half);
  assert_cl_success(clEnqueueSVMMap(env->queue, CL_TRUE, CL_MAP_WRITE, half, 2 * sizeof *half, 0, NULL, NULL));
  half[0] = arrays[3], half[1] = arrays[0];
  assert_cl_success(clEnqueueSVMUnmap(env->queue, half, 0, NULL, NULL));
  void *two[2] = {arrays[3], arrays[0]};
  assert_cl_success(clSetKernelExecInfo(k, CL_KERNEL_EXEC_INFO_SVM_PTRS, sizeof two, two));
  assert_cl_success(clSetKernelArgSVMPointer(k, 0, half));
  kiln_test_arg_int(k, 1, 2);
  run_1d(env->queue, k, N);
  /* A clone keeps the SVM argument and the exec info; changing the original later does not
   * change it. */
  cl_int err = CL_INVALID_VALUE;
  cl_kernel clone = clCloneKernel(k, &err);
  assert_cl_success(err);
  assert_cl_success(clSetKernelExecInfo(k, CL_KERNEL_EXEC_INFO_SVM_PTRS, sizeof reached, reached));
  assert_cl_success(clSetKernelArgSVMPointer(k, 0, table));
  kiln_test_arg_int(k, 1, 0);
  run_1d(env->queue, clone, N);
  assert_cl_success(clReleaseKernel(clone));
  for (int t = 0; t < T; t++)
    for (int i = 0; i < N; i++) {
      cl_int v = (t * 1000 + i) * 3 + t;
      if (t == 3) v = v * 9;               /* table slot 0 of the second run and the clone's */
      if (t == 0) v = (v * 3 + 1) * 3 + 1; /* table slot 1 of both */
      if (arrays[t][i] != v) fail_msg("array %d element %d is %d, expected %d", t, i, arrays[t][i], v);
    }
  /* The empty set. */
  assert_cl_success(clSetKernelExecInfo(k, CL_KERNEL_EXEC_INFO_SVM_PTRS, 0, NULL));
  /* Errors. */
  assert_int_equal(CL_INVALID_VALUE, clSetKernelExecInfo(k, CL_KERNEL_EXEC_INFO_SVM_PTRS, sizeof two, NULL));
  assert_int_equal(CL_INVALID_VALUE, clSetKernelExecInfo(k, CL_KERNEL_EXEC_INFO_SVM_PTRS, sizeof(void *) + 1, two));
  assert_int_equal(CL_INVALID_VALUE, clSetKernelExecInfo(k, CL_KERNEL_EXEC_INFO_SVM_PTRS, sizeof(void *) - 1, two));
  assert_int_equal(CL_INVALID_VALUE, clSetKernelExecInfo(k, 0x12345, sizeof two, two)); /* not a param name */
  const struct _cl_icd_dispatch *d = kiln_test_dispatch_of(env->queue);
  assert_int_equal(CL_INVALID_KERNEL, d->clSetKernelExecInfo(NULL, CL_KERNEL_EXEC_INFO_SVM_PTRS, sizeof two, two));
  assert_int_equal(CL_INVALID_KERNEL,
                   d->clSetKernelExecInfo((cl_kernel)env->context, CL_KERNEL_EXEC_INFO_SVM_PTRS, sizeof two, two));
  assert_cl_success(clReleaseKernel(k));
  for (int t = 0; t < T; t++) clSVMFree(env->context, arrays[t]);
  clSVMFree(env->context, table);
  clSVMFree(env->context, half);
}

static void test_exec_info_fine_grain_system(void **state) {
  struct kiln_test_env *env = *state;
  enum { N = 128 };
  cl_kernel k = kiln_test_kernel(program, "through_table");
  /* malloc'd arrays in a malloc'd table: with CL_TRUE (also the default) the kernel may use
   * system pointers it was not given as arguments. */
  cl_int *a = malloc(N * sizeof *a), *b = malloc(N * sizeof *b);
  cl_int **table = malloc(2 * sizeof *table);
  for (int i = 0; i < N; i++) a[i] = i, b[i] = -i;
  table[0] = a, table[1] = b;
  assert_cl_success(clSetKernelArgSVMPointer(k, 0, table));
  kiln_test_arg_int(k, 1, 2);
  run_1d(env->queue, k, N); /* the default */
  cl_bool yes = CL_TRUE, no = CL_FALSE;
  assert_cl_success(clSetKernelExecInfo(k, CL_KERNEL_EXEC_INFO_SVM_FINE_GRAIN_SYSTEM, sizeof yes, &yes));
  run_1d(env->queue, k, N);
  for (int i = 0; i < N; i++) {
    assert_int_equal(i * 9, a[i]);
    assert_int_equal((-i * 3 + 1) * 3 + 1, b[i]);
  }
  assert_cl_success(clSetKernelExecInfo(k, CL_KERNEL_EXEC_INFO_SVM_FINE_GRAIN_SYSTEM, sizeof no, &no));
  /* Errors: NULL value, a size other than sizeof(cl_bool). */
  assert_int_equal(CL_INVALID_VALUE,
                   clSetKernelExecInfo(k, CL_KERNEL_EXEC_INFO_SVM_FINE_GRAIN_SYSTEM, sizeof yes, NULL));
  assert_int_equal(CL_INVALID_VALUE, clSetKernelExecInfo(k, CL_KERNEL_EXEC_INFO_SVM_FINE_GRAIN_SYSTEM, 0, NULL));
  assert_int_equal(CL_INVALID_VALUE, clSetKernelExecInfo(k, CL_KERNEL_EXEC_INFO_SVM_FINE_GRAIN_SYSTEM, 0, &yes));
  assert_int_equal(CL_INVALID_VALUE, clSetKernelExecInfo(k, CL_KERNEL_EXEC_INFO_SVM_FINE_GRAIN_SYSTEM, 1, &yes));
  cl_ulong wide = CL_TRUE;
  assert_int_equal(CL_INVALID_VALUE,
                   clSetKernelExecInfo(k, CL_KERNEL_EXEC_INFO_SVM_FINE_GRAIN_SYSTEM, sizeof wide, &wide));
  const struct _cl_icd_dispatch *d = kiln_test_dispatch_of(env->queue);
  assert_int_equal(CL_INVALID_KERNEL,
                   d->clSetKernelExecInfo(NULL, CL_KERNEL_EXEC_INFO_SVM_FINE_GRAIN_SYSTEM, sizeof yes, &yes));
  assert_cl_success(clReleaseKernel(k));
  free(a);
  free(b);
  free(table);
}

/* ---- fine-grain system SVM: malloc, the stack, mmap ---- */

/* Runs add(p, 11) over n ints of `p` (each i * 7 before) and checks every one, and that the
 * int past them is untouched. */
static void add_over(struct kiln_test_env *env, cl_int *p, int n, const char *what) {
  for (int i = 0; i <= n; i++) p[i] = i * 7;
  cl_kernel add = kiln_test_kernel(program, "add");
  assert_cl_success(clSetKernelArgSVMPointer(add, 0, p));
  kiln_test_arg_int(add, 1, 11);
  run_1d(env->queue, add, (size_t)n);
  for (int i = 0; i < n; i++)
    if (p[i] != i * 7 + 11) fail_msg("%s memory: element %d is %d, expected %d", what, i, p[i], i * 7 + 11);
  if (p[n] != n * 7) fail_msg("%s memory: the element past the range changed", what);
  assert_cl_success(clReleaseKernel(add));
}

static void test_system_svm_malloc(void **state) {
  struct kiln_test_env *env = *state;
  const int sizes[] = {1, 3, 1000, 100000};
  for (size_t s = 0; s < 4; s++) {
    cl_int *p = malloc((size_t)(sizes[s] + 1) * sizeof *p);
    add_over(env, p, sizes[s], "malloc");
    free(p);
  }
  /* From the middle of a malloc'd block, through a constant argument too. */
  cl_int *in = malloc(600 * sizeof *in), *out = calloc(600, sizeof *out);
  for (int i = 0; i < 600; i++) in[i] = i - 50;
  cl_kernel copy = kiln_test_kernel(program, "copy_const");
  assert_cl_success(clSetKernelArgSVMPointer(copy, 0, in + 100));
  assert_cl_success(clSetKernelArgSVMPointer(copy, 1, out + 1));
  run_1d(env->queue, copy, 500);
  assert_int_equal(0, out[0]);
  for (int i = 0; i < 500; i++) assert_int_equal(2 * (i + 100 - 50), out[i + 1]);
  assert_cl_success(clReleaseKernel(copy));
  free(in);
  free(out);
}

static void test_system_svm_stack(void **state) {
  struct kiln_test_env *env = *state;
  cl_int small[17];
  add_over(env, small, 16, "stack");
  cl_int big[4097]; /* a few pages of this thread's stack */
  add_over(env, big, 4096, "stack (pages)");
}

static void test_system_svm_mmap(void **state) {
  struct kiln_test_env *env = *state;
  const size_t bytes = 64 * 4096 + 4;
  const int flags[] = {MAP_PRIVATE | MAP_ANONYMOUS, MAP_SHARED | MAP_ANONYMOUS};
  for (int f = 0; f < 2; f++) {
    cl_int *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, flags[f], -1, 0);
    assert_true(p != MAP_FAILED);
    add_over(env, p, (int)(bytes / sizeof(cl_int)) - 1, f ? "mmap shared" : "mmap private");
    assert_int_equal(0, munmap(p, bytes));
  }
}

/* ---- host and kernel atomics at once ---- */

static bool wait_for(atomic_int *p, int value) {
  double end = kiln_test_now_ms() + HOST_WAIT_MS;
  while (atomic_load(p) != value) {
    if (atomic_load(p) < 0 || kiln_test_now_ms() > end) return false;
    kiln_test_sleep_ms(1);
  }
  return true;
}

static void test_kernel_waits_for_host_flag(void **state) {
  struct kiln_test_env *env = *state;
  atomic_int *shared = clSVMAlloc(env->context, CL_MEM_READ_WRITE | CL_MEM_SVM_FINE_GRAIN_BUFFER | CL_MEM_SVM_ATOMICS,
                                  4 * sizeof(atomic_int), 0);
  assert_non_null(shared);
  atomic_int *flag = &shared[0], *answer = &shared[1], *ack = &shared[2], *stage = &shared[3];
  for (int i = 0; i < 4; i++) atomic_init(&shared[i], 0);
  cl_kernel k = kiln_test_kernel(program, "handshake");
  assert_cl_success(clSetKernelArgSVMPointer(k, 0, flag));
  assert_cl_success(clSetKernelArgSVMPointer(k, 1, answer));
  assert_cl_success(clSetKernelArgSVMPointer(k, 2, ack));
  assert_cl_success(clSetKernelArgSVMPointer(k, 3, stage));
  size_t one = 1;
  cl_event event = NULL;
  assert_cl_success(clEnqueueNDRangeKernel(env->queue, k, 1, NULL, &one, NULL, 0, NULL, &event));
  assert_cl_success(clFlush(env->queue));
  /* The kernel runs and waits: it has reported stage 1 and stays there. */
  bool started = wait_for(stage, 1);
  kiln_test_sleep_ms(20);
  int stage_then = atomic_load(stage), answer_then = atomic_load(answer);
  atomic_store(flag, 41); /* set by the host after the launch */
  bool answered = started && wait_for(stage, 2);
  int answer_seen = atomic_load(answer);
  cl_int status_while_waiting = kiln_test_event_status(event);
  atomic_store(ack, 1);
  bool ended = answered && wait_for(stage, 3);
  assert_cl_success(clWaitForEvents(1, &event)); /* bounded: the kernel's spins are capped */
  if (!started) fail_msg("the kernel did not report that it runs within 10 s (stage %d)", atomic_load(stage));
  assert_int_equal(1, stage_then);
  assert_int_equal(0, answer_then);
  if (!answered) fail_msg("the kernel did not see the host's flag (stage %d)", atomic_load(stage));
  assert_int_equal(42, answer_seen);                  /* seen by the host while the kernel still ran */
  assert_int_equal(CL_RUNNING, status_while_waiting); /* it was waiting for the acknowledgement */
  if (!ended) fail_msg("the kernel did not see the acknowledgement (stage %d)", atomic_load(stage));
  assert_int_equal(CL_COMPLETE, kiln_test_event_status(event));
  assert_cl_success(clReleaseEvent(event));
  assert_cl_success(clReleaseKernel(k));
  clSVMFree(env->context, shared);
}

static void test_host_and_kernel_count_together(void **state) {
  struct kiln_test_env *env = *state;
  enum { ITEMS = 256, PER_ITEM = 2000, HOST_ADDS = 200000, TOTAL = ITEMS * PER_ITEM + HOST_ADDS };
  enum { WORDS = (TOTAL + 31) / 32 };
  cl_kernel k = kiln_test_kernel(program, "count");
  kiln_test_arg_int(k, 5, PER_ITEM);
  kiln_test_arg_int(k, 6, WORDS);
  for (int kind = 0; kind < 2; kind++) {
    /* counter, started, go, dup, then the bitmap: one SVM atomics allocation, or malloc'd
     * memory (fine-grain system SVM with atomics). */
    size_t bytes = 4 * sizeof(atomic_int) + WORDS * sizeof(atomic_uint);
    char *mem = kind ? malloc(bytes)
                     : clSVMAlloc(env->context, CL_MEM_READ_WRITE | CL_MEM_SVM_FINE_GRAIN_BUFFER | CL_MEM_SVM_ATOMICS,
                                  bytes, 0);
    assert_non_null(mem);
    atomic_int *ints = (atomic_int *)mem;
    atomic_uint *taken = (atomic_uint *)(mem + 4 * sizeof(atomic_int));
    for (int i = 0; i < 4; i++) atomic_init(&ints[i], 0);
    for (int w = 0; w < WORDS; w++) atomic_init(&taken[w], 0);
    atomic_int *counter = &ints[0], *started = &ints[1], *go = &ints[2], *dup = &ints[3];
    assert_cl_success(clSetKernelArgSVMPointer(k, 0, counter));
    assert_cl_success(clSetKernelArgSVMPointer(k, 1, started));
    assert_cl_success(clSetKernelArgSVMPointer(k, 2, go));
    assert_cl_success(clSetKernelArgSVMPointer(k, 3, taken));
    assert_cl_success(clSetKernelArgSVMPointer(k, 4, dup));
    size_t global = ITEMS;
    cl_event event = NULL;
    assert_cl_success(clEnqueueNDRangeKernel(env->queue, k, 1, NULL, &global, NULL, 0, NULL, &event));
    assert_cl_success(clFlush(env->queue));
    /* Work-items are running (and waiting) before the host lets them and itself count. */
    double end = kiln_test_now_ms() + HOST_WAIT_MS;
    while (atomic_load(started) == 0 && kiln_test_now_ms() < end) kiln_test_sleep_ms(1);
    int started_before_go = atomic_load(started);
    atomic_store(go, 1);
    int host_dups = 0;
    for (int i = 0; i < HOST_ADDS; i++) {
      int old = atomic_fetch_add(counter, 1);
      if (old < 0 || old >= TOTAL) {
        host_dups++;
        continue;
      }
      unsigned bit = 1u << (old % 32);
      if (atomic_fetch_or(&taken[old / 32], bit) & bit) host_dups++;
    }
    assert_cl_success(clWaitForEvents(1, &event));
    assert_cl_success(clReleaseEvent(event));
    if (started_before_go == 0) fail_msg("kind %d: no work-item started within 10 s", kind);
    assert_int_equal(ITEMS, atomic_load(started));
    assert_int_equal(TOTAL, atomic_load(counter));
    assert_int_equal(0, atomic_load(dup));
    assert_int_equal(0, host_dups);
    /* Every value 0 .. TOTAL - 1 was taken exactly once. */
    for (int w = 0; w < WORDS; w++) {
      unsigned want = (w + 1) * 32 <= TOTAL ? 0xFFFFFFFFu : (1u << (TOTAL % 32)) - 1;
      if (atomic_load(&taken[w]) != want)
        fail_msg("kind %d: values %d..%d: taken 0x%08x, expected 0x%08x", kind, w * 32, w * 32 + 31,
                 atomic_load(&taken[w]), want);
    }
    if (kind)
      free(mem);
    else
      clSVMFree(env->context, mem);
  }
  assert_cl_success(clReleaseKernel(k));
}

/* A spinlock in SVM taken with compare-exchange by the host and by work-items at once
 * protects a plain int: acquire and release order the plain accesses on both sides, so no
 * increment is lost. */
static void test_host_and_kernel_share_a_lock(void **state) {
  struct kiln_test_env *env = *state;
  enum { ITEMS = 64, PER_ITEM = 500, HOST_ADDS = 20000 };
  cl_kernel k = kiln_test_kernel(program, "locked_add");
  kiln_test_arg_int(k, 4, PER_ITEM);
  for (int kind = 0; kind < 2; kind++) {
    size_t bytes = 4 * sizeof(atomic_int);
    atomic_int *mem =
        kind
            ? malloc(bytes)
            : clSVMAlloc(env->context, CL_MEM_READ_WRITE | CL_MEM_SVM_FINE_GRAIN_BUFFER | CL_MEM_SVM_ATOMICS, bytes, 0);
    assert_non_null(mem);
    atomic_int *lock = &mem[0], *started = &mem[2], *failures = &mem[3];
    int *plain = (int *)&mem[1];
    atomic_init(lock, 0), atomic_init(started, 0), atomic_init(failures, 0);
    *plain = 0;
    assert_cl_success(clSetKernelArgSVMPointer(k, 0, lock));
    assert_cl_success(clSetKernelArgSVMPointer(k, 1, plain));
    assert_cl_success(clSetKernelArgSVMPointer(k, 2, started));
    assert_cl_success(clSetKernelArgSVMPointer(k, 3, failures));
    size_t global = ITEMS;
    cl_event event = NULL;
    assert_cl_success(clEnqueueNDRangeKernel(env->queue, k, 1, NULL, &global, NULL, 0, NULL, &event));
    assert_cl_success(clFlush(env->queue));
    double end = kiln_test_now_ms() + HOST_WAIT_MS;
    while (atomic_load(started) == 0 && kiln_test_now_ms() < end) kiln_test_sleep_ms(1);
    int host_done = 0;
    for (; host_done < HOST_ADDS && kiln_test_now_ms() < end; host_done++) {
      int expected = 0;
      while (!atomic_compare_exchange_weak_explicit(lock, &expected, 1, memory_order_acquire, memory_order_relaxed))
        expected = 0;
      *plain += 1;
      atomic_store_explicit(lock, 0, memory_order_release);
    }
    assert_cl_success(clWaitForEvents(1, &event));
    assert_cl_success(clReleaseEvent(event));
    assert_int_equal(HOST_ADDS, host_done);
    assert_int_equal(ITEMS, atomic_load(started));
    assert_int_equal(0, atomic_load(failures));
    assert_int_equal(ITEMS * PER_ITEM + HOST_ADDS, *plain);
    assert_int_equal(0, atomic_load(lock));
    if (kind)
      free(mem);
    else
      clSVMFree(env->context, mem);
  }
  assert_cl_success(clReleaseKernel(k));
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_arg_svm_pointer_middle),
      cmocka_unit_test(test_arg_svm_pointer_errors),
      cmocka_unit_test(test_linked_list),
      cmocka_unit_test(test_exec_info_svm_ptrs),
      cmocka_unit_test(test_exec_info_fine_grain_system),
      cmocka_unit_test(test_system_svm_malloc),
      cmocka_unit_test(test_system_svm_stack),
      cmocka_unit_test(test_system_svm_mmap),
      cmocka_unit_test(test_kernel_waits_for_host_flag),
      cmocka_unit_test(test_host_and_kernel_count_together),
      cmocka_unit_test(test_host_and_kernel_share_a_lock),
  };
  return cmocka_run_group_tests(tests, setup, teardown);
}
