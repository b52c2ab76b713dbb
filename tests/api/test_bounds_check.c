/* test_bounds_check.c: KILN_CHECK=bounds (CTest sets it for this suite). An access outside
 * the memory a pointer argument reaches is not made: the command fails with
 * CL_OUT_OF_RESOURCES, commands waiting on it fail, and one line on stderr names the kernel,
 * the argument, the access, its offset and size and the work-item. Accesses inside run as
 * usual: vector loads at the end of a buffer, atomics, local memory behind barriers, SVM.
 * Static __local arrays are checked against their size. */
#include "kiln_test.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char *SOURCE =
    "kernel void fill(global int *out) { out[get_global_id(0)] = 7; }\n"
    "kernel void shift(global int *out, global const int *in) { size_t i = get_global_id(0); out[i] = in[i + 1]; }\n"
    "kernel void before(global int *out) { size_t i = get_global_id(0); out[i - 1] = 3; }\n"
    "kernel void loop_fill(global int *out, int n) {\n"
    "  for (int j = 0; j < n; j++) out[get_global_id(0) * n + j] = j; }\n"
    "kernel void staged(global int *out, local int *scratch, int reach) {\n"
    "  size_t l = get_local_id(0);\n"
    "  if (l < reach) scratch[l] = (int)l;\n"
    "  barrier(CLK_LOCAL_MEM_FENCE);\n"
    "  out[get_global_id(0)] = scratch[(l + 1) % get_local_size(0)]; }\n"
    "kernel void tiled(global int *out) {\n"
    "  local int tile[8];\n"
    "  size_t l = get_local_id(0);\n"
    "  tile[l] = (int)l;\n"
    "  barrier(CLK_LOCAL_MEM_FENCE);\n"
    "  out[get_global_id(0)] = tile[l % 8]; }\n"
    "kernel __attribute__((reqd_work_group_size(16, 1, 1))) void tiled16(global int *out) {\n"
    "  local int tile[8], whole[16];\n"
    "  size_t l = get_local_id(0);\n"
    "  whole[l] = 1;\n"
    "  tile[l] = (int)l;\n"
    "  barrier(CLK_LOCAL_MEM_FENCE);\n"
    "  out[get_global_id(0)] = tile[l % 8] + whole[15 - l]; }\n"
    "kernel __attribute__((reqd_work_group_size(1, 1, 1))) void loop_local(global int *out, int n) {\n"
    "  local int row[8];\n"
    "  for (int k = 0; k < 8; k++) row[k] = k;\n"
    "  for (int k = 0; k <= n; k++) row[k] = -k;\n"
    "  out[0] = row[0]; }\n"
    "kernel void tail_vectors(global float4 *out, global const float *in) {\n"
    "  size_t i = get_global_id(0); out[i] = vload4(i, in) * 2.0f; }\n"
    "kernel void count(global int *counter) { atomic_inc(counter); }\n"
    "kernel void copy_rows(global int *out, global const int *in, local int *row) {\n"
    "  event_t e = async_work_group_copy(row, in + get_group_id(0) * get_local_size(0), get_local_size(0), 0);\n"
    "  wait_group_events(1, &e);\n"
    "  out[get_global_id(0)] = row[get_local_size(0) - 1 - get_local_id(0)]; }\n"
    "kernel void guarded(global int *out, int n) { size_t i = get_global_id(0); if (i < n) out[i] = 1; }\n"
    "kernel void odd_shifted(global int *out) { size_t i = get_global_id(0); if (i & 1) out[i + 1] = 5; }\n"
    "kernel void scatter(global int *out, global const int *index) {\n"
    "  size_t i = get_global_id(0); out[index[i]] = (int)i; }\n";

struct fixture {
  struct kiln_test_env env;
  cl_program program;
};

static int setup(void **state) {
  struct fixture *f = calloc(1, sizeof *f);
  void *env_state = NULL;
  if (kiln_test_env_setup(&env_state) != 0) return -1;
  f->env = *(struct kiln_test_env *)env_state;
  free(env_state);
  cl_int err;
  f->program = clCreateProgramWithSource(f->env.context, 1, &SOURCE, NULL, &err);
  if (err != CL_SUCCESS || clBuildProgram(f->program, 0, NULL, NULL, NULL, NULL) != CL_SUCCESS)
    return -1;
  *state = f;
  return 0;
}

