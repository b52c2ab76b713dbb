/* dispatch_decls.h: everything the dispatch table names. Core entry points are
 * declared by CL/cl.h; the interop slots (GL, EGL, the EXT fission functions) are
 * served by Kiln-internal stubs that are not exported (interop_stubs.c). */
#ifndef KILN_ICD_DISPATCH_DECLS_H
#define KILN_ICD_DISPATCH_DECLS_H

#include <CL/cl.h>
#include <CL/cl_icd.h>

#include "runtime/object.h"

cl_mem CL_API_CALL kiln_interop_clCreateFromGLBuffer(cl_context, cl_mem_flags, cl_GLuint, int *);
cl_mem CL_API_CALL kiln_interop_clCreateFromGLTexture(cl_context, cl_mem_flags, cl_GLenum, cl_GLint, cl_GLuint,
                                                      cl_int *);
cl_mem CL_API_CALL kiln_interop_clCreateFromGLTexture2D(cl_context, cl_mem_flags, cl_GLenum, cl_GLint, cl_GLuint,
                                                        cl_int *);
cl_mem CL_API_CALL kiln_interop_clCreateFromGLTexture3D(cl_context, cl_mem_flags, cl_GLenum, cl_GLint, cl_GLuint,
                                                        cl_int *);
cl_mem CL_API_CALL kiln_interop_clCreateFromGLRenderbuffer(cl_context, cl_mem_flags, cl_GLuint, cl_int *);
cl_int CL_API_CALL kiln_interop_clGetGLObjectInfo(cl_mem, cl_gl_object_type *, cl_GLuint *);
cl_int CL_API_CALL kiln_interop_clGetGLTextureInfo(cl_mem, cl_gl_texture_info, size_t, void *, size_t *);
cl_int CL_API_CALL kiln_interop_clEnqueueAcquireGLObjects(cl_command_queue, cl_uint, const cl_mem *, cl_uint,
                                                          const cl_event *, cl_event *);
cl_int CL_API_CALL kiln_interop_clEnqueueReleaseGLObjects(cl_command_queue, cl_uint, const cl_mem *, cl_uint,
                                                          const cl_event *, cl_event *);
cl_int CL_API_CALL kiln_interop_clGetGLContextInfoKHR(const cl_context_properties *, cl_gl_context_info, size_t,
                                                      void *, size_t *);
cl_event CL_API_CALL kiln_interop_clCreateEventFromGLsyncKHR(cl_context, cl_GLsync, cl_int *);
cl_int CL_API_CALL kiln_interop_clCreateSubDevicesEXT(cl_device_id, const cl_device_partition_property_ext *,
                                                      cl_uint, cl_device_id *, cl_uint *);
cl_int CL_API_CALL kiln_interop_clRetainDeviceEXT(cl_device_id);
cl_int CL_API_CALL kiln_interop_clReleaseDeviceEXT(cl_device_id);
cl_mem CL_API_CALL kiln_interop_clCreateFromEGLImageKHR(cl_context, CLeglDisplayKHR, CLeglImageKHR, cl_mem_flags,
                                                        const cl_egl_image_properties_khr *, cl_int *);
cl_int CL_API_CALL kiln_interop_clEnqueueAcquireEGLObjectsKHR(cl_command_queue, cl_uint, const cl_mem *, cl_uint,
                                                              const cl_event *, cl_event *);
cl_int CL_API_CALL kiln_interop_clEnqueueReleaseEGLObjectsKHR(cl_command_queue, cl_uint, const cl_mem *, cl_uint,
                                                              const cl_event *, cl_event *);
cl_event CL_API_CALL kiln_interop_clCreateEventFromEGLSyncKHR(cl_context, CLeglSyncKHR, CLeglDisplayKHR, cl_int *);

#endif
