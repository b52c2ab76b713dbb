/* cl_khr_command_buffer 0.9.7 with shared virtual memory: clCommandSVMMemcpyKHR and
 * clCommandSVMMemFillKHR recorded with sync points over coarse-grain, fine-grain and
 * malloc'd (fine-grain system) memory and replayed several times, the host changing the
 * memory between replays (a fill's pattern is taken at record time, a copy reads its
 * source when it runs); every fill pattern size; a kernel command whose arguments are SVM
 * pointers (and whose CL_KERNEL_EXEC_INFO_SVM_PTRS is captured at record time); and the
 * errors the extension names for the two SVM commands: its own (command buffer, queue,
 * properties, mutable handle, sync points, finalized) and those inherited from
 * clEnqueueSVMMemcpy / clEnqueueSVMMemFill, with nothing recorded by a failed call. */
#include "khr_command_buffer_test.h"

#include <stdint.h>

static const char *source =
    "kernel void scale(global const int *in, global int *out, int k) {\n"
    "  size_t i = get_global_id(0);\n"
    "  out[i] = in[i] * k;\n"
    "}\n"
    "kernel void through_table(global int *global *table, int tables) {\n"
    "  size_t i = get_global_id(0);\n"
    "  for (int t = 0; t < tables; t++) table[t][i] += t + 1;\n"
    "}\n";

static cl_program program;

static int setup(void **state) { return kiln_test_program_setup(state, kcb_setup, &program, source, "-cl-std=CL3.0"); }
static int teardown(void **state) { return kiln_test_program_teardown(state, program); }

/* Runs `cb` (finalized) on its queue and waits; checks the event's type. */
static void replay(cl_command_buffer_khr cb) {
  cl_event done = NULL;
  assert_cl_success(kcb.clEnqueueCommandBufferKHR(0, NULL, cb, 0, NULL, &done));
  assert_non_null(done);
  assert_cl_success(clWaitForEvents(1, &done));
  cl_command_type type = 0;
  assert_cl_success(clGetEventInfo(done, CL_EVENT_COMMAND_TYPE, sizeof type, &type, NULL));
  assert_int_equal(CL_COMMAND_COMMAND_BUFFER_KHR, type);
  assert_int_equal(CL_COMPLETE, kcb_event_status(done));
  assert_cl_success(clReleaseEvent(done));
}

static void expect_bytes(const unsigned char *got, const unsigned char *want, size_t n, const char *what, int round) {
  for (size_t i = 0; i < n; i++)
    if (got[i] != want[i]) fail_msg("%s, replay %d: byte %zu is %u, expected %u", what, round, i, got[i], want[i]);
}

/* Host access to a coarse-grain allocation, bracketed by a blocking map and an unmap. */
static void map_svm(cl_command_queue q, void *p, size_t size, cl_map_flags flags) {
  assert_cl_success(clEnqueueSVMMap(q, CL_TRUE, flags, p, size, 0, NULL, NULL));
}
static void unmap_svm(cl_command_queue q, void *p) {
  assert_cl_success(clEnqueueSVMUnmap(q, p, 0, NULL, NULL));
  assert_cl_success(clFinish(q));
}

/* ---- recorded and replayed ---- */

enum { BYTES = 4096 };

