/* Launches of a few heavy work-groups use every worker (the batch planner, seen through
 * the ICD loader). The suite runs Kiln with KILN_NUM_WORKERS=2 and the scheduling trace.
 * A kernel with a long 64-bit hash loop runs 2, 3, 16, 17, 64 and 256 work-groups of 1
 * and of 64 work-items (the same total work, about 0.1 s on one core, in each shape):
 * - waited for with clFinish: the trace shows at least two threads ran batches, and the
 *   kernel itself saw two of its work-groups running at the same time;
 * - waited for by polling the event's status (the application thread runs no batch
 *   then): the trace shows exactly the two workers ran batches;
 * - once a kernel's launches were measured, a long launch waited for with clFinish runs on
 *   exactly the two workers: the waiting thread leaves them a core each;
 * - every result is checked against the host's hash.
 * The old planner ran all of these shapes under 1024 work-items as one batch on one
 * thread. A check that a descheduled worker could spoil is retried (three times), never
 * loosened. */
#include "kiln_test.h"
#include "kiln_test_hash64.h"
#include "kiln_test_objects.h"
#include "kiln_test_sched_trace.h"

#include <stdlib.h>

#define WORKERS "2"
/* Hash rounds over all work-items of a launch: about 0.1 s on one core. */
#define TOTAL_ROUNDS (48u << 20)
#define TRIES 3

/* state[0]: work-groups running now, from the start of a group's first work-item to the
 * end of its last (a group's work-items run in order on one thread); state[1]: the most
 * seen at once. */
static const char *source =
    KILN_HASH64_CL_SOURCE
    "kernel void heavy(global ulong *out, global int *state, uint rounds) {\n"
    "  if (get_local_id(0) == 0) atomic_max(&state[1], atomic_inc(&state[0]) + 1);\n"
    "  out[get_global_id(0)] = kiln_hash64(get_global_id(0) + 1, rounds);\n"
    "  if (get_local_id(0) == get_local_size(0) - 1) atomic_dec(&state[0]);\n"
    "}\n";

static cl_program program;

static int setup(void **state) {
  kiln_test_program_setup(state, kiln_test_env_setup, &program, source, NULL);
  struct kiln_test_env *env = *state;
  cl_uint units = kiln_test_compute_units(env->device);
  if (units != 2)
    fail_msg("KILN_NUM_WORKERS=%s gave %u compute units: this suite needs a machine of at least 2 cores", WORKERS,
             units);
  return 0;
}

static int teardown(void **state) { return kiln_test_program_teardown(state, program); }

struct launch_result {
  struct kiln_sched_line line;
  cl_int most_at_once;
};

/* Runs `groups` groups of `local` work-items, waiting by clFinish or by polling; checks
 * every result and the trace line's group count. */
static struct launch_result run_heavy_with(struct kiln_test_env *env, cl_kernel kernel, size_t groups, size_t local,
                                          bool poll) {
  size_t items = groups * local;
  cl_uint rounds = TOTAL_ROUNDS / (cl_uint)items;
  cl_mem out = kiln_test_buffer(env->context, items * sizeof(cl_ulong));
  cl_int zeros[2] = {0, 0};
  cl_mem state = kiln_test_buffer_with(env->context, 2, zeros);
  kiln_test_arg_mem(kernel, 0, out);
  kiln_test_arg_mem(kernel, 1, state);
  assert_cl_success(clSetKernelArg(kernel, 2, sizeof rounds, &rounds));
  assert_cl_success(clFinish(env->queue));
  long mark = kiln_sched_trace_mark();
  cl_event done = NULL;
  assert_cl_success(clEnqueueNDRangeKernel(env->queue, kernel, 1, NULL, &items, &local, 0, NULL, &done));
  if (poll) {
    assert_cl_success(clFlush(env->queue)); /* deferred flush (the default): wakes the workers, runs nothing */
    double start = kiln_test_now_ms();
    while (kiln_test_event_status(done) != CL_COMPLETE) {
      if (kiln_test_now_ms() - start > 60000) fail_msg("%zu groups: not complete after 60 s", groups);
      kiln_test_sleep_ms(1);
    }
  } else {
    assert_cl_success(clFinish(env->queue));
  }
  assert_cl_success(clReleaseEvent(done));
  char what[96];
  snprintf(what, sizeof what, "%zu groups of %zu work-items", groups, local);
  struct launch_result result = {kiln_sched_trace_one(mark, "heavy", what), 0};
  if (result.line.groups != groups) fail_msg("%s: trace groups=%llu", what, result.line.groups);
  cl_ulong *got = malloc(items * sizeof *got);
  kiln_test_read(env->queue, out, items * sizeof *got, got);
  for (size_t i = 0; i < items; i++)
    if (got[i] != kiln_hash64(i + 1, rounds)) fail_msg("%s: element %zu wrong", what, i);
  free(got);
  result.most_at_once = kiln_test_read_int(env->queue, state, 1);
  assert_cl_success(clReleaseMemObject(out));
  assert_cl_success(clReleaseMemObject(state));
  return result;
}

