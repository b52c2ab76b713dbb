/* platform.h: the single Kiln platform, and the row type of extension entry points. */
#ifndef KILN_RUNTIME_PLATFORM_H
#define KILN_RUNTIME_PLATFORM_H

#include "runtime/object.h"

struct _cl_platform_id {
  struct kiln_object obj;
};

/* The one platform; created and registered on first use (thread-safe). */
cl_platform_id kiln_platform_get(void);

/* An entry point clGetExtensionFunctionAddress[ForPlatform] resolves: an extension
 * descriptor's rows (runtime/extension.h). */
struct kiln_extension_function {
  const char *name;
  void *address;
};

#endif
