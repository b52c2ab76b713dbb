/* Kernels shaped for each rule of the work-item vectorizer (compiler/work_item_vectorize.cpp),
 * checked against host models: a float4 body over gathered elements (scalarized and widened),
 * uchar4 loads and stores at computed and consecutive addresses (packed into 32-bit accesses),
 * uchar3 and short3 stores (packed with a poison fourth element),
 * private arrays written per work-item and local slots written without a barrier (the loop
 * must stay correct whether or not it is marked parallel), atomics on one counter from every
 * work-item, and write-after-read of the same global element within a work-item. CTest runs
 * the suite as is (Kiln decides) and with KILN_WORK_ITEM_VECTORIZE=force (every loop that can
 * be widened is). Odd sizes leave remainders for the scalar tail loop. */
#include "kiln_test.h"
#include "kiln_test_program_fixture.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static const char *source =
    "kernel void blend(global const float4 *in, global const int *index, global float4 *out, float4 w) {\n"
    "  size_t i = get_global_id(0);\n"
    "  float4 a = in[index[i]], b = in[index[i] + 1];\n"
    "  out[i] = mad(a, w, b * (1.0f - w)) + (float4)(a.y, b.x, a.w, b.z);\n"
    "}\n"
    "kernel void swizzle_bytes(global const uchar4 *in, global const int *index, global uchar4 *out) {\n"
    "  size_t i = get_global_id(0);\n"
    "  uchar4 p = in[index[i]];\n"
    "  out[i] = (uchar4)(p.w, p.z + 1, p.y ^ 0x5a, p.x >> 1);\n"
    "}\n"
    "kernel void copy_vec3(global const uchar3 *a, global uchar3 *b, global const short3 *c, global short3 *d) {\n"
    "  size_t i = get_global_id(0);\n"
    "  b[i] = a[i] + (uchar3)(1, 2, 3);\n"
    "  d[i] = c[i] - (short3)(1, 2, 3);\n"
    "}\n"
    "kernel void private_table(global const int *in, global int *out) {\n"
    "  int t[8];\n"
    "  size_t i = get_global_id(0);\n"
    "  for (int k = 0; k < 8; k++) t[(k * 3 + (int)i) & 7] = in[i] + k;\n"
    "  out[i] = t[in[i] & 7] * 2 + t[(int)i & 7];\n"
    "}\n"
    "kernel void own_local_slot(global const float *in, global float *out, local float *slot) {\n"
    "  size_t l = get_local_id(0), i = get_global_id(0);\n"
    "  slot[l] = in[i] * 3.0f;\n"
    "  out[i] = slot[l] + 1.0f;\n"
    "}\n"
    "kernel void count_odd(global const int *in, global int *counter) {\n"
    "  if (in[get_global_id(0)] & 1) atomic_inc(counter);\n"
    "}\n"
    "kernel void update_in_place(global float2 *data) {\n"
    "  size_t i = get_global_id(0);\n"
    "  float2 v = data[i];\n"
    "  data[i] = (float2)(v.y, v.x) * 0.5f;\n"
    "  data[i].x += 1.0f;\n"
    "}\n";

#define N 1003 /* not a multiple of any vector width */

static int setup(void **state) { return kiln_program_fixture_setup(state, source); }
static int teardown(void **state) { return kiln_program_fixture_teardown(state); }
static cl_mem buffer(struct kiln_program_fixture *f, size_t bytes, const void *data) {
  return kiln_program_fixture_buffer(f, bytes, data);
}
static cl_kernel kernel(struct kiln_program_fixture *f, const char *name) { return kiln_program_fixture_kernel(f, name); }

static void run(struct kiln_program_fixture *f, cl_kernel k, size_t global, const size_t *local) {
  assert_cl_success(clEnqueueNDRangeKernel(f->env.queue, k, 1, NULL, &global, local, 0, NULL, NULL));
  assert_cl_success(clFinish(f->env.queue));
}

/* Pseudo-random indices into [0, range). */
static void random_indices(cl_int *index, size_t count, cl_int range, cl_uint seed) {
  for (size_t i = 0; i < count; i++) index[i] = (cl_int)(kiln_test_random(&seed) % (cl_uint)range);
}

