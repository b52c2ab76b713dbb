/* Shared virtual memory in kernels: clSetKernelArgSVMPointer (into the middle of an
 * allocation, global and constant arguments, replacing a buffer argument and replaced by
 * one, kept by clCloneKernel, each error); a linked list built by the host in SVM walked by
 * a kernel; CL_KERNEL_EXEC_INFO_SVM_PTRS and CL_KERNEL_EXEC_INFO_SVM_FINE_GRAIN_SYSTEM and
 * their errors; fine-grain system SVM from malloc, the stack, mmap and a global; and host
 * and kernel atomics on one location while the kernel runs (a kernel waits for a flag the
 * host sets, the host sees a kernel's progress, both count on one counter), all bounded
 * in time. */
#include "kiln_test.h"
#include "kiln_test_objects.h"

#include <stdatomic.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>

static const char *source =
    "kernel void add(global int *p, int v) { p[get_global_id(0)] += v; }\n"
    "kernel void gather(constant int *in, global int *out) { out[get_global_id(0)] = in[get_global_id(0)] + 1; }\n"
    "typedef struct node { global struct node *next; int value; } node;\n"
    "kernel void walk(global node *head, global int *sum, global int *count) {\n"
    "  int s = 0, n = 0;\n"
    "  for (global node *p = head; p; p = p->next) { s += p->value; n++; }\n"
    "  *sum = s; *count = n;\n"
    "}\n"
    /* arrays reached only through a table of pointers */
    "kernel void through_table(global int *global *table, int tables) {\n"
    "  size_t i = get_global_id(0);\n"
    "  for (int t = 0; t < tables; t++) table[t][i] *= 3;\n"
    "}\n"
    /* waits (bounded) for the host's flag, reports progress the host watches */
    "kernel void handshake(global atomic_int *flag, global atomic_int *progress) {\n"
    "  atomic_store_explicit(progress, 1, memory_order_release, memory_scope_all_svm_devices);\n"
    "  int seen = 0;\n"
    "  for (long n = 0; n < 4000000000L && !seen; n++)\n"
    "    seen = atomic_load_explicit(flag, memory_order_acquire, memory_scope_all_svm_devices);\n"
    "  atomic_store_explicit(progress, seen ? 2 : -1, memory_order_release, memory_scope_all_svm_devices);\n"
    "}\n"
    "kernel void count(global atomic_int *counter, int n) {\n"
    "  for (int i = 0; i < n; i++)\n"
    "    atomic_fetch_add_explicit(counter, 1, memory_order_relaxed, memory_scope_all_svm_devices);\n"
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

