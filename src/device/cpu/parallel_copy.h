/* parallel_copy.h: a large copy as a launch of 1 MiB chunks, so that the workers share it
 * like a kernel's work-groups (one core's memcpy reaches a fraction of a socket's memory
 * bandwidth). The launch runs wherever an NDRange runs: queues, replays of command
 * buffers, under a compute-unit limit. */
#ifndef KILN_DEVICE_CPU_PARALLEL_COPY_H
#define KILN_DEVICE_CPU_PARALLEL_COPY_H

#include "device/cpu/ndrange_executor.h"

#include <stddef.h>
#include <stdint.h>

/* Copies below this size stay one memcpy on one thread: splitting costs more than it gains. */
#define KILN_PARALLEL_COPY_MIN_BYTES (8u << 20)
#define KILN_PARALLEL_COPY_CHUNK_BYTES (1u << 20)

/* What the launch copies; it must live as long as the launch (the command's payload). */
struct kiln_parallel_copy {
  char *dst;
  const char *src; /* does not overlap dst */
  uint64_t size;
};

/* Fills `launch` to copy `copy` with up to `threads` threads at once; returns its batch count. */
size_t kiln_parallel_copy_launch(struct kiln_ndrange_launch *launch, const struct kiln_parallel_copy *copy,
                                 unsigned threads);

#endif
