/* Programs through the loader: creation rules, builds (sync and with a callback), build
 * failures with clang's diagnostics, options, compile + link with embedded headers,
 * libraries, binaries (round trip and corrupt), and the info queries. Needs
 * CL_DEVICE_COMPILER_AVAILABLE / LINKER_AVAILABLE = CL_TRUE. */
#include "kiln_test.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char *two_kernels = "kernel void add_one(global int *p) { p[get_global_id(0)] += 1; }\n"
                                 "kernel void twice(global int *p) { p[get_global_id(0)] *= 2; }\n";

static cl_program source_program(struct kiln_test_env *env, const char *source) {
  cl_int err;
  cl_program program = clCreateProgramWithSource(env->context, 1, &source, NULL, &err);
  assert_cl_success(err);
  assert_non_null(program);
  return program;
}

static char *build_info_string(cl_program program, cl_device_id device, cl_program_build_info name) {
  size_t size = 0;
  assert_cl_success(clGetProgramBuildInfo(program, device, name, 0, NULL, &size));
  char *s = malloc(size);
  assert_non_null(s);
  assert_cl_success(clGetProgramBuildInfo(program, device, name, size, s, NULL));
  assert_int_equal(size, strlen(s) + 1);
  return s;
}

static cl_build_status build_status(cl_program program, cl_device_id device) {
  cl_build_status status;
  assert_cl_success(clGetProgramBuildInfo(program, device, CL_PROGRAM_BUILD_STATUS, sizeof status, &status, NULL));
  return status;
}

static cl_program_binary_type binary_type(cl_program program, cl_device_id device) {
  cl_program_binary_type type;
  assert_cl_success(clGetProgramBuildInfo(program, device, CL_PROGRAM_BINARY_TYPE, sizeof type, &type, NULL));
  return type;
}

/* Runs `kernel_name` of a built program on {0..n-1} and returns element i. */
static int run_first_kernel(struct kiln_test_env *env, cl_program program, const char *kernel_name, int input) {
  cl_int err;
  cl_kernel kernel = clCreateKernel(program, kernel_name, &err);
  assert_cl_success(err);
  cl_mem buffer = clCreateBuffer(env->context, CL_MEM_COPY_HOST_PTR, sizeof input, &input, &err);
  assert_cl_success(err);
  assert_cl_success(clSetKernelArg(kernel, 0, sizeof buffer, &buffer));
  size_t global = 1;
  assert_cl_success(clEnqueueNDRangeKernel(env->queue, kernel, 1, NULL, &global, NULL, 0, NULL, NULL));
  int out = 0;
  assert_cl_success(clEnqueueReadBuffer(env->queue, buffer, CL_TRUE, 0, sizeof out, &out, 0, NULL, NULL));
  assert_cl_success(clReleaseMemObject(buffer));
  assert_cl_success(clReleaseKernel(kernel));
  return out;
}

