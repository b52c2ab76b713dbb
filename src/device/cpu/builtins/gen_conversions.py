#!/usr/bin/env python3
"""Writes conversions.cl: every OpenCL C explicit conversion (OpenCL C 3.0 §6.4.3)
convert_<dst><n>[_sat][_rte|_rtz|_rtp|_rtn](<src><n>) for all scalar/vector type pairs.
Usage: gen_conversions.py OUTPUT.cl"""
import sys

INTS = {  # name: (bits, signed)
    "char": (8, True), "uchar": (8, False), "short": (16, True), "ushort": (16, False),
    "int": (32, True), "uint": (32, False), "long": (64, True), "ulong": (64, False),
}
FLOATS = {"half": 11, "float": 24, "double": 53}  # mantissa bits (half: cl_khr_fp16)
TYPES = list(INTS) + list(FLOATS)
SIZES = ["", "2", "3", "4", "8", "16"]
MODES = ["", "_rte", "_rtz", "_rtp", "_rtn"]


def int_range(t):
    bits, signed = INTS[t]
    if signed:
        return -(1 << (bits - 1)), (1 << (bits - 1)) - 1
    return 0, (1 << bits) - 1


def int_literal(v, t):
    bits, signed = INTS[t]
    if t in ("long",) and v == -(1 << 63):
        return "(-0x7fffffffffffffffL - 1)"
    suffix = "UL" if not signed else "L"
    return "((%s)%d%s)" % (t, v, suffix)


def half_body(dst, src, sat, mode):
    """Conversions from and to half: through float, which holds every half exactly, so
    conversions from half are the float ones; to half, float's RNE result is fixed up for
    the directed modes, doubles go through a round-to-odd float (innocuous double
    rounding: 24 >= 11 + 2 bits), and integers beyond 2^24 (after one float rounding) are
    far outside half's range either way."""
    if src == "half":
        return "(%s)x" % dst if dst in FLOATS else "convert_%s%s%s((float)x)" % (dst, "_sat" if sat else "", mode)
    mode_fn = "kiln_float_to_half%s" % (mode if mode not in ("", "_rte") else "_rte")
    if src == "double":
        return "%s(kiln_double_to_float_odd(x))" % mode_fn
    if mode in ("", "_rte"):
        return "(half)(float)x"
    return "%s((float)x)" % mode_fn


def scalar_body(dst, src, sat, mode):
    """Returns the C expression converting scalar x of type src to dst."""
    if dst == "half" or src == "half":
        return half_body(dst, src, sat, mode)
    if dst in INTS and src in INTS:
        if not sat:
            return "(%s)x" % dst
        lo, hi = int_range(dst)
        slo, shi = int_range(src)
        conds = []
        if lo > slo:
            conds.append("x < %s ? %s" % (int_literal(lo, src) if src != "ulong" else "0", int_literal(lo, dst)))
        # compare in the wider of the two when the source can exceed the destination
        if hi < shi:
            conds.append("x > %s ? %s" % (int_literal(hi, src) if INTS[src][1] or hi >= 0 else "0", int_literal(hi, dst)))
        elif INTS[src][1] and not INTS[dst][1] and False:
            pass
        expr = "(%s)x" % dst
        for c in reversed(conds):
            expr = "(%s : %s)" % (c, expr)
        return expr
    if dst in INTS and src in FLOATS:
        rnd = {"": "__builtin_trunc", "_rtz": "__builtin_trunc", "_rte": "__builtin_rint",
               "_rtp": "__builtin_ceil", "_rtn": "__builtin_floor"}[mode]
        if src == "float":
            rnd += "f"
        r = "%s(x)" % rnd if mode not in ("",) else "x"
        if not sat:
            return "(%s)%s" % (dst, r)
        lo, hi = int_range(dst)
        # hi+1 and lo are powers of two (or 0): exactly representable in float and double.
        lit = "f" if src == "float" else ""
        lo_f = "%s%s" % (float.hex(float(lo)), lit) if lo != 0 else "0.0" + lit
        hi1_f = "%s%s" % (float.hex(float(hi + 1)), lit)
        return ("(x != x ? (%s)0 : (%s >= %s ? %s : (%s <= %s ? %s : (%s)%s)))"
                % (dst, r, hi1_f, int_literal(hi, dst), r, lo_f, int_literal(lo, dst), dst, r))
    if dst in FLOATS and src in INTS:
        exact = INTS[src][0] <= FLOATS[dst] or (INTS[src][0] == 32 and dst == "double")
        if exact or mode in ("", "_rte"):
            return "(%s)x" % dst
        signed = INTS[src][1]
        return "kiln_int_to_%s%s(%s, (ulong)x)" % (dst, mode, "x < 0" if signed else "false")
    # float -> float
    if dst == src or (src == "float" and dst == "double") or mode in ("", "_rte"):
        return "(%s)x" % dst
    return "kiln_double_to_float%s(x)" % mode


