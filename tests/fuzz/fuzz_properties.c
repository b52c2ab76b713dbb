/* Property lists and the other structured arguments of object creation: the first byte
 * picks the call, the next 8 give flags and sizes, the rest is read as a list of 64-bit
 * property words (a 0 appended, so every list ends). Contexts, queues, buffers, sub-buffer
 * regions, samplers, command buffers (cl_khr_command_buffer), NDRange commands recorded
 * with a mutable handle (cl_khr_command_buffer_mutable_dispatch: their properties, in a
 * mutable command buffer or not, with a local size or not) and imported memory
 * (cl_arm_import_memory). An object created is released; a refusal must be an OpenCL
 * error code, and a recorded command's handle returns its properties as given. */
#include <CL/kiln_command_buffer.h> /* first: 0.9.7 declarations over older system headers */

#include "fuzz_common.h"

#include <CL/cl_ext.h>

#include <stdint.h>

#define MAX_WORDS 64

typedef cl_mem(CL_API_CALL *import_fn)(cl_context, cl_mem_flags, const cl_import_properties_arm *, void *, size_t,
                                        cl_int *);

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size) {
  if (size < 9) return 0;
  struct fuzz_env *env = fuzz_env();
  unsigned pick = data[0];
  uint64_t knobs;
  memcpy(&knobs, data + 1, 8);
  uint64_t words[MAX_WORDS + 2] = {0}; /* two zeros after: a list ends whether a key or a value comes last */
  size_t count = (size - 9) / 8;
  if (count > MAX_WORDS) count = MAX_WORDS;
  memcpy(words, data + 9, count * 8);
  words[count] = 0;
  static unsigned char host[4096];
  cl_int err = 12345;
  switch (pick % 8) {
  case 0: {
    cl_context c = clCreateContext((const cl_context_properties *)words, 1, &env->device, NULL, NULL, &err);
    fuzz_expect_status(err, "clCreateContext");
    if (c) FUZZ_CHECK(clReleaseContext(c));
    break;
  }
  case 1: {
    cl_command_queue q = clCreateCommandQueueWithProperties(env->context, env->device, (const cl_queue_properties *)words, &err);
    fuzz_expect_status(err, "clCreateCommandQueueWithProperties");
    if (q) FUZZ_CHECK(clReleaseCommandQueue(q));
    break;
  }
  case 2: {
    cl_mem_flags mem_flags = knobs & 0x3ff;
    size_t bytes = (knobs >> 16) % (sizeof host + 1);
    void *host_ptr = mem_flags & (CL_MEM_USE_HOST_PTR | CL_MEM_COPY_HOST_PTR) ? host : NULL;
    cl_mem m = clCreateBufferWithProperties(env->context, (const cl_mem_properties *)words, mem_flags, bytes, host_ptr, &err);
    fuzz_expect_status(err, "clCreateBufferWithProperties");
    if (m) FUZZ_CHECK(clReleaseMemObject(m));
    break;
  }
  case 3: {
    cl_mem parent = clCreateBuffer(env->context, CL_MEM_READ_WRITE, 4096, NULL, &err);
    FUZZ_CHECK(err);
    cl_buffer_region region = {(size_t)words[0], (size_t)words[1]};
    cl_mem sub = clCreateSubBuffer(parent, knobs & 0x3ff, (cl_buffer_create_type)(0x1220 + (knobs >> 32) % 3), &region, &err);
    fuzz_expect_status(err, "clCreateSubBuffer");
    if (sub) FUZZ_CHECK(clReleaseMemObject(sub));
    FUZZ_CHECK(clReleaseMemObject(parent));
    break;
  }
  case 4: {
    cl_sampler s = clCreateSamplerWithProperties(env->context, (const cl_sampler_properties *)words, &err);
    fuzz_expect_status(err, "clCreateSamplerWithProperties");
    if (s) FUZZ_CHECK(clReleaseSampler(s));
    break;
  }
  case 5: {
    static clCreateCommandBufferKHR_fn create;
    static clReleaseCommandBufferKHR_fn release;
    if (!create) {
      create = (clCreateCommandBufferKHR_fn)clGetExtensionFunctionAddressForPlatform(env->platform, "clCreateCommandBufferKHR");
      release = (clReleaseCommandBufferKHR_fn)clGetExtensionFunctionAddressForPlatform(env->platform, "clReleaseCommandBufferKHR");
      if (!create || !release) abort();
    }
    cl_command_buffer_khr cb = create(1, &env->queue, (const cl_command_buffer_properties_khr *)words, &err);
    fuzz_expect_status(err, "clCreateCommandBufferKHR");
    if (cb) FUZZ_CHECK(release(cb));
    break;
  }
  case 6: {
    static clCreateCommandBufferKHR_fn create;
    static clReleaseCommandBufferKHR_fn release;
    static clCommandNDRangeKernelKHR_fn record;
    static clGetMutableCommandInfoKHR_fn info;
    static cl_kernel kernel;
    if (!kernel) {
      create = (clCreateCommandBufferKHR_fn)clGetExtensionFunctionAddressForPlatform(env->platform, "clCreateCommandBufferKHR");
      release = (clReleaseCommandBufferKHR_fn)clGetExtensionFunctionAddressForPlatform(env->platform, "clReleaseCommandBufferKHR");
      record = (clCommandNDRangeKernelKHR_fn)clGetExtensionFunctionAddressForPlatform(env->platform, "clCommandNDRangeKernelKHR");
      info = (clGetMutableCommandInfoKHR_fn)clGetExtensionFunctionAddressForPlatform(env->platform, "clGetMutableCommandInfoKHR");
      if (!create || !release || !record || !info) abort();
      const char *source = "kernel void k(global int *p) { p[get_global_id(0)] = 1; }";
      cl_program program = clCreateProgramWithSource(env->context, 1, &source, NULL, &err);
      FUZZ_CHECK(err);
      FUZZ_CHECK(clBuildProgram(program, 1, &env->device, NULL, NULL, NULL));
      kernel = clCreateKernel(program, "k", &err);
      FUZZ_CHECK(err);
      static cl_mem out;
      out = clCreateBuffer(env->context, CL_MEM_READ_WRITE, 64 * sizeof(cl_int), NULL, &err);
      FUZZ_CHECK(err);
      FUZZ_CHECK(clSetKernelArg(kernel, 0, sizeof out, &out));
      FUZZ_CHECK(clReleaseProgram(program));
    }
    const cl_command_buffer_properties_khr cb_properties[] = {
        CL_COMMAND_BUFFER_FLAGS_KHR, knobs & 1 ? CL_COMMAND_BUFFER_MUTABLE_KHR : 0,
        CL_COMMAND_BUFFER_MUTABLE_DISPATCH_ASSERTS_KHR, (knobs >> 1) & 1, 0};
    cl_command_buffer_khr cb = create(1, &env->queue, cb_properties, &err);
    FUZZ_CHECK(err);
    const size_t global = 64, local = 8;
    cl_mutable_command_khr handle = NULL;
    err = record(cb, NULL, (const cl_command_properties_khr *)words, kernel, 1, NULL, &global,
                 (knobs >> 2) & 1 ? &local : NULL, 0, NULL, NULL, (knobs >> 3) & 1 ? NULL : &handle);
    fuzz_expect_status(err, "clCommandNDRangeKernelKHR");
    if (err == CL_SUCCESS && handle) {
      cl_command_properties_khr got[MAX_WORDS + 2];
      size_t got_size = 0;
      FUZZ_CHECK(info(handle, CL_MUTABLE_COMMAND_PROPERTIES_ARRAY_KHR, sizeof got, got, &got_size));
      size_t end = 0;
      while (words[end]) end += 2;
      if (got_size != (end + 1) * sizeof *words || memcmp(got, words, got_size) != 0) abort();
    }
    FUZZ_CHECK(release(cb));
    break;
  }
  default: {
    static import_fn import;
    if (!import) {
      import = (import_fn)clGetExtensionFunctionAddressForPlatform(env->platform, "clImportMemoryARM");
      if (!import) abort();
    }
    /* A dma-buf import reads a file descriptor at `memory`: -1, never one of ours. */
    int no_fd = -1;
    void *memory = knobs & 1 ? (void *)&no_fd : (void *)(host + (knobs >> 8) % 64);
    size_t bytes = (knobs >> 16) % (sizeof host - 64 + 1);
    cl_mem m = import(env->context, (knobs >> 40) & 0xf, (const cl_import_properties_arm *)words, memory, bytes, &err);
    fuzz_expect_status(err, "clImportMemoryARM");
    if (m) FUZZ_CHECK(clReleaseMemObject(m));
  }
  }
  return 0;
}
