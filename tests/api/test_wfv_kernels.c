/* Kernels shaped for each rule of whole-function vectorization (compiler/wfv/), checked
 * against host models for several local sizes (none, 1, 5, 13, 16, 29, 64: below, at and
 * above the vector widths, and not multiples of them, so that whole wide vectors, the one
 * narrower vector and the scalar rest all run: 29 = 16 + 8 + 5 with AVX2): loops whose lanes leave at different iterations, with values used after them (each
 * lane's last one, also of a counter that is the same for all lanes inside the loop);
 * divergent branches nested in uniform loops and early returns; a divergent loop inside a
 * divergent branch; a uniform loop and a uniform load inside a divergent branch (skipped,
 * and loaded, only when some lane gets there); `a && b && c` chains mixing uniform and
 * divergent conditions on ids that go negative (unsigned views of them must not be taken as
 * consecutive); private arrays indexed by data; atomics in divergent loops; strided and
 * gathered accesses; a 2D float kernel; compares of ids with uniform bounds (64-bit ids that
 * wrap within a vector, signed and 8-bit ones); varying values stored to one address (by
 * one lane, some, all); masked loads at a buffer that ends where an inaccessible page
 * begins; full and partial groups of a kernel with a required work-group size. CTest runs
 * the suite as is (Kiln decides), with KILN_VECTORIZE=0 (no vectorization: the same
 * answers) and with other vector widths. */
#include "kiln_test.h"
#include "kiln_test_objects.h"
#include "kiln_test_program_fixture.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/auxv.h>

