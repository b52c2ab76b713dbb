/* demo.h: what the demo's sections share: Kiln's headers, error checks, extension
 * function lookup, and the sections defined outside kiln_demo.c. */
#ifndef KILN_DEMO_H
#define KILN_DEMO_H

#define CL_TARGET_OPENCL_VERSION 300
#include <CL/kiln_command_buffer.h> /* first: 0.9.7 declarations over older system headers */
#include <CL/cl_ext_qcom.h>
#include <CL/kiln_arm_scheduling_controls.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CHECK(call)                                                            \
  do {                                                                         \
    cl_int check_err_ = (call);                                                \
    if (check_err_ != CL_SUCCESS) {                                            \
      fprintf(stderr, "%s:%d: %s failed with %d\n", __FILE__, __LINE__, #call, \
              check_err_);                                                     \
      exit(1);                                                                 \
    }                                                                          \
  } while (0)

#define GET_FUNCTION(platform, name) ((__typeof__(&name))clGetExtensionFunctionAddressForPlatform(platform, #name))

/* image_pipeline.c: a picture in an image over a buffer, blurred through a sampler by a
 * kernel recorded in a command buffer with the copy back; returns wrong values. */
size_t image_pipeline(cl_platform_id platform, cl_device_id device, cl_context context, cl_command_queue queue);

/* system_svm.c: a kernel moves the application's malloc'd particles through fine-grain
 * system SVM, following pointers to malloc'd history rings; returns wrong values. */
size_t system_svm(cl_device_id device, cl_context context, cl_command_queue queue);

#endif
