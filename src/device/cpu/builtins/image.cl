/* Image functions (OpenCL C 3.0 §6.15.15): read_imagef/i/ui/h with a sampler, samplerless
 * reads, write_imagef/i/ui/h (3D writes included) and the get_image_* queries, for every
 * image type and access qualifier, by the addressing, filtering and conversion rules of
 * the OpenCL environment spec (env/image_addressing_and_filtering.asciidoc).
 *
 * An image is a pointer to its struct kiln_device_image (kernel_abi.h), a sampler its
 * KILN_SAMPLER_* bits: __kiln_image_desc and __kiln_sampler_bits are declared here and
 * turned into casts by the compiler (compiler/opaque_types.cpp). Everything is
 * always_inline, so a read in a kernel is a few loads and arithmetic; a sampler known at
 * compile time (a constant sampler_t) folds its addressing and filter choices away.
 *
 * Formats: the ones runtime/image_format.c lists — orders R, RG, RGBA, BGRA, sRGBA and
 * DEPTH with the twelve non-packed data types. Out-of-range coordinates where the spec
 * leaves the result undefined (samplerless reads, writes, CLK_ADDRESS_NONE) read the
 * border color and skip the write: never memory outside the image. */
#include "kiln_cl.h"

/* struct kiln_device_image, field for field. */
typedef struct {
  __global uchar *data;
  ulong row_pitch, slice_pitch;
  int width, height, depth, array_size;
  uint order, type, element_size, image_type;
} kiln_image;
typedef const __global kiln_image *kimg;

/* cl_channel_order / cl_channel_type values (CLK_* in OpenCL C). */
#define K_R 0x10B0
#define K_RG 0x10B2
#define K_RGBA 0x10B5
#define K_BGRA 0x10B6
#define K_DEPTH 0x10BD
#define K_sRGBA 0x10C1
#define K_SNORM_INT8 0x10D0
#define K_SNORM_INT16 0x10D1
#define K_UNORM_INT8 0x10D2
#define K_UNORM_INT16 0x10D3
#define K_SIGNED_INT8 0x10D7
#define K_SIGNED_INT16 0x10D8
#define K_SIGNED_INT32 0x10D9
#define K_UNSIGNED_INT8 0x10DA
#define K_UNSIGNED_INT16 0x10DB
#define K_UNSIGNED_INT32 0x10DC
#define K_HALF_FLOAT 0x10DD
#define K_FLOAT 0x10DE

/* Sampler bits (kernel_abi.h, = opencl-c-base.h's CLK_*). */
#define S_NORMALIZED 0x01u
#define S_ADDRESS(s) ((s) & 0x0Eu)
#define S_CLAMP_TO_EDGE 0x02u
#define S_CLAMP 0x04u
#define S_REPEAT 0x06u
#define S_MIRRORED_REPEAT 0x08u
#define S_LINEAR 0x20u

/* Geometry of a coordinate: which components address x, y, z (slice) and the layer. */
#define G_1D 1  /* x (1D and 1D buffer) */
#define G_1DA 2 /* x, layer in .y */
#define G_2D 3  /* x, y */
#define G_2DA 4 /* x, y, layer in .z */
#define G_3D 5  /* x, y, z */

/* Element loads and stores at any byte address (host-pointer images need not be aligned). */
#define UNALIGNED(T) typedef T T##_u __attribute__((aligned(1)));
#define UNALIGNED_VECTOR(T) \
  typedef T T##2_u __attribute__((ext_vector_type(2), aligned(1))); \
  typedef T T##4_u __attribute__((ext_vector_type(4), aligned(1)));
#define UNALIGNED_ALL(T) UNALIGNED(T) UNALIGNED_VECTOR(T)
UNALIGNED_ALL(uchar)
UNALIGNED_ALL(char)
UNALIGNED_ALL(ushort)
UNALIGNED_ALL(short)
UNALIGNED_ALL(uint)
UNALIGNED_ALL(int)
UNALIGNED_ALL(float)

/* Compiler-provided conversions (opaque_types.cpp). */
#define IMAGE_DESC_DECL(ACC, T) kimg OVL __kiln_image_desc(ACC T image);
#define IMAGE_DESC_ALL(T) IMAGE_DESC_DECL(read_only, T) IMAGE_DESC_DECL(write_only, T) IMAGE_DESC_DECL(read_write, T)
IMAGE_DESC_ALL(image1d_t)
IMAGE_DESC_ALL(image1d_buffer_t)
IMAGE_DESC_ALL(image1d_array_t)
IMAGE_DESC_ALL(image2d_t)
IMAGE_DESC_ALL(image2d_array_t)
IMAGE_DESC_ALL(image3d_t)
IMAGE_DESC_ALL(image2d_depth_t)
IMAGE_DESC_ALL(image2d_array_depth_t)
uint __kiln_sampler_bits(sampler_t sampler);