static void test_pointer_arguments(void **state) {
  struct kiln_test_env *env = *state;
  enum { N = 512 };
  int *svm = clSVMAlloc(env->context, CL_MEM_READ_WRITE, (N + 64) * sizeof *svm, 0);
  assert_non_null(svm);
  for (int i = 0; i < N + 64; i++) svm[i] = i;
  cl_kernel add = kiln_test_kernel(program, "add");
  assert_cl_success(clSetKernelArgSVMPointer(add, 0, svm + 64)); /* the middle */
  kiln_test_arg_int(add, 1, 5);
  run_1d(env->queue, add, N);
  for (int i = 0; i < N + 64; i++) assert_int_equal(i + (i >= 64 ? 5 : 0), svm[i]);

  /* A buffer argument replaced by an SVM pointer and back; a clone keeps the pointer. */
  cl_int err;
  cl_mem buffer = clCreateBuffer(env->context, CL_MEM_READ_WRITE, N * sizeof(int), NULL, &err);
  assert_cl_success(err);
  int zero = 0;
  assert_cl_success(clEnqueueFillBuffer(env->queue, buffer, &zero, sizeof zero, 0, N * sizeof(int), 0, NULL, NULL));
  kiln_test_arg_mem(add, 0, buffer);
  cl_kernel clone_of_buffer = clCloneKernel(add, &err);
  assert_cl_success(err);
  assert_cl_success(clSetKernelArgSVMPointer(add, 0, svm));
  cl_kernel clone_of_svm = clCloneKernel(add, &err);
  assert_cl_success(err);
  run_1d(env->queue, clone_of_svm, N); /* svm[i] += 5 */
  run_1d(env->queue, clone_of_buffer, N); /* buffer[i] += 5 */
  int got[N];
  assert_cl_success(clEnqueueReadBuffer(env->queue, buffer, CL_TRUE, 0, sizeof got, got, 0, NULL, NULL));
  for (int i = 0; i < N; i++) assert_int_equal(5, got[i]);
  for (int i = 0; i < 64; i++) assert_int_equal(i + 5, svm[i]);

  /* A constant argument from SVM. */
  cl_kernel gather = kiln_test_kernel(program, "gather");
  int *out = clSVMAlloc(env->context, CL_MEM_READ_WRITE | CL_MEM_SVM_FINE_GRAIN_BUFFER, N * sizeof *out, 0);
  assert_cl_success(clSetKernelArgSVMPointer(gather, 0, svm));
  assert_cl_success(clSetKernelArgSVMPointer(gather, 1, out));
  run_1d(env->queue, gather, N);
  for (int i = 0; i < N; i++) assert_int_equal(svm[i] + 1, out[i]);

  /* Errors. */
  const struct _cl_icd_dispatch *d = kiln_test_dispatch_of(env->queue);
  assert_int_equal(CL_INVALID_KERNEL, d->clSetKernelArgSVMPointer(NULL, 0, svm));
  assert_int_equal(CL_INVALID_KERNEL, d->clSetKernelArgSVMPointer((cl_kernel)env->queue, 0, svm));
  assert_int_equal(CL_INVALID_ARG_INDEX, clSetKernelArgSVMPointer(add, 2, svm));
  assert_int_equal(CL_INVALID_ARG_VALUE, clSetKernelArgSVMPointer(add, 1, svm)); /* an int */
  /* NULL is a pointer value like any other. */
  assert_cl_success(clSetKernelArgSVMPointer(add, 0, NULL));

  cl_kernel kernels[] = {add, clone_of_buffer, clone_of_svm, gather};
  for (int i = 0; i < 4; i++) assert_cl_success(clReleaseKernel(kernels[i]));
  assert_cl_success(clReleaseMemObject(buffer));
  clSVMFree(env->context, svm);
  clSVMFree(env->context, out);
}

struct node {
  struct node *next;
  int value;
};

static void test_linked_list(void **state) {
  struct kiln_test_env *env = *state;
  enum { N = 1000 };
  struct node *nodes = clSVMAlloc(env->context, CL_MEM_READ_WRITE, N * sizeof *nodes, 0);
  int *results = clSVMAlloc(env->context, CL_MEM_READ_WRITE | CL_MEM_SVM_FINE_GRAIN_BUFFER, 2 * sizeof(int), 0);
  assert_non_null(nodes);
  assert_non_null(results);
  /* A list through the array in a scrambled order (stride 7 mod N). */
  int expected = 0;
  assert_cl_success(clEnqueueSVMMap(env->queue, CL_TRUE, CL_MAP_WRITE, nodes, N * sizeof *nodes, 0, NULL, NULL));
  for (int i = 0; i < N; i++) {
    int at = (i * 7) % N, next = ((i + 1) * 7) % N;
    nodes[at].value = i * 3 - 100;
    nodes[at].next = i + 1 < N ? &nodes[next] : NULL;
    expected += i * 3 - 100;
  }
  assert_cl_success(clEnqueueSVMUnmap(env->queue, nodes, 0, NULL, NULL));
  cl_kernel walk = kiln_test_kernel(program, "walk");
  assert_cl_success(clSetKernelArgSVMPointer(walk, 0, nodes));
  assert_cl_success(clSetKernelArgSVMPointer(walk, 1, results));
  assert_cl_success(clSetKernelArgSVMPointer(walk, 2, results + 1));
  run_1d(env->queue, walk, 1);
  assert_int_equal(expected, results[0]);
  assert_int_equal(N, results[1]);
  assert_cl_success(clReleaseKernel(walk));
  clSVMFree(env->context, nodes);
  clSVMFree(env->context, results);
}

