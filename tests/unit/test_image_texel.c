/* Image elements in host code (runtime/image_texel.h) against the environment spec's
 * conversion rules, with values worked out by hand: normalized integers round to nearest
 * even and saturate (NaN to 0), integers saturate, half rounds to nearest even, sRGB
 * converts color but not alpha, channels land in the order's memory order, packed
 * formats in their bit fields, and reads fill missing components as the spec's table says. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "runtime/image_texel.h"

#include <math.h>
#include <string.h>

static union kiln_texel floats(float r, float g, float b, float a) { return (union kiln_texel){.f = {r, g, b, a}}; }

static void pack(cl_channel_order order, cl_channel_type type, union kiln_texel color, void *out) {
  cl_image_format format = {order, type};
  kiln_texel_pack(&format, &color, out);
}

static union kiln_texel unpack(cl_channel_order order, cl_channel_type type, const void *in) {
  cl_image_format format = {order, type};
  union kiln_texel color;
  kiln_texel_unpack(&format, in, &color);
  return color;
}

static void test_unorm_rounds_to_even_and_saturates(void **state) {
  (void)state;
  uint8_t b[4];
  pack(CL_RGBA, CL_UNORM_INT8, floats(0.5f, -1.0f, 2.0f, NAN), b); /* 127.5 -> 128 */
  assert_memory_equal(b, ((uint8_t[]){128, 0, 255, 0}), 4);
  uint16_t s[1];
  pack(CL_R, CL_UNORM_INT16, floats(0.5f, 0, 0, 0), s); /* 32767.5 -> 32768 */
  assert_int_equal(32768, s[0]);
  union kiln_texel c = unpack(CL_RGBA, CL_UNORM_INT8, (uint8_t[]){0, 255, 51, 255});
  assert_true(c.f[0] == 0.0f && c.f[1] == 1.0f && fabsf(c.f[2] - 0.2f) < 1e-7f && c.f[3] == 1.0f);
}

static void test_snorm(void **state) {
  (void)state;
  int8_t b[4];
  pack(CL_RGBA, CL_SNORM_INT8, floats(-1.0f, -2.0f, 1.0f, 0.0f), b);
  assert_memory_equal(b, ((int8_t[]){-127, -128, 127, 0}), 4);
  union kiln_texel c = unpack(CL_RGBA, CL_SNORM_INT8, (int8_t[]){-128, -127, 127, 0});
  assert_true(c.f[0] == -1.0f && c.f[1] == -1.0f && c.f[2] == 1.0f && c.f[3] == 0.0f);
}

static void test_integers_saturate(void **state) {
  (void)state;
  int8_t i8[2];
  pack(CL_RG, CL_SIGNED_INT8, (union kiln_texel){.i = {300, -300, 0, 0}}, i8);
  assert_memory_equal(i8, ((int8_t[]){127, -128}), 2);
  uint16_t u16[1];
  pack(CL_R, CL_UNSIGNED_INT16, (union kiln_texel){.u = {70000, 0, 0, 0}}, u16);
  assert_int_equal(65535, u16[0]);
  union kiln_texel c = unpack(CL_RG, CL_UNSIGNED_INT8, (uint8_t[]){200, 7});
  assert_true(c.u[0] == 200 && c.u[1] == 7 && c.u[2] == 0 && c.u[3] == 1); /* (R, G, 0, 1) */
  c = unpack(CL_R, CL_SIGNED_INT16, (int16_t[]){-5});
  assert_true(c.i[0] == -5 && c.i[3] == 1);
}

static void test_half(void **state) {
  (void)state;
  uint16_t h[4];
  pack(CL_RGBA, CL_HALF_FLOAT, floats(1.0f, 65520.0f, -2.0f, 1.0f / 3), h);
  assert_int_equal(0x3C00, h[0]);
  assert_int_equal(0x7C00, h[1]); /* rounds to infinity */
  assert_int_equal(0xC000, h[2]);
  assert_int_equal(0x3555, h[3]); /* 1/3 to nearest even */
  union kiln_texel c = unpack(CL_RGBA, CL_HALF_FLOAT, h);
  assert_true(c.f[0] == 1.0f && isinf(c.f[1]) && c.f[2] == -2.0f);
}

