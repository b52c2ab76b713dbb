/* The batch planner (device/cpu/batch_plan.h), decision by decision:
 * - every plan's batches are consecutive, non-empty and cover every work-group exactly
 *   once, over many pseudo-random requests (hints and modifiers at their extremes too);
 * - 1, 2, 16, 17, 256, 4096 and 1M work-groups on 1, 2, 16 and 64 threads: with as many
 *   groups as threads, every thread gets work (threads claiming batches in order, as the
 *   worker pool's do), and equal groups finish within one smallest batch of the best
 *   possible time; the claims stay few (about threads x log2(groups / threads));
 * - the cost of a group: kernels with loops go down to one-group batches (2 us of measured
 *   work once measured), loop-free ones keep 1024 work-items a batch, either unless a
 *   thread would go without; loop-free ranges under 1024 work-items, and any launch on
 *   one thread, are one batch; a cheap kernel with loops never is;
 * - a few very heavy groups spread over every thread, and uneven groups finish close
 *   to the best time;
 * - cl_arm_scheduling_controls: a batch size is used exactly (capped at the groups), the
 *   modifier is added to every batch, saturating at 1 and at all the groups. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "device/cpu/batch_plan.h"

#include <stdlib.h>
#include <string.h>

static uint64_t ceil_div(uint64_t a, uint64_t b) { return a / b + (a % b != 0); }

static struct kiln_plan_request request_of(uint64_t groups, uint64_t group_items, unsigned threads, bool loops) {
  struct kiln_plan_request r;
  memset(&r, 0, sizeof r);
  r.groups = groups;
  r.group_items = group_items;
  r.items = groups * group_items;
  r.threads = threads;
  r.long_items = loops;
  return r;
}

/* Plans `r` and checks that the batches cover the groups exactly, in order, none empty;
 * returns the batch count. Sizes seen go to *largest / *smallest_full (the last batch
 * excluded: it may be cut short) when not NULL. */
static uint64_t plan_checked(struct kiln_batch_plan *plan, const struct kiln_plan_request *r, uint64_t *largest,
                             uint64_t *smallest_full) {
  uint64_t batches = kiln_batch_plan_make(plan, r);
  if (batches < 1 || batches > r->groups)
    fail_msg("%llu batches for %llu groups", (unsigned long long)batches, (unsigned long long)r->groups);
  uint64_t next = 0, big = 0, small = UINT64_MAX;
  for (uint64_t b = 0; b < batches; b++) {
    uint64_t first, count;
    kiln_batch_plan_range(plan, b, &first, &count);
    if (first != next || count == 0 || count > r->groups - first)
      fail_msg("batch %llu of %llu: groups %llu + %llu, expected to start at %llu (%llu groups)", (unsigned long long)b,
               (unsigned long long)batches, (unsigned long long)first, (unsigned long long)count,
               (unsigned long long)next, (unsigned long long)r->groups);
    next = first + count;
    if (count > big) big = count;
    if (b + 1 < batches && count < small) small = count;
  }
  if (next != r->groups) fail_msg("batches end at group %llu of %llu", (unsigned long long)next, (unsigned long long)r->groups);
  if (largest) *largest = big;
  if (smallest_full) *smallest_full = batches > 1 ? small : big;
  return batches;
}

/* The worker pool's claiming, simulated: `threads` threads start together; a thread that
 * is free takes the next batch (the earliest free first, ties to the lowest id). A group's
 * cost is cost(group) (NULL: 1). Returns the time the last one finishes; per-thread batch
 * counts go to taken[] when not NULL. */
