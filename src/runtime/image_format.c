/* image_format.c: see image_format.h. The combination rules are the API spec's (each
 * packed data type names its orders; sRGB orders take CL_UNORM_INT8 only; CL_DEPTH
 * CL_UNORM_INT16 or CL_FLOAT) and, where the 3.0 text no longer spells them out, OpenCL
 * 1.2's, which the CTS still follows (CL_INTENSITY and CL_LUMINANCE take normalized,
 * half and float types; CL_ARGB, CL_BGRA and CL_ABGR 8-bit types; CL_RGB and CL_RGBx
 * packed types only). */
#include "runtime/image_format.h"

/* Bytes of one channel of an unpacked data type; 0 for packed and unknown types. */
static size_t channel_size(cl_channel_type type) {
  switch (type) {
  case CL_SNORM_INT8:
  case CL_UNORM_INT8:
  case CL_SIGNED_INT8:
  case CL_UNSIGNED_INT8:
    return 1;
  case CL_SNORM_INT16:
  case CL_UNORM_INT16:
  case CL_SIGNED_INT16:
  case CL_UNSIGNED_INT16:
  case CL_HALF_FLOAT:
    return 2;
  case CL_SIGNED_INT32:
  case CL_UNSIGNED_INT32:
  case CL_FLOAT:
    return 4;
  default:
    return 0;
  }
}

static enum kiln_texel_kind kind_of(cl_channel_type type) {
  switch (type) {
  case CL_SIGNED_INT8:
  case CL_SIGNED_INT16:
  case CL_SIGNED_INT32:
    return KILN_TEXEL_INT;
  case CL_UNSIGNED_INT8:
  case CL_UNSIGNED_INT16:
  case CL_UNSIGNED_INT32:
    return KILN_TEXEL_UINT;
  default:
    return KILN_TEXEL_FLOAT;
  }
}

/* Stored channels of an order; 0 for unknown orders. */
static unsigned channels_of(cl_channel_order order) {
  switch (order) {
  case CL_R:
  case CL_A:
  case CL_INTENSITY:
  case CL_LUMINANCE:
  case CL_DEPTH:
    return 1;
  case CL_RG:
  case CL_RA:
  case CL_Rx:
  case CL_DEPTH_STENCIL:
    return 2;
  case CL_RGB:
  case CL_RGx:
  case CL_sRGB:
    return 3;
  case CL_RGBA:
  case CL_ARGB:
  case CL_BGRA:
  case CL_ABGR:
  case CL_RGBx:
  case CL_sRGBA:
  case CL_sBGRA:
  case CL_sRGBx:
    return 4;
  default:
    return 0;
  }
}

static bool is_srgb(cl_channel_order order) {
  return order == CL_sRGB || order == CL_sRGBA || order == CL_sBGRA || order == CL_sRGBx;
}

/* Packed data types: their element size and the orders they allow; 0 when not packed. */
static size_t packed_size(cl_channel_type type, cl_channel_order order, bool *order_ok) {
  switch (type) {
  case CL_UNORM_SHORT_565:
  case CL_UNORM_SHORT_555:
    *order_ok = order == CL_RGB || order == CL_RGBx;
    return 2;
  case CL_UNORM_INT_101010:
    *order_ok = order == CL_RGB || order == CL_RGBx;
    return 4;
  case CL_UNORM_INT_101010_2:
    *order_ok = order == CL_RGBA;
    return 4;
  case CL_UNORM_INT24: /* 24 depth bits in 32; with a stencil, the stencil in the other 8 */
    *order_ok = order == CL_DEPTH || order == CL_DEPTH_STENCIL;
    return 4;
  default:
    return 0;
  }
}

/* The unpacked data types an order allows. */
static bool order_allows(cl_channel_order order, cl_channel_type type) {
  bool normalized_or_float = type == CL_UNORM_INT8 || type == CL_UNORM_INT16 || type == CL_SNORM_INT8 ||
                             type == CL_SNORM_INT16 || type == CL_HALF_FLOAT || type == CL_FLOAT;
  switch (order) {
  case CL_INTENSITY:
  case CL_LUMINANCE:
    return normalized_or_float;
  case CL_ARGB:
  case CL_BGRA:
  case CL_ABGR:
    return channel_size(type) == 1;
  case CL_sRGB:
  case CL_sRGBA:
  case CL_sBGRA:
  case CL_sRGBx:
    return type == CL_UNORM_INT8;
  case CL_DEPTH:
    return type == CL_UNORM_INT16 || type == CL_FLOAT;
  case CL_DEPTH_STENCIL:
    return type == CL_FLOAT;
  case CL_RGB:
  case CL_RGBx:
    return false; /* packed types only */
  default:
    return true;
  }
}

