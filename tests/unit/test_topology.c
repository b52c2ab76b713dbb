/* Unit test of src/device/cpu/topology.c: what hwloc reports agrees with the kernel's view of
 * this process, and pinning puts a thread on exactly its core's CPUs. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "device/cpu/topology.h"

#include <pthread.h>
#include <sched.h>
#include <string.h>
#include <unistd.h>

static int allowed_cpus(cpu_set_t *set) {
  CPU_ZERO(set);
  assert_int_equal(sched_getaffinity(0, sizeof *set, set), 0);
  return CPU_COUNT(set);
}

static void test_counts_match_affinity(void **state) {
  (void)state;
  const struct kiln_cpu_topology *t = kiln_cpu_topology_get();
  assert_ptr_equal(t, kiln_cpu_topology_get()); /* read once */
  cpu_set_t set;
  int cpus = allowed_cpus(&set);
  assert_true(t->core_count >= 1);
  assert_true(t->core_count <= t->pu_count);
  assert_int_equal(t->pu_count, cpus);
  long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGE_SIZE);
  assert_int_equal(t->global_mem_bytes, (uint64_t)pages * (uint64_t)page);
  assert_true(t->cache_line_bytes >= 16 && (t->cache_line_bytes & (t->cache_line_bytes - 1)) == 0);
  assert_true(strlen(t->cpu_name) > 0);
  assert_true(strlen(t->cpu_name) < sizeof t->cpu_name);
  if (t->l2_cache_bytes && t->l1d_cache_bytes) assert_true(t->l2_cache_bytes >= t->l1d_cache_bytes);
}

struct bind_result {
  unsigned core;
  int rc;
  cpu_set_t after;
};

static void *bind_thread_main(void *arg) {
  struct bind_result *r = arg;
  r->rc = kiln_cpu_topology_bind_thread(r->core);
  CPU_ZERO(&r->after);
  sched_getaffinity(0, sizeof r->after, &r->after);
  return NULL;
}

/* Each core's binding is a non-empty subset of the process's CPUs, the cores are disjoint
 * and together cover every allowed CPU. Threads are used so the test's own affinity stays. */
static void test_bind_each_core(void **state) {
  (void)state;
  const struct kiln_cpu_topology *t = kiln_cpu_topology_get();
  cpu_set_t allowed, covered;
  allowed_cpus(&allowed);
  CPU_ZERO(&covered);
  for (unsigned core = 0; core < t->core_count; core++) {
    struct bind_result r = {.core = core};
    pthread_t thread;
    assert_int_equal(pthread_create(&thread, NULL, bind_thread_main, &r), 0);
    pthread_join(thread, NULL);
    assert_int_equal(r.rc, 0);
    assert_true(CPU_COUNT(&r.after) >= 1);
    cpu_set_t outside, overlap;
    CPU_AND(&overlap, &r.after, &covered);
    assert_int_equal(CPU_COUNT(&overlap), 0);
    CPU_XOR(&outside, &r.after, &allowed);
    CPU_AND(&outside, &outside, &r.after);
    assert_int_equal(CPU_COUNT(&outside), 0);
    CPU_OR(&covered, &covered, &r.after);
  }
  assert_true(CPU_EQUAL(&covered, &allowed));
  cpu_set_t still;
  allowed_cpus(&still);
  assert_true(CPU_EQUAL(&still, &allowed));
}

static void test_bind_out_of_range(void **state) {
  (void)state;
  const struct kiln_cpu_topology *t = kiln_cpu_topology_get();
  cpu_set_t before, after;
  allowed_cpus(&before);
  assert_int_equal(kiln_cpu_topology_bind_thread(t->core_count), -1);
  assert_int_equal(kiln_cpu_topology_bind_thread(~0u), -1);
  allowed_cpus(&after);
  assert_true(CPU_EQUAL(&before, &after));
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_counts_match_affinity),
      cmocka_unit_test(test_bind_each_core),
      cmocka_unit_test(test_bind_out_of_range),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