HELPERS = r"""
/* Integer -> floating point with a directed rounding: |x| is truncated to the mantissa
 * width (exact), then moved one unit away from zero when bits were dropped and the mode
 * rounds the magnitude up. */
#define KILN_INT_TO_FP(FT, MANT)                                                        \
  static FT kiln_mag_to_##FT(ulong m, bool away) {                                      \
    int width = 64 - (m ? __builtin_clzl(m) : 64);                                      \
    if (width <= MANT) return (FT)m;                                                    \
    int shift = width - MANT;                                                           \
    ulong unit = 1UL << shift;                                                          \
    ulong kept = m & ~(unit - 1);                                                       \
    FT r = (FT)kept;                                                                    \
    if (away && kept != m) r += (FT)unit;                                               \
    return r;                                                                           \
  }                                                                                     \
  static FT kiln_int_to_##FT##_rtz(bool neg, ulong x) {                                 \
    return neg ? -kiln_mag_to_##FT(-x, false) : kiln_mag_to_##FT(x, false);             \
  }                                                                                     \
  static FT kiln_int_to_##FT##_rtp(bool neg, ulong x) {                                 \
    return neg ? -kiln_mag_to_##FT(-x, false) : kiln_mag_to_##FT(x, true);              \
  }                                                                                     \
  static FT kiln_int_to_##FT##_rtn(bool neg, ulong x) {                                 \
    return neg ? -kiln_mag_to_##FT(-x, true) : kiln_mag_to_##FT(x, false);              \
  }
KILN_INT_TO_FP(float, 24)
KILN_INT_TO_FP(double, 53)

/* The float next to f towards the direction of `up` (f finite or infinite, not NaN). */
static float kiln_float_step(float f, bool up) {
  if (f == 0.0f) return up ? 0x1p-149f : -0x1p-149f;
  uint b = __builtin_astype(f, uint);
  bool away = (f > 0.0f) == up;
  return __builtin_astype(away ? b + 1 : b - 1, float);
}
static float kiln_double_to_float_rtz(double x) {
  float f = (float)x;
  return (x == x && __builtin_fabs((double)f) > __builtin_fabs(x)) ? kiln_float_step(f, f < 0.0f) : f;
}
static float kiln_double_to_float_rtp(double x) {
  float f = (float)x;
  return (double)f < x ? kiln_float_step(f, true) : f;
}
static float kiln_double_to_float_rtn(double x) {
  float f = (float)x;
  return (double)f > x ? kiln_float_step(f, false) : f;
}

/* Round to odd: truncate, then set the last bit when anything was dropped. */
static float kiln_double_to_float_odd(double x) {
  float f = kiln_double_to_float_rtz(x);
  if (x != x || (double)f == x || __builtin_isinf(f)) return f;
  return __builtin_astype(__builtin_astype(f, uint) | 1u, float);
}

/* The half next to h towards the direction of `up` (h not NaN). */
static half kiln_half_step(half h, bool up) {
  if (h == (half)0.0f) return up ? __builtin_astype((ushort)1, half) : __builtin_astype((ushort)0x8001, half);
  ushort b = __builtin_astype(h, ushort);
  bool away = (h > (half)0.0f) == up;
  return __builtin_astype((ushort)(away ? b + 1 : b - 1), half);
}
/* float -> half: the RNE result, moved one step where the mode rounds the other way. */
static half kiln_float_to_half_rte(float x) { return (half)x; }
static half kiln_float_to_half_rtz(float x) {
  half h = (half)x;
  return (x == x && __builtin_fabsf((float)h) > __builtin_fabsf(x)) ? kiln_half_step(h, h < (half)0.0f) : h;
}
static half kiln_float_to_half_rtp(float x) {
  half h = (half)x;
  return (float)h < x ? kiln_half_step(h, true) : h;
}
static half kiln_float_to_half_rtn(float x) {
  half h = (half)x;
  return (float)h > x ? kiln_half_step(h, false) : h;
}
"""


def main():
    out = ["/* Generated by gen_conversions.py. Do not edit. */", '#include "kiln_cl.h"']
    # Every scalar conversion declared first: the ones from half call the float ones.
    for dst in TYPES:
        for sat in (["", "_sat"] if dst in INTS else [""]):
            for mode in MODES:
                out.append("OVL %s convert_%s%s%s(float x);" % (dst, dst, sat, mode))
    out.append(HELPERS)
    for dst in TYPES:
        for src in TYPES:
            for sat in (["", "_sat"] if dst in INTS else [""]):
                for mode in MODES:
                    body = scalar_body(dst, src, sat == "_sat", mode)
                    name = "convert_%s%s%s" % (dst, sat, mode)
                    out.append("OVLI %s %s(%s x) { return %s; }" % (dst, name, src, body))
                    for n in SIZES[1:]:
                        vname = "convert_%s%s%s%s" % (dst, n, sat, mode)
                        simple = body == "(%s)x" % dst
                        if simple:
                            out.append("OVLI %s%s %s(%s%s x) { return __builtin_convertvector(x, %s%s); }"
                                       % (dst, n, vname, src, n, dst, n))
                        else:
                            out.append("OVL %s%s %s(%s%s x) { %s%s r; for (int i = 0; i < %s; ++i) r[i] = %s(x[i]); return r; }"
                                       % (dst, n, vname, src, n, dst, n, n, name))
    with open(sys.argv[1], "w") as f:
        f.write("\n".join(out) + "\n")


if __name__ == "__main__":
    main()
