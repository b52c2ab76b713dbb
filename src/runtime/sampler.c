/* sampler.c: clCreateSampler, clCreateSamplerWithProperties, clRetainSampler,
 * clReleaseSampler and clGetSamplerInfo. A sampler holds its context (internal
 * reference); kernels get its KILN_SAMPLER_* bits, copied at clSetKernelArg. */
#include "runtime/sampler.h"
#include "runtime/debug_err.h"

#include "device/cpu/kernel_abi.h"
#include "runtime/context.h"
#include "runtime/info.h"

#include <stdlib.h>
#include <string.h>

/* The KILN_SAMPLER_* bits of an addressing mode, or false for an unknown mode. */
static bool addressing_bits(cl_addressing_mode mode, uint64_t *bits) {
  switch (mode) {
  case CL_ADDRESS_NONE:
    *bits = KILN_SAMPLER_ADDRESS_NONE;
    return true;
  case CL_ADDRESS_CLAMP_TO_EDGE:
    *bits = KILN_SAMPLER_ADDRESS_CLAMP_TO_EDGE;
    return true;
  case CL_ADDRESS_CLAMP:
    *bits = KILN_SAMPLER_ADDRESS_CLAMP;
    return true;
  case CL_ADDRESS_REPEAT:
    *bits = KILN_SAMPLER_ADDRESS_REPEAT;
    return true;
  case CL_ADDRESS_MIRRORED_REPEAT:
    *bits = KILN_SAMPLER_ADDRESS_MIRRORED_REPEAT;
    return true;
  default:
    return false;
  }
}

/* The sampler's state, validated: CL_INVALID_VALUE for a value outside its enum. The
 * repeat modes with unnormalized coordinates are accepted: OpenCL C leaves their results
 * undefined ("may generate image coordinates that are undefined") rather than the
 * combination invalid. */
struct sampler_state {
  cl_bool normalized_coords;
  cl_addressing_mode addressing_mode;
  cl_filter_mode filter_mode;
};

static cl_int state_bits(const struct sampler_state *s, uint64_t *bits) {
  if (s->normalized_coords != CL_TRUE && s->normalized_coords != CL_FALSE)
    return KILN_FAIL(CL_INVALID_VALUE, "rejected since (%s)",
                     "s->normalized_coords != CL_TRUE && s->normalized_coords != CL_FALSE");
  uint64_t address;
  if (!addressing_bits(s->addressing_mode, &address))
    return KILN_FAIL(CL_INVALID_VALUE, "rejected since (%s)", "!addressing_bits(s->addressing_mode, &address)");
  if (s->filter_mode != CL_FILTER_NEAREST && s->filter_mode != CL_FILTER_LINEAR)
    return KILN_FAIL(CL_INVALID_VALUE, "rejected since (%s)",
                     "s->filter_mode != CL_FILTER_NEAREST && s->filter_mode != CL_FILTER_LINEAR");
  *bits = address | (s->normalized_coords ? KILN_SAMPLER_NORMALIZED_COORDS : 0) |
          (s->filter_mode == CL_FILTER_LINEAR ? KILN_SAMPLER_FILTER_LINEAR : KILN_SAMPLER_FILTER_NEAREST);
  return CL_SUCCESS;
}

/* Reads a property list into `s` (defaults for what it leaves out) and counts its entries
 * incl. the terminator: CL_INVALID_VALUE for an unknown or repeated name. */
static cl_int parse_properties(const cl_sampler_properties *properties, struct sampler_state *s, size_t *count) {
  *count = 0;
  if (!properties) return CL_SUCCESS;
  bool seen[3] = {false, false, false};
  size_t i = 0;
  for (; properties[i] != 0; i += 2) {
    cl_sampler_properties value = properties[i + 1];
    int which;
    switch (properties[i]) {
    case CL_SAMPLER_NORMALIZED_COORDS:
      which = 0;
      s->normalized_coords = (cl_bool)value;
      /* a cl_bool wider than 0/1 must not pass as one after the narrowing */
      if (value != CL_TRUE && value != CL_FALSE)
        return KILN_FAIL(CL_INVALID_VALUE, "rejected since (%s)", "value != CL_TRUE && value != CL_FALSE");
      break;
    case CL_SAMPLER_ADDRESSING_MODE:
      which = 1;
      s->addressing_mode = (cl_addressing_mode)value;
      if ((cl_sampler_properties)s->addressing_mode != value)
        return KILN_FAIL(CL_INVALID_VALUE, "rejected since (%s)", "(cl_sampler_properties)s->addressing_mode != value");
      break;
    case CL_SAMPLER_FILTER_MODE:
      which = 2;
      s->filter_mode = (cl_filter_mode)value;
      if ((cl_sampler_properties)s->filter_mode != value)
        return KILN_FAIL(CL_INVALID_VALUE, "rejected since (%s)", "(cl_sampler_properties)s->filter_mode != value");
      break;
    default:
      return CL_INVALID_VALUE;
    }
    if (seen[which]) return KILN_FAIL(CL_INVALID_VALUE, "rejected since (%s)", "seen[which]");
    seen[which] = true;
  }
  *count = i + 1;
  return CL_SUCCESS;
}

