/* kiln_bench: the numbers Kiln is judged by, measured through the ICD loader on any
 * platform chosen by name, so Kiln and PoCL run the same binary in the same session.
 * Every kernel result is checked against a host reference; a wrong result fails the run.
 *
 *   kiln_bench [--platform NAME] [--quick] [--only LIST]
 *   LIST: comma-separated of latency,throughput,vadd,sgemm,reduce,collectives,waits,sinexp,stencil,nbody,localsize,cmdbuf,mutable,recording,
 *         sched,families,heavy,images,svm,build
 *
 * Performance is measured here, never asserted in tests. */

#include "bench.h"
#include "kiln_test_hash64.h"

#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

double now_us(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec / 1e3;
}

static int compare_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

double median(double *values, size_t n) {
  qsort(values, n, sizeof *values, compare_double);
  return n % 2 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2;
}

void report(const char *platform, const char *what, double value, const char *unit) {
  printf("%-10s %-44s %12.3f %s\n", platform, what, value, unit);
  fflush(stdout);
}

void fail(const char *what) {
  fprintf(stderr, "kiln_bench: %s: WRONG RESULT\n", what);
  exit(1);
}

/* PoCL's platform is "Portable Computing Language": shown as PoCL in the table. */
static void display_name(const char *platform_arg, char *out, size_t size) {
  snprintf(out, size, "%s", strstr("Portable Computing Language", platform_arg) ? "PoCL" : platform_arg);
}

static cl_platform_id find_platform(const char *name, char *found_name, size_t found_size) {
  cl_uint count = 0;
  CHECK(clGetPlatformIDs(0, NULL, &count));
  cl_platform_id *platforms = calloc(count, sizeof *platforms);
  CHECK(clGetPlatformIDs(count, platforms, NULL));
  cl_platform_id found = NULL;
  for (cl_uint i = 0; i < count && !found; i++) {
    char platform_name[256];
    CHECK(clGetPlatformInfo(platforms[i], CL_PLATFORM_NAME, sizeof platform_name, platform_name, NULL));
    if (strstr(platform_name, name)) {
      found = platforms[i];
      display_name(name, found_name, found_size);
    }
  }
  free(platforms);
  return found;
}

cl_program build(struct bench_env *env, const char *source, const char *options) {
  cl_int err;
  cl_program program = clCreateProgramWithSource(env->context, 1, &source, NULL, &err);
  CHECK(err);
  err = clBuildProgram(program, 1, &env->device, options, NULL, NULL);
  if (err != CL_SUCCESS) {
    char log[16384] = "";
    clGetProgramBuildInfo(program, env->device, CL_PROGRAM_BUILD_LOG, sizeof log, log, NULL);
    fprintf(stderr, "build failed (%d):\n%s\n", err, log);
    exit(2);
  }
  return program;
}

cl_kernel kernel_of(cl_program program, const char *name) {
  cl_int err;
  cl_kernel kernel = clCreateKernel(program, name, &err);
  CHECK(err);
  return kernel;
}

cl_mem buffer(struct bench_env *env, cl_mem_flags flags, size_t size, void *host) {
  cl_int err;
  cl_mem mem = clCreateBuffer(env->context, flags, size, host, &err);
  CHECK(err);
  return mem;
}

/* One warm-up launch (so one-time costs are not timed), then the best of `reps` timed
 * enqueue+finish pairs, in microseconds. */
double best_launch_us(struct bench_env *env, cl_kernel kernel, cl_uint dims, const size_t *global,
                             const size_t *local, int reps) {
  CHECK(clEnqueueNDRangeKernel(env->queue, kernel, dims, NULL, global, local, 0, NULL, NULL));
  CHECK(clFinish(env->queue));
  double best = 1e300;
  for (int r = 0; r < reps; r++) {
    double t0 = now_us();
    CHECK(clEnqueueNDRangeKernel(env->queue, kernel, dims, NULL, global, local, 0, NULL, NULL));
    CHECK(clFinish(env->queue));
    double t = now_us() - t0;
    if (t < best) best = t;
  }
  return best;
}

/* ---- launch latency and throughput ---- */
static const char *empty_source = "kernel void empty(global int *out) { if (out) out[0] = 1; }\n";

static void bench_launch(struct bench_env *env, bool latency) {
  cl_program program = build(env, empty_source, NULL);
  cl_kernel kernel = kernel_of(program, "empty");
  cl_mem out = buffer(env, CL_MEM_READ_WRITE, sizeof(cl_int), NULL);
  CHECK(clSetKernelArg(kernel, 0, sizeof out, &out));
  size_t one = 1;
  for (int i = 0; i < 100; i++) CHECK(clEnqueueNDRangeKernel(env->queue, kernel, 1, NULL, &one, &one, 0, NULL, NULL));
  CHECK(clFinish(env->queue));
  if (latency) {
    size_t n = env->quick ? 200 : 2000;
    double *samples = malloc(n * sizeof *samples);
    for (size_t i = 0; i < n; i++) {
      double t0 = now_us();
      CHECK(clEnqueueNDRangeKernel(env->queue, kernel, 1, NULL, &one, &one, 0, NULL, NULL));
      CHECK(clFinish(env->queue));
      samples[i] = now_us() - t0;
    }
    report(env->platform_name, "launch latency (enqueue+finish, median)", median(samples, n), "us");
    free(samples);
  } else {
    int n = env->quick ? 1000 : 10000;
    double t0 = now_us();
    for (int i = 0; i < n; i++) CHECK(clEnqueueNDRangeKernel(env->queue, kernel, 1, NULL, &one, &one, 0, NULL, NULL));
    CHECK(clFinish(env->queue));
    report(env->platform_name, "launch throughput (back-to-back)", (now_us() - t0) / n, "us/kernel");
  }
  cl_int value = 0;
  CHECK(clEnqueueReadBuffer(env->queue, out, CL_TRUE, 0, sizeof value, &value, 0, NULL, NULL));
  if (value != 1) fail("empty kernel");
  clReleaseMemObject(out);
  clReleaseKernel(kernel);
  clReleaseProgram(program);
}

/* ---- command buffers: 100 recorded tiny kernels replayed, against enqueueing them ----
 * The entry points are looked up at run time. Kiln implements cl_khr_command_buffer
 * 0.9.7, PoCL 3.1 reports 0.9.0; the five calls used here have the same parameters in
 * both (0.9.5 added a properties parameter only to the other recording calls). */
typedef void *bench_command_buffer;
typedef bench_command_buffer(CL_API_CALL *create_command_buffer_fn)(cl_uint, const cl_command_queue *,
                                                                     const cl_ulong *, cl_int *);
typedef cl_int(CL_API_CALL *command_ndrange_fn)(bench_command_buffer, cl_command_queue, const cl_ulong *, cl_kernel,
                                                cl_uint, const size_t *, const size_t *, const size_t *, cl_uint,
                                                const cl_uint *, cl_uint *, void **);
typedef cl_int(CL_API_CALL *command_buffer_fn)(bench_command_buffer);
typedef cl_int(CL_API_CALL *enqueue_command_buffer_fn)(cl_uint, cl_command_queue *, bench_command_buffer, cl_uint,
                                                       const cl_event *, cl_event *);

static const char *bump_source = "kernel void bump(global int *counter) { counter[0] += 1; }\n";

