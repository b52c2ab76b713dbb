/* cl_arm_import_memory, using imports: the buffer's storage is the application's memory
 * (kernels read what the host wrote there and the host sees what kernels wrote, for
 * malloc'd, mmap'd, SVM-allocated and unaligned ranges, aliasing imports and sub-buffers of imports,
 * nothing outside the range touched); every host transfer the extension forbids, and its
 * cl_khr_command_buffer form, refuses an import or a sub-buffer of one with
 * CL_INVALID_OPERATION and does nothing; kernels in command buffers and in QCOM
 * recordings, clEnqueueMigrateMemObjects work; a command holding a released import keeps
 * its page claim until it completes. Results are checked in the application's memory.
 * The image calls of the list: test_arm_import_images.c. */
#include "khr_command_buffer_test.h"
#include "qcom_recordable_test.h"

#include "arm_import_test.h"

static const char *source =
    "kernel void add_int(global int *p, int v) { p[get_global_id(0)] += v; }\n"
    "kernel void add_char(global uchar *p, uchar v) { p[get_global_id(0)] += v; }\n"
    "kernel void copy_int(global const int *in, global int *out) {\n"
    "  size_t i = get_global_id(0);\n"
    "  out[i] = in[i];\n"
    "}\n";

static cl_program program;
static size_t base_align; /* CL_DEVICE_MEM_BASE_ADDR_ALIGN in bytes */

static int setup(void **state) {
  kiln_test_program_setup(state, aim_setup, &program, source, NULL);
  struct kiln_test_env *env = *state;
  kcb_load(env->platform);
  qrq_load(env->platform);
  base_align = kiln_test_base_align(env->device);
  return 0;
}

static int teardown(void **state) { return kiln_test_program_teardown(state, program); }

/* Runs add_int(mem, v) over `count` ints and waits. */
static void add_ints(cl_command_queue queue, cl_mem mem, size_t count, cl_int v) {
  cl_kernel k = kcb_kernel(program, "add_int");
  kcb_arg_mem(k, 0, mem);
  kcb_arg_int(k, 1, v);
  assert_cl_success(clEnqueueNDRangeKernel(queue, k, 1, NULL, &count, NULL, 0, NULL, NULL));
  assert_cl_success(clFinish(queue));
  assert_cl_success(clReleaseKernel(k));
}

/* ---- the storage is the application's memory ---- */

static void test_kernel_on_malloc(void **state) {
  struct kiln_test_env *env = *state;
  enum { N = 1000, GUARD = 16 };
  const cl_mem_flags variants[] = {CL_MEM_READ_WRITE, 0, CL_MEM_READ_WRITE | CL_MEM_HOST_NO_ACCESS,
                                   CL_MEM_READ_WRITE | CL_MEM_USE_HOST_PTR, CL_MEM_HOST_READ_ONLY};
  for (size_t v = 0; v < sizeof variants / sizeof variants[0]; v++) {
    cl_int *block = malloc((N + 2 * GUARD) * sizeof *block), *data = block + GUARD;
    for (size_t i = 0; i < N + 2 * GUARD; i++) block[i] = -999;
    for (int i = 0; i < N; i++) data[i] = i * 3;
    cl_mem mem = aim_import_ok(env->context, variants[v], NULL, data, N * sizeof *data);
    add_ints(env->queue, mem, N, 5);
    for (int i = 0; i < N; i++)
      if (data[i] != i * 3 + 5)
        fail_msg("flags 0x%llx: element %d is %d, expected %d", (unsigned long long)variants[v], i, data[i], i * 3 + 5);
    /* The host writes again: the next kernel reads it. */
    for (int i = 0; i < N; i++) data[i] = -i;
    add_ints(env->queue, mem, N, 2);
    for (int i = 0; i < N; i++) assert_int_equal(2 - i, data[i]);
    for (size_t i = 0; i < GUARD; i++) {
      assert_int_equal(-999, block[i]);
      assert_int_equal(-999, block[GUARD + N + i]);
    }
    assert_cl_success(clReleaseMemObject(mem));
    for (int i = 0; i < N; i++) assert_int_equal(2 - i, data[i]);
    free(block);
  }
}