static const char *source =
    /* Collatz steps: a data-dependent trip count per work-item */
    "kernel void collatz(global const int *in, global int *steps, global int *peak) {\n"
    "  size_t i = get_global_id(0);\n"
    "  int v = in[i], n = 0, top = v;\n"
    "  while (v != 1 && n < 500) { v = (v & 1) ? 3 * v + 1 : v / 2; top = max(top, v); n++; }\n"
    "  steps[i] = n; peak[i] = top;\n"
    "}\n"
    /* branches in a uniform loop, and an early return */
    "kernel void branches_in_loop(global const int *in, global int *out, int n, int limit) {\n"
    "  size_t i = get_global_id(0);\n"
    "  if (i >= (size_t)limit) return;\n"
    "  int acc = 0;\n"
    "  for (int k = 0; k < n; k++) {\n"
    "    int x = in[i] + k;\n"
    "    if (x % 3 == 0) acc += x;\n"
    "    else if (x % 3 == 1) acc ^= x << 1;\n"
    "    else { acc -= k; if (acc < -1000) acc = -acc; }\n"
    "  }\n"
    "  out[i] = acc;\n"
    "}\n"
    /* a divergent loop inside a divergent branch */
    "kernel void loop_in_branch(global const int *in, global int *out) {\n"
    "  size_t i = get_global_id(0);\n"
    "  int v = in[i], r = -1;\n"
    "  if (v % 4 != 0) { r = 0; while (v > 0) { r += v & 3; v >>= 2; } }\n"
    "  out[i] = r;\n"
    "}\n"
    /* a uniform loop and a uniform load in a divergent branch */
    "kernel void uniform_in_branch(global const int *table, global int *out, int n) {\n"
    "  size_t i = get_global_id(0);\n"
    "  int acc = (int)i;\n"
    "  if (i % 3 != 0) { int scale = table[0]; for (int k = 1; k < n; k++) acc += table[k] * scale; }\n"
    "  out[i] = acc;\n"
    "}\n"
    /* chains of uniform and divergent conditions on ids that go negative */
    "kernel void window(global const int *in, global int *out, int w, int h) {\n"
    "  int x = (int)get_global_id(0) - 2, y = (int)get_global_id(1) - 1;\n"
    "  size_t o = get_global_id(1) * get_global_size(0) + get_global_id(0);\n"
    "  int s = 0;\n"
    "  for (int d = -1; d <= 1; d++)\n"
    "    if (x + d >= 0 && x + d < w && y >= 0 && y < h) s += in[y * w + x + d];\n"
    "  out[o] = s;\n"
    "}\n"
    /* a private array indexed by data */
    "kernel void private_array(global const int *in, global int *out) {\n"
    "  size_t i = get_global_id(0);\n"
    "  int t[16];\n"
    "  for (int k = 0; k < 16; k++) t[k] = in[i] * k + (int)i;\n"
    "  int s = 0;\n"
    "  for (int k = 0; k < 4; k++) s += t[(in[i] + k * 5) & 15];\n"
    "  out[i] = s;\n"
    "}\n"
    /* atomics in a divergent loop */
    "kernel void histogram(global const int *in, global int *bins) {\n"
    "  size_t i = get_global_id(0);\n"
    "  for (int k = 0; k < in[i] % 5; k++) atomic_add(&bins[(i + k) % 8], 1);\n"
    "}\n"
    /* strided and gathered accesses in a loop */
    "kernel void strided(global const int *in, global const int *index, global int *out, int n) {\n"
    "  size_t i = get_global_id(0);\n"
    "  int s = 0;\n"
    "  for (int k = 0; k < n; k++) s += in[3 * i + k] * in[index[i] + k];\n"
    "  out[2 * i + 1] = s; out[2 * i] = -s;\n"
    "}\n"
    /* every integer compare of an id (stride 1) with a bound the same for all lanes, in a
     * loop over bounds: 64-bit ids that wrap around past ULONG_MAX within a vector, signed
     * ints below and above the bound, 8-bit ids (lane numbers compared with a count) */
    "kernel void id_compares(global uint *out, ulong base, ulong ub, int ibase, int ib, uchar cb, int rounds) {\n"
    "  size_t g = get_global_id(0);\n"
    "  ulong x = base + g;\n"
    "  int y = ibase + (int)g;\n"
    "  uchar z = (uchar)(g + 250);\n"
    "  uint r = 0;\n"
    "  for (int k = 0; k < rounds; k++) {\n"
    "    ulong u = ub + (ulong)(k * 7); int v = ib - k * 5; uchar c = (uchar)(cb + k * 3);\n"
    "    r = r * 3u + (uint)(x < u) + 2u * (x <= u) + 4u * (x > u) + 8u * (x >= u) + 16u * (x == u) + 32u * (x != u)\n"
    "        + 64u * (u < x) + 128u * (u >= x);\n"
    "    r = r * 5u + (uint)(y < v) + 2u * (y <= v) + 4u * (y > v) + 8u * (y >= v) + 16u * (y == v) + 32u * (v > y);\n"
    "    r = r * 7u + (uint)(z < c) + 2u * (z == c) + 4u * (z >= c);\n"
    "    r = r * 5u + (uint)((uint)x == (uint)u) + 2u * ((int)g == 17 + k) + 4u * ((uint)x < (uint)u);\n"
    "  }\n"
    "  out[g] = r;\n"
    "}\n"
    /* 2D: a small matrix product */
    "kernel void matmul(int n, global const float *a, global const float *b, global float *c) {\n"
    "  int col = get_global_id(0), row = get_global_id(1);\n"
    "  float sum = 0.0f;\n"
    "  for (int k = 0; k < n; k++) sum += a[row * n + k] * b[k * n + col];\n"
    "  c[row * n + col] = sum;\n"
    "}\n"
    /* varying values stored to one address per group: by one lane, by some lanes (any of
     * them may win: the writes race), by every lane */
    "kernel void one_address(global const int *in, global int *out, int rounds) {\n"
    "  size_t i = get_global_id(0), l = get_local_id(0), g = get_group_id(0);\n"
    "  int v = in[i];\n"
    "  for (int k = 0; k < rounds; k++) v = v * 3 + k;\n"
    "  if (l == 3) out[3 * g] = v;\n"
    "  if (in[i] % 4 == 1) out[3 * g + 1] = (int)i;\n"
    "  out[3 * g + 2] = (int)l + 1000;\n"
    "}\n"
    /* masked loads whose vector runs past the buffer's end */
    "kernel void page_end(global const float *in, global float *out, int n, int rounds) {\n"
    "  size_t i = get_global_id(0);\n"
    "  float v = 0.0f;\n"
    "  for (int r = 0; r < rounds; r++)\n"
    "    if ((int)i < n) v += in[i] * (float)(r + 1);\n"
    "  out[i] = v;\n"
    "}\n";

#define N 1003

static int setup(void **state) { return kiln_program_fixture_setup(state, source); }
static int teardown(void **state) { return kiln_program_fixture_teardown(state); }
static cl_mem buffer(struct kiln_program_fixture *f, size_t bytes, const void *data) {
  return kiln_program_fixture_buffer(f, bytes, data);
}
static cl_kernel kernel(struct kiln_program_fixture *f, const char *name) { return kiln_program_fixture_kernel(f, name); }

static void set_args(cl_kernel k, int count, ...) {
  va_list ap;
  va_start(ap, count);
  for (int i = 0; i < count; i++) {
    cl_mem m = va_arg(ap, cl_mem);
    assert_cl_success(clSetKernelArg(k, (cl_uint)i, sizeof m, &m));
  }
  va_end(ap);
}

