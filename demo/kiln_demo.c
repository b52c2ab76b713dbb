/* kiln_demo: an ordinary OpenCL program (linked against the system ICD loader) that
 * finds the Kiln platform, prints what it reports, moves data through buffers with events
 * across two queues, runs a kernel with barriers, records a copy / kernel / copy
 * pipeline into a command buffer (cl_khr_command_buffer) that it replays frame after
 * frame with the kernel's multiplier updated between frames
 * (cl_khr_command_buffer_mutable_dispatch), records two kernels on a recordable queue (cl_qcom_recordable_queues) that it
 * replays with an argument and a size changed, imports a malloc'd array
 * (cl_arm_import_memory) that a kernel updates in place, and runs one kernel under Arm's
 * scheduling controls (cl_arm_scheduling_controls: a compute-unit limit, a work-group
 * batch size), showing Kiln's scheduling trace, and runs a kernel on a compute-family
 * queue while a copy-family queue copies a large buffer (cl_intel_command_queue_families),
 * and blurs a picture held in an image over a buffer through a sampler in a command
 * buffer (image_pipeline.c), and moves malloc'd particles through fine-grain system SVM
 * (system_svm.c), checking every value it gets back. */
#include "demo.h"

#include <time.h>
#include <unistd.h>

static cl_platform_id find_kiln(void) {
  cl_uint count = 0;
  CHECK(clGetPlatformIDs(0, NULL, &count));
  cl_platform_id *platforms = calloc(count, sizeof *platforms);
  CHECK(clGetPlatformIDs(count, platforms, NULL));
  cl_platform_id found = NULL;
  for (cl_uint i = 0; i < count && !found; i++) {
    char name[128];
    CHECK(clGetPlatformInfo(platforms[i], CL_PLATFORM_NAME, sizeof name, name, NULL));
    if (strcmp(name, "Kiln") == 0) found = platforms[i];
  }
  free(platforms);
  return found;
}

/* cl_khr_command_buffer: "copy the frame in, transform it, copy it out" is recorded once,
 * with sync points between the steps, and replayed for every frame; the kernel is a
 * mutable dispatch (cl_khr_command_buffer_mutable_dispatch) whose multiplier changes
 * between frames without re-recording. Returns wrong values. */