static void test_fill_and_copy_chain_replayed(void **state) {
  struct kiln_test_env *env = *state;
  unsigned char *a = clSVMAlloc(env->context, CL_MEM_READ_WRITE, BYTES, 0);                                /* coarse */
  unsigned char *b = clSVMAlloc(env->context, CL_MEM_READ_WRITE | CL_MEM_SVM_FINE_GRAIN_BUFFER, BYTES, 0); /* fine */
  unsigned char *c = malloc(BYTES);                                                                        /* system */
  assert_non_null(a);
  assert_non_null(b);
  cl_uint word = 0xC0DE0001u;
  cl_int4 quad = {{1, -2, 3, -4}};
  unsigned char byte = 0x7E;
  cl_command_buffer_khr cb = kcb_create(env->queue, 0);
  cl_sync_point_khr s[5] = {0};
  /* a = word everywhere, then quad over [256, 768); b = a; c[1 ..] = b[3 ..]; b[0 .. 10) = byte. */
  assert_cl_success(kcb.clCommandSVMMemFillKHR(cb, NULL, NULL, a, &word, sizeof word, BYTES, 0, NULL, &s[0], NULL));
  assert_cl_success(
      kcb.clCommandSVMMemFillKHR(cb, NULL, NULL, a + 256, &quad, sizeof quad, 512, 1, &s[0], &s[1], NULL));
  assert_cl_success(kcb.clCommandSVMMemcpyKHR(cb, NULL, NULL, b, a, BYTES, 1, &s[1], &s[2], NULL));
  assert_cl_success(kcb.clCommandSVMMemcpyKHR(cb, NULL, NULL, c + 1, b + 3, 2001, 1, &s[2], &s[3], NULL));
  assert_cl_success(kcb.clCommandSVMMemFillKHR(cb, NULL, NULL, b, &byte, 1, 10, 1, &s[3], &s[4], NULL));
  for (int i = 0; i < 5; i++) {
    assert_int_not_equal(0, s[i]);
    for (int j = 0; j < i; j++) assert_int_not_equal(s[j], s[i]);
  }
  assert_cl_success(kcb.clFinalizeCommandBufferKHR(cb));
  assert_int_equal(CL_COMMAND_BUFFER_STATE_EXECUTABLE_KHR, kcb_state(cb));
  /* The patterns were taken at record time. */
  word = 0, byte = 0;
  memset(&quad, 0, sizeof quad);

  unsigned char want_a[BYTES], want_b[BYTES], want_c[BYTES];
  const cl_uint w = 0xC0DE0001u;
  const cl_int q4[4] = {1, -2, 3, -4};
  for (size_t i = 0; i < BYTES; i++) want_a[i] = ((const unsigned char *)&w)[i % 4];
  for (size_t i = 256; i < 768; i++) want_a[i] = ((const unsigned char *)q4)[(i - 256) % 16];
  memcpy(want_b, want_a, BYTES);
  memset(want_b, 0x7E, 10);
  for (int round = 0; round < 3; round++) {
    /* The host scribbles over all three between replays. */
    map_svm(env->queue, a, BYTES, CL_MAP_WRITE);
    memset(a, 0x10 + round, BYTES);
    unmap_svm(env->queue, a);
    memset(b, 0x20 + round, BYTES);
    memset(c, 0x30 + round, BYTES);
    memset(want_c, 0x30 + round, BYTES);
    memcpy(want_c + 1, want_a + 3, 2001);
    replay(cb);
    map_svm(env->queue, a, BYTES, CL_MAP_READ);
    expect_bytes(a, want_a, BYTES, "a (coarse)", round);
    unmap_svm(env->queue, a);
    expect_bytes(b, want_b, BYTES, "b (fine)", round);
    expect_bytes(c, want_c, BYTES, "c (malloc)", round);
  }
  assert_cl_success(kcb.clReleaseCommandBufferKHR(cb));
  free(c);
  clSVMFree(env->context, a);
  clSVMFree(env->context, b);
}

