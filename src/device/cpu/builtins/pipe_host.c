/* pipe_host.c: the functions clang 19 calls for OpenCL C's pipe built-ins, with the
 * signatures they have once opaque_types.cpp made pipes and reservation ids pointers: a
 * pipe is its struct kiln_pipe, a reservation id its 64 bits (pipe.h). Every call also
 * passes the packet type's size and alignment; the pipe's own packet size lays the ring
 * out, and at most the smaller of the two is copied. The work-group forms are
 * builtins/pipes.cl's (they need the group's barriers); a sub-group is one work-item
 * (builtins/subgroups.cl), so its forms are the work-item ones. */
#include "device/cpu/builtins/pipe_host.h"

#include "device/cpu/compiler/compiler.h"
#include "device/cpu/pipe.h"

#include <string.h>

static uint32_t copy_size(const struct kiln_pipe *pipe, uint32_t size) {
  return size < pipe->packet_size ? size : pipe->packet_size;
}

static void *as_id(uint64_t reservation) { return (void *)(uintptr_t)reservation; }

static void *reserve_read(struct kiln_pipe *pipe, uint32_t count, uint32_t size, uint32_t align) {
  (void)size, (void)align;
  return as_id(kiln_pipe_reserve(pipe, false, count));
}

static void *reserve_write(struct kiln_pipe *pipe, uint32_t count, uint32_t size, uint32_t align) {
  (void)size, (void)align;
  return as_id(kiln_pipe_reserve(pipe, true, count));
}

static void commit_read(struct kiln_pipe *pipe, void *id, uint32_t size, uint32_t align) {
  (void)size, (void)align;
  kiln_pipe_commit(pipe, false, (uintptr_t)id);
}

static void commit_write(struct kiln_pipe *pipe, void *id, uint32_t size, uint32_t align) {
  (void)size, (void)align;
  kiln_pipe_commit(pipe, true, (uintptr_t)id);
}

static int32_t read_reserved(struct kiln_pipe *pipe, void *id, uint32_t index, void *to, uint32_t size,
                             uint32_t align) {
  (void)align;
  unsigned char *packet = kiln_pipe_packet(pipe, (uintptr_t)id, index);
  if (!packet) return -1;
  memcpy(to, packet, copy_size(pipe, size));
  return 0;
}

static int32_t write_reserved(struct kiln_pipe *pipe, void *id, uint32_t index, const void *from, uint32_t size,
                              uint32_t align) {
  (void)align;
  unsigned char *packet = kiln_pipe_packet(pipe, (uintptr_t)id, index);
  if (!packet) return -1;
  memcpy(packet, from, copy_size(pipe, size));
  return 0;
}

/* read_pipe(p, ptr) / write_pipe(p, ptr): a reservation of one packet, used and committed;
 * negative when the pipe is empty (full). */
static int32_t read_one(struct kiln_pipe *pipe, void *to, uint32_t size, uint32_t align) {
  uint64_t id = kiln_pipe_reserve(pipe, false, 1);
  if (id == KILN_PIPE_INVALID_RESERVATION) return -1;
  read_reserved(pipe, as_id(id), 0, to, size, align);
  kiln_pipe_commit(pipe, false, id);
  return 0;
}

static int32_t write_one(struct kiln_pipe *pipe, const void *from, uint32_t size, uint32_t align) {
  uint64_t id = kiln_pipe_reserve(pipe, true, 1);
  if (id == KILN_PIPE_INVALID_RESERVATION) return -1;
  write_reserved(pipe, as_id(id), 0, from, size, align);
  kiln_pipe_commit(pipe, true, id);
  return 0;
}

static uint32_t num_packets(struct kiln_pipe *pipe, uint32_t size, uint32_t align) {
  (void)size, (void)align;
  return kiln_pipe_num_packets(pipe);
}

static uint32_t max_packets(struct kiln_pipe *pipe, uint32_t size, uint32_t align) {
  (void)size, (void)align;
  return pipe->max_packets;
}

static const struct {
  const char *name;
  void *address;
} symbols[] = {
    {"__read_pipe_2", (void *)read_one},
    {"__write_pipe_2", (void *)write_one},
    {"__read_pipe_4", (void *)read_reserved},
    {"__write_pipe_4", (void *)write_reserved},
    {"__reserve_read_pipe", (void *)reserve_read},
    {"__reserve_write_pipe", (void *)reserve_write},
    {"__commit_read_pipe", (void *)commit_read},
    {"__commit_write_pipe", (void *)commit_write},
    {"__sub_group_reserve_read_pipe", (void *)reserve_read},
    {"__sub_group_reserve_write_pipe", (void *)reserve_write},
    {"__sub_group_commit_read_pipe", (void *)commit_read},
    {"__sub_group_commit_write_pipe", (void *)commit_write},
    {"__get_pipe_num_packets_ro", (void *)num_packets},
    {"__get_pipe_num_packets_wo", (void *)num_packets},
    {"__get_pipe_max_packets_ro", (void *)max_packets},
    {"__get_pipe_max_packets_wo", (void *)max_packets},
};

bool kiln_pipe_host_defines(const char *name) {
  for (size_t i = 0; i < sizeof symbols / sizeof symbols[0]; i++)
    if (strcmp(symbols[i].name, name) == 0) return true;
  return false;
}

void kiln_pipe_host_register(void) {
  for (size_t i = 0; i < sizeof symbols / sizeof symbols[0]; i++)
    kiln_jit_define_symbol(symbols[i].name, symbols[i].address);
}
