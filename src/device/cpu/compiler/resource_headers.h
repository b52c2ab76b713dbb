/* resource_headers.h: clang's resource headers (opencl-c-base.h, which
 * -finclude-default-header includes in every program) embedded in the library at build
 * time by embed_resource_headers.cmake. The front end serves them from its in-memory file
 * system under KILN_VIRTUAL_RESOURCE_DIR, so compiling a kernel reads no file of
 * libclang-common-19-dev (a -dev package) at run time. */
#ifndef KILN_DEVICE_CPU_COMPILER_RESOURCE_HEADERS_H
#define KILN_DEVICE_CPU_COMPILER_RESOURCE_HEADERS_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* clang's -resource-dir; its include/ holds the headers below and nothing else. */
#define KILN_VIRTUAL_RESOURCE_DIR "/kiln-clang-resource"

struct kiln_resource_header {
  const char *name; /* relative to the resource dir's include/ */
  const char *data; /* size bytes, then a NUL */
  size_t size;
};

extern const struct kiln_resource_header kiln_resource_headers[];
extern const size_t kiln_resource_header_count;

#ifdef __cplusplus
}
#endif

#endif