static void test_kernel_on_mmap(void **state) {
  struct kiln_test_env *env = *state;
  size_t page = aim_page(), count = 2 * page / sizeof(cl_int);
  unsigned char *p = aim_map_pages(3);
  memset(p + 2 * page, 0x77, page);
  cl_int *data = (cl_int *)p;
  cl_mem mem = aim_import_ok(env->context, CL_MEM_READ_WRITE, NULL, p, 2 * page); /* before any write */
  for (size_t i = 0; i < count; i++) data[i] = (cl_int)i;
  add_ints(env->queue, mem, count, 1000);
  for (size_t i = 0; i < count; i++) assert_int_equal((cl_int)i + 1000, data[i]);
  aim_expect_bytes(p + 2 * page, page, 0x77, "the page after the import");
  assert_cl_success(clReleaseMemObject(mem));
  for (size_t i = 0; i < count; i++) assert_int_equal((cl_int)i + 1000, data[i]);
  aim_unmap_pages(p, 3);
}

/* An SVM allocation imported as host memory: the import and the SVM pointer are the same
 * bytes, whichever a kernel is given. */
static void test_kernel_on_svm_allocation(void **state) {
  struct kiln_test_env *env = *state;
  enum { N = 4096 };
  cl_int *svm = clSVMAlloc(env->context, CL_MEM_READ_WRITE | CL_MEM_SVM_FINE_GRAIN_BUFFER, N * sizeof *svm, 4096);
  assert_non_null(svm);
  for (int i = 0; i < N; i++) svm[i] = i;
  cl_mem mem = aim_import_ok(env->context, CL_MEM_READ_WRITE, NULL, svm, N * sizeof *svm);
  add_ints(env->queue, mem, N, 7); /* through the import */
  for (int i = 0; i < N; i++) assert_int_equal(i + 7, svm[i]);
  cl_kernel k = kcb_kernel(program, "add_int"); /* through the SVM pointer */
  assert_cl_success(clSetKernelArgSVMPointer(k, 0, svm));
  kcb_arg_int(k, 1, 100);
  size_t global = N;
  assert_cl_success(clEnqueueNDRangeKernel(env->queue, k, 1, NULL, &global, NULL, 0, NULL, NULL));
  assert_cl_success(clFinish(env->queue));
  assert_cl_success(clReleaseKernel(k));
  cl_int got[N];
  /* Host reads of an import are refused; the SVM pointer is the host's view. */
  assert_int_equal(CL_INVALID_OPERATION, clEnqueueReadBuffer(env->queue, mem, CL_TRUE, 0, sizeof got, got, 0, NULL, NULL));
  memcpy(got, svm, sizeof got);
  for (int i = 0; i < N; i++) assert_int_equal(i + 107, got[i]);
  assert_cl_success(clReleaseMemObject(mem));
  clSVMFree(env->context, svm);
}