static int teardown(void **state) {
  struct fixture *f = *state;
  clReleaseProgram(f->program);
  clReleaseCommandQueue(f->env.queue);
  clReleaseContext(f->env.context);
  free(f);
  return 0;
}

/* Runs `kernel` over `global` (and `local`, 0: Kiln's choice) with stderr captured; returns
 * the event's status and what stderr got (the caller frees). */
static cl_int run_captured(struct fixture *f, cl_kernel kernel, size_t global, size_t local, char **err_text) {
  fflush(stderr);
  char path[] = "/tmp/kiln-bounds-XXXXXX";
  int fd = mkstemp(path);
  assert_true(fd >= 0);
  int saved = dup(STDERR_FILENO);
  dup2(fd, STDERR_FILENO);
  cl_event event;
  assert_cl_success(clEnqueueNDRangeKernel(f->env.queue, kernel, 1, NULL, &global, local ? &local : NULL, 0, NULL, &event));
  clWaitForEvents(1, &event);
  cl_int status;
  assert_cl_success(clGetEventInfo(event, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof status, &status, NULL));
  clReleaseEvent(event);
  fflush(stderr);
  dup2(saved, STDERR_FILENO);
  close(saved);
  off_t size = lseek(fd, 0, SEEK_END);
  char *text = calloc(1, (size_t)size + 1);
  assert_int_equal(size, pread(fd, text, (size_t)size, 0));
  close(fd);
  unlink(path);
  *err_text = text;
  return status;
}

static cl_mem buffer_of(struct fixture *f, size_t bytes, int value) {
  cl_int err;
  cl_mem b = clCreateBuffer(f->env.context, CL_MEM_READ_WRITE, bytes, NULL, &err);
  assert_cl_success(err);
  assert_cl_success(clEnqueueFillBuffer(f->env.queue, b, &value, sizeof value, 0, bytes, 0, NULL, NULL));
  return b;
}

static void read_ints(struct fixture *f, cl_mem b, size_t count, int *out) {
  assert_cl_success(clEnqueueReadBuffer(f->env.queue, b, CL_TRUE, 0, count * sizeof(int), out, 0, NULL, NULL));
}

static cl_kernel kernel_of(struct fixture *f, const char *name) {
  cl_int err;
  cl_kernel k = clCreateKernel(f->program, name, &err);
  assert_cl_success(err);
  return k;
}

static void expect_report(const char *text, const char *fragment) {
  if (!strstr(text, fragment)) fail_msg("report lacks \"%s\": %s", fragment, text);
}

/* One work-item past a 16-int buffer: the write is not made, the command fails, the report
 * names it; the 16 writes inside are made. */
static void write_past_the_end(void **state) {
  struct fixture *f = *state;
  cl_mem out = buffer_of(f, 16 * sizeof(int), -1);
  cl_kernel k = kernel_of(f, "fill");
  assert_cl_success(clSetKernelArg(k, 0, sizeof out, &out));
  char *text;
  assert_int_equal(CL_OUT_OF_RESOURCES, run_captured(f, k, 17, 1, &text));
  expect_report(text, "kernel 'fill' argument 0 'out': write of 4 bytes at offset 64 outside its 64 bytes");
  expect_report(text, "work-item (16, 0, 0)");
  int got[16];
  read_ints(f, out, 16, got);
  for (int i = 0; i < 16; i++) assert_int_equal(7, got[i]);
  free(text);
  clReleaseKernel(k);
  clReleaseMemObject(out);
}

/* A read past the end gives no data (zero) and fails the command; a command waiting on
 * it fails with CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST. */
