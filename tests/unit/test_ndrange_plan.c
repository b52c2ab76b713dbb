/* The NDRange batch planner (kiln_ndrange_plan): the work-groups counted over 1, 2 and 3
 * dimensions (partial last groups included); the default of one batch for ranges under
 * 1024 work-items and about four batches per worker above; the batch-size hint, capped at
 * the work-groups; the modifier added to the hint or the default, saturating at one group
 * and at all of them, also at the extremes of its range (INT64_MIN, INT64_MAX, a hint of
 * UINT64_MAX); and, over many pseudo-random launches, that the batches cover every group
 * exactly: batches = ceil(groups / groups_per_batch). The pool runs 3 workers here. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "device/cpu/ndrange_executor.h"
#include "device/cpu/worker_pool.h"

#include <string.h>

#define WORKERS 3
#define SMALL_RANGE_ITEMS 1024u /* the documented threshold */
#define BATCHES_PER_WORKER 4u

/* A launch over `dims` dimensions; num_groups rounds up (a partial last group). */
static struct kiln_ndrange_launch launch_of(uint32_t dims, const uint64_t *global, const uint64_t *local) {
  struct kiln_ndrange_launch launch;
  memset(&launch, 0, sizeof launch);
  launch.range.work_dim = dims;
  for (uint32_t d = 0; d < 3; d++) {
    bool used = d < dims;
    launch.range.global_size[d] = used ? global[d] : 1;
    launch.range.local_size[d] = used ? local[d] : 1;
    launch.range.num_groups[d] =
        (launch.range.global_size[d] + launch.range.local_size[d] - 1) / launch.range.local_size[d];
  }
  return launch;
}

static struct kiln_ndrange_launch launch_1d(uint64_t global, uint64_t local) {
  return launch_of(1, (uint64_t[]){global}, (uint64_t[]){local});
}

/* Plans and checks the plan's own consistency; returns the groups per batch. */
static uint64_t plan(struct kiln_ndrange_launch *launch, uint64_t groups_hint, int64_t modifier) {
  struct kiln_batch_hint hint = {groups_hint, modifier};
  size_t batches = kiln_ndrange_plan(launch, &hint);
  const struct kiln_ndrange *r = &launch->range;
  uint64_t groups = r->num_groups[0] * r->num_groups[1] * r->num_groups[2];
  assert_int_equal(groups, launch->total_groups);
  uint64_t per = launch->groups_per_batch;
  if (per < 1 || per > groups)
    fail_msg("groups_per_batch %llu outside 1 .. %llu", (unsigned long long)per, (unsigned long long)groups);
  assert_int_equal((groups + per - 1) / per, batches);
  return per;
}

/* The documented default for a launch. */
static uint64_t default_of(const struct kiln_ndrange_launch *launch) {
  const struct kiln_ndrange *r = &launch->range;
  uint64_t groups = r->num_groups[0] * r->num_groups[1] * r->num_groups[2];
  uint64_t items = r->global_size[0] * r->global_size[1] * r->global_size[2];
  if (items < SMALL_RANGE_ITEMS) return groups;
  uint64_t target = WORKERS * BATCHES_PER_WORKER;
  return (groups + target - 1) / target;
}

/* The extension's arithmetic, without overflow: (hint or default) + modifier in [1, groups]. */
static uint64_t reference(const struct kiln_ndrange_launch *launch, uint64_t groups_hint, int64_t modifier) {
  __int128 size = (__int128)(groups_hint ? groups_hint : default_of(launch)) + modifier;
  uint64_t groups = launch->total_groups;
  if (size < 1) size = 1;
  return size > (__int128)groups ? groups : (uint64_t)size;
}

static void test_pool_size(void **state) {
  (void)state;
  assert_int_equal(WORKERS, kiln_worker_pool_size());
}

