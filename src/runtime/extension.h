/* extension.h: what an extension may plug into the core. Each extension is one descriptor;
 * the descriptors are listed once, in src/ext/extensions.c (kiln_extensions), and the
 * platform's and device's extension strings, CL_*_EXTENSIONS_WITH_VERSION and
 * clGetExtensionFunctionAddress[ForPlatform] are derived from that list. The core calls
 * the hooks below and includes nothing from src/ext/. Every hook may be NULL. */
#ifndef KILN_RUNTIME_EXTENSION_H
#define KILN_RUNTIME_EXTENSION_H

#include "device/cpu/batch_plan.h"
#include "runtime/device.h"
#include "runtime/kernel.h"
#include "runtime/platform.h"
#include "runtime/queue.h"

/* Where an extension is advertised (a bit set). */
enum kiln_extension_scope {
  KILN_EXTENSION_PLATFORM = 1, /* CL_PLATFORM_EXTENSIONS */
  KILN_EXTENSION_DEVICE = 2,   /* CL_DEVICE_EXTENSIONS */
};

typedef cl_int (*kiln_enqueue_check_fn)(const struct kiln_enqueue_check *check);
typedef void (*kiln_launch_hints_fn)(cl_kernel kernel, struct kiln_plan_request *request);

struct kiln_extension {
  const char *name;
  cl_version version;
  unsigned scope;                 /* enum kiln_extension_scope bits */
  bool (*available)(void);        /* false: not advertised in this process (NULL: always) */

  /* Entry points clGetExtensionFunctionAddress* resolve, ending with a NULL name. */
  const struct kiln_extension_function *functions;
  /* clGetDeviceInfo names the core does not answer (device.h). */
  kiln_device_info_provider_fn device_info;
  /* Queue creation and queries (queue.h): properties the core does not know, the checks
   * of a whole property list, clGetCommandQueueInfo names the core does not answer. */
  kiln_queue_property_parser parse_queue_property;
  kiln_queue_config_validator validate_queue_config;
  kiln_queue_info_provider queue_info;
  /* Every enqueue call before its command is created (command.h's kiln_enqueue_check). */
  kiln_enqueue_check_fn check_enqueue;
  /* clSetKernelExecInfo names the core does not know (kernel.h). */
  kiln_kernel_exec_info_handler kernel_exec_info;
  /* Every NDRange's batch plan request (device/cpu/batch_plan.h), from the kernel's
   * settings (cl_arm_scheduling_controls' batch size and modifier). */
  kiln_launch_hints_fn launch_hints;
};

/* The descriptors, ending with NULL (src/ext/extensions.c). */
extern const struct kiln_extension *const kiln_extensions[];

static inline bool kiln_extension_available(const struct kiln_extension *extension) {
  return !extension->available || extension->available();
}

/* `for` over the available extensions that have hook `field`, in table order: `e` points
 * at each descriptor pointer in turn. */
#define KILN_EXTENSIONS_WITH(e, field)                                   \
  for (const struct kiln_extension *const *e = kiln_extensions; *e; e++) \
    if (!(*e)->field || !kiln_extension_available(*e)) {                 \
    } else

/* The check_enqueue hooks of the available extensions, in table order (built once: every
 * enqueue runs them). */
const kiln_enqueue_check_fn *kiln_extension_enqueue_checks(unsigned *count);
/* The same for launch_hints (every NDRange enqueue and recording). */
const kiln_launch_hints_fn *kiln_extension_launch_hints(unsigned *count);

/* The names of the available extensions of `scope`, space-separated (static storage). */
const char *kiln_extension_string(enum kiln_extension_scope scope);
/* Their names and versions: *count entries (static storage). */
const cl_name_version *kiln_extension_versions(enum kiln_extension_scope scope, size_t *count);

#endif