static void bench_command_buffer_replay(struct bench_env *env) {
  enum { COMMANDS = 100 };
  create_command_buffer_fn create =
      (create_command_buffer_fn)clGetExtensionFunctionAddressForPlatform(env->platform, "clCreateCommandBufferKHR");
  command_ndrange_fn record =
      (command_ndrange_fn)clGetExtensionFunctionAddressForPlatform(env->platform, "clCommandNDRangeKernelKHR");
  command_buffer_fn finalize =
      (command_buffer_fn)clGetExtensionFunctionAddressForPlatform(env->platform, "clFinalizeCommandBufferKHR");
  command_buffer_fn release =
      (command_buffer_fn)clGetExtensionFunctionAddressForPlatform(env->platform, "clReleaseCommandBufferKHR");
  enqueue_command_buffer_fn enqueue =
      (enqueue_command_buffer_fn)clGetExtensionFunctionAddressForPlatform(env->platform, "clEnqueueCommandBufferKHR");
  if (!create || !record || !finalize || !release || !enqueue) {
    printf("%-10s %-44s %12s\n", env->platform_name, "command buffer replay", "n/a");
    return;
  }
  cl_program program = build(env, bump_source, NULL);
  cl_kernel kernel = kernel_of(program, "bump");
  cl_int zero = 0, value = 0;
  cl_mem counter = buffer(env, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, sizeof zero, &zero);
  CHECK(clSetKernelArg(kernel, 0, sizeof counter, &counter));
  size_t one = 1;
  int reps = env->quick ? 100 : 2000;

  /* Plain: the same 100 kernels enqueued one by one on the in-order queue. */
  for (int i = 0; i < COMMANDS; i++) CHECK(clEnqueueNDRangeKernel(env->queue, kernel, 1, NULL, &one, &one, 0, NULL, NULL));
  CHECK(clFinish(env->queue));
  double t0 = now_us();
  for (int r = 0; r < reps; r++) {
    for (int i = 0; i < COMMANDS; i++)
      CHECK(clEnqueueNDRangeKernel(env->queue, kernel, 1, NULL, &one, &one, 0, NULL, NULL));
    CHECK(clFinish(env->queue));
  }
  double plain = (now_us() - t0) / ((double)reps * COMMANDS);

  /* Recorded: each command waits for the previous one's sync point. */
  cl_int err;
  bench_command_buffer command_buffer = create(1, &env->queue, NULL, &err);
  CHECK(err);
  cl_uint previous = 0;
  for (int i = 0; i < COMMANDS; i++) {
    cl_uint sync_point;
    CHECK(record(command_buffer, NULL, NULL, kernel, 1, NULL, &one, &one, i ? 1 : 0, i ? &previous : NULL,
                 &sync_point, NULL));
    previous = sync_point;
  }
  CHECK(finalize(command_buffer));
  CHECK(enqueue(0, NULL, command_buffer, 0, NULL, NULL));
  CHECK(clFinish(env->queue));
  t0 = now_us();
  for (int r = 0; r < reps; r++) {
    CHECK(enqueue(0, NULL, command_buffer, 0, NULL, NULL));
    CHECK(clFinish(env->queue));
  }
  double replayed = (now_us() - t0) / ((double)reps * COMMANDS);

  CHECK(clEnqueueReadBuffer(env->queue, counter, CL_TRUE, 0, sizeof value, &value, 0, NULL, NULL));
  if (value != COMMANDS * (2 * reps + 2)) fail("command buffer replay");
  report(env->platform_name, "kernel enqueued one by one (100 per finish)", plain, "us/kernel");
  report(env->platform_name, "command buffer replay (100 kernels)", replayed, "us/command");
  report(env->platform_name, "  replay gain over enqueueing", plain / replayed, "x");
  CHECK(release(command_buffer));
  clReleaseMemObject(counter);
  clReleaseKernel(kernel);
  clReleaseProgram(program);
}

/* ---- cl_qcom_recordable_queues: 100 recorded tiny kernels replayed, against enqueueing ----
 * Declared locally (the bench includes only the core headers); values from the spec. */
#define BENCH_QUEUE_RECORDABLE_QCOM ((cl_command_queue_properties)1 << 30)
typedef struct {
  cl_uint dispatch_index, arg_index;
  size_t arg_size;
  const void *arg_value;
} bench_array_arg;
typedef void *(CL_API_CALL *new_recording_fn)(cl_command_queue, cl_int *);
typedef cl_int(CL_API_CALL *recording_fn)(void *);
typedef cl_int(CL_API_CALL *enqueue_recording_fn)(cl_command_queue, void *, size_t, const bench_array_arg *, size_t,
                                                  const void *, size_t, const void *, size_t, const void *, cl_uint,
                                                  const cl_event *, cl_event *);

static void bench_recording_replay(struct bench_env *env) {
  enum { DISPATCHES = 100 };
  new_recording_fn new_recording =
      (new_recording_fn)clGetExtensionFunctionAddressForPlatform(env->platform, "clNewRecordingQCOM");
  recording_fn end_recording = (recording_fn)clGetExtensionFunctionAddressForPlatform(env->platform, "clEndRecordingQCOM");
  recording_fn release_recording =
      (recording_fn)clGetExtensionFunctionAddressForPlatform(env->platform, "clReleaseRecordingQCOM");
  enqueue_recording_fn enqueue =
      (enqueue_recording_fn)clGetExtensionFunctionAddressForPlatform(env->platform, "clEnqueueRecordingQCOM");
  cl_int err;
  cl_queue_properties properties[] = {CL_QUEUE_PROPERTIES, BENCH_QUEUE_RECORDABLE_QCOM, 0};
  cl_command_queue recordable =
      new_recording ? clCreateCommandQueueWithProperties(env->context, env->device, properties, &err) : NULL;
  if (!new_recording || !end_recording || !release_recording || !enqueue || !recordable) {
    printf("%-10s %-44s %12s\n", env->platform_name, "recording replay (cl_qcom_recordable_queues)", "n/a");
    return;
  }
  cl_program program = build(env, bump_source, NULL);
  cl_kernel kernel = kernel_of(program, "bump");
  cl_int zero = 0, value = 0;
  cl_mem counter = buffer(env, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, sizeof zero, &zero);
  cl_mem other = buffer(env, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, sizeof zero, &zero);
  CHECK(clSetKernelArg(kernel, 0, sizeof counter, &counter));
  size_t one = 1;
  int reps = env->quick ? 100 : 2000;
  void *recording = new_recording(recordable, &err);
  CHECK(err);
  for (int i = 0; i < DISPATCHES; i++) CHECK(clEnqueueNDRangeKernel(recordable, kernel, 1, NULL, &one, &one, 0, NULL, NULL));
  CHECK(end_recording(recording));

  for (int i = 0; i < DISPATCHES; i++) CHECK(clEnqueueNDRangeKernel(env->queue, kernel, 1, NULL, &one, &one, 0, NULL, NULL));
  CHECK(clFinish(env->queue));
  double t0 = now_us();
  for (int r = 0; r < reps; r++) {
    for (int i = 0; i < DISPATCHES; i++)
      CHECK(clEnqueueNDRangeKernel(env->queue, kernel, 1, NULL, &one, &one, 0, NULL, NULL));
    CHECK(clFinish(env->queue));
  }
  double plain = (now_us() - t0) / ((double)reps * DISPATCHES);

  CHECK(enqueue(env->queue, recording, 0, NULL, 0, NULL, 0, NULL, 0, NULL, 0, NULL, NULL));
  CHECK(clFinish(env->queue));
  t0 = now_us();
  for (int r = 0; r < reps; r++) {
    CHECK(enqueue(env->queue, recording, 0, NULL, 0, NULL, 0, NULL, 0, NULL, 0, NULL, NULL));
    CHECK(clFinish(env->queue));
  }
  double replayed = (now_us() - t0) / ((double)reps * DISPATCHES);

  /* With an update each time: dispatch 0 alternates between the two counters. */
  t0 = now_us();
  for (int r = 0; r < reps; r++) {
    bench_array_arg update = {0, 0, sizeof(cl_mem), r % 2 ? (const void *)&counter : (const void *)&other};
    CHECK(enqueue(env->queue, recording, 1, &update, 0, NULL, 0, NULL, 0, NULL, 0, NULL, NULL));
    CHECK(clFinish(env->queue));
  }
  double updated = (now_us() - t0) / ((double)reps * DISPATCHES);

  CHECK(clEnqueueReadBuffer(env->queue, counter, CL_TRUE, 0, sizeof value, &value, 0, NULL, NULL));
  cl_int moved = 0;
  CHECK(clEnqueueReadBuffer(env->queue, other, CL_TRUE, 0, sizeof moved, &moved, 0, NULL, NULL));
  if (value + moved != DISPATCHES * (3 * reps + 2) || moved != (reps + 1) / 2) fail("recording replay");
  report(env->platform_name, "kernel enqueued one by one (100 per finish)", plain, "us/kernel");
  report(env->platform_name, "recording replay (100 dispatches)", replayed, "us/dispatch");
  report(env->platform_name, "  replay gain over enqueueing", plain / replayed, "x");
  report(env->platform_name, "recording replay, 1 argument update each", updated, "us/dispatch");
  CHECK(release_recording(recording));
  clReleaseCommandQueue(recordable);
  clReleaseMemObject(counter);
  clReleaseMemObject(other);
  clReleaseKernel(kernel);
  clReleaseProgram(program);
}

/* ---- cl_arm_scheduling_controls: each control against the default ----
 * Tokens declared locally (the bench includes only the core headers); values from cl.xml. */
#define BENCH_KERNEL_EXEC_INFO_WORKGROUP_BATCH_SIZE_ARM 0x41E5
#define BENCH_QUEUE_KERNEL_BATCHING_ARM 0x41E7
#define BENCH_QUEUE_COMPUTE_UNIT_LIMIT_ARM 0x41F3