static void test_float4_gather_blend(void **state) {
  struct kiln_program_fixture *f = *state;
  static cl_float in[(N + 1) * 4], out[N * 4];
  static cl_int index[N];
  for (size_t i = 0; i < (N + 1) * 4; i++) in[i] = (float)(i % 97) * 0.25f - 7.0f;
  random_indices(index, N, N, 11);
  cl_float w[4] = {0.25f, 0.5f, 0.75f, 1.0f};
  cl_mem bin = buffer(f, sizeof in, in), bindex = buffer(f, sizeof index, index), bout = buffer(f, sizeof out, NULL);
  cl_kernel k = kernel(f, "blend");
  assert_cl_success(clSetKernelArg(k, 0, sizeof bin, &bin));
  assert_cl_success(clSetKernelArg(k, 1, sizeof bindex, &bindex));
  assert_cl_success(clSetKernelArg(k, 2, sizeof bout, &bout));
  assert_cl_success(clSetKernelArg(k, 3, sizeof w, w));
  run(f, k, N, NULL);
  assert_cl_success(clEnqueueReadBuffer(f->env.queue, bout, CL_TRUE, 0, sizeof out, out, 0, NULL, NULL));
  for (size_t i = 0; i < N; i++) {
    const float *a = &in[index[i] * 4], *b = &in[(index[i] + 1) * 4];
    float swz[4] = {a[1], b[0], a[3], b[2]};
    for (int c = 0; c < 4; c++) {
      float expect = fmaf(a[c], w[c], b[c] * (1.0f - w[c])) + swz[c];
      /* mad may or may not fuse: allow its rounding difference */
      assert_true(fabsf(out[i * 4 + c] - expect) <= 1e-5f * (1.0f + fabsf(expect)));
    }
  }
  clReleaseKernel(k);
  clReleaseMemObject(bin);
  clReleaseMemObject(bindex);
  clReleaseMemObject(bout);
}

static void test_uchar4_gather_and_store(void **state) {
  struct kiln_program_fixture *f = *state;
  static cl_uchar in[N * 4], out[N * 4];
  static cl_int index[N];
  for (size_t i = 0; i < N * 4; i++) in[i] = (cl_uchar)(i * 37 + 5);
  random_indices(index, N, N, 23);
  cl_mem bin = buffer(f, sizeof in, in), bindex = buffer(f, sizeof index, index), bout = buffer(f, sizeof out, NULL);
  cl_kernel k = kernel(f, "swizzle_bytes");
  assert_cl_success(clSetKernelArg(k, 0, sizeof bin, &bin));
  assert_cl_success(clSetKernelArg(k, 1, sizeof bindex, &bindex));
  assert_cl_success(clSetKernelArg(k, 2, sizeof bout, &bout));
  run(f, k, N, NULL);
  assert_cl_success(clEnqueueReadBuffer(f->env.queue, bout, CL_TRUE, 0, sizeof out, out, 0, NULL, NULL));
  for (size_t i = 0; i < N; i++) {
    const cl_uchar *p = &in[index[i] * 4];
    assert_int_equal(out[i * 4 + 0], p[3]);
    assert_int_equal(out[i * 4 + 1], (cl_uchar)(p[2] + 1));
    assert_int_equal(out[i * 4 + 2], p[1] ^ 0x5a);
    assert_int_equal(out[i * 4 + 3], p[0] >> 1);
  }
  clReleaseKernel(k);
  clReleaseMemObject(bin);
  clReleaseMemObject(bindex);
  clReleaseMemObject(bout);
}

/* 3-element vectors of 8- and 16-bit elements are stored as 4 elements whose last is
 * poison: packed into one integer, that poison once made the whole store disappear. */
static void test_vec3_small_elements(void **state) {
  struct kiln_program_fixture *f = *state;
  static cl_uchar a[N * 4], b[N * 4];
  static cl_short c[N * 4], d[N * 4];
  for (size_t i = 0; i < N * 4; i++) {
    a[i] = (cl_uchar)(i * 13 + 1);
    c[i] = (cl_short)(i * 7 - 300);
  }
  cl_mem ba = buffer(f, sizeof a, a), bb = buffer(f, sizeof b, NULL), bc = buffer(f, sizeof c, c), bd = buffer(f, sizeof d, NULL);
  cl_kernel k = kernel(f, "copy_vec3");
  assert_cl_success(clSetKernelArg(k, 0, sizeof ba, &ba));
  assert_cl_success(clSetKernelArg(k, 1, sizeof bb, &bb));
  assert_cl_success(clSetKernelArg(k, 2, sizeof bc, &bc));
  assert_cl_success(clSetKernelArg(k, 3, sizeof bd, &bd));
  run(f, k, N, NULL);
  assert_cl_success(clEnqueueReadBuffer(f->env.queue, bb, CL_TRUE, 0, sizeof b, b, 0, NULL, NULL));
  assert_cl_success(clEnqueueReadBuffer(f->env.queue, bd, CL_TRUE, 0, sizeof d, d, 0, NULL, NULL));
  for (size_t i = 0; i < N; i++)
    for (int e = 0; e < 3; e++) {
      assert_int_equal(b[i * 4 + e], (cl_uchar)(a[i * 4 + e] + e + 1));
      assert_int_equal(d[i * 4 + e], (cl_short)(c[i * 4 + e] - e - 1));
    }
  clReleaseKernel(k);
  clReleaseMemObject(ba);
  clReleaseMemObject(bb);
  clReleaseMemObject(bc);
  clReleaseMemObject(bd);
}