static size_t command_buffer_frames(cl_platform_id platform, cl_device_id device, cl_context context,
                                    cl_command_queue queue) {
  char extensions[4096];
  CHECK(clGetDeviceInfo(device, CL_DEVICE_EXTENSIONS, sizeof extensions, extensions, NULL));
  __typeof__(&clCreateCommandBufferKHR) create = GET_FUNCTION(platform, clCreateCommandBufferKHR);
  __typeof__(&clCommandCopyBufferKHR) record_copy = GET_FUNCTION(platform, clCommandCopyBufferKHR);
  __typeof__(&clCommandNDRangeKernelKHR) record_kernel = GET_FUNCTION(platform, clCommandNDRangeKernelKHR);
  __typeof__(&clFinalizeCommandBufferKHR) finalize = GET_FUNCTION(platform, clFinalizeCommandBufferKHR);
  __typeof__(&clEnqueueCommandBufferKHR) enqueue = GET_FUNCTION(platform, clEnqueueCommandBufferKHR);
  __typeof__(&clReleaseCommandBufferKHR) release = GET_FUNCTION(platform, clReleaseCommandBufferKHR);
  __typeof__(&clUpdateMutableCommandsKHR) update = GET_FUNCTION(platform, clUpdateMutableCommandsKHR);
  if (!strstr(extensions, "cl_khr_command_buffer_mutable_dispatch") || !create || !record_copy || !record_kernel ||
      !finalize || !enqueue || !release || !update) {
    fprintf(stderr, "kiln_demo: cl_khr_command_buffer or cl_khr_command_buffer_mutable_dispatch missing\n");
    return 1;
  }
  static const char *source = "kernel void transform(global uint *v, uint k) { size_t i = get_global_id(0);"
                              " v[i] = v[i] * k + (uint)i; }\n";
  cl_int err;
  cl_program program = clCreateProgramWithSource(context, 1, &source, NULL, &err);
  CHECK(err);
  CHECK(clBuildProgram(program, 1, &device, NULL, NULL, NULL));
  cl_kernel kernel = clCreateKernel(program, "transform", &err);
  CHECK(err);
  enum { ITEMS = 1 << 16, FRAMES = 8 };
  size_t bytes = ITEMS * sizeof(cl_uint), items = ITEMS;
  cl_mem in = clCreateBuffer(context, CL_MEM_READ_ONLY, bytes, NULL, &err);
  CHECK(err);
  cl_mem work = clCreateBuffer(context, CL_MEM_READ_WRITE, bytes, NULL, &err);
  CHECK(err);
  cl_mem out = clCreateBuffer(context, CL_MEM_WRITE_ONLY, bytes, NULL, &err);
  CHECK(err);
  cl_uint k = 3;
  CHECK(clSetKernelArg(kernel, 0, sizeof work, &work));
  CHECK(clSetKernelArg(kernel, 1, sizeof k, &k));

  const cl_command_buffer_properties_khr mutable[] = {CL_COMMAND_BUFFER_FLAGS_KHR, CL_COMMAND_BUFFER_MUTABLE_KHR, 0};
  cl_command_buffer_khr frames = create(1, &queue, mutable, &err);
  CHECK(err);
  cl_sync_point_khr copied_in, transformed;
  cl_mutable_command_khr transform = NULL;
  const cl_command_properties_khr arguments_only[] = {CL_MUTABLE_DISPATCH_UPDATABLE_FIELDS_KHR,
                                                      CL_MUTABLE_DISPATCH_ARGUMENTS_KHR, 0};
  CHECK(record_copy(frames, NULL, NULL, in, work, 0, 0, bytes, 0, NULL, &copied_in, NULL));
  CHECK(record_kernel(frames, NULL, arguments_only, kernel, 1, NULL, &items, NULL, 1, &copied_in, &transformed,
                      &transform));
  CHECK(record_copy(frames, NULL, NULL, work, out, 0, 0, bytes, 1, &transformed, NULL, NULL));
  CHECK(finalize(frames));
  k = 1000; /* arguments were captured when the kernel was recorded: the replays use 3, then the updates' */
  CHECK(clSetKernelArg(kernel, 1, sizeof k, &k));

  cl_uint *frame = malloc(bytes), *result = malloc(bytes);
  size_t wrong = 0;
  for (cl_uint f = 0; f < FRAMES; f++) {
    cl_uint multiplier = 3 + 2 * f;
    if (f > 0) { /* frame f multiplies by 3 + 2f: one argument of the recorded kernel updated */
      cl_mutable_dispatch_arg_khr arg = {1, sizeof multiplier, &multiplier};
      cl_mutable_dispatch_config_khr config = {.command = transform, .num_args = 1, .arg_list = &arg};
      const cl_command_buffer_update_type_khr type = CL_STRUCTURE_TYPE_MUTABLE_DISPATCH_CONFIG_KHR;
      const void *configs[1] = {&config};
      CHECK(update(frames, 1, &type, configs));
    }
    for (cl_uint i = 0; i < ITEMS; i++) frame[i] = f * 7919u + i * 31u;
    CHECK(clEnqueueWriteBuffer(queue, in, CL_FALSE, 0, bytes, frame, 0, NULL, NULL));
    CHECK(enqueue(0, NULL, frames, 0, NULL, NULL));
    CHECK(clEnqueueReadBuffer(queue, out, CL_TRUE, 0, bytes, result, 0, NULL, NULL));
    for (cl_uint i = 0; i < ITEMS; i++) wrong += result[i] != frame[i] * multiplier + i;
  }
  printf("command buffer: copy / kernel / copy recorded once, replayed for %d frames of %d values, the kernel's "
         "multiplier updated between frames (3, 5, ... %d); %zu wrong values\n",
         FRAMES, ITEMS, 3 + 2 * (FRAMES - 1), wrong);
  free(frame);
  free(result);
  CHECK(release(frames));
  CHECK(clReleaseMemObject(in));
  CHECK(clReleaseMemObject(work));
  CHECK(clReleaseMemObject(out));
  CHECK(clReleaseKernel(kernel));
  CHECK(clReleaseProgram(program));
  return wrong;
}

/* cl_qcom_recordable_queues: "scale then offset" recorded once on a recordable queue,
 * replayed as is, then with the first dispatch reading another buffer over fewer items.
 * Returns wrong values. */
