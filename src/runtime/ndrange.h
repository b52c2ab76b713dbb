/* ndrange.h: NDRange launches (ndrange.c) — enqueue through any sink, the launch of a
 * built command, and the scheduler trace of an executed launch. */
#ifndef KILN_RUNTIME_NDRANGE_H
#define KILN_RUNTIME_NDRANGE_H

#include "runtime/kernel.h"

/* clEnqueueNDRangeKernel after the queue check, for any sink (ndrange.c; command buffers
 * record NDRanges through it). */
struct kiln_command_sink;
struct kiln_command;
cl_int kiln_ndrange_enqueue(const struct kiln_command_sink *sink, cl_kernel kernel, cl_uint work_dim,
                            const size_t *global_work_offset, const size_t *global_work_size,
                            const size_t *local_work_size);

/* The launch of an NDRange command built by kiln_ndrange_enqueue, or NULL for any other
 * command (a command-buffer replay gives printf kernels a printf buffer of their own). */
struct kiln_ndrange_launch;
const struct kiln_ndrange_launch *kiln_ndrange_command_launch(struct kiln_command *command);

/* Whether threads that help while they wait may run batches of `command`: its kernels'
 * stack fits a helper (worker_pool.h), and an NDRange launch is estimated short enough
 * (kiln_ndrange_welcomes_helpers). The rule of enqueued launches and replayed ones alike. */
bool kiln_ndrange_command_welcomes_helpers(struct kiln_command *command);

/* Writes the KILN_TRACE=sched line of one executed NDRange: its kernel, work-groups, batch
 * sizes, `batches`, how many threads ran batches and the compute-unit limit it ran under. */
struct kiln_worker_limit;
void kiln_ndrange_trace(const struct kiln_ndrange_launch *launch, size_t batches, unsigned threads,
                        const struct kiln_worker_limit *limit);

#endif