/* From the library's vector_load_store_half.cl. */
float4 OVL vload_half4(size_t i, const __global half *p);
float2 OVL vload_half2(size_t i, const __global half *p);
float OVL vload_half(size_t i, const __global half *p);
void OVL vstore_half4_rte(float4 v, size_t i, __global half *p);
void OVL vstore_half2_rte(float2 v, size_t i, __global half *p);
void OVL vstore_half_rte(float v, size_t i, __global half *p);

#define FMIN(a, b) __builtin_elementwise_min(a, b)
#define FMAX(a, b) __builtin_elementwise_max(a, b)
#define CLAMP(x, lo, hi) FMIN(FMAX(x, lo), hi) /* NaN -> lo */
/* An index into [0, size - 1]. As selects, not min/max intrinsics: with llvm.smax/smin the
 * 3x3 convolution of kiln_bench ran at half the speed (measured; the cause not traced). */
#define CLAMP_INDEX(v, size) ((v) < 0 ? 0 : (v) > (size) - 1 ? (size) - 1 : (v))
/* Normalized integer channels from floats: scaled, NaN to 0 (the spec's choice for
 * conversions), saturated, rounded to nearest even. */
#define TO_NORMALIZED(v, scale, lo, hi, T4) \
  __builtin_convertvector(__builtin_elementwise_rint(CLAMP((v) == (v) ? (v) * (scale) : 0.0f, (float4)(lo), (float4)(hi))), T4)

static inline __global uchar *kiln_address(kimg im, int x, int y, int z) {
  return im->data + (size_t)x * im->element_size + (size_t)y * im->row_pitch + (size_t)z * im->slice_pitch;
}
/* z is a 3D slice or an array layer: one of depth and array_size is 1. */
static inline bool kiln_inside(kimg im, int x, int y, int z) {
  return (uint)x < (uint)im->width && (uint)y < (uint)im->height && (uint)z < (uint)(im->depth * im->array_size);
}

/* ---- Loads: elements as read_image* returns them ---- */