static size_t recording_replays(cl_platform_id platform, cl_device_id device, cl_context context,
                                cl_command_queue queue) {
  clNewRecordingQCOM_fn new_recording = (clNewRecordingQCOM_fn)GET_FUNCTION(platform, clNewRecordingQCOM);
  clEndRecordingQCOM_fn end_recording = (clEndRecordingQCOM_fn)GET_FUNCTION(platform, clEndRecordingQCOM);
  clEnqueueRecordingQCOM_fn enqueue = (clEnqueueRecordingQCOM_fn)GET_FUNCTION(platform, clEnqueueRecordingQCOM);
  clReleaseRecordingQCOM_fn release = (clReleaseRecordingQCOM_fn)GET_FUNCTION(platform, clReleaseRecordingQCOM);
  if (!new_recording || !end_recording || !enqueue || !release) {
    fprintf(stderr, "kiln_demo: cl_qcom_recordable_queues missing\n");
    return 1;
  }
  static const char *source =
      "kernel void scale(global const int *in, global int *out, int k) { size_t i = get_global_id(0); out[i] = in[i] * k; }\n"
      "kernel void offset(global int *v, int d) { v[get_global_id(0)] += d; }\n";
  cl_int err;
  cl_program program = clCreateProgramWithSource(context, 1, &source, NULL, &err);
  CHECK(err);
  CHECK(clBuildProgram(program, 1, &device, NULL, NULL, NULL));
  cl_kernel scale = clCreateKernel(program, "scale", &err);
  CHECK(err);
  cl_kernel offset = clCreateKernel(program, "offset", &err);
  CHECK(err);
  enum { ITEMS = 4096, FEWER = 1024 };
  cl_int in1[ITEMS], in2[ITEMS], out[ITEMS];
  for (int i = 0; i < ITEMS; i++) in1[i] = i, in2[i] = 7 * i;
  cl_mem a = clCreateBuffer(context, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, sizeof in1, in1, &err);
  CHECK(err);
  cl_mem b = clCreateBuffer(context, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, sizeof in2, in2, &err);
  CHECK(err);
  cl_mem result = clCreateBuffer(context, CL_MEM_READ_WRITE, sizeof out, NULL, &err);
  CHECK(err);
  cl_int k = 3, d = 5;
  CHECK(clSetKernelArg(scale, 0, sizeof a, &a));
  CHECK(clSetKernelArg(scale, 1, sizeof result, &result));
  CHECK(clSetKernelArg(scale, 2, sizeof k, &k));
  CHECK(clSetKernelArg(offset, 0, sizeof result, &result));
  CHECK(clSetKernelArg(offset, 1, sizeof d, &d));

  cl_queue_properties recordable_properties[] = {CL_QUEUE_PROPERTIES, CL_QUEUE_RECORDABLE_QCOM, 0};
  cl_command_queue recordable = clCreateCommandQueueWithProperties(context, device, recordable_properties, &err);
  CHECK(err);
  cl_recording_qcom recording = new_recording(recordable, &err);
  CHECK(err);
  size_t items = ITEMS;
  CHECK(clEnqueueNDRangeKernel(recordable, scale, 1, NULL, &items, NULL, 0, NULL, NULL));
  CHECK(clEnqueueNDRangeKernel(recordable, offset, 1, NULL, &items, NULL, 0, NULL, NULL));
  CHECK(end_recording(recording));

  size_t wrong = 0;
  CHECK(enqueue(queue, recording, 0, NULL, 0, NULL, 0, NULL, 0, NULL, 0, NULL, NULL));
  CHECK(clEnqueueReadBuffer(queue, result, CL_TRUE, 0, sizeof out, out, 0, NULL, NULL));
  for (int i = 0; i < ITEMS; i++) wrong += out[i] != in1[i] * 3 + 5;
  /* Dispatch 0 now reads b over the first FEWER items; dispatch 1 is unchanged. */
  cl_array_arg_qcom new_input = {0, 0, sizeof b, &b};
  size_t fewer = FEWER;
  cl_workgroup_qcom new_size = {0, &fewer};
  CHECK(enqueue(queue, recording, 1, &new_input, 0, NULL, 1, &new_size, 0, NULL, 0, NULL, NULL));
  CHECK(clEnqueueReadBuffer(queue, result, CL_TRUE, 0, sizeof out, out, 0, NULL, NULL));
  for (int i = 0; i < ITEMS; i++) wrong += out[i] != (i < FEWER ? in2[i] * 3 + 5 : in1[i] * 3 + 10);
  printf("recording: 2 kernels recorded on a recordable queue, replayed, then replayed with a new input and size;"
         " %zu wrong values\n", wrong);
  CHECK(release(recording));
  CHECK(clReleaseCommandQueue(recordable));
  CHECK(clReleaseMemObject(a));
  CHECK(clReleaseMemObject(b));
  CHECK(clReleaseMemObject(result));
  CHECK(clReleaseKernel(scale));
  CHECK(clReleaseKernel(offset));
  CHECK(clReleaseProgram(program));
  return wrong;
}