/* The 1D local sizes each kernel runs with (0: none given); the global size is rounded up
 * to a multiple of the local size and the kernels' models cover the rounded size. */
static const size_t locals[] = {0, 1, 5, 13, 16, 29, 64};
#define LOCALS (sizeof locals / sizeof locals[0])

static size_t run_1d(struct kiln_program_fixture *f, cl_kernel k, size_t n, size_t local) {
  size_t global = local ? (n + local - 1) / local * local : n;
  assert_cl_success(clEnqueueNDRangeKernel(f->env.queue, k, 1, NULL, &global, local ? &local : NULL, 0, NULL, NULL));
  assert_cl_success(clFinish(f->env.queue));
  return global;
}

static void read(struct kiln_program_fixture *f, cl_mem m, size_t bytes, void *out) {
  assert_cl_success(clEnqueueReadBuffer(f->env.queue, m, CL_TRUE, 0, bytes, out, 0, NULL, NULL));
}

#define MAXG (N + 64)

static void test_divergent_loop_live_outs(void **state) {
  struct kiln_program_fixture *f = *state;
  static cl_int in[MAXG], steps[MAXG], peak[MAXG];
  for (size_t i = 0; i < MAXG; i++) in[i] = (cl_int)(i * 7 % 911) + 1;
  cl_mem bin = buffer(f, sizeof in, in), bs = buffer(f, sizeof steps, NULL), bp = buffer(f, sizeof peak, NULL);
  cl_kernel k = kernel(f, "collatz");
  set_args(k, 3, bin, bs, bp);
  for (size_t l = 0; l < LOCALS; l++) {
    size_t g = run_1d(f, k, N, locals[l]);
    read(f, bs, sizeof steps, steps);
    read(f, bp, sizeof peak, peak);
    for (size_t i = 0; i < g; i++) {
      int v = in[i], n = 0, top = v;
      while (v != 1 && n < 500) {
        v = (v & 1) ? 3 * v + 1 : v / 2;
        top = v > top ? v : top;
        n++;
      }
      assert_int_equal(steps[i], n);
      assert_int_equal(peak[i], top);
    }
  }
  clReleaseKernel(k);
  clReleaseMemObject(bin);
  clReleaseMemObject(bs);
  clReleaseMemObject(bp);
}

static void test_branches_in_uniform_loop(void **state) {
  struct kiln_program_fixture *f = *state;
  static cl_int in[MAXG], out[MAXG];
  for (size_t i = 0; i < MAXG; i++) in[i] = (cl_int)(i * 13 % 101) - 50;
  cl_mem bin = buffer(f, sizeof in, in), bout = buffer(f, sizeof out, NULL);
  cl_kernel k = kernel(f, "branches_in_loop");
  set_args(k, 2, bin, bout);
  cl_int n = 37, limit = N - 200;
  assert_cl_success(clSetKernelArg(k, 2, sizeof n, &n));
  assert_cl_success(clSetKernelArg(k, 3, sizeof limit, &limit));
  for (size_t l = 0; l < LOCALS; l++) {
    for (size_t i = 0; i < MAXG; i++) out[i] = 12345;
    assert_cl_success(clEnqueueWriteBuffer(f->env.queue, bout, CL_TRUE, 0, sizeof out, out, 0, NULL, NULL));
    size_t g = run_1d(f, k, N, locals[l]);
    read(f, bout, sizeof out, out);
    for (size_t i = 0; i < g; i++) {
      if (i >= (size_t)limit) {
        assert_int_equal(out[i], 12345); /* returned early: untouched */
        continue;
      }
      int acc = 0;
      for (int kk = 0; kk < n; kk++) {
        int x = in[i] + kk;
        if (x % 3 == 0) acc += x;
        else if (x % 3 == 1) acc ^= x << 1;
        else {
          acc -= kk;
          if (acc < -1000) acc = -acc;
        }
      }
      assert_int_equal(out[i], acc);
    }
  }
  clReleaseKernel(k);
  clReleaseMemObject(bin);
  clReleaseMemObject(bout);
}

