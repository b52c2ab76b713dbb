/* bench_svm.c: shared virtual memory. Pointer chasing: lists of nodes in one clSVMAlloc
 * allocation, linked in a shuffled order (every hop a dependent load to an unpredictable
 * place), each list walked by one work-item that sums its values; the kernel reaches the
 * nodes only through pointers stored in SVM (CL_KERNEL_EXEC_INFO_SVM_PTRS names the
 * allocation). And clEnqueueSVMMemcpy of 256 MiB between two allocations, beside the host's
 * memcpy of the same buffers in the same process. Only coarse-grain buffer SVM is used,
 * with map and unmap around every host access, so any SVM device can run it. */
#include "bench.h"

#include <stdint.h>
#include <string.h>

static const char *chase_source =
    "typedef struct node { global struct node *next; long value; } node;\n"
    "kernel void chase(global const ulong *heads, global long *sums) {\n"
    "  size_t l = get_global_id(0);\n"
    "  global node *n = (global node *)heads[l];\n"
    "  long s = 0;\n"
    "  while (n) { s += n->value; n = n->next; }\n"
    "  sums[l] = s;\n"
    "}\n";

/* The layout chase_source declares, from the host's side. */
struct node {
  struct node *next;
  int64_t value;
};

static uint64_t next_random(uint64_t *state) { /* xorshift64* */
  *state ^= *state >> 12, *state ^= *state << 25, *state ^= *state >> 27;
  return *state * 2685821657736338717ull;
}

static void map_svm(struct bench_env *env, cl_map_flags flags, void *p, size_t size) {
  CHECK(clEnqueueSVMMap(env->queue, CL_TRUE, flags, p, size, 0, NULL, NULL));
}
static void unmap_svm(struct bench_env *env, void *p) { CHECK(clEnqueueSVMUnmap(env->queue, p, 0, NULL, NULL)); }

static void bench_pointer_chase(struct bench_env *env) {
  const size_t lists = 4096, hops = env->quick ? 64 : 1024, count = lists * hops; /* 4 M nodes: 64 MiB */
  struct node *nodes = clSVMAlloc(env->context, CL_MEM_READ_WRITE, count * sizeof *nodes, 0);
  uint64_t *heads = clSVMAlloc(env->context, CL_MEM_READ_ONLY, lists * sizeof *heads, 0);
  int64_t *sums = clSVMAlloc(env->context, CL_MEM_WRITE_ONLY, lists * sizeof *sums, 0);
  size_t *order = malloc(count * sizeof *order);
  int64_t *expected = calloc(lists, sizeof *expected);
  if (!nodes || !heads || !sums || !order || !expected) fail("SVM pointer chase: allocation");

  /* A random permutation of the nodes, cut into the lists. */
  uint64_t seed = 0x9E3779B97F4A7C15ull;
  for (size_t i = 0; i < count; i++) order[i] = i;
  for (size_t i = count - 1; i > 0; i--) {
    size_t j = (size_t)(next_random(&seed) % (i + 1)), t = order[i];
    order[i] = order[j], order[j] = t;
  }
  map_svm(env, CL_MAP_WRITE_INVALIDATE_REGION, nodes, count * sizeof *nodes);
  map_svm(env, CL_MAP_WRITE_INVALIDATE_REGION, heads, lists * sizeof *heads);
  for (size_t l = 0; l < lists; l++) {
    const size_t *list = order + l * hops;
    heads[l] = (uint64_t)(uintptr_t)&nodes[list[0]];
    for (size_t h = 0; h < hops; h++) {
      struct node *n = &nodes[list[h]];
      n->next = h + 1 < hops ? &nodes[list[h + 1]] : NULL;
      n->value = (int64_t)(next_random(&seed) % 1000003);
      expected[l] += n->value;
    }
  }
  unmap_svm(env, nodes);
  unmap_svm(env, heads);

  cl_program program = build(env, chase_source, NULL);
  cl_kernel kernel = kernel_of(program, "chase");
  CHECK(clSetKernelArgSVMPointer(kernel, 0, heads));
  CHECK(clSetKernelArgSVMPointer(kernel, 1, sums));
  void *reached[1] = {nodes};
  CHECK(clSetKernelExecInfo(kernel, CL_KERNEL_EXEC_INFO_SVM_PTRS, sizeof reached, reached));

  enum { RUNS = 7 };
  double times[RUNS];
  for (int r = -1; r < RUNS; r++) { /* one warm-up */
    double start = now_us();
    CHECK(clEnqueueNDRangeKernel(env->queue, kernel, 1, NULL, &lists, NULL, 0, NULL, NULL));
    CHECK(clFinish(env->queue));
    if (r >= 0) times[r] = now_us() - start;
  }
  map_svm(env, CL_MAP_READ, sums, lists * sizeof *sums);
  for (size_t l = 0; l < lists; l++)
    if (sums[l] != expected[l]) fail("SVM pointer chase");
  unmap_svm(env, sums);
  double us = median(times, RUNS);
  char what[64];
  snprintf(what, sizeof what, "svm pointer chase %zu lists x %zu hops", lists, hops);
  report(env->platform_name, what, us * 1000.0 / (double)count, "ns/hop");

  clReleaseKernel(kernel);
  clReleaseProgram(program);
  clSVMFree(env->context, nodes);
  clSVMFree(env->context, heads);
  clSVMFree(env->context, sums);
  free(order);
  free(expected);
}

