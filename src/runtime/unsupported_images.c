/* unsupported_images.c: image, sampler and pipe entry points. The CPU device reports
 * CL_DEVICE_IMAGE_SUPPORT and CL_DEVICE_PIPE_SUPPORT as CL_FALSE, so no image, sampler
 * or pipe can ever exist: creation fails with CL_INVALID_OPERATION after the context is
 * validated, and every query or enqueue on such an object finds no valid object. */
#include "runtime/command.h"
#include "runtime/context.h"

static void *fail(cl_int *errcode_ret, cl_int code) {
  if (errcode_ret) *errcode_ret = code;
  return NULL;
}

/* Creation in a valid context whose device lacks images / pipes. */
static void *create_unsupported(cl_context context, cl_int *errcode_ret) {
  return fail(errcode_ret, kiln_context_is_valid(context) ? CL_INVALID_OPERATION : CL_INVALID_CONTEXT);
}

/* An enqueue naming image objects: the queue and every handle are validated first;
 * a live memory object is necessarily a buffer, and the device cannot run image
 * commands at all, which the spec reports as CL_INVALID_OPERATION. */
static cl_int enqueue_unsupported(cl_command_queue queue, cl_mem a, cl_mem b) {
  if (!kiln_queue_is_valid(queue)) return CL_INVALID_COMMAND_QUEUE;
  if (!kiln_object_is_valid(a, KILN_OBJECT_MEM)) return CL_INVALID_MEM_OBJECT;
  if (b != a && !kiln_object_is_valid(b, KILN_OBJECT_MEM)) return CL_INVALID_MEM_OBJECT;
  return CL_INVALID_OPERATION;
}

CL_API_ENTRY cl_mem CL_API_CALL clCreateImage(cl_context context, cl_mem_flags flags, const cl_image_format *format,
                                              const cl_image_desc *desc, void *host_ptr, cl_int *errcode_ret) {
  KILN_API_CALL;
  (void)flags, (void)format, (void)desc, (void)host_ptr;
  return create_unsupported(context, errcode_ret);
}

CL_API_ENTRY cl_mem CL_API_CALL clCreateImageWithProperties(cl_context context, const cl_mem_properties *properties,
                                                            cl_mem_flags flags, const cl_image_format *format,
                                                            const cl_image_desc *desc, void *host_ptr,
                                                            cl_int *errcode_ret) {
  KILN_API_CALL;
  (void)properties, (void)flags, (void)format, (void)desc, (void)host_ptr;
  return create_unsupported(context, errcode_ret);
}

CL_API_ENTRY cl_mem CL_API_CALL clCreateImage2D(cl_context context, cl_mem_flags flags, const cl_image_format *format,
                                                size_t width, size_t height, size_t row_pitch, void *host_ptr,
                                                cl_int *errcode_ret) {
  KILN_API_CALL;
  (void)flags, (void)format, (void)width, (void)height, (void)row_pitch, (void)host_ptr;
  return create_unsupported(context, errcode_ret);
}

CL_API_ENTRY cl_mem CL_API_CALL clCreateImage3D(cl_context context, cl_mem_flags flags, const cl_image_format *format,
                                                size_t width, size_t height, size_t depth, size_t row_pitch,
                                                size_t slice_pitch, void *host_ptr, cl_int *errcode_ret) {
  KILN_API_CALL;
  (void)flags, (void)format, (void)width, (void)height, (void)depth, (void)row_pitch, (void)slice_pitch;
  (void)host_ptr;
  return create_unsupported(context, errcode_ret);
}

static bool image_type_is_valid(cl_mem_object_type type) {
  switch (type) {
  case CL_MEM_OBJECT_IMAGE1D:
  case CL_MEM_OBJECT_IMAGE1D_BUFFER:
  case CL_MEM_OBJECT_IMAGE2D:
  case CL_MEM_OBJECT_IMAGE3D:
  case CL_MEM_OBJECT_IMAGE1D_ARRAY:
  case CL_MEM_OBJECT_IMAGE2D_ARRAY:
    return true;
  default:
    return false;
  }
}