static void test_divergent_loop_in_branch(void **state) {
  struct kiln_program_fixture *f = *state;
  static cl_int in[MAXG], out[MAXG];
  for (size_t i = 0; i < MAXG; i++) in[i] = (cl_int)((i * 2654435761u) >> 8 & 0xfffff);
  cl_mem bin = buffer(f, sizeof in, in), bout = buffer(f, sizeof out, NULL);
  cl_kernel k = kernel(f, "loop_in_branch");
  set_args(k, 2, bin, bout);
  for (size_t l = 0; l < LOCALS; l++) {
    size_t g = run_1d(f, k, N, locals[l]);
    read(f, bout, sizeof out, out);
    for (size_t i = 0; i < g; i++) {
      int v = in[i], r = -1;
      if (v % 4 != 0) {
        r = 0;
        while (v > 0) {
          r += v & 3;
          v >>= 2;
        }
      }
      assert_int_equal(out[i], r);
    }
  }
  clReleaseKernel(k);
  clReleaseMemObject(bin);
  clReleaseMemObject(bout);
}

static void test_uniform_work_in_divergent_branch(void **state) {
  struct kiln_program_fixture *f = *state;
  static cl_int table[64], out[MAXG];
  for (int i = 0; i < 64; i++) table[i] = i * 3 - 20;
  cl_mem bt = buffer(f, sizeof table, table), bout = buffer(f, sizeof out, NULL);
  cl_kernel k = kernel(f, "uniform_in_branch");
  set_args(k, 2, bt, bout);
  cl_int n = 64;
  assert_cl_success(clSetKernelArg(k, 2, sizeof n, &n));
  for (size_t l = 0; l < LOCALS; l++) {
    size_t g = run_1d(f, k, N, locals[l]);
    read(f, bout, sizeof out, out);
    for (size_t i = 0; i < g; i++) {
      int acc = (int)i;
      if (i % 3 != 0)
        for (int kk = 1; kk < n; kk++) acc += table[kk] * table[0];
      assert_int_equal(out[i], acc);
    }
  }
  clReleaseKernel(k);
  clReleaseMemObject(bt);
  clReleaseMemObject(bout);
}

static void test_condition_chains_on_negative_ids(void **state) {
  struct kiln_program_fixture *f = *state;
  enum { W = 37, H = 11, GX = 48, GY = 16 };
  static cl_int in[W * H], out[GX * GY];
  for (int i = 0; i < W * H; i++) in[i] = i * 5 + 1;
  cl_mem bin = buffer(f, sizeof in, in), bout = buffer(f, sizeof out, NULL);
  cl_kernel k = kernel(f, "window");
  set_args(k, 2, bin, bout);
  cl_int w = W, h = H;
  assert_cl_success(clSetKernelArg(k, 2, sizeof w, &w));
  assert_cl_success(clSetKernelArg(k, 3, sizeof h, &h));
  const size_t local2[][2] = {{0, 0}, {16, 4}, {8, 2}, {3, 1}, {48, 1}};
  for (size_t l = 0; l < sizeof local2 / sizeof local2[0]; l++) {
    size_t global[2] = {GX, GY};
    assert_cl_success(clEnqueueNDRangeKernel(f->env.queue, k, 2, NULL, global, local2[l][0] ? local2[l] : NULL, 0,
                                             NULL, NULL));
    read(f, bout, sizeof out, out);
    for (int gy = 0; gy < GY; gy++)
      for (int gx = 0; gx < GX; gx++) {
        int x = gx - 2, y = gy - 1, s = 0;
        for (int d = -1; d <= 1; d++)
          if (x + d >= 0 && x + d < W && y >= 0 && y < H) s += in[y * W + x + d];
        assert_int_equal(out[gy * GX + gx], s);
      }
  }
  clReleaseKernel(k);
  clReleaseMemObject(bin);
  clReleaseMemObject(bout);
}

static void test_private_array_by_data(void **state) {
  struct kiln_program_fixture *f = *state;
  static cl_int in[MAXG], out[MAXG];
  for (size_t i = 0; i < MAXG; i++) in[i] = (cl_int)(i * 29 % 1000);
  cl_mem bin = buffer(f, sizeof in, in), bout = buffer(f, sizeof out, NULL);
  cl_kernel k = kernel(f, "private_array");
  set_args(k, 2, bin, bout);
  for (size_t l = 0; l < LOCALS; l++) {
    size_t g = run_1d(f, k, N, locals[l]);
    read(f, bout, sizeof out, out);
    for (size_t i = 0; i < g; i++) {
      int t[16], s = 0;
      for (int kk = 0; kk < 16; kk++) t[kk] = in[i] * kk + (int)i;
      for (int kk = 0; kk < 4; kk++) s += t[(in[i] + kk * 5) & 15];
      assert_int_equal(out[i], s);
    }
  }
  clReleaseKernel(k);
  clReleaseMemObject(bin);
  clReleaseMemObject(bout);
}

