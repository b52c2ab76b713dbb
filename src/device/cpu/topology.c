/* topology.c: the cores, caches, memory and CPU name this process may use, read once via hwloc.
 * The hwloc topology stays loaded for the life of the process so that workers can be pinned. */
#include "device/cpu/topology.h"

#include <hwloc.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static struct kiln_cpu_topology topology;
static hwloc_topology_t hw;            /* NULL when hwloc failed to load */
static hwloc_cpuset_t *core_cpusets;   /* core_count entries, each restricted to usable PUs */
static pthread_once_t topology_once = PTHREAD_ONCE_INIT;

/* Cores (or, when hwloc reports none, PUs) that own at least one PU the process may run on. */
static void read_cores(hwloc_const_cpuset_t allowed) {
  hwloc_obj_type_t type = hwloc_get_nbobjs_by_type(hw, HWLOC_OBJ_CORE) > 0 ? HWLOC_OBJ_CORE : HWLOC_OBJ_PU;
  int n = hwloc_get_nbobjs_by_type(hw, type);
  core_cpusets = calloc(n > 0 ? (size_t)n : 1, sizeof *core_cpusets);
  if (!core_cpusets) return;
  for (int i = 0; i < n; i++) {
    hwloc_obj_t core = hwloc_get_obj_by_type(hw, type, (unsigned)i);
    if (!core->cpuset) continue;
    hwloc_cpuset_t usable = hwloc_bitmap_alloc();
    if (!usable) continue;
    hwloc_bitmap_and(usable, core->cpuset, allowed);
    if (hwloc_bitmap_iszero(usable)) {
      hwloc_bitmap_free(usable);
      continue;
    }
    topology.pu_count += (unsigned)hwloc_bitmap_weight(usable);
    core_cpusets[topology.core_count++] = usable;
  }
}

/* The data (or unified) cache of each level; line size from the lowest level found. */
static void read_caches(void) {
  static const struct {
    hwloc_obj_type_t type;
    size_t offset;
  } levels[] = {
      {HWLOC_OBJ_L1CACHE, offsetof(struct kiln_cpu_topology, l1d_cache_bytes)},
      {HWLOC_OBJ_L2CACHE, offsetof(struct kiln_cpu_topology, l2_cache_bytes)},
      {HWLOC_OBJ_L3CACHE, offsetof(struct kiln_cpu_topology, l3_cache_bytes)},
  };
  for (size_t l = 0; l < sizeof levels / sizeof levels[0]; l++) {
    int n = hwloc_get_nbobjs_by_type(hw, levels[l].type);
    for (int i = 0; i < n; i++) {
      hwloc_obj_t cache = hwloc_get_obj_by_type(hw, levels[l].type, (unsigned)i);
      if (cache->attr->cache.type == HWLOC_OBJ_CACHE_INSTRUCTION) continue;
      *(uint64_t *)((char *)&topology + levels[l].offset) = cache->attr->cache.size;
      if (!topology.cache_line_bytes && cache->attr->cache.linesize > 0)
        topology.cache_line_bytes = cache->attr->cache.linesize;
      break;
    }
  }
}

static void read_names(void) {
  hwloc_obj_t package = hwloc_get_obj_by_type(hw, HWLOC_OBJ_PACKAGE, 0);
  hwloc_obj_t root = hwloc_get_root_obj(hw);
  const char *model = package ? hwloc_obj_get_info_by_name(package, "CPUModel") : NULL;
  if (!model) model = hwloc_obj_get_info_by_name(root, "CPUModel");
  const char *vendor = package ? hwloc_obj_get_info_by_name(package, "CPUVendor") : NULL;
  if (!vendor) vendor = hwloc_obj_get_info_by_name(root, "CPUVendor");
  if (model) snprintf(topology.cpu_name, sizeof topology.cpu_name, "%s", model);
  if (vendor) snprintf(topology.cpu_vendor, sizeof topology.cpu_vendor, "%s", vendor);
}

/* The maximum frequency from cpufreq when the kernel exposes it, else the highest
 * "cpu MHz" in /proc/cpuinfo (a current frequency, the best a VM usually offers). */
static unsigned read_max_clock_mhz(void) {
  FILE *f = fopen("/sys/devices/system/cpu/cpu0/cpufreq/cpuinfo_max_freq", "r");
  if (f) {
    unsigned long khz = 0;
    int ok = fscanf(f, "%lu", &khz) == 1;
    fclose(f);
    if (ok && khz) return (unsigned)(khz / 1000);
  }
  f = fopen("/proc/cpuinfo", "r");
  if (!f) return 0;
  char line[256];
  double best = 0;
  while (fgets(line, sizeof line, f)) {
    double mhz;
    if (strncmp(line, "cpu MHz", 7) == 0 && sscanf(strchr(line, ':') ? strchr(line, ':') + 1 : "", "%lf", &mhz) == 1 &&
        mhz > best)
      best = mhz;
  }
  fclose(f);
  return (unsigned)(best + 0.5);
}

static uint64_t sysconf_memory_bytes(void) {
  long pages = sysconf(_SC_PHYS_PAGES), page_size = sysconf(_SC_PAGE_SIZE);
  return pages > 0 && page_size > 0 ? (uint64_t)pages * (uint64_t)page_size : 0;
}

static void topology_read(void) {
  snprintf(topology.cpu_name, sizeof topology.cpu_name, "Generic CPU");
  if (hwloc_topology_init(&hw) == 0) {
    /* Only the PUs the process is bound to (taskset, cgroups) count; the restriction needs
     * IS_THISSYSTEM, without it hwloc rejects the flag. */
    hwloc_topology_set_flags(hw, HWLOC_TOPOLOGY_FLAG_IS_THISSYSTEM | HWLOC_TOPOLOGY_FLAG_RESTRICT_TO_CPUBINDING);
    if (hwloc_topology_load(hw) != 0) {
      hwloc_topology_destroy(hw);
      hw = NULL;
    }
  } else {
    hw = NULL;
  }
  if (hw) {
    read_cores(hwloc_topology_get_allowed_cpuset(hw));
    read_caches();
    read_names();
  }
  /* The kernel's MemTotal first: hwloc sums NUMA nodes, which some VMs and sandboxes
   * report inconsistently (seen: one 7 GB node on a 25 GB machine). */
  topology.global_mem_bytes = sysconf_memory_bytes();
  if (!topology.global_mem_bytes && hw) topology.global_mem_bytes = hwloc_get_root_obj(hw)->total_memory;
  if (topology.core_count == 0) { /* hwloc unusable: one unpinned core */
    topology.core_count = 1;
    topology.pu_count = 1;
  }
  if (!topology.cache_line_bytes) topology.cache_line_bytes = 64;
  topology.max_clock_mhz = read_max_clock_mhz();
}

const struct kiln_cpu_topology *kiln_cpu_topology_get(void) {
  pthread_once(&topology_once, topology_read);
  return &topology;
}

int kiln_cpu_topology_bind_thread(unsigned core_index) {
  kiln_cpu_topology_get();
  if (!hw || !core_cpusets || core_index >= topology.core_count || !core_cpusets[core_index]) return -1;
  return hwloc_set_cpubind(hw, core_cpusets[core_index], HWLOC_CPUBIND_THREAD) == 0 ? 0 : -1;
}
