/* vload_half / vstore_half (OpenCL C 3.0 §6.15.7): half values in memory, float (and
 * double) in registers, converted with integer operations on the bits (no fp16 support
 * and no libgcc conversion calls needed). vloada_half / vstorea_half read and write
 * aligned vectors: the 3-component ones use a stride of 4 halves. Stores round to
 * nearest even by default, or with the _rte/_rtz/_rtp/_rtn mode of their name. */
#include "kiln_cl.h"

/* half bits -> float (exact). */
static float kiln_half_to_float(ushort h) {
  uint sign = (uint)(h & 0x8000u) << 16;
  uint e = (h >> 10) & 0x1fu, m = h & 0x3ffu;
  if (e == 0) { /* zero or subnormal: m * 2^-24, exact in float */
    float f = (float)m * 0x1p-24f;
    return KILN_AS(float, KILN_AS(uint, f) | sign);
  }
  if (e == 0x1f) return KILN_AS(float, sign | 0x7f800000u | (m << 13));
  return KILN_AS(float, sign | ((e + 112u) << 23) | (m << 13));
}

#define MODE_RTE 0
#define MODE_RTZ 1
#define MODE_RTP 2
#define MODE_RTN 3

/* float or double (bits B of type BT, MANT explicit mantissa bits, EXP_BIAS) -> half bits,
 * rounded by `mode`. sig is the significand with its implicit bit; the result is built as
 * ((e + 14) << 10) + (sig >> shift) for normal halves, so a rounding carry runs into the
 * exponent (and up to infinity) by itself. */
#define KILN_TO_HALF(NAME, FT, BT, MANT, EXP_MASK, BIAS)                                        \
  static ushort NAME(FT f, int mode) {                                                          \
    BT b = KILN_AS(BT, f);                                                                      \
    ushort sign = (ushort)((b >> (sizeof(BT) * 8 - 16)) & 0x8000u);                             \
    BT a = b & (((BT)1 << (sizeof(BT) * 8 - 1)) - 1);                                           \
    BT inf = (BT)EXP_MASK << MANT;                                                              \
    if (a > inf) return (ushort)(sign | 0x7e00u | (ushort)((a >> (MANT - 10)) & 0x3ffu));       \
    bool up = (mode == MODE_RTP && !sign) || (mode == MODE_RTN && sign);                        \
    bool down = (mode == MODE_RTZ) || (mode == MODE_RTP && sign) || (mode == MODE_RTN && !sign); \
    if (a == inf) return (ushort)(sign | 0x7c00u);                                              \
    if (a == 0) return sign;                                                                    \
    int e = (int)(a >> MANT) - BIAS;                                                            \
    BT sig = a & (((BT)1 << MANT) - 1);                                                         \
    if ((a >> MANT) == 0) e = 1 - BIAS; /* subnormal source */                                  \
    else sig |= (BT)1 << MANT;                                                                  \
    if (e > 15) return (ushort)(sign | (down ? 0x7bffu : 0x7c00u));                             \
    int shift = MANT - 10 + (e < -14 ? -14 - e : 0);                                            \
    BT q, rem, halfway;                                                                         \
    if (shift > MANT + 1) { q = 0; rem = 1; halfway = (BT)1 << MANT; } /* tiny: sticky only */  \
    else { q = sig >> shift; rem = sig & (((BT)1 << shift) - 1); halfway = (BT)1 << (shift - 1); } \
    uint bits = (uint)q + (e < -14 ? 0u : (uint)(e + 14) << 10);                                \
    bool inc = mode == MODE_RTE ? (rem > halfway || (rem == halfway && (q & 1)))               \
                                : (up && rem != 0);                                             \
    bits += inc ? 1u : 0u;                                                                      \
    return (ushort)(sign | bits);                                                               \
  }
KILN_TO_HALF(kiln_float_to_half, float, uint, 23, 0xffu, 127)
KILN_TO_HALF(kiln_double_to_half, double, ulong, 52, 0x7ffUL, 1023)

/* Loads: vload_half, vload_halfn, vloada_halfn for every address space. */
#define VLOAD_HALF_N(N, AS, STRIDE_NAME, STRIDE)                                                 \
  OVL float##N STRIDE_NAME##N(size_t i, const AS half *p) {                                      \
    const AS ushort *s = (const AS ushort *)p + i * STRIDE;                                      \
    float##N r;                                                                                  \
    for (int k = 0; k < N; ++k) r[k] = kiln_half_to_float(s[k]);                                 \
    return r;                                                                                    \
  }