static double simulate(const struct kiln_batch_plan *plan, uint64_t batches, unsigned threads,
                       double (*cost)(uint64_t group), uint64_t *taken) {
  double *free_at = calloc(threads, sizeof *free_at);
  if (taken) memset(taken, 0, threads * sizeof *taken);
  for (uint64_t b = 0; b < batches; b++) {
    unsigned t = 0;
    for (unsigned i = 1; i < threads; i++)
      if (free_at[i] < free_at[t]) t = i;
    uint64_t first, count;
    kiln_batch_plan_range(plan, b, &first, &count);
    double work = 0;
    for (uint64_t g = first; g < first + count; g++) work += cost ? cost(g) : 1.0;
    free_at[t] += work;
    if (taken) taken[t]++;
  }
  double end = 0;
  for (unsigned i = 0; i < threads; i++)
    if (free_at[i] > end) end = free_at[i];
  free(free_at);
  return end;
}

static unsigned log2_ceil(uint64_t x) {
  unsigned bits = 0;
  while (bits < 64 && (1ull << bits) < x) bits++;
  return bits;
}

static const uint64_t group_counts[] = {1, 2, 16, 17, 256, 4096, 1u << 20};
static const unsigned thread_counts[] = {1, 2, 16, 64};
#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

/* Kernels with loops, groups of 1 and 64 work-items: every thread busy as soon as there
 * are as many groups, equal groups finish within one smallest batch of ceil(groups /
 * threads), claims bounded by threads x (log2(first / smallest) + 3). */
static void test_long_groups_occupy_every_thread(void **state) {
  (void)state;
  const uint64_t local_sizes[] = {1, 64};
  for (size_t l = 0; l < COUNT(local_sizes); l++)
    for (size_t g = 0; g < COUNT(group_counts); g++)
      for (size_t t = 0; t < COUNT(thread_counts); t++) {
        uint64_t groups = group_counts[g];
        unsigned threads = thread_counts[t];
        struct kiln_plan_request r = request_of(groups, local_sizes[l], threads, true);
        struct kiln_batch_plan plan;
        uint64_t largest, smallest;
        uint64_t batches = plan_checked(&plan, &r, &largest, &smallest);
        uint64_t taken[64];
        double end = simulate(&plan, batches, threads, NULL, taken);
        if (threads == 1) {
          assert_int_equal(1, batches); /* one thread: nothing to share, no claim to pay */
          continue;
        }
        if (groups >= threads)
          for (unsigned i = 0; i < threads; i++)
            if (taken[i] == 0)
              fail_msg("%llu groups x %llu items on %u threads: thread %u gets no batch (%llu batches)",
                       (unsigned long long)groups, (unsigned long long)local_sizes[l], threads, i,
                       (unsigned long long)batches);
        if (groups < threads) assert_int_equal(groups, batches); /* one group each */
        assert_int_equal(1, smallest <= largest);
        double best = (double)ceil_div(groups, threads);
        if (end > best + (double)smallest)
          fail_msg("%llu groups on %u threads: done at %.0f, best %.0f, smallest batch %llu", (unsigned long long)groups,
                   threads, end, best, (unsigned long long)smallest);
        uint64_t bound = (uint64_t)threads * (log2_ceil(ceil_div(largest, smallest)) + 3);
        if (batches > bound)
          fail_msg("%llu groups on %u threads: %llu claims, bound %llu", (unsigned long long)groups, threads,
                   (unsigned long long)batches, (unsigned long long)bound);
      }
}

/* Loop-free kernels of one-item groups: a batch keeps 1024 work-items unless a thread
 * would go without work; ranges under 1024 work-items are one batch. */