static void sampler_destroy(struct kiln_object *object) {
  cl_sampler sampler = (cl_sampler)object;
  kiln_object_release(&sampler->context->obj);
  free(sampler->properties);
  kiln_object_free(&sampler->obj);
}

static cl_sampler create_sampler(cl_context context, const struct sampler_state *s,
                                 const cl_sampler_properties *properties, size_t properties_count, cl_int *err) {
  uint64_t bits;
  if ((*err = state_bits(s, &bits)) != CL_SUCCESS) return NULL;
  cl_sampler sampler = kiln_object_alloc(KILN_OBJECT_SAMPLER, sizeof *sampler);
  if (!sampler) {
    *err = KILN_FAIL(CL_OUT_OF_HOST_MEMORY, "rejected since (%s)", "!sampler");
    return NULL;
  }
  if (properties_count) {
    sampler->properties = malloc(properties_count * sizeof *properties);
    if (!sampler->properties) {
      kiln_object_free(&sampler->obj);
      *err = CL_OUT_OF_HOST_MEMORY;
      return NULL;
    }
    memcpy(sampler->properties, properties, properties_count * sizeof *properties);
    sampler->properties_count = properties_count;
  }
  sampler->context = context;
  kiln_object_retain(&context->obj);
  sampler->normalized_coords = s->normalized_coords;
  sampler->addressing_mode = s->addressing_mode;
  sampler->filter_mode = s->filter_mode;
  sampler->bits = bits;
  kiln_object_init(&sampler->obj, KILN_OBJECT_SAMPLER, sampler_destroy);
  *err = CL_SUCCESS;
  return sampler;
}

CL_API_ENTRY cl_sampler CL_API_CALL clCreateSampler(cl_context context, cl_bool normalized_coords,
                                                    cl_addressing_mode addressing_mode, cl_filter_mode filter_mode,
                                                    cl_int *errcode_ret) {
  KILN_API_CALL;
  cl_int err = CL_INVALID_CONTEXT;
  cl_sampler sampler = NULL;
  if (kiln_context_is_valid(context)) {
    struct sampler_state s = {normalized_coords, addressing_mode, filter_mode};
    sampler = create_sampler(context, &s, NULL, 0, &err);
  }
  if (errcode_ret) *errcode_ret = err;
  return sampler;
}

CL_API_ENTRY cl_sampler CL_API_CALL clCreateSamplerWithProperties(cl_context context,
                                                                  const cl_sampler_properties *properties,
                                                                  cl_int *errcode_ret) {
  KILN_API_CALL;
  cl_int err = CL_INVALID_CONTEXT;
  cl_sampler sampler = NULL;
  if (kiln_context_is_valid(context)) {
    struct sampler_state s = {CL_TRUE, CL_ADDRESS_CLAMP, CL_FILTER_NEAREST}; /* the table's defaults */
    size_t count;
    if ((err = parse_properties(properties, &s, &count)) == CL_SUCCESS)
      sampler = create_sampler(context, &s, properties, count, &err);
  }
  if (errcode_ret) *errcode_ret = err;
  return sampler;
}

CL_API_ENTRY cl_int CL_API_CALL clRetainSampler(cl_sampler sampler) {
  KILN_API_CALL;
  return kiln_object_api_retain(sampler, KILN_OBJECT_SAMPLER, CL_INVALID_SAMPLER);
}

CL_API_ENTRY cl_int CL_API_CALL clReleaseSampler(cl_sampler sampler) {
  KILN_API_CALL;
  return kiln_object_api_release(sampler, KILN_OBJECT_SAMPLER, CL_INVALID_SAMPLER);
}

CL_API_ENTRY cl_int CL_API_CALL clGetSamplerInfo(cl_sampler sampler, cl_sampler_info param_name,
                                                 size_t param_value_size, void *param_value,
                                                 size_t *param_value_size_ret) {
  KILN_API_CALL;
  if (!kiln_sampler_is_valid(sampler)) return KILN_FAIL_HANDLE(CL_INVALID_SAMPLER, sampler, cl_sampler);
  switch (param_name) {
  case CL_SAMPLER_REFERENCE_COUNT:
    KILN_INFO_VALUE(cl_uint, atomic_load(&sampler->obj.api_refs));
  case CL_SAMPLER_CONTEXT:
    KILN_INFO_VALUE(cl_context, sampler->context);
  case CL_SAMPLER_NORMALIZED_COORDS:
    KILN_INFO_VALUE(cl_bool, sampler->normalized_coords);
  case CL_SAMPLER_ADDRESSING_MODE:
    KILN_INFO_VALUE(cl_addressing_mode, sampler->addressing_mode);
  case CL_SAMPLER_FILTER_MODE:
    KILN_INFO_VALUE(cl_filter_mode, sampler->filter_mode);
  case CL_SAMPLER_PROPERTIES:
    KILN_INFO_ARRAY(sampler->properties, sampler->properties_count * sizeof *sampler->properties);
  default:
    return KILN_FAIL(CL_INVALID_VALUE, "param_name 0x%x is not a query clGetSamplerInfo knows", (unsigned)param_name);
  }
}