#define VLOAD_HALF_AS(AS, unused)                                                                \
  OVL float vload_half(size_t i, const AS half *p) { return kiln_half_to_float(((const AS ushort *)p)[i]); } \
  VLOAD_HALF_N(2, AS, vload_half, 2) VLOAD_HALF_N(3, AS, vload_half, 3)                         \
  VLOAD_HALF_N(4, AS, vload_half, 4) VLOAD_HALF_N(8, AS, vload_half, 8)                         \
  VLOAD_HALF_N(16, AS, vload_half, 16)                                                           \
  VLOAD_HALF_N(2, AS, vloada_half, 2) VLOAD_HALF_N(3, AS, vloada_half, 4)                       \
  VLOAD_HALF_N(4, AS, vloada_half, 4) VLOAD_HALF_N(8, AS, vloada_half, 8)                       \
  VLOAD_HALF_N(16, AS, vloada_half, 16)
KILN_FOR_READABLE_ADDRESS_SPACES(VLOAD_HALF_AS, 0)

/* Stores: vstore_half[_mode], vstore_halfn[_mode], vstorea_halfn[_mode] from float and
 * double, for every writable address space. */
#define VSTORE_HALF_SCALAR(AS, SUFFIX, MODE, FT, CONV)                                          \
  OVL void vstore_half##SUFFIX(FT v, size_t i, AS half *p) { ((AS ushort *)p)[i] = CONV(v, MODE); }
#define VSTORE_HALF_N(N, AS, NAME, STRIDE, SUFFIX, MODE, FT, CONV)                               \
  OVL void NAME##N##SUFFIX(FT##N v, size_t i, AS half *p) {                                      \
    AS ushort *d = (AS ushort *)p + i * STRIDE;                                                  \
    for (int k = 0; k < N; ++k) d[k] = CONV(v[k], MODE);                                         \
  }
#define VSTORE_HALF_ALL_N(AS, SUFFIX, MODE, FT, CONV)                                            \
  VSTORE_HALF_SCALAR(AS, SUFFIX, MODE, FT, CONV)                                                 \
  VSTORE_HALF_N(2, AS, vstore_half, 2, SUFFIX, MODE, FT, CONV)                                   \
  VSTORE_HALF_N(3, AS, vstore_half, 3, SUFFIX, MODE, FT, CONV)                                   \
  VSTORE_HALF_N(4, AS, vstore_half, 4, SUFFIX, MODE, FT, CONV)                                   \
  VSTORE_HALF_N(8, AS, vstore_half, 8, SUFFIX, MODE, FT, CONV)                                   \
  VSTORE_HALF_N(16, AS, vstore_half, 16, SUFFIX, MODE, FT, CONV)                                 \
  VSTORE_HALF_N(2, AS, vstorea_half, 2, SUFFIX, MODE, FT, CONV)                                  \
  VSTORE_HALF_N(3, AS, vstorea_half, 4, SUFFIX, MODE, FT, CONV)                                  \
  VSTORE_HALF_N(4, AS, vstorea_half, 4, SUFFIX, MODE, FT, CONV)                                  \
  VSTORE_HALF_N(8, AS, vstorea_half, 8, SUFFIX, MODE, FT, CONV)                                  \
  VSTORE_HALF_N(16, AS, vstorea_half, 16, SUFFIX, MODE, FT, CONV)
#define VSTORE_HALF_MODES(AS, FT, CONV)                                                          \
  VSTORE_HALF_ALL_N(AS, , MODE_RTE, FT, CONV)                                                    \
  VSTORE_HALF_ALL_N(AS, _rte, MODE_RTE, FT, CONV)                                                \
  VSTORE_HALF_ALL_N(AS, _rtz, MODE_RTZ, FT, CONV)                                                \
  VSTORE_HALF_ALL_N(AS, _rtp, MODE_RTP, FT, CONV)                                                \
  VSTORE_HALF_ALL_N(AS, _rtn, MODE_RTN, FT, CONV)
#define VSTORE_HALF_AS(AS, unused)                                                               \
  VSTORE_HALF_MODES(AS, float, kiln_float_to_half)                                               \
  VSTORE_HALF_MODES(AS, double, kiln_double_to_half)
KILN_FOR_WRITABLE_ADDRESS_SPACES(VSTORE_HALF_AS, 0)