static void test_atomics_in_divergent_loop(void **state) {
  struct kiln_program_fixture *f = *state;
  static cl_int in[MAXG];
  for (size_t i = 0; i < MAXG; i++) in[i] = (cl_int)(i * 31 % 17);
  cl_mem bin = buffer(f, sizeof in, in), bins = buffer(f, 8 * sizeof(cl_int), NULL);
  cl_kernel k = kernel(f, "histogram");
  set_args(k, 2, bin, bins);
  for (size_t l = 0; l < LOCALS; l++) {
    cl_int zero[8] = {0}, got[8], want[8] = {0};
    assert_cl_success(clEnqueueWriteBuffer(f->env.queue, bins, CL_TRUE, 0, sizeof zero, zero, 0, NULL, NULL));
    size_t g = run_1d(f, k, N, locals[l]);
    read(f, bins, sizeof got, got);
    for (size_t i = 0; i < g; i++)
      for (int kk = 0; kk < in[i] % 5; kk++) want[(i + (size_t)kk) % 8]++;
    for (int b = 0; b < 8; b++) assert_int_equal(got[b], want[b]);
  }
  clReleaseKernel(k);
  clReleaseMemObject(bin);
  clReleaseMemObject(bins);
}

static void test_strided_and_gathered(void **state) {
  struct kiln_program_fixture *f = *state;
  enum { K = 9 };
  static cl_int in[3 * MAXG + K], index[MAXG], out[2 * MAXG];
  for (size_t i = 0; i < 3 * MAXG + K; i++) in[i] = (cl_int)(i % 23) - 11;
  for (size_t i = 0; i < MAXG; i++) index[i] = (cl_int)((i * 577) % (3 * MAXG));
  cl_mem bin = buffer(f, sizeof in, in), bidx = buffer(f, sizeof index, index), bout = buffer(f, sizeof out, NULL);
  cl_kernel k = kernel(f, "strided");
  set_args(k, 3, bin, bidx, bout);
  cl_int n = K;
  assert_cl_success(clSetKernelArg(k, 3, sizeof n, &n));
  for (size_t l = 0; l < LOCALS; l++) {
    size_t g = run_1d(f, k, N, locals[l]);
    read(f, bout, sizeof out, out);
    for (size_t i = 0; i < g; i++) {
      int s = 0;
      for (int kk = 0; kk < K; kk++) s += in[3 * i + kk] * in[index[i] + kk];
      assert_int_equal(out[2 * i + 1], s);
      assert_int_equal(out[2 * i], -s);
    }
  }
  clReleaseKernel(k);
  clReleaseMemObject(bin);
  clReleaseMemObject(bidx);
  clReleaseMemObject(bout);
}

static void test_matrix_product_2d(void **state) {
  struct kiln_program_fixture *f = *state;
  enum { M = 60 };
  static cl_float a[M * M], b[M * M], c[M * M];
  for (int i = 0; i < M * M; i++) {
    a[i] = (float)(i % 13) * 0.25f - 1.0f;
    b[i] = (float)(i % 7) * 0.5f - 1.5f;
  }
  cl_mem ba = buffer(f, sizeof a, a), bb = buffer(f, sizeof b, b), bc = buffer(f, sizeof c, NULL);
  cl_kernel k = kernel(f, "matmul");
  cl_int n = M;
  assert_cl_success(clSetKernelArg(k, 0, sizeof n, &n));
  assert_cl_success(clSetKernelArg(k, 1, sizeof ba, &ba));
  assert_cl_success(clSetKernelArg(k, 2, sizeof bb, &bb));
  assert_cl_success(clSetKernelArg(k, 3, sizeof bc, &bc));
  const size_t local2[][2] = {{0, 0}, {20, 3}, {12, 5}, {60, 1}, {1, 60}};
  for (size_t l = 0; l < sizeof local2 / sizeof local2[0]; l++) {
    size_t global[2] = {M, M};
    memset(c, 0, sizeof c);
    assert_cl_success(clEnqueueWriteBuffer(f->env.queue, bc, CL_TRUE, 0, sizeof c, c, 0, NULL, NULL));
    assert_cl_success(clEnqueueNDRangeKernel(f->env.queue, k, 2, NULL, global, local2[l][0] ? local2[l] : NULL, 0,
                                             NULL, NULL));
    read(f, bc, sizeof c, c);
    for (int row = 0; row < M; row++)
      for (int col = 0; col < M; col++) {
        float sum = 0.0f;
        for (int kk = 0; kk < M; kk++) sum += a[row * M + kk] * b[kk * M + col];
        /* exact in float: every product and partial sum is a multiple of 1/8 below 2^11 */
        assert_true(c[row * M + col] == sum);
      }
  }
  clReleaseKernel(k);
  clReleaseMemObject(ba);
  clReleaseMemObject(bb);
  clReleaseMemObject(bc);
}

