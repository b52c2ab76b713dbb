/* kernel_abi.h: the contract between JIT-compiled code and the runtime — how a launch is
 * described to a work-group launcher, how kernel arguments are packed, and the work-item
 * intrinsics the builtin library is written against. Shared by the compiler (C++), the
 * builtins (OpenCL C, which mirrors the intrinsic names) and the NDRange executor (C). */
#ifndef KILN_DEVICE_CPU_KERNEL_ABI_H
#define KILN_DEVICE_CPU_KERNEL_ABI_H

#include <stddef.h>
#include <stdint.h>

/* One launch, read-only while it runs. Unused dimensions (>= work_dim) have
 * global_size = local_size = num_groups = 1 and global_offset = 0, so work-item
 * functions need no special case for them. */
struct kiln_ndrange {
  uint32_t work_dim;
  uint32_t flags;          /* KILN_NDRANGE_* */
  uint64_t global_offset[3];
  uint64_t global_size[3];
  uint64_t local_size[3];  /* the enqueued (uniform) local size */
  uint64_t num_groups[3];  /* ceil(global_size / local_size): the last group may be partial */
  uint64_t local_mem_bytes; /* a group's __local memory (static and argument) from local_mem on */
};

/* The launch's buffers exceed the cache: launchers use non-temporal stores where they have
 * them (compiler/streaming_stores.hpp). */
#define KILN_NDRANGE_STREAMING_STORES 1u
/* Not for launchers: the launch is the first member of a device-side enqueue command
 * (device_enqueue.c), which its batches make current for the enqueue functions. */
#define KILN_NDRANGE_ENQUEUE_COMMAND 2u

/* A work-group launcher, generated per kernel: runs the work-groups with linear ids
 * first_group .. first_group + group_count - 1 (x fastest, then y, then z), each with
 * its actual local size (smaller for the last group of a non-uniform NDRange).
 * `args` is the packed argument block; `local_mem` is this thread's block of local
 * memory, at least kiln_kernel_desc.static_local_bytes plus the dynamic local
 * arguments, aligned to KILN_LOCAL_MEM_ALIGN, with KILN_LOCAL_MEM_PADDING bytes before and
 * after it that belong to the thread as well (whole-vector accesses of local memory may
 * touch them; local_masked_access.cpp). Returns 0, or nonzero when it could not run
 * (kernels with barriers allocate their work-items' frames per call: out of memory). */
typedef int (*kiln_launcher_fn)(const void *args, const struct kiln_ndrange *ndrange, uint64_t first_group,
                                 uint64_t group_count, void *local_mem);

#define KILN_LOCAL_MEM_ALIGN 128u
#define KILN_LOCAL_MEM_PADDING 256u

/* How an argument travels in the packed block. */
enum kiln_arg_kind {
  KILN_ARG_BY_VALUE = 0,  /* scalars, vectors, structs: the bytes as clSetKernelArg gives them */
  KILN_ARG_GLOBAL_PTR,    /* cl_mem (global): the storage pointer, or NULL */
  KILN_ARG_CONSTANT_PTR,  /* cl_mem (constant): the storage pointer, or NULL */
  KILN_ARG_LOCAL_PTR,     /* __local pointer: a uint64_t byte offset into local_mem */
  KILN_ARG_SAMPLER,       /* cl_sampler: a uint64_t holding its KILN_SAMPLER_* bits */
  KILN_ARG_IMAGE,         /* cl_mem image: a pointer to its struct kiln_device_image, or NULL */
  KILN_ARG_PIPE,          /* cl_mem pipe: a pointer to its struct kiln_pipe (pipe.h) */
  KILN_ARG_QUEUE,         /* queue_t (a device cl_command_queue): its struct kiln_device_queue */
};

/* An image as a kernel sees it: the image object holds one, the argument block points
 * at it. builtins/image.cl mirrors this layout (keep them in step). Pitches are in
 * bytes: rows of a 2D or 3D image and of 2D-array layers are row_pitch apart; 3D slices
 * and the layers of both array types (1D array layers too) are slice_pitch apart.
 * Dimensions a type lacks are 1; array_size is 1 for non-array types. */
struct kiln_device_image {
  char *data; /* the element at (0, 0, 0), layer 0 */
  uint64_t row_pitch;
  uint64_t slice_pitch;
  int32_t width, height, depth, array_size;
  uint32_t channel_order;     /* CL_R ... (the CLK_* values of OpenCL C are the same) */
  uint32_t channel_data_type; /* CL_UNORM_INT8 ... */
  uint32_t element_size;      /* bytes of one element */
  uint32_t image_type;        /* CL_MEM_OBJECT_IMAGE* */
};

/* A sampler's bits as OpenCL C's sampler initializers encode them (opencl-c-base.h's
 * CLK_NORMALIZED_COORDS_*, CLK_ADDRESS_*, CLK_FILTER_*): a constant sampler_t in a
 * kernel and a cl_sampler argument reach the builtins as the same integer, so a sampler
 * known at compile time folds every decision of a read away. */
#define KILN_SAMPLER_NORMALIZED_COORDS 0x01u
#define KILN_SAMPLER_ADDRESS_MASK 0x0Eu
#define KILN_SAMPLER_ADDRESS_NONE 0x00u
#define KILN_SAMPLER_ADDRESS_CLAMP_TO_EDGE 0x02u
#define KILN_SAMPLER_ADDRESS_CLAMP 0x04u
#define KILN_SAMPLER_ADDRESS_REPEAT 0x06u
#define KILN_SAMPLER_ADDRESS_MIRRORED_REPEAT 0x08u
#define KILN_SAMPLER_FILTER_NEAREST 0x10u
#define KILN_SAMPLER_FILTER_LINEAR 0x20u

