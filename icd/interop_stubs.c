/* interop_stubs.c: dispatch slots for sharing extensions Kiln does not offer
 * (cl_khr_gl_sharing, cl_khr_gl_event, cl_khr_egl_image, cl_khr_egl_event,
 * cl_ext_device_fission). No Kiln context is ever created for GL or EGL sharing, so each
 * returns the error those specs give for a context or object not created for sharing. */
#include "icd/dispatch_decls.h"
#include "runtime/debug_err.h"

static cl_mem no_mem(cl_int *errcode_ret, cl_int code) {
  code = KILN_FAIL(code, "Kiln offers no GL or EGL sharing: no context was created for it");
  if (errcode_ret) *errcode_ret = code;
  return NULL;
}

cl_mem CL_API_CALL kiln_interop_clCreateFromGLBuffer(cl_context c, cl_mem_flags f, cl_GLuint b, int *e) {
  (void)c, (void)f, (void)b;
  return no_mem(e, CL_INVALID_CONTEXT);
}
cl_mem CL_API_CALL kiln_interop_clCreateFromGLTexture(cl_context c, cl_mem_flags f, cl_GLenum t, cl_GLint m,
                                                      cl_GLuint x, cl_int *e) {
  (void)c, (void)f, (void)t, (void)m, (void)x;
  return no_mem(e, CL_INVALID_CONTEXT);
}
cl_mem CL_API_CALL kiln_interop_clCreateFromGLTexture2D(cl_context c, cl_mem_flags f, cl_GLenum t, cl_GLint m,
                                                        cl_GLuint x, cl_int *e) {
  return kiln_interop_clCreateFromGLTexture(c, f, t, m, x, e);
}
cl_mem CL_API_CALL kiln_interop_clCreateFromGLTexture3D(cl_context c, cl_mem_flags f, cl_GLenum t, cl_GLint m,
                                                        cl_GLuint x, cl_int *e) {
  return kiln_interop_clCreateFromGLTexture(c, f, t, m, x, e);
}
cl_mem CL_API_CALL kiln_interop_clCreateFromGLRenderbuffer(cl_context c, cl_mem_flags f, cl_GLuint r, cl_int *e) {
  (void)c, (void)f, (void)r;
  return no_mem(e, CL_INVALID_CONTEXT);
}
cl_int CL_API_CALL kiln_interop_clGetGLObjectInfo(cl_mem m, cl_gl_object_type *t, cl_GLuint *n) {
  (void)m, (void)t, (void)n;
  return CL_INVALID_GL_OBJECT;
}
cl_int CL_API_CALL kiln_interop_clGetGLTextureInfo(cl_mem m, cl_gl_texture_info p, size_t s, void *v, size_t *r) {
  (void)m, (void)p, (void)s, (void)v, (void)r;
  return CL_INVALID_GL_OBJECT;
}
cl_int CL_API_CALL kiln_interop_clEnqueueAcquireGLObjects(cl_command_queue q, cl_uint n, const cl_mem *m, cl_uint w,
                                                          const cl_event *l, cl_event *e) {
  (void)q, (void)n, (void)m, (void)w, (void)l, (void)e;
  return CL_INVALID_CONTEXT;
}
cl_int CL_API_CALL kiln_interop_clEnqueueReleaseGLObjects(cl_command_queue q, cl_uint n, const cl_mem *m, cl_uint w,
                                                          const cl_event *l, cl_event *e) {
  return kiln_interop_clEnqueueAcquireGLObjects(q, n, m, w, l, e);
}
cl_int CL_API_CALL kiln_interop_clGetGLContextInfoKHR(const cl_context_properties *p, cl_gl_context_info n, size_t s,
                                                      void *v, size_t *r) {
  (void)p, (void)n, (void)s, (void)v, (void)r;
  return CL_INVALID_OPERATION;
}
cl_event CL_API_CALL kiln_interop_clCreateEventFromGLsyncKHR(cl_context c, cl_GLsync s, cl_int *e) {
  (void)c, (void)s;
  if (e) *e = CL_INVALID_CONTEXT;
  return NULL;
}
cl_int CL_API_CALL kiln_interop_clCreateSubDevicesEXT(cl_device_id d, const cl_device_partition_property_ext *p,
                                                      cl_uint n, cl_device_id *o, cl_uint *r) {
  (void)d, (void)p, (void)n, (void)o, (void)r;
  return CL_INVALID_OPERATION;
}
cl_int CL_API_CALL kiln_interop_clRetainDeviceEXT(cl_device_id d) { return clRetainDevice(d); }
cl_int CL_API_CALL kiln_interop_clReleaseDeviceEXT(cl_device_id d) { return clReleaseDevice(d); }
cl_mem CL_API_CALL kiln_interop_clCreateFromEGLImageKHR(cl_context c, CLeglDisplayKHR d, CLeglImageKHR i,
                                                        cl_mem_flags f, const cl_egl_image_properties_khr *p,
                                                        cl_int *e) {
  (void)c, (void)d, (void)i, (void)f, (void)p;
  return no_mem(e, CL_INVALID_CONTEXT);
}
cl_int CL_API_CALL kiln_interop_clEnqueueAcquireEGLObjectsKHR(cl_command_queue q, cl_uint n, const cl_mem *m,
                                                              cl_uint w, const cl_event *l, cl_event *e) {
  return kiln_interop_clEnqueueAcquireGLObjects(q, n, m, w, l, e);
}
cl_int CL_API_CALL kiln_interop_clEnqueueReleaseEGLObjectsKHR(cl_command_queue q, cl_uint n, const cl_mem *m,
                                                              cl_uint w, const cl_event *l, cl_event *e) {
  return kiln_interop_clEnqueueAcquireGLObjects(q, n, m, w, l, e);
}
cl_event CL_API_CALL kiln_interop_clCreateEventFromEGLSyncKHR(cl_context c, CLeglSyncKHR s, CLeglDisplayKHR d,
                                                              cl_int *e) {
  (void)d;
  return kiln_interop_clCreateEventFromGLsyncKHR(c, (cl_GLsync)s, e);
}