bool kiln_image_format_describe(const cl_image_format *format, struct kiln_image_format_info *info) {
  if (!format) return false;
  cl_channel_order order = format->image_channel_order;
  cl_channel_type type = format->image_channel_data_type;
  unsigned channels = channels_of(order);
  if (channels == 0) return false;
  bool order_ok = false;
  size_t packed = packed_size(type, order, &order_ok);
  size_t size = channel_size(type);
  if (packed ? !order_ok : (size == 0 || !order_allows(order, type))) return false;
  info->channels = channels;
  /* A depth-stencil float element is the float depth and 8 stencil bits in a second word. */
  info->element_size = packed ? packed : order == CL_DEPTH_STENCIL ? 8 : size * channels;
  info->kind = kind_of(type);
  info->packed = packed != 0 && order != CL_DEPTH && order != CL_DEPTH_STENCIL;
  info->srgb = is_srgb(order);
  return true;
}

/* The OpenCL 2.0 minimum list (every type and access), which Kiln lists for 3.0 too: the
 * formats ML and imaging code uses. sRGBA is listed for reading only (writing sRGB needs
 * cl_khr_srgb_image_writes); depth formats for 2D and 2D-array images only
 * (cl_khr_depth_images). */
#define TYPES_12(order)                                                                                       \
  {order, CL_UNORM_INT8}, {order, CL_UNORM_INT16}, {order, CL_SNORM_INT8}, {order, CL_SNORM_INT16},           \
      {order, CL_SIGNED_INT8}, {order, CL_SIGNED_INT16}, {order, CL_SIGNED_INT32}, {order, CL_UNSIGNED_INT8}, \
      {order, CL_UNSIGNED_INT16}, {order, CL_UNSIGNED_INT32}, {order, CL_HALF_FLOAT}, {                       \
    order, CL_FLOAT                                                                                           \
  }
static const cl_image_format writable[] = {
    TYPES_12(CL_R), TYPES_12(CL_RG), TYPES_12(CL_RGBA), {CL_BGRA, CL_UNORM_INT8}};
static const cl_image_format readable[] = {
    TYPES_12(CL_R), TYPES_12(CL_RG), TYPES_12(CL_RGBA), {CL_BGRA, CL_UNORM_INT8}, {CL_sRGBA, CL_UNORM_INT8}};
static const cl_image_format writable_depth[] = {
    TYPES_12(CL_R),      TYPES_12(CL_RG), TYPES_12(CL_RGBA), {CL_BGRA, CL_UNORM_INT8}, {CL_DEPTH, CL_UNORM_INT16},
    {CL_DEPTH, CL_FLOAT}};
static const cl_image_format readable_depth[] = {
    TYPES_12(CL_R),           TYPES_12(CL_RG),           TYPES_12(CL_RGBA),
    {CL_BGRA, CL_UNORM_INT8}, {CL_sRGBA, CL_UNORM_INT8}, {CL_DEPTH, CL_UNORM_INT16},
    {CL_DEPTH, CL_FLOAT}};

#define COUNT(array) (sizeof array / sizeof array[0])

const cl_image_format *kiln_image_formats_supported(cl_mem_object_type type, cl_mem_flags flags, size_t *count) {
  bool depth = type == CL_MEM_OBJECT_IMAGE2D || type == CL_MEM_OBJECT_IMAGE2D_ARRAY;
  /* A kernel that only reads may use the readable formats; any writing access (write-only,
   * read-write, or no access flag, which means read-write) the writable ones. */
  bool read_only = (flags & CL_MEM_READ_ONLY) != 0;
  if (read_only) {
    *count = depth ? COUNT(readable_depth) : COUNT(readable);
    return depth ? readable_depth : readable;
  }
  *count = depth ? COUNT(writable_depth) : COUNT(writable);
  return depth ? writable_depth : writable;
}