/* A recorded copy reads its source when it runs, and a replay waits for its wait list. */
static void test_copy_reads_source_when_run(void **state) {
  struct kiln_test_env *env = *state;
  cl_int *src = malloc(256 * sizeof *src);
  cl_int *dst = clSVMAlloc(env->context, CL_MEM_SVM_FINE_GRAIN_BUFFER | CL_MEM_SVM_ATOMICS, 256 * sizeof *dst, 0);
  assert_non_null(dst);
  cl_command_buffer_khr cb = kcb_create(env->queue, 0);
  assert_cl_success(kcb.clCommandSVMMemcpyKHR(cb, NULL, NULL, dst, src, 256 * sizeof *src, 0, NULL, NULL, NULL));
  assert_cl_success(kcb.clFinalizeCommandBufferKHR(cb));
  for (int round = 0; round < 4; round++) {
    for (int i = 0; i < 256; i++) src[i] = round * 1000 + i, dst[i] = -1;
    cl_event gate = kcb_user_event(env->context), done = NULL;
    assert_cl_success(kcb.clEnqueueCommandBufferKHR(0, NULL, cb, 1, &gate, &done));
    assert_cl_success(clFlush(env->queue));
    kiln_test_sleep_ms(10);
    for (int i = 0; i < 256; i++)
      if (dst[i] != -1) fail_msg("round %d: element %d copied before the gate opened", round, i);
    assert_cl_success(clSetUserEventStatus(gate, CL_COMPLETE));
    assert_cl_success(clWaitForEvents(1, &done));
    for (int i = 0; i < 256; i++) assert_int_equal(round * 1000 + i, dst[i]);
    assert_cl_success(clReleaseEvent(done));
    assert_cl_success(clReleaseEvent(gate));
  }
  assert_cl_success(kcb.clReleaseCommandBufferKHR(cb));
  free(src);
  clSVMFree(env->context, dst);
}

static void test_every_fill_pattern_size_recorded(void **state) {
  struct kiln_test_env *env = *state;
  enum { SLOT = 1024, GUARD = 128 };
  unsigned char *mem = clSVMAlloc(env->context, CL_MEM_SVM_FINE_GRAIN_BUFFER, 8 * SLOT, 0);
  assert_non_null(mem);
  unsigned char pattern[8][128];
  for (int s = 0; s < 8; s++)
    for (int i = 0; i < 128; i++) pattern[s][i] = (unsigned char)(s * 37 + i * 11 + 1);
  cl_command_buffer_khr cb = kcb_create(env->queue, 0);
  /* Slot s: guard, then (SLOT - 2 * GUARD) bytes of pattern size 1 << s, then guard. */
  for (int s = 0; s < 8; s++) {
    size_t size = (size_t)1 << s;
    assert_cl_success(kcb.clCommandSVMMemFillKHR(cb, NULL, NULL, mem + s * SLOT + GUARD, pattern[s], size,
                                                 SLOT - 2 * GUARD, 0, NULL, NULL, NULL));
  }
  assert_cl_success(kcb.clFinalizeCommandBufferKHR(cb));
  memset(pattern, 0, sizeof pattern);
  for (int round = 0; round < 2; round++) {
    memset(mem, 0xA5 ^ round, 8 * SLOT);
    replay(cb);
    for (int s = 0; s < 8; s++)
      for (int i = 0; i < SLOT; i++) {
        unsigned char got = mem[s * SLOT + i];
        unsigned char want = (i < GUARD || i >= SLOT - GUARD)
                                 ? (unsigned char)(0xA5 ^ round)
                                 : (unsigned char)(s * 37 + ((i - GUARD) % (1 << s)) * 11 + 1);
        if (got != want)
          fail_msg("replay %d, pattern size %d: byte %d of the slot is %u, expected %u", round, 1 << s, i, got, want);
      }
  }
  assert_cl_success(kcb.clReleaseCommandBufferKHR(cb));
  clSVMFree(env->context, mem);
}

/* ---- kernels with SVM arguments ---- */