static void test_kernel_on_unaligned_ranges(void **state) {
  struct kiln_test_env *env = *state;
  enum { N = 1001, GUARD = 64 };
  /* Bytes at an odd address. */
  unsigned char *block = malloc(N + 2 * GUARD + 1), *bytes = block + GUARD + 1;
  memset(block, 0xEE, N + 2 * GUARD + 1);
  for (size_t i = 0; i < N; i++) bytes[i] = (unsigned char)i;
  cl_mem mem = aim_import_ok(env->context, CL_MEM_READ_WRITE, NULL, bytes, N);
  cl_kernel k = kcb_kernel(program, "add_char");
  cl_uchar add = 3;
  kcb_arg_mem(k, 0, mem);
  assert_cl_success(clSetKernelArg(k, 1, sizeof add, &add));
  size_t global = N;
  assert_cl_success(clEnqueueNDRangeKernel(env->queue, k, 1, NULL, &global, NULL, 0, NULL, NULL));
  assert_cl_success(clFinish(env->queue));
  for (size_t i = 0; i < N; i++) assert_int_equal((unsigned char)(i + 3), bytes[i]);
  aim_expect_bytes(block, GUARD + 1, 0xEE, "bytes before the import");
  aim_expect_bytes(bytes + N, GUARD, 0xEE, "bytes after the import");
  assert_cl_success(clReleaseKernel(k));
  assert_cl_success(clReleaseMemObject(mem));
  free(block);

  /* Ints 4 bytes past the device's base alignment, and a sub-buffer of them. */
  size_t count = 3 * base_align / sizeof(cl_int);
  cl_int *aligned = aligned_alloc(base_align, (count + 2 * base_align / sizeof(cl_int)) * sizeof(cl_int));
  cl_int *ints = aligned + 1;
  for (size_t i = 0; i < count + 1; i++) ints[i] = (cl_int)i;
  aligned[0] = -1;
  mem = aim_import_ok(env->context, CL_MEM_READ_WRITE, NULL, ints, count * sizeof(cl_int));
  add_ints(env->queue, mem, count, 10);
  cl_mem sub = kiln_test_sub_buffer(mem, 0, base_align, base_align);
  add_ints(env->queue, sub, base_align / sizeof(cl_int), 100);
  size_t sub_first = base_align / sizeof(cl_int), sub_end = 2 * sub_first;
  for (size_t i = 0; i < count; i++)
    assert_int_equal((cl_int)i + 10 + (i >= sub_first && i < sub_end ? 100 : 0), ints[i]);
  assert_int_equal(-1, aligned[0]);
  assert_int_equal((cl_int)count, ints[count]);
  assert_cl_success(clReleaseMemObject(sub));
  assert_cl_success(clReleaseMemObject(mem));
  free(aligned);
}

static void test_sub_buffers_of_imports(void **state) {
  struct kiln_test_env *env = *state;
  size_t page = aim_page(), count = 4 * page / sizeof(cl_int);
  unsigned char *p = aim_map_pages(4);
  cl_int *data = (cl_int *)p;
  for (size_t i = 0; i < count; i++) data[i] = (cl_int)(i * 2);
  cl_mem mem = aim_import_ok(env->context, CL_MEM_READ_WRITE, NULL, p, 4 * page);
  size_t o1 = 2 * base_align, n1 = 256, o2 = 2 * page, n2 = page / sizeof(cl_int);
  cl_mem s1 = kiln_test_sub_buffer(mem, 0, o1, n1 * sizeof(cl_int));
  cl_mem s2 = kiln_test_sub_buffer(mem, 0, o2, n2 * sizeof(cl_int));
  add_ints(env->queue, s1, n1, 1);
  add_ints(env->queue, s2, n2, 100);
  for (size_t i = 0; i < count; i++) {
    size_t byte = i * sizeof(cl_int);
    cl_int want = (cl_int)(i * 2) + (byte >= o1 && byte < o1 + n1 * sizeof(cl_int) ? 1 : 0) +
                  (byte >= o2 && byte < o2 + n2 * sizeof(cl_int) ? 100 : 0);
    if (data[i] != want) fail_msg("element %zu is %d, expected %d", i, data[i], want);
  }
  /* The host's writes are what the sub-buffer reads. */
  for (size_t i = 0; i < n1; i++) data[o1 / sizeof(cl_int) + i] = -7;
  add_ints(env->queue, s1, n1, 7);
  for (size_t i = 0; i < n1; i++) assert_int_equal(0, data[o1 / sizeof(cl_int) + i]);
  assert_cl_success(clReleaseMemObject(mem)); /* the sub-buffers keep it */
  add_ints(env->queue, s2, n2, 1);
  assert_int_equal((cl_int)(o2 / sizeof(cl_int) * 2) + 101, data[o2 / sizeof(cl_int)]);
  assert_cl_success(clReleaseMemObject(s1));
  assert_cl_success(clReleaseMemObject(s2));
  aim_unmap_pages(p, 4);
}

