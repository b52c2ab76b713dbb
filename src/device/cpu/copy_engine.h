/* copy_engine.h: the CPU device's copy engines, threads beside the worker pool that run
 * transfer commands (cl_intel_command_queue_families' copy family), so that a large copy
 * runs while the workers run kernels. Each engine is one thread, started on first use,
 * running its jobs one at a time in submission order. Not pinned: the OS places it
 * beside the workers. */
#ifndef KILN_DEVICE_CPU_COPY_ENGINE_H
#define KILN_DEVICE_CPU_COPY_ENGINE_H

#include "device/cpu/worker_pool.h"

#define KILN_COPY_ENGINES 2u

/* Queues a one-batch job (kiln_job_init with batch_count 1) on engine `engine`
 * (< KILN_COPY_ENGINES); its thread runs it (worker_id KILN_COPY_ENGINE_WORKER_ID: copy
 * jobs never run kernel batches, which need a pool id) and then calls its done. */
void kiln_copy_engine_submit(unsigned engine, struct kiln_job *job);
#define KILN_COPY_ENGINE_WORKER_ID 0xFFFFFFFFu

#endif
