/* image_texel.c: see image_texel.h. */
#include "runtime/image_texel.h"

#include <math.h>
#include <string.h>

/* Which color component (0 R, 1 G, 2 B, 3 A; -1 ignored) each stored channel holds. */
static void channel_map(cl_channel_order order, int map[4]) {
  static const int r[4] = {0}, a[4] = {3}, rg[4] = {0, 1}, ra[4] = {0, 3}, rx[4] = {0, -1}, rgb[4] = {0, 1, 2},
                   rgx[4] = {0, 1, -1}, rgba[4] = {0, 1, 2, 3}, bgra[4] = {2, 1, 0, 3}, argb[4] = {3, 0, 1, 2},
                   abgr[4] = {3, 2, 1, 0}, rgbx[4] = {0, 1, 2, -1};
  const int *m;
  switch (order) {
  case CL_A:
    m = a;
    break;
  case CL_RG:
    m = rg;
    break;
  case CL_RA:
    m = ra;
    break;
  case CL_Rx:
    m = rx;
    break;
  case CL_RGB:
  case CL_sRGB:
    m = rgb;
    break;
  case CL_RGx:
    m = rgx;
    break;
  case CL_RGBA:
  case CL_sRGBA:
    m = rgba;
    break;
  case CL_BGRA:
  case CL_sBGRA:
    m = bgra;
    break;
  case CL_ARGB:
    m = argb;
    break;
  case CL_ABGR:
    m = abgr;
    break;
  case CL_RGBx:
  case CL_sRGBx:
    m = rgbx;
    break;
  default:
    m = r;
    break; /* R, INTENSITY, LUMINANCE, DEPTH: one channel from/to R */
  }
  memcpy(map, m, sizeof(int[4]));
}

/* float -> normalized integer: max(lo, min(hi, hi * x)) rounded to nearest even. */
static int32_t to_normalized(float x, float hi, float lo) {
  if (isnan(x)) return 0; /* implementation-defined */
  float f = hi * x;
  f = f > hi ? hi : f < lo ? lo : f;
  return (int32_t)rintf(f);
}

/* Linear -> sRGB. The spec's formula drops the sRGB standard's "- 0.055" in its last
 * case, which would map 1.0 to 1.055; its own rule that all 1s map to 1.0f, and the
 * standard it cites, have it. */
static float to_srgb(float y) {
  if (isnan(y) || y < 0) return 0;
  if (y < 0.0031308f) return 12.92f * y;
  if (y <= 1) return 1.055f * powf(y, 1.0f / 2.4f) - 0.055f;
  return 1;
}

static float from_srgb(float r) { return r <= 0.04045f ? r / 12.92f : powf((r + 0.055f) / 1.055f, 2.4f); }

static uint32_t clamp_u(uint32_t x, uint32_t hi) { return x > hi ? hi : x; }
static int32_t clamp_i(int32_t x, int32_t lo, int32_t hi) { return x < lo ? lo : x > hi ? hi : x; }

/* Packed formats: each color component's bit field (0 bits: absent, read as 1). The 10-bit
 * layouts are the CTS's: x:2 R:10 G:10 B:10 and R:10 G:10 B:10 A:2, high bits first. */
static const struct packed_layout {
  cl_channel_type type;
  size_t bytes;
  struct {
    unsigned shift, bits;
  } field[4];
} packed_layouts[] = {
    {CL_UNORM_SHORT_565, 2, {{11, 5}, {5, 6}, {0, 5}, {0, 0}}},
    {CL_UNORM_SHORT_555, 2, {{10, 5}, {5, 5}, {0, 5}, {0, 0}}},
    {CL_UNORM_INT_101010, 4, {{20, 10}, {10, 10}, {0, 10}, {0, 0}}},
    {CL_UNORM_INT_101010_2, 4, {{22, 10}, {12, 10}, {2, 10}, {0, 2}}},
};

static const struct packed_layout *packed_layout_of(cl_channel_type type) {
  for (size_t i = 0; i < sizeof packed_layouts / sizeof packed_layouts[0]; i++)
    if (packed_layouts[i].type == type) return &packed_layouts[i];
  return &packed_layouts[0]; /* unreachable: describe() accepted a packed type */
}

static void pack_packed(cl_channel_type type, const float *c, void *element) {
  const struct packed_layout *layout = packed_layout_of(type);
  uint32_t v = 0;
  for (int i = 0; i < 4; i++) {
    if (!layout->field[i].bits) continue;
    float max = (float)((1u << layout->field[i].bits) - 1);
    v |= (uint32_t)to_normalized(c[i], max, 0) << layout->field[i].shift;
  }
  if (layout->bytes == 2) {
    uint16_t s = (uint16_t)v;
    memcpy(element, &s, 2);
  } else {
    memcpy(element, &v, 4);
  }
}

static void unpack_packed(cl_channel_type type, const void *element, float *c) {
  const struct packed_layout *layout = packed_layout_of(type);
  uint32_t v;
  if (layout->bytes == 2) {
    uint16_t s;
    memcpy(&s, element, 2);
    v = s;
  } else {
    memcpy(&v, element, 4);
  }
  for (int i = 0; i < 4; i++) {
    unsigned max = (1u << layout->field[i].bits) - 1;
    c[i] = layout->field[i].bits ? (float)(v >> layout->field[i].shift & max) / (float)max : 1.0f;
  }
}