static void read_past_the_end(void **state) {
  struct fixture *f = *state;
  cl_mem out = buffer_of(f, 16 * sizeof(int), -1), in = buffer_of(f, 16 * sizeof(int), 5);
  cl_kernel k = kernel_of(f, "shift");
  assert_cl_success(clSetKernelArg(k, 0, sizeof out, &out));
  assert_cl_success(clSetKernelArg(k, 1, sizeof in, &in));
  char *text;
  assert_int_equal(CL_OUT_OF_RESOURCES, run_captured(f, k, 16, 16, &text));
  expect_report(text, "kernel 'shift' argument 1 'in': read of 4 bytes at offset 64 outside its 64 bytes");
  expect_report(text, "work-item (15, 0, 0)");
  free(text);
  int got[16];
  read_ints(f, out, 16, got);
  for (int i = 0; i < 16; i++) assert_int_equal(i < 15 ? 5 : 0, got[i]); /* the read outside gave zero */

  size_t one = 1;
  cl_event failed, dependent;
  assert_cl_success(clEnqueueNDRangeKernel(f->env.queue, k, 1, NULL, (size_t[]){16}, NULL, 0, NULL, &failed));
  assert_cl_success(clEnqueueNDRangeKernel(f->env.queue, k, 1, NULL, &one, NULL, 1, &failed, &dependent));
  clFinish(f->env.queue);
  cl_int status;
  assert_cl_success(clGetEventInfo(failed, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof status, &status, NULL));
  assert_int_equal(CL_OUT_OF_RESOURCES, status);
  assert_cl_success(clGetEventInfo(dependent, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof status, &status, NULL));
  assert_int_equal(CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST, status);
  clReleaseEvent(failed);
  clReleaseEvent(dependent);
  clReleaseKernel(k);
  clReleaseMemObject(out);
  clReleaseMemObject(in);
}

/* out[-1] from work-item 0: before the start (a negative offset). */
static void write_before_the_start(void **state) {
  struct fixture *f = *state;
  cl_mem out = buffer_of(f, 8 * sizeof(int), -1);
  cl_kernel k = kernel_of(f, "before");
  assert_cl_success(clSetKernelArg(k, 0, sizeof out, &out));
  char *text;
  assert_int_equal(CL_OUT_OF_RESOURCES, run_captured(f, k, 8, 8, &text));
  expect_report(text, "kernel 'before' argument 0 'out': write of 4 bytes at offset -4 outside its 32 bytes");
  expect_report(text, "work-item (0, 0, 0)");
  int got[8];
  read_ints(f, out, 8, got);
  for (int i = 0; i < 7; i++) assert_int_equal(3, got[i]);
  assert_int_equal(-1, got[7]);
  free(text);
  clReleaseKernel(k);
  clReleaseMemObject(out);
}

/* A sub-buffer in the middle of its parent: offsets are the sub-buffer's, and the parent's
 * ints on either side stay untouched (a loop in the kernel, too). */
static void through_a_sub_buffer(void **state) {
  struct fixture *f = *state;
  cl_uint align_bits;
  assert_cl_success(clGetDeviceInfo(f->env.device, CL_DEVICE_MEM_BASE_ADDR_ALIGN, sizeof align_bits, &align_bits, NULL));
  size_t origin = align_bits / 8, ints = origin / sizeof(int);
  cl_mem parent = buffer_of(f, 2 * origin + 64, -1);
  cl_buffer_region region = {origin, 64};
  cl_int err;
  cl_mem sub = clCreateSubBuffer(parent, 0, CL_BUFFER_CREATE_TYPE_REGION, &region, &err);
  assert_cl_success(err);
  cl_kernel k = kernel_of(f, "loop_fill");
  int n = 4;
  assert_cl_success(clSetKernelArg(k, 0, sizeof sub, &sub));
  assert_cl_success(clSetKernelArg(k, 1, sizeof n, &n));
  char *text;
  assert_int_equal(CL_OUT_OF_RESOURCES, run_captured(f, k, 5, 1, &text)); /* 20 ints into 16 */
  expect_report(text, "kernel 'loop_fill' argument 0 'out': write of 4 bytes at offset 64 outside its 64 bytes");
  expect_report(text, "work-item (4, 0, 0)");
  int *got = malloc(2 * origin + 64);
  read_ints(f, parent, 2 * ints + 16, got);
  for (size_t i = 0; i < ints; i++) assert_int_equal(-1, got[i]);
  for (size_t i = 0; i < 16; i++) assert_int_equal((int)(i % 4), got[ints + i]);
  for (size_t i = ints + 16; i < 2 * ints + 16; i++) assert_int_equal(-1, got[i]);
  free(got);
  free(text);
  clReleaseKernel(k);
  clReleaseMemObject(sub);
  clReleaseMemObject(parent);
}

/* A __local argument of 8 ints in groups of 16: work-item 8 writes past it (offset 32);
 * with the reach kept inside, the same kernel runs clean. */
