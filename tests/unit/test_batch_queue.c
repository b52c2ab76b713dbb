/* Per-worker batch queues: the initial split, front takes in order, stealing the back half
 * of the fullest queue (one batch for a thread without a queue), and exactly-once claims
 * under contention from owners and thieves. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "device/cpu/batch_queue.h"

#include <pthread.h>
#include <stdlib.h>

static void expect_range(const struct kiln_batch_queue *queue, uint64_t front, uint64_t back) {
  uint64_t f, b;
  kiln_batch_queue_peek(queue, &f, &b);
  assert_int_equal(front, f);
  assert_int_equal(back, b);
}

static void test_split(void **state) {
  (void)state;
  struct kiln_batch_queue *queues = kiln_batch_queues_create(3, 3, 10);
  assert_non_null(queues);
  expect_range(&queues[0], 0, 3);
  expect_range(&queues[1], 3, 6);
  expect_range(&queues[2], 6, 10);
  free(queues);
  queues = kiln_batch_queues_create(4, 4, 2); /* fewer batches than queues: some start empty */
  expect_range(&queues[0], 0, 0);
  expect_range(&queues[1], 0, 1);
  expect_range(&queues[2], 1, 1);
  expect_range(&queues[3], 1, 2);
  free(queues);
  queues = kiln_batch_queues_create(3, 2, 5); /* the third for a thread that only steals */
  expect_range(&queues[0], 0, 2);
  expect_range(&queues[1], 2, 5);
  expect_range(&queues[2], 0, 0);
  free(queues);
  assert_null(kiln_batch_queues_create(2, 2, (uint64_t)UINT32_MAX + 1)); /* indices are 32-bit */
  assert_null(kiln_batch_queues_create(2, 0, 5));
  assert_null(kiln_batch_queues_create(2, 3, 5));
}

static void test_front_in_order(void **state) {
  (void)state;
  struct kiln_batch_queue *queues = kiln_batch_queues_create(2, 2, 7);
  uint64_t batch;
  for (uint64_t want = 3; want < 7; want++) {
    assert_true(kiln_batch_queue_take_front(&queues[1], &batch));
    assert_int_equal(want, batch);
  }
  assert_false(kiln_batch_queue_take_front(&queues[1], &batch));
  expect_range(&queues[0], 0, 3); /* the other queue is untouched */
  free(queues);
}

static void test_steal_back_half_of_fullest(void **state) {
  (void)state;
  struct kiln_batch_queue *queues = kiln_batch_queues_create(3, 3, 10); /* [0,3) [3,6) [6,10) */
  uint64_t batch;
  while (kiln_batch_queue_take_front(&queues[0], &batch)) continue;
  assert_true(kiln_batch_queue_steal(queues, 3, 0, &batch));
  assert_int_equal(8, batch);         /* queue 2 holds most: its back half is 8, 9 */
  expect_range(&queues[2], 6, 8);
  expect_range(&queues[0], 9, 10);    /* the rest of the half */
  expect_range(&queues[1], 3, 6);
  /* An odd count: the back half rounds up (3 of [3,6) → 2 taken). */
  while (kiln_batch_queue_take_front(&queues[0], &batch)) continue;
  assert_true(kiln_batch_queue_steal(queues, 3, 0, &batch));
  assert_int_equal(4, batch);
  expect_range(&queues[1], 3, 4);
  expect_range(&queues[0], 5, 6);
  free(queues);
}

static void test_thread_without_queue_steals_one(void **state) {
  (void)state;
  struct kiln_batch_queue *queues = kiln_batch_queues_create(2, 2, 8); /* [0,4) [4,8) */
  uint64_t batch;
  assert_true(kiln_batch_queue_steal(queues, 2, 2, &batch));
  assert_int_equal(3, batch); /* a tie goes to the first fullest queue */
  expect_range(&queues[0], 0, 3);
  assert_true(kiln_batch_queue_steal(queues, 2, 7, &batch));
  assert_int_equal(7, batch);
  expect_range(&queues[1], 4, 7);
  free(queues);
}

static void test_nothing_left(void **state) {
  (void)state;
  struct kiln_batch_queue *queues = kiln_batch_queues_create(2, 2, 1); /* [0,0) [0,1) */
  uint64_t batch;
  assert_true(kiln_batch_queue_steal(queues, 2, 0, &batch));
  assert_int_equal(0, batch);
  assert_false(kiln_batch_queue_steal(queues, 2, 0, &batch));
  assert_false(kiln_batch_queue_steal(queues, 2, 1, &batch)); /* its own queue does not count */
  assert_false(kiln_batch_queue_take_front(&queues[1], &batch));
  free(queues);
}

#define OWNERS 4
#define THIEVES 2 /* queues of their own, empty at first */
#define LONERS 1  /* no queue: steal one batch at a time */
#define CONTENDED_BATCHES 200000u

struct contender {
  struct kiln_batch_queue *queues;
  unsigned id;               /* its queue; OWNERS + THIEVES and above: none */
  atomic_uchar *hits;
  uint64_t claimed;
};

static void *contend(void *arg) {
  struct contender *c = arg;
  uint64_t batch;
  for (;;) {
    bool got = (c->id < OWNERS + THIEVES && kiln_batch_queue_take_front(&c->queues[c->id], &batch)) ||
               kiln_batch_queue_steal(c->queues, OWNERS + THIEVES, c->id, &batch);
    if (!got) break;
    atomic_fetch_add_explicit(&c->hits[batch], 1, memory_order_relaxed);
    c->claimed++;
  }
  return NULL;
}

static void test_exactly_once_under_contention(void **state) {
  (void)state;
  for (int round = 0; round < 5; round++) {
    struct kiln_batch_queue *queues = kiln_batch_queues_create(OWNERS + THIEVES, OWNERS, CONTENDED_BATCHES);
    atomic_uchar *hits = calloc(CONTENDED_BATCHES, sizeof *hits);
    struct contender contenders[OWNERS + THIEVES + LONERS];
    pthread_t threads[OWNERS + THIEVES + LONERS];
    for (unsigned i = 0; i < OWNERS + THIEVES + LONERS; i++) {
      contenders[i] = (struct contender){queues, i, hits, 0};
      assert_int_equal(0, pthread_create(&threads[i], NULL, contend, &contenders[i]));
    }
    uint64_t total = 0;
    for (unsigned i = 0; i < OWNERS + THIEVES + LONERS; i++) {
      assert_int_equal(0, pthread_join(threads[i], NULL));
      total += contenders[i].claimed;
    }
    assert_int_equal(CONTENDED_BATCHES, total);
    for (uint64_t b = 0; b < CONTENDED_BATCHES; b++)
      if (atomic_load(&hits[b]) != 1) fail_msg("batch %llu claimed %u times", (unsigned long long)b, (unsigned)hits[b]);
    for (unsigned w = 0; w < OWNERS + THIEVES; w++) {
      uint64_t front, back;
      kiln_batch_queue_peek(&queues[w], &front, &back);
      assert_true(front >= back);
    }
    free(hits);
    free(queues);
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_split),
      cmocka_unit_test(test_front_in_order),
      cmocka_unit_test(test_steal_back_half_of_fullest),
      cmocka_unit_test(test_thread_without_queue_steals_one),
      cmocka_unit_test(test_nothing_left),
      cmocka_unit_test(test_exactly_once_under_contention),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
