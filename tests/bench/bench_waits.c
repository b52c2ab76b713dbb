/* bench_waits.c: kernels whose work-items may wait for each other (docs/user-guide.md,
 * "Waiting work-items"), each checked: a scatter of float additions by atomic_cmpxchg
 * loops into 4096 bins (OpenCL C 1.2; such loops rarely turn twice), and an ordered
 * hand-off in which work-item l of each group waits for l - 1's store before its own,
 * which needs independent forward progress of sub-groups (CL_DEVICE_SUB_GROUP_INDEPENDENT_FORWARD_PROGRESS);
 * a platform without it is reported as such. */
#include "bench.h"

#include <string.h>

static const char *scatter_source =
    "void add_float(volatile global float *p, float v) {\n"
    "  union { uint u; float f; } old, new;\n"
    "  do { old.f = *p; new.f = old.f + v; }\n"
    "  while (atomic_cmpxchg((volatile global uint *)p, old.u, new.u) != old.u);\n"
    "}\n"
    "kernel void scatter(global const float *x, global float *bins) {\n"
    "  size_t i = get_global_id(0);\n"
    "  add_float(&bins[(i * 2654435761u) & 4095], x[i]);\n"
    "}\n";

static const char *handoff_source =
    "kernel void handoff(global int *out, local atomic_int *turn) {\n"
    "  int l = (int)get_local_id(0);\n"
    "  if (l == 0) atomic_store_explicit(turn, 0, memory_order_relaxed, memory_scope_work_group);\n"
    "  work_group_barrier(CLK_LOCAL_MEM_FENCE);\n"
    "  while (atomic_load_explicit(turn, memory_order_acquire, memory_scope_work_group) != l)\n"
    "    ;\n"
    "  out[get_global_id(0)] = l;\n"
    "  atomic_store_explicit(turn, l + 1, memory_order_release, memory_scope_work_group);\n"
    "}\n";

void bench_waits(struct bench_env *env) {
  size_t n = env->quick ? (1u << 20) : (16u << 20), local = 256, bins = 4096;
  float *x = malloc(n * sizeof *x), *sums = malloc(bins * sizeof *sums);
  for (size_t i = 0; i < n; i++) x[i] = 1.0f;
  cl_program program = build(env, scatter_source, NULL);
  cl_kernel kernel = kernel_of(program, "scatter");
  cl_mem mx = buffer(env, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, n * sizeof *x, x);
  cl_mem mbins = buffer(env, CL_MEM_READ_WRITE, bins * sizeof *sums, NULL);
  CHECK(clSetKernelArg(kernel, 0, sizeof mx, &mx));
  CHECK(clSetKernelArg(kernel, 1, sizeof mbins, &mbins));
  /* The bins start at zero and add every launch's work-items: best_launch_us's warm-up
   * launch and `reps` more (each bin stays far below float's exact integers). */
  const float zero = 0.0f;
  CHECK(clEnqueueFillBuffer(env->queue, mbins, &zero, sizeof zero, 0, bins * sizeof *sums, 0, NULL, NULL));
  int reps = env->quick ? 3 : 10;
  double best = best_launch_us(env, kernel, 1, &n, &local, reps);
  CHECK(clEnqueueReadBuffer(env->queue, mbins, CL_TRUE, 0, bins * sizeof *sums, sums, 0, NULL, NULL));
  double total = 0;
  for (size_t b = 0; b < bins; b++) total += sums[b];
  if (total != (double)n * (reps + 1)) fail("waits: atomic_cmpxchg scatter");
  report(env->platform_name, "waits: atomic_cmpxchg float scatter", (double)n / best, "M items/s");
  clReleaseKernel(kernel);
  clReleaseProgram(program);
  clReleaseMemObject(mx);
  clReleaseMemObject(mbins);

  cl_bool progress = CL_FALSE;
  clGetDeviceInfo(env->device, CL_DEVICE_SUB_GROUP_INDEPENDENT_FORWARD_PROGRESS, sizeof progress, &progress, NULL);
  if (!progress) {
    printf("%-10s %-44s %12s (%s)\n", env->platform_name, "waits: ordered hand-off in a group", "n/a",
           "no independent forward progress");
  } else {
    program = build(env, handoff_source, "-cl-std=CL3.0");
    kernel = kernel_of(program, "handoff");
    cl_mem mout = buffer(env, CL_MEM_WRITE_ONLY, n * sizeof(cl_int), NULL);
    CHECK(clSetKernelArg(kernel, 0, sizeof mout, &mout));
    CHECK(clSetKernelArg(kernel, 1, sizeof(cl_int), NULL));
    best = best_launch_us(env, kernel, 1, &n, &local, env->quick ? 3 : 10);
    cl_int *out = malloc(n * sizeof *out);
    CHECK(clEnqueueReadBuffer(env->queue, mout, CL_TRUE, 0, n * sizeof *out, out, 0, NULL, NULL));
    for (size_t i = 0; i < n; i++)
      if (out[i] != (cl_int)(i % local)) fail("waits: ordered hand-off");
    report(env->platform_name, "waits: ordered hand-off in a group", (double)n / best, "M items/s");
    free(out);
    clReleaseKernel(kernel);
    clReleaseProgram(program);
    clReleaseMemObject(mout);
  }
  free(x);
  free(sums);
}
