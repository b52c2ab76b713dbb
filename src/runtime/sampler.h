/* sampler.h: sampler objects (clCreateSampler, clCreateSamplerWithProperties). A sampler
 * is its three properties; kernels receive them as the KILN_SAMPLER_* bits of
 * kernel_abi.h, the same integer a constant sampler_t initializer gives. */
#ifndef KILN_RUNTIME_SAMPLER_H
#define KILN_RUNTIME_SAMPLER_H

#include "runtime/object.h"

#include <CL/cl.h>
#include <stdint.h>

struct _cl_sampler {
  struct kiln_object obj;
  cl_context context; /* internal reference held */
  cl_bool normalized_coords;
  cl_addressing_mode addressing_mode;
  cl_filter_mode filter_mode;
  uint64_t bits;                 /* KILN_SAMPLER_* (kernel_abi.h): what a kernel argument carries */
  cl_sampler_properties *properties; /* copy incl. terminating 0; NULL when none were given */
  size_t properties_count;           /* entries incl. the terminator; 0 when none */
};

static inline bool kiln_sampler_is_valid(cl_sampler sampler) {
  return kiln_object_is_valid(sampler, KILN_OBJECT_SAMPLER);
}

#endif