static void test_create_with_source_rules(void **state) {
  struct kiln_test_env *env = *state;
  cl_int err = CL_SUCCESS;
  const char *parts[3] = {"kernel void a(void) {}", "\n/* x */", "kernel void b(void) {}"};
  assert_null(clCreateProgramWithSource(env->context, 0, parts, NULL, &err));
  assert_int_equal(CL_INVALID_VALUE, err);
  assert_null(clCreateProgramWithSource(env->context, 1, NULL, NULL, &err));
  assert_int_equal(CL_INVALID_VALUE, err);
  const char *with_null[2] = {parts[0], NULL};
  assert_null(clCreateProgramWithSource(env->context, 2, with_null, NULL, &err));
  assert_int_equal(CL_INVALID_VALUE, err);
  struct kiln_test_fake_handle fake = kiln_test_fake_handle_like(env->context);
  assert_null(clCreateProgramWithSource((cl_context)&fake, 1, parts, NULL, &err));
  assert_int_equal(CL_INVALID_CONTEXT, err);

  /* lengths: 0 means NUL-terminated, others count characters without the terminator. */
  size_t lengths[3] = {0, 4, 0};
  cl_program program = clCreateProgramWithSource(env->context, 3, parts, lengths, &err);
  assert_cl_success(err);
  size_t size;
  assert_cl_success(clGetProgramInfo(program, CL_PROGRAM_SOURCE, 0, NULL, &size));
  char *source = malloc(size);
  assert_cl_success(clGetProgramInfo(program, CL_PROGRAM_SOURCE, size, source, NULL));
  assert_string_equal("kernel void a(void) {}\n/* kernel void b(void) {}", source);
  free(source);
  assert_int_equal(CL_INVALID_VALUE, clGetProgramInfo(program, CL_PROGRAM_SOURCE, 3, (char[3]){0}, NULL));

  cl_uint refs, num_devices;
  cl_context context;
  cl_device_id device;
  assert_cl_success(clGetProgramInfo(program, CL_PROGRAM_REFERENCE_COUNT, sizeof refs, &refs, NULL));
  assert_int_equal(1, refs);
  assert_cl_success(clRetainProgram(program));
  assert_cl_success(clGetProgramInfo(program, CL_PROGRAM_REFERENCE_COUNT, sizeof refs, &refs, NULL));
  assert_int_equal(2, refs);
  assert_cl_success(clReleaseProgram(program));
  assert_cl_success(clGetProgramInfo(program, CL_PROGRAM_CONTEXT, sizeof context, &context, NULL));
  assert_ptr_equal(env->context, context);
  assert_cl_success(clGetProgramInfo(program, CL_PROGRAM_NUM_DEVICES, sizeof num_devices, &num_devices, NULL));
  assert_int_equal(1, num_devices);
  assert_cl_success(clGetProgramInfo(program, CL_PROGRAM_DEVICES, sizeof device, &device, NULL));
  assert_ptr_equal(env->device, device);
  assert_cl_success(clGetProgramInfo(program, CL_PROGRAM_IL, 0, NULL, &size));
  assert_int_equal(0, size);
  /* Before a build: no executable, status NONE, empty log and options. */
  assert_int_equal(CL_INVALID_PROGRAM_EXECUTABLE,
                   clGetProgramInfo(program, CL_PROGRAM_NUM_KERNELS, sizeof size, &size, NULL));
  assert_int_equal(CL_INVALID_PROGRAM_EXECUTABLE, clGetProgramInfo(program, CL_PROGRAM_KERNEL_NAMES, 0, NULL, &size));
  assert_int_equal(CL_BUILD_NONE, build_status(program, env->device));
  assert_int_equal(CL_PROGRAM_BINARY_TYPE_NONE, binary_type(program, env->device));
  char *log = build_info_string(program, env->device, CL_PROGRAM_BUILD_LOG);
  assert_string_equal("", log);
  free(log);
  assert_int_equal(CL_INVALID_VALUE, clGetProgramInfo(program, 0x7777, 0, NULL, &size));
  assert_int_equal(CL_INVALID_VALUE, clGetProgramBuildInfo(program, env->device, 0x7777, 0, NULL, &size));
  assert_int_equal(CL_INVALID_DEVICE, clGetProgramBuildInfo(program, NULL, CL_PROGRAM_BUILD_STATUS, 0, NULL, &size));
  assert_cl_success(clReleaseProgram(program));
  assert_int_equal(CL_INVALID_PROGRAM, clReleaseProgram(program));
}

static void test_unsupported_creation_paths(void **state) {
  struct kiln_test_env *env = *state;
  cl_int err = CL_SUCCESS;
  assert_null(clCreateProgramWithBuiltInKernels(env->context, 1, &env->device, "anything", &err));
  assert_int_equal(CL_INVALID_VALUE, err);
  assert_null(clCreateProgramWithBuiltInKernels(env->context, 0, NULL, "anything", &err));
  assert_int_equal(CL_INVALID_VALUE, err);
  /* IL is supported (test_spirv.c); a magic number alone is no module, and a source
   * program has no specialization constants. */
  cl_uint bogus = 0x07230203;
  assert_null(clCreateProgramWithIL(env->context, &bogus, sizeof bogus, &err));
  assert_int_equal(CL_INVALID_VALUE, err);
  cl_program program = source_program(env, two_kernels);
  cl_uint spec = 1;
  assert_int_equal(CL_INVALID_PROGRAM, clSetProgramSpecializationConstant(program, 0, sizeof spec, &spec));
  assert_int_equal(CL_INVALID_OPERATION, clSetProgramReleaseCallback(program, NULL, NULL));
  assert_cl_success(clReleaseProgram(program));
}