static void test_kernel_with_svm_arguments(void **state) {
  struct kiln_test_env *env = *state;
  enum { N = 512 };
  cl_int *host_in = malloc(N * sizeof(cl_int)), *host_out = malloc(N * sizeof(cl_int));
  cl_int *in = clSVMAlloc(env->context, CL_MEM_READ_WRITE, (N + 16) * sizeof(cl_int), 0);
  cl_int *out =
      clSVMAlloc(env->context, CL_MEM_READ_WRITE | CL_MEM_SVM_FINE_GRAIN_BUFFER, (N + 16) * sizeof(cl_int), 0);
  assert_non_null(in);
  assert_non_null(out);
  cl_kernel scale = kcb_kernel(program, "scale");
  assert_cl_success(clSetKernelArgSVMPointer(scale, 0, in + 16)); /* the middles */
  assert_cl_success(clSetKernelArgSVMPointer(scale, 1, out + 16));
  kcb_arg_int(scale, 2, -3);
  cl_command_buffer_khr cb = kcb_create(env->queue, 0);
  cl_sync_point_khr copied_in = 0, ran = 0;
  size_t global = N;
  assert_cl_success(
      kcb.clCommandSVMMemcpyKHR(cb, NULL, NULL, in + 16, host_in, N * sizeof(cl_int), 0, NULL, &copied_in, NULL));
  assert_cl_success(
      kcb.clCommandNDRangeKernelKHR(cb, NULL, NULL, scale, 1, NULL, &global, NULL, 1, &copied_in, &ran, NULL));
  assert_cl_success(
      kcb.clCommandSVMMemcpyKHR(cb, NULL, NULL, host_out, out + 16, N * sizeof(cl_int), 1, &ran, NULL, NULL));
  assert_cl_success(kcb.clFinalizeCommandBufferKHR(cb));
  /* Changes to the kernel after recording do not reach the recorded command. */
  assert_cl_success(clSetKernelArgSVMPointer(scale, 0, out));
  assert_cl_success(clSetKernelArgSVMPointer(scale, 1, in));
  kcb_arg_int(scale, 2, 1000);
  for (int i = 0; i < 16; i++) out[i] = 4242;
  for (int round = 0; round < 3; round++) {
    for (int i = 0; i < N; i++) host_in[i] = i * (round + 2) - 100, host_out[i] = 0;
    replay(cb);
    for (int i = 0; i < N; i++)
      if (host_out[i] != -3 * host_in[i])
        fail_msg("replay %d: out[%d] is %d, expected %d", round, i, host_out[i], -3 * host_in[i]);
    for (int i = 0; i < 16; i++) assert_int_equal(4242, out[i]); /* before the middle: untouched */
  }
  assert_cl_success(kcb.clReleaseCommandBufferKHR(cb));

  /* A table of SVM pointers, the arrays named by CL_KERNEL_EXEC_INFO_SVM_PTRS at record
   * time; a later clSetKernelExecInfo does not change the recorded command. */
  cl_int *arrays[2];
  for (int t = 0; t < 2; t++) {
    arrays[t] = clSVMAlloc(env->context, CL_MEM_READ_WRITE | CL_MEM_SVM_FINE_GRAIN_BUFFER, N * sizeof(cl_int), 0);
    assert_non_null(arrays[t]);
    for (int i = 0; i < N; i++) arrays[t][i] = t * 10000 + i;
  }
  cl_int **table = clSVMAlloc(env->context, CL_MEM_READ_WRITE | CL_MEM_SVM_FINE_GRAIN_BUFFER, 2 * sizeof *table, 0);
  assert_non_null(table);
  table[0] = arrays[0], table[1] = arrays[1];
  cl_kernel walk = kcb_kernel(program, "through_table");
  assert_cl_success(clSetKernelArgSVMPointer(walk, 0, table));
  kcb_arg_int(walk, 1, 2);
  void *reached[2] = {arrays[0], arrays[1]};
  assert_cl_success(clSetKernelExecInfo(walk, CL_KERNEL_EXEC_INFO_SVM_PTRS, sizeof reached, reached));
  cb = kcb_create(env->queue, 0);
  assert_cl_success(kcb.clCommandNDRangeKernelKHR(cb, NULL, NULL, walk, 1, NULL, &global, NULL, 0, NULL, NULL, NULL));
  assert_cl_success(kcb.clFinalizeCommandBufferKHR(cb));
  assert_cl_success(clSetKernelExecInfo(walk, CL_KERNEL_EXEC_INFO_SVM_PTRS, 0, NULL));
  kcb_arg_int(walk, 1, 0);
  for (int round = 1; round <= 3; round++) {
    replay(cb);
    for (int t = 0; t < 2; t++)
      for (int i = 0; i < N; i++)
        if (arrays[t][i] != t * 10000 + i + round * (t + 1))
          fail_msg("replay %d: array %d element %d is %d, expected %d", round, t, i, arrays[t][i],
                   t * 10000 + i + round * (t + 1));
  }
  assert_cl_success(kcb.clReleaseCommandBufferKHR(cb));
  assert_cl_success(clReleaseKernel(walk));
  assert_cl_success(clReleaseKernel(scale));
  for (int t = 0; t < 2; t++) clSVMFree(env->context, arrays[t]);
  clSVMFree(env->context, table);
  clSVMFree(env->context, in);
  clSVMFree(env->context, out);
  free(host_in);
  free(host_out);
}