static void bench_svm_memcpy(struct bench_env *env) {
  const size_t size = (env->quick ? 32u : 256u) << 20;
  unsigned char *src = clSVMAlloc(env->context, CL_MEM_READ_WRITE, size, 0);
  unsigned char *dst = clSVMAlloc(env->context, CL_MEM_READ_WRITE, size, 0);
  if (!src || !dst) fail("SVM memcpy: allocation");
  map_svm(env, CL_MAP_WRITE_INVALIDATE_REGION, src, size);
  map_svm(env, CL_MAP_WRITE_INVALIDATE_REGION, dst, size);
  for (size_t i = 0; i < size; i++) src[i] = (unsigned char)(i * 7 + (i >> 12));
  memset(dst, 0, size); /* every page touched before timing */
  unmap_svm(env, src);
  unmap_svm(env, dst);

  enum { RUNS = 7 };
  double svm[RUNS], host[RUNS];
  for (int r = -1; r < RUNS; r++) {
    double start = now_us();
    CHECK(clEnqueueSVMMemcpy(env->queue, CL_TRUE, dst, src, size, 0, NULL, NULL));
    if (r >= 0) svm[r] = now_us() - start;
  }
  map_svm(env, CL_MAP_READ | CL_MAP_WRITE, dst, size);
  map_svm(env, CL_MAP_READ, src, size);
  if (memcmp(src, dst, size) != 0) fail("SVM memcpy");
  /* The host's memcpy of the same (mapped) buffers, alternating with nothing else. */
  for (int r = -1; r < RUNS; r++) {
    double start = now_us();
    memcpy(dst, src, size);
    if (r >= 0) host[r] = now_us() - start;
  }
  unmap_svm(env, dst);
  unmap_svm(env, src);
  CHECK(clFinish(env->queue));
  char what[64];
  snprintf(what, sizeof what, "clEnqueueSVMMemcpy %zu MiB", size >> 20);
  report(env->platform_name, what, (double)size / median(svm, RUNS) / 1000.0, "GB/s");
  snprintf(what, sizeof what, "host memcpy %zu MiB (same process)", size >> 20);
  report(env->platform_name, what, (double)size / median(host, RUNS) / 1000.0, "GB/s");
  clSVMFree(env->context, src);
  clSVMFree(env->context, dst);
}

void bench_svm(struct bench_env *env) {
  cl_device_svm_capabilities caps = 0;
  CHECK(clGetDeviceInfo(env->device, CL_DEVICE_SVM_CAPABILITIES, sizeof caps, &caps, NULL));
  if (!(caps & CL_DEVICE_SVM_COARSE_GRAIN_BUFFER)) {
    report(env->platform_name, "svm: no coarse-grain buffer SVM, skipped", 0, "-");
    return;
  }
  bench_pointer_chase(env);
  bench_svm_memcpy(env);
}