static void test_memory_order_of_channels(void **state) {
  (void)state;
  uint8_t b[4];
  pack(CL_BGRA, CL_UNORM_INT8, floats(1.0f, 0.0f, 0.0f, 0.5f), b);
  assert_memory_equal(b, ((uint8_t[]){0, 0, 255, 128}), 4);
  pack(CL_ARGB, CL_UNSIGNED_INT8, (union kiln_texel){.u = {1, 2, 3, 4}}, b);
  assert_memory_equal(b, ((uint8_t[]){4, 1, 2, 3}), 4);
  union kiln_texel c = unpack(CL_BGRA, CL_UNORM_INT8, (uint8_t[]){0, 0, 255, 255});
  assert_true(c.f[0] == 1.0f && c.f[2] == 0.0f);
  float f[2] = {7, 7};
  pack(CL_Rx, CL_FLOAT, floats(3.0f, 9.0f, 9.0f, 9.0f), f);
  assert_true(f[0] == 3.0f && f[1] == 0.0f); /* the ignored channel is written 0 */
}

static void test_missing_components(void **state) {
  (void)state;
  union kiln_texel c = unpack(CL_A, CL_UNORM_INT8, (uint8_t[]){255});
  assert_true(c.f[0] == 0 && c.f[1] == 0 && c.f[2] == 0 && c.f[3] == 1.0f);
  c = unpack(CL_INTENSITY, CL_FLOAT, (float[]){0.25f});
  assert_true(c.f[0] == 0.25f && c.f[1] == 0.25f && c.f[2] == 0.25f && c.f[3] == 0.25f);
  c = unpack(CL_LUMINANCE, CL_FLOAT, (float[]){0.25f});
  assert_true(c.f[0] == 0.25f && c.f[1] == 0.25f && c.f[2] == 0.25f && c.f[3] == 1.0f);
  c = unpack(CL_R, CL_FLOAT, (float[]){0.25f});
  assert_true(c.f[0] == 0.25f && c.f[1] == 0 && c.f[2] == 0 && c.f[3] == 1.0f);
  c = unpack(CL_DEPTH, CL_UNORM_INT16, (uint16_t[]){65535});
  assert_true(c.f[0] == 1.0f);
}

static void test_srgb_converts_color_not_alpha(void **state) {
  (void)state;
  uint8_t b[4];
  /* 0.5 linear: 1.055 * 0.5^(1/2.4) - 0.055 = 0.7354 sRGB, * 255 = 187.5 -> 188. */
  pack(CL_sRGBA, CL_UNORM_INT8, floats(0.5f, 1.0f, 0.0f, 0.5f), b);
  assert_memory_equal(b, ((uint8_t[]){188, 255, 0, 128}), 4);
  union kiln_texel c = unpack(CL_sRGBA, CL_UNORM_INT8, (uint8_t[]){255, 0, 188, 128});
  assert_true(c.f[0] == 1.0f && c.f[1] == 0.0f && fabsf(c.f[2] - 0.5029f) < 1e-3f &&
              fabsf(c.f[3] - 128 / 255.0f) < 1e-7f);
}

static void test_packed_formats(void **state) {
  (void)state;
  uint16_t s;
  pack(CL_RGB, CL_UNORM_SHORT_565, floats(1.0f, 0.5f, 0.0f, 0), &s); /* G: 31.5 -> 32 */
  assert_int_equal(31 << 11 | 32 << 5, s);
  union kiln_texel c = unpack(CL_RGB, CL_UNORM_SHORT_565, &s);
  assert_true(c.f[0] == 1.0f && fabsf(c.f[1] - 32 / 63.0f) < 1e-7f && c.f[2] == 0 && c.f[3] == 1.0f);
  pack(CL_RGBx, CL_UNORM_SHORT_555, floats(0.0f, 1.0f, 0.0f, 0), &s);
  assert_int_equal(31 << 5, s);
  uint32_t w;
  pack(CL_RGBA, CL_UNORM_INT_101010_2, floats(1.0f, 0.0f, 0.0f, 1.0f), &w);
  assert_int_equal(0xFFC00003u, w);
  pack(CL_RGB, CL_UNORM_INT_101010, floats(0.0f, 0.0f, 1.0f, 0), &w);
  assert_int_equal(1023u, w);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_unorm_rounds_to_even_and_saturates),
      cmocka_unit_test(test_snorm),
      cmocka_unit_test(test_integers_saturate),
      cmocka_unit_test(test_half),
      cmocka_unit_test(test_memory_order_of_channels),
      cmocka_unit_test(test_missing_components),
      cmocka_unit_test(test_srgb_converts_color_not_alpha),
      cmocka_unit_test(test_packed_formats),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