static void test_build_and_info(void **state) {
  struct kiln_test_env *env = *state;
  cl_program program = source_program(env, two_kernels);
  assert_int_equal(CL_INVALID_VALUE, clBuildProgram(program, 1, NULL, NULL, NULL, NULL));
  assert_int_equal(CL_INVALID_VALUE, clBuildProgram(program, 0, &env->device, NULL, NULL, NULL));
  assert_int_equal(CL_INVALID_VALUE, clBuildProgram(program, 0, NULL, NULL, NULL, &state));
  cl_device_id bad = (cl_device_id)(void *)&state;
  assert_int_equal(CL_INVALID_DEVICE, clBuildProgram(program, 1, &bad, NULL, NULL, NULL));
  assert_cl_success(clBuildProgram(program, 1, &env->device, "-DUNUSED=1 -cl-mad-enable", NULL, NULL));
  assert_int_equal(CL_BUILD_SUCCESS, build_status(program, env->device));
  assert_int_equal(CL_PROGRAM_BINARY_TYPE_EXECUTABLE, binary_type(program, env->device));
  char *options = build_info_string(program, env->device, CL_PROGRAM_BUILD_OPTIONS);
  assert_string_equal("-DUNUSED=1 -cl-mad-enable", options);
  free(options);
  size_t count = 0, size;
  assert_cl_success(clGetProgramInfo(program, CL_PROGRAM_NUM_KERNELS, sizeof count, &count, NULL));
  assert_int_equal(2, count);
  char names[64];
  assert_cl_success(clGetProgramInfo(program, CL_PROGRAM_KERNEL_NAMES, sizeof names, names, &size));
  assert_true(strcmp(names, "add_one;twice") == 0 || strcmp(names, "twice;add_one") == 0);
  assert_int_equal(strlen(names) + 1, size);
  cl_bool present = CL_TRUE;
  assert_cl_success(clGetProgramInfo(program, CL_PROGRAM_SCOPE_GLOBAL_CTORS_PRESENT, sizeof present, &present, NULL));
  assert_int_equal(CL_FALSE, present);
  size_t globals = 1;
  assert_cl_success(clGetProgramBuildInfo(program, env->device, CL_PROGRAM_BUILD_GLOBAL_VARIABLE_TOTAL_SIZE,
                                          sizeof globals, &globals, NULL));
  assert_int_equal(0, globals);
  assert_int_equal(41, run_first_kernel(env, program, "add_one", 40));
  assert_int_equal(80, run_first_kernel(env, program, "twice", 40));
  /* Rebuilding is allowed without kernels, refused while one exists. */
  assert_cl_success(clBuildProgram(program, 0, NULL, NULL, NULL, NULL));
  cl_int err;
  cl_kernel kernel = clCreateKernel(program, "twice", &err);
  assert_cl_success(err);
  assert_int_equal(CL_INVALID_OPERATION, clBuildProgram(program, 0, NULL, NULL, NULL, NULL));
  assert_int_equal(CL_INVALID_OPERATION, clCompileProgram(program, 0, NULL, NULL, 0, NULL, NULL, NULL, NULL));
  assert_cl_success(clReleaseKernel(kernel));
  assert_cl_success(clReleaseProgram(program));
}

static void test_syntax_error_reports_diagnostics(void **state) {
  struct kiln_test_env *env = *state;
  cl_program program = source_program(env, "kernel void broken(global int *p) { p[0] = undeclared_thing; }");
  assert_int_equal(CL_BUILD_PROGRAM_FAILURE, clBuildProgram(program, 0, NULL, NULL, NULL, NULL));
  assert_int_equal(CL_BUILD_ERROR, build_status(program, env->device));
  char *log = build_info_string(program, env->device, CL_PROGRAM_BUILD_LOG);
  assert_non_null(strstr(log, "undeclared_thing"));
  free(log);
  cl_int err;
  assert_null(clCreateKernel(program, "broken", &err));
  assert_int_equal(CL_INVALID_PROGRAM_EXECUTABLE, err);
  assert_cl_success(clReleaseProgram(program));
}

/* Code is generated when the first kernel is created, but a call to a function defined
 * nowhere must still fail the build itself, with the function named in the log. */
