/* Blocking calls sleep instead of spinning: a thread blocked for 0.5 s in clWaitForEvents,
 * clFinish or a blocking read behind an unset user event, with the worker threads idle,
 * must leave the CPU mostly unused. The bound (a quarter of the wall time across all
 * threads of the process) only fails when some thread spins for most of the wait. */
#include "kiln_test.h"

#include <pthread.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

static double process_cpu_seconds(void) {
  struct rusage usage;
  getrusage(RUSAGE_SELF, &usage);
  return (double)usage.ru_utime.tv_sec + usage.ru_utime.tv_usec / 1e6 + (double)usage.ru_stime.tv_sec +
         usage.ru_stime.tv_usec / 1e6;
}

static double wall_seconds(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

struct delayed_release {
  cl_event gate;
  useconds_t delay_us;
};

static void *set_gate_later(void *arg) {
  struct delayed_release *d = arg;
  usleep(d->delay_us);
  clSetUserEventStatus(d->gate, CL_COMPLETE);
  return NULL;
}

enum wait_kind { WAIT_FOR_EVENTS, WAIT_FINISH, WAIT_BLOCKING_READ };

static void check_wait_sleeps(struct kiln_test_env *env, enum wait_kind kind) {
  cl_int err;
  cl_mem buffer = clCreateBuffer(env->context, CL_MEM_READ_WRITE, 4096, NULL, &err);
  assert_cl_success(err);
  char host[4096];
  /* Warm the worker pool up so its threads exist and then go idle. */
  assert_cl_success(clEnqueueWriteBuffer(env->queue, buffer, CL_TRUE, 0, sizeof host, host, 0, NULL, NULL));

  cl_event gate = clCreateUserEvent(env->context, &err);
  assert_cl_success(err);
  cl_event marker;
  assert_cl_success(clEnqueueMarkerWithWaitList(env->queue, 1, &gate, &marker));
  struct delayed_release d = {gate, 500000};
  pthread_t setter;
  double cpu0 = process_cpu_seconds(), wall0 = wall_seconds();
  assert_int_equal(0, pthread_create(&setter, NULL, set_gate_later, &d));
  switch (kind) {
  case WAIT_FOR_EVENTS: assert_cl_success(clWaitForEvents(1, &marker)); break;
  case WAIT_FINISH: assert_cl_success(clFinish(env->queue)); break;
  case WAIT_BLOCKING_READ:
    assert_cl_success(clEnqueueReadBuffer(env->queue, buffer, CL_TRUE, 0, sizeof host, host, 0, NULL, NULL));
    break;
  }
  double wall = wall_seconds() - wall0, cpu = process_cpu_seconds() - cpu0;
  pthread_join(setter, NULL);
  assert_true(wall >= 0.45); /* it really waited for the user event */
  print_message("waited %.3f s, process used %.3f s of CPU\n", wall, cpu);
  assert_true(cpu < wall / 4);
  assert_cl_success(clReleaseEvent(marker));
  assert_cl_success(clReleaseEvent(gate));
  assert_cl_success(clReleaseMemObject(buffer));
}

static void test_wait_for_events_sleeps(void **state) { check_wait_sleeps(*state, WAIT_FOR_EVENTS); }
static void test_finish_sleeps(void **state) { check_wait_sleeps(*state, WAIT_FINISH); }
static void test_blocking_read_sleeps(void **state) { check_wait_sleeps(*state, WAIT_BLOCKING_READ); }

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup_teardown(test_wait_for_events_sleeps, kiln_test_env_setup, kiln_test_env_teardown),
      cmocka_unit_test_setup_teardown(test_finish_sleeps, kiln_test_env_setup, kiln_test_env_teardown),
      cmocka_unit_test_setup_teardown(test_blocking_read_sleeps, kiln_test_env_setup, kiln_test_env_teardown),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