/* ---- errors ---- */

static _Alignas(128) unsigned char target[256]; /* what the failed recordings aimed at */
static unsigned char source_bytes[256];

/* Finalizes `cb` and runs it: `target` must still hold 0x3C everywhere (nothing recorded). */
static void expect_nothing_recorded(cl_command_buffer_khr cb, const char *what) {
  assert_cl_success(kcb.clFinalizeCommandBufferKHR(cb));
  replay(cb);
  for (size_t i = 0; i < sizeof target; i++)
    if (target[i] != 0x3C) fail_msg("%s: byte %zu of the target changed: a failed call recorded a command", what, i);
}

static void test_command_buffer_errors(void **state) {
  struct kiln_test_env *env = *state;
  memset(target, 0x3C, sizeof target);
  memset(source_bytes, 0x77, sizeof source_bytes);
  cl_int word = 5;
  cl_command_buffer_khr cb = kcb_create(env->queue, 0);
  cl_command_buffer_khr other = kcb_create(env->queue, 0);
  cl_sync_point_khr ok = 0, foreign = 0, sp = 0;
  /* One valid sync point in each buffer (a fill of an unrelated array). */
  static _Alignas(4) unsigned char scratch[64];
  assert_cl_success(kcb.clCommandSVMMemFillKHR(cb, NULL, NULL, scratch, &word, 4, 64, 0, NULL, &ok, NULL));
  /* `other` records until its sync point is none of cb's (cb has only `ok`). */
  for (int i = 0; i < 4 && (foreign == 0 || foreign == ok); i++)
    assert_cl_success(kcb.clCommandSVMMemFillKHR(other, NULL, NULL, scratch, &word, 4, 64, 0, NULL, &foreign, NULL));
  assert_int_not_equal(0, foreign);
  assert_int_not_equal(ok, foreign);

  /* CL_INVALID_COMMAND_BUFFER_KHR */
  assert_int_equal(CL_INVALID_COMMAND_BUFFER_KHR,
                   kcb.clCommandSVMMemcpyKHR(NULL, NULL, NULL, target, source_bytes, 16, 0, NULL, NULL, NULL));
  assert_int_equal(CL_INVALID_COMMAND_BUFFER_KHR,
                   kcb.clCommandSVMMemFillKHR(NULL, NULL, NULL, target, &word, 4, 16, 0, NULL, NULL, NULL));
  cl_command_buffer_khr not_cb = (cl_command_buffer_khr)env->queue;
  assert_int_equal(CL_INVALID_COMMAND_BUFFER_KHR,
                   kcb.clCommandSVMMemcpyKHR(not_cb, NULL, NULL, target, source_bytes, 16, 0, NULL, NULL, NULL));
  assert_int_equal(CL_INVALID_COMMAND_BUFFER_KHR,
                   kcb.clCommandSVMMemFillKHR(not_cb, NULL, NULL, target, &word, 4, 16, 0, NULL, NULL, NULL));
  /* CL_INVALID_COMMAND_QUEUE: without cl_khr_command_buffer_multi_device a command names no queue. */
  assert_false(kiln_test_extension_listed(env->device, "cl_khr_command_buffer_multi_device"));
  assert_int_equal(CL_INVALID_COMMAND_QUEUE,
                   kcb.clCommandSVMMemcpyKHR(cb, env->queue, NULL, target, source_bytes, 16, 0, NULL, NULL, NULL));
  assert_int_equal(CL_INVALID_COMMAND_QUEUE,
                   kcb.clCommandSVMMemFillKHR(cb, env->queue, NULL, target, &word, 4, 16, 0, NULL, NULL, NULL));
  /* CL_INVALID_VALUE: properties (the extension defines none), a mutable handle. */
  const cl_command_properties_khr bad_props[] = {0x4242, 1, 0};
  assert_int_equal(CL_INVALID_VALUE,
                   kcb.clCommandSVMMemcpyKHR(cb, NULL, bad_props, target, source_bytes, 16, 0, NULL, NULL, NULL));
  assert_int_equal(CL_INVALID_VALUE,
                   kcb.clCommandSVMMemFillKHR(cb, NULL, bad_props, target, &word, 4, 16, 0, NULL, NULL, NULL));
  cl_mutable_command_khr handle = NULL;
  assert_int_equal(CL_INVALID_VALUE,
                   kcb.clCommandSVMMemcpyKHR(cb, NULL, NULL, target, source_bytes, 16, 0, NULL, NULL, &handle));
  assert_int_equal(CL_INVALID_VALUE,
                   kcb.clCommandSVMMemFillKHR(cb, NULL, NULL, target, &word, 4, 16, 0, NULL, NULL, &handle));
  /* CL_INVALID_SYNC_POINT_WAIT_LIST_KHR: NULL list with a count, a list without one, sync
   * points that are not this buffer's. */
  const cl_sync_point_khr bogus[] = {0, ok + 1000, foreign};
  assert_int_equal(CL_INVALID_SYNC_POINT_WAIT_LIST_KHR,
                   kcb.clCommandSVMMemcpyKHR(cb, NULL, NULL, target, source_bytes, 16, 1, NULL, &sp, NULL));
  assert_int_equal(CL_INVALID_SYNC_POINT_WAIT_LIST_KHR,
                   kcb.clCommandSVMMemFillKHR(cb, NULL, NULL, target, &word, 4, 16, 1, NULL, &sp, NULL));
  assert_int_equal(CL_INVALID_SYNC_POINT_WAIT_LIST_KHR,
                   kcb.clCommandSVMMemcpyKHR(cb, NULL, NULL, target, source_bytes, 16, 0, &ok, &sp, NULL));
  assert_int_equal(CL_INVALID_SYNC_POINT_WAIT_LIST_KHR,
                   kcb.clCommandSVMMemFillKHR(cb, NULL, NULL, target, &word, 4, 16, 0, &ok, &sp, NULL));
  for (int i = 0; i < 3; i++) {
    cl_sync_point_khr list[2] = {ok, bogus[i]};
    assert_int_equal(CL_INVALID_SYNC_POINT_WAIT_LIST_KHR,
                     kcb.clCommandSVMMemcpyKHR(cb, NULL, NULL, target, source_bytes, 16, 2, list, &sp, NULL));
    assert_int_equal(CL_INVALID_SYNC_POINT_WAIT_LIST_KHR,
                     kcb.clCommandSVMMemFillKHR(cb, NULL, NULL, target, &word, 4, 16, 2, list, &sp, NULL));
  }
  /* An empty property list is valid (recorded into `other`, which is not checked). */
  const cl_command_properties_khr empty[] = {0};
  assert_cl_success(kcb.clCommandSVMMemFillKHR(other, NULL, empty, scratch, &word, 4, 64, 0, NULL, NULL, NULL));
  expect_nothing_recorded(cb, "command-buffer errors");
  /* CL_INVALID_OPERATION once finalized. */
  assert_int_equal(CL_INVALID_OPERATION,
                   kcb.clCommandSVMMemcpyKHR(cb, NULL, NULL, target, source_bytes, 16, 0, NULL, NULL, NULL));
  assert_int_equal(CL_INVALID_OPERATION,
                   kcb.clCommandSVMMemFillKHR(cb, NULL, NULL, target, &word, 4, 16, 0, NULL, NULL, NULL));
  replay(cb);
  for (size_t i = 0; i < sizeof target; i++) assert_int_equal(0x3C, target[i]);
  assert_cl_success(kcb.clReleaseCommandBufferKHR(cb));
  assert_cl_success(kcb.clReleaseCommandBufferKHR(other));
}

