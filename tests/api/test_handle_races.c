/* Use while release: one thread creates and releases objects of one type in a loop,
 * publishing the newest handle, while three others keep calling entry points on whatever
 * handle is newest (queries, retain + release, and calls that use the object: enqueues,
 * kernel creation, buffer creation...). Every call must either work on a live object or
 * return the type's CL_INVALID_* code; the process must not crash or corrupt its heap
 * (before the per-call holds, "free(): invalid next size" came within seconds for
 * buffers). Buffers, kernels, queues (SVM copies among the uses), events, programs,
 * contexts (SVM allocations among the uses), command buffers and recordings
 * (cl_qcom_recordable_queues),
 * each for KILN_RACE_SECONDS (default 1; the closing note's runs used 20), in the plain,
 * ASan and TSan builds. */
#include "../ext/khr_command_buffer_test.h" /* the command-buffer and recording races */
#include "../ext/qcom_recordable_test.h"

#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#define RACERS 3

static cl_program program; /* built: kernel "scale" */
/* Event callbacks registered and run: a race waits for the callback thread to catch up. */
static atomic_ulong callbacks_set, callbacks_run;

/* The creating thread's calls return their status instead of asserting: a failure must
 * stop the racers before the test fails (they use this frame's data). */
struct race {
  const char *name;
  void *(*create)(struct kiln_test_env *env, cl_int *status); /* NULL and *status on failure */
  cl_int (*destroy)(void *handle);
  /* One call on `handle` by racer `which`; returns the unexpected status, or CL_SUCCESS. */
  cl_int (*use)(struct kiln_test_env *env, void *handle, unsigned which, unsigned round);
};

struct race_run {
  struct kiln_test_env *env;
  const struct race *race;
  _Atomic(void *) latest;
  atomic_bool stop;
  atomic_int bad_status;      /* first unexpected status seen (0: none) */
  atomic_uint bad_call;       /* its racer and call */
  atomic_ulong calls;
};

/* CL_SUCCESS when `status` is success or `invalid`, else the status itself. */
static cl_int allowed(cl_int status, cl_int invalid) { return status == CL_SUCCESS || status == invalid ? CL_SUCCESS : status; }

/* A retain and, when it worked, the matching release (which must work too). */
#define RETAIN_RELEASE(retain, release, handle, invalid)                   \
  do {                                                                     \
    cl_int retained_ = retain(handle);                                     \
    return retained_ == CL_SUCCESS ? release(handle) : allowed(retained_, invalid); \
  } while (0)

static void *racer_main(void *arg) {
  struct race_run *run = arg;
  static atomic_uint next_id;
  unsigned which = atomic_fetch_add(&next_id, 1) % RACERS;
  for (unsigned round = 0; !atomic_load(&run->stop); round++) {
    void *handle = atomic_load(&run->latest);
    if (!handle) continue;
    cl_int status = run->race->use(run->env, handle, which, round);
    atomic_fetch_add(&run->calls, 1);
    int none = 0;
    if (status != CL_SUCCESS && atomic_compare_exchange_strong(&run->bad_status, &none, status))
      atomic_store(&run->bad_call, which * 1000 + round % 4);
  }
  return NULL;
}

static unsigned race_seconds(void) {
  const char *text = getenv("KILN_RACE_SECONDS");
  unsigned seconds = text ? (unsigned)strtoul(text, NULL, 10) : 0;
  return seconds ? seconds : 1;
}