/* Aligned imports may alias: what a kernel writes through one, another reads. */
static void test_aliasing_imports(void **state) {
  struct kiln_test_env *env = *state;
  size_t page = aim_page(), count = page / sizeof(cl_int);
  unsigned char *p = aim_map_pages(2);
  cl_int *in = (cl_int *)p, *out = (cl_int *)(p + page);
  for (size_t i = 0; i < count; i++) in[i] = (cl_int)(i ^ 0x55);
  cl_mem reader = aim_import_ok(env->context, CL_MEM_READ_ONLY, NULL, p, page);
  cl_mem writer = aim_import_ok(env->context, CL_MEM_READ_WRITE, NULL, p, page);
  cl_mem output = aim_import_ok(env->context, CL_MEM_WRITE_ONLY | CL_MEM_HOST_READ_ONLY, NULL, out, page);
  add_ints(env->queue, writer, count, 7);
  cl_kernel k = kcb_kernel(program, "copy_int");
  kcb_arg_mem(k, 0, reader);
  kcb_arg_mem(k, 1, output);
  assert_cl_success(clEnqueueNDRangeKernel(env->queue, k, 1, NULL, &count, NULL, 0, NULL, NULL));
  assert_cl_success(clFinish(env->queue));
  for (size_t i = 0; i < count; i++) assert_int_equal((cl_int)(i ^ 0x55) + 7, out[i]);
  assert_cl_success(clReleaseKernel(k));
  cl_mem mems[] = {reader, writer, output};
  for (size_t i = 0; i < 3; i++) assert_cl_success(clReleaseMemObject(mems[i]));
  aim_unmap_pages(p, 2);
}

/* ---- forbidden host transfers ---- */

static void test_host_transfers_refused(void **state) {
  struct kiln_test_env *env = *state;
  cl_command_queue q = env->queue;
  size_t page = aim_page();
  unsigned char *memory = aim_map_pages(1);
  memset(memory, 0x22, page);
  unsigned char host[256];
  memset(host, 0x33, sizeof host);
  cl_mem imp = aim_import_ok(env->context, CL_MEM_READ_WRITE, NULL, memory, page);
  cl_mem sub = kiln_test_sub_buffer(imp, 0, base_align, 256);
  cl_mem ord = kcb_buffer(env->context, page);
  cl_uchar fill = 0x11;
  assert_cl_success(clEnqueueFillBuffer(q, ord, &fill, 1, 0, page, 0, NULL, NULL));
  assert_cl_success(clFinish(q));

  const size_t zero[3] = {0, 0, 0}, region[3] = {16, 2, 1};
  cl_mem targets[] = {imp, sub};
  const char *names[] = {"an imported buffer", "a sub-buffer of an imported buffer"};
  for (size_t t = 0; t < 2; t++) {
    cl_mem x = targets[t];
    const char *n = names[t];
    cl_event ev = NULL;
    cl_int err;
    for (cl_bool blocking = CL_FALSE; blocking <= CL_TRUE; blocking++) {
      err = clEnqueueReadBuffer(q, x, blocking, 0, 64, host, 0, NULL, &ev);
      aim_expect_refused(err, ev, "clEnqueueReadBuffer", n);
      err = clEnqueueWriteBuffer(q, x, blocking, 0, 64, host, 0, NULL, &ev);
      aim_expect_refused(err, ev, "clEnqueueWriteBuffer", n);
      err = clEnqueueReadBufferRect(q, x, blocking, zero, zero, region, 0, 0, 0, 0, host, 0, NULL, &ev);
      aim_expect_refused(err, ev, "clEnqueueReadBufferRect", n);
      err = clEnqueueWriteBufferRect(q, x, blocking, zero, zero, region, 0, 0, 0, 0, host, 0, NULL, &ev);
      aim_expect_refused(err, ev, "clEnqueueWriteBufferRect", n);
      void *mapped = clEnqueueMapBuffer(q, x, blocking, CL_MAP_READ, 0, 64, 0, NULL, &ev, &err);
      assert_null(mapped);
      aim_expect_refused(err, ev, "clEnqueueMapBuffer (read)", n);
      mapped = clEnqueueMapBuffer(q, x, blocking, CL_MAP_WRITE_INVALIDATE_REGION, 0, 64, 0, NULL, &ev, &err);
      assert_null(mapped);
      aim_expect_refused(err, ev, "clEnqueueMapBuffer (write invalidate)", n);
    }
    err = clEnqueueCopyBuffer(q, x, ord, 0, 0, 64, 0, NULL, &ev);
    aim_expect_refused(err, ev, "clEnqueueCopyBuffer (source)", n);
    err = clEnqueueCopyBuffer(q, ord, x, 0, 0, 64, 0, NULL, &ev);
    aim_expect_refused(err, ev, "clEnqueueCopyBuffer (destination)", n);
    err = clEnqueueCopyBuffer(q, x, x, 0, 128, 64, 0, NULL, &ev);
    aim_expect_refused(err, ev, "clEnqueueCopyBuffer (both)", n);
    err = clEnqueueCopyBufferRect(q, x, ord, zero, zero, region, 0, 0, 0, 0, 0, NULL, &ev);
    aim_expect_refused(err, ev, "clEnqueueCopyBufferRect (source)", n);
    err = clEnqueueCopyBufferRect(q, ord, x, zero, zero, region, 0, 0, 0, 0, 0, NULL, &ev);
    aim_expect_refused(err, ev, "clEnqueueCopyBufferRect (destination)", n);
    cl_int pattern = 0x12345678;
    err = clEnqueueFillBuffer(q, x, &pattern, sizeof pattern, 0, 64, 0, NULL, &ev);
    aim_expect_refused(err, ev, "clEnqueueFillBuffer", n);
    err = clEnqueueUnmapMemObject(q, x, memory, 0, NULL, &ev);
    aim_expect_refused(err, ev, "clEnqueueUnmapMemObject", n);
    /* Even with a pointer that is mapped (from another buffer). */
    void *ord_map = clEnqueueMapBuffer(q, ord, CL_TRUE, CL_MAP_READ, 0, 64, 0, NULL, NULL, &err);
    assert_cl_success(err);
    err = clEnqueueUnmapMemObject(q, x, ord_map, 0, NULL, &ev);
    aim_expect_refused(err, ev, "clEnqueueUnmapMemObject (another buffer's mapping)", n);
    assert_cl_success(clEnqueueUnmapMemObject(q, ord, ord_map, 0, NULL, NULL));
    cl_uint maps = 9;
    assert_cl_success(clGetMemObjectInfo(x, CL_MEM_MAP_COUNT, sizeof maps, &maps, NULL));
    assert_int_equal(0, maps);
  }
  assert_cl_success(clFinish(q));
  aim_expect_bytes(memory, page, 0x22, "the imported memory after refused transfers");
  aim_expect_bytes(host, sizeof host, 0x33, "the host array after refused reads");
  unsigned char *got = malloc(page);
  kcb_read(q, ord, page, got);
  aim_expect_bytes(got, page, 0x11, "the ordinary buffer after refused copies");
  free(got);
  /* Still usable by kernels afterwards. */
  add_ints(q, sub, 256 / sizeof(cl_int), 1);
  assert_int_equal(0x22222223, ((cl_int *)(memory + base_align))[0]);
  assert_cl_success(clReleaseMemObject(sub));
  assert_cl_success(clReleaseMemObject(imp));
  assert_cl_success(clReleaseMemObject(ord));
  aim_unmap_pages(memory, 1);
}

