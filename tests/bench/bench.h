/* bench.h: what the benchmark's files share (kiln_bench.c defines the helpers): the
 * platform under test, error checks, timing and reporting. */
#ifndef KILN_BENCH_H
#define KILN_BENCH_H

#define CL_TARGET_OPENCL_VERSION 300
#include <CL/cl.h>

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>

#define CHECK(call)                                                                    \
  do {                                                                                 \
    cl_int check_err_ = (call);                                                        \
    if (check_err_ != CL_SUCCESS) {                                                    \
      fprintf(stderr, "%s:%d: %s failed with %d\n", __FILE__, __LINE__, #call, check_err_); \
      exit(2);                                                                         \
    }                                                                                  \
  } while (0)

struct bench_env {
  cl_platform_id platform;
  cl_device_id device;
  cl_context context;
  cl_command_queue queue;
  bool quick;
  char platform_name[128];
};

double now_us(void);
double median(double *values, size_t n);
void report(const char *platform, const char *what, double value, const char *unit);
void fail(const char *what); /* a wrong kernel result: exits */
cl_program build(struct bench_env *env, const char *source, const char *options);
cl_kernel kernel_of(cl_program program, const char *name);
cl_mem buffer(struct bench_env *env, cl_mem_flags flags, size_t size, void *host);
/* One warm-up launch, then the best of `reps` timed enqueue+finish pairs, in microseconds. */
double best_launch_us(struct bench_env *env, cl_kernel kernel, cl_uint dims, const size_t *global,
                      const size_t *local, int reps);

/* bench_images.c: bilinear resample and 3x3 convolution over RGBA8 and RGBA float images. */
void bench_images(struct bench_env *env);
/* bench_collectives.c: per-group sums through sub-group and work-group functions and a local tree. */
void bench_collectives(struct bench_env *env);
/* bench_waits.c: an atomic_cmpxchg scatter and an ordered hand-off between work-items. */
void bench_waits(struct bench_env *env);
/* bench_svm.c: pointer chasing over an SVM linked list; a 256 MiB clEnqueueSVMMemcpy beside host memcpy. */
void bench_svm(struct bench_env *env);
/* bench_mutable.c: command-buffer replay with and without cl_khr_command_buffer_mutable_dispatch updates. */
void bench_mutable_dispatch(struct bench_env *env);

#endif