static void in_local_memory(void **state) {
  struct fixture *f = *state;
  cl_mem out = buffer_of(f, 16 * sizeof(int), -1);
  cl_kernel k = kernel_of(f, "staged");
  int reach = 16;
  assert_cl_success(clSetKernelArg(k, 0, sizeof out, &out));
  assert_cl_success(clSetKernelArg(k, 1, 8 * sizeof(int), NULL));
  assert_cl_success(clSetKernelArg(k, 2, sizeof reach, &reach));
  char *text;
  assert_int_equal(CL_OUT_OF_RESOURCES, run_captured(f, k, 16, 16, &text));
  expect_report(text, "kernel 'staged' argument 1 'scratch': write of 4 bytes at offset 32 outside its 32 bytes");
  expect_report(text, "work-item (8, 0, 0)");
  free(text);
  assert_cl_success(clSetKernelArg(k, 1, 16 * sizeof(int), NULL));
  assert_int_equal(CL_COMPLETE, run_captured(f, k, 16, 16, &text));
  assert_string_equal("", text);
  int got[16];
  read_ints(f, out, 16, got);
  for (int i = 0; i < 16; i++) assert_int_equal((i + 1) % 16, got[i]);
  free(text);
  clReleaseKernel(k);
  clReleaseMemObject(out);
}

/* A static __local array of 8 ints written by groups of 16: work-item 8 is reported; in
 * groups of 8 the kernel runs clean. */
static void in_a_local_variable(void **state) {
  struct fixture *f = *state;
  cl_mem out = buffer_of(f, 32 * sizeof(int), -1);
  cl_kernel k = kernel_of(f, "tiled");
  assert_cl_success(clSetKernelArg(k, 0, sizeof out, &out));
  char *text;
  assert_int_equal(CL_OUT_OF_RESOURCES, run_captured(f, k, 16, 16, &text));
  expect_report(text, "kernel 'tiled' __local variable 'tiled.tile': write of 4 bytes at offset 32 outside its 32 bytes");
  expect_report(text, "work-item (8, 0, 0)");
  free(text);
  assert_int_equal(CL_COMPLETE, run_captured(f, k, 32, 8, &text));
  assert_string_equal("", text);
  free(text);
  int got[32];
  read_ints(f, out, 32, got);
  for (int i = 0; i < 32; i++) assert_int_equal(i % 8, got[i]);
  clReleaseKernel(k);
  clReleaseMemObject(out);
}

/* With a required work-group size of 16, the accesses of a 16-int array by local id are
 * proven inside at compile time (not checked); those of an 8-int array are still checked. */
static void in_a_local_variable_with_required_size(void **state) {
  struct fixture *f = *state;
  cl_mem out = buffer_of(f, 16 * sizeof(int), -1);
  cl_kernel k = kernel_of(f, "tiled16");
  assert_cl_success(clSetKernelArg(k, 0, sizeof out, &out));
  char *text;
  assert_int_equal(CL_OUT_OF_RESOURCES, run_captured(f, k, 16, 16, &text));
  expect_report(text, "kernel 'tiled16' __local variable 'tiled16.tile': write of 4 bytes at offset 32 outside its 32 bytes");
  expect_report(text, "work-item (8, 0, 0)");
  free(text);
  clReleaseKernel(k);

  /* A loop proven to stay inside is not checked; one running to n is. */
  k = kernel_of(f, "loop_local");
  int n = 7;
  assert_cl_success(clSetKernelArg(k, 0, sizeof out, &out));
  assert_cl_success(clSetKernelArg(k, 1, sizeof n, &n));
  assert_int_equal(CL_COMPLETE, run_captured(f, k, 1, 1, &text));
  assert_string_equal("", text);
  free(text);
  n = 8;
  assert_cl_success(clSetKernelArg(k, 1, sizeof n, &n));
  assert_int_equal(CL_OUT_OF_RESOURCES, run_captured(f, k, 1, 1, &text));
  expect_report(text, "kernel 'loop_local' __local variable 'loop_local.row': write of 4 bytes at offset 32 outside its 32 bytes");
  free(text);
  clReleaseKernel(k);
  clReleaseMemObject(out);
}

/* No false positive: vload4 of a buffer's last four floats, atomics on one int, a work-group
 * copy into local memory, SVM pointers; each runs with nothing reported. */
