/* ndrange.h: NDRange launches (ndrange.c) — enqueue through any sink. */
#ifndef KILN_RUNTIME_NDRANGE_H
#define KILN_RUNTIME_NDRANGE_H

#include "runtime/kernel.h"

/* clEnqueueNDRangeKernel after the queue check, for any sink (command buffers and
 * recordings record NDRanges through it; their recorders get the call). */
struct kiln_command_sink;
cl_int kiln_ndrange_enqueue(const struct kiln_command_sink *sink, cl_kernel kernel, cl_uint work_dim,
                            const size_t *global_work_offset, const size_t *global_work_size,
                            const size_t *local_work_size);

#endif
