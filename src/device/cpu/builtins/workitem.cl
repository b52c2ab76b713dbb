/* Work-item functions (OpenCL C 3.0 §6.15.1) on top of the __kiln_* intrinsics.
 * Dimensions >= 3 give 0 for ids and offsets and 1 for sizes, as the spec requires. */
#include "kiln_cl.h"

OVLI uint get_work_dim(void) { return __kiln_work_dim(); }
OVLI size_t get_global_size(uint d) { return d < 3 ? __kiln_global_size(d) : 1; }
OVLI size_t get_local_size(uint d) { return d < 3 ? __kiln_local_size(d) : 1; }
OVLI size_t get_enqueued_local_size(uint d) { return d < 3 ? __kiln_enqueued_local_size(d) : 1; }
OVLI size_t get_num_groups(uint d) { return d < 3 ? __kiln_num_groups(d) : 1; }
OVLI size_t get_local_id(uint d) { return d < 3 ? __kiln_local_id(d) : 0; }
OVLI size_t get_group_id(uint d) { return d < 3 ? __kiln_group_id(d) : 0; }
OVLI size_t get_global_offset(uint d) { return d < 3 ? __kiln_global_offset(d) : 0; }

/* global id = group id * enqueued local size + local id + offset (the last, partial group
 * starts at a multiple of the enqueued size). */
OVLI size_t get_global_id(uint d) {
  if (d >= 3) return 0;
  return __kiln_group_id(d) * __kiln_enqueued_local_size(d) + __kiln_local_id(d) + __kiln_global_offset(d);
}

OVLI size_t get_global_linear_id(void) {
  size_t id0 = get_global_id(0) - __kiln_global_offset(0);
  size_t id1 = get_global_id(1) - __kiln_global_offset(1);
  size_t id2 = get_global_id(2) - __kiln_global_offset(2);
  return (id2 * __kiln_global_size(1) + id1) * __kiln_global_size(0) + id0;
}

OVLI size_t get_local_linear_id(void) {
  return (__kiln_local_id(2) * __kiln_local_size(1) + __kiln_local_id(1)) * __kiln_local_size(0) + __kiln_local_id(0);
}
