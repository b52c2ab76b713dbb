/* device_info_providers.c: the extension hooks clGetDeviceInfo tries for param_names the core
 * does not answer. An extension folder adds its provider to the list when it is advertised. */
#include "runtime/device_info_providers.h"

const kiln_device_info_provider_fn kiln_device_info_providers[] = {
    NULL, /* terminator; providers go above */
};