static void run_race(struct kiln_test_env *env, const struct race *race) {
  struct race_run run = {.env = env, .race = race};
  pthread_t racers[RACERS];
  for (int i = 0; i < RACERS; i++) assert_int_equal(0, pthread_create(&racers[i], NULL, racer_main, &run));
  double end = kiln_test_now_ms() + 1000.0 * race_seconds();
  unsigned long created = 0;
  cl_int creator_status = CL_SUCCESS;
  while (kiln_test_now_ms() < end && creator_status == CL_SUCCESS) {
    void *handle = race->create(env, &creator_status);
    if (!handle) break;
    atomic_store(&run.latest, handle);
    created++;
    creator_status = race->destroy(handle); /* racers may still be using it */
  }
  atomic_store(&run.stop, true);
  for (int i = 0; i < RACERS; i++) pthread_join(racers[i], NULL);
  if (creator_status != CL_SUCCESS) fail_msg("%s: the creating thread got %d", race->name, creator_status);
  assert_cl_success(clFinish(env->queue));
  /* The events' callbacks hold them until they have run. */
  for (int ms = 0; ms < 60000 && atomic_load(&callbacks_run) != atomic_load(&callbacks_set); ms++) kiln_test_sleep_ms(1);
  assert_int_equal(atomic_load(&callbacks_set), atomic_load(&callbacks_run));
  if (atomic_load(&run.bad_status))
    fail_msg("%s: racer call %u returned %d", race->name, atomic_load(&run.bad_call), atomic_load(&run.bad_status));
  print_message("%s: %lu objects, %lu racing calls\n", race->name, created, atomic_load(&run.calls));
}

/* ---- buffers ---- */

static void *buffer_create(struct kiln_test_env *env, cl_int *status) {
  return clCreateBuffer(env->context, CL_MEM_READ_WRITE, 256, NULL, status);
}
static cl_int buffer_destroy(void *handle) { return clReleaseMemObject(handle); }

static cl_int buffer_use(struct kiln_test_env *env, void *handle, unsigned which, unsigned round) {
  cl_mem mem = handle;
  switch (which) {
  case 0: {
    size_t size;
    return allowed(clGetMemObjectInfo(mem, CL_MEM_SIZE, sizeof size, &size, NULL), CL_INVALID_MEM_OBJECT);
  }
  case 1: RETAIN_RELEASE(clRetainMemObject, clReleaseMemObject, mem, CL_INVALID_MEM_OBJECT);
  default: {
    static const cl_int data[4] = {1, 2, 3, 4};
    cl_bool blocking = round % 2 ? CL_TRUE : CL_FALSE;
    return allowed(clEnqueueWriteBuffer(env->queue, mem, blocking, 0, sizeof data, data, 0, NULL, NULL),
                   CL_INVALID_MEM_OBJECT);
  }
  }
}

/* ---- kernels ---- */

static void *kernel_create(struct kiln_test_env *env, cl_int *status) {
  (void)env;
  return clCreateKernel(program, "scale", status);
}
static cl_int kernel_destroy(void *handle) { return clReleaseKernel(handle); }

static cl_mem kernel_buffer; /* the kernels' arguments */

static cl_int kernel_use(struct kiln_test_env *env, void *handle, unsigned which, unsigned round) {
  cl_kernel kernel = handle;
  switch (which) {
  case 0: {
    cl_uint args;
    return allowed(clGetKernelInfo(kernel, CL_KERNEL_NUM_ARGS, sizeof args, &args, NULL), CL_INVALID_KERNEL);
  }
  case 1: RETAIN_RELEASE(clRetainKernel, clReleaseKernel, kernel, CL_INVALID_KERNEL);
  default: {
    cl_int status = CL_SUCCESS;
    for (cl_uint i = 0; i < 2 && status == CL_SUCCESS; i++) status = clSetKernelArg(kernel, i, sizeof kernel_buffer, &kernel_buffer);
    cl_int mul = (cl_int)round % 3;
    if (status == CL_SUCCESS) status = clSetKernelArg(kernel, 2, sizeof mul, &mul);
    if (status == CL_SUCCESS) status = clSetKernelArg(kernel, 3, sizeof mul, &mul);
    size_t global = 16;
    if (status == CL_SUCCESS) status = clEnqueueNDRangeKernel(env->queue, kernel, 1, NULL, &global, NULL, 0, NULL, NULL);
    return allowed(status, CL_INVALID_KERNEL);
  }
  }
}

