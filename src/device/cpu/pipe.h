/* pipe.h: a pipe memory object's storage and the operations kernels perform on it (OpenCL C
 * §6.15.17 pipe functions; clang emits calls to __read_pipe_2, __reserve_write_pipe, ...,
 * which pipe_symbols.c hands to JIT code).
 *
 * A pipe is a ring of max_packets packets. Writers and readers reserve runs of packets in
 * order; a packet becomes readable once its reservation and every earlier write reservation
 * are committed, and writable again once every read reservation up to it is committed, so
 * readers see packets in the order writers reserved them even when a kernel commits its
 * reservations out of order. A reservation id encodes (first slot, count); 0 and all ones
 * (CLK_NULL_RESERVE_ID) are invalid. The critical sections only move counters: packets are
 * copied outside the lock. */
#ifndef KILN_DEVICE_CPU_PIPE_H
#define KILN_DEVICE_CPU_PIPE_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* What the device reports (device_info.c) and clCreatePipe enforces. */
#define KILN_PIPE_MAX_PACKET_SIZE 65536u
#define KILN_PIPE_MAX_ACTIVE_RESERVATIONS 65536u
#define KILN_MAX_PIPE_ARGS 16u

#define KILN_PIPE_INVALID_RESERVATION UINT64_MAX

struct kiln_pipe {
  uint32_t packet_size, max_packets;
  atomic_flag lock;
  /* Sequence numbers of packets, counted from the pipe's creation (64 bits: never wrap). */
  uint64_t write_reserved, write_committed; /* committed <= reserved */
  uint64_t read_reserved, read_committed;   /* read_committed <= read_reserved <= write_committed */
  unsigned char *done;                      /* per slot: KILN_PIPE_* bits of committed runs not yet counted */
  unsigned char *packets;
};

/* Bytes of storage a pipe needs (the struct, the per-slot bits and the packets). */
size_t kiln_pipe_storage_size(uint32_t packet_size, uint32_t max_packets);
/* Lays a new, empty pipe out in `storage` (kiln_pipe_storage_size bytes, 8-aligned). */
struct kiln_pipe *kiln_pipe_init(void *storage, uint32_t packet_size, uint32_t max_packets);

/* Reserves `count` packets for writing (reading): their reservation id, or
 * KILN_PIPE_INVALID_RESERVATION when count is 0 or there is no room (not enough packets). */
uint64_t kiln_pipe_reserve(struct kiln_pipe *pipe, bool write, uint32_t count);
/* The packet `index` of a reservation (NULL when the id is invalid or index out of it). */
unsigned char *kiln_pipe_packet(struct kiln_pipe *pipe, uint64_t reservation, uint32_t index);
/* Commits a reservation (every packet of it written, or read). */
void kiln_pipe_commit(struct kiln_pipe *pipe, bool write, uint64_t reservation);
/* Packets written and committed and not yet reserved by a reader. */
uint32_t kiln_pipe_num_packets(struct kiln_pipe *pipe);

#ifdef __cplusplus
}
#endif

#endif
