/* Test kernel for test_builtins_coverage.c: calls a representative of every builtin family
 * clang declares for the device's features (all OpenCL C versions), so that linking with
 * the builtin library shows any declared-but-undefined builtin. */
kernel void coverage(global float *g, local float *l, global int *gi, global double *gd, global half *h,
                     local int *li, volatile global int *vi, volatile local uint *vl, global long *gl,
                     global uchar *gc, global ulong *gu) {
  size_t id = get_global_id(0) + get_local_id(1) + get_group_id(2) + get_global_size(0) + get_local_size(0) +
              get_num_groups(0) + get_global_offset(0) + get_work_dim();
#if __OPENCL_C_VERSION__ >= 200
  id += get_enqueued_local_size(0) + get_global_linear_id() + get_local_linear_id() + ctz(gi[1]);
#endif
  float t; int e; double td;
  float4 v = vload4(id, g);
  g[0] = fract(g[1], &t) + t + frexp(g[3], &e) + e + modf(g[4], &t) + sincos(g[5], &t) + remquo(g[6], g[7], &e) +
         lgamma_r(g[8], &e) + fract(g[1], l) + sin(g[2]) + native_exp(g[3]) + half_log(g[4]) + rootn(g[5], 3) +
         pown(g[6], 2) + powr(g[7], 2.0f) + ldexp(g[8], 3) + ilogb(g[9]) + nan(1u) + mad(g[1], g[2], g[3]) +
         clamp(g[1], 0.0f, 1.0f) + mix(g[1], g[2], 0.5f) + smoothstep(0.0f, 1.0f, g[3]) + sign(g[4]) +
         degrees(g[5]) + step(0.5f, g[6]) + dot(v, v) + length(v) + distance(v, v) + fast_length(v) +
         normalize(v).x + cross(v, v).y + isnan(g[1]) + isequal(g[2], g[3]) + select(g[1], g[2], 1) +
         bitselect(g[1], g[2], g[3]) + any((int4)1) + all((int4)1) + signbit(g[1]) + isnormal(g[2]);
  gd[0] = fract(gd[1], &td) + sincos(gd[2], &td) + exp(gd[3]) + rootn(gd[4], 5) + length((double3)gd[5]) +
          vload_half(1, h) + convert_double_rtz(gl[0]) + isfinite(gd[6]);
  gi[0] = abs(gi[1]) + clz(gi[2]) + popcount(gi[3]) + mad_sat(gi[4], gi[5], gi[6]) + rotate(gi[7], 3) +
          upsample((short)gi[1], (ushort)gi[2]) + mul24(gi[3], gi[4]) + add_sat(gi[5], 1) + hadd(gi[6], 2) +
          convert_int_sat_rtn(g[9]) + convert_int4_rte(v).x + as_int(g[0]) + mul_hi(gi[2], 3);
  gu[0] = mad_hi(gu[1], gu[2], gu[3]) + convert_ulong_sat(gd[7]) + abs_diff(gl[1], gl[2]);
  gc[0] = convert_uchar_sat(gi[9]) + rhadd(gc[1], gc[2]) + sub_sat(gc[3], gc[4]);
  vstore4(v, 1, l);
  vstore_half_rtz(g[6], 0, h);
  vstorea_half4_rte(v, 0, h);
  vstore_half_rtn(gd[1], 2, h);
  v = vloada_half4(0, h) + vload_half4(1, h);
  int4 mi = shuffle((int4)(gi[0]), (uint4)(1, 0, 3, 2));
  v = shuffle2(v, v, (uint4)(1, 0, 7, 2)) + convert_float4_rtp(mi);
  vstore4(v, 2, g);
  gi[1] = atomic_add(vi, 1) + atomic_inc(vl) + atom_add(vi, 2) + atomic_cmpxchg(vi, 1, 2) + atomic_min(vi, 3) +
          atomic_xor(vl, 1u) + atom_cmpxchg(vi, 1, 2);
  g[7] = atomic_xchg((volatile global float *)g, 2.0f);
  gl[0] = atom_add((volatile global long *)gl, 3L) + atom_min((volatile global ulong *)gu, 3UL) +
          atom_xchg((volatile local long *)li, 2L);
  event_t ev = async_work_group_copy(l, g, 16, 0);
  wait_group_events(1, &ev);
  ev = async_work_group_strided_copy(g, l, 4, 2, 0);
  wait_group_events(1, &ev);
  prefetch(g, 4);
  barrier(CLK_LOCAL_MEM_FENCE);
  mem_fence(CLK_GLOBAL_MEM_FENCE);
  read_mem_fence(CLK_GLOBAL_MEM_FENCE);
  write_mem_fence(CLK_GLOBAL_MEM_FENCE);
#if __OPENCL_C_VERSION__ >= 200
  work_group_barrier(CLK_GLOBAL_MEM_FENCE);
  work_group_barrier(CLK_GLOBAL_MEM_FENCE, memory_scope_work_group);
  atomic_work_item_fence(CLK_GLOBAL_MEM_FENCE, memory_order_seq_cst, memory_scope_device);
  global atomic_int *a = (global atomic_int *)gi;
  local atomic_int *la = (local atomic_int *)li;
  int expected = 0;
  atomic_init(a, 1);
  gi[2] = atomic_fetch_add_explicit(a, 1, memory_order_relaxed, memory_scope_device) +
          atomic_load_explicit(la, memory_order_acquire, memory_scope_work_group) +
          atomic_compare_exchange_strong_explicit(a, &expected, 2, memory_order_seq_cst, memory_order_relaxed,
                                                  memory_scope_device) +
          atomic_flag_test_and_set_explicit((global atomic_flag *)gi, memory_order_seq_cst, memory_scope_device);
  atomic_store_explicit((global atomic_double *)gd, 1.0, memory_order_release, memory_scope_device);
  gu[1] = atomic_fetch_max_explicit((global atomic_ulong *)gu, 5UL, memory_order_acq_rel, memory_scope_device);
#endif
#if __OPENCL_C_VERSION__ == 200
  /* Without an address space qualifier (generic) and without order/scope. */
  atomic_store(a, 2);
  gi[3] = atomic_load(a) + atomic_fetch_sub(a, 1) + atomic_exchange(a, 3) + atomic_compare_exchange_weak(a, &expected, 1) +
          atomic_flag_test_and_set((global atomic_flag *)gi) + atomic_fetch_or_explicit(a, 1, memory_order_relaxed);
  atomic_flag_clear((global atomic_flag *)gi);
  float *gp = (float *)g;
  g[8] = fract(g[1], gp) + vload2(0, gp).x;
#endif
}