/* ---- queues ---- */

static void *queue_create(struct kiln_test_env *env, cl_int *status) {
  return clCreateCommandQueueWithProperties(env->context, env->device, NULL, status);
}
static cl_int queue_destroy(void *handle) { return clReleaseCommandQueue(handle); }

static cl_int queue_use(struct kiln_test_env *env, void *handle, unsigned which, unsigned round) {
  (void)env;
  cl_command_queue queue = handle;
  switch (which) {
  case 0: {
    cl_uint refs;
    return allowed(clGetCommandQueueInfo(queue, CL_QUEUE_REFERENCE_COUNT, sizeof refs, &refs, NULL),
                   CL_INVALID_COMMAND_QUEUE);
  }
  case 1: RETAIN_RELEASE(clRetainCommandQueue, clReleaseCommandQueue, queue, CL_INVALID_COMMAND_QUEUE);
  default: {
    static char svm_from[64], svm_to[64];
    cl_event marker = NULL;
    cl_int status = round % 3 == 2 ? clEnqueueSVMMemcpy(queue, CL_TRUE, svm_to, svm_from, sizeof svm_to, 0, NULL, NULL)
                    : round % 3   ? clFinish(queue)
                                  : clEnqueueMarkerWithWaitList(queue, 0, NULL, &marker);
    if (marker) clReleaseEvent(marker);
    return allowed(status, CL_INVALID_COMMAND_QUEUE);
  }
  }
}

/* ---- events ---- */

static void *event_create(struct kiln_test_env *env, cl_int *status) {
  cl_event event = clCreateUserEvent(env->context, status);
  if (event && (*status = clSetUserEventStatus(event, CL_COMPLETE)) != CL_SUCCESS) return NULL;
  return event;
}
static cl_int event_destroy(void *handle) { return clReleaseEvent(handle); }

static void CL_CALLBACK event_noted(cl_event event, cl_int status, void *data) {
  (void)event;
  (void)status;
  atomic_fetch_add((atomic_ulong *)data, 1);
}

static cl_int event_use(struct kiln_test_env *env, void *handle, unsigned which, unsigned round) {
  (void)env;
  cl_event event = handle;
  switch (which) {
  case 0: {
    cl_int status;
    return allowed(clGetEventInfo(event, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof status, &status, NULL),
                   CL_INVALID_EVENT);
  }
  case 1: RETAIN_RELEASE(clRetainEvent, clReleaseEvent, event, CL_INVALID_EVENT);
  default: {
    if (round % 64) return allowed(clWaitForEvents(1, &event), CL_INVALID_EVENT);
    cl_int status = clSetEventCallback(event, CL_COMPLETE, event_noted, &callbacks_run);
    if (status == CL_SUCCESS) atomic_fetch_add(&callbacks_set, 1);
    return allowed(status, CL_INVALID_EVENT);
  }
  }
}

/* ---- programs ---- */

static const char *small_source = "kernel void k(global int *p) { p[0] = 1; }\n";

static void *program_create(struct kiln_test_env *env, cl_int *status) {
  return clCreateProgramWithSource(env->context, 1, &small_source, NULL, status);
}
static cl_int program_destroy(void *handle) { return clReleaseProgram(handle); }

static cl_int program_use(struct kiln_test_env *env, void *handle, unsigned which, unsigned round) {
  (void)env;
  (void)round;
  cl_program p = handle;
  switch (which) {
  case 0: {
    size_t size;
    return allowed(clGetProgramInfo(p, CL_PROGRAM_SOURCE, 0, NULL, &size), CL_INVALID_PROGRAM);
  }
  case 1: RETAIN_RELEASE(clRetainProgram, clReleaseProgram, p, CL_INVALID_PROGRAM);
  default: {
    cl_int status;
    cl_kernel k = clCreateKernel(p, "k", &status); /* never built: CL_INVALID_PROGRAM_EXECUTABLE */
    if (k) clReleaseKernel(k);
    return status == CL_INVALID_PROGRAM_EXECUTABLE ? CL_SUCCESS : allowed(status, CL_INVALID_PROGRAM);
  }
  }
}

