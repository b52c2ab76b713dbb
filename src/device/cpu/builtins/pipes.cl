/* Pipe built-ins the library defines (OpenCL C §6.15.17, __opencl_c_pipes): is_valid_reserve_id
 * and the work-group forms of reserve and commit, which clang calls as
 * __work_group_reserve_read_pipe(pipe, num_packets, packet_size, packet_align) and so on.
 * Everything else reaches the host directly (builtins/pipe_host.c).
 *
 * A work-group reservation is one reservation for the whole group: the first work-item
 * makes it and every work-item reads its id from the group's scratch (as work_group.cl's
 * broadcasts do; module.cpp treats these functions as collectives, so the kernel gets
 * the scratch and its barriers). The commit waits, at a barrier, for every work-item's
 * packets, then the first work-item commits. The pipe parameter's element type does not
 * matter here: on the device every pipe is a struct kiln_pipe, and a reservation's size
 * comes from the pipe. Reservation ids cross the scratch as their bits; opaque_types.cpp
 * turns the two conversions below into casts. */
#include "kiln_cl.h"

ulong __kiln_reserve_id_bits(reserve_id_t id);
reserve_id_t __kiln_reserve_id_from_bits(ulong bits);

#define KILN_INVALID_RESERVATION 0xffffffffffffffffUL /* pipe.h; also CLK_NULL_RESERVE_ID's bits */

bool __attribute__((overloadable)) is_valid_reserve_id(reserve_id_t id) {
  return __kiln_reserve_id_bits(id) != KILN_INVALID_RESERVATION;
}

/* The first barrier lets the previous collective's readers of the scratch finish. */
#define GROUP_RESERVE(access, dir)                                                                        \
  reserve_id_t __work_group_reserve_##dir##_pipe(access pipe char p, uint num_packets, uint size, uint align) { \
    __local ulong *s = KILN_GROUP_SCRATCH(ulong);                                                                           \
    __kiln_barrier(CLK_LOCAL_MEM_FENCE);                                                                  \
    if (kiln_first_work_item()) s[0] = __kiln_reserve_id_bits(reserve_##dir##_pipe(p, num_packets));           \
    __kiln_barrier(CLK_LOCAL_MEM_FENCE);                                                                  \
    return __kiln_reserve_id_from_bits(s[0]);                                                             \
  }                                                                                                       \
  void __work_group_commit_##dir##_pipe(access pipe char p, reserve_id_t id, uint size, uint align) {       \
    __kiln_barrier(CLK_GLOBAL_MEM_FENCE | CLK_LOCAL_MEM_FENCE);                                           \
    if (kiln_first_work_item()) commit_##dir##_pipe(p, id);                                                    \
  }

GROUP_RESERVE(read_only, read)
GROUP_RESERVE(write_only, write)
