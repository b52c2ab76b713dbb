/* kiln_cl.h: what every builtin library source includes (OpenCL C, compiled WITHOUT
 * clang's opencl-c.h): the scalar and vector typedefs, the overloading attributes, the
 * macros that repeat a definition over vector sizes and address spaces, and the
 * work-item intrinsics of kernel_abi.h. The mangled names of our definitions equal the
 * ones user code compiled with -finclude-default-header / -fdeclare-opencl-builtins calls. */
#ifndef KILN_CL_H
#define KILN_CL_H

#pragma OPENCL EXTENSION cl_khr_fp64 : enable
#pragma OPENCL EXTENSION cl_khr_fp16 : enable

typedef unsigned char uchar;
typedef unsigned short ushort;
typedef unsigned int uint;
typedef unsigned long ulong;
typedef __SIZE_TYPE__ size_t;
typedef __PTRDIFF_TYPE__ ptrdiff_t;
typedef __INTPTR_TYPE__ intptr_t;
typedef __UINTPTR_TYPE__ uintptr_t;

#define KILN_VECTOR_TYPES(T)                                 \
  typedef T T##2 __attribute__((ext_vector_type(2)));        \
  typedef T T##3 __attribute__((ext_vector_type(3)));        \
  typedef T T##4 __attribute__((ext_vector_type(4)));        \
  typedef T T##8 __attribute__((ext_vector_type(8)));        \
  typedef T T##16 __attribute__((ext_vector_type(16)));
KILN_VECTOR_TYPES(char)
KILN_VECTOR_TYPES(uchar)
KILN_VECTOR_TYPES(short)
KILN_VECTOR_TYPES(ushort)
KILN_VECTOR_TYPES(int)
KILN_VECTOR_TYPES(uint)
KILN_VECTOR_TYPES(long)
KILN_VECTOR_TYPES(ulong)
KILN_VECTOR_TYPES(float)
KILN_VECTOR_TYPES(double)
KILN_VECTOR_TYPES(half)

#define OVL __attribute__((overloadable))
#define OVLI __attribute__((overloadable, always_inline))

#define CHAR_BIT 8
#define FLT_MAX 0x1.fffffep127f
#define FLT_MIN 0x1.0p-126f
#define DBL_MAX 0x1.fffffffffffffp1023
#define DBL_MIN 0x1.0p-1022
#define INFINITY __builtin_inff()
#define NAN __builtin_nanf("")
#define M_PI_F 3.14159265358979323846f
#define M_PI 3.14159265358979323846

/* Memory fence flags and orders/scopes, as opencl-c-base.h numbers them (user code passes
 * these values). */
#define CLK_LOCAL_MEM_FENCE 0x01
#define CLK_GLOBAL_MEM_FENCE 0x02
#define CLK_IMAGE_MEM_FENCE 0x04
typedef uint cl_mem_fence_flags;
typedef enum memory_scope {
  memory_scope_work_item = __OPENCL_MEMORY_SCOPE_WORK_ITEM,
  memory_scope_work_group = __OPENCL_MEMORY_SCOPE_WORK_GROUP,
  memory_scope_device = __OPENCL_MEMORY_SCOPE_DEVICE,
  memory_scope_all_svm_devices = __OPENCL_MEMORY_SCOPE_ALL_SVM_DEVICES,
  memory_scope_sub_group = __OPENCL_MEMORY_SCOPE_SUB_GROUP
} memory_scope;
typedef enum memory_order {
  memory_order_relaxed = __ATOMIC_RELAXED,
  memory_order_acquire = __ATOMIC_ACQUIRE,
  memory_order_release = __ATOMIC_RELEASE,
  memory_order_acq_rel = __ATOMIC_ACQ_REL,
  memory_order_seq_cst = __ATOMIC_SEQ_CST
} memory_order;

/* Repeats M(N, args...) for every vector size. */
#define KILN_FOR_VECTOR_SIZES(M, ...) \
  M(2, __VA_ARGS__) M(3, __VA_ARGS__) M(4, __VA_ARGS__) M(8, __VA_ARGS__) M(16, __VA_ARGS__)

/* Repeats M(AS, args...) for every address space a pointer argument may have: the named
 * ones, and __generic for OpenCL C 2.0 callers (CMakeLists.txt). */
#define KILN_FOR_WRITABLE_ADDRESS_SPACES(M, ...) \
  M(__global, __VA_ARGS__) M(__local, __VA_ARGS__) M(__private, __VA_ARGS__) M(__generic, __VA_ARGS__)
#define KILN_FOR_READABLE_ADDRESS_SPACES(M, ...) \
  KILN_FOR_WRITABLE_ADDRESS_SPACES(M, __VA_ARGS__) M(__constant, __VA_ARGS__)

/* Element-wise vector versions of scalar functions: R and T are scalar type names. */
#define KILN_VMAP1_N(N, R, NAME, T) \
  OVL R##N NAME(T##N a) { R##N r; for (int i = 0; i < N; ++i) r[i] = NAME(a[i]); return r; }
#define KILN_VMAP2_N(N, R, NAME, T, U) \
  OVL R##N NAME(T##N a, U##N b) { R##N r; for (int i = 0; i < N; ++i) r[i] = NAME(a[i], b[i]); return r; }