/* Every image function (OpenCL C §6.15.15) for every image type and access qualifier the
 * device supports: read_write images from OpenCL C 2.0 on. */
#define COV_SAMPLED(T, FC, IC)                                                                  \
  kernel void cov_sampled_##T(read_only T im, sampler_t s, global float4 *f, global int4 *i,     \
                              global uint4 *u) {                                                \
    f[0] = read_imagef(im, s, (FC)0) + read_imagef(im, s, (IC)0) + read_imagef(im, (IC)0);      \
    i[0] = read_imagei(im, s, (FC)0) + read_imagei(im, s, (IC)0) + read_imagei(im, (IC)0);      \
    u[0] = read_imageui(im, s, (FC)0) + read_imageui(im, s, (IC)0) + read_imageui(im, (IC)0);   \
    i[1].x = get_image_width(im) + get_image_channel_data_type(im) + get_image_channel_order(im); \
  }
#define COV_WRITES(ACC, T, IC)                                                                   \
  kernel void cov_write_##ACC##_##T(ACC T im, global int4 *i) {                                  \
    write_imagef(im, (IC)0, (float4)0);                                                          \
    write_imagei(im, (IC)0, (int4)0);                                                            \
    write_imageui(im, (IC)0, (uint4)0);                                                          \
    i[1].x = get_image_width(im) + get_image_channel_data_type(im) + get_image_channel_order(im); \
  }