static void test_command_buffer_transfers_refused(void **state) {
  struct kiln_test_env *env = *state;
  size_t page = aim_page();
  unsigned char *memory = aim_map_pages(1);
  memset(memory, 0x22, page);
  cl_mem imp = aim_import_ok(env->context, CL_MEM_READ_WRITE, NULL, memory, page);
  cl_mem sub = kiln_test_sub_buffer(imp, 0, base_align, 256);
  cl_mem ord = kcb_buffer(env->context, page);
  cl_command_buffer_khr cb = kcb_create(env->queue, 0);
  const size_t zero[3] = {0, 0, 0}, region[3] = {16, 2, 1};
  cl_int pattern = 0x01020304;
  cl_mem targets[] = {imp, sub};
  const char *names[] = {"an imported buffer", "a sub-buffer of an imported buffer"};
  for (size_t t = 0; t < 2; t++) {
    cl_mem x = targets[t];
    const char *n = names[t];
    cl_int err = kcb.clCommandCopyBufferKHR(cb, NULL, NULL, x, ord, 0, 0, 64, 0, NULL, NULL, NULL);
    aim_expect_refused(err, NULL, "clCommandCopyBufferKHR (source)", n);
    err = kcb.clCommandCopyBufferKHR(cb, NULL, NULL, ord, x, 0, 0, 64, 0, NULL, NULL, NULL);
    aim_expect_refused(err, NULL, "clCommandCopyBufferKHR (destination)", n);
    err = kcb.clCommandCopyBufferRectKHR(cb, NULL, NULL, x, ord, zero, zero, region, 0, 0, 0, 0, 0, NULL, NULL, NULL);
    aim_expect_refused(err, NULL, "clCommandCopyBufferRectKHR (source)", n);
    err = kcb.clCommandCopyBufferRectKHR(cb, NULL, NULL, ord, x, zero, zero, region, 0, 0, 0, 0, 0, NULL, NULL, NULL);
    aim_expect_refused(err, NULL, "clCommandCopyBufferRectKHR (destination)", n);
    err = kcb.clCommandFillBufferKHR(cb, NULL, NULL, x, &pattern, sizeof pattern, 0, 64, 0, NULL, NULL, NULL);
    aim_expect_refused(err, NULL, "clCommandFillBufferKHR", n);
  }
  /* The command buffer is still recording and what it holds does nothing to the import. */
  assert_int_equal(CL_COMMAND_BUFFER_STATE_RECORDING_KHR, kcb_state(cb));
  assert_cl_success(kcb.clCommandFillBufferKHR(cb, NULL, NULL, ord, &pattern, sizeof pattern, 0, page, 0, NULL, NULL,
                                               NULL));
  assert_cl_success(kcb.clFinalizeCommandBufferKHR(cb));
  assert_cl_success(kcb.clEnqueueCommandBufferKHR(0, NULL, cb, 0, NULL, NULL));
  assert_cl_success(clFinish(env->queue));
  aim_expect_bytes(memory, page, 0x22, "the imported memory after refused recordings");
  cl_int *got = malloc(page);
  kcb_read(env->queue, ord, page, got);
  for (size_t i = 0; i < page / sizeof(cl_int); i++) assert_int_equal(pattern, got[i]);
  free(got);
  assert_cl_success(kcb.clReleaseCommandBufferKHR(cb));
  assert_cl_success(clReleaseMemObject(sub));
  assert_cl_success(clReleaseMemObject(imp));
  assert_cl_success(clReleaseMemObject(ord));
  aim_unmap_pages(memory, 1);
}