static void accesses_inside_pass(void **state) {
  struct fixture *f = *state;
  char *text;
  enum { N = 1024 };
  cl_mem in = buffer_of(f, N * sizeof(float), 0), out = buffer_of(f, N * sizeof(float), 0);
  float one = 1.5f;
  assert_cl_success(clEnqueueFillBuffer(f->env.queue, in, &one, sizeof one, 0, N * sizeof(float), 0, NULL, NULL));
  cl_kernel k = kernel_of(f, "tail_vectors");
  assert_cl_success(clSetKernelArg(k, 0, sizeof out, &out));
  assert_cl_success(clSetKernelArg(k, 1, sizeof in, &in));
  assert_int_equal(CL_COMPLETE, run_captured(f, k, N / 4, 0, &text));
  assert_string_equal("", text);
  free(text);
  float got[N];
  assert_cl_success(clEnqueueReadBuffer(f->env.queue, out, CL_TRUE, 0, sizeof got, got, 0, NULL, NULL));
  for (int i = 0; i < N; i++) assert_true(got[i] == 3.0f);
  clReleaseKernel(k);

  cl_mem counter = buffer_of(f, sizeof(int), 0);
  k = kernel_of(f, "count");
  assert_cl_success(clSetKernelArg(k, 0, sizeof counter, &counter));
  assert_int_equal(CL_COMPLETE, run_captured(f, k, 4096, 0, &text));
  assert_string_equal("", text);
  free(text);
  int total;
  read_ints(f, counter, 1, &total);
  assert_int_equal(4096, total);
  clReleaseKernel(k);

  int values[N];
  for (int i = 0; i < N; i++) values[i] = i;
  assert_cl_success(clEnqueueWriteBuffer(f->env.queue, in, CL_TRUE, 0, sizeof values, values, 0, NULL, NULL));
  k = kernel_of(f, "copy_rows");
  assert_cl_success(clSetKernelArg(k, 0, sizeof out, &out));
  assert_cl_success(clSetKernelArg(k, 1, sizeof in, &in));
  assert_cl_success(clSetKernelArg(k, 2, 64 * sizeof(int), NULL));
  assert_int_equal(CL_COMPLETE, run_captured(f, k, N, 64, &text));
  assert_string_equal("", text);
  free(text);
  read_ints(f, out, N, values);
  for (int i = 0; i < N; i++) assert_int_equal(i / 64 * 64 + 63 - i % 64, values[i]);
  clReleaseKernel(k);

  /* SVM: the allocation around the pointer is the extent (the pointer may be inside it). */
  int *svm = clSVMAlloc(f->env.context, CL_MEM_READ_WRITE, 64 * sizeof(int), 0);
  assert_non_null(svm);
  k = kernel_of(f, "fill");
  assert_cl_success(clSetKernelArgSVMPointer(k, 0, svm + 16));
  assert_int_equal(CL_COMPLETE, run_captured(f, k, 48, 0, &text));
  assert_string_equal("", text);
  free(text);
  assert_int_equal(CL_OUT_OF_RESOURCES, run_captured(f, k, 49, 1, &text));
  expect_report(text, "write of 4 bytes at offset 256 outside its 256 bytes");
  free(text);
  clReleaseKernel(k);
  clSVMFree(f->env.context, svm);

  clReleaseMemObject(counter);
  clReleaseMemObject(in);
  clReleaseMemObject(out);
}

/* `fill` over n work-items (local size `local`, 0: Kiln's choice) into a buffer one int
 * short: the last work-item alone is reported, every other write is made. */
static void fill_one_short(struct fixture *f, size_t n, size_t local) {
  cl_mem out = buffer_of(f, (n - 1) * sizeof(int), -1);
  cl_kernel k = kernel_of(f, "fill");
  assert_cl_success(clSetKernelArg(k, 0, sizeof out, &out));
  char *text;
  assert_int_equal(CL_OUT_OF_RESOURCES, run_captured(f, k, n, local, &text));
  char expected[128];
  snprintf(expected, sizeof expected, "work-item (%zu, 0, 0)", n - 1);
  expect_report(text, expected);
  snprintf(expected, sizeof expected, "write of 4 bytes at offset %zu outside its %zu bytes", 4 * (n - 1), 4 * (n - 1));
  expect_report(text, expected);
  free(text);
  int *got = malloc((n - 1) * sizeof(int));
  read_ints(f, out, n - 1, got);
  for (size_t i = 0; i < n - 1; i++) assert_int_equal(7, got[i]);
  free(got);
  clReleaseKernel(k);
  clReleaseMemObject(out);
}

