/* platform_extension_functions.c: clGetExtensionFunctionAddress[ForPlatform], resolved
 * from the entry points of the available extensions (runtime/extension.h); with
 * KILN_DEBUG=err, to their reporting wrappers (runtime/debug_err.h). */
#include "runtime/debug_err.h"
#include "runtime/extension.h"
#include "runtime/platform.h"

#include <string.h>

static void *extension_function_find(const char *name) {
  if (!name) return NULL;
  KILN_EXTENSIONS_WITH(e, functions) {
    for (const struct kiln_extension_function *row = (*e)->functions; row->name; row++)
      if (strcmp(row->name, name) == 0)
        return kiln_err_enabled() ? kiln_err_extension_function(name, row->address) : row->address;
  }
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