/* ---- allowed uses ---- */

static void test_command_buffer_kernels(void **state) {
  struct kiln_test_env *env = *state;
  enum { N = 512 };
  cl_int *data = malloc(N * sizeof *data);
  for (int i = 0; i < N; i++) data[i] = i;
  cl_mem imp = aim_import_ok(env->context, CL_MEM_READ_WRITE, NULL, data, N * sizeof *data);
  cl_mem sub = kiln_test_sub_buffer(imp, 0, base_align, 64 * sizeof(cl_int));
  cl_mem ord = kcb_buffer(env->context, N * sizeof(cl_int));
  cl_kernel add = kcb_kernel(program, "add_int"), add_sub = kcb_kernel(program, "add_int"),
            copy = kcb_kernel(program, "copy_int");
  kcb_arg_mem(add, 0, imp);
  kcb_arg_int(add, 1, 3);
  kcb_arg_mem(add_sub, 0, sub);
  kcb_arg_int(add_sub, 1, 1000);
  kcb_arg_mem(copy, 0, imp);
  kcb_arg_mem(copy, 1, ord);
  cl_command_buffer_khr cb = kcb_create(env->queue, 0);
  size_t n = N, n_sub = 64;
  cl_sync_point_khr s1, s2;
  assert_cl_success(kcb.clCommandNDRangeKernelKHR(cb, NULL, NULL, add, 1, NULL, &n, NULL, 0, NULL, &s1, NULL));
  assert_cl_success(kcb.clCommandNDRangeKernelKHR(cb, NULL, NULL, add_sub, 1, NULL, &n_sub, NULL, 1, &s1, &s2, NULL));
  assert_cl_success(kcb.clCommandNDRangeKernelKHR(cb, NULL, NULL, copy, 1, NULL, &n, NULL, 1, &s2, NULL, NULL));
  assert_cl_success(kcb.clFinalizeCommandBufferKHR(cb));
  assert_cl_success(clReleaseMemObject(sub)); /* the command buffer holds what it uses */
  size_t first = base_align / sizeof(cl_int);
  for (int round = 0; round < 2; round++) {
    for (int i = 0; i < N; i++) data[i] = round ? -2 * i : i;
    assert_cl_success(kcb.clEnqueueCommandBufferKHR(0, NULL, cb, 0, NULL, NULL));
    assert_cl_success(clFinish(env->queue));
    cl_int *got = malloc(N * sizeof *got);
    kcb_read(env->queue, ord, N * sizeof *got, got);
    for (int i = 0; i < N; i++) {
      cl_int want = (round ? -2 * i : i) + 3 + ((size_t)i >= first && (size_t)i < first + 64 ? 1000 : 0);
      if (data[i] != want) fail_msg("round %d: imported element %d is %d, expected %d", round, i, data[i], want);
      assert_int_equal(want, got[i]);
    }
    free(got);
  }
  assert_cl_success(kcb.clReleaseCommandBufferKHR(cb));
  assert_cl_success(clReleaseKernel(add));
  assert_cl_success(clReleaseKernel(add_sub));
  assert_cl_success(clReleaseKernel(copy));
  assert_cl_success(clReleaseMemObject(imp));
  assert_cl_success(clReleaseMemObject(ord));
  free(data);
}