static void test_undefined_function_fails_the_build(void **state) {
  struct kiln_test_env *env = *state;
  static const char *sources[] = {
      "int helper(int x);\nkernel void k(global int *p) { p[0] = helper(p[0]); }",
      /* a builtin's name with a signature the library does not have */
      "float4 fast_normalize(float4 x, int bogus);\nkernel void k(global float4 *p) { p[0] = fast_normalize(p[0], 1); }",
  };
  static const char *names[] = {"helper", "fast_normalize"};
  for (int i = 0; i < 2; i++) {
    cl_program program = source_program(env, sources[i]);
    assert_int_equal(CL_BUILD_PROGRAM_FAILURE, clBuildProgram(program, 0, NULL, NULL, NULL, NULL));
    assert_int_equal(CL_BUILD_ERROR, build_status(program, env->device));
    char *log = build_info_string(program, env->device, CL_PROGRAM_BUILD_LOG);
    assert_non_null(strstr(log, "undefined function"));
    assert_non_null(strstr(log, names[i]));
    free(log);
    assert_cl_success(clReleaseProgram(program));
  }
  /* The same calls with a definition in the program build, create and run. */
  cl_program program = source_program(env, "int helper(int x) { return x * 3; }\n"
                                           "kernel void k(global int *p) { p[get_global_id(0)] = helper(p[get_global_id(0)]); }");
  assert_cl_success(clBuildProgram(program, 0, NULL, NULL, NULL, NULL));
  assert_int_equal(21, run_first_kernel(env, program, "k", 7));
  assert_cl_success(clReleaseProgram(program));
}

static void test_build_options(void **state) {
  struct kiln_test_env *env = *state;
  cl_program program = source_program(env, "kernel void k(global int *p) { p[0] = VALUE; }");
  assert_int_equal(CL_INVALID_BUILD_OPTIONS, clBuildProgram(program, 0, NULL, "-not-an-option", NULL, NULL));
  assert_cl_success(clBuildProgram(program, 0, NULL, "-D VALUE=7 -cl-std=CL3.0 -w", NULL, NULL));
  assert_int_equal(7, run_first_kernel(env, program, "k", 0));
  assert_cl_success(clBuildProgram(program, 0, NULL, "-DVALUE=9 -cl-std=CL1.2 -cl-fast-relaxed-math", NULL, NULL));
  assert_int_equal(9, run_first_kernel(env, program, "k", 0));
  assert_cl_success(clReleaseProgram(program));
}

struct callback_record {
  pthread_mutex_t lock;
  pthread_cond_t cond;
  bool called;
  cl_program program;
  cl_build_status status_seen;
  pthread_t thread;
  cl_device_id device;
};

static void CL_CALLBACK on_built(cl_program program, void *user_data) {
  struct callback_record *r = user_data;
  cl_build_status status = CL_BUILD_NONE;
  clGetProgramBuildInfo(program, r->device, CL_PROGRAM_BUILD_STATUS, sizeof status, &status, NULL);
  pthread_mutex_lock(&r->lock);
  r->program = program;
  r->status_seen = status;
  r->thread = pthread_self();
  r->called = true;
  pthread_cond_signal(&r->cond);
  pthread_mutex_unlock(&r->lock);
}

static void wait_callback(struct callback_record *r) {
  pthread_mutex_lock(&r->lock);
  while (!r->called) pthread_cond_wait(&r->cond, &r->lock);
  pthread_mutex_unlock(&r->lock);
}

static void test_build_with_callback(void **state) {
  struct kiln_test_env *env = *state;
  cl_program program = source_program(env, two_kernels);
  struct callback_record r = {PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, .device = env->device};
  assert_cl_success(clBuildProgram(program, 0, NULL, NULL, on_built, &r));
  /* While it runs the program reports CL_BUILD_IN_PROGRESS and refuses another build. */
  cl_build_status status = build_status(program, env->device);
  if (status == CL_BUILD_IN_PROGRESS)
    assert_int_equal(CL_INVALID_OPERATION, clBuildProgram(program, 0, NULL, NULL, NULL, NULL));
  else
    assert_int_equal(CL_BUILD_SUCCESS, status);
  wait_callback(&r);
  assert_ptr_equal(program, r.program);
  assert_int_equal(CL_BUILD_SUCCESS, r.status_seen);
  assert_false(pthread_equal(r.thread, pthread_self()));
  assert_int_equal(41, run_first_kernel(env, program, "add_one", 40));

  /* A failing build reports through the callback too; the call itself succeeds. */
  cl_program broken = source_program(env, "kernel void k( {");
  struct callback_record r2 = {PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, .device = env->device};
  assert_cl_success(clBuildProgram(broken, 0, NULL, NULL, on_built, &r2));
  wait_callback(&r2);
  assert_int_equal(CL_BUILD_ERROR, r2.status_seen);
  assert_cl_success(clReleaseProgram(broken));
  assert_cl_success(clReleaseProgram(program));
}