static void test_tiny_groups_bounded_claims(void **state) {
  (void)state;
  for (size_t g = 0; g < COUNT(group_counts); g++)
    for (size_t t = 0; t < COUNT(thread_counts); t++) {
      uint64_t groups = group_counts[g];
      unsigned threads = thread_counts[t];
      struct kiln_plan_request r = request_of(groups, 1, threads, false);
      struct kiln_batch_plan plan;
      uint64_t largest, smallest;
      uint64_t batches = plan_checked(&plan, &r, &largest, &smallest);
      uint64_t taken[64];
      simulate(&plan, batches, threads, NULL, taken);
      if (threads == 1 || groups < 1024) {
        assert_int_equal(1, batches);
        continue;
      }
      uint64_t floor = groups / threads < 1024 ? groups / threads : 1024;
      if (smallest < floor)
        fail_msg("%llu tiny groups on %u threads: a batch of %llu groups, at least %llu expected",
                 (unsigned long long)groups, threads, (unsigned long long)smallest, (unsigned long long)floor);
      for (unsigned i = 0; i < threads; i++)
        if (taken[i] == 0) fail_msg("%llu tiny groups on %u threads: thread %u idle", (unsigned long long)groups, threads, i);
      if (batches > groups / floor + 1)
        fail_msg("%llu tiny groups on %u threads: %llu claims", (unsigned long long)groups, threads,
                 (unsigned long long)batches);
    }
  /* The numbers for 1M groups: tens of claims per thread, not 16384. */
  struct kiln_plan_request r = request_of(1u << 20, 1, 64, false);
  struct kiln_batch_plan plan;
  assert_true(plan_checked(&plan, &r, NULL, NULL) <= 64 * 6);
  r = request_of(1u << 20, 1, 2, false);
  assert_true(plan_checked(&plan, &r, NULL, NULL) <= 2 * 12);
}

/* The threshold counts work-items, not groups; loops lift it. */
static void test_small_ranges(void **state) {
  (void)state;
  struct kiln_batch_plan plan;
  struct kiln_plan_request r = request_of(63, 16, 16, false); /* 1008 items */
  assert_int_equal(1, plan_checked(&plan, &r, NULL, NULL));
  r.items = 1000; /* a partial last group: still small */
  assert_int_equal(1, plan_checked(&plan, &r, NULL, NULL));
  r = request_of(64, 16, 16, false); /* 1024 items: 16 batches of 4 groups, 64 items each */
  uint64_t largest, smallest;
  assert_int_equal(16, plan_checked(&plan, &r, &largest, &smallest));
  assert_int_equal(4, largest);
  assert_int_equal(4, smallest);
  r = request_of(63, 16, 16, true); /* with loops: spread */
  assert_int_equal(63 - 16 * 2 + 16, plan_checked(&plan, &r, &largest, &smallest)); /* 16 of 2, 31 of 1 */
  assert_int_equal(2, largest);
  assert_int_equal(1, smallest);
}

/* Kernels with loops, measured: the smallest batch holds 2 us of work, capped at groups /
 * threads (every thread still gets work, however cheap the groups seemed); never one
 * batch for being cheap. */
static void test_measured_long_items(void **state) {
  (void)state;
  const struct {
    uint64_t groups, group_items, item_ns_x1024;
    unsigned threads;
    uint64_t smallest;
  } cases[] = {
      {4096, 64, 1024, 16, 32},      /* 1 ns a work-item: 64 ns a group, 2000 / 64 -> 32 groups */
      {4096, 1, 1024, 16, 256},      /* 1 ns a group: 2000, capped at 4096 / 16 */
      {4096, 64, 1024 * 1000, 16, 1}, /* 64 us a group: one group */
      {256, 1, 1, 16, 16},           /* all but free: capped at 256 / 16, still 16 batches */
      {20, 1, 1, 16, 1},             /* fewer groups per thread than one: one group */
      {4096, 64, 0, 16, 1},          /* never measured: one group */
  };
  for (size_t i = 0; i < COUNT(cases); i++) {
    struct kiln_plan_request r = request_of(cases[i].groups, cases[i].group_items, cases[i].threads, true);
    r.item_ns_x1024 = cases[i].item_ns_x1024;
    struct kiln_batch_plan plan;
    uint64_t largest, smallest;
    uint64_t batches = plan_checked(&plan, &r, &largest, &smallest);
    if (plan.smallest != cases[i].smallest)
      fail_msg("case %zu: smallest batch %llu, expected %llu", i, (unsigned long long)plan.smallest,
               (unsigned long long)cases[i].smallest);
    uint64_t taken[64];
    simulate(&plan, batches, cases[i].threads, NULL, taken);
    for (unsigned t = 0; t < cases[i].threads && t < cases[i].groups; t++)
      if (taken[t] == 0) fail_msg("case %zu: thread %u idle", i, t);
  }
  /* A tiny range of a cheap kernel with loops is still spread: a batch per thread. */
  struct kiln_plan_request r = request_of(4, 16, 2, true);
  r.item_ns_x1024 = 1;
  struct kiln_batch_plan plan;
  assert_int_equal(2, plan_checked(&plan, &r, NULL, NULL));
}

