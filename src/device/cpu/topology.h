/* src/device/cpu/ — the CPU device: topology (hwloc), the pinned worker pool, and
 * (from the kernels issue on) the NDRange executor, compiler/ and builtins/.
 *
 * topology.h: what the machine offers this process, read once through hwloc. */
#ifndef KILN_DEVICE_CPU_TOPOLOGY_H
#define KILN_DEVICE_CPU_TOPOLOGY_H

#include <stddef.h>
#include <stdint.h>

struct kiln_cpu_topology {
  unsigned core_count;          /* cores with at least one PU usable by the process (>= 1) */
  unsigned pu_count;            /* usable processing units (hardware threads) */
  uint64_t global_mem_bytes;    /* physical RAM */
  uint64_t l1d_cache_bytes, l2_cache_bytes, l3_cache_bytes; /* 0 when hwloc does not know */
  unsigned cache_line_bytes;    /* 64 when unknown */
  unsigned max_clock_mhz;       /* 0 when unknown */
  char cpu_name[128];           /* e.g. from hwloc's CPUModel info, or "Generic CPU" */
  char cpu_vendor[64];
};

/* Read once (thread-safe) and cached for the life of the process. */
const struct kiln_cpu_topology *kiln_cpu_topology_get(void);

/* Pins the calling thread to the usable core `core_index` (0 .. core_count-1), all its PUs.
 * Returns 0 on success, -1 when pinning is impossible (the thread then runs unpinned). */
int kiln_cpu_topology_bind_thread(unsigned core_index);

#endif
