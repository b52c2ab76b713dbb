/* Per-worker batch queues: the initial split, front takes in order, stealing the back half
 * of the fullest queue (one batch for a thread without a queue), a bound on the batches a
 * queue holds (refills from the pool in order, capped steals), and exactly-once claims
 * under contention from owners and thieves, bounded or not. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "device/cpu/batch_queue.h"

#include <pthread.h>
#include <stdlib.h>

static void expect_range(const struct kiln_batch_queues *queues, unsigned w, uint64_t front, uint64_t back) {
  uint64_t f, b;
  kiln_batch_queues_peek(queues, w, &f, &b);
  if (f != front || b != back)
    fail_msg("queue %u holds %llu..%llu, expected %llu..%llu", w, (unsigned long long)f, (unsigned long long)b,
             (unsigned long long)front, (unsigned long long)back);
}

static uint64_t claim(struct kiln_batch_queues *queues, unsigned own) {
  uint64_t batch = UINT64_MAX;
  assert_true(kiln_batch_queues_claim(queues, own, &batch));
  return batch;
}

static void test_split(void **state) {
  (void)state;
  struct kiln_batch_queues *queues = kiln_batch_queues_create(3, 3, 10, 0);
  assert_non_null(queues);
  expect_range(queues, 0, 0, 3);
  expect_range(queues, 1, 3, 6);
  expect_range(queues, 2, 6, 10);
  expect_range(queues, 3, 10, 10); /* no pool without a bound */
  free(queues);
  queues = kiln_batch_queues_create(4, 4, 2, 0); /* fewer batches than queues: some start empty */
  expect_range(queues, 0, 0, 0);
  expect_range(queues, 1, 0, 1);
  expect_range(queues, 2, 1, 1);
  expect_range(queues, 3, 1, 2);
  free(queues);
  queues = kiln_batch_queues_create(3, 2, 5, 0); /* the third for a thread that only steals */
  expect_range(queues, 0, 0, 2);
  expect_range(queues, 1, 2, 5);
  expect_range(queues, 2, 0, 0);
  free(queues);
  assert_null(kiln_batch_queues_create(2, 2, (uint64_t)UINT32_MAX + 1, 0)); /* indices are 32-bit */
  assert_null(kiln_batch_queues_create(2, 0, 5, 0));
  assert_null(kiln_batch_queues_create(2, 3, 5, 0));
}

static void test_front_in_order(void **state) {
  (void)state;
  struct kiln_batch_queues *queues = kiln_batch_queues_create(2, 2, 7, 0);
  for (uint64_t want = 3; want < 7; want++) assert_int_equal(want, claim(queues, 1));
  expect_range(queues, 0, 0, 3); /* the other queue is untouched until queue 1 is empty */
  free(queues);
}

static void test_steal_back_half_of_fullest(void **state) {
  (void)state;
  struct kiln_batch_queues *queues = kiln_batch_queues_create(3, 3, 10, 0); /* [0,3) [3,6) [6,10) */
  for (int i = 0; i < 3; i++) claim(queues, 0);
  assert_int_equal(8, claim(queues, 0)); /* queue 2 holds most: its back half is 8, 9 */
  expect_range(queues, 2, 6, 8);
  expect_range(queues, 0, 9, 10);        /* the rest of the half */
  expect_range(queues, 1, 3, 6);
  assert_int_equal(9, claim(queues, 0));
  /* An odd count: the back half rounds up (3 of [3,6) → 2 taken). */
  assert_int_equal(4, claim(queues, 0));
  expect_range(queues, 1, 3, 4);
  expect_range(queues, 0, 5, 6);
  free(queues);
}

static void test_thread_without_queue_steals_one(void **state) {
  (void)state;
  struct kiln_batch_queues *queues = kiln_batch_queues_create(2, 2, 8, 0); /* [0,4) [4,8) */
  assert_int_equal(3, claim(queues, 2)); /* a tie goes to the first fullest queue */
  expect_range(queues, 0, 0, 3);
  assert_int_equal(7, claim(queues, 7));
  expect_range(queues, 1, 4, 7);
  free(queues);
}

static void test_nothing_left(void **state) {
  (void)state;
  struct kiln_batch_queues *queues = kiln_batch_queues_create(2, 2, 1, 0); /* [0,0) [0,1) */
  uint64_t batch;
  assert_int_equal(0, claim(queues, 0));
  assert_false(kiln_batch_queues_claim(queues, 0, &batch));
  assert_false(kiln_batch_queues_claim(queues, 1, &batch));
  assert_false(kiln_batch_queues_claim(queues, 5, &batch));
  free(queues);
}

/* With a bound of 2 over 3 queues and 15 batches: queues start with 2 each, the pool holds
 * 6..14, an empty queue refills 2 from the pool in order, and steals take at most 2. */