static void test_exec_info(void **state) {
  struct kiln_test_env *env = *state;
  enum { N = 256, TABLES = 3 };
  int *arrays[TABLES];
  for (int t = 0; t < TABLES; t++) {
    arrays[t] = clSVMAlloc(env->context, CL_MEM_READ_WRITE, N * sizeof(int), 0);
    assert_non_null(arrays[t]);
    for (int i = 0; i < N; i++) arrays[t][i] = i + t * 1000;
  }
  int **table = clSVMAlloc(env->context, CL_MEM_READ_WRITE, TABLES * sizeof *table, 0);
  for (int t = 0; t < TABLES; t++) table[t] = arrays[t];
  cl_kernel k = kiln_test_kernel(program, "through_table");
  assert_cl_success(clSetKernelArgSVMPointer(k, 0, table));
  kiln_test_arg_int(k, 1, TABLES);
  /* Pointers into the middle name their allocations too. */
  void *reached[TABLES] = {arrays[0], arrays[1] + 10, arrays[2] + N - 1};
  assert_cl_success(clSetKernelExecInfo(k, CL_KERNEL_EXEC_INFO_SVM_PTRS, sizeof reached, reached));
  run_1d(env->queue, k, N);
  for (int t = 0; t < TABLES; t++)
    for (int i = 0; i < N; i++) assert_int_equal(3 * (i + t * 1000), arrays[t][i]);
  /* The empty set, and fine-grain system on and off, are accepted. */
  assert_cl_success(clSetKernelExecInfo(k, CL_KERNEL_EXEC_INFO_SVM_PTRS, 0, NULL));
  cl_bool values[] = {CL_TRUE, CL_FALSE};
  for (int v = 0; v < 2; v++)
    assert_cl_success(
        clSetKernelExecInfo(k, CL_KERNEL_EXEC_INFO_SVM_FINE_GRAIN_SYSTEM, sizeof values[v], &values[v]));
  /* Errors. */
  assert_int_equal(CL_INVALID_VALUE, clSetKernelExecInfo(k, CL_KERNEL_EXEC_INFO_SVM_PTRS, sizeof reached, NULL));
  assert_int_equal(CL_INVALID_VALUE, clSetKernelExecInfo(k, CL_KERNEL_EXEC_INFO_SVM_PTRS, 0, reached));
  assert_int_equal(CL_INVALID_VALUE, clSetKernelExecInfo(k, CL_KERNEL_EXEC_INFO_SVM_PTRS, 7, reached));
  assert_int_equal(CL_INVALID_VALUE,
                   clSetKernelExecInfo(k, CL_KERNEL_EXEC_INFO_SVM_FINE_GRAIN_SYSTEM, sizeof(cl_bool), NULL));
  assert_int_equal(CL_INVALID_VALUE,
                   clSetKernelExecInfo(k, CL_KERNEL_EXEC_INFO_SVM_FINE_GRAIN_SYSTEM, 1, &values[0]));
  const struct _cl_icd_dispatch *d = kiln_test_dispatch_of(env->queue);
  assert_int_equal(CL_INVALID_KERNEL,
                   d->clSetKernelExecInfo(NULL, CL_KERNEL_EXEC_INFO_SVM_PTRS, sizeof reached, reached));
  assert_cl_success(clReleaseKernel(k));
  for (int t = 0; t < TABLES; t++) clSVMFree(env->context, arrays[t]);
  clSVMFree(env->context, table);
}

static int global_array[300];

/* Kernels on system memory: malloc, the stack, mmap, a global; the exec info table walk
 * over malloc'd arrays with no SVM allocation at all. */
