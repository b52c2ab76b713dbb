/* bench_mutable.c: cl_khr_command_buffer_mutable_dispatch. 100 tiny recorded kernels (a
 * chain of sync points, as in the cmdbuf bench) replayed: from a command buffer that is not
 * mutable, from a mutable one without updates, with one argument update before each
 * replay, and with all 100 commands updated before each replay; beside the same kernels
 * enqueued one by one. The variants alternate in rounds; each figure is the median of its
 * rounds, per command. Platforms without the extension at 0.9.3 (the update call's
 * signature changed in 0.9.2) print n/a. Types and token values are declared here from the
 * registry (the bench includes only the core headers). */
#include "bench.h"

#include <string.h>

#define BENCH_COMMAND_BUFFER_FLAGS 0x1293
#define BENCH_COMMAND_BUFFER_MUTABLE (1u << 1)
#define BENCH_MUTABLE_DISPATCH_CONFIG 0 /* CL_STRUCTURE_TYPE_MUTABLE_DISPATCH_CONFIG_KHR */

typedef void *bench_cb;
typedef void *bench_mutable;
typedef struct {
  cl_uint arg_index;
  size_t arg_size;
  const void *arg_value;
} bench_mutable_arg;
typedef struct {
  bench_mutable command;
  cl_uint num_args, num_svm_args, num_exec_infos, work_dim;
  const bench_mutable_arg *arg_list, *arg_svm_list;
  const void *exec_info_list;
  const size_t *global_work_offset, *global_work_size, *local_work_size;
} bench_mutable_config;

typedef bench_cb(CL_API_CALL *create_fn)(cl_uint, const cl_command_queue *, const cl_ulong *, cl_int *);
typedef cl_int(CL_API_CALL *record_fn)(bench_cb, cl_command_queue, const cl_ulong *, cl_kernel, cl_uint, const size_t *,
                                       const size_t *, const size_t *, cl_uint, const cl_uint *, cl_uint *,
                                       bench_mutable *);
typedef cl_int(CL_API_CALL *cb_fn)(bench_cb);
typedef cl_int(CL_API_CALL *enqueue_fn)(cl_uint, cl_command_queue *, bench_cb, cl_uint, const cl_event *, cl_event *);
typedef cl_int(CL_API_CALL *update_fn)(bench_cb, cl_uint, const cl_uint *, const void **);

enum { COMMANDS = 100, VARIANTS = 5 };

struct api {
  create_fn create;
  record_fn record;
  cb_fn finalize, release;
  enqueue_fn enqueue;
  update_fn update;
};

static bool has_mutable_dispatch_093(struct bench_env *env) {
  size_t size = 0;
  if (clGetDeviceInfo(env->device, CL_DEVICE_EXTENSIONS_WITH_VERSION, 0, NULL, &size) != CL_SUCCESS) return false;
  cl_name_version *list = malloc(size);
  bool found = false;
  CHECK(clGetDeviceInfo(env->device, CL_DEVICE_EXTENSIONS_WITH_VERSION, size, list, NULL));
  for (size_t i = 0; i < size / sizeof *list; i++)
    if (!strcmp(list[i].name, "cl_khr_command_buffer_mutable_dispatch") && list[i].version == CL_MAKE_VERSION(0, 9, 3))
      found = true;
  free(list);
  return found;
}

/* 100 chained bump commands; their mutable handles in `handles` when asked. */
static bench_cb record_chain(struct bench_env *env, const struct api *api, cl_kernel kernel, bool mutable,
                             bench_mutable *handles) {
  const cl_ulong properties[] = {BENCH_COMMAND_BUFFER_FLAGS, BENCH_COMMAND_BUFFER_MUTABLE, 0};
  cl_int err;
  bench_cb cb = api->create(1, &env->queue, mutable ? properties : NULL, &err);
  CHECK(err);
  size_t one = 1;
  cl_uint previous = 0;
  for (int i = 0; i < COMMANDS; i++) {
    cl_uint sync_point;
    CHECK(api->record(cb, NULL, NULL, kernel, 1, NULL, &one, &one, i ? 1 : 0, i ? &previous : NULL, &sync_point,
                      handles ? &handles[i] : NULL));
    previous = sync_point;
  }
  CHECK(api->finalize(cb));
  return cb;
}

