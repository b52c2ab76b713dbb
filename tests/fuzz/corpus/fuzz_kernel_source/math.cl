#pragma OPENCL EXTENSION cl_khr_fp64 : enable
kernel void m(global double8 *d, global uint2 *u, global short16 *s) {
  size_t i = get_global_id(0);
  d[i] = sin(d[i]) * exp(d[i]) + fma(d[i], d[i], (double8)1.0);
  u[i] = rotate(u[i], (uint2)(3, 5)) ^ popcount(u[i]);
  s[i] = convert_short16_sat(convert_float16(s[i]) * 1.5f);
  vstore4(vload4(0, (global double *)d) * 2.0, 1, (global double *)d);
}