static void test_private_arrays_stay_per_work_item(void **state) {
  struct kiln_program_fixture *f = *state;
  static cl_int in[N], out[N];
  cl_uint seed = 5;
  kiln_test_random_ints(&seed, in, N, 1000);
  cl_mem bin = buffer(f, sizeof in, in), bout = buffer(f, sizeof out, NULL);
  cl_kernel k = kernel(f, "private_table");
  assert_cl_success(clSetKernelArg(k, 0, sizeof bin, &bin));
  assert_cl_success(clSetKernelArg(k, 1, sizeof bout, &bout));
  run(f, k, N, NULL);
  assert_cl_success(clEnqueueReadBuffer(f->env.queue, bout, CL_TRUE, 0, sizeof out, out, 0, NULL, NULL));
  for (int i = 0; i < N; i++) {
    int t[8];
    for (int kk = 0; kk < 8; kk++) t[(kk * 3 + i) & 7] = in[i] + kk;
    assert_int_equal(out[i], t[in[i] & 7] * 2 + t[i & 7]);
  }
  clReleaseKernel(k);
  clReleaseMemObject(bin);
  clReleaseMemObject(bout);
}

static void test_local_slots_without_barrier(void **state) {
  struct kiln_program_fixture *f = *state;
  static cl_float in[N], out[N];
  for (int i = 0; i < N; i++) in[i] = (float)i * 0.5f;
  cl_mem bin = buffer(f, sizeof in, in), bout = buffer(f, sizeof out, NULL);
  cl_kernel k = kernel(f, "own_local_slot");
  assert_cl_success(clSetKernelArg(k, 0, sizeof bin, &bin));
  assert_cl_success(clSetKernelArg(k, 1, sizeof bout, &bout));
  size_t local = 59; /* 1003 = 17 x 59 */
  assert_cl_success(clSetKernelArg(k, 2, local * sizeof(cl_float), NULL));
  run(f, k, N, &local);
  assert_cl_success(clEnqueueReadBuffer(f->env.queue, bout, CL_TRUE, 0, sizeof out, out, 0, NULL, NULL));
  for (int i = 0; i < N; i++) assert_true(out[i] == in[i] * 3.0f + 1.0f);
  clReleaseKernel(k);
  clReleaseMemObject(bin);
  clReleaseMemObject(bout);
}

static void test_atomics_from_every_work_item(void **state) {
  struct kiln_program_fixture *f = *state;
  static cl_int in[N];
  cl_uint seed = 77;
  kiln_test_random_ints(&seed, in, N, 1 << 20);
  cl_int odd = 0, zero = 0;
  for (int i = 0; i < N; i++) odd += in[i] & 1;
  cl_mem bin = buffer(f, sizeof in, in), counter = buffer(f, sizeof zero, &zero);
  cl_kernel k = kernel(f, "count_odd");
  assert_cl_success(clSetKernelArg(k, 0, sizeof bin, &bin));
  assert_cl_success(clSetKernelArg(k, 1, sizeof counter, &counter));
  run(f, k, N, NULL);
  cl_int got = -1;
  assert_cl_success(clEnqueueReadBuffer(f->env.queue, counter, CL_TRUE, 0, sizeof got, &got, 0, NULL, NULL));
  assert_int_equal(got, odd);
  clReleaseKernel(k);
  clReleaseMemObject(bin);
  clReleaseMemObject(counter);
}

static void test_read_then_write_same_element(void **state) {
  struct kiln_program_fixture *f = *state;
  static cl_float data[N * 2], out[N * 2];
  for (int i = 0; i < N * 2; i++) data[i] = (float)(i % 13) - 3.0f;
  cl_mem b = buffer(f, sizeof data, data);
  cl_kernel k = kernel(f, "update_in_place");
  assert_cl_success(clSetKernelArg(k, 0, sizeof b, &b));
  run(f, k, N, NULL);
  assert_cl_success(clEnqueueReadBuffer(f->env.queue, b, CL_TRUE, 0, sizeof out, out, 0, NULL, NULL));
  for (int i = 0; i < N; i++) {
    assert_true(out[i * 2] == data[i * 2 + 1] * 0.5f + 1.0f);
    assert_true(out[i * 2 + 1] == data[i * 2] * 0.5f);
  }
  clReleaseKernel(k);
  clReleaseMemObject(b);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_float4_gather_blend),
      cmocka_unit_test(test_uchar4_gather_and_store),
      cmocka_unit_test(test_vec3_small_elements),
      cmocka_unit_test(test_private_arrays_stay_per_work_item),
      cmocka_unit_test(test_local_slots_without_barrier),
      cmocka_unit_test(test_atomics_from_every_work_item),
      cmocka_unit_test(test_read_then_write_same_element),
  };
  return cmocka_run_group_tests(tests, setup, teardown);
}
