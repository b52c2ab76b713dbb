/* bench_collectives.c: per-group sums of 16 Mi floats (256 work-items a group) three ways,
 * each checked: a sub-group reduction (sub_group_reduce_add, then the sub-groups' sums
 * through local memory), work_group_reduce_add, and the local-memory tree of the
 * "reduce" case, on the same data in the same run. A platform without the OpenCL C 3.0
 * feature a kernel needs is reported as such. */
#include "bench.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static const char *collectives_source =
    "kernel void subgroup(global const float *in, global float *partial, local float *sums) {\n"
    "  float s = sub_group_reduce_add(in[get_global_id(0)]);\n"
    "  if (get_sub_group_local_id() == 0) sums[get_sub_group_id()] = s;\n"
    "  barrier(CLK_LOCAL_MEM_FENCE);\n"
    "  if (get_local_id(0) == 0) {\n"
    "    float t = 0.0f;\n"
    "    for (uint i = 0; i < get_num_sub_groups(); i++) t += sums[i];\n"
    "    partial[get_group_id(0)] = t;\n"
    "  }\n"
    "}\n"
    "kernel void workgroup(global const float *in, global float *partial, local float *unused) {\n"
    "  float s = work_group_reduce_add(in[get_global_id(0)]);\n"
    "  if (get_local_id(0) == 0) partial[get_group_id(0)] = s;\n"
    "}\n"
    "kernel void tree(global const float *in, global float *partial, local float *scratch) {\n"
    "  size_t lid = get_local_id(0);\n"
    "  scratch[lid] = in[get_global_id(0)];\n"
    "  barrier(CLK_LOCAL_MEM_FENCE);\n"
    "  for (size_t s = get_local_size(0) / 2; s > 0; s /= 2) {\n"
    "    if (lid < s) scratch[lid] += scratch[lid + s];\n"
    "    barrier(CLK_LOCAL_MEM_FENCE);\n"
    "  }\n"
    "  if (lid == 0) partial[get_group_id(0)] = scratch[0];\n"
    "}\n";

static bool has_feature(struct bench_env *env, const char *name) {
  size_t size = 0;
  if (clGetDeviceInfo(env->device, CL_DEVICE_OPENCL_C_FEATURES, 0, NULL, &size) != CL_SUCCESS) return false;
  cl_name_version *features = malloc(size ? size : 1);
  bool found = false;
  if (clGetDeviceInfo(env->device, CL_DEVICE_OPENCL_C_FEATURES, size, features, NULL) == CL_SUCCESS)
    for (size_t i = 0; i < size / sizeof *features; i++) found |= strcmp(features[i].name, name) == 0;
  free(features);
  return found;
}

void bench_collectives(struct bench_env *env) {
  static const char *const kernels[] = {"subgroup", "workgroup", "tree"};
  static const char *const features[] = {"__opencl_c_subgroups", "__opencl_c_work_group_collective_functions", NULL};
  static const char *const labels[] = {"reduction: sub_group_reduce_add + local", "reduction: work_group_reduce_add",
                                       "reduction: local-memory tree (barriers)"};
  bool all = has_feature(env, features[0]) && has_feature(env, features[1]);
  size_t n = env->quick ? (1u << 20) : (16u << 20), local = 256, groups = n / local;
  float *in = malloc(n * sizeof *in), *partial = malloc(groups * sizeof *partial);
  for (size_t i = 0; i < n; i++) in[i] = (float)(i % 17);
  /* The tree alone builds as OpenCL C 1.2 where the features are missing. */
  cl_program program = build(env, all ? collectives_source : strstr(collectives_source, "kernel void tree"),
                             all ? "-cl-std=CL3.0" : NULL);
  cl_mem min = buffer(env, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, n * sizeof *in, in);
  cl_mem mpartial = buffer(env, CL_MEM_WRITE_ONLY, groups * sizeof *partial, NULL);
  for (int k = 0; k < 3; k++) {
    if (features[k] && !all) {
      printf("%-10s %-44s %12s (%s)\n", env->platform_name, labels[k], "n/a", features[k]);
      continue;
    }
    cl_kernel kernel = kernel_of(program, kernels[k]);
    CHECK(clSetKernelArg(kernel, 0, sizeof min, &min));
    CHECK(clSetKernelArg(kernel, 1, sizeof mpartial, &mpartial));
    CHECK(clSetKernelArg(kernel, 2, local * sizeof(float), NULL));
    double best = best_launch_us(env, kernel, 1, &n, &local, env->quick ? 3 : 10);
    memset(partial, 0, groups * sizeof *partial);
    CHECK(clEnqueueReadBuffer(env->queue, mpartial, CL_TRUE, 0, groups * sizeof *partial, partial, 0, NULL, NULL));
    for (size_t g = 0; g < groups; g++) {
      double sum = 0;
      for (size_t i = 0; i < local; i++) sum += in[g * local + i];
      if (fabs(sum - partial[g]) > 1e-3 * sum) fail(labels[k]);
    }
    report(env->platform_name, labels[k], (double)n * sizeof(float) / best / 1e3, "GB/s");
    clReleaseKernel(kernel);
  }
  clReleaseMemObject(min);
  clReleaseMemObject(mpartial);
  clReleaseProgram(program);
  free(in);
  free(partial);
}
