/* platform_extension_functions.c: the name → address table behind
 * clGetExtensionFunctionAddress[ForPlatform]. Each extension folder contributes one
 * array of rows (`kiln_ext_<x>_functions` + `kiln_ext_<x>_function_count`); add it to
 * `extension_tables` below when the extension is advertised. */
#include "runtime/platform.h"

#include <CL/cl_ext.h>
#include <string.h>

/* Rows of the platform itself (cl_khr_icd). */
static const struct kiln_extension_function platform_functions[] = {
    {"clIcdGetPlatformIDsKHR", (void *)clIcdGetPlatformIDsKHR},
};

struct extension_table {
  const struct kiln_extension_function *rows;
  size_t count;
};

static const struct extension_table extension_tables[] = {
    {platform_functions, sizeof platform_functions / sizeof platform_functions[0]},
};

static void *extension_function_find(const char *name) {
  if (!name) return NULL;
  for (size_t t = 0; t < sizeof extension_tables / sizeof extension_tables[0]; t++)
    for (size_t i = 0; i < extension_tables[t].count; i++)
      if (strcmp(extension_tables[t].rows[i].name, name) == 0) return extension_tables[t].rows[i].address;
  return NULL;
}

CL_API_ENTRY void *CL_API_CALL clGetExtensionFunctionAddressForPlatform(cl_platform_id platform,
                                                                       const char *func_name) {
  if (!kiln_object_is_valid(platform, KILN_OBJECT_PLATFORM)) return NULL;
  return extension_function_find(func_name);
}

/* Deprecated form: Kiln is the only platform it can answer for. */
CL_API_ENTRY void *CL_API_CALL clGetExtensionFunctionAddress(const char *func_name) {
  return extension_function_find(func_name);
}