/* ---- contexts ---- */

static void *context_create(struct kiln_test_env *env, cl_int *status) {
  return clCreateContext(NULL, 1, &env->device, NULL, NULL, status);
}
static cl_int context_destroy(void *handle) { return clReleaseContext(handle); }

static cl_int context_use(struct kiln_test_env *env, void *handle, unsigned which, unsigned round) {
  (void)env;
  (void)round;
  cl_context context = handle;
  switch (which) {
  case 0: {
    cl_uint devices;
    return allowed(clGetContextInfo(context, CL_CONTEXT_NUM_DEVICES, sizeof devices, &devices, NULL),
                   CL_INVALID_CONTEXT);
  }
  case 1: RETAIN_RELEASE(clRetainContext, clReleaseContext, context, CL_INVALID_CONTEXT);
  default: {
    if (round % 2) { /* SVM: an allocation keeps its context, freed even after a release */
      void *p = clSVMAlloc(context, CL_MEM_READ_WRITE, 64, 0);
      clSVMFree(context, p);
      return CL_SUCCESS;
    }
    cl_int status;
    cl_mem mem = clCreateBuffer(context, CL_MEM_READ_WRITE, 64, NULL, &status);
    if (mem) clReleaseMemObject(mem);
    return allowed(status, CL_INVALID_CONTEXT);
  }
  }
}

/* ---- command buffers ---- */

static void *command_buffer_create(struct kiln_test_env *env, cl_int *status) {
  return kcb.clCreateCommandBufferKHR(1, &env->queue, NULL, status);
}
static cl_int command_buffer_destroy(void *handle) { return kcb.clReleaseCommandBufferKHR(handle); }

static cl_int command_buffer_use(struct kiln_test_env *env, void *handle, unsigned which, unsigned round) {
  (void)env;
  cl_command_buffer_khr cb = handle;
  switch (which) {
  case 0: {
    cl_uint refs;
    return allowed(kcb.clGetCommandBufferInfoKHR(cb, CL_COMMAND_BUFFER_REFERENCE_COUNT_KHR, sizeof refs, &refs, NULL),
                   CL_INVALID_COMMAND_BUFFER_KHR);
  }
  case 1:
    RETAIN_RELEASE(kcb.clRetainCommandBufferKHR, kcb.clReleaseCommandBufferKHR, cb, CL_INVALID_COMMAND_BUFFER_KHR);
  default: {
    /* Recording into it, or finalizing it (which ends recording: later calls are
     * CL_INVALID_OPERATION, as the extension says). */
    cl_int status = round % 2 ? kcb.clFinalizeCommandBufferKHR(cb)
                              : kcb.clCommandBarrierWithWaitListKHR(cb, NULL, NULL, 0, NULL, NULL, NULL);
    return status == CL_INVALID_OPERATION ? CL_SUCCESS : allowed(status, CL_INVALID_COMMAND_BUFFER_KHR);
  }
  }
}

/* ---- recordings: one NDRange of scale each ---- */

static cl_command_queue recordable;
static cl_kernel recorded_kernel;

/* A racer still holding the handle of an earlier recording whose memory this one reuses
 * (after the quarantine: 256 recordings take a few ms, and a preempted racer sleeps
 * longer) may end it first: then the creator's own enqueue and end are
 * CL_INVALID_OPERATION, which is right for what the racer did. The racers' calls on such a
 * handle get what the newer recording's state calls for. */