static const char *sched_source =
    "kernel void hash(global uint *out, int rounds) {\n"
    "  uint x = (uint)get_global_id(0);\n"
    "  for (int k = 0; k < rounds; k++) { x = x * 1664525u + 1013904223u; x ^= x >> 13; }\n"
    "  out[get_global_id(0)] = x;\n"
    "}\n"
    "kernel void tiny(global int *v) { v[get_global_id(0)] += 1; }\n";

static bool platform_has_extension(struct bench_env *env, const char *name) {
  char extensions[8192] = "";
  CHECK(clGetDeviceInfo(env->device, CL_DEVICE_EXTENSIONS, sizeof extensions - 1, extensions, NULL));
  size_t len = strlen(name);
  for (const char *p = extensions; (p = strstr(p, name)) != NULL; p += len)
    if ((p == extensions || p[-1] == ' ') && (p[len] == ' ' || p[len] == '\0')) return true;
  return false;
}

static cl_command_queue sched_queue(struct bench_env *env, cl_queue_properties name, cl_queue_properties value) {
  cl_queue_properties properties[] = {name, value, 0};
  cl_int err;
  cl_command_queue queue = clCreateCommandQueueWithProperties(env->context, env->device, properties, &err);
  CHECK(err);
  return queue;
}

/* Best of `reps` enqueue+finish of `kernel` on `queue`, after one warm-up, in microseconds. */
static double best_on_queue_us(cl_command_queue queue, cl_kernel kernel, const size_t *global, const size_t *local,
                               int reps) {
  CHECK(clEnqueueNDRangeKernel(queue, kernel, 1, NULL, global, local, 0, NULL, NULL));
  CHECK(clFinish(queue));
  double best = 1e300;
  for (int r = 0; r < reps; r++) {
    double t0 = now_us();
    CHECK(clEnqueueNDRangeKernel(queue, kernel, 1, NULL, global, local, 0, NULL, NULL));
    CHECK(clFinish(queue));
    double t = now_us() - t0;
    if (t < best) best = t;
  }
  return best;
}

static void bench_scheduling_controls(struct bench_env *env) {
  if (!platform_has_extension(env, "cl_arm_scheduling_controls")) {
    printf("%-10s %-44s %12s\n", env->platform_name, "scheduling controls (cl_arm_scheduling_...)", "n/a");
    return;
  }
  cl_program program = build(env, sched_source, NULL);
  int reps = env->quick ? 3 : 10;

  /* A compute-bound kernel on a queue limited to one compute unit, then unlimited. */
  cl_kernel hash = kernel_of(program, "hash");
  size_t n = env->quick ? (1u << 16) : (1u << 18);
  cl_int rounds = 500;
  cl_mem out = buffer(env, CL_MEM_READ_WRITE, n * sizeof(cl_uint), NULL);
  CHECK(clSetKernelArg(hash, 0, sizeof out, &out));
  CHECK(clSetKernelArg(hash, 1, sizeof rounds, &rounds));
  cl_command_queue limited = sched_queue(env, BENCH_QUEUE_COMPUTE_UNIT_LIMIT_ARM, 1);
  double one_cu = best_on_queue_us(limited, hash, &n, NULL, reps);
  double all_cus = best_on_queue_us(env->queue, hash, &n, NULL, reps);
  cl_uint *values = malloc(n * sizeof *values);
  CHECK(clEnqueueReadBuffer(env->queue, out, CL_TRUE, 0, n * sizeof *values, values, 0, NULL, NULL));
  for (size_t i = 0; i < n; i += 97) {
    cl_uint x = (cl_uint)i;
    for (int k = 0; k < rounds; k++) {
      x = x * 1664525u + 1013904223u;
      x ^= x >> 13;
    }
    if (values[i] != x) fail("hash");
  }
  cl_uint units = 0;
  CHECK(clGetDeviceInfo(env->device, CL_DEVICE_MAX_COMPUTE_UNITS, sizeof units, &units, NULL));
  report(env->platform_name, "compute-bound kernel, CU limit 1", one_cu / 1e3, "ms");
  report(env->platform_name, "compute-bound kernel, no CU limit", all_cus / 1e3, "ms");
  char what[64];
  snprintf(what, sizeof what, "  speed-up of %u compute units", units);
  report(env->platform_name, what, one_cu / all_cus, "x");

  /* Many one-item work-groups: one group per batch against the runtime's batches. */
  cl_kernel tiny = kernel_of(program, "tiny");
  size_t groups = env->quick ? (1u << 16) : (1u << 20), one = 1;
  cl_mem counts = buffer(env, CL_MEM_READ_WRITE, groups * sizeof(cl_int), NULL);
  cl_int zero = 0;
  CHECK(clEnqueueFillBuffer(env->queue, counts, &zero, sizeof zero, 0, groups * sizeof(cl_int), 0, NULL, NULL));
  CHECK(clSetKernelArg(tiny, 0, sizeof counts, &counts));
  double runtime_batches = best_on_queue_us(env->queue, tiny, &groups, &one, reps);
  cl_uint batch_size = 1;
  CHECK(clSetKernelExecInfo(tiny, BENCH_KERNEL_EXEC_INFO_WORKGROUP_BATCH_SIZE_ARM, sizeof batch_size, &batch_size));
  double single_batches = best_on_queue_us(env->queue, tiny, &groups, &one, reps);
  cl_int *count_values = malloc(groups * sizeof *count_values);
  CHECK(clEnqueueReadBuffer(env->queue, counts, CL_TRUE, 0, groups * sizeof(cl_int), count_values, 0, NULL, NULL));
  for (size_t i = 0; i < groups; i++)
    if (count_values[i] != 2 * (reps + 1)) fail("tiny work-groups");
  snprintf(what, sizeof what, "%zuk one-item groups, runtime batches", groups >> 10);
  report(env->platform_name, what, runtime_batches / 1e3, "ms");
  snprintf(what, sizeof what, "%zuk one-item groups, batch size 1", groups >> 10);
  report(env->platform_name, what, single_batches / 1e3, "ms");
  report(env->platform_name, "  gain of batching work-groups", single_batches / runtime_batches, "x");

  /* Tiny kernels with kernel batching (the default) and without: one at a time (latency)
   * and back to back (throughput). */
  cl_kernel bump = kernel_of(build(env, bump_source, NULL), "bump");
  cl_mem counter = buffer(env, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, sizeof zero, &zero);
  CHECK(clSetKernelArg(bump, 0, sizeof counter, &counter));
  cl_command_queue unbatched = sched_queue(env, BENCH_QUEUE_KERNEL_BATCHING_ARM, CL_FALSE);
  int kernels = env->quick ? 1000 : 10000, samples = env->quick ? 200 : 2000;
  double per_kernel[2], latency[2];
  double *sample_us = malloc((size_t)samples * sizeof *sample_us);
  cl_command_queue queues[2] = {env->queue, unbatched};
  for (int q = 0; q < 2; q++) {
    for (int i = 0; i < 100; i++) CHECK(clEnqueueNDRangeKernel(queues[q], bump, 1, NULL, &one, &one, 0, NULL, NULL));
    CHECK(clFinish(queues[q]));
    for (int i = 0; i < samples; i++) {
      double t0 = now_us();
      CHECK(clEnqueueNDRangeKernel(queues[q], bump, 1, NULL, &one, &one, 0, NULL, NULL));
      CHECK(clFinish(queues[q]));
      sample_us[i] = now_us() - t0;
    }
    latency[q] = median(sample_us, (size_t)samples);
    double t0 = now_us();
    for (int i = 0; i < kernels; i++)
      CHECK(clEnqueueNDRangeKernel(queues[q], bump, 1, NULL, &one, &one, 0, NULL, NULL));
    CHECK(clFinish(queues[q]));
    per_kernel[q] = (now_us() - t0) / kernels;
  }
  free(sample_us);
  cl_int bumped = 0;
  CHECK(clEnqueueReadBuffer(env->queue, counter, CL_TRUE, 0, sizeof bumped, &bumped, 0, NULL, NULL));
  if (bumped != 2 * (kernels + samples + 100)) fail("kernel batching");
  report(env->platform_name, "launch throughput, kernel batching on", per_kernel[0], "us/kernel");
  report(env->platform_name, "launch throughput, kernel batching off", per_kernel[1], "us/kernel");
  report(env->platform_name, "launch latency, kernel batching on", latency[0], "us");
  report(env->platform_name, "launch latency, kernel batching off", latency[1], "us");

  clReleaseCommandQueue(limited);
  clReleaseCommandQueue(unbatched);
  clReleaseMemObject(out);
  clReleaseMemObject(counts);
  clReleaseMemObject(counter);
  cl_program bump_program;
  CHECK(clGetKernelInfo(bump, CL_KERNEL_PROGRAM, sizeof bump_program, &bump_program, NULL));
  clReleaseKernel(bump);
  clReleaseProgram(bump_program);
  clReleaseKernel(hash);
  clReleaseKernel(tiny);
  clReleaseProgram(program);
  free(values);
  free(count_values);
}

