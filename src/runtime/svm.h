/* svm.h: shared virtual memory. The host and the CPU device share one address space, so
 * every allocation is host memory a kernel reads through the same pointer, and any host
 * pointer (malloc, stack, mmap) is fine-grain system SVM. The registry records the
 * allocations Kiln made (clSVMAlloc, and cl_intel_unified_shared_memory's host, device and
 * shared allocations): it answers which allocation a pointer falls in, for
 * CL_MEM_USES_SVM_POINTER, buffers over SVM pointers, clGetMemAllocInfoINTEL and the
 * checks that need an allocation's extent. */
#ifndef KILN_RUNTIME_SVM_H
#define KILN_RUNTIME_SVM_H

#include "runtime/command.h"

#include <stdbool.h>
#include <stddef.h>

enum kiln_svm_kind {
  KILN_SVM_BUFFER = 1,     /* clSVMAlloc */
  KILN_USM_HOST = 2,       /* clHostMemAllocINTEL */
  KILN_USM_DEVICE = 4,     /* clDeviceMemAllocINTEL */
  KILN_USM_SHARED = 8,     /* clSharedMemAllocINTEL */
};
#define KILN_USM_KINDS (KILN_USM_HOST | KILN_USM_DEVICE | KILN_USM_SHARED)

/* One registered allocation, as a lookup copies it out. */
struct kiln_svm_allocation {
  char *base;
  size_t size;               /* as asked (at least 1) */
  size_t alignment;          /* the alignment it was made with */
  cl_context context;        /* internal reference held while the allocation lives */
  enum kiln_svm_kind kind;
  cl_bitfield flags;         /* cl_svm_mem_flags, or the USM cl_mem_alloc_flags_intel */
  cl_device_id device;       /* USM device and shared allocations made for a device, else NULL */
};

/* The alignment an allocation gets when asked for 0: the largest OpenCL C type (long16). */
#define KILN_SVM_DEFAULT_ALIGNMENT 128

/* Allocates `size` bytes at `alignment` (0: the default; otherwise a power of two) and
 * registers them with `desc`'s context, kind, flags and device (its base and size are
 * ignored). NULL when size is 0 or beyond CL_DEVICE_MAX_MEM_ALLOC_SIZE, alignment is not a
 * power of two, or memory runs out; *errcode (when non-NULL) says which:
 * CL_INVALID_BUFFER_SIZE, CL_INVALID_VALUE or CL_OUT_OF_HOST_MEMORY. */
void *kiln_svm_allocate(const struct kiln_svm_allocation *desc, size_t size, size_t alignment, cl_int *errcode);

/* Unregisters and frees the allocation that starts at `base` in `context`, if its kind is
 * in `kinds` (a mask). False (nothing done) when there is none. */
bool kiln_svm_release(cl_context context, void *base, unsigned kinds);

/* Copies the allocation containing `pointer` (base <= pointer < base + size) into *out.
 * False when `pointer` lies in no registered allocation. */
bool kiln_svm_lookup(const void *pointer, struct kiln_svm_allocation *out);

/* Allocations registered now (tests check that frees happened). */
size_t kiln_svm_count(void);

/* The checks and commands of clEnqueueSVMMemcpy and clEnqueueSVMMemFill after the queue
 * check, for any sink (command buffers record them) and command `type` (USM's
 * clEnqueueMemcpyINTEL and clEnqueueMemFillINTEL are the same commands). */
cl_int kiln_svm_memcpy(const struct kiln_command_sink *sink, cl_command_type type, void *dst, const void *src,
                       size_t size, cl_bool blocking);
cl_int kiln_svm_memfill(const struct kiln_command_sink *sink, cl_command_type type, void *dst, const void *pattern,
                        size_t pattern_size, size_t size);
/* A command of `type` that only orders (map, unmap, migrate, advise: the memory is already
 * where the host and the device both see it), submitted after the sink's checks. */
cl_int kiln_svm_submit_sync(const struct kiln_command_sink *sink, cl_command_type type, cl_bool blocking);

#endif