static void test_fine_grain_system(void **state) {
  struct kiln_test_env *env = *state;
  enum { N = 300 };
  cl_kernel add = kiln_test_kernel(program, "add");
  int *heap = malloc(N * sizeof *heap), stack[N];
  int *mapped = mmap(NULL, N * sizeof(int), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  assert_true(mapped != MAP_FAILED);
  int *targets[] = {heap, stack, mapped, global_array};
  const char *names[] = {"malloc", "stack", "mmap", "global"};
  for (int t = 0; t < 4; t++) {
    for (int i = 0; i < N; i++) targets[t][i] = i * (t + 1);
    assert_cl_success(clSetKernelArgSVMPointer(add, 0, targets[t]));
    kiln_test_arg_int(add, 1, 77);
    run_1d(env->queue, add, N);
    for (int i = 0; i < N; i++)
      if (targets[t][i] != i * (t + 1) + 77)
        fail_msg("%s memory: element %d is %d, expected %d", names[t], i, targets[t][i], i * (t + 1) + 77);
  }
  /* Pointers to malloc'd arrays inside a malloc'd table, nothing named in exec infos. */
  int **table = malloc(2 * sizeof *table);
  table[0] = heap, table[1] = mapped;
  cl_kernel through = kiln_test_kernel(program, "through_table");
  assert_cl_success(clSetKernelArgSVMPointer(through, 0, table));
  kiln_test_arg_int(through, 1, 2);
  run_1d(env->queue, through, N);
  for (int i = 0; i < N; i++) {
    assert_int_equal(3 * (i + 77), heap[i]);
    assert_int_equal(3 * (i * 3 + 77), mapped[i]);
  }
  assert_cl_success(clReleaseKernel(add));
  assert_cl_success(clReleaseKernel(through));
  free(table);
  free(heap);
  munmap(mapped, N * sizeof(int));
}

/* The kernel signals it runs, waits for the host's flag, signals again: all while the
 * host watches, in bounded time. */
static void test_host_kernel_handshake(void **state) {
  struct kiln_test_env *env = *state;
  atomic_int *shared = clSVMAlloc(env->context, CL_MEM_READ_WRITE | CL_MEM_SVM_FINE_GRAIN_BUFFER | CL_MEM_SVM_ATOMICS,
                                  2 * sizeof *shared, 0);
  assert_non_null(shared);
  atomic_int *flag = &shared[0], *progress = &shared[1];
  atomic_init(flag, 0);
  atomic_init(progress, 0);
  cl_kernel k = kiln_test_kernel(program, "handshake");
  assert_cl_success(clSetKernelArgSVMPointer(k, 0, flag));
  assert_cl_success(clSetKernelArgSVMPointer(k, 1, progress));
  size_t one = 1;
  cl_event event;
  assert_cl_success(clEnqueueNDRangeKernel(env->queue, k, 1, NULL, &one, NULL, 0, NULL, &event));
  assert_cl_success(clFlush(env->queue));
  double start = kiln_test_now_ms();
  while (atomic_load(progress) != 1 && kiln_test_now_ms() - start < 10000) kiln_test_sleep_ms(1);
  assert_int_equal(1, atomic_load(progress)); /* the kernel runs and waits */
  kiln_test_sleep_ms(20);
  assert_int_equal(1, atomic_load(progress));
  cl_int status = 0;
  assert_cl_success(clGetEventInfo(event, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof status, &status, NULL));
  assert_int_equal(CL_RUNNING, status);
  atomic_store(flag, 1);
  start = kiln_test_now_ms();
  while (atomic_load(progress) != 2 && kiln_test_now_ms() - start < 10000) kiln_test_sleep_ms(1);
  assert_int_equal(2, atomic_load(progress)); /* it saw the flag while running */
  assert_cl_success(clWaitForEvents(1, &event));
  assert_cl_success(clReleaseEvent(event));
  assert_cl_success(clReleaseKernel(k));
  clSVMFree(env->context, shared);
}

/* Many work-items and the host add to one counter at the same time; none is lost. The
 * counter is plain malloc'd memory (system SVM) in one run and an SVM atomics allocation
 * in the other. */
static void test_concurrent_counting(void **state) {
  struct kiln_test_env *env = *state;
  enum { ITEMS = 256, PER_ITEM = 4000, HOST_ADDS = 400000 };
  atomic_int *counters[2] = {malloc(sizeof(atomic_int)),
                             clSVMAlloc(env->context,
                                        CL_MEM_READ_WRITE | CL_MEM_SVM_FINE_GRAIN_BUFFER | CL_MEM_SVM_ATOMICS,
                                        sizeof(atomic_int), 0)};
  cl_kernel k = kiln_test_kernel(program, "count");
  kiln_test_arg_int(k, 1, PER_ITEM);
  for (int c = 0; c < 2; c++) {
    atomic_init(counters[c], 0);
    assert_cl_success(clSetKernelArgSVMPointer(k, 0, counters[c]));
    size_t global = ITEMS;
    assert_cl_success(clEnqueueNDRangeKernel(env->queue, k, 1, NULL, &global, NULL, 0, NULL, NULL));
    assert_cl_success(clFlush(env->queue));
    for (int i = 0; i < HOST_ADDS; i++) atomic_fetch_add_explicit(counters[c], 1, memory_order_relaxed);
    assert_cl_success(clFinish(env->queue));
    assert_int_equal(ITEMS * PER_ITEM + HOST_ADDS, atomic_load(counters[c]));
  }
  assert_cl_success(clReleaseKernel(k));
  free(counters[0]);
  clSVMFree(env->context, counters[1]);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_pointer_arguments),   cmocka_unit_test(test_linked_list),
      cmocka_unit_test(test_exec_info),           cmocka_unit_test(test_fine_grain_system),
      cmocka_unit_test(test_host_kernel_handshake), cmocka_unit_test(test_concurrent_counting),
  };
  return cmocka_run_group_tests(tests, setup, teardown);
}
