/* info.h: the copy-out rule shared by every clGet*Info entry point. */
#ifndef KILN_RUNTIME_INFO_H
#define KILN_RUNTIME_INFO_H

#include <CL/cl.h>
#include <string.h>

#include "runtime/debug_err.h"

/* Copies `size` bytes of `value` to the caller following the clGet*Info contract:
 * CL_INVALID_VALUE when param_value is given but smaller than the value. */
static inline cl_int kiln_info_copy(size_t param_value_size, void *param_value, size_t *param_value_size_ret,
                                    const void *value, size_t size) {
  if (param_value) {
    if (param_value_size < size)
      return KILN_FAIL(CL_INVALID_VALUE, "param_value_size %zu is smaller than the value (%zu bytes)", param_value_size,
                       size);
    if (size) memcpy(param_value, value, size);
  }
  if (param_value_size_ret) *param_value_size_ret = size;
  return CL_SUCCESS;
}

#define KILN_INFO_VALUE(type, v)                                                  \
  do {                                                                            \
    type kiln_info_tmp_ = (v);                                                    \
    return kiln_info_copy(param_value_size, param_value, param_value_size_ret,    \
                          &kiln_info_tmp_, sizeof kiln_info_tmp_);                \
  } while (0)

#define KILN_INFO_STRING(s)                                                       \
  do {                                                                            \
    const char *kiln_info_str_ = (s);                                             \
    return kiln_info_copy(param_value_size, param_value, param_value_size_ret,    \
                          kiln_info_str_, strlen(kiln_info_str_) + 1);            \
  } while (0)

#define KILN_INFO_ARRAY(ptr, bytes)                                               \
  return kiln_info_copy(param_value_size, param_value, param_value_size_ret, (ptr), (bytes))

#endif
