/* pipe.c: see pipe.h. */
#include "device/cpu/pipe.h"

#include <sched.h>
#include <string.h>

#define DONE_WRITE 1u
#define DONE_READ 2u

static size_t align8(size_t n) { return (n + 7) & ~(size_t)7; }

size_t kiln_pipe_storage_size(uint32_t packet_size, uint32_t max_packets) {
  return align8(sizeof(struct kiln_pipe)) + align8(max_packets) + (size_t)packet_size * max_packets;
}

struct kiln_pipe *kiln_pipe_init(void *storage, uint32_t packet_size, uint32_t max_packets) {
  struct kiln_pipe *pipe = storage;
  memset(pipe, 0, sizeof *pipe);
  atomic_flag_clear(&pipe->lock);
  pipe->packet_size = packet_size;
  pipe->max_packets = max_packets;
  pipe->done = (unsigned char *)storage + align8(sizeof *pipe);
  memset(pipe->done, 0, max_packets);
  pipe->packets = pipe->done + align8(max_packets);
  return pipe;
}

/* Held for a few counter updates only; a waiter yields rather than spin against a
 * preempted holder (worker threads may outnumber cores). */
static void lock(struct kiln_pipe *pipe) {
  for (unsigned spins = 0; atomic_flag_test_and_set_explicit(&pipe->lock, memory_order_acquire); spins++)
    if (spins > 64) sched_yield();
}

static void unlock(struct kiln_pipe *pipe) { atomic_flag_clear_explicit(&pipe->lock, memory_order_release); }

static uint64_t encode(uint32_t slot, uint32_t count) { return (uint64_t)slot << 32 | count; }

uint64_t kiln_pipe_reserve(struct kiln_pipe *pipe, bool write, uint32_t count) {
  if (count == 0 || count > pipe->max_packets) return KILN_PIPE_INVALID_RESERVATION;
  uint64_t first = 0;
  bool room;
  lock(pipe);
  if (write) {
    room = pipe->write_reserved + count - pipe->read_committed <= pipe->max_packets;
    if (room) first = pipe->write_reserved, pipe->write_reserved += count;
  } else {
    room = pipe->read_reserved + count <= pipe->write_committed;
    if (room) first = pipe->read_reserved, pipe->read_reserved += count;
  }
  unlock(pipe);
  return room ? encode((uint32_t)(first % pipe->max_packets), count) : KILN_PIPE_INVALID_RESERVATION;
}

unsigned char *kiln_pipe_packet(struct kiln_pipe *pipe, uint64_t reservation, uint32_t index) {
  uint32_t slot = (uint32_t)(reservation >> 32), count = (uint32_t)reservation;
  if (reservation == KILN_PIPE_INVALID_RESERVATION || count == 0 || index >= count) return NULL;
  return pipe->packets + (size_t)((slot + (uint64_t)index) % pipe->max_packets) * pipe->packet_size;
}

/* Marks the reservation's slots done, then counts done slots from the committed end on:
 * a run committed before an earlier one waits for it. */
void kiln_pipe_commit(struct kiln_pipe *pipe, bool write, uint64_t reservation) {
  uint32_t slot = (uint32_t)(reservation >> 32), count = (uint32_t)reservation;
  if (reservation == KILN_PIPE_INVALID_RESERVATION || count == 0) return;
  unsigned char bit = write ? DONE_WRITE : DONE_READ;
  uint64_t *committed = write ? &pipe->write_committed : &pipe->read_committed;
  uint64_t reserved;
  lock(pipe);
  for (uint32_t i = 0; i < count; i++) pipe->done[(slot + (uint64_t)i) % pipe->max_packets] |= bit;
  reserved = write ? pipe->write_reserved : pipe->read_reserved;
  while (*committed < reserved && (pipe->done[*committed % pipe->max_packets] & bit)) {
    pipe->done[*committed % pipe->max_packets] &= (unsigned char)~bit;
    (*committed)++;
  }
  unlock(pipe);
}

uint32_t kiln_pipe_num_packets(struct kiln_pipe *pipe) {
  lock(pipe);
  uint32_t n = (uint32_t)(pipe->write_committed - pipe->read_reserved);
  unlock(pipe);
  return n;
}
