/* The pipe ring (device/cpu/pipe.h) on its own: reservations and room, commits out of order
 * (packets become readable, and slots writable, only in reservation order), wrap-around,
 * invalid ids, and one writer thread and one reader thread moving a long sequence through a
 * small pipe without losing, duplicating or reordering a packet. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "device/cpu/pipe.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

static struct kiln_pipe *new_pipe(uint32_t packet_size, uint32_t max_packets) {
  void *storage = aligned_alloc(8, (kiln_pipe_storage_size(packet_size, max_packets) + 7) & ~(size_t)7);
  assert_non_null(storage);
  return kiln_pipe_init(storage, packet_size, max_packets);
}

static void put_int(struct kiln_pipe *pipe, uint64_t id, uint32_t index, int value) {
  unsigned char *packet = kiln_pipe_packet(pipe, id, index);
  assert_non_null(packet);
  memcpy(packet, &value, sizeof value);
}

static int get_int(struct kiln_pipe *pipe, uint64_t id, uint32_t index) {
  int value;
  memcpy(&value, kiln_pipe_packet(pipe, id, index), sizeof value);
  return value;
}

static void test_room_and_invalid_ids(void **state) {
  (void)state;
  struct kiln_pipe *pipe = new_pipe(4, 5);
  assert_int_equal(KILN_PIPE_INVALID_RESERVATION, kiln_pipe_reserve(pipe, true, 0));
  assert_int_equal(KILN_PIPE_INVALID_RESERVATION, kiln_pipe_reserve(pipe, true, 6));
  assert_int_equal(KILN_PIPE_INVALID_RESERVATION, kiln_pipe_reserve(pipe, false, 1)); /* empty */
  uint64_t a = kiln_pipe_reserve(pipe, true, 3);
  assert_int_not_equal(KILN_PIPE_INVALID_RESERVATION, a);
  assert_null(kiln_pipe_packet(pipe, a, 3));
  assert_null(kiln_pipe_packet(pipe, KILN_PIPE_INVALID_RESERVATION, 0));
  assert_int_equal(KILN_PIPE_INVALID_RESERVATION, kiln_pipe_reserve(pipe, true, 3)); /* 2 left */
  uint64_t b = kiln_pipe_reserve(pipe, true, 2);
  assert_int_not_equal(KILN_PIPE_INVALID_RESERVATION, b);
  assert_int_equal(KILN_PIPE_INVALID_RESERVATION, kiln_pipe_reserve(pipe, true, 1)); /* full */
  kiln_pipe_commit(pipe, true, KILN_PIPE_INVALID_RESERVATION);                     /* ignored */
  free(pipe);
}

static void test_out_of_order_commits(void **state) {
  (void)state;
  struct kiln_pipe *pipe = new_pipe(4, 8);
  uint64_t a = kiln_pipe_reserve(pipe, true, 2), b = kiln_pipe_reserve(pipe, true, 2);
  for (uint32_t i = 0; i < 2; i++) put_int(pipe, a, i, 10 + (int)i), put_int(pipe, b, i, 20 + (int)i);
  kiln_pipe_commit(pipe, true, b);
  /* b is committed but follows a: nothing is readable yet. */
  assert_int_equal(0, kiln_pipe_num_packets(pipe));
  assert_int_equal(KILN_PIPE_INVALID_RESERVATION, kiln_pipe_reserve(pipe, false, 1));
  kiln_pipe_commit(pipe, true, a);
  assert_int_equal(4, kiln_pipe_num_packets(pipe));

  uint64_t r1 = kiln_pipe_reserve(pipe, false, 1), r3 = kiln_pipe_reserve(pipe, false, 3);
  assert_int_equal(10, get_int(pipe, r1, 0));
  assert_int_equal(11, get_int(pipe, r3, 0));
  assert_int_equal(20, get_int(pipe, r3, 1));
  assert_int_equal(21, get_int(pipe, r3, 2));
  assert_int_equal(0, kiln_pipe_num_packets(pipe));
  /* Writers may fill the 4 free slots; the read ones stay taken until read commits reach them. */
  uint64_t w = kiln_pipe_reserve(pipe, true, 4);
  assert_int_not_equal(KILN_PIPE_INVALID_RESERVATION, w);
  assert_int_equal(KILN_PIPE_INVALID_RESERVATION, kiln_pipe_reserve(pipe, true, 1));
  kiln_pipe_commit(pipe, false, r3); /* after r1, which is still open */
  assert_int_equal(KILN_PIPE_INVALID_RESERVATION, kiln_pipe_reserve(pipe, true, 1));
  kiln_pipe_commit(pipe, false, r1);
  uint64_t wrapped = kiln_pipe_reserve(pipe, true, 4); /* slots 0..3 again */
  assert_int_not_equal(KILN_PIPE_INVALID_RESERVATION, wrapped);
  for (uint32_t i = 0; i < 4; i++) put_int(pipe, w, i, 30 + (int)i), put_int(pipe, wrapped, i, 40 + (int)i);
  kiln_pipe_commit(pipe, true, wrapped);
  kiln_pipe_commit(pipe, true, w);
  uint64_t all = kiln_pipe_reserve(pipe, false, 8);
  for (uint32_t i = 0; i < 8; i++) assert_int_equal(i < 4 ? 30 + (int)i : 36 + (int)i, get_int(pipe, all, i));
  kiln_pipe_commit(pipe, false, all);
  assert_int_equal(0, kiln_pipe_num_packets(pipe));
  free(pipe);
}

enum { SEQUENCE = 200000 };

static void *writer(void *arg) {
  struct kiln_pipe *pipe = arg;
  for (int next = 0; next < SEQUENCE;) {
    uint32_t count = 1 + (uint32_t)next % 3;
    if (next + (int)count > SEQUENCE) count = 1;
    uint64_t id = kiln_pipe_reserve(pipe, true, count);
    if (id == KILN_PIPE_INVALID_RESERVATION) continue; /* full: the reader will make room */
    for (uint32_t i = 0; i < count; i++) put_int(pipe, id, i, next + (int)i);
    kiln_pipe_commit(pipe, true, id);
    next += (int)count;
  }
  return NULL;
}

static void test_writer_and_reader_threads(void **state) {
  (void)state;
  struct kiln_pipe *pipe = new_pipe(4, 7);
  pthread_t thread;
  assert_int_equal(0, pthread_create(&thread, NULL, writer, pipe));
  int expected = 0;
  while (expected < SEQUENCE) {
    uint64_t id = kiln_pipe_reserve(pipe, false, 2);
    uint32_t count = 2;
    if (id == KILN_PIPE_INVALID_RESERVATION) id = kiln_pipe_reserve(pipe, false, count = 1);
    if (id == KILN_PIPE_INVALID_RESERVATION) continue;
    for (uint32_t i = 0; i < count; i++) assert_int_equal(expected++, get_int(pipe, id, i));
    kiln_pipe_commit(pipe, false, id);
  }
  assert_int_equal(0, pthread_join(thread, NULL));
  assert_int_equal(0, kiln_pipe_num_packets(pipe));
  free(pipe);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_room_and_invalid_ids),
      cmocka_unit_test(test_out_of_order_commits),
      cmocka_unit_test(test_writer_and_reader_threads),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
