/* kernel_for_gdb.c: the program test_debug_gdb_kernel runs under gdb (gdb_session.sh,
 * kernel_session.gdb). Through the ICD loader, like a user's program: builds a program
 * with "-g", runs twice_kernel as one work-item with x = 21 (out[0] = 43), then
 * group_sum, a kernel with a barrier, as one group of 4 (out[1..4] = 21+22+23+24 = 90).
 * The kernels' lines are the ones kernel_session.gdb's checks name: keep them. */
#define CL_TARGET_OPENCL_VERSION 300
#include <CL/cl.h>

#include <stdio.h>
#include <string.h>

static const char *source =
    "__kernel void twice_kernel(__global int *out, int x) {\n" /* program.cl:1 */
    "  int twice = x * 2;\n"                                    /* program.cl:2 */
    "  out[0] = twice + 1;\n"                                   /* program.cl:3 */
    "}\n"
    "__kernel void group_sum(__global int *out, int x) {\n"    /* program.cl:5 */
    "  __local int tmp[4];\n"
    "  size_t gid = get_global_id(0);\n"
    "  tmp[gid] = x + (int)gid;\n"
    "  barrier(CLK_LOCAL_MEM_FENCE);\n"
    "  int sum = tmp[0] + tmp[1] + tmp[2] + tmp[3];\n"          /* program.cl:10 */
    "  out[1 + gid] = sum;\n"                                   /* program.cl:11 */
    "}\n";

#define CHECK(call)                                                         \
  do {                                                                      \
    cl_int check_err_ = (call);                                             \
    if (check_err_ != CL_SUCCESS) {                                         \
      fprintf(stderr, "%s:%d: %s: %d\n", __FILE__, __LINE__, #call, check_err_); \
      return 1;                                                             \
    }                                                                       \
  } while (0)

int main(void) {
  cl_platform_id platforms[16];
  cl_uint count = 0;
  CHECK(clGetPlatformIDs(16, platforms, &count));
  cl_platform_id platform = NULL;
  for (cl_uint i = 0; i < count && i < 16; i++) {
    char name[64] = {0};
    CHECK(clGetPlatformInfo(platforms[i], CL_PLATFORM_NAME, sizeof name, name, NULL));
    if (strcmp(name, "Kiln") == 0) platform = platforms[i];
  }
  if (!platform) {
    fprintf(stderr, "no Kiln platform\n");
    return 1;
  }
  cl_device_id device;
  CHECK(clGetDeviceIDs(platform, CL_DEVICE_TYPE_ALL, 1, &device, NULL));
  cl_int err;
  cl_context context = clCreateContext(NULL, 1, &device, NULL, NULL, &err);
  CHECK(err);
  cl_command_queue queue = clCreateCommandQueueWithProperties(context, device, NULL, &err);
  CHECK(err);
  cl_program program = clCreateProgramWithSource(context, 1, &source, NULL, &err);
  CHECK(err);
  CHECK(clBuildProgram(program, 1, &device, "-g", NULL, NULL));
  cl_kernel kernel = clCreateKernel(program, "twice_kernel", &err);
  if (err != CL_SUCCESS) { /* code generation failed: its log says why */
    char log[4096] = "";
    clGetProgramBuildInfo(program, device, CL_PROGRAM_BUILD_LOG, sizeof log - 1, log, NULL);
    fprintf(stderr, "clCreateKernel: %d\n%s\n", err, log);
  }
  CHECK(err);
  cl_mem out = clCreateBuffer(context, CL_MEM_WRITE_ONLY, 5 * sizeof(cl_int), NULL, &err);
  CHECK(err);
  cl_int x = 21;
  CHECK(clSetKernelArg(kernel, 0, sizeof out, &out));
  CHECK(clSetKernelArg(kernel, 1, sizeof x, &x));
  size_t one = 1, four = 4;
  CHECK(clEnqueueNDRangeKernel(queue, kernel, 1, NULL, &one, &one, 0, NULL, NULL));
  cl_kernel group_sum = clCreateKernel(program, "group_sum", &err);
  CHECK(err);
  CHECK(clSetKernelArg(group_sum, 0, sizeof out, &out));
  CHECK(clSetKernelArg(group_sum, 1, sizeof x, &x));
  CHECK(clEnqueueNDRangeKernel(queue, group_sum, 1, NULL, &four, &four, 0, NULL, NULL));
  cl_int results[5] = {0};
  CHECK(clEnqueueReadBuffer(queue, out, CL_TRUE, 0, sizeof results, results, 0, NULL, NULL));
  CHECK(clReleaseMemObject(out));
  CHECK(clReleaseKernel(group_sum));
  CHECK(clReleaseKernel(kernel));
  CHECK(clReleaseProgram(program));
  CHECK(clReleaseCommandQueue(queue));
  CHECK(clReleaseContext(context));
  printf("kernel results: %d %d %d %d %d\n", results[0], results[1], results[2], results[3], results[4]);
  for (int i = 1; i < 5; i++)
    if (results[i] != 90) return 1;
  return results[0] == 43 ? 0 : 1;
}