/* The work-item intrinsics (d in 0..2). The builtin library implements every OpenCL
 * work-item function on top of these; the launcher generator replaces each call with the
 * value for the current work-item, so they cost nothing after inlining. */
#define KILN_INTRINSIC_LOCAL_ID "__kiln_local_id"                       /* size_t (uint d) */
#define KILN_INTRINSIC_GROUP_ID "__kiln_group_id"                       /* size_t (uint d) */
#define KILN_INTRINSIC_LOCAL_SIZE "__kiln_local_size"                   /* size_t (uint d): actual */
#define KILN_INTRINSIC_ENQUEUED_LOCAL_SIZE "__kiln_enqueued_local_size" /* size_t (uint d) */
#define KILN_INTRINSIC_GLOBAL_SIZE "__kiln_global_size"                 /* size_t (uint d) */
#define KILN_INTRINSIC_GLOBAL_OFFSET "__kiln_global_offset"             /* size_t (uint d) */
#define KILN_INTRINSIC_NUM_GROUPS "__kiln_num_groups"                   /* size_t (uint d) */
#define KILN_INTRINSIC_WORK_DIM "__kiln_work_dim"                       /* uint (void) */
/* barrier()/work_group_barrier(): a work-group barrier with the given cl_mem_fence_flags.
 * The compiler splits kernels at these calls (continuation-based synchronization). */
#define KILN_INTRINSIC_BARRIER "__kiln_barrier"                         /* void (uint flags) */
/* An address bounding a kind of memory the running work-group may point at, as an integer
 * (size_t (uint which), which a KILN_BOUND_*): the generic address space's to_global,
 * to_local, to_private and get_fence tell where a pointer points from these. Stack
 * memory below KILN_BOUND_STACK_TOP down to the current frame is the work-item's private
 * memory, and so are the launcher call's frames (barriers); the local block is the
 * group's __local memory. The same for every work-item of the call. */
#define KILN_INTRINSIC_MEMORY_BOUND "__kiln_memory_bound"
#define KILN_BOUND_LOCAL_BEGIN 0u
#define KILN_BOUND_LOCAL_END 1u
#define KILN_BOUND_FRAMES_BEGIN 2u
#define KILN_BOUND_FRAMES_END 3u
#define KILN_BOUND_STACK_TOP 4u
/* The packed argument block's address (bounds-checked kernels find their table after it). */
#define KILN_BOUND_ARGS 5u
#define KILN_BOUND_COUNT 6u
/* The host helper the generic address space's functions call (registered with the JIT)
 * for an address outside the running group's local block and the call's frames:
 * int (uintptr_t p, uintptr_t stack_top), KILN_MEMORY_PRIVATE when p lies in the calling
 * thread's stack between its own frame and stack_top or in another worker's or a fiber's stack,
 * KILN_MEMORY_LOCAL in another thread's local block, else KILN_MEMORY_GLOBAL. */
#define KILN_MEMORY_KIND_SYMBOL "__kiln_memory_kind"
#define KILN_MEMORY_GLOBAL 0
#define KILN_MEMORY_LOCAL 1
#define KILN_MEMORY_PRIVATE 2

/* Fiber launchers (fibers.h), for kernels whose work-items may wait on each other: the
 * launcher calls int (ptr items, ptr context, uint64_t count) per group, `items` being
 * void (ptr context, uint64_t *cursor), which runs work-items cursor[NEXT], incrementing it
 * before each, while it is below cursor[END], and increments cursor[DONE] after each; in it
 * a barrier is a call of void () that waits for the group's other work-items, and a spin
 * loop's back edge a call of void () that lets them run. */
#define KILN_FIBERS_CURSOR_NEXT 0
#define KILN_FIBERS_CURSOR_END 1
#define KILN_FIBERS_CURSOR_DONE 2
#define KILN_FIBERS_RUN_GROUP_SYMBOL "__kiln_fibers_run_group"
#define KILN_FIBERS_BARRIER_SYMBOL "__kiln_fibers_barrier"
#define KILN_FIBERS_YIELD_SYMBOL "__kiln_fibers_yield"

/* Bounds-checked kernels (KILN_CHECK=bounds; device/cpu/bounds_check.h): after the packed
 * argument block, at kiln_bounds_table_offset, two uint64_t per kernel argument: `below`, the
 * bytes an access may reach before the argument's pointer, and `span`, the bytes of memory the
 * argument may reach in all (below included): a buffer's size, a __local argument's size, an
 * SVM allocation around the pointer. An access of n bytes at p is inside when
 * p - arg + below <= span - n. Arguments that are no pointers have a zero pair. An access
 * outside calls void (const char *what, int64_t offset, uint64_t size, uint64_t span,
 * uint32_t is_write, uint64_t gx, uint64_t gy, uint64_t gz) instead of accessing memory. */
#define KILN_BOUNDS_VIOLATION_SYMBOL "__kiln_bounds_violation"
static inline uint64_t kiln_bounds_table_offset(uint64_t args_block_size) { return (args_block_size + 15u) & ~(uint64_t)15u; }

#endif