static void test_bound(void **state) {
  (void)state;
  struct kiln_batch_queues *queues = kiln_batch_queues_create(4, 3, 15, 2);
  expect_range(queues, 0, 0, 2);
  expect_range(queues, 1, 2, 4);
  expect_range(queues, 2, 4, 6);
  expect_range(queues, 3, 0, 0);
  expect_range(queues, 4, 6, 15); /* the pool */
  assert_int_equal(0, claim(queues, 0));
  assert_int_equal(1, claim(queues, 0));
  assert_int_equal(6, claim(queues, 0)); /* refill: 6 and 7 */
  expect_range(queues, 0, 7, 8);
  expect_range(queues, 4, 8, 15);
  assert_int_equal(8, claim(queues, 3)); /* the fourth queue refills too */
  expect_range(queues, 3, 9, 10);
  assert_int_equal(10, claim(queues, 9)); /* a thread without a queue: one batch */
  expect_range(queues, 4, 11, 15);
  assert_int_equal(7, claim(queues, 0));
  assert_int_equal(11, claim(queues, 0));
  assert_int_equal(12, claim(queues, 0));
  assert_int_equal(13, claim(queues, 0)); /* the pool's last: 13 and 14 */
  assert_int_equal(14, claim(queues, 0));
  expect_range(queues, 4, 15, 15);
  assert_int_equal(3, claim(queues, 0)); /* pool empty: the back half of [2,4), the first fullest */
  expect_range(queues, 1, 2, 3);
  free(queues);
  /* A bound at or above a share bounds nothing. */
  queues = kiln_batch_queues_create(2, 2, 10, 5);
  expect_range(queues, 0, 0, 5);
  expect_range(queues, 1, 5, 10);
  expect_range(queues, 2, 10, 10);
  free(queues);
  assert_int_equal(5, kiln_batch_queues_depth(10, 2, 0));
  assert_int_equal(2, kiln_batch_queues_depth(10, 2, 2));
  assert_int_equal(4, kiln_batch_queues_depth(10, 3, 0));
  assert_int_equal(4, kiln_batch_queues_depth(10, 3, 9));
}

/* A thread with an empty queue drains the pool a bound at a time, then steals the back
 * half of a bounded queue (never more than the bound: a queue holds at most that). */
static void test_bounded_refills_then_steals(void **state) {
  (void)state;
  struct kiln_batch_queues *queues = kiln_batch_queues_create(3, 2, 12, 3); /* [0,3) [3,6), pool [6,12) */
  for (uint64_t want = 6; want < 12; want++) {
    assert_int_equal(want, claim(queues, 2));
    uint64_t front, back;
    kiln_batch_queues_peek(queues, 2, &front, &back);
    assert_true(back - front < 3);
  }
  expect_range(queues, 3, 12, 12);
  assert_int_equal(1, claim(queues, 2)); /* queue 0 (first of the fullest): 1 and 2 */
  expect_range(queues, 0, 0, 1);
  expect_range(queues, 2, 2, 3);
  free(queues);
}

#define OWNERS 4
#define THIEVES 2 /* queues of their own, empty at first */
#define LONERS 1  /* no queue: one batch at a time */
#define CONTENDED_BATCHES 200000u

struct contender {
  struct kiln_batch_queues *queues;
  unsigned id;
  uint32_t bound;
  atomic_uchar *hits;
  uint64_t claimed, overfull;
};

static void *contend(void *arg) {
  struct contender *c = arg;
  uint64_t batch, front, back;
  while (kiln_batch_queues_claim(c->queues, c->id, &batch)) {
    atomic_fetch_add_explicit(&c->hits[batch], 1, memory_order_relaxed);
    c->claimed++;
    if (c->bound && c->id < OWNERS + THIEVES) { /* what is left in its queue, and the one taken */
      kiln_batch_queues_peek(c->queues, c->id, &front, &back);
      if (back > front && back - front + 1 > c->bound) c->overfull++;
    }
  }
  return NULL;
}

static void test_exactly_once_under_contention(void **state) {
  (void)state;
  const uint32_t bounds[] = {0, 1, 7, 5000};
  for (int round = 0; round < 8; round++) {
    uint32_t bound = bounds[round % 4];
    struct kiln_batch_queues *queues = kiln_batch_queues_create(OWNERS + THIEVES, OWNERS, CONTENDED_BATCHES, bound);
    atomic_uchar *hits = calloc(CONTENDED_BATCHES, sizeof *hits);
    struct contender contenders[OWNERS + THIEVES + LONERS];
    pthread_t threads[OWNERS + THIEVES + LONERS];
    for (unsigned i = 0; i < OWNERS + THIEVES + LONERS; i++) {
      contenders[i] = (struct contender){queues, i, bound, hits, 0, 0};
      assert_int_equal(0, pthread_create(&threads[i], NULL, contend, &contenders[i]));
    }
    uint64_t total = 0;
    for (unsigned i = 0; i < OWNERS + THIEVES + LONERS; i++) {
      assert_int_equal(0, pthread_join(threads[i], NULL));
      total += contenders[i].claimed;
      if (contenders[i].overfull) fail_msg("bound %u: queue %u held more", bound, i);
    }
    assert_int_equal(CONTENDED_BATCHES, total);
    for (uint64_t b = 0; b < CONTENDED_BATCHES; b++)
      if (atomic_load(&hits[b]) != 1) fail_msg("batch %llu claimed %u times", (unsigned long long)b, (unsigned)hits[b]);
    for (unsigned w = 0; w <= OWNERS + THIEVES; w++) {
      uint64_t front, back;
      kiln_batch_queues_peek(queues, w, &front, &back);
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
      cmocka_unit_test(test_bound),
      cmocka_unit_test(test_bounded_refills_then_steals),
      cmocka_unit_test(test_exactly_once_under_contention),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