static void test_recorded_kernels(void **state) {
  struct kiln_test_env *env = *state;
  enum { N = 300 };
  /* Pages of their own: two small mallocs may share a page, and a second unaligned import
   * of a page is refused by design (test_arm_import_create checks that rule). */
  cl_int *a = kiln_test_host_alloc(N * sizeof *a), *b = kiln_test_host_alloc(N * sizeof *b);
  for (int i = 0; i < N; i++) {
    a[i] = i;
    b[i] = 10 * i;
  }
  cl_mem ia = aim_import_ok(env->context, CL_MEM_READ_WRITE, NULL, a, N * sizeof *a);
  cl_mem ib = aim_import_ok(env->context, CL_MEM_READ_WRITE, NULL, b, N * sizeof *b);
  cl_kernel k = qrq_kernel(program, "add_int");
  qrq_arg_mem(k, 0, ia);
  qrq_arg_int(k, 1, 4);
  cl_command_queue rq = qrq_recordable_queue(env);
  size_t n = N;
  cl_recording_qcom r = qrq_record(rq, k, 1, &n, NULL);
  for (int i = 0; i < N; i++) assert_int_equal(i, a[i]); /* recording runs nothing */
  qrq_replay(env->queue, r);
  for (int i = 0; i < N; i++) assert_int_equal(i + 4, a[i]);
  cl_array_arg_qcom update = qrq_arg(0, 0, sizeof ib, &ib);
  assert_cl_success(qrq_replay_args(env->queue, r, 1, &update));
  assert_cl_success(clFinish(env->queue));
  for (int i = 0; i < N; i++) {
    assert_int_equal(10 * i + 4, b[i]);
    assert_int_equal(i + 4, a[i]);
  }
  assert_cl_success(qrq.clReleaseRecordingQCOM(r));
  assert_cl_success(clReleaseCommandQueue(rq));
  assert_cl_success(clReleaseKernel(k));
  assert_cl_success(clReleaseMemObject(ia));
  assert_cl_success(clReleaseMemObject(ib));
  free(a);
  free(b);
}

