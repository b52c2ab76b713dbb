/* platform_extension_functions.c: the name → address table behind
 * clGetExtensionFunctionAddress[ForPlatform]. Each extension folder contributes one
 * array of rows ending with a NULL name (`kiln_ext_<x>_functions`); add it to
 * `extension_tables` below when the extension is advertised. */
#include "ext/khr_command_buffer/khr_command_buffer.h" /* first: it includes <CL/cl_ext.h> itself */
#include "ext/arm_import/arm_import.h"
#include "ext/qcom_recordable/qcom_recordable.h"
#include "runtime/platform.h"

#include <CL/cl_ext.h>
#include <string.h>

/* Rows of the platform itself (cl_khr_icd). */
static const struct kiln_extension_function platform_functions[] = {
    {"clIcdGetPlatformIDsKHR", (void *)clIcdGetPlatformIDsKHR},
    {NULL, NULL},
};

static const struct kiln_extension_function *const extension_tables[] = {
    platform_functions,
    kiln_ext_khr_command_buffer_functions,
    kiln_ext_qcom_recordable_functions,
    kiln_ext_arm_import_functions,
};

static void *extension_function_find(const char *name) {
  if (!name) return NULL;
  for (size_t t = 0; t < sizeof extension_tables / sizeof extension_tables[0]; t++)
    for (const struct kiln_extension_function *row = extension_tables[t]; row->name; row++)
      if (strcmp(row->name, name) == 0) return row->address;
  return NULL;
}

CL_API_ENTRY void *CL_API_CALL clGetExtensionFunctionAddressForPlatform(cl_platform_id platform,
                                                                       const char *func_name) {
  KILN_API_CALL;
  if (!kiln_object_is_valid(platform, KILN_OBJECT_PLATFORM)) return NULL;
  return extension_function_find(func_name);
}

/* Deprecated form: Kiln is the only platform it can answer for. */
CL_API_ENTRY void *CL_API_CALL clGetExtensionFunctionAddress(const char *func_name) {
  KILN_API_CALL;
  return extension_function_find(func_name);
}