/* The documented shape: first round ceil(groups / 2 threads), halving, then the smallest. */
static void test_rounds(void **state) {
  (void)state;
  struct kiln_batch_plan plan;
  struct kiln_plan_request r = request_of(256, 64, 16, true);
  uint64_t batches = plan_checked(&plan, &r, NULL, NULL);
  const uint64_t sizes[] = {8, 4, 2, 1, 1}; /* 16 batches of each */
  assert_int_equal(80, batches);
  for (uint64_t b = 0; b < batches; b++) {
    uint64_t first, count;
    kiln_batch_plan_range(&plan, b, &first, &count);
    assert_int_equal(sizes[b / 16], count);
  }
  uint64_t largest, smallest;
  kiln_batch_plan_sizes(&plan, &largest, &smallest);
  assert_int_equal(8, largest);
  assert_int_equal(1, smallest);
  /* Loop-free, 4096 one-item groups on 2 threads: 1024, 512 each, then 1024-item batches. */
  r = request_of(4096, 1, 2, false);
  assert_int_equal(2 + 2, plan_checked(&plan, &r, &largest, &smallest) - 0);
  kiln_batch_plan_sizes(&plan, &largest, &smallest);
  assert_int_equal(1024, largest);
  assert_int_equal(1024, smallest);
}

/* Heavy groups among light ones, spread over the range, or all at its end. */
static double heavy_spread(uint64_t group) { return group % 64 == 0 ? 1000.0 : 1.0; }
static double heavy_last(uint64_t group) { return group >= 252 ? 1000.0 : 1.0; }
static double uneven(uint64_t group) { return (double)(1 + (group * 2654435761u >> 7) % 97); }

/* Few very heavy groups reach every thread; uneven groups finish close to the best time. */
static void test_heavy_and_uneven_groups(void **state) {
  (void)state;
  struct kiln_batch_plan plan;
  struct kiln_plan_request r = request_of(16, 64, 16, true);
  uint64_t batches = plan_checked(&plan, &r, NULL, NULL);
  uint64_t taken[64];
  assert_int_equal(16, batches);
  simulate(&plan, batches, 16, NULL, taken);
  for (unsigned i = 0; i < 16; i++) assert_int_equal(1, taken[i]);
  /* Four groups costing 1000 each among 252 of 1, on 16 threads: done within 2 % of the
   * heaviest group (each heavy group on a thread of its own). Heavy groups next to each
   * other at the very start would share the first batch: no plan that does not know the
   * costs can avoid that and still batch. */
  r = request_of(256, 1, 16, true);
  batches = plan_checked(&plan, &r, NULL, NULL);
  double end = simulate(&plan, batches, 16, heavy_spread, NULL);
  if (end > 1020.0) fail_msg("4 heavy groups spread among 256 on 16 threads: done at %.0f", end);
  end = simulate(&plan, batches, 16, heavy_last, NULL);
  if (end > 1020.0) fail_msg("4 heavy groups at the end of 256 on 16 threads: done at %.0f", end);
  /* Costs 1..97, 4096 groups, 16 threads: within 2 % of the lower bound. */
  r = request_of(4096, 64, 16, true);
  batches = plan_checked(&plan, &r, NULL, NULL);
  double total = 0;
  for (uint64_t g = 0; g < 4096; g++) total += uneven(g);
  end = simulate(&plan, batches, 16, uneven, NULL);
  if (end > 1.02 * total / 16) fail_msg("uneven groups: done at %.0f, lower bound %.0f", end, total / 16);
}

