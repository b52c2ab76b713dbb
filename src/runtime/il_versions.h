/* il_versions.h: the intermediate languages the device reads (CL_DEVICE_IL_VERSION,
 * CL_DEVICE_ILS_WITH_VERSION): SPIR-V 1.0 up to what the translator reads, or none when
 * there is no translator (device/cpu/compiler/spirv_translator.h). */
#ifndef KILN_RUNTIME_IL_VERSIONS_H
#define KILN_RUNTIME_IL_VERSIONS_H

#include <CL/cl.h>
#include <stdbool.h>
#include <stddef.h>

/* "SPIR-V_1.0 SPIR-V_1.1 ..." or "" (static storage). */
const char *kiln_spirv_version_string(void);
/* One entry per version: *count of them (static storage; none without a translator). */
const cl_name_version *kiln_spirv_versions(size_t *count);
/* Whether the device takes IL at all (cl_khr_il_program's availability). */
bool kiln_il_supported(void);

#endif
