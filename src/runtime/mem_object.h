/* mem_object.h: memory objects: buffers, sub-buffers, images (image.h adds what an
 * image has) and pipes (pipe.c). The device shares host memory, so a buffer's
 * storage is a host address: transfers are memcpy on it and a map returns a pointer
 * into it (zero copy).
 *
 * Storage ownership is explicit so that other create paths (imported memory,
 * cl_arm_import_memory) can hand Kiln memory it must not free: `owns_storage` says
 * Kiln allocated it, otherwise `release_storage` (if set) gives it back to its owner
 * after the destructor callbacks have run. */
#ifndef KILN_RUNTIME_MEM_OBJECT_H
#define KILN_RUNTIME_MEM_OBJECT_H

#include "runtime/command.h"
#include "runtime/debug_err.h"
#include "runtime/object.h"

#include <pthread.h>
#include <stddef.h>

/* Called once when a memory object that does not own its storage is destroyed. */
typedef void (*kiln_mem_release_storage_fn)(void *storage, void *user_data);

struct kiln_mem_destructor {
  void(CL_CALLBACK *notify)(cl_mem memobj, void *user_data);
  void *user_data;
  struct kiln_mem_destructor *next; /* newest first: the spec calls them in reverse order */
};

/* A live region returned by clEnqueueMapBuffer / clEnqueueMapImage and not yet unmapped. */
struct kiln_mem_mapping {
  void *ptr;
  size_t offset, size;          /* buffers: the mapped bytes */
  size_t origin[3], region[3];  /* images: the mapped box, in the origin/region coordinates */
  cl_map_flags flags;
  struct kiln_mem_mapping *next;
};

struct _cl_mem {
  struct kiln_object obj;
  cl_context context;              /* internal reference held */
  cl_mem_object_type type;         /* CL_MEM_OBJECT_BUFFER, an image type or CL_MEM_OBJECT_PIPE */
  cl_mem_flags flags;              /* as given, plus what a sub-buffer inherited */
  size_t size;
  char *storage;                   /* first byte of this object's data */
  void *host_ptr;                  /* CL_MEM_HOST_PTR: the USE_HOST_PTR pointer (+origin), else NULL */
  bool owns_storage;               /* Kiln allocated `storage` (aligned_alloc) and frees it */
  kiln_mem_release_storage_fn release_storage; /* else: how to give it back (may be NULL) */
  void *release_storage_data;
  cl_mem parent;                   /* sub-buffers: the buffer; images: desc->mem_object (internal
                                    * reference held), else NULL */
  size_t offset;                   /* sub-buffers: origin in the parent; 0 otherwise */
  bool imported;                   /* cl_arm_import_memory: the host transfers refuse it */
  bool uses_svm_pointer;           /* a USE_HOST_PTR buffer over a clSVMAlloc allocation */
  cl_mem_properties *properties;   /* copy incl. terminating 0; NULL when none were given */
  size_t properties_count;         /* entries incl. the terminator; 0 when none */
  pthread_mutex_t lock;            /* guards destructors and mappings */
  struct kiln_mem_destructor *destructors;
  struct kiln_mem_mapping *mappings;
  cl_uint map_count;               /* under lock */
  struct kiln_image *image;        /* images (image.h): format, layout, kernel view; NULL for buffers */
};

/* What a create path decided; kiln_mem_create turns it into a registered object. */
struct kiln_mem_desc {
  cl_mem_flags flags;
  size_t size;
  void *storage;                   /* NULL: Kiln allocates `size` bytes (aligned) */
  void *host_ptr;                  /* reported by CL_MEM_HOST_PTR */
  const void *copy_from;           /* CL_MEM_COPY_HOST_PTR: initial contents */
  kiln_mem_release_storage_fn release_storage; /* for storage Kiln does not own */
  void *release_storage_data;
  cl_mem parent;                   /* sub-buffers */
  size_t offset;
  bool imported;                   /* cl_arm_import_memory */
  bool uses_svm_pointer;           /* CL_MEM_USES_SVM_POINTER */
  const cl_mem_properties *properties; /* copied; NULL when none */
  size_t properties_count;         /* entries incl. the terminator */
  cl_mem_object_type type;         /* 0: a buffer */
  struct kiln_image *image;        /* images: taken over by the object on success */
};