/* The application's batch size, exactly; capped at the groups; the modifier added. */
static void test_batch_size_hint(void **state) {
  (void)state;
  const struct {
    uint64_t hint;
    int64_t modifier;
    uint64_t size;
  } cases[] = {{1, 0, 1},        {2, 0, 2},          {7, 0, 7},         {255, 0, 255},     {256, 0, 256},
               {257, 0, 256},    {UINT32_MAX, 0, 256}, {UINT64_MAX, 0, 256}, {10, -3, 7},    {10, 3, 13},
               {10, -9, 1},      {10, -10, 1},       {10, 246, 256},    {1, -1, 1},        {256, -1, 255},
               {1000, -800, 200}, {UINT64_MAX, INT64_MIN, 256}, {UINT64_MAX, 1, 256}, {UINT64_MAX, INT64_MAX, 256},
               {UINT32_MAX, INT32_MIN, 256}};
  for (size_t i = 0; i < COUNT(cases); i++)
    for (int loops = 0; loops < 2; loops++) {
      struct kiln_plan_request r = request_of(256, 16, 3, loops);
      r.batch_size = cases[i].hint;
      r.modifier = cases[i].modifier;
      struct kiln_batch_plan plan;
      uint64_t largest, smallest;
      uint64_t batches = plan_checked(&plan, &r, &largest, &smallest);
      if (largest != cases[i].size || smallest != cases[i].size || batches != ceil_div(256, cases[i].size))
        fail_msg("hint %llu, modifier %lld: %llu batches of %llu..%llu, expected %llu", (unsigned long long)cases[i].hint,
                 (long long)cases[i].modifier, (unsigned long long)batches, (unsigned long long)largest,
                 (unsigned long long)smallest, (unsigned long long)cases[i].size);
    }
  /* A hint applies to small ranges and to one thread too. */
  struct kiln_plan_request r = request_of(32, 16, 1, false);
  r.batch_size = 3;
  struct kiln_batch_plan plan;
  assert_int_equal(11, plan_checked(&plan, &r, NULL, NULL));
}

/* The modifier on Kiln's own sizes: added to every round's size. */
static void test_modifier_on_default(void **state) {
  (void)state;
  const struct {
    int64_t modifier;
    uint64_t largest, smallest;
  } cases[] = {/* 16 of 11 = 176 groups, then 7 each: the range ends in the second round */
               {0, 8, 1},         {-1, 7, 1},       {3, 11, 7},       {-7, 1, 1},           {-8, 1, 1},
               {INT32_MIN, 1, 1}, {INT64_MIN, 1, 1}, {248, 256, 256}, {INT32_MAX, 256, 256}, {INT64_MAX, 256, 256}};
  for (size_t i = 0; i < COUNT(cases); i++) {
    struct kiln_plan_request r = request_of(256, 64, 16, true); /* 8, 4, 2, 1 */
    r.modifier = cases[i].modifier;
    struct kiln_batch_plan plan;
    plan_checked(&plan, &r, NULL, NULL);
    uint64_t largest, smallest;
    kiln_batch_plan_sizes(&plan, &largest, &smallest);
    if (largest != cases[i].largest || smallest != cases[i].smallest)
      fail_msg("modifier %lld: sizes %llu..%llu, expected %llu..%llu", (long long)cases[i].modifier,
               (unsigned long long)largest, (unsigned long long)smallest, (unsigned long long)cases[i].largest,
               (unsigned long long)cases[i].smallest);
    uint64_t first, count;
    kiln_batch_plan_range(&plan, 0, &first, &count);
    assert_int_equal(cases[i].largest, count);
  }
  /* On a one-batch range the modifier applies to that batch's size. */
  struct kiln_plan_request r = request_of(32, 16, 16, false);
  r.modifier = -1;
  struct kiln_batch_plan plan;
  uint64_t largest, smallest;
  assert_int_equal(2, plan_checked(&plan, &r, &largest, &smallest));
  assert_int_equal(31, largest);
  r.modifier = -16;
  assert_int_equal(2, plan_checked(&plan, &r, &largest, &smallest));
  assert_int_equal(16, largest);
}