/* cl_arm_import_memory: a kernel squares, in place, an array the application allocated;
 * the host reads the results in its own memory, and a read through the buffer is refused
 * (imported memory is not copied in or out, ever). Returns wrong values. */
typedef cl_mem(CL_API_CALL *import_memory_fn)(cl_context, cl_mem_flags, const cl_import_properties_arm *, void *,
                                              size_t, cl_int *);
static size_t imported_memory(cl_platform_id platform, cl_device_id device, cl_context context,
                              cl_command_queue queue) {
  import_memory_fn import = (import_memory_fn)clGetExtensionFunctionAddressForPlatform(platform, "clImportMemoryARM");
  if (!import) {
    fprintf(stderr, "kiln_demo: cl_arm_import_memory missing\n");
    return 1;
  }
  enum { ITEMS = 10000 };
  cl_int *values = malloc(ITEMS * sizeof *values);
  for (int i = 0; i < ITEMS; i++) values[i] = i - 5000;
  cl_int err;
  cl_mem imported = import(context, CL_MEM_READ_WRITE, NULL, values, ITEMS * sizeof *values, &err);
  CHECK(err);
  static const char *source = "kernel void square(global int *v) { size_t i = get_global_id(0); v[i] *= v[i]; }\n";
  cl_program program = clCreateProgramWithSource(context, 1, &source, NULL, &err);
  CHECK(err);
  CHECK(clBuildProgram(program, 1, &device, NULL, NULL, NULL));
  cl_kernel kernel = clCreateKernel(program, "square", &err);
  CHECK(err);
  CHECK(clSetKernelArg(kernel, 0, sizeof imported, &imported));
  size_t items = ITEMS;
  CHECK(clEnqueueNDRangeKernel(queue, kernel, 1, NULL, &items, NULL, 0, NULL, NULL));
  CHECK(clFinish(queue));
  size_t wrong = 0;
  for (int i = 0; i < ITEMS; i++) wrong += values[i] != (i - 5000) * (i - 5000);
  cl_int first = 0;
  cl_int refused = clEnqueueReadBuffer(queue, imported, CL_TRUE, 0, sizeof first, &first, 0, NULL, NULL);
  wrong += refused != CL_INVALID_OPERATION;
  printf("imported memory: a kernel squared %d values in the application's own array; %zu wrong values"
         " (clEnqueueReadBuffer on it: %s)\n", ITEMS, wrong,
         refused == CL_INVALID_OPERATION ? "CL_INVALID_OPERATION, as on Mali" : "unexpected");
  CHECK(clReleaseMemObject(imported));
  CHECK(clReleaseKernel(kernel));
  CHECK(clReleaseProgram(program));
  free(values); /* Kiln never frees imported memory */
  return wrong;
}

static double now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

/* The demo's trace file (KILN_TRACE=sched, set in main before Kiln loads). */
static char trace_path[] = "/tmp/kiln_demo_trace_XXXXXX";

static long trace_end(void) {
  FILE *trace = fopen(trace_path, "r");
  if (!trace) return 0;
  fseek(trace, 0, SEEK_END);
  long end = ftell(trace);
  fclose(trace);
  return end;
}

/* Prints the trace lines written since `offset`. */
static void print_trace_since(long offset) {
  FILE *trace = fopen(trace_path, "r");
  if (!trace) return;
  fseek(trace, offset, SEEK_SET);
  char line[512];
  while (fgets(line, sizeof line, trace)) printf("    %s", line);
  fclose(trace);
}

/* cl_arm_scheduling_controls: a compute-bound kernel on a queue limited to one compute
 * unit, then on an unlimited one with Kiln's own batches (shrinking as the range is used
 * up), then with a work-group batch size of 4 set through clSetKernelExecInfo; the trace
 * shows what the scheduler ran. Returns wrong values. */