/* ---- cl_intel_command_queue_families: a copy on the copy family beside a kernel ----
 * Tokens declared locally; values from cl.xml. */
#define BENCH_QUEUE_FAMILY_INTEL 0x418C
#define BENCH_QUEUE_INDEX_INTEL 0x418D

static cl_command_queue family_queue(struct bench_env *env, cl_uint family, cl_uint index) {
  cl_queue_properties properties[] = {BENCH_QUEUE_FAMILY_INTEL, family, BENCH_QUEUE_INDEX_INTEL, index, 0};
  cl_int err;
  cl_command_queue queue = clCreateCommandQueueWithProperties(env->context, env->device, properties, &err);
  CHECK(err);
  return queue;
}

static void bench_queue_families(struct bench_env *env) {
  if (!platform_has_extension(env, "cl_intel_command_queue_families")) {
    printf("%-10s %-44s %12s\n", env->platform_name, "queue families (cl_intel_command_queue_...)", "n/a");
    return;
  }
  cl_program program = build(env, sched_source, NULL);
  cl_kernel hash = kernel_of(program, "hash");
  /* Sized so that the kernel and the copy take about as long on the test machine. */
  size_t items = env->quick ? (1u << 16) : (1u << 18), bytes = (size_t)(env->quick ? 128u : 512u) << 20;
  cl_int rounds = 150;
  cl_mem out = buffer(env, CL_MEM_READ_WRITE, items * sizeof(cl_uint), NULL);
  cl_mem src = buffer(env, CL_MEM_READ_WRITE, bytes, NULL), dst = buffer(env, CL_MEM_READ_WRITE, bytes, NULL);
  cl_uchar pattern = 0x5a, zero = 0;
  CHECK(clEnqueueFillBuffer(env->queue, src, &pattern, 1, 0, bytes, 0, NULL, NULL));
  CHECK(clSetKernelArg(hash, 0, sizeof out, &out));
  CHECK(clSetKernelArg(hash, 1, sizeof rounds, &rounds));
  cl_command_queue compute = family_queue(env, 0, 0), copy = family_queue(env, 1, 0);
  int reps = env->quick ? 2 : 5;
  double kernel_best = 1e300, copy_best = 1e300, serial_best = 1e300, overlap_best = 1e300;
  for (int r = 0; r <= reps; r++) { /* round 0 warms up */
    CHECK(clEnqueueFillBuffer(env->queue, dst, &zero, 1, 0, bytes, 0, NULL, NULL));
    CHECK(clFinish(env->queue));
    double t0 = now_us();
    CHECK(clEnqueueNDRangeKernel(compute, hash, 1, NULL, &items, NULL, 0, NULL, NULL));
    CHECK(clFinish(compute));
    double t1 = now_us();
    CHECK(clEnqueueCopyBuffer(compute, src, dst, 0, 0, bytes, 0, NULL, NULL));
    CHECK(clFinish(compute));
    double t2 = now_us();
    CHECK(clEnqueueFillBuffer(env->queue, dst, &zero, 1, 0, bytes, 0, NULL, NULL));
    CHECK(clFinish(env->queue));
    double t3 = now_us();
    CHECK(clEnqueueCopyBuffer(copy, src, dst, 0, 0, bytes, 0, NULL, NULL));
    CHECK(clFlush(copy));
    CHECK(clEnqueueNDRangeKernel(compute, hash, 1, NULL, &items, NULL, 0, NULL, NULL));
    CHECK(clFinish(compute));
    CHECK(clFinish(copy));
    double t4 = now_us();
    if (r == 0) continue;
    if (t1 - t0 < kernel_best) kernel_best = t1 - t0;
    if (t2 - t1 < copy_best) copy_best = t2 - t1;
    if (t2 - t0 < serial_best) serial_best = t2 - t0;
    if (t4 - t3 < overlap_best) overlap_best = t4 - t3;
  }
  cl_uchar *check = malloc(bytes);
  CHECK(clEnqueueReadBuffer(env->queue, dst, CL_TRUE, 0, bytes, check, 0, NULL, NULL));
  for (size_t i = 0; i < bytes; i += 4093)
    if (check[i] != pattern) fail("copy-family copy");
  cl_uint first = 1;
  CHECK(clEnqueueReadBuffer(env->queue, out, CL_TRUE, 0, sizeof first, &first, 0, NULL, NULL));
  cl_uint x = 0;
  for (int k = 0; k < rounds; k++) {
    x = x * 1664525u + 1013904223u;
    x ^= x >> 13;
  }
  if (first != x) fail("hash beside the copy");
  char what[64];
  report(env->platform_name, "compute-bound kernel alone (compute family)", kernel_best / 1e3, "ms");
  snprintf(what, sizeof what, "%zu MiB buffer copy alone (compute family)", bytes >> 20);
  report(env->platform_name, what, copy_best / 1e3, "ms");
  report(env->platform_name, "kernel then copy, one queue", serial_best / 1e3, "ms");
  report(env->platform_name, "copy on the copy family beside the kernel", overlap_best / 1e3, "ms");
  report(env->platform_name, "  time saved by the copy family", 100.0 * (1.0 - overlap_best / serial_best), "%");
  clReleaseCommandQueue(compute);
  clReleaseCommandQueue(copy);
  clReleaseMemObject(out);
  clReleaseMemObject(src);
  clReleaseMemObject(dst);
  clReleaseKernel(hash);
  clReleaseProgram(program);
  free(check);
}

/* ---- vector add against host memcpy ---- */
static const char *vadd_source =
    "kernel void vadd(global const float *a, global const float *b, global float *c) {\n"
    "  size_t i = get_global_id(0);\n"
    "  c[i] = a[i] + b[i];\n"
    "}\n";

static void bench_vadd(struct bench_env *env) {
  size_t n = env->quick ? (1u << 20) : (16u << 20), bytes = n * sizeof(float);
  float *a = malloc(bytes), *b = malloc(bytes), *c = malloc(bytes);
  for (size_t i = 0; i < n; i++) {
    a[i] = (float)(i % 1000);
    b[i] = (float)(i % 7) * 0.5f;
  }
  cl_program program = build(env, vadd_source, NULL);
  cl_kernel kernel = kernel_of(program, "vadd");
  cl_mem ma = buffer(env, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, bytes, a);
  cl_mem mb = buffer(env, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, bytes, b);
  cl_mem mc = buffer(env, CL_MEM_WRITE_ONLY, bytes, NULL);
  CHECK(clSetKernelArg(kernel, 0, sizeof ma, &ma));
  CHECK(clSetKernelArg(kernel, 1, sizeof mb, &mb));
  CHECK(clSetKernelArg(kernel, 2, sizeof mc, &mc));
  int reps = env->quick ? 3 : 10;
  double best = best_launch_us(env, kernel, 1, &n, NULL, reps);
  CHECK(clEnqueueReadBuffer(env->queue, mc, CL_TRUE, 0, bytes, c, 0, NULL, NULL));
  for (size_t i = 0; i < n; i++)
    if (c[i] != a[i] + b[i]) fail("vector add");
  /* The kernel reads two arrays and writes one; memcpy of 1.5x the bytes touches as many. */
  double kernel_gbs = 3.0 * (double)bytes / best / 1e3;
  size_t copy_bytes = bytes + bytes / 2;
  char *src = malloc(copy_bytes), *dst = malloc(copy_bytes);
  memset(src, 1, copy_bytes);
  memset(dst, 0, copy_bytes);
  double best_copy = 1e300;
  for (int r = 0; r < reps; r++) {
    double t0 = now_us();
    memcpy(dst, src, copy_bytes);
    double t = now_us() - t0;
    if (t < best_copy) best_copy = t;
  }
  if (dst[copy_bytes - 1] != 1) fail("memcpy");
  double copy_gbs = 2.0 * (double)copy_bytes / best_copy / 1e3;
  report(env->platform_name, "vector add bandwidth", kernel_gbs, "GB/s");
  report(env->platform_name, "host memcpy bandwidth (same bytes)", copy_gbs, "GB/s");
  report(env->platform_name, "vector add / memcpy", 100.0 * kernel_gbs / copy_gbs, "%");
  free(src);
  free(dst);
  clReleaseMemObject(ma);
  clReleaseMemObject(mb);
  clReleaseMemObject(mc);
  clReleaseKernel(kernel);
  clReleaseProgram(program);
  free(a);
  free(b);
  free(c);
}

/* ---- a few heavy work-groups: 256 groups of 64 or of 1 work-item, each running a long
 * 64-bit hash loop (the shape of GPU-tuned password-recovery and crypto kernels: a global
 * size of compute units x a small factor, heavy groups). Same total work in both shapes. */