static void test_compile_link_with_headers(void **state) {
  struct kiln_test_env *env = *state;
  cl_program header = source_program(env, "#define OFFSET 5\nint shifted(int x);\n");
  cl_program main_part = source_program(env, "#include \"my/shift.h\"\n"
                                             "kernel void use(global int *p) { p[0] = shifted(p[0]) + OFFSET; }\n");
  cl_program lib_part = source_program(env, "int shifted(int x) { return x << 1; }\n");
  const char *name = "my/shift.h";
  assert_int_equal(CL_INVALID_VALUE, clCompileProgram(main_part, 0, NULL, NULL, 1, NULL, &name, NULL, NULL));
  assert_int_equal(CL_INVALID_VALUE, clCompileProgram(main_part, 0, NULL, NULL, 0, &header, NULL, NULL, NULL));
  /* Without the header the include fails. */
  assert_int_equal(CL_COMPILE_PROGRAM_FAILURE, clCompileProgram(main_part, 0, NULL, NULL, 0, NULL, NULL, NULL, NULL));
  assert_int_equal(CL_INVALID_COMPILER_OPTIONS,
                   clCompileProgram(main_part, 0, NULL, "-bogus-flag", 1, &header, &name, NULL, NULL));
  assert_cl_success(clCompileProgram(main_part, 0, NULL, NULL, 1, &header, &name, NULL, NULL));
  assert_int_equal(CL_PROGRAM_BINARY_TYPE_COMPILED_OBJECT, binary_type(main_part, env->device));
  assert_cl_success(clCompileProgram(lib_part, 0, NULL, NULL, 0, NULL, NULL, NULL, NULL));

  cl_int err;
  /* A library from one object, then an executable from the object and the library. */
  cl_program library = clLinkProgram(env->context, 0, NULL, "-create-library", 1, &lib_part, NULL, NULL, &err);
  assert_cl_success(err);
  assert_int_equal(CL_PROGRAM_BINARY_TYPE_LIBRARY, binary_type(library, env->device));
  size_t count;
  assert_int_equal(CL_INVALID_PROGRAM_EXECUTABLE,
                   clGetProgramInfo(library, CL_PROGRAM_NUM_KERNELS, sizeof count, &count, NULL));
  cl_program inputs[2] = {main_part, library};
  assert_null(clLinkProgram(env->context, 0, NULL, "-enable-link-options", 2, inputs, NULL, NULL, &err));
  assert_int_equal(CL_INVALID_LINKER_OPTIONS, err);
  assert_null(clLinkProgram(env->context, 0, NULL, NULL, 0, inputs, NULL, NULL, &err));
  assert_int_equal(CL_INVALID_VALUE, err);
  cl_program uncompiled = source_program(env, "int f(void) { return 1; }");
  cl_program with_source_only[2] = {main_part, uncompiled};
  assert_null(clLinkProgram(env->context, 0, NULL, NULL, 2, with_source_only, NULL, NULL, &err));
  assert_int_equal(CL_INVALID_OPERATION, err);
  cl_program executable = clLinkProgram(env->context, 0, NULL, NULL, 2, inputs, NULL, NULL, &err);
  assert_cl_success(err);
  assert_int_equal(CL_PROGRAM_BINARY_TYPE_EXECUTABLE, binary_type(executable, env->device));
  assert_int_equal(CL_INVALID_OPERATION, clBuildProgram(executable, 0, NULL, NULL, NULL, NULL));
  assert_int_equal(3 * 2 + 5, run_first_kernel(env, executable, "use", 3));

  /* A link with an unresolved function fails but still returns a program with a log. */
  cl_program alone = clLinkProgram(env->context, 0, NULL, NULL, 1, &main_part, NULL, NULL, &err);
  assert_int_equal(CL_LINK_PROGRAM_FAILURE, err);
  assert_non_null(alone);
  assert_int_equal(CL_BUILD_ERROR, build_status(alone, env->device));
  char *log = build_info_string(alone, env->device, CL_PROGRAM_BUILD_LOG);
  assert_non_null(strstr(log, "shifted"));
  free(log);
  cl_program all[] = {alone, executable, library, uncompiled, lib_part, main_part, header};
  for (size_t i = 0; i < sizeof all / sizeof all[0]; i++) assert_cl_success(clReleaseProgram(all[i]));
}

