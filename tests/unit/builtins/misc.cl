/* Test kernels for test_builtins_misc.c: vload_half/vstore_half, shuffle/shuffle2,
 * atomics, async copies. */
kernel void t_vload_half(global const half *h, global float *r) { size_t i = get_global_id(0); r[i] = vload_half(i, h); }
kernel void t_vload_half4(global const half *h, global float *r) { size_t i = get_global_id(0); vstore4(vload_half4(i, h), i, r); }
kernel void t_vloada_half3(global const half *h, global float *r) { size_t i = get_global_id(0); vstore3(vloada_half3(i, h), i, r); }
#define STORES(M)                                                                                                     \
  kernel void t_vstore_half##M##_f(global const float *x, global half *h) { size_t i = get_global_id(0); vstore_half##M(x[i], i, h); } \
  kernel void t_vstore_half##M##_d(global const double *x, global half *h) { size_t i = get_global_id(0); vstore_half##M(x[i], i, h); } \
  kernel void t_vstore_half16##M##_f(global const float *x, global half *h) { size_t i = get_global_id(0); vstore_half16##M(vload16(i, x), i, h); } \
  kernel void t_vstorea_half3##M##_d(global const double *x, global half *h) { size_t i = get_global_id(0); vstorea_half3##M(vload3(i, x), i, h); }
STORES() STORES(_rte) STORES(_rtz) STORES(_rtp) STORES(_rtn)

/* shuffle: 4 -> 8 with a mask whose high bits are set (they must be ignored). */
kernel void t_shuffle(global const int *x, global const uint *m, global int *r) {
  size_t i = get_global_id(0);
  vstore8(shuffle(vload4(i, x), vload8(i, m)), i, r);
}
kernel void t_shuffle2(global const float *x, global const uint *m, global float *r) {
  size_t i = get_global_id(0);
  vstore16(shuffle2(vload8(2 * i, x), vload8(2 * i + 1, x), vload16(i, m)), i, r);
}
kernel void t_shuffle2_char(global const char *x, global const uchar *m, global char *r) {
  size_t i = get_global_id(0);
  vstore2(shuffle2(vload16(2 * i, x), vload16(2 * i + 1, x), vload2(i, m)), i, r);
}

/* Atomics: every work-item applies each operation to shared counters. */
kernel void t_atomics_legacy(volatile global int *g, volatile local uint *l, volatile global long *g64, global int *old) {
  size_t i = get_global_id(0);
  atomic_add(&g[0], 3); atomic_sub(&g[1], 2); atomic_inc(&g[2]); atomic_dec(&g[3]);
  atomic_min(&g[4], (int)i - 5); atomic_max(&g[5], (int)i * 7); atomic_and(&g[6], ~(1 << (i % 31)));
  atomic_or(&g[7], 1 << (i % 31)); atomic_xor(&g[8], (int)i);
  old[i] = atomic_xchg(&g[9], (int)i);
  atomic_cmpxchg(&g[10], (int)i, (int)i + 1); /* increments only in order */
  atomic_add(&l[0], 1u); atomic_max(&l[1], (uint)i); atom_inc(&l[2]);
  atom_add(&g64[0], 1L << 40); atom_min(&g64[1], -(long)i); atom_xor(&g64[2], (long)i << 33);
  atom_cmpxchg(&g64[3], (long)i, (long)i + 1);
  atomic_xchg((volatile global float *)&g[11], (float)i);
}
kernel void t_atomics_c11(volatile global atomic_int *a, volatile global atomic_ulong *u, volatile global atomic_double *d,
                          volatile local atomic_int *l, volatile global atomic_flag *f, global int *r) {
  size_t i = get_global_id(0);
  if (i == 0) atomic_init(d, 0.5);
  atomic_fetch_add_explicit(&a[0], 2, memory_order_relaxed, memory_scope_device);
  atomic_fetch_sub_explicit(&a[1], 1, memory_order_seq_cst, memory_scope_work_group);
  atomic_fetch_max_explicit(&a[2], (int)i, memory_order_acq_rel, memory_scope_device);
  atomic_fetch_min_explicit(&a[3], -(int)i, memory_order_acq_rel, memory_scope_device);
  atomic_fetch_or_explicit(&u[0], 1UL << (i % 64), memory_order_release, memory_scope_device);
  atomic_fetch_and_explicit(&u[1], ~(1UL << (i % 64)), memory_order_release, memory_scope_device);
  atomic_fetch_xor_explicit(&u[2], (ulong)i, memory_order_relaxed, memory_scope_device);
  int expected = (int)i;
  r[i] = atomic_compare_exchange_strong_explicit(&a[4], &expected, (int)i + 1, memory_order_seq_cst,
                                                 memory_order_relaxed, memory_scope_device);
  double e = atomic_load_explicit(d, memory_order_acquire, memory_scope_device);
  atomic_store_explicit(d, e + 1.0, memory_order_release, memory_scope_device);
  atomic_exchange_explicit(&l[0], (int)i, memory_order_relaxed, memory_scope_work_group);
  r[128 + i] = atomic_flag_test_and_set_explicit(f, memory_order_seq_cst, memory_scope_device);
  if (i == 9) atomic_flag_clear_explicit(f, memory_order_seq_cst, memory_scope_device);
}

/* Async copies: in to local (through `loc`), then local back to out with a stride. */
kernel void t_async(global const float4 *in, local float4 *loc, global float4 *out, uint n) {
  event_t e = async_work_group_copy(loc, in + get_group_id(0) * n, n, 0);
  wait_group_events(1, &e);
  prefetch(in, n);
  e = async_work_group_strided_copy(out + get_group_id(0) * n * 2, loc, n, 2, 0);
  wait_group_events(1, &e);
}