/* Creates a memory object in a valid context and registers it. NULL and an error
 * (CL_MEM_OBJECT_ALLOCATION_FAILURE / CL_OUT_OF_HOST_MEMORY) on failure; then the
 * storage described by `desc` has not been taken over. */
cl_mem kiln_mem_create(cl_context context, const struct kiln_mem_desc *desc, cl_int *errcode);

/* mem_flags.c: the rules of the Memory Flags table shared by every create path.
 * CL_INVALID_VALUE for unknown bits or conflicting access / host-access / host-pointer
 * flags, CL_INVALID_HOST_PTR for a host_ptr that does not match the flags. Flags
 * `extra_allowed` (set by an extension's create path) are accepted as known. */
cl_int kiln_mem_check_flags(cl_mem_flags flags, cl_mem_flags extra_allowed);
cl_int kiln_mem_check_host_ptr(cl_mem_flags flags, const void *host_ptr);
/* The flags of an object made over `parent`'s storage (a sub-buffer, an image over a
 * buffer or image): what was asked for, with unspecified access and host-access qualifiers
 * and the host-pointer flags inherited. CL_INVALID_VALUE for invalid flags, host-pointer
 * flags, or an access the parent's flags forbid. */
cl_int kiln_mem_inherit_flags(cl_mem_flags parent, cl_mem_flags flags, cl_mem_flags *result);
/* Counts the entries of a property list incl. its terminator, rejecting (with
 * CL_INVALID_PROPERTY) any name Kiln's buffers do not know. Extensions that add
 * buffer properties add their names here. */
cl_int kiln_mem_check_properties(const cl_mem_properties *properties, size_t *count);

#define KILN_MEM_ACCESS_FLAGS (CL_MEM_READ_WRITE | CL_MEM_WRITE_ONLY | CL_MEM_READ_ONLY)
#define KILN_MEM_HOST_PTR_FLAGS (CL_MEM_USE_HOST_PTR | CL_MEM_ALLOC_HOST_PTR | CL_MEM_COPY_HOST_PTR)
#define KILN_MEM_HOST_ACCESS_FLAGS (CL_MEM_HOST_WRITE_ONLY | CL_MEM_HOST_READ_ONLY | CL_MEM_HOST_NO_ACCESS)

static inline bool kiln_mem_is_valid(cl_mem mem) { return kiln_object_is_valid(mem, KILN_OBJECT_MEM); }
static inline bool kiln_mem_is_buffer(cl_mem mem) {
  return kiln_mem_is_valid(mem) && mem->type == CL_MEM_OBJECT_BUFFER;
}
/* A pipe's storage is its struct kiln_pipe (device/cpu/pipe.h; runtime/pipe.c). */
static inline bool kiln_mem_is_pipe(cl_mem mem) { return kiln_mem_is_valid(mem) && mem->type == CL_MEM_OBJECT_PIPE; }
/* The buffer a memory object's storage belongs to: itself, unless it is a sub-buffer or
 * an image over a buffer, sub-buffer or image. */
static inline cl_mem kiln_mem_root(cl_mem mem) {
  while (mem->parent) mem = mem->parent;
  return mem;
}

/* Host-access checks for enqueues: may the host read / write this object? */
static inline bool kiln_mem_host_can_read(cl_mem mem) {
  return !(mem->flags & (CL_MEM_HOST_WRITE_ONLY | CL_MEM_HOST_NO_ACCESS));
}
static inline bool kiln_mem_host_can_write(cl_mem mem) {
  return !(mem->flags & (CL_MEM_HOST_READ_ONLY | CL_MEM_HOST_NO_ACCESS));
}

/* Map commands (mem_map.c). Map flags: CL_INVALID_VALUE unless valid; CL_INVALID_OPERATION
 * when they ask for a host access the object's flags forbid. */
bool kiln_mem_map_flags_ok(cl_map_flags flags);
bool kiln_mem_map_access_ok(cl_mem mem, cl_map_flags flags);
/* Submits the map command of a validated map of `mem` (wait list checked) and records
 * `mapping` (malloc'd; taken over on success and freed on failure): CL_INVALID_OPERATION
 * when it is mapped for writing and overlaps a live write mapping. */
cl_int kiln_mem_map_submit(cl_command_queue queue, cl_mem mem, cl_command_type type, struct kiln_mem_mapping *mapping,
                           cl_bool blocking, cl_uint num_events, const cl_event *wait_list, cl_event *event);