void bench_mutable_dispatch(struct bench_env *env) {
  struct api api = {
      (create_fn)clGetExtensionFunctionAddressForPlatform(env->platform, "clCreateCommandBufferKHR"),
      (record_fn)clGetExtensionFunctionAddressForPlatform(env->platform, "clCommandNDRangeKernelKHR"),
      (cb_fn)clGetExtensionFunctionAddressForPlatform(env->platform, "clFinalizeCommandBufferKHR"),
      (cb_fn)clGetExtensionFunctionAddressForPlatform(env->platform, "clReleaseCommandBufferKHR"),
      (enqueue_fn)clGetExtensionFunctionAddressForPlatform(env->platform, "clEnqueueCommandBufferKHR"),
      (update_fn)clGetExtensionFunctionAddressForPlatform(env->platform, "clUpdateMutableCommandsKHR"),
  };
  if (!has_mutable_dispatch_093(env) || !api.create || !api.record || !api.finalize || !api.release || !api.enqueue ||
      !api.update) {
    printf("%-10s %-44s %12s\n", env->platform_name, "mutable dispatch (cl_khr_..._mutable_dispatch)", "n/a");
    return;
  }
  cl_program program = build(env, "kernel void bump(global int *counter) { counter[0] += 1; }\n", NULL);
  cl_kernel kernel = kernel_of(program, "bump");
  cl_int zero = 0;
  cl_mem counters[2] = {buffer(env, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, sizeof zero, &zero),
                        buffer(env, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, sizeof zero, &zero)};
  CHECK(clSetKernelArg(kernel, 0, sizeof(cl_mem), &counters[0]));
  bench_mutable handles[COMMANDS];
  bench_cb fixed = record_chain(env, &api, kernel, false, NULL);
  bench_cb mutable_cb = record_chain(env, &api, kernel, true, handles);

  /* One config per command, each pointing argument 0 at the counter `arg` names. */
  bench_mutable_arg arg = {0, sizeof(cl_mem), NULL};
  bench_mutable_config configs[COMMANDS];
  cl_uint types[COMMANDS];
  const void *config_pointers[COMMANDS];
  for (int i = 0; i < COMMANDS; i++) {
    configs[i] = (bench_mutable_config){.command = handles[i], .num_args = 1, .arg_list = &arg};
    types[i] = BENCH_MUTABLE_DISPATCH_CONFIG;
    config_pointers[i] = &configs[i];
  }

  /* An even number of replays: the updated commands end on counters[0], where they began. */
  const int rounds = env->quick ? 3 : 7, reps = env->quick ? 30 : 300;
  double per_round[VARIANTS][7];
  long expected[2] = {0, 0};
  size_t one = 1;
  for (int round = 0; round < rounds; round++) {
    for (int v = 0; v < VARIANTS; v++) {
      CHECK(clFinish(env->queue));
      double t0 = now_us();
      for (int r = 0; r < reps; r++) {
        if (v == 0) {
          for (int i = 0; i < COMMANDS; i++)
            CHECK(clEnqueueNDRangeKernel(env->queue, kernel, 1, NULL, &one, &one, 0, NULL, NULL));
          expected[0] += COMMANDS;
        } else if (v == 1 || v == 2) {
          CHECK(api.enqueue(0, NULL, v == 1 ? fixed : mutable_cb, 0, NULL, NULL));
          expected[0] += COMMANDS;
        } else {
          int to = r % 2 ? 0 : 1; /* alternate */
          cl_uint updated = v == 3 ? 1 : COMMANDS;
          arg.arg_value = &counters[to];
          CHECK(api.update(mutable_cb, updated, types, config_pointers));
          CHECK(api.enqueue(0, NULL, mutable_cb, 0, NULL, NULL));
          expected[to] += updated;
          expected[0] += COMMANDS - updated;
        }
        CHECK(clFinish(env->queue));
      }
      per_round[v][round] = (now_us() - t0) / ((double)reps * COMMANDS);
    }
  }
  cl_int got[2];
  CHECK(clEnqueueReadBuffer(env->queue, counters[0], CL_TRUE, 0, sizeof got[0], &got[0], 0, NULL, NULL));
  CHECK(clEnqueueReadBuffer(env->queue, counters[1], CL_TRUE, 0, sizeof got[1], &got[1], 0, NULL, NULL));
  if (got[0] != expected[0] || got[1] != expected[1]) fail("mutable dispatch replay");

  static const char *const names[VARIANTS] = {
      "kernel enqueued one by one (100 per finish)", "command buffer replay, not mutable",
      "mutable replay, no update", "mutable replay, 1 argument update each", "mutable replay, 100 updates each"};
  for (int v = 0; v < VARIANTS; v++) report(env->platform_name, names[v], median(per_round[v], rounds), "us/command");
  CHECK(api.release(fixed));
  CHECK(api.release(mutable_cb));
  clReleaseMemObject(counters[0]);
  clReleaseMemObject(counters[1]);
  clReleaseKernel(kernel);
  clReleaseProgram(program);
}