/* With a kernel object of its own: never measured before. */
static struct launch_result run_heavy(struct kiln_test_env *env, size_t groups, size_t local, bool poll) {
  cl_kernel kernel = kiln_test_kernel(program, "heavy");
  struct launch_result result = run_heavy_with(env, kernel, groups, local, poll);
  assert_cl_success(clReleaseKernel(kernel));
  return result;
}

static const size_t group_counts[] = {2, 3, 16, 17, 64, 256};
static const size_t local_sizes[] = {1, 64};

/* Polled, no application thread runs batches: exactly the two workers must have. */
static bool spread(const struct launch_result *r, bool poll) {
  return (poll ? r->line.workers == 2 : r->line.workers >= 2) && r->most_at_once >= 2;
}

static void expect_every_shape_spread(struct kiln_test_env *env, bool poll) {
  for (size_t l = 0; l < 2; l++)
    for (size_t g = 0; g < sizeof group_counts / sizeof group_counts[0]; g++) {
      struct launch_result r;
      int tries = 0;
      do r = run_heavy(env, group_counts[g], local_sizes[l], poll);
      while (!spread(&r, poll) && ++tries < TRIES);
      if (!spread(&r, poll))
        fail_msg("%zu groups of %zu work-items%s: %u thread(s) ran batches, %d group(s) at once (%llu batches)",
                 group_counts[g], local_sizes[l], poll ? ", polled" : "", r.line.workers, r.most_at_once,
                 r.line.batches);
    }
}

static void test_heavy_groups_occupy_both_workers(void **state) { expect_every_shape_spread(*state, false); }

static void test_workers_alone_share_the_groups(void **state) { expect_every_shape_spread(*state, true); }

/* The second launch of a measured kernel (about 50 ms a thread) runs on the workers alone. */
static void test_long_launch_leaves_cores_to_workers(void **state) {
  struct kiln_test_env *env = *state;
  cl_kernel kernel = kiln_test_kernel(program, "heavy");
  run_heavy_with(env, kernel, 256, 64, false); /* measures the kernel */
  struct launch_result r;
  int tries = 0;
  do r = run_heavy_with(env, kernel, 256, 64, false);
  while ((r.line.workers != 2 || r.most_at_once < 2) && ++tries < TRIES);
  if (r.line.workers != 2 || r.most_at_once < 2)
    fail_msg("a measured long launch: %u thread(s) ran batches, %d group(s) at once", r.line.workers, r.most_at_once);
  assert_cl_success(clReleaseKernel(kernel));
}

int main(void) {
  setenv("KILN_NUM_WORKERS", WORKERS, 1); /* read once, at the first OpenCL call */
  kiln_sched_trace_enable("ndrange-spread");
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_heavy_groups_occupy_both_workers),
      cmocka_unit_test(test_workers_alone_share_the_groups),
      cmocka_unit_test(test_long_launch_leaves_cores_to_workers),
  };
  int failed = cmocka_run_group_tests(tests, setup, teardown);
  kiln_sched_trace_remove();
  return failed;
}