static const char *heavy_source =
    KILN_HASH64_CL_SOURCE
    "kernel void heavy(global ulong *out, uint rounds) {\n"
    "  out[get_global_id(0)] = kiln_hash64(get_global_id(0) + 1, rounds);\n"
    "}\n";

static void bench_heavy_groups(struct bench_env *env) {
  cl_program program = build(env, heavy_source, NULL);
  cl_kernel kernel = kernel_of(program, "heavy");
  const size_t groups = 256, locals[2] = {64, 1};
  const cl_uint item_rounds = env->quick ? 1024 : 4096; /* per work-item of a 64-item group */
  cl_mem out = buffer(env, CL_MEM_WRITE_ONLY, groups * 64 * sizeof(cl_ulong), NULL);
  cl_ulong *values = malloc(groups * 64 * sizeof *values);
  CHECK(clSetKernelArg(kernel, 0, sizeof out, &out));
  for (int shape = 0; shape < 2; shape++) {
    size_t local = locals[shape], items = groups * local;
    cl_uint rounds = item_rounds * (cl_uint)(64 / local);
    CHECK(clSetKernelArg(kernel, 1, sizeof rounds, &rounds));
    double best = best_launch_us(env, kernel, 1, &items, &local, env->quick ? 2 : 5);
    CHECK(clEnqueueReadBuffer(env->queue, out, CL_TRUE, 0, items * sizeof *values, values, 0, NULL, NULL));
    for (size_t i = 0; i < items; i += items / 16)
      if (values[i] != kiln_hash64(i + 1, rounds)) fail("heavy work-groups");
    char what[64];
    snprintf(what, sizeof what, "%zu heavy groups x %zu work-items", groups, local);
    report(env->platform_name, what, best / 1e3, "ms");
  }
  free(values);
  clReleaseMemObject(out);
  clReleaseKernel(kernel);
  clReleaseProgram(program);
}

/* ---- SGEMM: naive and 16x16 local-memory tiles ---- */
static const char *sgemm_source =
    "kernel void sgemm_naive(int n, global const float *a, global const float *b, global float *c) {\n"
    "  int col = get_global_id(0), row = get_global_id(1);\n"
    "  float sum = 0.0f;\n"
    "  for (int k = 0; k < n; k++) sum += a[row * n + k] * b[k * n + col];\n"
    "  c[row * n + col] = sum;\n"
    "}\n"
    "#define TILE 16\n"
    "kernel __attribute__((reqd_work_group_size(TILE, TILE, 1)))\n"
    "void sgemm_tiled(int n, global const float *a, global const float *b, global float *c) {\n"
    "  local float ta[TILE][TILE], tb[TILE][TILE];\n"
    "  int lx = get_local_id(0), ly = get_local_id(1);\n"
    "  int col = get_global_id(0), row = get_global_id(1);\n"
    "  float sum = 0.0f;\n"
    "  for (int t = 0; t < n; t += TILE) {\n"
    "    ta[ly][lx] = a[row * n + t + lx];\n"
    "    tb[ly][lx] = b[(t + ly) * n + col];\n"
    "    barrier(CLK_LOCAL_MEM_FENCE);\n"
    "    for (int k = 0; k < TILE; k++) sum += ta[ly][k] * tb[k][lx];\n"
    "    barrier(CLK_LOCAL_MEM_FENCE);\n"
    "  }\n"
    "  c[row * n + col] = sum;\n"
    "}\n";

static void bench_sgemm(struct bench_env *env) {
  int n = env->quick ? 256 : 1024;
  size_t elems = (size_t)n * n, bytes = elems * sizeof(float);
  float *a = malloc(bytes), *b = malloc(bytes), *c = malloc(bytes);
  for (size_t i = 0; i < elems; i++) {
    a[i] = (float)((i * 7) % 13) / 13.0f;
    b[i] = (float)((i * 5) % 11) / 11.0f;
  }
  /* Reference rows checked: a sample keeps the host side cheap at 1024^2. */
  cl_program program = build(env, sgemm_source, NULL);
  cl_mem ma = buffer(env, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, bytes, a);
  cl_mem mb = buffer(env, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, bytes, b);
  cl_mem mc = buffer(env, CL_MEM_WRITE_ONLY, bytes, NULL);
  const char *names[] = {"sgemm_naive", "sgemm_tiled"};
  for (int v = 0; v < 2; v++) {
    cl_kernel kernel = kernel_of(program, names[v]);
    CHECK(clSetKernelArg(kernel, 0, sizeof n, &n));
    CHECK(clSetKernelArg(kernel, 1, sizeof ma, &ma));
    CHECK(clSetKernelArg(kernel, 2, sizeof mb, &mb));
    CHECK(clSetKernelArg(kernel, 3, sizeof mc, &mc));
    size_t global[2] = {(size_t)n, (size_t)n}, local[2] = {16, 16};
    double best = best_launch_us(env, kernel, 2, global, local, env->quick ? 1 : 3);
    CHECK(clEnqueueReadBuffer(env->queue, mc, CL_TRUE, 0, bytes, c, 0, NULL, NULL));
    for (int row = 0; row < n; row += 37)
      for (int col = 0; col < n; col += 17) {
        double sum = 0;
        for (int k = 0; k < n; k++) sum += (double)a[row * n + k] * b[k * n + col];
        if (fabs(sum - c[row * n + col]) > 1e-3 * (1 + fabs(sum))) fail(names[v]);
      }
    char what[64];
    snprintf(what, sizeof what, "SGEMM %dx%d %s", n, n, v ? "tiled 16x16 (barriers)" : "naive");
    report(env->platform_name, what, 2.0 * n * (double)n * n / best / 1e3, "GFLOP/s");
    clReleaseKernel(kernel);
  }
  clReleaseMemObject(ma);
  clReleaseMemObject(mb);
  clReleaseMemObject(mc);
  clReleaseProgram(program);
  free(a);
  free(b);
  free(c);
}

/* ---- work-group reduction with barriers ---- */
static const char *reduce_source =
    "kernel void reduce(global const float *in, global float *partial, local float *scratch) {\n"
    "  size_t lid = get_local_id(0), size = get_local_size(0);\n"
    "  scratch[lid] = in[get_global_id(0)];\n"
    "  barrier(CLK_LOCAL_MEM_FENCE);\n"
    "  for (size_t s = size / 2; s > 0; s /= 2) {\n"
    "    if (lid < s) scratch[lid] += scratch[lid + s];\n"
    "    barrier(CLK_LOCAL_MEM_FENCE);\n"
    "  }\n"
    "  if (lid == 0) partial[get_group_id(0)] = scratch[0];\n"
    "}\n";

static void bench_reduce(struct bench_env *env) {
  size_t n = env->quick ? (1u << 20) : (16u << 20), local = 256, groups = n / local;
  float *in = malloc(n * sizeof *in), *partial = malloc(groups * sizeof *partial);
  for (size_t i = 0; i < n; i++) in[i] = (float)(i % 17);
  cl_program program = build(env, reduce_source, NULL);
  cl_kernel kernel = kernel_of(program, "reduce");
  cl_mem min = buffer(env, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, n * sizeof *in, in);
  cl_mem mpartial = buffer(env, CL_MEM_WRITE_ONLY, groups * sizeof *partial, NULL);
  CHECK(clSetKernelArg(kernel, 0, sizeof min, &min));
  CHECK(clSetKernelArg(kernel, 1, sizeof mpartial, &mpartial));
  CHECK(clSetKernelArg(kernel, 2, local * sizeof(float), NULL));
  double best = best_launch_us(env, kernel, 1, &n, &local, env->quick ? 3 : 10);
  CHECK(clEnqueueReadBuffer(env->queue, mpartial, CL_TRUE, 0, groups * sizeof *partial, partial, 0, NULL, NULL));
  for (size_t g = 0; g < groups; g++) {
    double sum = 0;
    for (size_t i = 0; i < local; i++) sum += in[g * local + i];
    if (fabs(sum - partial[g]) > 1e-3 * sum) fail("reduction");
  }
  report(env->platform_name, "work-group reduction (barriers)", (double)n * sizeof(float) / best / 1e3, "GB/s");
  clReleaseMemObject(min);
  clReleaseMemObject(mpartial);
  clReleaseKernel(kernel);
  clReleaseProgram(program);
  free(in);
  free(partial);
}

/* ---- sin(x) * exp(y) ---- */
static const char *sinexp_source =
    "kernel void sinexp(global const float *x, global const float *y, global float *out) {\n"
    "  size_t i = get_global_id(0);\n"
    "  out[i] = sin(x[i]) * exp(y[i]);\n"
    "}\n";

