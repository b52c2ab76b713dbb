/* Test kernels for test_builtins_math.c: each applies one builtin to every input, as a
 * scalar (t_NAME_f / _d) and as a vector of 4 (t_NAME_f4 / _d4, through vload4/vstore4). */
#define K1(NAME)                                                                                     \
  kernel void t_##NAME##_f(global const float *x, global float *r) { size_t i = get_global_id(0); r[i] = NAME(x[i]); } \
  kernel void t_##NAME##_d(global const double *x, global double *r) { size_t i = get_global_id(0); r[i] = NAME(x[i]); } \
  kernel void t_##NAME##_f4(global const float *x, global float *r) { size_t i = get_global_id(0); vstore4(NAME(vload4(i, x)), i, r); } \
  kernel void t_##NAME##_d4(global const double *x, global double *r) { size_t i = get_global_id(0); vstore4(NAME(vload4(i, x)), i, r); }
#define K2(NAME)                                                                                     \
  kernel void t_##NAME##_f(global const float *x, global const float *y, global float *r) { size_t i = get_global_id(0); r[i] = NAME(x[i], y[i]); } \
  kernel void t_##NAME##_d(global const double *x, global const double *y, global double *r) { size_t i = get_global_id(0); r[i] = NAME(x[i], y[i]); } \
  kernel void t_##NAME##_f4(global const float *x, global const float *y, global float *r) { size_t i = get_global_id(0); vstore4(NAME(vload4(i, x), vload4(i, y)), i, r); } \
  kernel void t_##NAME##_d4(global const double *x, global const double *y, global double *r) { size_t i = get_global_id(0); vstore4(NAME(vload4(i, x), vload4(i, y)), i, r); }
K1(sin) K1(cos) K1(tan) K1(asin) K1(acos) K1(atan) K1(sinh) K1(cosh) K1(tanh) K1(asinh) K1(acosh)
K1(atanh) K1(exp) K1(exp2) K1(exp10) K1(expm1) K1(log) K1(log2) K1(log10) K1(log1p) K1(cbrt)
K1(erf) K1(erfc) K1(tgamma) K1(sinpi) K1(cospi) K1(tanpi) K1(asinpi) K1(acospi) K1(atanpi)
K1(sqrt) K1(rsqrt) K1(logb) K1(ceil) K1(floor) K1(trunc) K1(rint) K1(round) K1(fabs)
K2(atan2) K2(atan2pi) K2(pow) K2(powr) K2(hypot) K2(fmod) K2(remainder) K2(fdim) K2(fmax) K2(fmin)
K2(maxmag) K2(minmag) K2(nextafter) K2(copysign)

kernel void t_pown_f(global const float *x, global const int *n, global float *r) { size_t i = get_global_id(0); r[i] = pown(x[i], n[i]); }
kernel void t_pown_d(global const double *x, global const int *n, global double *r) { size_t i = get_global_id(0); r[i] = pown(x[i], n[i]); }
kernel void t_rootn_f(global const float *x, global const int *n, global float *r) { size_t i = get_global_id(0); r[i] = rootn(x[i], n[i]); }
kernel void t_rootn_d(global const double *x, global const int *n, global double *r) { size_t i = get_global_id(0); r[i] = rootn(x[i], n[i]); }
kernel void t_ldexp_f(global const float *x, global const int *n, global float *r) { size_t i = get_global_id(0); r[i] = ldexp(x[i], n[i]); }
kernel void t_ldexp_d(global const double *x, global const int *n, global double *r) { size_t i = get_global_id(0); r[i] = ldexp(x[i], n[i]); }
/* Pointer outputs, in private and global memory. */
kernel void t_frexp_f(global const float *x, global int *e, global float *r) { size_t i = get_global_id(0); int k; r[i] = frexp(x[i], &k); e[i] = k; }
kernel void t_frexp_d(global const double *x, global int *e, global double *r) { size_t i = get_global_id(0); r[i] = frexp(x[i], e + i); }
kernel void t_modf_f(global const float *x, global float *ip, global float *r) { size_t i = get_global_id(0); float t; r[i] = modf(x[i], &t); ip[i] = t; }
kernel void t_fract_f(global const float *x, global float *ip, global float *r) { size_t i = get_global_id(0); r[i] = fract(x[i], ip + i); }
kernel void t_sincos_d(global const double *x, global double *c, global double *r) { size_t i = get_global_id(0); r[i] = sincos(x[i], c + i); }
kernel void t_remquo_f(global const float *x, global const float *y, global int *q, global float *r) { size_t i = get_global_id(0); int k; r[i] = remquo(x[i], y[i], &k); q[i] = k; }
kernel void t_remquo_d(global const double *x, global const double *y, global int *q, global double *r) { size_t i = get_global_id(0); r[i] = remquo(x[i], y[i], q + i); }
kernel void t_ilogb_f(global const float *x, global int *r) { size_t i = get_global_id(0); r[i] = ilogb(x[i]); }