static void test_small_ranges_are_one_batch(void **state) {
  (void)state;
  const uint64_t shapes[][2] = {{1, 1}, {16, 16}, {512, 16}, {1008, 16}, {1023, 1}, {1000, 16}, {1023, 1023}};
  for (size_t i = 0; i < sizeof shapes / sizeof shapes[0]; i++) {
    struct kiln_ndrange_launch l = launch_1d(shapes[i][0], shapes[i][1]);
    uint64_t groups = (shapes[i][0] + shapes[i][1] - 1) / shapes[i][1];
    assert_int_equal(groups, plan(&l, 0, 0));
  }
  /* 2-D and 3-D: the work-items of every dimension count. */
  struct kiln_ndrange_launch l2 = launch_of(2, (uint64_t[]){31, 33}, (uint64_t[]){4, 4}); /* 1023 items */
  assert_int_equal(8 * 9, plan(&l2, 0, 0));
  struct kiln_ndrange_launch l3 = launch_of(3, (uint64_t[]){8, 8, 15}, (uint64_t[]){2, 2, 5}); /* 960 items */
  assert_int_equal(4 * 4 * 3, plan(&l3, 0, 0));
}

static void test_default_for_large_ranges(void **state) {
  (void)state;
  const struct {
    uint64_t global, local, per_batch;
  } cases[] = {
      {1024, 16, 6},        /* 64 groups, 12 batches wanted: 6 per batch */
      {1024, 1024, 1},      /* one group */
      {1600, 16, 9},        /* 100 groups */
      {12 * 64, 1, 768},    /* 768 items: small, one batch */
      {4096, 1, 342},       /* 4096 groups */
      {4096, 256, 2},       /* 16 groups */
      {5 * 1024, 1024, 1},  /* 5 groups: fewer than 12 batches, one group each */
      {13 * 1024, 1024, 2}, /* 13 groups */
      {1ull << 30, 1024, 87382},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    struct kiln_ndrange_launch l = launch_1d(cases[i].global, cases[i].local);
    uint64_t got = plan(&l, 0, 0);
    if (got != cases[i].per_batch)
      fail_msg("%llu/%llu: %llu groups per batch, expected %llu", (unsigned long long)cases[i].global,
               (unsigned long long)cases[i].local, (unsigned long long)got, (unsigned long long)cases[i].per_batch);
    assert_int_equal(default_of(&l), got);
  }
  /* The threshold is on work-items, whatever the dimensions. */
  struct kiln_ndrange_launch l2 = launch_of(2, (uint64_t[]){32, 32}, (uint64_t[]){4, 4}); /* 1024 items, 64 groups */
  assert_int_equal(6, plan(&l2, 0, 0));
  struct kiln_ndrange_launch l3 = launch_of(3, (uint64_t[]){16, 16, 8}, (uint64_t[]){4, 4, 2});
  assert_int_equal(6, plan(&l3, 0, 0)); /* 2048 items, 64 groups */
}

static void test_batch_size_hint(void **state) {
  (void)state;
  struct kiln_ndrange_launch l = launch_1d(4096, 16); /* 256 groups */
  const struct {
    uint64_t hint, per_batch;
  } cases[] = {{1, 1}, {2, 2}, {7, 7}, {255, 255}, {256, 256}, {257, 256}, {UINT32_MAX, 256}, {UINT64_MAX, 256}};
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
    assert_int_equal(cases[i].per_batch, plan(&l, cases[i].hint, 0));
  /* A hint applies to small ranges too. */
  struct kiln_ndrange_launch small = launch_1d(512, 16); /* 32 groups */
  assert_int_equal(3, plan(&small, 3, 0));
  struct kiln_batch_hint three = {3, 0};
  assert_int_equal(11, kiln_ndrange_plan(&small, &three)); /* ceil(32 / 3) */
}