static void test_inherited_errors(void **state) {
  struct kiln_test_env *env = *state;
  memset(target, 0x3C, sizeof target);
  unsigned char pattern[256];
  memset(pattern, 0x99, sizeof pattern);
  cl_command_buffer_khr cb = kcb_create(env->queue, 0);
  /* clEnqueueSVMMemcpy's: NULL pointers, overlap. */
  assert_int_equal(CL_INVALID_VALUE,
                   kcb.clCommandSVMMemcpyKHR(cb, NULL, NULL, NULL, source_bytes, 16, 0, NULL, NULL, NULL));
  assert_int_equal(CL_INVALID_VALUE, kcb.clCommandSVMMemcpyKHR(cb, NULL, NULL, target, NULL, 16, 0, NULL, NULL, NULL));
  const struct { size_t dst, src, size; } overlap[] = {{0, 0, 16}, {8, 0, 16}, {0, 8, 16}, {0, 127, 128}};
  for (size_t i = 0; i < sizeof overlap / sizeof overlap[0]; i++) {
    cl_int err = kcb.clCommandSVMMemcpyKHR(cb, NULL, NULL, target + overlap[i].dst, target + overlap[i].src,
                                           overlap[i].size, 0, NULL, NULL, NULL);
    if (err != CL_MEM_COPY_OVERLAP) fail_msg("overlap case %zu: %d, expected CL_MEM_COPY_OVERLAP", i, err);
  }
  /* clEnqueueSVMMemFill's: NULL pointer and pattern, pattern sizes, alignment, size. */
  assert_int_equal(CL_INVALID_VALUE,
                   kcb.clCommandSVMMemFillKHR(cb, NULL, NULL, NULL, pattern, 4, 16, 0, NULL, NULL, NULL));
  assert_int_equal(CL_INVALID_VALUE,
                   kcb.clCommandSVMMemFillKHR(cb, NULL, NULL, target, NULL, 4, 16, 0, NULL, NULL, NULL));
  const size_t bad_sizes[] = {0, 3, 6, 24, 100, 256};
  for (size_t i = 0; i < sizeof bad_sizes / sizeof bad_sizes[0]; i++) {
    size_t s = bad_sizes[i];
    cl_int err = kcb.clCommandSVMMemFillKHR(cb, NULL, NULL, target, pattern, s, s ? s : 16, 0, NULL, NULL, NULL);
    if (err != CL_INVALID_VALUE) fail_msg("pattern size %zu: %d, expected CL_INVALID_VALUE", s, err);
  }
  for (size_t s = 2; s <= 128; s *= 2) {
    if (kcb.clCommandSVMMemFillKHR(cb, NULL, NULL, target + s / 2, pattern, s, s, 0, NULL, NULL, NULL) !=
        CL_INVALID_VALUE)
      fail_msg("pattern size %zu at an address aligned to %zu: expected CL_INVALID_VALUE", s, s / 2);
    if (kcb.clCommandSVMMemFillKHR(cb, NULL, NULL, target, pattern, s, s + s / 2, 0, NULL, NULL, NULL) !=
        CL_INVALID_VALUE)
      fail_msg("pattern size %zu, size %zu: expected CL_INVALID_VALUE", s, s + s / 2);
  }
  expect_nothing_recorded(cb, "inherited errors");
  assert_cl_success(kcb.clReleaseCommandBufferKHR(cb));
}

int main(void) {
  const struct CMUnitTest tests[] = {
      KCB_TEST(test_fill_and_copy_chain_replayed),
      KCB_TEST(test_copy_reads_source_when_run),
      KCB_TEST(test_every_fill_pattern_size_recorded),
      KCB_TEST(test_kernel_with_svm_arguments),
      KCB_TEST(test_command_buffer_errors),
      KCB_TEST(test_inherited_errors),
  };
  return cmocka_run_group_tests(tests, setup, teardown);
}
