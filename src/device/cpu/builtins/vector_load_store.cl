/* vloadn / vstoren (OpenCL C 3.0 §6.15.7) for every element type, n in 2,3,4,8,16 and
 * every address space. Pointers need only element alignment, so the vector is moved
 * element by element (the optimizer merges the accesses into one unaligned access). */
#include "kiln_cl.h"

#define VLOAD_N(N, AS, T)                                                      \
  OVL T##N vload##N(size_t i, const AS T *p) {                                 \
    T##N r; const AS T *s = p + i * N;                                         \
    for (int k = 0; k < N; ++k) r[k] = s[k];                                   \
    return r;                                                                  \
  }
#define VSTORE_N(N, AS, T)                                                     \
  OVL void vstore##N(T##N v, size_t i, AS T *p) {                              \
    AS T *d = p + i * N;                                                       \
    for (int k = 0; k < N; ++k) d[k] = v[k];                                   \
  }
#define VLOAD_AS(AS, T) KILN_FOR_VECTOR_SIZES(VLOAD_N, AS, T)
#define VSTORE_AS(AS, T) KILN_FOR_VECTOR_SIZES(VSTORE_N, AS, T)
#define VLOAD_STORE(T, unused)                                 \
  KILN_FOR_READABLE_ADDRESS_SPACES(VLOAD_AS, T)                \
  KILN_FOR_WRITABLE_ADDRESS_SPACES(VSTORE_AS, T)
KILN_FOR_INTEGERS(VLOAD_STORE, 0)
KILN_FOR_FLOATS(VLOAD_STORE, 0)
VLOAD_STORE(half, 0)