COV_SAMPLED(image1d_t, float, int)
COV_SAMPLED(image1d_array_t, float2, int2)
COV_SAMPLED(image2d_t, float2, int2)
COV_SAMPLED(image2d_array_t, float4, int4)
COV_SAMPLED(image3d_t, float4, int4)
kernel void cov_buffer_image(read_only image1d_buffer_t im, global float4 *f, global int4 *i, global uint4 *u) {
  f[0] = read_imagef(im, 0);
  i[0] = read_imagei(im, 0);
  u[0] = read_imageui(im, 0);
  i[1].x = get_image_width(im) + get_image_channel_data_type(im) + get_image_channel_order(im);
}
COV_WRITES(write_only, image1d_t, int)
COV_WRITES(write_only, image1d_buffer_t, int)
COV_WRITES(write_only, image1d_array_t, int2)
COV_WRITES(write_only, image2d_t, int2)
COV_WRITES(write_only, image2d_array_t, int4)
COV_WRITES(write_only, image3d_t, int4)
kernel void cov_queries(read_only image2d_t a, read_only image2d_array_t b, read_only image3d_t c,
                        read_only image1d_array_t d, global int4 *i, global size_t *n) {
  i[0].xy = get_image_dim(a) + get_image_dim(b);
  i[1] = get_image_dim(c);
  i[2].x = get_image_height(a) + get_image_height(b) + get_image_height(c) + get_image_depth(c);
  n[0] = get_image_array_size(b) + get_image_array_size(d);
}
kernel void cov_depth(read_only image2d_depth_t a, read_only image2d_array_depth_t b, write_only image2d_depth_t c,
                      write_only image2d_array_depth_t d, sampler_t s, global float *f, global int4 *i,
                      global size_t *n) {
  f[0] = read_imagef(a, s, (float2)0) + read_imagef(a, s, (int2)0) + read_imagef(a, (int2)0) +
         read_imagef(b, s, (float4)0) + read_imagef(b, s, (int4)0) + read_imagef(b, (int4)0);
  write_imagef(c, (int2)0, 1.0f);
  write_imagef(d, (int4)0, 1.0f);
  i[0].xy = get_image_dim(a) + get_image_dim(b) + get_image_dim(c) + get_image_dim(d);
  n[0] = get_image_array_size(b) + get_image_array_size(d);
}
constant sampler_t cov_constant_sampler = CLK_NORMALIZED_COORDS_TRUE | CLK_ADDRESS_REPEAT | CLK_FILTER_LINEAR;
kernel void cov_constant_sampler_read(read_only image2d_t im, global float4 *f) {
  const sampler_t local_sampler = CLK_NORMALIZED_COORDS_FALSE | CLK_ADDRESS_CLAMP | CLK_FILTER_NEAREST;
  f[0] = read_imagef(im, cov_constant_sampler, (float2)0) + read_imagef(im, local_sampler, (int2)0);
}
#if __OPENCL_C_VERSION__ >= 200
#define COV_READ_WRITE(T, IC)                                                                    \
  kernel void cov_rw_##T(read_write T im, global float4 *f, global int4 *i, global uint4 *u) {    \
    f[0] = read_imagef(im, (IC)0);                                                               \
    i[0] = read_imagei(im, (IC)0);                                                               \
    u[0] = read_imageui(im, (IC)0);                                                              \
    atomic_work_item_fence(CLK_IMAGE_MEM_FENCE, memory_order_acq_rel, memory_scope_work_item);    \
  }                                                                                              \
  COV_WRITES(read_write, T, IC)
COV_READ_WRITE(image1d_t, int)
COV_READ_WRITE(image1d_buffer_t, int)
COV_READ_WRITE(image1d_array_t, int2)
COV_READ_WRITE(image2d_t, int2)
COV_READ_WRITE(image2d_array_t, int4)
COV_READ_WRITE(image3d_t, int4)
kernel void cov_rw_depth(read_write image2d_depth_t a, read_write image2d_array_depth_t b, global float *f) {
  f[0] = read_imagef(a, (int2)0) + read_imagef(b, (int4)0);
  write_imagef(a, (int2)0, f[1]);
  write_imagef(b, (int4)0, f[1]);
}
#endif
#if __OPENCL_C_VERSION__ >= 200
/* Pipes: clang calls the runtime's functions (builtins/pipe_host.c), except these. */
kernel void cov_pipes(write_only pipe int w, read_only pipe int r, global int *i) {
  reserve_id_t a = work_group_reserve_write_pipe(w, 1), b = work_group_reserve_read_pipe(r, 1);
  i[0] = is_valid_reserve_id(a) + is_valid_reserve_id(b) + read_pipe(r, i) + get_pipe_num_packets(r);
  work_group_commit_write_pipe(w, a);
  work_group_commit_read_pipe(r, b);
}
#endif
