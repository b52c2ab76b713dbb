/* CL/kiln_arm_scheduling_controls.h (Kiln): the cl_arm_scheduling_controls 0.6.0 tokens that
 * older Khronos headers (such as Debian bookworm's opencl-c-headers 2023.02.06) lack.
 * Include after <CL/cl_ext.h>, which declares the rest of the extension; values from the
 * Khronos registry (cl.xml). */
#ifndef KILN_CL_ARM_SCHEDULING_CONTROLS_H
#define KILN_CL_ARM_SCHEDULING_CONTROLS_H

#include <CL/cl_ext.h>

/* Bit of CL_DEVICE_SCHEDULING_CONTROLS_CAPABILITIES_ARM (version 0.6.0). */
#ifndef CL_DEVICE_SCHEDULING_COMPUTE_UNIT_LIMIT_ARM
#define CL_DEVICE_SCHEDULING_COMPUTE_UNIT_LIMIT_ARM (1 << 7)
#endif

/* clCreateCommandQueueWithProperties: cl_uint, 1 .. CL_DEVICE_MAX_COMPUTE_UNITS. */
#ifndef CL_QUEUE_COMPUTE_UNIT_LIMIT_ARM
#define CL_QUEUE_COMPUTE_UNIT_LIMIT_ARM 0x41F3
#endif

#endif
