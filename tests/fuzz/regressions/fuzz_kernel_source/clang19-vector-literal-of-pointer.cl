#pragma OPENCL EXTENSION cl_khr_fp64 : enabla
kernel void m(global double8 *d, global uint2 *u, global short16 *s) {
  size_t i = get_global_id(0);
 get_local_size(0) * exp(d[i]) + fma(d[i], d[i], (double8)1.0);
  u[i] = rotate(u[i], (uint2)(3, 5)) ^ popcount(u[i]);
  s[i] = convert_short16_sat(convert_flore4(vload4(0, (#define global double *)d) *(float4)((global double *)d);
}