/* One channel value into `out` (its data type's width). */
static void pack_channel(cl_channel_type type, const union kiln_texel *color, int component, float f, void *out) {
  int32_t i = color->i[component];
  uint32_t u = color->u[component];
  switch (type) {
  case CL_UNORM_INT8:
    *(uint8_t *)out = (uint8_t)to_normalized(f, 255, 0);
    break;
  case CL_UNORM_INT16: {
    uint16_t v = (uint16_t)to_normalized(f, 65535, 0);
    memcpy(out, &v, 2);
    break;
  }
  case CL_SNORM_INT8:
    *(int8_t *)out = (int8_t)to_normalized(f, 127, -128);
    break;
  case CL_SNORM_INT16: {
    int16_t v = (int16_t)to_normalized(f, 32767, -32768);
    memcpy(out, &v, 2);
    break;
  }
  case CL_HALF_FLOAT: {
    _Float16 h = (_Float16)f;
    memcpy(out, &h, 2);
    break;
  } /* round to nearest even */
  case CL_FLOAT:
    memcpy(out, &f, 4);
    break;
  case CL_SIGNED_INT8:
    *(int8_t *)out = (int8_t)clamp_i(i, -128, 127);
    break;
  case CL_SIGNED_INT16: {
    int16_t v = (int16_t)clamp_i(i, -32768, 32767);
    memcpy(out, &v, 2);
    break;
  }
  case CL_SIGNED_INT32:
    memcpy(out, &i, 4);
    break;
  case CL_UNSIGNED_INT8:
    *(uint8_t *)out = (uint8_t)clamp_u(u, 255);
    break;
  case CL_UNSIGNED_INT16: {
    uint16_t v = (uint16_t)clamp_u(u, 65535);
    memcpy(out, &v, 2);
    break;
  }
  default:
    memcpy(out, &u, 4);
    break; /* CL_UNSIGNED_INT32 */
  }
}

/* One stored channel as read_image returns it, into `color` component `component`. */
static void unpack_channel(cl_channel_type type, const void *in, union kiln_texel *color, int component) {
  switch (type) {
  case CL_UNORM_INT8:
    color->f[component] = *(const uint8_t *)in / 255.0f;
    break;
  case CL_UNORM_INT16: {
    uint16_t v;
    memcpy(&v, in, 2);
    color->f[component] = v / 65535.0f;
    break;
  }
  case CL_SNORM_INT8:
    color->f[component] = fmaxf(-1.0f, *(const int8_t *)in / 127.0f);
    break;
  case CL_SNORM_INT16: {
    int16_t v;
    memcpy(&v, in, 2);
    color->f[component] = fmaxf(-1.0f, v / 32767.0f);
    break;
  }
  case CL_HALF_FLOAT: {
    _Float16 h;
    memcpy(&h, in, 2);
    color->f[component] = (float)h;
    break;
  }
  case CL_FLOAT:
    memcpy(&color->f[component], in, 4);
    break;
  case CL_SIGNED_INT8:
    color->i[component] = *(const int8_t *)in;
    break;
  case CL_SIGNED_INT16: {
    int16_t v;
    memcpy(&v, in, 2);
    color->i[component] = v;
    break;
  }
  case CL_UNSIGNED_INT8:
    color->u[component] = *(const uint8_t *)in;
    break;
  case CL_UNSIGNED_INT16: {
    uint16_t v;
    memcpy(&v, in, 2);
    color->u[component] = v;
    break;
  }
  default:
    memcpy(&color->u[component], in, 4);
    break; /* 32-bit integers */
  }
}

void kiln_texel_pack(const cl_image_format *format, const union kiln_texel *color, void *element) {
  struct kiln_image_format_info info;
  if (!kiln_image_format_describe(format, &info)) return;
  cl_channel_type type = format->image_channel_data_type;
  if (info.packed) {
    pack_packed(type, color->f, element);
    return;
  }
  int map[4];
  channel_map(format->image_channel_order, map);
  size_t width = info.element_size / info.channels;
  unsigned char *out = element;
  for (unsigned c = 0; c < info.channels; c++, out += width) {
    if (map[c] < 0) {
      memset(out, 0, width);
      continue;
    }
    float f = info.kind == KILN_TEXEL_FLOAT ? color->f[map[c]] : 0;
    if (info.srgb && map[c] != 3) f = to_srgb(f); /* alpha stays linear */
    pack_channel(type, color, map[c], f, out);
  }
}

void kiln_texel_unpack(const cl_image_format *format, const void *element, union kiln_texel *color) {
  struct kiln_image_format_info info;
  memset(color, 0, sizeof *color);
  if (!kiln_image_format_describe(format, &info)) return;
  cl_channel_type type = format->image_channel_data_type;
  if (info.packed) {
    unpack_packed(type, element, color->f);
    return;
  }
  /* Missing components: 0, and alpha 1 (1.0f or integer 1). */
  if (info.kind == KILN_TEXEL_FLOAT)
    color->f[3] = 1;
  else
    color->u[3] = 1;
  int map[4];
  channel_map(format->image_channel_order, map);
  size_t width = info.element_size / info.channels;
  const unsigned char *in = element;
  for (unsigned c = 0; c < info.channels; c++, in += width)
    if (map[c] >= 0) unpack_channel(type, in, color, map[c]);
  cl_channel_order order = format->image_channel_order;
  if (info.srgb)
    for (int c = 0; c < 3; c++) color->f[c] = from_srgb(color->f[c]);
  if (order == CL_INTENSITY) color->u[1] = color->u[2] = color->u[3] = color->u[0];
  if (order == CL_LUMINANCE) color->u[1] = color->u[2] = color->u[0];
}
