/* Geometric functions (OpenCL C 3.0 §6.15.5) for float and double, 1 to 4 components.
 * float: sums in double (no overflow, no underflow, well within the ULP limits); double:
 * scaled by a power of two when the largest component is huge or tiny. fast_ variants use
 * the same code. */
#include "kiln_cl.h"

OVL float dot(float a, float b) { return a * b; }
OVL double dot(double a, double b) { return a * b; }
#define DOT_N(N, T) \
  OVL T dot(T##N a, T##N b) { T s = 0; for (int i = 0; i < N; ++i) s += a[i] * b[i]; return s; }
DOT_N(2, float) DOT_N(3, float) DOT_N(4, float)
DOT_N(2, double) DOT_N(3, double) DOT_N(4, double)

OVL float3 cross(float3 a, float3 b) { return (float3)(a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x); }
OVL float4 cross(float4 a, float4 b) { return (float4)(cross(a.xyz, b.xyz), 0.0f); }
OVL double3 cross(double3 a, double3 b) { return (double3)(a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x); }
OVL double4 cross(double4 a, double4 b) { return (double4)(cross(a.xyz, b.xyz), 0.0); }

#define FLOAT_GEOMETRY(N, G, D)                                                               \
  OVL float length(G p) { D d = __builtin_convertvector(p, D); return (float)__builtin_sqrt(dot(d, d)); } \
  OVL G normalize(G p) {                                                                      \
    D d = __builtin_convertvector(p, D);                                                      \
    D inf = __builtin_elementwise_abs(d) == (D)(double)INFINITY ? (D)1.0 : (D)0.0;            \
    if (dot(inf, inf) > 0.0) d = __builtin_elementwise_copysign(inf, d); /* infinities only */ \
    double l = __builtin_sqrt(dot(d, d));                                                     \
    if (l == 0.0) return p;                                                                   \
    return __builtin_convertvector(d / l, G);                                                 \
  }
FLOAT_GEOMETRY(2, float2, double2)
FLOAT_GEOMETRY(3, float3, double3)
FLOAT_GEOMETRY(4, float4, double4)
OVL float length(float p) { return __builtin_fabsf(p); }
OVL float normalize(float p) { return p == 0.0f || p != p ? p : __builtin_copysignf(1.0f, p); }

/* The largest |component| of p. */
#define DOUBLE_MAX_ABS(N, G)                                                                   \
  static OVL double max_abs(G p) {                                                            \
    G a = __builtin_elementwise_abs(p);                                                       \
    double m = 0.0;                                                                           \
    for (int i = 0; i < N; ++i) m = a[i] > m ? a[i] : m; /* not sizeof: double3 has 4 slots */ \
    return m;                                                                                 \
  }
/* The power of two that brings a largest component m near 1 (1 when it needs none). */
static double scale_for(double m) { return m > 0x1p500 ? 0x1p-600 : m < 0x1p-500 ? 0x1p600 : 1.0; }
#define DOUBLE_GEOMETRY(N, G)                                                                  \
  DOUBLE_MAX_ABS(N, G)                                                                        \
  OVL double length(G p) {                                                                    \
    double m = max_abs(p), s = scale_for(m);                                                  \
    if (m == (double)INFINITY) return m;                                                      \
    G q = p * s;                                                                              \
    return __builtin_sqrt(dot(q, q)) / s;                                                     \
  }                                                                                           \
  /* l is the length of p * s. Huge p (s < 1): the true length may overflow, so p / l, then  \
   * scaled (scaling p first would flush its small components); tiny p: scaled first, as    \
   * dividing first could underflow them. */                                                 \
  OVL G normalize(G p) {                                                                      \
    G inf = __builtin_elementwise_abs(p) == (G)(double)INFINITY ? (G)1.0 : (G)0.0;            \
    if (dot(inf, inf) > 0.0) p = __builtin_elementwise_copysign(inf, p);                      \
    double s = scale_for(max_abs(p));                                                         \
    G q = p * s;                                                                              \
    double l = __builtin_sqrt(dot(q, q));                                                     \
    if (l == 0.0) return p;                                                                   \
    return s < 1.0 ? (p / l) * s : q / l;                                                     \
  }
DOUBLE_GEOMETRY(2, double2)
DOUBLE_GEOMETRY(3, double3)
DOUBLE_GEOMETRY(4, double4)
OVL double length(double p) { return __builtin_fabs(p); }
OVL double normalize(double p) { return p == 0.0 || p != p ? p : __builtin_copysign(1.0, p); }

#define DISTANCE_FAST(G, R)                                                  \
  OVL R distance(G a, G b) { return length(a - b); }                         \
  OVL R fast_distance(G a, G b) { return length(a - b); }                    \
  OVL R fast_length(G p) { return length(p); }                               \
  OVL G fast_normalize(G p) { return normalize(p); }
DISTANCE_FAST(float, float) DISTANCE_FAST(float2, float) DISTANCE_FAST(float3, float) DISTANCE_FAST(float4, float)
DISTANCE_FAST(double, double) DISTANCE_FAST(double2, double) DISTANCE_FAST(double3, double) DISTANCE_FAST(double4, double)