static size_t scheduling_controls(cl_device_id device, cl_context context) {
  cl_device_scheduling_controls_capabilities_arm controls = 0;
  CHECK(clGetDeviceInfo(device, CL_DEVICE_SCHEDULING_CONTROLS_CAPABILITIES_ARM, sizeof controls, &controls, NULL));
  const cl_device_scheduling_controls_capabilities_arm wanted =
      CL_DEVICE_SCHEDULING_COMPUTE_UNIT_LIMIT_ARM | CL_DEVICE_SCHEDULING_WORKGROUP_BATCH_SIZE_ARM;
  if ((controls & wanted) != wanted) {
    fprintf(stderr, "kiln_demo: cl_arm_scheduling_controls missing\n");
    return 1;
  }
  static const char *source = "kernel void hash(global uint *out) { uint x = (uint)get_global_id(0);"
                              " for (int k = 0; k < 2000; k++) { x = x * 1664525u + 1013904223u; x ^= x >> 13; }"
                              " out[get_global_id(0)] = x; }\n";
  cl_int err;
  cl_program program = clCreateProgramWithSource(context, 1, &source, NULL, &err);
  CHECK(err);
  CHECK(clBuildProgram(program, 1, &device, NULL, NULL, NULL));
  cl_kernel kernel = clCreateKernel(program, "hash", &err);
  CHECK(err);
  enum { ITEMS = 1 << 16 };
  cl_mem out = clCreateBuffer(context, CL_MEM_WRITE_ONLY, ITEMS * sizeof(cl_uint), NULL, &err);
  CHECK(err);
  CHECK(clSetKernelArg(kernel, 0, sizeof out, &out));
  cl_queue_properties one_unit[] = {CL_QUEUE_COMPUTE_UNIT_LIMIT_ARM, 1, 0};
  cl_command_queue queues[2];
  queues[0] = clCreateCommandQueueWithProperties(context, device, one_unit, &err);
  CHECK(err);
  queues[1] = clCreateCommandQueueWithProperties(context, device, NULL, &err);
  CHECK(err);
  cl_uint *values = malloc(ITEMS * sizeof *values);
  size_t items = ITEMS, local = 64, wrong = 0;
  double ms[3];
  long trace_offset = trace_end();
  for (int run = 0; run < 3; run++) {
    int q = run == 0 ? 0 : 1;
    if (run == 2) {
      cl_uint batch_size = 4;
      CHECK(clSetKernelExecInfo(kernel, CL_KERNEL_EXEC_INFO_WORKGROUP_BATCH_SIZE_ARM, sizeof batch_size, &batch_size));
    }
    double t0 = now_ms();
    CHECK(clEnqueueNDRangeKernel(queues[q], kernel, 1, NULL, &items, &local, 0, NULL, NULL));
    CHECK(clFinish(queues[q]));
    ms[run] = now_ms() - t0;
    CHECK(clEnqueueReadBuffer(queues[q], out, CL_TRUE, 0, ITEMS * sizeof(cl_uint), values, 0, NULL, NULL));
    for (cl_uint i = 0; i < ITEMS; i++) {
      cl_uint x = i;
      for (int k = 0; k < 2000; k++) {
        x = x * 1664525u + 1013904223u;
        x ^= x >> 13;
      }
      wrong += values[i] != x;
    }
    CHECK(clEnqueueFillBuffer(queues[q], out, &(cl_uint){0}, sizeof(cl_uint), 0, ITEMS * sizeof(cl_uint), 0, NULL,
                              NULL));
    CHECK(clFinish(queues[q]));
  }
  printf("scheduling controls: kernel hash on a queue limited to 1 compute unit %.1f ms, unlimited %.1f ms, with 4"
         " work-groups per batch %.1f ms; %zu wrong values; KILN_TRACE=sched:\n", ms[0], ms[1], ms[2], wrong);
  print_trace_since(trace_offset);
  free(values);
  CHECK(clReleaseCommandQueue(queues[0]));
  CHECK(clReleaseCommandQueue(queues[1]));
  CHECK(clReleaseMemObject(out));
  CHECK(clReleaseKernel(kernel));
  CHECK(clReleaseProgram(program));
  return wrong;
}

/* cl_intel_command_queue_families: a kernel on a compute-family queue while a copy-family
 * queue (a copy engine thread) copies a large buffer; then, after an event from the
 * kernel, the copy queue copies the kernel's result, and an immediate-family queue writes
 * a small header synchronously. Returns wrong values. */
