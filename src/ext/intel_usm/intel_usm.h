/* src/ext/intel_usm/ — cl_intel_unified_shared_memory (1.2.0): host, device and shared
 * allocations (usm_alloc.c: allocation, properties, freeing, clGetMemAllocInfoINTEL), the
 * commands and kernel arguments that use them (usm_commands.c), and the descriptor with
 * the capability queries and exec infos (usm_extension.c).
 *
 * On a CPU the three kinds are one kind of memory: host memory that the host and the
 * kernels reach through the same pointer. They are allocated and recorded by the core's SVM
 * registry (runtime/svm.h) with their kind, device and flags, and the copies and fills are
 * the SVM commands (kiln_svm_memcpy / kiln_svm_memfill) under USM's command types. */
#ifndef KILN_EXT_INTEL_USM_H
#define KILN_EXT_INTEL_USM_H

#include <CL/cl.h>
#include <CL/cl_ext.h>

/* The largest OpenCL C type, long16 / double16: the default and the largest alignment. */
#define KILN_USM_MAX_ALIGNMENT 128u

/* The descriptor (src/ext/extensions.c lists it). */
extern const struct kiln_extension kiln_ext_intel_unified_shared_memory;

/* usm_alloc.c */
void *CL_API_CALL kiln_usm_host_alloc(cl_context context, const cl_mem_properties_intel *properties, size_t size,
                                      cl_uint alignment, cl_int *errcode_ret);
void *CL_API_CALL kiln_usm_device_alloc(cl_context context, cl_device_id device,
                                        const cl_mem_properties_intel *properties, size_t size, cl_uint alignment,
                                        cl_int *errcode_ret);
void *CL_API_CALL kiln_usm_shared_alloc(cl_context context, cl_device_id device,
                                        const cl_mem_properties_intel *properties, size_t size, cl_uint alignment,
                                        cl_int *errcode_ret);
cl_int CL_API_CALL kiln_usm_free(cl_context context, void *ptr);
cl_int CL_API_CALL kiln_usm_blocking_free(cl_context context, void *ptr);
cl_int CL_API_CALL kiln_usm_alloc_info(cl_context context, const void *ptr, cl_mem_info_intel param_name,
                                       size_t param_value_size, void *param_value, size_t *param_value_size_ret);

/* usm_commands.c */
cl_int CL_API_CALL kiln_usm_set_kernel_arg(cl_kernel kernel, cl_uint arg_index, const void *arg_value);
cl_int CL_API_CALL kiln_usm_enqueue_fill(cl_command_queue queue, void *dst_ptr, const void *pattern,
                                         size_t pattern_size, size_t size, cl_uint num_events,
                                         const cl_event *wait_list, cl_event *event);
cl_int CL_API_CALL kiln_usm_enqueue_memset(cl_command_queue queue, void *dst_ptr, cl_int value, size_t size,
                                           cl_uint num_events, const cl_event *wait_list, cl_event *event);
cl_int CL_API_CALL kiln_usm_enqueue_memcpy(cl_command_queue queue, cl_bool blocking, void *dst_ptr,
                                           const void *src_ptr, size_t size, cl_uint num_events,
                                           const cl_event *wait_list, cl_event *event);
cl_int CL_API_CALL kiln_usm_enqueue_migrate(cl_command_queue queue, const void *ptr, size_t size,
                                            cl_mem_migration_flags flags, cl_uint num_events,
                                            const cl_event *wait_list, cl_event *event);
cl_int CL_API_CALL kiln_usm_enqueue_advise(cl_command_queue queue, const void *ptr, size_t size,
                                           cl_mem_advice_intel advice, cl_uint num_events,
                                           const cl_event *wait_list, cl_event *event);

#endif