static uint32_t next_random(uint32_t *s) {
  uint32_t x = *s;
  x ^= x << 13;
  x ^= x >> 17;
  x ^= x << 5;
  return *s = x;
}

/* Pseudo-random requests: the batches always cover the groups exactly; a hint's batches
 * all have its size (but the last). */
static void test_random_requests(void **state) {
  (void)state;
  uint32_t seed = 12345;
  const int64_t special[] = {0, 0, 0, -1, 1, INT64_MIN, INT64_MAX, INT32_MIN, INT32_MAX};
  for (int i = 0; i < 20000; i++) {
    uint64_t groups = 1 + next_random(&seed) % (i % 10 == 0 ? 2000000 : 5000);
    uint64_t group_items = 1 + next_random(&seed) % 256;
    struct kiln_plan_request r = request_of(groups, group_items, 1 + next_random(&seed) % 80, next_random(&seed) & 1);
    r.items -= next_random(&seed) % group_items; /* a partial last group */
    uint32_t pick = next_random(&seed);
    r.batch_size = pick % 3 == 0 ? 0 : pick % 3 == 1 ? next_random(&seed) % 300 : (uint64_t)next_random(&seed) << 20;
    r.modifier = pick % 5 < 3 ? (int64_t)(next_random(&seed) % 200) - 100
                              : special[next_random(&seed) % COUNT(special)];
    struct kiln_batch_plan plan;
    uint64_t largest, smallest;
    uint64_t batches = plan_checked(&plan, &r, &largest, &smallest);
    uint64_t reported_largest, reported_smallest;
    kiln_batch_plan_sizes(&plan, &reported_largest, &reported_smallest);
    /* The last round's size: no full batch is smaller, the last batch no larger. */
    uint64_t last_first, last_count;
    kiln_batch_plan_range(&plan, batches - 1, &last_first, &last_count);
    if (reported_largest != largest || reported_smallest > smallest || reported_smallest < last_count)
      fail_msg("request %d: sizes reported %llu..%llu, seen %llu..%llu, last batch %llu", i,
               (unsigned long long)reported_largest, (unsigned long long)reported_smallest,
               (unsigned long long)largest, (unsigned long long)smallest, (unsigned long long)last_count);
    if (r.batch_size) {
      __int128 want = (__int128)r.batch_size + r.modifier;
      if (r.modifier < INT32_MIN) want = (__int128)r.batch_size + INT32_MIN; /* the extension's cl_int */
      if (r.modifier > INT32_MAX) want = (__int128)r.batch_size + INT32_MAX;
      uint64_t size = want < 1 ? 1 : want > (__int128)groups ? groups : (uint64_t)want;
      if (largest != size || batches != ceil_div(groups, size))
        fail_msg("request %d: hint %llu, modifier %lld: %llu batches of %llu, expected size %llu", i,
                 (unsigned long long)r.batch_size, (long long)r.modifier, (unsigned long long)batches,
                 (unsigned long long)largest, (unsigned long long)size);
    }
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_long_groups_occupy_every_thread),
      cmocka_unit_test(test_tiny_groups_bounded_claims),
      cmocka_unit_test(test_small_ranges),
      cmocka_unit_test(test_rounds),
      cmocka_unit_test(test_measured_long_items),
      cmocka_unit_test(test_heavy_and_uneven_groups),
      cmocka_unit_test(test_batch_size_hint),
      cmocka_unit_test(test_modifier_on_default),
      cmocka_unit_test(test_random_requests),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