static void test_migrate(void **state) {
  struct kiln_test_env *env = *state;
  enum { N = 256 };
  cl_int *data = malloc(N * sizeof *data);
  for (int i = 0; i < N; i++) data[i] = 7 * i;
  cl_mem imp = aim_import_ok(env->context, CL_MEM_READ_WRITE, NULL, data, N * sizeof *data);
  cl_mem sub = kiln_test_sub_buffer(imp, 0, base_align, 64);
  cl_mem both[] = {imp, sub};
  const cl_mem_migration_flags flags[] = {0, CL_MIGRATE_MEM_OBJECT_HOST};
  for (size_t f = 0; f < 2; f++) {
    cl_event ev = NULL;
    assert_cl_success(clEnqueueMigrateMemObjects(env->queue, 2, both, flags[f], 0, NULL, &ev));
    assert_non_null(ev);
    assert_cl_success(clWaitForEvents(1, &ev));
    cl_command_type type = 0;
    assert_cl_success(clGetEventInfo(ev, CL_EVENT_COMMAND_TYPE, sizeof type, &type, NULL));
    assert_int_equal(CL_COMMAND_MIGRATE_MEM_OBJECTS, type);
    assert_cl_success(clReleaseEvent(ev));
    for (int i = 0; i < N; i++) assert_int_equal(7 * i, data[i]);
  }
  assert_cl_success(
      clEnqueueMigrateMemObjects(env->queue, 1, &imp, CL_MIGRATE_MEM_OBJECT_CONTENT_UNDEFINED, 0, NULL, NULL));
  assert_cl_success(clFinish(env->queue));
  for (int i = 0; i < N; i++) data[i] = i;
  add_ints(env->queue, imp, N, 1);
  for (int i = 0; i < N; i++) assert_int_equal(i + 1, data[i]);
  assert_cl_success(clReleaseMemObject(sub));
  assert_cl_success(clReleaseMemObject(imp));
  free(data);
}

/* A command still holding a released import keeps it, and its page claim, alive. */
static void test_claim_held_by_pending_command(void **state) {
  struct kiln_test_env *env = *state;
  enum { N = 64 };
  unsigned char *p = aim_map_pages(1);
  cl_int *data = (cl_int *)(p + 64); /* unaligned import */
  for (int i = 0; i < N; i++) data[i] = i;
  cl_mem imp = aim_import_ok(env->context, CL_MEM_READ_WRITE, NULL, data, N * sizeof *data);
  atomic_int destroyed;
  aim_watch_destroyed(imp, &destroyed);
  cl_event gate = kiln_test_gate_new(env->context);
  cl_kernel k = kcb_kernel(program, "add_int");
  kcb_arg_mem(k, 0, imp);
  kcb_arg_int(k, 1, 50);
  size_t n = N;
  assert_cl_success(clEnqueueNDRangeKernel(env->queue, k, 1, NULL, &n, NULL, 1, &gate, NULL));
  assert_cl_success(clFlush(env->queue));
  assert_cl_success(clReleaseKernel(k));
  assert_cl_success(clReleaseMemObject(imp));
  assert_int_equal(0, atomic_load(&destroyed));
  for (int i = 0; i < N; i++) assert_int_equal(i, data[i]);
  aim_expect_error(CL_INVALID_OPERATION, env->context, CL_MEM_READ_WRITE, NULL, p + 2048, 16,
                   "same page as a released import a pending kernel still uses");
  assert_cl_success(clSetUserEventStatus(gate, CL_COMPLETE));
  assert_cl_success(clReleaseEvent(gate));
  assert_cl_success(clFinish(env->queue));
  aim_wait_destroyed(&destroyed, "import released while a kernel used it");
  for (int i = 0; i < N; i++) assert_int_equal(i + 50, data[i]);
  cl_mem again = aim_import_ok(env->context, CL_MEM_READ_WRITE, NULL, p + 2048, 16);
  assert_cl_success(clReleaseMemObject(again));
  aim_unmap_pages(p, 1);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      KILN_GATED_TEST(test_kernel_on_malloc),
      KILN_GATED_TEST(test_kernel_on_mmap),
      KILN_GATED_TEST(test_kernel_on_svm_allocation),
      KILN_GATED_TEST(test_kernel_on_unaligned_ranges),
      KILN_GATED_TEST(test_sub_buffers_of_imports),
      KILN_GATED_TEST(test_aliasing_imports),
      KILN_GATED_TEST(test_host_transfers_refused),
      KILN_GATED_TEST(test_command_buffer_transfers_refused),
      KILN_GATED_TEST(test_command_buffer_kernels),
      KILN_GATED_TEST(test_recorded_kernels),
      KILN_GATED_TEST(test_migrate),
      KILN_GATED_TEST(test_claim_held_by_pending_command),
  };
  return cmocka_run_group_tests(tests, setup, teardown);
}