static void bench_sinexp(struct bench_env *env) {
  size_t n = env->quick ? (1u << 20) : (8u << 20), bytes = n * sizeof(float);
  float *x = malloc(bytes), *y = malloc(bytes), *out = malloc(bytes);
  for (size_t i = 0; i < n; i++) {
    x[i] = (float)((double)(i % 10007) * 0.01 - 50.0);
    y[i] = (float)((double)(i % 101) * 0.05 - 2.5);
  }
  cl_program program = build(env, sinexp_source, NULL);
  cl_kernel kernel = kernel_of(program, "sinexp");
  cl_mem mx = buffer(env, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, bytes, x);
  cl_mem my = buffer(env, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, bytes, y);
  cl_mem mo = buffer(env, CL_MEM_WRITE_ONLY, bytes, NULL);
  CHECK(clSetKernelArg(kernel, 0, sizeof mx, &mx));
  CHECK(clSetKernelArg(kernel, 1, sizeof my, &my));
  CHECK(clSetKernelArg(kernel, 2, sizeof mo, &mo));
  int reps = env->quick ? 3 : 10;
  double best = best_launch_us(env, kernel, 1, &n, NULL, reps);
  CHECK(clEnqueueReadBuffer(env->queue, mo, CL_TRUE, 0, bytes, out, 0, NULL, NULL));
  for (size_t i = 0; i < n; i++) {
    double ref = sin((double)x[i]) * exp((double)y[i]);
    /* sin and exp are each within 4 ULP, the product adds 0.5 ULP: a loose relative bound. */
    if (fabs(ref - out[i]) > 1e-5 * fabs(ref) + 1e-6) fail("sin*exp");
  }
  report(env->platform_name, "sin(x)*exp(y)", (double)n / best, "Melem/s");
  clReleaseMemObject(mx);
  clReleaseMemObject(my);
  clReleaseMemObject(mo);
  clReleaseKernel(kernel);
  clReleaseProgram(program);
  free(x);
  free(y);
  free(out);
}

/* ---- 2D 5-point stencil iterated inside the kernel ----
 * Each 16x16 work-group loads its tile and a one-cell halo (0 outside the grid) into local
 * memory once, then runs `iters` Jacobi steps on the tile alone: the halo stays frozen, so
 * the result is per-tile, not a global Jacobi, and the host reference does the same. */
static const char *stencil_source =
    "#define T 16\n"
    "kernel __attribute__((reqd_work_group_size(T, T, 1)))\n"
    "void stencil(global const float *in, global float *out, int n, int iters) {\n"
    "  local float t[T + 2][T + 2];\n"
    "  int lx = get_local_id(0), ly = get_local_id(1), cx = lx + 1, cy = ly + 1;\n"
    "  int x = get_global_id(0), y = get_global_id(1);\n"
    "  t[cy][cx] = in[y * n + x];\n"
    "  if (lx == 0) t[cy][0] = x > 0 ? in[y * n + x - 1] : 0.0f;\n"
    "  if (lx == T - 1) t[cy][T + 1] = x + 1 < n ? in[y * n + x + 1] : 0.0f;\n"
    "  if (ly == 0) t[0][cx] = y > 0 ? in[(y - 1) * n + x] : 0.0f;\n"
    "  if (ly == T - 1) t[T + 1][cx] = y + 1 < n ? in[(y + 1) * n + x] : 0.0f;\n"
    "  barrier(CLK_LOCAL_MEM_FENCE);\n"
    "  for (int it = 0; it < iters; it++) {\n"
    "    float v = 0.2f * (t[cy][cx] + t[cy - 1][cx] + t[cy + 1][cx] + t[cy][cx - 1] + t[cy][cx + 1]);\n"
    "    barrier(CLK_LOCAL_MEM_FENCE);\n"
    "    t[cy][cx] = v;\n"
    "    barrier(CLK_LOCAL_MEM_FENCE);\n"
    "  }\n"
    "  out[y * n + x] = t[cy][cx];\n"
    "}\n";

static void bench_stencil(struct bench_env *env) {
  enum { T = 16 };
  int n = env->quick ? 256 : 1024, iters = 16;
  size_t cells = (size_t)n * n, bytes = cells * sizeof(float);
  float *in = malloc(bytes), *out = malloc(bytes);
  for (size_t i = 0; i < cells; i++) in[i] = (float)((i * 7919) % 1000) / 1000.0f;
  cl_program program = build(env, stencil_source, NULL);
  cl_kernel kernel = kernel_of(program, "stencil");
  cl_mem min = buffer(env, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, bytes, in);
  cl_mem mout = buffer(env, CL_MEM_WRITE_ONLY, bytes, NULL);
  CHECK(clSetKernelArg(kernel, 0, sizeof min, &min));
  CHECK(clSetKernelArg(kernel, 1, sizeof mout, &mout));
  CHECK(clSetKernelArg(kernel, 2, sizeof n, &n));
  CHECK(clSetKernelArg(kernel, 3, sizeof iters, &iters));
  size_t global[2] = {(size_t)n, (size_t)n}, local[2] = {T, T};
  double best = best_launch_us(env, kernel, 2, global, local, env->quick ? 3 : 5);
  CHECK(clEnqueueReadBuffer(env->queue, mout, CL_TRUE, 0, bytes, out, 0, NULL, NULL));
  /* Every cell, tile by tile, in float with the kernel's order of additions. */
  for (int ty = 0; ty < n; ty += T)
    for (int tx = 0; tx < n; tx += T) {
      float t[2][T + 2][T + 2] = {{{0}}}; /* both get the frozen halo (the corners are never read) */
      for (int y = -1; y <= T; y++)
        for (int x = -1; x <= T; x++) {
          int gy = ty + y, gx = tx + x;
          if (gy >= 0 && gy < n && gx >= 0 && gx < n) t[0][y + 1][x + 1] = t[1][y + 1][x + 1] = in[gy * n + gx];
        }
      for (int it = 0; it < iters; it++) {
        float(*src)[T + 2] = t[it % 2], (*dst)[T + 2] = t[(it + 1) % 2];
        for (int y = 1; y <= T; y++)
          for (int x = 1; x <= T; x++)
            dst[y][x] = 0.2f * (src[y][x] + src[y - 1][x] + src[y + 1][x] + src[y][x - 1] + src[y][x + 1]);
      }
      for (int y = 0; y < T; y++)
        for (int x = 0; x < T; x++) {
          float want = t[iters % 2][y + 1][x + 1], got = out[(ty + y) * n + tx + x];
          if (!(fabsf(got - want) <= 1e-5f * (1.0f + fabsf(want)))) fail("stencil");
        }
    }
  char what[64];
  snprintf(what, sizeof what, "2D 5-point stencil, %d iterations in-kernel", iters);
  report(env->platform_name, what, (double)cells * iters / best / 1e3, "Gcell-updates/s");
  clReleaseMemObject(min);
  clReleaseMemObject(mout);
  clReleaseKernel(kernel);
  clReleaseProgram(program);
  free(in);
  free(out);
}

/* ---- N-body accelerations: every body against every body, float4, rsqrt ---- */
static const char *nbody_source =
    "kernel void nbody(global const float4 *pos, global float4 *acc_out, int n, float softening) {\n"
    "  float4 p = pos[get_global_id(0)], acc = (float4)(0.0f);\n"
    "  for (int j = 0; j < n; j++) {\n"
    "    float4 q = pos[j];\n"
    "    float4 d = (float4)(q.xyz - p.xyz, 0.0f);\n"
    "    float inv = rsqrt(dot(d, d) + softening);\n"
    "    acc += (q.w * inv * inv * inv) * d;\n"
    "  }\n"
    "  acc_out[get_global_id(0)] = acc;\n"
    "}\n";

