// Kernels built twice by test_spirv.c: from this source, and from the SPIR-V that
// clang-15 and llvm-spirv-15 make of it at build time (tests/CMakeLists.txt). Both runs
// must agree with each other and with the host.
typedef struct {
  int count;
  float scale;
  long offset;
} params;

kernel void arithmetic(global const int *a, global const int *b, global int *out) {
  size_t i = get_global_id(0);
  int x = a[i], y = b[i];
  out[4 * i] = x * y - (x >> 3) + (y ^ 0x55);
  out[4 * i + 1] = y != 0 ? x / y : 0;
  out[4 * i + 2] = mad_sat(x, y, x) + clz(x) + rotate(x, 5) + abs_diff(x, y);
  out[4 * i + 3] = (int)popcount(x) + hadd(x, y) + min(x, y) * max(x, y) + clamp(x, -100, 100);
}

kernel void math(global const float *in, global float *out) {
  size_t i = get_global_id(0);
  float x = in[i];
  out[8 * i] = sin(x);
  out[8 * i + 1] = exp(x * 0.25f);
  out[8 * i + 2] = pow(fabs(x) + 1.0f, 1.5f);
  out[8 * i + 3] = sqrt(fabs(x));
  out[8 * i + 4] = atan2(x, 1.5f);
  out[8 * i + 5] = fmax(x, 0.5f) + floor(x) + copysign(2.0f, x);
  out[8 * i + 6] = log(fabs(x) + 1.0f);
  out[8 * i + 7] = fma(x, x, 1.0f);
}

kernel void doubles(global const double *in, global double *out) {
  size_t i = get_global_id(0);
  out[i] = cos(in[i]) * in[i] + exp(in[i] * 0.5);
}

kernel void reduce_local(global const int *in, global int *out, local int *scratch) {
  size_t l = get_local_id(0), n = get_local_size(0);
  scratch[l] = in[get_global_id(0)];
  barrier(CLK_LOCAL_MEM_FENCE);
  for (size_t stride = n / 2; stride > 0; stride /= 2) {
    if (l < stride) scratch[l] += scratch[l + stride];
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  if (l == 0) out[get_group_id(0)] = scratch[0];
}

kernel void atomics(global int *counters, global const int *in) {
  local int local_sum;
  if (get_local_id(0) == 0) local_sum = 0;
  barrier(CLK_LOCAL_MEM_FENCE);
  int v = in[get_global_id(0)];
  atomic_add(&counters[0], v);
  atomic_max(&counters[1], v);
  atomic_inc(&counters[2]);
  atomic_fetch_add_explicit((volatile global atomic_int *)&counters[3], 1, memory_order_relaxed,
                            memory_scope_device);
  atomic_add(&local_sum, v);
  barrier(CLK_LOCAL_MEM_FENCE);
  if (get_local_id(0) == 0) atomic_add(&counters[4], local_sum);
}

kernel void vectors(global const float4 *in, global float4 *out, global int4 *ints, global float *loose) {
  size_t i = get_global_id(0);
  float4 v = in[i];
  float4 w = v.wzyx * 2.0f + (float4)(1.0f, 2.0f, 3.0f, 4.0f);
  out[i] = w + shuffle(v, (uint4)(1, 1, 0, 3)) + dot(v, w);
  ints[i] = convert_int4_sat(w * 1000.0f) + (int4)(isgreater(v.x, v.y));
  float8 e = (float8)(v, w);
  vstore3(e.s135, i, loose);
}

kernel void structs(global params *p, params by_value, global float *out) {
  size_t i = get_global_id(0);
  out[i] = p[i].scale * by_value.scale + p[i].count + by_value.count + (float)(p[i].offset + by_value.offset);
  p[i].count += 1;
}

// Generic pointers: the same function on __global and __local memory.
int sum_three(const int *p) { return p[0] + p[1] + p[2]; }

kernel void generic_pointers(global const int *in, global int *out) {
  local int copy[64];
  size_t l = get_local_id(0);
  copy[l] = in[get_global_id(0)] * 2;
  barrier(CLK_LOCAL_MEM_FENCE);
  size_t j = l + 3 <= get_local_size(0) ? l : 0;
  out[get_global_id(0)] = sum_three(in + get_global_id(0) - l + j) * 1000 + sum_three(copy + j);
}