/* CL_MISALIGNED_SUB_BUFFER_OFFSET when a sub-buffer's origin is not aligned for the
 * device (clCreateSubBuffer already refuses such origins; enqueues check again). */
cl_int kiln_mem_check_alignment(cl_mem mem);

/* True when [offset, offset + size) lies inside the object. OpenCL 3.0 makes zero-sized
 * reads, writes, copies and fills valid no-ops; callers for which size 0 is an error
 * (map, sub-buffer) check it themselves. */
static inline bool kiln_mem_range_ok(cl_mem mem, size_t offset, size_t size) {
  return offset <= mem->size && size <= mem->size - offset;
}

/* cl_arm_import_memory: read, write, copy, fill, map and unmap (and their rect and
 * command-buffer forms) refuse an imported buffer or a sub-buffer of one. */
static inline cl_int kiln_mem_check_host_transfer(cl_mem mem) {
  return kiln_mem_root(mem)->imported ? CL_INVALID_OPERATION : CL_SUCCESS;
}

/* For an enqueue on a valid queue: CL_INVALID_MEM_OBJECT unless `mem` is a live buffer,
 * CL_INVALID_CONTEXT unless it belongs to the queue's context. */
static inline cl_int kiln_mem_check_queue_buffer(cl_command_queue queue, cl_mem mem) {
  if (!kiln_mem_is_buffer(mem))
    return KILN_FAIL(CL_INVALID_MEM_OBJECT,
                     "the memory object (%p) is not a valid buffer (NULL, released, an image...)", (void *)mem);
  if (mem->context != kiln_queue_context(queue))
    return KILN_FAIL(CL_INVALID_CONTEXT, "the buffer and the command queue belong to different contexts");
  return CL_SUCCESS;
}

/* Copies region[1] rows of region[0] bytes in each of region[2] slices from `src` to
 * `dst`, each side with its own row and slice pitch (mem_transfer.c): the rectangular
 * buffer transfers, and image regions (image_region.h). Rows may overlap (memmove). */
void kiln_mem_copy_rows(char *dst, size_t dst_row_pitch, size_t dst_slice_pitch, const char *src, size_t src_row_pitch,
                        size_t src_slice_pitch, const size_t region[3]);

/* Builds a fully validated transfer command (mem_transfer.c) and hands it to `sink`:
 * `payload` is copied into the command, `a` and `b` (either may be NULL) are held until
 * it completes. Returns what kiln_command_sink_take returns. */
cl_int kiln_mem_submit(const struct kiln_command_sink *sink, cl_command_type type, kiln_command_run_fn run,
                       const void *payload, size_t payload_size, cl_mem a, cl_mem b, cl_bool blocking);

/* A linear copy's payload and run function (reads, writes, buffer copies, SVM copies):
 * memmove of `size` bytes, so the ranges may alias. */
struct kiln_mem_linear_copy {
  char *dst;
  const char *src;
  size_t size;
};
cl_int kiln_mem_run_linear_copy(struct kiln_command *command);

/* The checks and commands of clEnqueueCopyBuffer, clEnqueueCopyBufferRect and
 * clEnqueueFillBuffer after the queue check, for any sink (command buffers record them). */
cl_int kiln_mem_copy(const struct kiln_command_sink *sink, cl_mem src, cl_mem dst, size_t src_offset,
                     size_t dst_offset, size_t size);
cl_int kiln_mem_copy_rect(const struct kiln_command_sink *sink, cl_mem src, cl_mem dst, const size_t *src_origin,
                          const size_t *dst_origin, const size_t *region, size_t src_row_pitch, size_t src_slice_pitch,
                          size_t dst_row_pitch, size_t dst_slice_pitch);
/* Fill patterns (mem_fill.c): 1, 2, 4 ... 128 bytes (the largest OpenCL vector type,
 * long16 / double16); kiln_mem_fill_pattern writes `size` bytes (a multiple of
 * pattern_size) of repeated pattern at `dst`. */
#define KILN_MEM_MAX_PATTERN_BYTES 128
bool kiln_mem_fill_pattern_size_ok(size_t size);
void kiln_mem_fill_pattern(char *dst, const unsigned char *pattern, size_t pattern_size, size_t size);
cl_int kiln_mem_fill(const struct kiln_command_sink *sink, cl_mem buffer, const void *pattern, size_t pattern_size,
                     size_t offset, size_t size);

#endif