/* Element stores of n channels of type T (1, 2 or 4). */
#define STORE_N(T, p, n, v)                                                                 \
  do {                                                                                      \
    if ((n) == 4) *(__global T##4_u *)(p) = (v);                                            \
    else if ((n) == 2) *(__global T##2_u *)(p) = (v).xy;                                    \
    else *(__global T##_u *)(p) = (v).x;                                                    \
  } while (0)

/* n stored channels of type T (n a constant: 1, 2 or 4), the rest 0. */
#define RAW(T, n, p)                                                                        \
  ((n) == 4   ? *(const __global T##4_u *)(p)                                               \
   : (n) == 2 ? (T##4)(*(const __global T##2_u *)(p), 0, 0)                                 \
              : (T##4)(*(const __global T##_u *)(p), 0, 0, 0))

/* Four 8-bit channels as one 32-bit load: split into scalars for vectorization across
 * work-items (compiler/work_item_vectorize.cpp), a texel is then one 32-bit gather, not
 * four byte gathers. */
#define RAW8(T, n, p) ((n) == 4 ? __builtin_astype(*(const __global uint_u *)(p), T##4) : RAW(T, n, p))

/* Channel data type -> float4 of the stored channels. Normalized values are scaled by a
 * reciprocal: within the spec's 1.5 ulp, and exact at 0 and the maximum, as it requires. */
#define DECODE_UNORM_INT8(p, n) (__builtin_convertvector(RAW8(uchar, n, p), float4) * (1.0f / 255.0f))
#define DECODE_UNORM_INT16(p, n) (__builtin_convertvector(RAW(ushort, n, p), float4) * (1.0f / 65535.0f))
#define DECODE_SNORM_INT8(p, n) FMAX(__builtin_convertvector(RAW8(char, n, p), float4) * (1.0f / 127.0f), (float4)-1.0f)
#define DECODE_SNORM_INT16(p, n) FMAX(__builtin_convertvector(RAW(short, n, p), float4) * (1.0f / 32767.0f), (float4)-1.0f)
#define DECODE_FLOAT(p, n) RAW(float, n, p)
#define DECODE_HALF_FLOAT(p, n)                                                                        \
  ((n) == 4   ? vload_half4(0, (const __global half *)(p))                                             \
   : (n) == 2 ? (float4)(vload_half2(0, (const __global half *)(p)), 0.0f, 0.0f)                      \
              : (float4)(vload_half(0, (const __global half *)(p)), 0.0f, 0.0f, 0.0f))

/* Missing components 0, alpha 1 (R, RG, DEPTH store fewer than 4 channels). */
#define COMPLETE(T4, v, n, one) ((n) == 4 ? (v) : (n) == 2 ? (T4)((v).x, (v).y, 0, one) : (T4)((v).x, 0, 0, one))

static inline float kiln_srgb_to_linear(float c) {
  return c <= 0.04045f ? c / 12.92f : __builtin_powf((c + 0.055f) / 1.055f, 2.4f);
}

/* The decoding a format needs, as one number: (channel data type - CL_SNORM_INT8) * 4 +
 * stored channels (1 R/DEPTH, 2 RG, 4 RGBA), with keys of their own for BGRA and sRGBA.
 * It depends only on the image's view, whose fields the launcher made per-call values, so
 * it is computed once per call and leaves one well-predicted jump per read; in a launcher
 * specialized for a format the view's format fields are constants, and so is the key. */
#define KEY(type, n) (((type) - K_SNORM_INT8) * 4 + (n))
#define KEY_BGRA 100
#define KEY_sRGBA 101
static inline uint kiln_format_key(kimg im) {
  uint order = im->order;
  return order == K_BGRA    ? KEY_BGRA
         : order == K_sRGBA ? KEY_sRGBA
                            : KEY(im->type, order == K_RGBA ? 4 : order == K_RG ? 2 : 1);
}

#define FOR_CHANNEL_COUNTS(M, ...) M(1, __VA_ARGS__) M(2, __VA_ARGS__) M(4, __VA_ARGS__)
#define FLOAT_CASE(n, TYPE)                                                                 \
  case KEY(K_##TYPE, n):                                                                    \
    for (int i = 0; i < count; i++) out[i] = COMPLETE(float4, DECODE_##TYPE(p[i], n), n, 1.0f); \
    break;
#define INT_CASE(n, TYPE, T, T4, one)                                                       \
  case KEY(K_##TYPE, n):                                                                    \
    for (int i = 0; i < count; i++) out[i] = COMPLETE(T4, __builtin_convertvector(RAW(T, n, p[i]), T4), n, one); \
    break;

/* `count` elements at p[0..count-1] as read_imagef returns them. Reading an integer
 * format with read_imagef is undefined: zeros. */
static inline void kiln_gather_f(kimg im, int count, const __global uchar *const *p, float4 *out) {
  switch (kiln_format_key(im)) {
    FOR_CHANNEL_COUNTS(FLOAT_CASE, UNORM_INT8)
    FOR_CHANNEL_COUNTS(FLOAT_CASE, UNORM_INT16)
    FOR_CHANNEL_COUNTS(FLOAT_CASE, SNORM_INT8)
    FOR_CHANNEL_COUNTS(FLOAT_CASE, SNORM_INT16)
    FOR_CHANNEL_COUNTS(FLOAT_CASE, HALF_FLOAT)
    FOR_CHANNEL_COUNTS(FLOAT_CASE, FLOAT)
  case KEY_BGRA:
    for (int i = 0; i < count; i++) out[i] = DECODE_UNORM_INT8(p[i], 4).zyxw;
    break;
  case KEY_sRGBA:
    for (int i = 0; i < count; i++) {
      float4 c = DECODE_UNORM_INT8(p[i], 4);
      out[i] = (float4)(kiln_srgb_to_linear(c.x), kiln_srgb_to_linear(c.y), kiln_srgb_to_linear(c.z), c.w);
    }
    break;
  default:
    for (int i = 0; i < count; i++) out[i] = 0.0f;
    break;
  }
}

/* Integer formats of the other signedness (undefined in the spec) read as GPUs read
 * them: the channel's value in a 32-bit register, reinterpreted (unsigned ones
 * zero-extended, signed ones sign-extended). Code written for GPUs relies on it. */
static inline void kiln_gather_i(kimg im, int count, const __global uchar *const *p, int4 *out) {
  switch (kiln_format_key(im)) {
    FOR_CHANNEL_COUNTS(INT_CASE, SIGNED_INT8, char, int4, 1)
    FOR_CHANNEL_COUNTS(INT_CASE, SIGNED_INT16, short, int4, 1)
    FOR_CHANNEL_COUNTS(INT_CASE, SIGNED_INT32, int, int4, 1)
    FOR_CHANNEL_COUNTS(INT_CASE, UNSIGNED_INT8, uchar, int4, 1)
    FOR_CHANNEL_COUNTS(INT_CASE, UNSIGNED_INT16, ushort, int4, 1)
    FOR_CHANNEL_COUNTS(INT_CASE, UNSIGNED_INT32, uint, int4, 1)
  default:
    for (int i = 0; i < count; i++) out[i] = 0;
    break;
  }
}

static inline void kiln_gather_ui(kimg im, int count, const __global uchar *const *p, uint4 *out) {
  switch (kiln_format_key(im)) {
    FOR_CHANNEL_COUNTS(INT_CASE, UNSIGNED_INT8, uchar, uint4, 1u)
    FOR_CHANNEL_COUNTS(INT_CASE, UNSIGNED_INT16, ushort, uint4, 1u)
    FOR_CHANNEL_COUNTS(INT_CASE, UNSIGNED_INT32, uint, uint4, 1u)
    FOR_CHANNEL_COUNTS(INT_CASE, SIGNED_INT8, char, uint4, 1u)
    FOR_CHANNEL_COUNTS(INT_CASE, SIGNED_INT16, short, uint4, 1u)
    FOR_CHANNEL_COUNTS(INT_CASE, SIGNED_INT32, int, uint4, 1u)
  default:
    for (int i = 0; i < count; i++) out[i] = 0;
    break;
  }
}

/* Border color (CLK_ADDRESS_CLAMP): 0, with alpha 1 for orders without alpha. */
static inline bool kiln_border_alpha_one(kimg im) { return im->order == K_R || im->order == K_RG || im->order == K_DEPTH; }

/* The elements at (x[i], y[i], z[i]), i < count (a constant): one decode for all of
 * them; an element outside the image reads the border color (its load goes to the
 * first element, always there, so that no branch is needed). `inside`: the caller's
 * addressing (clamp-to-edge) already kept every coordinate in the image. */
#define TEXELS(NAME, T4, GATHER, ONE)                                                        \
  static inline void NAME(kimg im, int count, const int *x, const int *y, const int *z, bool known_inside, \
                          T4 *out) {                                                         \
    const __global uchar *p[8];                                                              \
    bool inside[8];                                                                          \
    for (int i = 0; i < count; i++) {                                                        \
      inside[i] = known_inside || kiln_inside(im, x[i], y[i], z[i]);                         \
      p[i] = inside[i] ? kiln_address(im, x[i], y[i], z[i]) : im->data;                     \
    }                                                                                        \
    GATHER(im, count, p, out);                                                               \
    T4 border = (T4)(0, 0, 0, kiln_border_alpha_one(im) ? ONE : 0);                          \
    for (int i = 0; i < count; i++) out[i] = inside[i] ? out[i] : border;                    \
  }
TEXELS(kiln_texels_f, float4, kiln_gather_f, 1.0f) /* linear filtering reads float only */

/* One element: here a branch, not a select of addresses. Work-items along x reading
 * (x, y) then load consecutive addresses under a condition, which the vectorizer makes one
 * masked vector load (compiler/work_item_vectorize.cpp); a selected address is a gather.
 * Unvectorized, the branch is as good as always taken. */
#define TEXEL(NAME, T4, GATHER, ONE)                                                        \
  static inline T4 NAME(kimg im, int x, int y, int z, bool known_inside) {                  \
    T4 t;                                                                                    \
    if (known_inside || kiln_inside(im, x, y, z)) {                                          \
      const __global uchar *p = kiln_address(im, x, y, z);                                   \
      GATHER(im, 1, &p, &t);                                                                 \
    } else {                                                                                 \
      t = (T4)(0, 0, 0, kiln_border_alpha_one(im) ? ONE : 0);                                \
    }                                                                                        \
    return t;                                                                                \
  }
TEXEL(kiln_texel_f, float4, kiln_gather_f, 1.0f)
TEXEL(kiln_texel_i, int4, kiln_gather_i, 1)
TEXEL(kiln_texel_ui, uint4, kiln_gather_ui, 1u)

/* ---- Addressing and filtering ---- */

/* floor(u) as an int, u first clamped to [-1, size] so that the conversion is defined
 * (NaN gives -1: outside). */
static inline int kiln_floor_index(float u, int size) {
  return (int)__builtin_floorf(CLAMP(u, -1.0f, (float)size));
}

/* Nearest filtering: the element index along one axis. */
static inline int kiln_nearest(float c, int size, uint s) {
  float n = (float)size;
  if (s & S_NORMALIZED) {
    if (S_ADDRESS(s) == S_REPEAT) {
      int i = kiln_floor_index((c - __builtin_floorf(c)) * n, size);
      return i > size - 1 ? i - size : i;
    }
    if (S_ADDRESS(s) == S_MIRRORED_REPEAT) {
      float m = __builtin_fabsf(c - 2.0f * __builtin_rintf(0.5f * c));
      int i = kiln_floor_index(m * n, size);
      return __builtin_elementwise_min(i, size - 1);
    }
    c *= n;
  }
  int i = kiln_floor_index(c, size);
  return S_ADDRESS(s) == S_CLAMP_TO_EDGE ? CLAMP_INDEX(i, size) : i;
}

/* Linear filtering: the two element indices along one axis and the weight of the second. */
static inline int2 kiln_linear(float c, int size, uint s, float *weight) {
  float n = (float)size;
  bool repeat = (s & S_NORMALIZED) && S_ADDRESS(s) == S_REPEAT;
  bool mirrored = (s & S_NORMALIZED) && S_ADDRESS(s) == S_MIRRORED_REPEAT;
  float u = repeat     ? (c - __builtin_floorf(c)) * n
            : mirrored ? __builtin_fabsf(c - 2.0f * __builtin_rintf(0.5f * c)) * n
            : (s & S_NORMALIZED) ? c * n
                                 : c;
  float t = CLAMP(u, -1.0f, n + 1.0f) - 0.5f; /* keeps the indices in range of int */
  float f = __builtin_floorf(t);
  *weight = t - f;
  int i0 = (int)f, i1 = i0 + 1;
  if (repeat) {
    if (i0 < 0) i0 += size;
    if (i1 > size - 1) i1 -= size;
  } else if (mirrored || S_ADDRESS(s) == S_CLAMP_TO_EDGE) {
    i0 = CLAMP_INDEX(i0, size);
    i1 = CLAMP_INDEX(i1, size);
  }
  return (int2)(i0, i1);
}

/* The array layer of a float coordinate: clamp(rint(c), 0, array_size - 1). */
static inline int kiln_layer(kimg im, float c) {
  return (int)CLAMP(__builtin_rintf(c), 0.0f, (float)(im->array_size - 1));
}

/* Clamp-to-edge addressing leaves every index in the image (NaN included: floor_index). */
#define S_INSIDE(s) (S_ADDRESS(s) == S_CLAMP_TO_EDGE)

static inline float4 kiln_sample_f(kimg im, uint s, float4 c, int g) {
  int layer = g == G_1DA ? kiln_layer(im, c.y) : g == G_2DA ? kiln_layer(im, c.z) : 0;
  bool two = g >= G_2D, three = g == G_3D;
  if (!(s & S_LINEAR)) {
    int x = kiln_nearest(c.x, im->width, s);
    int y = two ? kiln_nearest(c.y, im->height, s) : 0;
    int z = three ? kiln_nearest(c.z, im->depth, s) : layer;
    return kiln_texel_f(im, x, y, z, S_INSIDE(s));
  }
  float a, b = 0.0f, d = 0.0f;
  int2 X = kiln_linear(c.x, im->width, s, &a);
  int2 Y = two ? kiln_linear(c.y, im->height, s, &b) : (int2)(0, 0);
  int2 Z = three ? kiln_linear(c.z, im->depth, s, &d) : (int2)(layer, layer);
  /* Corner i: x from bit 0, y from bit 1, z from bit 2; weights likewise. */
  int count = three ? 8 : two ? 4 : 2, x[8], y[8], z[8];
  float4 t[8];
  for (int i = 0; i < count; i++) {
    x[i] = i & 1 ? X.y : X.x;
    y[i] = i & 2 ? Y.y : Y.x;
    z[i] = i & 4 ? Z.y : Z.x;
  }
  kiln_texels_f(im, count, x, y, z, S_INSIDE(s), t);
  float4 sum = 0.0f;
  for (int i = 0; i < count; i++)
    sum += (i & 1 ? a : 1.0f - a) * (i & 2 ? b : 1.0f - b) * (i & 4 ? d : 1.0f - d) * t[i];
  return sum;
}

/* Integer formats: nearest filtering only (linear is undefined for them). */
#define SAMPLE_INT(NAME, R, TEXEL)                                                          \
  static inline R NAME(kimg im, uint s, float4 c, int g) {                                  \
    int layer = g == G_1DA ? kiln_layer(im, c.y) : g == G_2DA ? kiln_layer(im, c.z) : 0;     \
    int x = kiln_nearest(c.x, im->width, s);                                                \
    int y = g >= G_2D ? kiln_nearest(c.y, im->height, s) : 0;                               \
    int z = g == G_3D ? kiln_nearest(c.z, im->depth, s) : layer;                            \
    return TEXEL(im, x, y, z, S_INSIDE(s));                                                 \
  }
SAMPLE_INT(kiln_sample_i, int4, kiln_texel_i)
SAMPLE_INT(kiln_sample_ui, uint4, kiln_texel_ui)

/* Integer coordinates with a sampler, which the spec allows only unnormalized with nearest
 * filtering: clamp-to-edge clamps, clamp (and none) read the border outside the image;
 * the layer of an array is clamped. No float conversion on this path. */
static inline int4 kiln_int_coords(kimg im, uint s, int4 c, int g) {
  bool edge = S_INSIDE(s);
  int x = edge ? CLAMP_INDEX(c.x, im->width) : c.x;
  int y = g >= G_2D ? (edge ? CLAMP_INDEX(c.y, im->height) : c.y) : 0;
  int z = g == G_3D    ? (edge ? CLAMP_INDEX(c.z, im->depth) : c.z)
          : g == G_1DA ? CLAMP_INDEX(c.y, im->array_size)
          : g == G_2DA ? CLAMP_INDEX(c.z, im->array_size)
                       : 0;
  return (int4)(x, y, z, 0);
}
#define SAMPLE_AT(NAME, R, TEXEL)                                                           \
  static inline R NAME(kimg im, uint s, int4 c, int g) {                                    \
    int4 p = kiln_int_coords(im, s, c, g);                                                  \
    return TEXEL(im, p.x, p.y, p.z, S_INSIDE(s));                                           \
  }
SAMPLE_AT(kiln_sample_at_f, float4, kiln_texel_f)
SAMPLE_AT(kiln_sample_at_i, int4, kiln_texel_i)
SAMPLE_AT(kiln_sample_at_ui, uint4, kiln_texel_ui)

/* Samplerless reads and writes: integer coordinates as they are. */
#define X_OF(c, g) (c).x
#define Y_OF(c, g) ((g) >= G_2D ? (c).y : 0)
#define Z_OF(c, g) ((g) == G_1DA ? (c).y : (g) >= G_2DA ? (c).z : 0)
#define FETCH(NAME, R, TEXEL) \
  static inline R NAME(kimg im, int4 c, int g) { return TEXEL(im, X_OF(c, g), Y_OF(c, g), Z_OF(c, g), false); }
FETCH(kiln_fetch_f, float4, kiln_texel_f)
FETCH(kiln_fetch_i, int4, kiln_texel_i)
FETCH(kiln_fetch_ui, uint4, kiln_texel_ui)

/* ---- Stores: a color converted to the element's format ---- */

/* Declares `p`, the element a write goes to; returns from the caller (the write skipped)
 * when the coordinate is outside the image. */
#define STORE_TARGET(p, im, c, g)                                                           \
  int x_ = X_OF(c, g), y_ = Y_OF(c, g), z_ = Z_OF(c, g);                                   \
  if (!kiln_inside(im, x_, y_, z_)) return;                                                 \
  __global uchar *p = kiln_address(im, x_, y_, z_)

/* Channel encoders: a color's stored channels from float4 / int4 / uint4. */
#define ENCODE_UNORM_INT8(v) TO_NORMALIZED(v, 255.0f, 0.0f, 255.0f, uchar4)
#define ENCODE_UNORM_INT16(v) TO_NORMALIZED(v, 65535.0f, 0.0f, 65535.0f, ushort4)
#define ENCODE_SNORM_INT8(v) TO_NORMALIZED(v, 127.0f, -128.0f, 127.0f, char4)
#define ENCODE_SNORM_INT16(v) TO_NORMALIZED(v, 32767.0f, -32768.0f, 32767.0f, short4)
#define ENCODE_FLOAT(v) (v)
#define ENCODE_SIGNED_INT8(v) __builtin_convertvector(__builtin_elementwise_min(__builtin_elementwise_max(v, (int4)-128), (int4)127), char4)
#define ENCODE_SIGNED_INT16(v) __builtin_convertvector(__builtin_elementwise_min(__builtin_elementwise_max(v, (int4)-32768), (int4)32767), short4)
#define ENCODE_SIGNED_INT32(v) (v)
#define ENCODE_UNSIGNED_INT8(v) __builtin_convertvector(__builtin_elementwise_min(v, (uint4)255), uchar4)
#define ENCODE_UNSIGNED_INT16(v) __builtin_convertvector(__builtin_elementwise_min(v, (uint4)65535), ushort4)
#define ENCODE_UNSIGNED_INT32(v) (v)
#define STORE_CASE(n, TYPE, T)                                                              \
  case KEY(K_##TYPE, n):                                                                    \
    STORE_N(T, p, n, ENCODE_##TYPE(v));                                                     \
    break;
#define STORE_HALF_CASE(n, unused)                                                          \
  case KEY(K_HALF_FLOAT, n):                                                                \
    if (n == 4) vstore_half4_rte(v, 0, (__global half *)p);                                 \
    else if (n == 2) vstore_half2_rte(v.xy, 0, (__global half *)p);                         \
    else vstore_half_rte(v.x, 0, (__global half *)p);                                       \
    break;

/* write_image*: out-of-range coordinates (undefined) store nothing; a float color to an
 * integer format or an integer color to a normalized or float one (undefined too) as
 * well. */
static inline void kiln_store_f(kimg im, int4 coord, int g, float4 v) {
  STORE_TARGET(p, im, coord, g);
  switch (kiln_format_key(im)) {
    FOR_CHANNEL_COUNTS(STORE_CASE, UNORM_INT8, uchar)
    FOR_CHANNEL_COUNTS(STORE_CASE, UNORM_INT16, ushort)
    FOR_CHANNEL_COUNTS(STORE_CASE, SNORM_INT8, char)
    FOR_CHANNEL_COUNTS(STORE_CASE, SNORM_INT16, short)
    FOR_CHANNEL_COUNTS(STORE_CASE, FLOAT, float)
    FOR_CHANNEL_COUNTS(STORE_HALF_CASE, 0)
  case KEY_BGRA:
    STORE_N(uchar, p, 4, ENCODE_UNORM_INT8(v.zyxw));
    break;
  default:
    break;
  }
}

/* A store to an integer format of the other signedness (undefined in the spec) stores the
 * value's bits reinterpreted, then encoded as that format encodes (as GPUs do). */
#define STORE_CASE_AS(n, TYPE, T, AS)                                                       \
  case KEY(K_##TYPE, n):                                                                    \
    STORE_N(T, p, n, ENCODE_##TYPE(AS(v)));                                                 \
    break;
#define KILN_AS_UINT4(v) __builtin_astype((v), uint4)
#define KILN_AS_INT4(v) __builtin_astype((v), int4)
#define STORE_INTEGERS(NAME, T4, TYPE8, T8, TYPE16, T16, TYPE32, T32, AS, OTYPE8, OT8, OTYPE16, OT16, OTYPE32, OT32) \
  static inline void NAME(kimg im, int4 coord, int g, T4 v) {                               \
    STORE_TARGET(p, im, coord, g);                                                          \
    switch (kiln_format_key(im)) {                                                          \
      FOR_CHANNEL_COUNTS(STORE_CASE, TYPE8, T8)                                             \
      FOR_CHANNEL_COUNTS(STORE_CASE, TYPE16, T16)                                           \
      FOR_CHANNEL_COUNTS(STORE_CASE, TYPE32, T32)                                           \
      FOR_CHANNEL_COUNTS(STORE_CASE_AS, OTYPE8, OT8, AS)                                    \
      FOR_CHANNEL_COUNTS(STORE_CASE_AS, OTYPE16, OT16, AS)                                  \
      FOR_CHANNEL_COUNTS(STORE_CASE_AS, OTYPE32, OT32, AS)                                  \
    default:                                                                                \
      break;                                                                                \
    }                                                                                       \
  }
STORE_INTEGERS(kiln_store_i, int4, SIGNED_INT8, char, SIGNED_INT16, short, SIGNED_INT32, int, KILN_AS_UINT4, UNSIGNED_INT8,
               uchar, UNSIGNED_INT16, ushort, UNSIGNED_INT32, uint)
STORE_INTEGERS(kiln_store_ui, uint4, UNSIGNED_INT8, uchar, UNSIGNED_INT16, ushort, UNSIGNED_INT32, uint, KILN_AS_INT4,
               SIGNED_INT8, char, SIGNED_INT16, short, SIGNED_INT32, int)

/* ---- The OpenCL C functions ---- */

/* Coordinates widened to 4 components. */
static inline OVLI float4 kiln_f4(float c) { return (float4)(c, 0.0f, 0.0f, 0.0f); }
static inline OVLI float4 kiln_f4(float2 c) { return (float4)(c, 0.0f, 0.0f); }
static inline OVLI float4 kiln_f4(float4 c) { return c; }
static inline OVLI int4 kiln_i4(int c) { return (int4)(c, 0, 0, 0); }
static inline OVLI int4 kiln_i4(int2 c) { return (int4)(c, 0, 0); }
static inline OVLI int4 kiln_i4(int4 c) { return c; }

#define IMG(i) __kiln_image_desc(i)
/* read_imageh/write_imageh (cl_khr_fp16): through the float forms; a float read of a
 * HALF_FLOAT image is exact, and other formats' values round once to half. */
#define HALF4(v) __builtin_convertvector((v), half4)
#define BITS(s) __kiln_sampler_bits(s)

/* read_image{f,i,ui} with a sampler, float and integer coordinates (read_only images). */
#define SAMPLED(T, G, FC, IC)                                                                                  \
  OVLI float4 read_imagef(read_only T im, sampler_t s, FC c) { return kiln_sample_f(IMG(im), BITS(s), kiln_f4(c), G); } \
  OVLI float4 read_imagef(read_only T im, sampler_t s, IC c) { return kiln_sample_at_f(IMG(im), BITS(s), kiln_i4(c), G); } \
  OVLI int4 read_imagei(read_only T im, sampler_t s, FC c) { return kiln_sample_i(IMG(im), BITS(s), kiln_f4(c), G); }   \
  OVLI int4 read_imagei(read_only T im, sampler_t s, IC c) { return kiln_sample_at_i(IMG(im), BITS(s), kiln_i4(c), G); } \
  OVLI uint4 read_imageui(read_only T im, sampler_t s, FC c) { return kiln_sample_ui(IMG(im), BITS(s), kiln_f4(c), G); } \
  OVLI uint4 read_imageui(read_only T im, sampler_t s, IC c) { return kiln_sample_at_ui(IMG(im), BITS(s), kiln_i4(c), G); } \
  OVLI half4 read_imageh(read_only T im, sampler_t s, FC c) { return HALF4(read_imagef(im, s, c)); }             \
  OVLI half4 read_imageh(read_only T im, sampler_t s, IC c) { return HALF4(read_imagef(im, s, c)); }
SAMPLED(image1d_t, G_1D, float, int)
SAMPLED(image1d_array_t, G_1DA, float2, int2)
SAMPLED(image2d_t, G_2D, float2, int2)
SAMPLED(image2d_array_t, G_2DA, float4, int4)
SAMPLED(image3d_t, G_3D, float4, int4)

/* Samplerless reads (read_only and read_write images). */
#define FETCHES(ACC, T, G, IC)                                                                       \
  OVLI float4 read_imagef(ACC T im, IC c) { return kiln_fetch_f(IMG(im), kiln_i4(c), G); }          \
  OVLI int4 read_imagei(ACC T im, IC c) { return kiln_fetch_i(IMG(im), kiln_i4(c), G); }            \
  OVLI uint4 read_imageui(ACC T im, IC c) { return kiln_fetch_ui(IMG(im), kiln_i4(c), G); }          \
  OVLI half4 read_imageh(ACC T im, IC c) { return HALF4(read_imagef(im, c)); }
/* Writes (write_only and read_write images). */
#define WRITES(ACC, T, G, IC)                                                                                 \
  OVLI void write_imagef(ACC T im, IC c, float4 v) { kiln_store_f(IMG(im), kiln_i4(c), G, v); }             \
  OVLI void write_imagei(ACC T im, IC c, int4 v) { kiln_store_i(IMG(im), kiln_i4(c), G, v); }               \
  OVLI void write_imageui(ACC T im, IC c, uint4 v) { kiln_store_ui(IMG(im), kiln_i4(c), G, v); }             \
  OVLI void write_imageh(ACC T im, IC c, half4 v) { write_imagef(im, c, __builtin_convertvector(v, float4)); }
#define READ_WRITE_ALL(M)                                  \
  M(image1d_t, G_1D, int)                                  \
  M(image1d_buffer_t, G_1D, int)                           \
  M(image1d_array_t, G_1DA, int2)                          \
  M(image2d_t, G_2D, int2)                                 \
  M(image2d_array_t, G_2DA, int4)                          \
  M(image3d_t, G_3D, int4)
#define FETCHES_RO(T, G, IC) FETCHES(read_only, T, G, IC)
#define FETCHES_RW(T, G, IC) FETCHES(read_write, T, G, IC)
#define WRITES_WO(T, G, IC) WRITES(write_only, T, G, IC)
#define WRITES_RW(T, G, IC) WRITES(read_write, T, G, IC)
READ_WRITE_ALL(FETCHES_RO)
READ_WRITE_ALL(FETCHES_RW)
READ_WRITE_ALL(WRITES_WO)
READ_WRITE_ALL(WRITES_RW)

/* Depth images (cl_khr_depth_images): one float. */
#define DEPTH(T, G, FC, IC)                                                                                   \
  OVLI float read_imagef(read_only T im, sampler_t s, FC c) { return kiln_sample_f(IMG(im), BITS(s), kiln_f4(c), G).x; } \
  OVLI float read_imagef(read_only T im, sampler_t s, IC c) { return kiln_sample_at_f(IMG(im), BITS(s), kiln_i4(c), G).x; } \
  OVLI float read_imagef(read_only T im, IC c) { return kiln_fetch_f(IMG(im), kiln_i4(c), G).x; }                      \
  OVLI float read_imagef(read_write T im, IC c) { return kiln_fetch_f(IMG(im), kiln_i4(c), G).x; }                     \
  OVLI void write_imagef(write_only T im, IC c, float v) { kiln_store_f(IMG(im), kiln_i4(c), G, (float4)(v, 0.0f, 0.0f, 0.0f)); } \
  OVLI void write_imagef(read_write T im, IC c, float v) { kiln_store_f(IMG(im), kiln_i4(c), G, (float4)(v, 0.0f, 0.0f, 0.0f)); }
DEPTH(image2d_depth_t, G_2D, float2, int2)
DEPTH(image2d_array_depth_t, G_2DA, float4, int4)

/* Queries, for every access qualifier. */
#define QUERIES_COMMON(ACC, T)                                                              \
  OVLI int get_image_width(ACC T im) { return IMG(im)->width; }                             \
  OVLI int get_image_channel_data_type(ACC T im) { return (int)IMG(im)->type; }             \
  OVLI int get_image_channel_order(ACC T im) { return (int)IMG(im)->order; }
#define QUERIES_HEIGHT(ACC, T) OVLI int get_image_height(ACC T im) { return IMG(im)->height; }
#define QUERIES_ARRAY(ACC, T) OVLI size_t get_image_array_size(ACC T im) { return (size_t)IMG(im)->array_size; }
#define QUERIES_DIM2(ACC, T) OVLI int2 get_image_dim(ACC T im) { return (int2)(IMG(im)->width, IMG(im)->height); }
#define QUERIES_ACCESS(ACC)                                                                 \
  QUERIES_COMMON(ACC, image1d_t)                                                            \
  QUERIES_COMMON(ACC, image1d_buffer_t)                                                     \
  QUERIES_COMMON(ACC, image1d_array_t) QUERIES_ARRAY(ACC, image1d_array_t)                  \
  QUERIES_COMMON(ACC, image2d_t) QUERIES_HEIGHT(ACC, image2d_t) QUERIES_DIM2(ACC, image2d_t) \
  QUERIES_COMMON(ACC, image2d_array_t) QUERIES_HEIGHT(ACC, image2d_array_t)                 \
  QUERIES_DIM2(ACC, image2d_array_t) QUERIES_ARRAY(ACC, image2d_array_t)                    \
  QUERIES_COMMON(ACC, image2d_depth_t) QUERIES_HEIGHT(ACC, image2d_depth_t)                 \
  QUERIES_DIM2(ACC, image2d_depth_t)                                                        \
  QUERIES_COMMON(ACC, image2d_array_depth_t) QUERIES_HEIGHT(ACC, image2d_array_depth_t)     \
  QUERIES_DIM2(ACC, image2d_array_depth_t) QUERIES_ARRAY(ACC, image2d_array_depth_t)        \
  QUERIES_COMMON(ACC, image3d_t) QUERIES_HEIGHT(ACC, image3d_t)                             \
  OVLI int get_image_depth(ACC image3d_t im) { return IMG(im)->depth; }                     \
  OVLI int4 get_image_dim(ACC image3d_t im) { return (int4)(IMG(im)->width, IMG(im)->height, IMG(im)->depth, 0); }
QUERIES_ACCESS(read_only)
QUERIES_ACCESS(write_only)
QUERIES_ACCESS(read_write)