static size_t queue_families(cl_device_id device, cl_context context) {
  size_t size = 0;
  CHECK(clGetDeviceInfo(device, CL_DEVICE_QUEUE_FAMILY_PROPERTIES_INTEL, 0, NULL, &size));
  cl_queue_family_properties_intel families[8];
  size_t count = size / sizeof families[0];
  if (count < 3 || count > 8) {
    fprintf(stderr, "kiln_demo: cl_intel_command_queue_families missing\n");
    return 1;
  }
  CHECK(clGetDeviceInfo(device, CL_DEVICE_QUEUE_FAMILY_PROPERTIES_INTEL, size, families, NULL));
  printf("queue families:");
  for (size_t f = 0; f < count; f++) printf(" %zu \"%s\" x%u%s", f, families[f].name, families[f].count, f + 1 < count ? ";" : "\n");
  cl_int err;
  cl_command_queue queues[3];
  for (cl_uint f = 0; f < 3; f++) {
    cl_queue_properties properties[] = {CL_QUEUE_FAMILY_INTEL, f, CL_QUEUE_INDEX_INTEL, 0, 0};
    queues[f] = clCreateCommandQueueWithProperties(context, device, properties, &err);
    CHECK(err);
  }
  static const char *source = "kernel void scramble(global uint *v) { size_t i = get_global_id(0);"
                              " for (int k = 0; k < 200; k++) v[i] = v[i] * 1664525u + 1013904223u; }\n";
  cl_program program = clCreateProgramWithSource(context, 1, &source, NULL, &err);
  CHECK(err);
  CHECK(clBuildProgram(program, 1, &device, NULL, NULL, NULL));
  cl_kernel kernel = clCreateKernel(program, "scramble", &err);
  CHECK(err);
  enum { ITEMS = 1 << 18, BIG = 64 << 20 };
  cl_uint *host = malloc(ITEMS * sizeof *host);
  for (cl_uint i = 0; i < ITEMS; i++) host[i] = i;
  cl_mem values = clCreateBuffer(context, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, ITEMS * sizeof *host, host, &err);
  CHECK(err);
  cl_mem result = clCreateBuffer(context, CL_MEM_READ_WRITE, ITEMS * sizeof *host + 64, NULL, &err);
  CHECK(err);
  cl_mem big_src = clCreateBuffer(context, CL_MEM_READ_WRITE, BIG, NULL, &err);
  CHECK(err);
  cl_mem big_dst = clCreateBuffer(context, CL_MEM_READ_WRITE, BIG, NULL, &err);
  CHECK(err);
  cl_uchar pattern = 0xa5;
  CHECK(clEnqueueFillBuffer(queues[1], big_src, &pattern, 1, 0, BIG, 0, NULL, NULL));
  CHECK(clSetKernelArg(kernel, 0, sizeof values, &values));
  size_t items = ITEMS;
  cl_event computed;
  double t0 = now_ms();
  CHECK(clEnqueueCopyBuffer(queues[1], big_src, big_dst, 0, 0, BIG, 0, NULL, NULL));
  CHECK(clFlush(queues[1]));
  CHECK(clEnqueueNDRangeKernel(queues[0], kernel, 1, NULL, &items, NULL, 0, NULL, &computed));
  CHECK(clEnqueueCopyBuffer(queues[1], values, result, 0, 64, ITEMS * sizeof *host, 1, &computed, NULL));
  CHECK(clFinish(queues[1]));
  double ms = now_ms() - t0;
  CHECK(clFinish(queues[0]));
  char header[64] = "kiln demo: scrambled values follow";
  CHECK(clEnqueueWriteBuffer(queues[2], result, CL_FALSE, 0, sizeof header, header, 0, NULL, NULL));
  cl_uint *got = malloc(ITEMS * sizeof *got + 64);
  CHECK(clEnqueueReadBuffer(queues[2], result, CL_TRUE, 0, ITEMS * sizeof *got + 64, got, 0, NULL, NULL));
  size_t wrong = memcmp(got, header, sizeof header) != 0;
  for (cl_uint i = 0; i < ITEMS; i++) {
    cl_uint x = i;
    for (int k = 0; k < 200; k++) x = x * 1664525u + 1013904223u;
    wrong += got[16 + i] != x;
  }
  cl_uchar *copied = malloc(BIG);
  CHECK(clEnqueueReadBuffer(queues[1], big_dst, CL_TRUE, 0, BIG, copied, 0, NULL, NULL));
  for (size_t i = 0; i < BIG; i++) wrong += copied[i] != pattern;
  printf("queue families: %d MiB copied by a copy engine while the compute family ran kernel scramble, then its"
         " result copied after the kernel's event, in %.1f ms; %zu wrong values\n", BIG >> 20, ms, wrong);
  free(host);
  free(got);
  free(copied);
  CHECK(clReleaseEvent(computed));
  CHECK(clReleaseMemObject(values));
  CHECK(clReleaseMemObject(result));
  CHECK(clReleaseMemObject(big_src));
  CHECK(clReleaseMemObject(big_dst));
  CHECK(clReleaseKernel(kernel));
  CHECK(clReleaseProgram(program));
  for (int f = 0; f < 3; f++) CHECK(clReleaseCommandQueue(queues[f]));
  return wrong;
}