static unsigned char *program_binary(cl_program program, size_t *size) {
  assert_cl_success(clGetProgramInfo(program, CL_PROGRAM_BINARY_SIZES, sizeof *size, size, NULL));
  assert_true(*size > 0);
  unsigned char *binary = malloc(*size);
  assert_cl_success(clGetProgramInfo(program, CL_PROGRAM_BINARIES, sizeof binary, &binary, NULL));
  return binary;
}

static void test_binary_round_trip_and_corruption(void **state) {
  struct kiln_test_env *env = *state;
  cl_program program = source_program(env, two_kernels);
  size_t size = 1;
  assert_cl_success(clGetProgramInfo(program, CL_PROGRAM_BINARY_SIZES, sizeof size, &size, NULL));
  assert_int_equal(0, size); /* nothing built yet */
  assert_cl_success(clBuildProgram(program, 0, NULL, "-cl-std=CL3.0", NULL, NULL));
  unsigned char *binary = program_binary(program, &size);

  cl_int err, status = 1;
  const unsigned char *binaries[1] = {binary};
  cl_program loaded = clCreateProgramWithBinary(env->context, 1, &env->device, &size, binaries, &status, &err);
  assert_cl_success(err);
  assert_cl_success(status);
  assert_int_equal(CL_PROGRAM_BINARY_TYPE_EXECUTABLE, binary_type(loaded, env->device));
  assert_int_equal(CL_INVALID_OPERATION, clCompileProgram(loaded, 0, NULL, NULL, 0, NULL, NULL, NULL, NULL));
  assert_cl_success(clBuildProgram(loaded, 0, NULL, NULL, NULL, NULL));
  char *options = build_info_string(loaded, env->device, CL_PROGRAM_BUILD_OPTIONS);
  assert_string_equal("-cl-std=CL3.0", options);
  free(options);
  assert_int_equal(11, run_first_kernel(env, loaded, "add_one", 10));
  /* Refused options do not replace the binary's: a rebuild without options still works. */
  assert_int_equal(CL_INVALID_BUILD_OPTIONS, clBuildProgram(loaded, 0, NULL, "-no-such-option", NULL, NULL));
  assert_cl_success(clBuildProgram(loaded, 0, NULL, NULL, NULL, NULL));
  options = build_info_string(loaded, env->device, CL_PROGRAM_BUILD_OPTIONS);
  assert_string_equal("-cl-std=CL3.0", options);
  free(options);
  assert_int_equal(11, run_first_kernel(env, loaded, "add_one", 10));

  /* Errors: lists, lengths, foreign and corrupt bytes. */
  assert_null(clCreateProgramWithBinary(env->context, 0, NULL, &size, binaries, NULL, &err));
  assert_int_equal(CL_INVALID_VALUE, err);
  assert_null(clCreateProgramWithBinary(env->context, 1, &env->device, NULL, binaries, NULL, &err));
  assert_int_equal(CL_INVALID_VALUE, err);
  size_t zero = 0;
  assert_null(clCreateProgramWithBinary(env->context, 1, &env->device, &zero, binaries, &status, &err));
  assert_int_equal(CL_INVALID_VALUE, err);
  assert_int_equal(CL_INVALID_VALUE, status);
  cl_device_id bad = (cl_device_id)(void *)&state;
  assert_null(clCreateProgramWithBinary(env->context, 1, &bad, &size, binaries, NULL, &err));
  assert_int_equal(CL_INVALID_DEVICE, err);
  const unsigned char foreign[] = "\x7f" "ELF this is not a Kiln binary at all................";
  const unsigned char *foreign_list[1] = {foreign};
  size_t foreign_size = sizeof foreign;
  assert_null(clCreateProgramWithBinary(env->context, 1, &env->device, &foreign_size, foreign_list, &status, &err));
  assert_int_equal(CL_INVALID_BINARY, err);
  assert_int_equal(CL_INVALID_BINARY, status);
  /* Every truncation and a flipped byte deep in the module are rejected cleanly. */
  for (size_t cut = 1; cut < size; cut += (size / 64) + 1) {
    assert_null(clCreateProgramWithBinary(env->context, 1, &env->device, &cut, binaries, &status, &err));
    assert_int_equal(CL_INVALID_BINARY, err);
  }
  binary[size - size / 3] ^= 0x5a;
  assert_null(clCreateProgramWithBinary(env->context, 1, &env->device, &size, binaries, &status, &err));
  assert_int_equal(CL_INVALID_BINARY, err);
  assert_int_equal(CL_INVALID_BINARY, status);
  free(binary);

  /* A compiled object's binary loads as an object and builds into an executable. */
  cl_program object = source_program(env, two_kernels);
  assert_cl_success(clCompileProgram(object, 0, NULL, NULL, 0, NULL, NULL, NULL, NULL));
  unsigned char *object_binary = program_binary(object, &size);
  const unsigned char *object_list[1] = {object_binary};
  cl_program from_object = clCreateProgramWithBinary(env->context, 1, &env->device, &size, object_list, NULL, &err);
  assert_cl_success(err);
  assert_int_equal(CL_PROGRAM_BINARY_TYPE_COMPILED_OBJECT, binary_type(from_object, env->device));
  assert_cl_success(clBuildProgram(from_object, 0, NULL, NULL, NULL, NULL));
  assert_int_equal(6, run_first_kernel(env, from_object, "twice", 3));
  free(object_binary);
  cl_program all[] = {from_object, object, loaded, program};
  for (size_t i = 0; i < 4; i++) assert_cl_success(clReleaseProgram(all[i]));
}