static uint32_t id_compares_model(size_t g, uint64_t base, uint64_t ub, int32_t ibase, int32_t ib, uint8_t cb) {
  uint64_t x = base + g;
  int32_t y = ibase + (int32_t)g;
  uint8_t z = (uint8_t)(g + 250);
  uint32_t r = 0;
  for (int k = 0; k < 3; k++) {
    uint64_t u = ub + (uint64_t)(k * 7);
    int32_t v = ib - k * 5;
    uint8_t c = (uint8_t)(cb + k * 3);
    r = r * 3u + (x < u) + 2u * (x <= u) + 4u * (x > u) + 8u * (x >= u) + 16u * (x == u) + 32u * (x != u) + 64u * (u < x) +
        128u * (u >= x);
    r = r * 5u + (y < v) + 2u * (y <= v) + 4u * (y > v) + 8u * (y >= v) + 16u * (y == v) + 32u * (v > y);
    r = r * 7u + (z < c) + 2u * (z == c) + 4u * (z >= c);
    r = r * 5u + ((uint32_t)x == (uint32_t)u) + 2u * ((int32_t)g == 17 + k) + 4u * ((uint32_t)x < (uint32_t)u);
  }
  return r;
}

static void test_id_compares(void **state) {
  struct kiln_program_fixture *f = *state;
  static cl_uint out[MAXG];
  cl_mem bout = buffer(f, sizeof out, NULL);
  cl_kernel k = kernel(f, "id_compares");
  set_args(k, 1, bout);
  cl_int rounds = 3; /* a kernel argument: a loop the compiler cannot unroll, so WFV takes it */
  assert_cl_success(clSetKernelArg(k, 6, sizeof rounds, &rounds));
  /* bounds before, inside and after the ids, ids that wrap, signed bounds around them */
  const struct { cl_ulong base, ub; cl_int ibase, ib; cl_uchar cb; } cases[] = {
      {0, 0, -10, -20, 0},        {0, 5, -10, 3, 7},         {100, 37, 0, 500, 255},
      {0, 1000, -1000, 0, 128},   {~(cl_ulong)0 - 40, 3, 2147483647 - 1100, 2147483647 - 600, 251},
      {~(cl_ulong)0 - 8, ~(cl_ulong)0 - 2, -2147483647, -2147483600, 4}, /* ib - k * 5 stays in range */
      {0xfffffff0u, 0x1fffffffau, 0, 0, 0}, /* the low 32 bits wrap within a vector */
  };
  for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
    assert_cl_success(clSetKernelArg(k, 1, sizeof(cl_ulong), &cases[c].base));
    assert_cl_success(clSetKernelArg(k, 2, sizeof(cl_ulong), &cases[c].ub));
    assert_cl_success(clSetKernelArg(k, 3, sizeof(cl_int), &cases[c].ibase));
    assert_cl_success(clSetKernelArg(k, 4, sizeof(cl_int), &cases[c].ib));
    assert_cl_success(clSetKernelArg(k, 5, sizeof(cl_uchar), &cases[c].cb));
    for (size_t l = 0; l < LOCALS; l++) {
      size_t g = run_1d(f, k, N, locals[l]);
      read(f, bout, sizeof out, out);
      for (size_t i = 0; i < g; i++) {
        uint32_t want = id_compares_model(i, cases[c].base, cases[c].ub, cases[c].ibase, cases[c].ib, cases[c].cb);
        if (out[i] != want) fail_msg("case %zu local %zu item %zu: got %u, want %u", c, locals[l], i, out[i], want);
      }
    }
  }
  clReleaseKernel(k);
  clReleaseMemObject(bout);
}

