/* device_info_providers.h: the NULL-terminated list of extension device-info providers. */
#ifndef KILN_RUNTIME_DEVICE_INFO_PROVIDERS_H
#define KILN_RUNTIME_DEVICE_INFO_PROVIDERS_H

#include "runtime/device.h"

extern const kiln_device_info_provider_fn kiln_device_info_providers[];

#endif