CL_API_ENTRY cl_int CL_API_CALL clGetSupportedImageFormats(cl_context context, cl_mem_flags flags,
                                                           cl_mem_object_type image_type, cl_uint num_entries,
                                                           cl_image_format *image_formats,
                                                           cl_uint *num_image_formats) {
  KILN_API_CALL;
  if (!kiln_context_is_valid(context)) return CL_INVALID_CONTEXT;
  const cl_mem_flags known = CL_MEM_READ_WRITE | CL_MEM_WRITE_ONLY | CL_MEM_READ_ONLY | CL_MEM_USE_HOST_PTR |
                             CL_MEM_ALLOC_HOST_PTR | CL_MEM_COPY_HOST_PTR | CL_MEM_HOST_WRITE_ONLY |
                             CL_MEM_HOST_READ_ONLY | CL_MEM_HOST_NO_ACCESS | CL_MEM_KERNEL_READ_AND_WRITE;
  if (flags & ~known) return CL_INVALID_VALUE;
  if (!image_type_is_valid(image_type)) return CL_INVALID_VALUE;
  if (num_entries == 0 && image_formats) return CL_INVALID_VALUE;
  if (num_image_formats) *num_image_formats = 0; /* the device supports no image format */
  return CL_SUCCESS;
}

CL_API_ENTRY cl_int CL_API_CALL clGetImageInfo(cl_mem image, cl_image_info param_name, size_t param_value_size,
                                               void *param_value, size_t *param_value_size_ret) {
  KILN_API_CALL;
  (void)image, (void)param_name, (void)param_value_size, (void)param_value, (void)param_value_size_ret;
  return CL_INVALID_MEM_OBJECT;
}

CL_API_ENTRY cl_int CL_API_CALL clEnqueueReadImage(cl_command_queue queue, cl_mem image, cl_bool blocking,
                                                   const size_t *origin, const size_t *region, size_t row_pitch,
                                                   size_t slice_pitch, void *ptr, cl_uint num_events,
                                                   const cl_event *wait_list, cl_event *event) {
  KILN_API_CALL;
  (void)blocking, (void)origin, (void)region, (void)row_pitch, (void)slice_pitch, (void)ptr;
  (void)num_events, (void)wait_list, (void)event;
  return enqueue_unsupported(queue, image, image);
}

CL_API_ENTRY cl_int CL_API_CALL clEnqueueWriteImage(cl_command_queue queue, cl_mem image, cl_bool blocking,
                                                    const size_t *origin, const size_t *region, size_t row_pitch,
                                                    size_t slice_pitch, const void *ptr, cl_uint num_events,
                                                    const cl_event *wait_list, cl_event *event) {
  KILN_API_CALL;
  (void)blocking, (void)origin, (void)region, (void)row_pitch, (void)slice_pitch, (void)ptr;
  (void)num_events, (void)wait_list, (void)event;
  return enqueue_unsupported(queue, image, image);
}

CL_API_ENTRY cl_int CL_API_CALL clEnqueueCopyImage(cl_command_queue queue, cl_mem src, cl_mem dst,
                                                   const size_t *src_origin, const size_t *dst_origin,
                                                   const size_t *region, cl_uint num_events,
                                                   const cl_event *wait_list, cl_event *event) {
  KILN_API_CALL;
  (void)src_origin, (void)dst_origin, (void)region, (void)num_events, (void)wait_list, (void)event;
  return enqueue_unsupported(queue, src, dst);
}

CL_API_ENTRY cl_int CL_API_CALL clEnqueueCopyImageToBuffer(cl_command_queue queue, cl_mem src, cl_mem dst,
                                                           const size_t *src_origin, const size_t *region,
                                                           size_t dst_offset, cl_uint num_events,
                                                           const cl_event *wait_list, cl_event *event) {
  KILN_API_CALL;
  (void)src_origin, (void)region, (void)dst_offset, (void)num_events, (void)wait_list, (void)event;
  return enqueue_unsupported(queue, src, dst);
}

