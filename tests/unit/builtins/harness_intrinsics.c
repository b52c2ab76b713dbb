/* harness_intrinsics.c: host (C) definitions of the __kiln_* work-item intrinsics for the
 * builtin library tests, compiled into each test kernel's shared object. The test sets the
 * current work-item through kiln_bt_set_item() before calling a kernel. */
#include <stddef.h>
#include <stdint.h>

struct kiln_bt_item {
  uint32_t work_dim;
  size_t global_offset[3], global_size[3], local_size[3], enqueued_local_size[3], num_groups[3];
  size_t local_id[3], group_id[3];
  unsigned barriers;
};

static __thread struct kiln_bt_item item;

void kiln_bt_set_item(const struct kiln_bt_item *it) { item = *it; }
unsigned kiln_bt_barrier_count(void) { return item.barriers; }

size_t __kiln_local_id(unsigned d) { return item.local_id[d]; }
size_t __kiln_group_id(unsigned d) { return item.group_id[d]; }
size_t __kiln_local_size(unsigned d) { return item.local_size[d]; }
size_t __kiln_enqueued_local_size(unsigned d) { return item.enqueued_local_size[d]; }
size_t __kiln_global_size(unsigned d) { return item.global_size[d]; }
size_t __kiln_global_offset(unsigned d) { return item.global_offset[d]; }
size_t __kiln_num_groups(unsigned d) { return item.num_groups[d]; }
unsigned __kiln_work_dim(void) { return item.work_dim; }
void __kiln_barrier(unsigned flags) { item.barriers += flags ? 1 : 1; }
