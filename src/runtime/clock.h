/* clock.h: the one clock of the host timer, the device timer and profiling. */
#ifndef KILN_RUNTIME_CLOCK_H
#define KILN_RUNTIME_CLOCK_H

#include <CL/cl.h>

/* Nanoseconds of CLOCK_MONOTONIC. */
cl_ulong kiln_time_now_ns(void);

#endif