CL_API_ENTRY cl_int CL_API_CALL clEnqueueCopyBufferToImage(cl_command_queue queue, cl_mem src, cl_mem dst,
                                                           size_t src_offset, const size_t *dst_origin,
                                                           const size_t *region, cl_uint num_events,
                                                           const cl_event *wait_list, cl_event *event) {
  KILN_API_CALL;
  (void)src_offset, (void)dst_origin, (void)region, (void)num_events, (void)wait_list, (void)event;
  return enqueue_unsupported(queue, src, dst);
}

CL_API_ENTRY void *CL_API_CALL clEnqueueMapImage(cl_command_queue queue, cl_mem image, cl_bool blocking,
                                                 cl_map_flags map_flags, const size_t *origin, const size_t *region,
                                                 size_t *row_pitch, size_t *slice_pitch, cl_uint num_events,
                                                 const cl_event *wait_list, cl_event *event, cl_int *errcode_ret) {
  KILN_API_CALL;
  (void)blocking, (void)map_flags, (void)origin, (void)region, (void)row_pitch, (void)slice_pitch;
  (void)num_events, (void)wait_list, (void)event;
  return fail(errcode_ret, enqueue_unsupported(queue, image, image));
}

CL_API_ENTRY cl_int CL_API_CALL clEnqueueFillImage(cl_command_queue queue, cl_mem image, const void *fill_color,
                                                   const size_t *origin, const size_t *region, cl_uint num_events,
                                                   const cl_event *wait_list, cl_event *event) {
  KILN_API_CALL;
  (void)fill_color, (void)origin, (void)region, (void)num_events, (void)wait_list, (void)event;
  return enqueue_unsupported(queue, image, image);
}

CL_API_ENTRY cl_sampler CL_API_CALL clCreateSampler(cl_context context, cl_bool normalized_coords,
                                                    cl_addressing_mode addressing_mode, cl_filter_mode filter_mode,
                                                    cl_int *errcode_ret) {
  KILN_API_CALL;
  (void)normalized_coords, (void)addressing_mode, (void)filter_mode;
  return create_unsupported(context, errcode_ret);
}

CL_API_ENTRY cl_sampler CL_API_CALL clCreateSamplerWithProperties(cl_context context,
                                                                  const cl_sampler_properties *properties,
                                                                  cl_int *errcode_ret) {
  KILN_API_CALL;
  (void)properties;
  return create_unsupported(context, errcode_ret);
}

CL_API_ENTRY cl_int CL_API_CALL clRetainSampler(cl_sampler sampler) {
  KILN_API_CALL;
  (void)sampler;
  return CL_INVALID_SAMPLER;
}

CL_API_ENTRY cl_int CL_API_CALL clReleaseSampler(cl_sampler sampler) {
  KILN_API_CALL;
  (void)sampler;
  return CL_INVALID_SAMPLER;
}

CL_API_ENTRY cl_int CL_API_CALL clGetSamplerInfo(cl_sampler sampler, cl_sampler_info param_name,
                                                 size_t param_value_size, void *param_value,
                                                 size_t *param_value_size_ret) {
  KILN_API_CALL;
  (void)sampler, (void)param_name, (void)param_value_size, (void)param_value, (void)param_value_size_ret;
  return CL_INVALID_SAMPLER;
}

CL_API_ENTRY cl_mem CL_API_CALL clCreatePipe(cl_context context, cl_mem_flags flags, cl_uint packet_size,
                                             cl_uint max_packets, const cl_pipe_properties *properties,
                                             cl_int *errcode_ret) {
  KILN_API_CALL;
  (void)flags, (void)packet_size, (void)max_packets, (void)properties;
  return create_unsupported(context, errcode_ret);
}

CL_API_ENTRY cl_int CL_API_CALL clGetPipeInfo(cl_mem pipe, cl_pipe_info param_name, size_t param_value_size,
                                              void *param_value, size_t *param_value_size_ret) {
  KILN_API_CALL;
  (void)pipe, (void)param_name, (void)param_value_size, (void)param_value, (void)param_value_size_ret;
  return CL_INVALID_MEM_OBJECT;
}