static void test_stores_to_one_address(void **state) {
  struct kiln_program_fixture *f = *state;
  static cl_int in[MAXG], out[3 * MAXG];
  for (size_t i = 0; i < MAXG; i++) in[i] = (cl_int)(i * 7 % 13);
  cl_mem bin = buffer(f, sizeof in, in), bout = buffer(f, sizeof out, NULL);
  cl_kernel k = kernel(f, "one_address");
  set_args(k, 2, bin, bout);
  cl_int rounds = 2;
  assert_cl_success(clSetKernelArg(k, 2, sizeof rounds, &rounds));
  for (size_t l = 1; l < LOCALS; l++) {
    size_t local = locals[l];
    memset(out, 0xff, sizeof out); /* -1: not written */
    assert_cl_success(clEnqueueWriteBuffer(f->env.queue, bout, CL_TRUE, 0, sizeof out, out, 0, NULL, NULL));
    size_t global = run_1d(f, k, N, local);
    read(f, bout, sizeof out, out);
    for (size_t g = 0; g < global / local; g++) {
      cl_int want = -1;
      if (local > 3) {
        want = in[g * local + 3];
        for (int r = 0; r < rounds; r++) want = want * 3 + r;
      }
      if (out[3 * g] != want) fail_msg("local %zu group %zu: lane 3 stored %d, want %d", local, g, out[3 * g], want);
      cl_int some = out[3 * g + 1];
      bool writer = false, any = false;
      for (size_t i = g * local; i < (g + 1) * local; i++) {
        any |= in[i] % 4 == 1;
        writer |= in[i] % 4 == 1 && some == (cl_int)i;
      }
      if (any ? !writer : some != -1) fail_msg("local %zu group %zu: %d is not from a storing work-item", local, g, some);
      cl_int every = out[3 * g + 2];
      if (every < 1000 || every >= 1000 + (cl_int)local)
        fail_msg("local %zu group %zu: %d is not from a work-item of the group", local, g, every);
    }
  }
  clReleaseKernel(k);
  clReleaseMemObject(bin);
  clReleaseMemObject(bout);
}

/* The input ends where an inaccessible page starts (a zero-copy buffer over it): the last
 * vectors' lanes past n are off and must not be read (masked_global_loads.cpp loads whole
 * vectors only within one page). */