static void *recording_create(struct kiln_test_env *env, cl_int *status) {
  (void)env;
  const size_t global = 16;
  cl_recording_qcom recording = qrq.clNewRecordingQCOM(recordable, status);
  if (!recording) return NULL;
  cl_int recorded = clEnqueueNDRangeKernel(recordable, recorded_kernel, 1, NULL, &global, NULL, 0, NULL, NULL);
  cl_int ended = qrq.clEndRecordingQCOM(recording);
  *status = allowed(recorded, CL_INVALID_OPERATION);
  if (*status == CL_SUCCESS) *status = allowed(ended, CL_INVALID_OPERATION);
  if (*status != CL_SUCCESS) return NULL;
  return recording;
}
static cl_int recording_destroy(void *handle) { return qrq.clReleaseRecordingQCOM(handle); }

static cl_int recording_use(struct kiln_test_env *env, void *handle, unsigned which, unsigned round) {
  (void)round;
  cl_recording_qcom recording = handle;
  switch (which) {
  case 0: {
    cl_int status = qrq.clEndRecordingQCOM(recording); /* ended already: CL_INVALID_OPERATION */
    return status == CL_INVALID_OPERATION ? CL_SUCCESS : allowed(status, CL_INVALID_VALUE);
  }
  case 1: { /* the extension's code for an invalid recording here: CL_INVALID_OPERATION */
    cl_int retained = qrq.clRetainRecordingQCOM(recording);
    if (retained != CL_SUCCESS) return allowed(retained, CL_INVALID_OPERATION);
    /* A stale handle may have retained a newer recording in the same memory that is still
     * being recorded; it cannot be released before the creator ends it (and the reference
     * taken must be given back, or the recording leaks). */
    cl_int released = qrq.clReleaseRecordingQCOM(recording);
    for (int tries = 0; released == CL_INVALID_OPERATION && tries < 100000; tries++) {
      sched_yield();
      released = qrq.clReleaseRecordingQCOM(recording);
    }
    return released;
  }
  default: { /* CL_INVALID_OPERATION: a stale handle to a newer recording not yet ended */
    cl_int status = qrq.clEnqueueRecordingQCOM(env->queue, recording, 0, NULL, 0, NULL, 0, NULL, 0, NULL, 0, NULL, NULL);
    return status == CL_INVALID_OPERATION ? CL_SUCCESS : allowed(status, CL_INVALID_VALUE);
  }
  }
}

static const struct race races[] = {
    {"buffers", buffer_create, buffer_destroy, buffer_use},
    {"kernels", kernel_create, kernel_destroy, kernel_use},
    {"queues", queue_create, queue_destroy, queue_use},
    {"events", event_create, event_destroy, event_use},
    {"programs", program_create, program_destroy, program_use},
    {"contexts", context_create, context_destroy, context_use},
    {"command buffers", command_buffer_create, command_buffer_destroy, command_buffer_use},
    {"recordings", recording_create, recording_destroy, recording_use},
};

static int setup(void **state) {
  kiln_test_program_setup(state, kcb_setup, &program, KILN_TEST_SCALE_SOURCE, NULL);
  struct kiln_test_env *env = *state;
  qrq_load(env->platform);
  kernel_buffer = kiln_test_buffer(env->context, 64 * sizeof(cl_int));
  recordable = qrq_recordable_queue(env);
  recorded_kernel = kiln_test_kernel(program, "scale");
  kiln_test_scale_args(recorded_kernel, kernel_buffer, kernel_buffer, 1, 0);
  return 0;
}

static int teardown(void **state) {
  assert_cl_success(clReleaseKernel(recorded_kernel));
  assert_cl_success(clReleaseCommandQueue(recordable));
  assert_cl_success(clReleaseMemObject(kernel_buffer));
  return kiln_test_program_teardown(state, program);
}

static void test_races(void **state) {
  const char *only = getenv("KILN_RACE_ONLY");
  for (size_t i = 0; i < sizeof races / sizeof races[0]; i++)
    if (!only || strcmp(only, races[i].name) == 0) run_race(*state, &races[i]);
}

int main(void) {
  const struct CMUnitTest tests[] = {cmocka_unit_test(test_races)};
  return cmocka_run_group_tests(tests, setup, teardown);
}