static void test_invalid_handles(void **state) {
  struct kiln_test_env *env = *state;
  struct kiln_test_fake_handle fake = kiln_test_fake_handle_like(env->context);
  cl_program program = (cl_program)&fake;
  size_t size;
  assert_int_equal(CL_INVALID_PROGRAM, clRetainProgram(program));
  assert_int_equal(CL_INVALID_PROGRAM, clReleaseProgram(program));
  assert_int_equal(CL_INVALID_PROGRAM, clBuildProgram(program, 0, NULL, NULL, NULL, NULL));
  assert_int_equal(CL_INVALID_PROGRAM, clCompileProgram(program, 0, NULL, NULL, 0, NULL, NULL, NULL, NULL));
  assert_int_equal(CL_INVALID_PROGRAM, clGetProgramInfo(program, CL_PROGRAM_NUM_KERNELS, 0, NULL, &size));
  assert_int_equal(CL_INVALID_PROGRAM,
                   clGetProgramBuildInfo(program, env->device, CL_PROGRAM_BUILD_LOG, 0, NULL, &size));
  assert_int_equal(CL_INVALID_PROGRAM, clSetProgramReleaseCallback(program, NULL, NULL));
  assert_int_equal(CL_INVALID_PROGRAM, clSetProgramSpecializationConstant(program, 0, 4, &size));
  cl_int err;
  assert_null(clLinkProgram(env->context, 0, NULL, NULL, 1, &program, NULL, NULL, &err));
  assert_int_equal(CL_INVALID_PROGRAM, err);
  assert_null(clLinkProgram((cl_context)&fake, 0, NULL, NULL, 1, &program, NULL, NULL, &err));
  assert_int_equal(CL_INVALID_CONTEXT, err);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_create_with_source_rules),
      cmocka_unit_test(test_unsupported_creation_paths),
      cmocka_unit_test(test_build_and_info),
      cmocka_unit_test(test_syntax_error_reports_diagnostics),
      cmocka_unit_test(test_undefined_function_fails_the_build),
      cmocka_unit_test(test_build_options),
      cmocka_unit_test(test_build_with_callback),
      cmocka_unit_test(test_compile_link_with_headers),
      cmocka_unit_test(test_binary_round_trip_and_corruption),
      cmocka_unit_test(test_invalid_handles),
  };
  return cmocka_run_group_tests(tests, kiln_test_env_setup, kiln_test_env_teardown);
}
