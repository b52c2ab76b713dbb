/* Common functions (OpenCL C 3.0 §6.15.4) for float and double, scalar and vector,
 * including the overloads that take scalar limits/edges with vector values. */
#include "kiln_cl.h"

#define COMMON(G, S)                                                                          \
  OVL G clamp(G x, G lo, G hi) { return __builtin_elementwise_min(__builtin_elementwise_max(x, lo), hi); } \
  OVL G degrees(G r) { return r * (G)(S)(180.0 / M_PI); }                                   \
  OVL G radians(G d) { return d * (G)(S)(M_PI / 180.0); }                                   \
  OVL G max(G x, G y) { return __builtin_elementwise_max(x, y); }                          \
  OVL G min(G x, G y) { return __builtin_elementwise_min(x, y); }                          \
  OVL G mix(G x, G y, G a) { return x + (y - x) * a; }                                      \
  OVL G step(G edge, G x) { return x < edge ? (G)(S)0 : (G)(S)1; }                           \
  OVL G smoothstep(G e0, G e1, G x) {                                                       \
    G t = clamp((x - e0) / (e1 - e0), (G)(S)0, (G)(S)1);                                    \
    return t * t * ((G)(S)3 - (G)(S)2 * t);                                                 \
  }                                                                                         \
  OVL G sign(G x) {                                                                         \
    return x > (G)(S)0 ? (G)(S)1 : x < (G)(S)0 ? (G)(S)-1 : x == (G)(S)0 ? x : (G)(S)0;       \
  }
#define COMMON_VECTOR_N(N, S)                                                              \
  COMMON(S##N, S)                                                                          \
  OVL S##N clamp(S##N x, S lo, S hi) { return clamp(x, (S##N)lo, (S##N)hi); }               \
  OVL S##N max(S##N x, S y) { return max(x, (S##N)y); }                                     \
  OVL S##N min(S##N x, S y) { return min(x, (S##N)y); }                                     \
  OVL S##N mix(S##N x, S##N y, S a) { return mix(x, y, (S##N)a); }                          \
  OVL S##N step(S edge, S##N x) { return step((S##N)edge, x); }                             \
  OVL S##N smoothstep(S e0, S e1, S##N x) { return smoothstep((S##N)e0, (S##N)e1, x); }
COMMON(float, float)
COMMON(double, double)
KILN_FOR_VECTOR_SIZES(COMMON_VECTOR_N, float)
KILN_FOR_VECTOR_SIZES(COMMON_VECTOR_N, double)