/* Many work-items (the vectorized launcher), one of them outside, in the partial last vector. */
static void one_of_many(void **state) { fill_one_short(*state, 4099, 0); }

/* The last work-item of a whole vector outside (vectorized code tests a vector's first and
 * last work-items for a consecutive access). */
static void last_of_a_whole_vector(void **state) { fill_one_short(*state, 4096, 256); }

/* Under a branch that differs between work-items: those that do not take it have addresses
 * outside but make no access (no report); one that takes it and is outside is reported,
 * and the others that take it write. */
static void under_a_divergent_branch(void **state) {
  struct fixture *f = *state;
  enum { N = 64, INSIDE = 60 };
  cl_mem out = buffer_of(f, INSIDE * sizeof(int), -1);
  cl_kernel k = kernel_of(f, "guarded");
  assert_cl_success(clSetKernelArg(k, 0, sizeof out, &out));
  assert_cl_success(clSetKernelArg(k, 1, sizeof(int), &(int){INSIDE}));
  char *text;
  assert_int_equal(CL_COMPLETE, run_captured(f, k, N, N, &text));
  assert_string_equal("", text);
  free(text);
  int got[N];
  read_ints(f, out, INSIDE, got);
  for (int i = 0; i < INSIDE; i++) assert_int_equal(1, got[i]);
  clReleaseKernel(k);
  clReleaseMemObject(out);

  out = buffer_of(f, N * sizeof(int), -1);
  k = kernel_of(f, "odd_shifted");
  assert_cl_success(clSetKernelArg(k, 0, sizeof out, &out));
  assert_int_equal(CL_OUT_OF_RESOURCES, run_captured(f, k, N, N, &text));
  expect_report(text, "kernel 'odd_shifted' argument 0 'out': write of 4 bytes at offset 256 outside its 256 bytes");
  expect_report(text, "work-item (63, 0, 0)");
  free(text);
  read_ints(f, out, N, got);
  for (int i = 0; i < N; i++) assert_int_equal(i % 2 == 0 && i > 0 ? 5 : -1, got[i]);
  clReleaseKernel(k);
  clReleaseMemObject(out);
}

/* An address computed from a value the kernel read (checked after that read): the
 * work-item whose index is outside is reported, the others write. */
static void through_a_loaded_index(void **state) {
  struct fixture *f = *state;
  enum { N = 64 };
  int index[N];
  for (int i = 0; i < N; i++) index[i] = N - 1 - i;
  index[37] = 100;
  cl_int err;
  cl_mem out = buffer_of(f, N * sizeof(int), -1);
  cl_mem in = clCreateBuffer(f->env.context, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, sizeof index, index, &err);
  assert_cl_success(err);
  cl_kernel k = kernel_of(f, "scatter");
  assert_cl_success(clSetKernelArg(k, 0, sizeof out, &out));
  assert_cl_success(clSetKernelArg(k, 1, sizeof in, &in));
  char *text;
  assert_int_equal(CL_OUT_OF_RESOURCES, run_captured(f, k, N, 16, &text));
  expect_report(text, "kernel 'scatter' argument 0 'out': write of 4 bytes at offset 400 outside its 256 bytes");
  expect_report(text, "work-item (37, 0, 0)");
  free(text);
  int got[N];
  read_ints(f, out, N, got);
  for (int i = 0; i < N; i++) assert_int_equal(i == N - 1 - 37 ? -1 : N - 1 - i, got[i]);
  clReleaseKernel(k);
  clReleaseMemObject(in);
  clReleaseMemObject(out);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(write_past_the_end), cmocka_unit_test(read_past_the_end),
      cmocka_unit_test(write_before_the_start), cmocka_unit_test(through_a_sub_buffer),
      cmocka_unit_test(in_local_memory), cmocka_unit_test(in_a_local_variable),
      cmocka_unit_test(in_a_local_variable_with_required_size),
      cmocka_unit_test(accesses_inside_pass),
      cmocka_unit_test(one_of_many), cmocka_unit_test(last_of_a_whole_vector),
      cmocka_unit_test(under_a_divergent_branch), cmocka_unit_test(through_a_loaded_index),
  };
  return cmocka_run_group_tests(tests, setup, teardown);
}