static void test_masked_loads_at_a_page_end(void **state) {
  struct kiln_program_fixture *f = *state;
  long page = (long)getauxval(AT_PAGESZ);
  char *pages = mmap(NULL, 3 * (size_t)page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  assert_true(pages != MAP_FAILED);
  assert_int_equal(mprotect(pages + 2 * page, (size_t)page, PROT_NONE), 0);
  cl_int err, rounds = 3;
  for (cl_int n = 1; n <= 1000; n += 37) {
    float *in = (float *)(pages + 2 * page) - n;
    for (cl_int i = 0; i < n; i++) in[i] = (float)i + 0.5f;
    cl_mem bin = clCreateBuffer(f->env.context, CL_MEM_READ_ONLY | CL_MEM_USE_HOST_PTR, (size_t)n * sizeof(float), in, &err);
    assert_cl_success(err);
    static float out[1024];
    cl_mem bout = buffer(f, sizeof out, NULL);
    cl_kernel k = kernel(f, "page_end");
    set_args(k, 2, bin, bout);
    assert_cl_success(clSetKernelArg(k, 2, sizeof n, &n));
    assert_cl_success(clSetKernelArg(k, 3, sizeof rounds, &rounds));
    size_t global = run_1d(f, k, 1024, 64);
    read(f, bout, global * sizeof(float), out);
    for (size_t i = 0; i < global; i++) {
      float want = (cl_int)i < n ? ((float)i + 0.5f) * 6.0f : 0.0f;
      if (out[i] != want) fail_msg("n %d item %zu: got %g, want %g", n, i, out[i], want);
    }
    clReleaseKernel(k);
    clReleaseMemObject(bin);
    clReleaseMemObject(bout);
  }
  munmap(pages, 3 * (size_t)page);
}

/* A required work-group size makes the launcher keep a copy of the group's loops with
 * constant sizes for full groups (launcher.cpp); the partial groups of a non-uniform
 * NDRange (OpenCL C 2.0+) run the other copy. Both must see their own ids and sizes, with a
 * loop in the body (WFV) and with a barrier (regions). */
static const char *required_size_source =
    "kernel __attribute__((reqd_work_group_size(16, 4, 1)))\n"
    "void reqd_ids(global uint *out, int rounds) {\n"
    "  size_t gx = get_global_id(0), gy = get_global_id(1);\n"
    "  uint v = 0;\n"
    "  for (int r = 0; r < rounds; r++) v += (uint)r * (uint)gx;\n"
    "  global uint *o = out + (gy * get_global_size(0) + gx) * 7;\n"
    "  o[0] = get_local_id(0); o[1] = get_local_id(1);\n"
    "  o[2] = get_local_size(0); o[3] = get_local_size(1);\n"
    "  o[4] = get_enqueued_local_size(0) * 100 + get_enqueued_local_size(1);\n"
    "  o[5] = get_group_id(0) + 100 * get_group_id(1); o[6] = v;\n"
    "}\n"
    "kernel __attribute__((reqd_work_group_size(16, 4, 1)))\n"
    "void reqd_neighbours(global uint *out) {\n"
    "  local uint t[4][16];\n"
    "  size_t lx = get_local_id(0), ly = get_local_id(1), sx = get_local_size(0), sy = get_local_size(1);\n"
    "  t[ly][lx] = (uint)(get_global_id(1) * 1000 + get_global_id(0));\n"
    "  barrier(CLK_LOCAL_MEM_FENCE);\n"
    "  out[get_global_id(1) * get_global_size(0) + get_global_id(0)] =\n"
    "      t[(ly + 1) % sy][(lx + 1) % sx] + (uint)(sx * sy) * 1000000u;\n"
    "}\n";

static void test_required_size_full_and_partial_groups(void **state) {
  struct kiln_program_fixture *f = *state;
  enum { GX = 40, GY = 10, LX = 16, LY = 4, ROUNDS = 5 };
  cl_program program = kiln_test_program(f->env.context, f->env.device, required_size_source, "-cl-std=CL3.0");
  cl_kernel ids = kiln_test_kernel(program, "reqd_ids"), neighbours = kiln_test_kernel(program, "reqd_neighbours");
  static cl_uint out[GX * GY * 7];
  cl_mem m = buffer(f, sizeof out, NULL);
  cl_int rounds = ROUNDS;
  assert_cl_success(clSetKernelArg(ids, 0, sizeof m, &m));
  assert_cl_success(clSetKernelArg(ids, 1, sizeof rounds, &rounds));
  assert_cl_success(clSetKernelArg(neighbours, 0, sizeof m, &m));
  size_t global[2] = {GX, GY}, local[2] = {LX, LY};
  assert_cl_success(clEnqueueNDRangeKernel(f->env.queue, ids, 2, NULL, global, local, 0, NULL, NULL));
  read(f, m, sizeof out, out);
  for (cl_uint y = 0; y < GY; y++)
    for (cl_uint x = 0; x < GX; x++) {
      const cl_uint *o = out + (y * GX + x) * 7;
      cl_uint sx = x < GX / LX * LX ? LX : GX % LX, sy = y < GY / LY * LY ? LY : GY % LY, v = 0;
      for (cl_uint r = 0; r < ROUNDS; r++) v += r * x;
      assert_int_equal(o[0], x % LX);
      assert_int_equal(o[1], y % LY);
      assert_int_equal(o[2], sx);
      assert_int_equal(o[3], sy);
      assert_int_equal(o[4], LX * 100 + LY);
      assert_int_equal(o[5], x / LX + 100 * (y / LY));
      assert_int_equal(o[6], v);
    }
  assert_cl_success(clEnqueueNDRangeKernel(f->env.queue, neighbours, 2, NULL, global, local, 0, NULL, NULL));
  read(f, m, GX * GY * sizeof(cl_uint), out);
  for (cl_uint y = 0; y < GY; y++)
    for (cl_uint x = 0; x < GX; x++) {
      cl_uint sx = x < GX / LX * LX ? LX : GX % LX, sy = y < GY / LY * LY ? LY : GY % LY;
      cl_uint x0 = x / LX * LX, y0 = y / LY * LY;
      cl_uint nx = x0 + (x - x0 + 1) % sx, ny = y0 + (y - y0 + 1) % sy;
      assert_int_equal(out[y * GX + x], ny * 1000 + nx + sx * sy * 1000000u);
    }
  clReleaseMemObject(m);
  clReleaseKernel(ids);
  clReleaseKernel(neighbours);
  clReleaseProgram(program);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_divergent_loop_live_outs),   cmocka_unit_test(test_branches_in_uniform_loop),
      cmocka_unit_test(test_divergent_loop_in_branch),   cmocka_unit_test(test_uniform_work_in_divergent_branch),
      cmocka_unit_test(test_condition_chains_on_negative_ids), cmocka_unit_test(test_private_array_by_data),
      cmocka_unit_test(test_atomics_in_divergent_loop),  cmocka_unit_test(test_strided_and_gathered),
      cmocka_unit_test(test_matrix_product_2d),          cmocka_unit_test(test_id_compares),
      cmocka_unit_test(test_stores_to_one_address),      cmocka_unit_test(test_masked_loads_at_a_page_end),
      cmocka_unit_test(test_required_size_full_and_partial_groups),
  };
  return cmocka_run_group_tests(tests, setup, teardown);
}