#define KILN_VMAP3_N(N, R, NAME, T, U, V)                                             \
  OVL R##N NAME(T##N a, U##N b, V##N c) {                                             \
    R##N r; for (int i = 0; i < N; ++i) r[i] = NAME(a[i], b[i], c[i]); return r;      \
  }
#define KILN_VMAP1(R, NAME, T) KILN_FOR_VECTOR_SIZES(KILN_VMAP1_N, R, NAME, T)
#define KILN_VMAP2(R, NAME, T, U) KILN_FOR_VECTOR_SIZES(KILN_VMAP2_N, R, NAME, T, U)
#define KILN_VMAP3(R, NAME, T, U, V) KILN_FOR_VECTOR_SIZES(KILN_VMAP3_N, R, NAME, T, U, V)

/* Repeats M(T, args...) over type families. */
#define KILN_FOR_SIGNED(M, ...) M(char, __VA_ARGS__) M(short, __VA_ARGS__) M(int, __VA_ARGS__) M(long, __VA_ARGS__)
#define KILN_FOR_UNSIGNED(M, ...) \
  M(uchar, __VA_ARGS__) M(ushort, __VA_ARGS__) M(uint, __VA_ARGS__) M(ulong, __VA_ARGS__)
#define KILN_FOR_INTEGERS(M, ...) KILN_FOR_SIGNED(M, __VA_ARGS__) KILN_FOR_UNSIGNED(M, __VA_ARGS__)
#define KILN_FOR_FLOATS(M, ...) M(float, __VA_ARGS__) M(double, __VA_ARGS__)

/* Per integer type T: KILN_U(T) and KILN_S(T), its unsigned and signed counterparts, and
 * KILN_BITS_##T, its width. */
#define KILN_UNSIGNED_char uchar
#define KILN_UNSIGNED_uchar uchar
#define KILN_UNSIGNED_short ushort
#define KILN_UNSIGNED_ushort ushort
#define KILN_UNSIGNED_int uint
#define KILN_UNSIGNED_uint uint
#define KILN_UNSIGNED_long ulong
#define KILN_UNSIGNED_ulong ulong
#define KILN_SIGNED_char char
#define KILN_SIGNED_uchar char
#define KILN_SIGNED_short short
#define KILN_SIGNED_ushort short
#define KILN_SIGNED_int int
#define KILN_SIGNED_uint int
#define KILN_SIGNED_long long
#define KILN_SIGNED_ulong long
#define KILN_U_(T) KILN_UNSIGNED_##T
#define KILN_U(T) KILN_U_(T)
#define KILN_S_(T) KILN_SIGNED_##T
#define KILN_S(T) KILN_S_(T)
#define KILN_BITS_char 8
#define KILN_BITS_uchar 8
#define KILN_BITS_short 16
#define KILN_BITS_ushort 16
#define KILN_BITS_int 32
#define KILN_BITS_uint 32
#define KILN_BITS_long 64
#define KILN_BITS_ulong 64

/* Bit reinterpretation (as_type is a clang builtin for user code; not declared here). */
#define KILN_AS(T, x) __builtin_astype((x), T)

/* The work-item intrinsics (kernel_abi.h): plain C names, d in 0..2. */
size_t __kiln_local_id(uint d);
size_t __kiln_group_id(uint d);
size_t __kiln_local_size(uint d);
size_t __kiln_enqueued_local_size(uint d);
size_t __kiln_global_size(uint d);
size_t __kiln_global_offset(uint d);
size_t __kiln_num_groups(uint d);
uint __kiln_work_dim(void);
void __kiln_barrier(uint flags);
size_t __kiln_memory_bound(uint which); /* KILN_BOUND_* of kernel_abi.h */
#define KILN_BOUND_LOCAL_BEGIN 0u
#define KILN_BOUND_LOCAL_END 1u
#define KILN_BOUND_FRAMES_BEGIN 2u
#define KILN_BOUND_FRAMES_END 3u
#define KILN_BOUND_STACK_TOP 4u
#define KILN_MEMORY_GLOBAL 0 /* __kiln_memory_kind's answers (kernel_abi.h) */
#define KILN_MEMORY_LOCAL 1
#define KILN_MEMORY_PRIVATE 2

/* Collectives (work_group.cl, pipes.cl): the group's scratch the enqueue reserves after the
 * kernel's local memory (kiln_kernel_desc.uses_work_group_scratch), as an array of T. */
#define KILN_GROUP_SCRATCH(T) ((__local T *)((__kiln_memory_bound(KILN_BOUND_LOCAL_END) + 7) & ~(size_t)7))

/* The work-item that combines or acts for its group. Three compares on the ids rather than
 * a linear id == 0: a guard on the x id is what the compiler's idle-work-item bound
 * recognizes (vectorization.md), so what it guards runs once for the row, not under a mask
 * for every vector of it. */
static inline bool kiln_first_work_item(void) {
  return __kiln_local_id(0) == 0 && __kiln_local_id(1) == 0 && __kiln_local_id(2) == 0;
}

#endif