int main(void) {
  /* Kiln reads KILN_TRACE when it loads: the scheduling section prints what it logs. */
  int trace_fd = mkstemp(trace_path);
  if (trace_fd >= 0) {
    close(trace_fd);
    setenv("KILN_TRACE", "sched", 1);
    setenv("KILN_TRACE_FILE", trace_path, 1);
  }
  cl_platform_id platform = find_kiln();
  if (!platform) {
    fprintf(stderr, "kiln_demo: no Kiln platform (is OCL_ICD_VENDORS pointing at kiln.icd?)\n");
    return 1;
  }
  char version[256], device_name[256];
  cl_device_id device;
  cl_uint units;
  cl_ulong mem;
  CHECK(clGetPlatformInfo(platform, CL_PLATFORM_VERSION, sizeof version, version, NULL));
  CHECK(clGetDeviceIDs(platform, CL_DEVICE_TYPE_CPU, 1, &device, NULL));
  CHECK(clGetDeviceInfo(device, CL_DEVICE_NAME, sizeof device_name, device_name, NULL));
  CHECK(clGetDeviceInfo(device, CL_DEVICE_MAX_COMPUTE_UNITS, sizeof units, &units, NULL));
  CHECK(clGetDeviceInfo(device, CL_DEVICE_GLOBAL_MEM_SIZE, sizeof mem, &mem, NULL));
  printf("platform: %s\ndevice:   %s, %u compute units, %llu MiB\n", version, device_name, units,
         (unsigned long long)(mem >> 20));

  cl_int err;
  cl_context context = clCreateContext(NULL, 1, &device, NULL, NULL, &err);
  CHECK(err);
  cl_command_queue upload = clCreateCommandQueueWithProperties(context, device, NULL, &err);
  CHECK(err);
  cl_queue_properties profiling[] = {CL_QUEUE_PROPERTIES, CL_QUEUE_PROFILING_ENABLE, 0};
  cl_command_queue work = clCreateCommandQueueWithProperties(context, device, profiling, &err);
  CHECK(err);

  enum { N = 1 << 20 };
  cl_uint *host = malloc(N * sizeof *host), *result = malloc(N * sizeof *result);
  for (cl_uint i = 0; i < N; i++) host[i] = i * 2654435761u;
  cl_mem a = clCreateBuffer(context, CL_MEM_READ_WRITE, N * sizeof(cl_uint), NULL, &err);
  CHECK(err);
  cl_mem b = clCreateBuffer(context, CL_MEM_READ_WRITE, N * sizeof(cl_uint), NULL, &err);
  CHECK(err);

  /* Upload on one queue, then copy and fill on another queue that waits for the upload. */
  cl_event uploaded, copied;
  CHECK(clEnqueueWriteBuffer(upload, a, CL_FALSE, 0, N * sizeof(cl_uint), host, 0, NULL, &uploaded));
  CHECK(clEnqueueCopyBuffer(work, a, b, 0, 0, N * sizeof(cl_uint), 1, &uploaded, &copied));
  cl_uint pattern = 0xC0FFEEu;
  CHECK(clEnqueueFillBuffer(work, b, &pattern, sizeof pattern, 0, 1024 * sizeof(cl_uint), 0, NULL, NULL));
  CHECK(clEnqueueReadBuffer(work, b, CL_TRUE, 0, N * sizeof(cl_uint), result, 0, NULL, NULL));

  size_t wrong = 0;
  for (cl_uint i = 0; i < N; i++) wrong += result[i] != (i < 1024 ? pattern : host[i]);
  cl_ulong start, end;
  CHECK(clGetEventProfilingInfo(copied, CL_PROFILING_COMMAND_START, sizeof start, &start, NULL));
  CHECK(clGetEventProfilingInfo(copied, CL_PROFILING_COMMAND_END, sizeof end, &end, NULL));
  printf("copied %zu MiB in %.3f ms across two queues; %zu wrong values\n", N * sizeof(cl_uint) >> 20,
         (double)(end - start) / 1e6, wrong);

  /* A real kernel: each work-group sums its slice of b in local memory (with barriers) and
   * writes one partial sum; the host checks every partial. */
  static const char *source =
      "kernel void partial_sums(global const uint *in, global ulong *out, local ulong *scratch) {\n"
      "  size_t lid = get_local_id(0), n = get_local_size(0);\n"
      "  scratch[lid] = in[get_global_id(0)];\n"
      "  barrier(CLK_LOCAL_MEM_FENCE);\n"
      "  for (size_t s = n / 2; s > 0; s /= 2) {\n"
      "    if (lid < s) scratch[lid] += scratch[lid + s];\n"
      "    barrier(CLK_LOCAL_MEM_FENCE);\n"
      "  }\n"
      "  if (lid == 0) out[get_group_id(0)] = scratch[0];\n"
      "}\n";
  cl_program program = clCreateProgramWithSource(context, 1, &source, NULL, &err);
  CHECK(err);
  err = clBuildProgram(program, 1, &device, NULL, NULL, NULL);
  if (err != CL_SUCCESS) {
    char log[8192] = "";
    clGetProgramBuildInfo(program, device, CL_PROGRAM_BUILD_LOG, sizeof log, log, NULL);
    fprintf(stderr, "%s\n", log);
    CHECK(err);
  }
  cl_kernel kernel = clCreateKernel(program, "partial_sums", &err);
  CHECK(err);
  enum { LOCAL = 256, GROUPS = N / LOCAL };
  cl_mem sums = clCreateBuffer(context, CL_MEM_WRITE_ONLY, GROUPS * sizeof(cl_ulong), NULL, &err);
  CHECK(err);
  CHECK(clSetKernelArg(kernel, 0, sizeof b, &b));
  CHECK(clSetKernelArg(kernel, 1, sizeof sums, &sums));
  CHECK(clSetKernelArg(kernel, 2, LOCAL * sizeof(cl_ulong), NULL));
  size_t global = N, local = LOCAL;
  CHECK(clEnqueueNDRangeKernel(work, kernel, 1, NULL, &global, &local, 0, NULL, NULL));
  cl_ulong *partial = malloc(GROUPS * sizeof *partial);
  CHECK(clEnqueueReadBuffer(work, sums, CL_TRUE, 0, GROUPS * sizeof(cl_ulong), partial, 0, NULL, NULL));
  size_t wrong_sums = 0;
  for (size_t g = 0; g < GROUPS; g++) {
    cl_ulong expected = 0;
    for (size_t i = g * LOCAL; i < (g + 1) * LOCAL; i++) expected += result[i];
    wrong_sums += partial[g] != expected;
  }
  printf("kernel partial_sums: %d work-groups of %d with barriers; %zu wrong sums\n", GROUPS, LOCAL, wrong_sums);
  wrong += wrong_sums;
  free(partial);
  CHECK(clReleaseMemObject(sums));
  CHECK(clReleaseKernel(kernel));
  CHECK(clReleaseProgram(program));

  wrong += command_buffer_frames(platform, device, context, work);
  wrong += recording_replays(platform, device, context, work);
  wrong += imported_memory(platform, device, context, work);
  wrong += scheduling_controls(device, context);
  wrong += queue_families(device, context);
  wrong += image_pipeline(platform, device, context, work);
  wrong += system_svm(device, context, work);
  if (trace_fd >= 0) unlink(trace_path);

  CHECK(clReleaseEvent(uploaded));
  CHECK(clReleaseEvent(copied));
  CHECK(clReleaseMemObject(a));
  CHECK(clReleaseMemObject(b));
  CHECK(clReleaseCommandQueue(upload));
  CHECK(clReleaseCommandQueue(work));
  CHECK(clReleaseContext(context));
  free(host);
  free(result);
  if (wrong) {
    fprintf(stderr, "kiln_demo: FAILED\n");
    return 1;
  }
  printf("kiln_demo: OK\n");
  return 0;
}
