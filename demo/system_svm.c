/* system_svm.c: fine-grain system SVM, the kind no other CPU OpenCL offers: a kernel
 * works on the application's plain malloc'd data structure. An array of particles, each
 * pointing at its own malloc'd history ring, is passed to a kernel as it is
 * (clSetKernelArgSVMPointer on the malloc'd array); the kernel follows the pointers,
 * moves each particle and logs its position in the ring, and bumps a shared counter with
 * an atomic at all-SVM-devices scope. No buffer, no copy, no map: the host checks every
 * particle, every ring entry and the counter in its own memory. */
#include "demo.h"

#include <stdint.h>

/* The host's and the kernel's view of one particle (the same layout on both sides). */
struct particle {
  float x, y, vx, vy;
  float *history; /* a separate malloc'd ring of `ring` (x, y) pairs */
  uint32_t ring, steps;
};

static const char *svm_source =
    "typedef struct { float x, y, vx, vy; global float *history; uint ring, steps; } particle;\n"
    "kernel void advance(global particle *p, float dt, global atomic_uint *moves) {\n"
    "  global particle *q = &p[get_global_id(0)];\n"
    "  q->x += q->vx * dt; q->y += q->vy * dt;\n"
    "  uint slot = q->steps % q->ring;\n"
    "  q->history[2 * slot] = q->x; q->history[2 * slot + 1] = q->y;\n"
    "  q->steps++;\n"
    "  atomic_fetch_add_explicit(moves, 1u, memory_order_relaxed, memory_scope_all_svm_devices);\n"
    "}\n";

size_t system_svm(cl_device_id device, cl_context context, cl_command_queue queue) {
  cl_device_svm_capabilities caps = 0;
  CHECK(clGetDeviceInfo(device, CL_DEVICE_SVM_CAPABILITIES, sizeof caps, &caps, NULL));
  if (!(caps & CL_DEVICE_SVM_FINE_GRAIN_SYSTEM) || !(caps & CL_DEVICE_SVM_ATOMICS)) {
    fprintf(stderr, "kiln_demo: fine-grain system SVM with atomics missing\n");
    return 1;
  }
  enum { COUNT = 5000, RING = 4, STEPS = 6 };
  const float dt = 0.5f;
  struct particle *particles = malloc(COUNT * sizeof *particles);
  uint32_t *moves = malloc(sizeof *moves); /* the kernel's atomic counter, also plain malloc */
  *moves = 0;
  for (int i = 0; i < COUNT; i++) {
    particles[i] = (struct particle){(float)i, (float)-i, 1.0f + (float)(i % 7), -2.0f, NULL, RING, 0};
    particles[i].history = calloc(2 * RING, sizeof(float));
  }
  cl_int err;
  cl_program program = clCreateProgramWithSource(context, 1, &svm_source, NULL, &err);
  CHECK(err);
  CHECK(clBuildProgram(program, 1, &device, "-cl-std=CL3.0", NULL, NULL));
  cl_kernel kernel = clCreateKernel(program, "advance", &err);
  CHECK(err);
  CHECK(clSetKernelArgSVMPointer(kernel, 0, particles));
  CHECK(clSetKernelArg(kernel, 1, sizeof dt, &dt));
  CHECK(clSetKernelArgSVMPointer(kernel, 2, moves));
  cl_bool system_pointers = CL_TRUE; /* the history rings are reached through the particles */
  CHECK(clSetKernelExecInfo(kernel, CL_KERNEL_EXEC_INFO_SVM_FINE_GRAIN_SYSTEM, sizeof system_pointers,
                            &system_pointers));
  size_t items = COUNT;
  for (int s = 0; s < STEPS; s++) CHECK(clEnqueueNDRangeKernel(queue, kernel, 1, NULL, &items, NULL, 0, NULL, NULL));
  CHECK(clFinish(queue));

  size_t wrong = *moves != (uint32_t)(COUNT * STEPS);
  for (int i = 0; i < COUNT; i++) {
    const struct particle *p = &particles[i];
    float x = (float)i, y = (float)-i, vx = 1.0f + (float)(i % 7);
    for (int s = 0; s < STEPS; s++) {
      x += vx * dt, y += -2.0f * dt;
      /* the last RING steps are in the ring */
      if (s >= STEPS - RING)
        wrong += p->history[2 * (s % RING)] != x || p->history[2 * (s % RING) + 1] != y;
    }
    wrong += p->x != x || p->y != y || p->steps != STEPS;
  }
  printf("system SVM: %d malloc'd particles with malloc'd history rings moved %d times by a kernel, no buffers;"
         " %u atomic moves counted; %zu wrong values\n",
         COUNT, STEPS, *moves, wrong);
  CHECK(clReleaseKernel(kernel));
  CHECK(clReleaseProgram(program));
  for (int i = 0; i < COUNT; i++) free(particles[i].history);
  free(particles);
  free(moves);
  return wrong;
}