static void test_modifier(void **state) {
  (void)state;
  struct kiln_ndrange_launch l = launch_1d(4096, 16); /* 256 groups, default 22 */
  assert_int_equal(22, plan(&l, 0, 0));
  const struct {
    uint64_t hint;
    int64_t modifier;
    uint64_t per_batch;
  } cases[] = {
      {0, -1, 21},
      {0, 3, 25},
      {0, -21, 1},
      {0, -22, 1},
      {0, -23, 1},
      {0, 234, 256},
      {0, 235, 256},
      {0, INT32_MIN, 1},
      {0, INT32_MAX, 256},
      {0, INT64_MIN, 1},
      {0, INT64_MAX, 256},
      {10, -3, 7},
      {10, 3, 13},
      {10, -9, 1},
      {10, -10, 1},
      {10, 246, 256},
      {1, -1, 1},
      {256, -1, 255},
      {1000, -800, 200},
      {UINT64_MAX, INT64_MIN, 256},
      {UINT64_MAX, 1, 256},
      {UINT64_MAX, INT64_MAX, 256},
      {UINT32_MAX, INT32_MIN, 256},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    uint64_t got = plan(&l, cases[i].hint, cases[i].modifier);
    if (got != cases[i].per_batch)
      fail_msg("hint %llu, modifier %lld: %llu groups per batch, expected %llu", (unsigned long long)cases[i].hint,
               (long long)cases[i].modifier, (unsigned long long)got, (unsigned long long)cases[i].per_batch);
  }
  /* On a small range the modifier applies to its one-batch default. */
  struct kiln_ndrange_launch small = launch_1d(512, 16); /* 32 groups */
  assert_int_equal(31, plan(&small, 0, -1));
  assert_int_equal(32, plan(&small, 0, 1));
  assert_int_equal(16, plan(&small, 0, -16));
}

/* A partial last group counts as a group. */
static void test_partial_groups(void **state) {
  (void)state;
  struct kiln_ndrange_launch l = launch_1d(1000, 16); /* 63 groups, 1000 items: small */
  assert_int_equal(63, plan(&l, 0, 0));
  assert_int_equal(63, l.total_groups);
  struct kiln_ndrange_launch big = launch_of(2, (uint64_t[]){100, 50}, (uint64_t[]){16, 16}); /* 7 x 4 groups */
  assert_int_equal(3, plan(&big, 0, 0));                                                      /* ceil(28 / 12) */
  assert_int_equal(28, big.total_groups);
  assert_int_equal(5, plan(&big, 5, 0));
}

static uint32_t next_random(uint32_t *s) {
  uint32_t x = *s;
  x ^= x << 13;
  x ^= x >> 17;
  x ^= x << 5;
  return *s = x;
}

/* Many pseudo-random launches and hints agree with the reference arithmetic. */
static void test_random_launches(void **state) {
  (void)state;
  uint32_t seed = 12345;
  const int64_t special[] = {0, 0, 0, -1, 1, INT64_MIN, INT64_MAX, INT32_MIN, INT32_MAX};
  for (int i = 0; i < 20000; i++) {
    uint32_t dims = 1 + next_random(&seed) % 3;
    uint64_t global[3], local[3];
    for (uint32_t d = 0; d < dims; d++) {
      global[d] = 1 + next_random(&seed) % (d == 0 ? 5000 : 40);
      local[d] = 1 + next_random(&seed) % (global[d] < 64 ? global[d] : 64);
    }
    struct kiln_ndrange_launch l = launch_of(dims, global, local);
    uint32_t pick = next_random(&seed);
    uint64_t hint = pick % 3 == 0 ? 0 : pick % 3 == 1 ? next_random(&seed) % 300 : (uint64_t)next_random(&seed) << 20;
    int64_t modifier = pick % 5 < 3 ? (int64_t)(next_random(&seed) % 200) - 100
                                    : special[next_random(&seed) % (sizeof special / sizeof special[0])];
    uint64_t got = plan(&l, hint, modifier);
    uint64_t want = reference(&l, hint, modifier);
    if (got != want)
      fail_msg("launch %d (%u-D, %llu groups), hint %llu, modifier %lld: %llu groups per batch, expected %llu", i, dims,
               (unsigned long long)l.total_groups, (unsigned long long)hint, (long long)modifier,
               (unsigned long long)got, (unsigned long long)want);
  }
}

int main(void) {
  kiln_worker_pool_configure(WORKERS);
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_pool_size),
      cmocka_unit_test(test_small_ranges_are_one_batch),
      cmocka_unit_test(test_default_for_large_ranges),
      cmocka_unit_test(test_batch_size_hint),
      cmocka_unit_test(test_modifier),
      cmocka_unit_test(test_partial_groups),
      cmocka_unit_test(test_random_launches),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
