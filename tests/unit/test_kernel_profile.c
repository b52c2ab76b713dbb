/* The kernel profile (device/cpu/kernel_profile.h): unknown until measured; the first
 * measurement is taken as it is, later ones weigh a quarter (so a changed cost shows
 * within a few launches and one outlier does not swing it); never 0 once measured, also
 * for work too fast to time; estimates scale with the work-items and saturate instead of
 * overflowing; threads recording at once leave a value between their samples. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "device/cpu/kernel_profile.h"

#include <pthread.h>

static struct kiln_kernel_profile fresh(void) {
  struct kiln_kernel_profile p = {.name = "k"};
  atomic_init(&p.ns_per_kilo_item, 0);
  return p;
}

static void test_unknown_until_measured(void **state) {
  (void)state;
  struct kiln_kernel_profile p = fresh();
  assert_int_equal(0, kiln_kernel_profile_estimate(&p, 1000));
  kiln_kernel_profile_record(&p, 5000, 0); /* no work-items: no measurement */
  assert_int_equal(0, kiln_kernel_profile_estimate(&p, 1000));
  kiln_kernel_profile_record(&p, 0, 64); /* too fast to time: measured all the same */
  assert_true(kiln_kernel_profile_estimate(&p, 1000) >= 1);
}

static void test_first_then_blended(void **state) {
  (void)state;
  struct kiln_kernel_profile p = fresh();
  kiln_kernel_profile_record(&p, 1024000, 1024); /* 1000 ns a work-item */
  assert_int_equal(2000000, kiln_kernel_profile_estimate(&p, 2000));
  kiln_kernel_profile_record(&p, 5 * 1024000, 1024); /* 5000 ns: a quarter of the way */
  assert_int_equal(2000, kiln_kernel_profile_estimate(&p, 1)); /* 1000 + 4000 / 4 */
  for (int i = 0; i < 40; i++) kiln_kernel_profile_record(&p, 5 * 1024000, 1024);
  uint64_t settled = kiln_kernel_profile_estimate(&p, 1024);
  assert_true(settled > 4990 * 1024 && settled <= 5000 * 1024);
}

static void test_saturates(void **state) {
  (void)state;
  struct kiln_kernel_profile p = fresh();
  kiln_kernel_profile_record(&p, UINT64_MAX, 1);
  assert_int_equal(UINT64_MAX, kiln_kernel_profile_estimate(&p, UINT64_MAX));
  assert_true(kiln_kernel_profile_estimate(&p, 1) > 0);
}

static struct kiln_kernel_profile shared;

static void *record_many(void *arg) {
  uint64_t ns_per_item = (uint64_t)(uintptr_t)arg;
  for (int i = 0; i < 100000; i++) kiln_kernel_profile_record(&shared, ns_per_item * 64, 64);
  return NULL;
}

static void test_concurrent_records(void **state) {
  (void)state;
  shared = fresh();
  pthread_t a, b;
  pthread_create(&a, NULL, record_many, (void *)(uintptr_t)100);
  pthread_create(&b, NULL, record_many, (void *)(uintptr_t)300);
  pthread_join(a, NULL);
  pthread_join(b, NULL);
  uint64_t per_item = kiln_kernel_profile_estimate(&shared, 1024) / 1024;
  if (per_item < 99 || per_item > 300) fail_msg("estimate %llu ns a work-item, outside 100..300", (unsigned long long)per_item);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_unknown_until_measured),
      cmocka_unit_test(test_first_then_blended),
      cmocka_unit_test(test_saturates),
      cmocka_unit_test(test_concurrent_records),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