static void bench_nbody(struct bench_env *env) {
  cl_int n = env->quick ? 2048 : 16384;
  cl_float softening = 0.01f; /* epsilon squared, added to r^2 */
  size_t items = (size_t)n, local = 64, bytes = items * sizeof(cl_float4);
  cl_float4 *pos = malloc(bytes), *acc = malloc(bytes);
  uint32_t seed = 12345;
  for (size_t i = 0; i < items; i++)
    for (int c = 0; c < 4; c++) {
      seed = seed * 1664525u + 1013904223u;
      float u = (float)(seed >> 8) / 16777216.0f;
      pos[i].s[c] = c < 3 ? 2.0f * u - 1.0f : 0.5f + u; /* positions in [-1, 1), masses in [0.5, 1.5) */
    }
  cl_program program = build(env, nbody_source, NULL);
  cl_kernel kernel = kernel_of(program, "nbody");
  cl_mem mpos = buffer(env, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, bytes, pos);
  cl_mem macc = buffer(env, CL_MEM_WRITE_ONLY, bytes, NULL);
  CHECK(clSetKernelArg(kernel, 0, sizeof mpos, &mpos));
  CHECK(clSetKernelArg(kernel, 1, sizeof macc, &macc));
  CHECK(clSetKernelArg(kernel, 2, sizeof n, &n));
  CHECK(clSetKernelArg(kernel, 3, sizeof softening, &softening));
  double best = best_launch_us(env, kernel, 1, &items, &local, 3);
  CHECK(clEnqueueReadBuffer(env->queue, macc, CL_TRUE, 0, bytes, acc, 0, NULL, NULL));
  for (size_t i = 0; i < items; i += 97) {
    double sum[3] = {0, 0, 0};
    for (size_t j = 0; j < items; j++) {
      double d[3], r2 = softening;
      for (int c = 0; c < 3; c++) d[c] = (double)pos[j].s[c] - pos[i].s[c], r2 += d[c] * d[c];
      double s = pos[j].s[3] / (r2 * sqrt(r2));
      for (int c = 0; c < 3; c++) sum[c] += s * d[c];
    }
    double err2 = 0, ref2 = 0;
    for (int c = 0; c < 3; c++) err2 += (sum[c] - acc[i].s[c]) * (sum[c] - acc[i].s[c]), ref2 += sum[c] * sum[c];
    if (!(sqrt(err2) <= 1e-3 * sqrt(ref2)) || acc[i].s[3] != 0.0f) fail("nbody");
  }
  /* 20 FLOP per interaction, the usual convention for this loop (GPU Gems 3, ch. 31). */
  report(env->platform_name, "N-body forces, float4 + rsqrt", 20.0 * n * (double)n / best / 1e3, "GFLOP/s");
  clReleaseMemObject(mpos);
  clReleaseMemObject(macc);
  clReleaseKernel(kernel);
  clReleaseProgram(program);
  free(pos);
  free(acc);
}

/* ---- first launch with a new local size ---- */
static const char *scale_source =
    "kernel void scale(global float *v, float f) { v[get_global_id(0)] *= f; }\n";

static void bench_local_size(struct bench_env *env) {
  size_t n = 1 << 16;
  float *v = malloc(n * sizeof *v);
  for (size_t i = 0; i < n; i++) v[i] = 1.0f;
  cl_program program = build(env, scale_source, NULL);
  cl_kernel kernel = kernel_of(program, "scale");
  cl_mem mv = buffer(env, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, n * sizeof *v, v);
  float f = 2.0f;
  CHECK(clSetKernelArg(kernel, 0, sizeof mv, &mv));
  CHECK(clSetKernelArg(kernel, 1, sizeof f, &f));
  const size_t locals[] = {8, 16, 32, 64};
  double first[4], again[4];
  for (int i = 0; i < 4; i++) {
    double t0 = now_us();
    CHECK(clEnqueueNDRangeKernel(env->queue, kernel, 1, NULL, &n, &locals[i], 0, NULL, NULL));
    CHECK(clFinish(env->queue));
    first[i] = now_us() - t0;
    t0 = now_us();
    CHECK(clEnqueueNDRangeKernel(env->queue, kernel, 1, NULL, &n, &locals[i], 0, NULL, NULL));
    CHECK(clFinish(env->queue));
    again[i] = now_us() - t0;
  }
  CHECK(clEnqueueReadBuffer(env->queue, mv, CL_TRUE, 0, n * sizeof *v, v, 0, NULL, NULL));
  for (size_t i = 0; i < n; i++)
    if (v[i] != 256.0f) fail("scale");
  double worst_extra = 0;
  for (int i = 1; i < 4; i++) /* the very first launch of the kernel may set things up */
    if (first[i] - again[i] > worst_extra) worst_extra = first[i] - again[i];
  report(env->platform_name, "first launch with a new local size, extra", worst_extra, "us");
  clReleaseMemObject(mv);
  clReleaseKernel(kernel);
  clReleaseProgram(program);
  free(v);
}

/* ---- build time: first clBuildProgram in a fresh process, then a cached rebuild ---- */
/* The salt sits in code (a kernel never launched), not in a comment: PoCL's cache keys on
 * the compiled program, so a comment would let it hit its cache. */
static const char *build_source_template =
    "kernel void salt(global ulong *p) { p[0] = %lluUL; }\n"
    "float poly(float x) { return ((x * 0.5f + 1.0f) * x - 2.0f) * x + 3.0f; }\n"
    "kernel void k1(global float *a, global const float *b) {\n"
    "  size_t i = get_global_id(0);\n"
    "  a[i] = poly(b[i]) + sqrt(fabs(b[i])) + clamp(b[i], 0.0f, 1.0f);\n"
    "}\n"
    "kernel void k2(global int *a, int n) {\n"
    "  size_t i = get_global_id(0);\n"
    "  int acc = 0;\n"
    "  for (int j = 0; j < n; j++) acc += (a[i] ^ j) * (int)i;\n"
    "  a[i] = acc + popcount(a[i]) + max(acc, n);\n"
    "}\n";

/* What a first build costs, phase by phase, in milliseconds. Drivers split the work
 * differently (Kiln generates code when the first kernel is created, PoCL at the first
 * launch), so the sum is what an application waits for in all. */
struct build_times {
  double build, kernels, launch;
};

/* The same program as SPIR-V (NULL when it cannot be made: the tools are missing), made by
 * clang-15 and llvm-spirv-15 as an offline compiler would; *size gets its bytes. */
static void *spirv_of(const char *source, size_t *size) {
  char dir[] = "/tmp/kiln-bench-spirv-XXXXXX";
  if (!mkdtemp(dir)) return NULL;
  char command[1024], path[256];
  snprintf(path, sizeof path, "%s/program.cl", dir);
  FILE *f = fopen(path, "w");
  if (!f) return NULL;
  fputs(source, f);
  fclose(f);
  snprintf(command, sizeof command,
           "clang-15 -cl-std=CL1.2 -target spir64-unknown-unknown -O0 -emit-llvm -c -Xclang -finclude-default-header "
           "%s/program.cl -o %s/program.bc && llvm-spirv-15 --spirv-max-version=1.0 %s/program.bc -o %s/program.spv",
           dir, dir, dir, dir);
  void *bytes = NULL;
  if (system(command) == 0) {
    snprintf(path, sizeof path, "%s/program.spv", dir);
    if ((f = fopen(path, "rb"))) {
      fseek(f, 0, SEEK_END);
      long n = ftell(f);
      rewind(f);
      bytes = malloc((size_t)n);
      if (bytes && fread(bytes, 1, (size_t)n, f) == (size_t)n) *size = (size_t)n;
      else free(bytes), bytes = NULL;
      fclose(f);
    }
  }
  snprintf(command, sizeof command, "rm -rf %s", dir);
  if (system(command) != 0) fprintf(stderr, "kiln_bench: could not remove %s\n", dir);
  return bytes;
}

/* Runs in a child process so that "first build in a process" is true: builds (from source,
 * or from `il` when given), creates both kernels, launches each once and checks the
 * results. */
static struct build_times child_build_times(const char *platform, unsigned long long salt, const void *il,
                                            size_t il_size) {
  int fds[2];
  if (pipe(fds) != 0) exit(2);
  pid_t pid = fork();
  if (pid == 0) {
    close(fds[0]);
    struct bench_env env = {0};
    env.platform = find_platform(platform, env.platform_name, sizeof env.platform_name);
    CHECK(clGetDeviceIDs(env.platform, CL_DEVICE_TYPE_ALL, 1, &env.device, NULL));
    cl_int err;
    env.context = clCreateContext(NULL, 1, &env.device, NULL, NULL, &err);
    CHECK(err);
    env.queue = clCreateCommandQueueWithProperties(env.context, env.device, NULL, &err);
    CHECK(err);
    enum { N = 1024 };
    float a[N], b[N];
    int c[N];
    for (int i = 0; i < N; i++) b[i] = (float)i * 0.01f - 3.0f, c[i] = i;
    cl_mem ma = buffer(&env, CL_MEM_READ_WRITE, sizeof a, NULL);
    cl_mem mb = buffer(&env, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, sizeof b, b);
    cl_mem mc = buffer(&env, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, sizeof c, c);
    char source[2048];
    snprintf(source, sizeof source, build_source_template, salt);
    struct build_times t;
    double t0 = now_us();
    cl_program program;
    if (il) {
      program = clCreateProgramWithIL(env.context, il, il_size, &err);
      CHECK(err);
      CHECK(clBuildProgram(program, 1, &env.device, NULL, NULL, NULL));
    } else {
      program = build(&env, source, NULL);
    }
    double t1 = now_us();
    cl_kernel k1 = kernel_of(program, "k1"), k2 = kernel_of(program, "k2");
    double t2 = now_us();
    int n = 3;
    size_t global = N;
    CHECK(clSetKernelArg(k1, 0, sizeof ma, &ma));
    CHECK(clSetKernelArg(k1, 1, sizeof mb, &mb));
    CHECK(clSetKernelArg(k2, 0, sizeof mc, &mc));
    CHECK(clSetKernelArg(k2, 1, sizeof n, &n));
    CHECK(clEnqueueNDRangeKernel(env.queue, k1, 1, NULL, &global, NULL, 0, NULL, NULL));
    CHECK(clEnqueueNDRangeKernel(env.queue, k2, 1, NULL, &global, NULL, 0, NULL, NULL));
    CHECK(clFinish(env.queue));
    double t3 = now_us();
    t = (struct build_times){(t1 - t0) / 1e3, (t2 - t1) / 1e3, (t3 - t2) / 1e3};
    CHECK(clEnqueueReadBuffer(env.queue, ma, CL_TRUE, 0, sizeof a, a, 0, NULL, NULL));
    CHECK(clEnqueueReadBuffer(env.queue, mc, CL_TRUE, 0, sizeof c, c, 0, NULL, NULL));
    for (int i = 0; i < N; i++) {
      float x = b[i], poly = ((x * 0.5f + 1.0f) * x - 2.0f) * x + 3.0f;
      float want = poly + sqrtf(fabsf(x)) + (x < 0.0f ? 0.0f : x > 1.0f ? 1.0f : x);
      int acc = 0;
      for (int j = 0; j < n; j++) acc += (i ^ j) * i;
      int want_c = acc + __builtin_popcount((unsigned)i) + (acc > n ? acc : n);
      if (fabsf(a[i] - want) > 1e-4f * (1.0f + fabsf(want)) || c[i] != want_c) {
        fprintf(stderr, "kiln_bench: wrong result of the build kernels at %d\n", i);
        _exit(3);
      }
    }
    if (write(fds[1], &t, sizeof t) != sizeof t) _exit(2);
    clReleaseKernel(k1);
    clReleaseKernel(k2);
    clReleaseProgram(program);
    clReleaseMemObject(ma);
    clReleaseMemObject(mb);
    clReleaseMemObject(mc);
    clReleaseCommandQueue(env.queue);
    clReleaseContext(env.context);
    _exit(0);
  }
  close(fds[1]);
  struct build_times t = {-1, -1, -1};
  if (read(fds[0], &t, sizeof t) != sizeof t) t.build = -1;
  close(fds[0]);
  int status;
  waitpid(pid, &status, 0);
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0 || t.build < 0) {
    fprintf(stderr, "kiln_bench: build child failed\n");
    exit(2);
  }
  return t;
}

/* Whether the platform's first device takes SPIR-V (queried in a child: the parent must
 * not touch OpenCL before the build children fork). */
static bool platform_takes_spirv(const char *platform_arg) {
  pid_t pid = fork();
  if (pid == 0) {
    char name[256];
    cl_platform_id platform = find_platform(platform_arg, name, sizeof name);
    cl_device_id device;
    char versions[256] = "";
    if (!platform || clGetDeviceIDs(platform, CL_DEVICE_TYPE_ALL, 1, &device, NULL) != CL_SUCCESS ||
        clGetDeviceInfo(device, CL_DEVICE_IL_VERSION, sizeof versions, versions, NULL) != CL_SUCCESS)
      _exit(1);
    _exit(strstr(versions, "SPIR-V_1.0") ? 0 : 1);
  }
  int status;
  waitpid(pid, &status, 0);
  return WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

static void bench_build(struct bench_env *env, const char *platform_arg) {
  unsigned long long salt = (unsigned long long)now_us() ^ ((unsigned long long)getpid() << 32);
  struct build_times cold = child_build_times(platform_arg, salt, NULL, 0); /* new source: nothing cached */
  struct build_times warm = child_build_times(platform_arg, salt, NULL, 0); /* same source, new process: disk cache */
  report(env->platform_name, "first clBuildProgram in a process (new source)", cold.build, "ms");
  report(env->platform_name, "  then clCreateKernel x2", cold.kernels, "ms");
  report(env->platform_name, "  then first launch of both + finish", cold.launch, "ms");
  report(env->platform_name, "  build to first results in all", cold.build + cold.kernels + cold.launch, "ms");
  report(env->platform_name, "rebuild of the same source (new process)", warm.build, "ms");
  report(env->platform_name, "  build to first results in all", warm.build + warm.kernels + warm.launch, "ms");

  /* The same program as SPIR-V, with another salt: a module nothing has cached. */
  char source[2048];
  snprintf(source, sizeof source, build_source_template, salt + 1);
  size_t il_size = 0;
  void *il = platform_takes_spirv(platform_arg) ? spirv_of(source, &il_size) : NULL;
  if (!il) {
    printf("%-10s %-44s %12s\n", env->platform_name, "SPIR-V build: no IL, or no clang-15/llvm-spirv-15", "-");
    return;
  }
  cold = child_build_times(platform_arg, salt + 1, il, il_size);
  warm = child_build_times(platform_arg, salt + 1, il, il_size);
  report(env->platform_name, "first clBuildProgram of SPIR-V (new module)", cold.build, "ms");
  report(env->platform_name, "  build to first results in all", cold.build + cold.kernels + cold.launch, "ms");
  report(env->platform_name, "rebuild of the same SPIR-V (new process)", warm.build, "ms");
  report(env->platform_name, "  build to first results in all", warm.build + warm.kernels + warm.launch, "ms");
  free(il);
}

static bool selected(const char *only, const char *name) {
  if (!only) return true;
  size_t len = strlen(name);
  for (const char *p = only; (p = strstr(p, name)) != NULL; p += len)
    if ((p == only || p[-1] == ',') && (p[len] == ',' || p[len] == '\0')) return true;
  return false;
}

int main(int argc, char **argv) {
  const char *platform_arg = "Kiln", *only = NULL;
  struct bench_env env = {0};
  for (int i = 1; i < argc; i++) {
    if (strcmp(argv[i], "--platform") == 0 && i + 1 < argc) platform_arg = argv[++i];
    else if (strcmp(argv[i], "--only") == 0 && i + 1 < argc) only = argv[++i];
    else if (strcmp(argv[i], "--quick") == 0) env.quick = true;
    else {
      fprintf(stderr, "usage: kiln_bench [--platform NAME] [--quick] [--only LIST]\n");
      return 2;
    }
  }
  /* Build timing forks children before this process touches OpenCL. */
  if (selected(only, "build")) {
    display_name(platform_arg, env.platform_name, sizeof env.platform_name);
    bench_build(&env, platform_arg);
  }
  env.platform = find_platform(platform_arg, env.platform_name, sizeof env.platform_name);
  if (!env.platform) {
    fprintf(stderr, "kiln_bench: no platform whose name contains \"%s\"\n", platform_arg);
    return 2;
  }
  cl_int err;
  CHECK(clGetDeviceIDs(env.platform, CL_DEVICE_TYPE_ALL, 1, &env.device, NULL));
  env.context = clCreateContext(NULL, 1, &env.device, NULL, NULL, &err);
  CHECK(err);
  env.queue = clCreateCommandQueueWithProperties(env.context, env.device, NULL, &err);
  CHECK(err);
  if (selected(only, "latency")) bench_launch(&env, true);
  if (selected(only, "throughput")) bench_launch(&env, false);
  if (selected(only, "vadd")) bench_vadd(&env);
  if (selected(only, "sgemm")) bench_sgemm(&env);
  if (selected(only, "reduce")) bench_reduce(&env);
  if (selected(only, "collectives")) bench_collectives(&env);
  if (selected(only, "waits")) bench_waits(&env);
  if (selected(only, "sinexp")) bench_sinexp(&env);
  if (selected(only, "stencil")) bench_stencil(&env);
  if (selected(only, "nbody")) bench_nbody(&env);
  if (selected(only, "localsize")) bench_local_size(&env);
  if (selected(only, "cmdbuf")) bench_command_buffer_replay(&env);
  if (selected(only, "mutable")) bench_mutable_dispatch(&env);
  if (selected(only, "recording")) bench_recording_replay(&env);
  if (selected(only, "sched")) bench_scheduling_controls(&env);
  if (selected(only, "families")) bench_queue_families(&env);
  if (selected(only, "heavy")) bench_heavy_groups(&env);
  if (selected(only, "images")) bench_images(&env);
  if (selected(only, "svm")) bench_svm(&env);
  clReleaseCommandQueue(env.queue);
  clReleaseContext(env.context);
  return 0;
}
