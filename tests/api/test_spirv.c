/* SPIR-V programs through the loader (docs/spirv.md), the API side; test_spirv_kernels.c
 * runs kernels. Modules are made at build time by Debian's tools (tests/CMakeLists.txt).
 * Covered: the device's IL queries, cl_khr_il_program and the SPIR-V extensions;
 * clCreateProgramWithIL's errors (malformed, truncated, wrong version or addressing,
 * unknown opcode, random words) and a byte-swapped module; CL_PROGRAM_IL; specialization
 * constants of every type (defaults, bit-exact values, last value wins, rebuilds) and their
 * errors; argument info from OpName; clCompileProgram of IL linked with a source object;
 * program binaries of IL builds; build failures with a log (unsupported capability,
 * constructors, a module that fails validation); the compiled-code cache keyed by module
 * and constants.
 * `--crashing-translator` (KILN_LLVM_SPIRV = a script that dies of SIGSEGV): builds and
 * compiles fail with the signal in the log, and the process goes on.
 * `--no-translator` (run with KILN_LLVM_SPIRV set empty): no IL reported, and the IL entry
 * points refuse as the spec says. */
#include "spirv_test_modules.h"

#include <CL/cl_ext.h>
#include <dirent.h>
#include <unistd.h>

#define N 64

/* ---- device ---- */

static void test_device_queries(void **state) {
  struct kiln_test_env *env = *state;
  char versions[256];
  assert_cl_success(clGetDeviceInfo(env->device, CL_DEVICE_IL_VERSION, sizeof versions, versions, NULL));
  assert_string_equal("SPIR-V_1.0 SPIR-V_1.1 SPIR-V_1.2 SPIR-V_1.3", versions);
  cl_name_version ils[8];
  size_t size;
  assert_cl_success(clGetDeviceInfo(env->device, CL_DEVICE_ILS_WITH_VERSION, sizeof ils, ils, &size));
  assert_int_equal(4 * sizeof ils[0], size);
  for (cl_uint i = 0; i < 4; i++) {
    assert_string_equal("SPIR-V", ils[i].name);
    assert_int_equal(CL_MAKE_VERSION(1, i, 0), ils[i].version);
  }
  kiln_test_expect_extension(env->device, "cl_khr_il_program", CL_MAKE_VERSION(1, 0, 0));
  kiln_test_expect_extension(env->device, "cl_khr_spirv_no_integer_wrap_decoration", CL_MAKE_VERSION(1, 0, 0));
  kiln_test_expect_extension(env->device, "cl_khr_spirv_linkonce_odr", CL_MAKE_VERSION(1, 0, 0));
  clCreateProgramWithILKHR_fn create = kiln_test_extension_function(env->platform, "clCreateProgramWithILKHR");
  size_t il_size;
  void *il = module_bytes("spec_constants", &il_size);
  cl_int err;
  cl_program program = create(env->context, il, il_size, &err);
  assert_cl_success(err);
  build(env, program, "");
  assert_cl_success(clReleaseProgram(program));
  free(il);
}

/* ---- creation ---- */

static cl_int create_status(struct kiln_test_env *env, const void *il, size_t size) {
  cl_int err = CL_SUCCESS;
  cl_program program = clCreateProgramWithIL(env->context, il, size, &err);
  if (program) {
    assert_cl_success(err);
    assert_cl_success(clReleaseProgram(program));
  } else {
    assert_int_not_equal(CL_SUCCESS, err);
  }
  return err;
}

/* The index of the first instruction with `opcode`. */
static size_t find_instruction(const uint32_t *words, size_t count, uint32_t opcode) {
  for (size_t at = 5; at < count; at += words[at] >> 16)
    if ((words[at] & 0xffff) == opcode) return at;
  fail_msg("no instruction %u", opcode);
  return 0;
}

static void test_create_errors(void **state) {
  struct kiln_test_env *env = *state;
  size_t size;
  uint32_t *words = module_bytes("spec_constants", &size);
  size_t count = size / 4;
  cl_int err;
  assert_null(clCreateProgramWithIL(env->context, NULL, size, &err));
  assert_int_equal(CL_INVALID_VALUE, err);
  assert_null(clCreateProgramWithIL(env->context, words, 0, &err));
  assert_int_equal(CL_INVALID_VALUE, err);
  assert_null(clCreateProgramWithIL(NULL, words, size, &err));
  assert_int_equal(CL_INVALID_CONTEXT, err);
  struct kiln_test_fake_handle fake = kiln_test_fake_handle_like(env->context);
  assert_null(clCreateProgramWithIL((cl_context)&fake, words, size, &err));
  assert_int_equal(CL_INVALID_CONTEXT, err);

  assert_int_equal(CL_SUCCESS, create_status(env, words, size));
  size_t decorate = find_instruction(words, count, 71 /* OpDecorate */);
  assert_int_equal(CL_INVALID_VALUE, create_status(env, words, (decorate + 2) * 4)); /* cut inside an instruction */
  assert_int_equal(CL_INVALID_VALUE, create_status(env, words, size - 2));           /* not whole words */
  assert_int_equal(CL_INVALID_VALUE, create_status(env, words, 16));                 /* a header alone, short */
  static const char text[] = "kernel void k(global int *p) { *p = 1; }";
  assert_int_equal(CL_INVALID_VALUE, create_status(env, text, sizeof text - 1)); /* source is no IL */

  uint32_t *copy = malloc(size);
  memcpy(copy, words, size);
  copy[0] ^= 1; /* magic */
  assert_int_equal(CL_INVALID_VALUE, create_status(env, copy, size));
  memcpy(copy, words, size);
  copy[1] = 0x00010400; /* SPIR-V 1.4: the translator does not read all of it (docs/spirv.md) */
  assert_int_equal(CL_INVALID_VALUE, create_status(env, copy, size));
  copy[1] = 0x00020000;
  assert_int_equal(CL_INVALID_VALUE, create_status(env, copy, size));
  memcpy(copy, words, size);
  size_t memory_model = find_instruction(copy, count, 14 /* OpMemoryModel */);
  copy[memory_model + 1] = 1; /* Physical32 on a 64-bit device */
  assert_int_equal(CL_INVALID_VALUE, create_status(env, copy, size));
  memcpy(copy, words, size);
  for (size_t i = 0; i < 3; i++) copy[memory_model + i] = 1u << 16; /* three OpNop instead: no model */
  assert_int_equal(CL_INVALID_VALUE, create_status(env, copy, size));
  memcpy(copy, words, size);
  copy[decorate] = (copy[decorate] & 0xffff0000u) | 0x7ff0; /* an opcode SPIR-V does not have */
  assert_int_equal(CL_INVALID_VALUE, create_status(env, copy, size));
  memcpy(copy, words, size);
  copy[decorate] = (copy[decorate] & 0xffff) | (200u << 16); /* a word count past the end */
  assert_int_equal(CL_INVALID_VALUE, create_status(env, copy, size));
  /* Random words after a valid header. */
  cl_uint seed = 7;
  for (int round = 0; round < 50; round++) {
    memcpy(copy, words, size);
    for (size_t i = 5 + kiln_test_random(&seed) % (count - 5); i < count; i += 1 + kiln_test_random(&seed) % 7)
      copy[i] = kiln_test_random(&seed);
    cl_int status = create_status(env, copy, size);
    assert_true(status == CL_SUCCESS || status == CL_INVALID_VALUE);
  }

  /* The other byte order is SPIR-V too, and builds and runs. */
  for (size_t i = 0; i < count; i++) copy[i] = __builtin_bswap32(words[i]);
  cl_program swapped = clCreateProgramWithIL(env->context, copy, size, &err);
  assert_cl_success(err);
  build(env, swapped, "");
  cl_kernel kernel = clCreateKernel(swapped, "spec_constants", &err);
  assert_cl_success(err);
  assert_cl_success(clReleaseKernel(kernel));
  assert_cl_success(clReleaseProgram(swapped));
  free(copy);
  free(words);
}

static void test_program_queries(void **state) {
  struct kiln_test_env *env = *state;
  size_t size, got;
  void *il = module_bytes("kernels", &size);
  cl_int err;
  cl_program program = clCreateProgramWithIL(env->context, il, size, &err);
  assert_cl_success(err);
  unsigned char *back = malloc(size);
  assert_cl_success(clGetProgramInfo(program, CL_PROGRAM_IL, size, back, &got));
  assert_int_equal(size, got);
  assert_memory_equal(il, back, size);
  assert_int_equal(CL_INVALID_VALUE, clGetProgramInfo(program, CL_PROGRAM_IL, size - 1, back, NULL));
  char source[4];
  assert_cl_success(clGetProgramInfo(program, CL_PROGRAM_SOURCE, sizeof source, source, &got));
  assert_int_equal(1, got);
  assert_string_equal("", source);
  build(env, program, "");
  char names[512];
  assert_cl_success(clGetProgramInfo(program, CL_PROGRAM_KERNEL_NAMES, sizeof names, names, NULL));
  for (const char *k = "arithmetic\0math\0doubles\0reduce_local\0atomics\0vectors\0structs\0generic_pointers\0"; *k;
       k += strlen(k) + 1)
    assert_non_null(strstr(names, k));
  cl_bool present = CL_TRUE;
  assert_cl_success(clGetProgramInfo(program, CL_PROGRAM_SCOPE_GLOBAL_CTORS_PRESENT, sizeof present, &present, NULL));
  assert_int_equal(CL_FALSE, present);
  assert_cl_success(clReleaseProgram(program));

  cl_program from_source = source_program(env, "linked.cl");
  assert_cl_success(clGetProgramInfo(from_source, CL_PROGRAM_IL, 0, NULL, &got));
  assert_int_equal(0, got);
  assert_cl_success(clReleaseProgram(from_source));
  free(back);
  free(il);
}

/* ---- specialization constants ---- */

static void run_spec_constants(struct kiln_test_env *env, cl_program program, cl_ulong out[9]) {
  cl_int err;
  cl_kernel kernel = clCreateKernel(program, "spec_constants", &err);
  assert_cl_success(err);
  cl_mem buffer = make_buffer(env, NULL, 9 * sizeof(cl_ulong));
  cl_uint marker = 77;
  assert_cl_success(clSetKernelArg(kernel, 0, sizeof buffer, &buffer));
  assert_cl_success(clSetKernelArg(kernel, 1, sizeof marker, &marker));
  size_t one = 1;
  assert_cl_success(clEnqueueNDRangeKernel(env->queue, kernel, 1, NULL, &one, NULL, 0, NULL, NULL));
  assert_cl_success(clEnqueueReadBuffer(env->queue, buffer, CL_TRUE, 0, 9 * sizeof(cl_ulong), out, 0, NULL, NULL));
  assert_int_equal(77, out[8]);
  assert_cl_success(clReleaseMemObject(buffer));
  assert_cl_success(clReleaseKernel(kernel));
}

static cl_ulong bits_of_float(float f) {
  cl_uint u;
  memcpy(&u, &f, sizeof u);
  return u;
}

static cl_ulong bits_of_double(double d) {
  cl_ulong u;
  memcpy(&u, &d, sizeof u);
  return u;
}

static void test_spec_constants(void **state) {
  struct kiln_test_env *env = *state;
  cl_program program = il_program(env, "spec_constants");
  cl_ulong out[9];
  build(env, program, "");
  run_spec_constants(env, program, out);
  const cl_ulong defaults[8] = {
      1, 200, 1000, 123456, 4886718345ull, 0x3e00 /* half 1.5 */, bits_of_float(2.5f), bits_of_double(-0.125)};
  assert_memory_equal(defaults, out, sizeof defaults);

  /* Set every one (a float denormal and a NaN payload stay bit-exact), rebuild. */
  cl_uchar no = 0;
  cl_uchar u8 = 255;
  cl_ushort u16 = 65535;
  cl_uint u32 = 0xdeadbeef;
  cl_ulong u64 = 0xfedcba9876543210ull;
  cl_ushort h = 0x7bff;               /* the largest half */
  cl_uint f = 0x00000001;             /* the smallest float denormal */
  cl_ulong d = 0x7ff8000000000123ull; /* a NaN with a payload */
  assert_cl_success(clSetProgramSpecializationConstant(program, 1, 1, &no));
  assert_cl_success(clSetProgramSpecializationConstant(program, 2, 1, &u8));
  assert_cl_success(clSetProgramSpecializationConstant(program, 3, 2, &u16));
  assert_cl_success(clSetProgramSpecializationConstant(program, 4, 4, &u32));
  assert_cl_success(clSetProgramSpecializationConstant(program, 5, 8, &u64));
  assert_cl_success(clSetProgramSpecializationConstant(program, 6, 2, &h));
  assert_cl_success(clSetProgramSpecializationConstant(program, 7, 4, &f));
  assert_cl_success(clSetProgramSpecializationConstant(program, 8, 8, &d));
  /* The built executable keeps its values until the next build. */
  run_spec_constants(env, program, out);
  assert_memory_equal(defaults, out, sizeof defaults);
  build(env, program, "");
  run_spec_constants(env, program, out);
  const cl_ulong set[8] = {0, 255, 65535, 0xdeadbeef, 0xfedcba9876543210ull, 0x7bff, 1, 0x7ff8000000000123ull};
  assert_memory_equal(set, out, sizeof set);

  /* The last value wins; any non-zero uchar is true. */
  cl_uchar yes = 42;
  cl_uint u32b = 5;
  assert_cl_success(clSetProgramSpecializationConstant(program, 1, 1, &yes));
  assert_cl_success(clSetProgramSpecializationConstant(program, 4, 4, &u32b));
  build(env, program, "");
  run_spec_constants(env, program, out);
  assert_int_equal(1, out[0]);
  assert_int_equal(5, out[3]);
  assert_int_equal(255, out[1]);
  assert_cl_success(clReleaseProgram(program));
}

static void test_spec_constant_errors(void **state) {
  struct kiln_test_env *env = *state;
  cl_program program = il_program(env, "spec_constants");
  cl_uint value = 1;
  assert_int_equal(CL_INVALID_SPEC_ID, clSetProgramSpecializationConstant(program, 9, 4, &value));
  assert_int_equal(CL_INVALID_SPEC_ID, clSetProgramSpecializationConstant(program, 0, 4, &value));
  assert_int_equal(CL_INVALID_VALUE, clSetProgramSpecializationConstant(program, 4, 8, &value)); /* a 4-byte one */
  assert_int_equal(CL_INVALID_VALUE, clSetProgramSpecializationConstant(program, 4, 2, &value));
  assert_int_equal(CL_INVALID_VALUE, clSetProgramSpecializationConstant(program, 1, 4, &value)); /* bool: 1 byte */
  assert_int_equal(CL_INVALID_VALUE, clSetProgramSpecializationConstant(program, 4, 4, NULL));
  assert_int_equal(CL_INVALID_PROGRAM, clSetProgramSpecializationConstant(NULL, 4, 4, &value));
  struct kiln_test_fake_handle fake = kiln_test_fake_handle_like(program);
  assert_int_equal(CL_INVALID_PROGRAM, clSetProgramSpecializationConstant((cl_program)&fake, 4, 4, &value));
  /* A source program has no specialization constants to set. */
  cl_program source = source_program(env, "linked.cl");
  assert_int_equal(CL_INVALID_PROGRAM, clSetProgramSpecializationConstant(source, 4, 4, &value));
  assert_cl_success(clReleaseProgram(source));
  /* Failed calls changed nothing: the defaults are built. */
  build(env, program, "");
  cl_ulong out[9];
  run_spec_constants(env, program, out);
  assert_int_equal(123456, out[3]);
  assert_cl_success(clReleaseProgram(program));
}

/* ---- argument info, compile and link, binaries ---- */

static void test_kernel_arg_info(void **state) {
  struct kiln_test_env *env = *state;
  cl_program program = il_program(env, "spec_constants");
  build(env, program, "");
  cl_int err;
  cl_kernel kernel = clCreateKernel(program, "spec_constants", &err);
  assert_cl_success(err);
  char text[64];
  assert_cl_success(clGetKernelArgInfo(kernel, 0, CL_KERNEL_ARG_NAME, sizeof text, text, NULL));
  assert_string_equal("out", text);
  assert_cl_success(clGetKernelArgInfo(kernel, 1, CL_KERNEL_ARG_NAME, sizeof text, text, NULL));
  assert_string_equal("marker", text);
  /* SPIR-V's integers have no sign in OpenCL modules: the translator names them signed. */
  assert_cl_success(clGetKernelArgInfo(kernel, 0, CL_KERNEL_ARG_TYPE_NAME, sizeof text, text, NULL));
  assert_string_equal("long*", text);
  cl_kernel_arg_address_qualifier address;
  assert_cl_success(clGetKernelArgInfo(kernel, 0, CL_KERNEL_ARG_ADDRESS_QUALIFIER, sizeof address, &address, NULL));
  assert_int_equal(CL_KERNEL_ARG_ADDRESS_GLOBAL, address);
  assert_cl_success(clGetKernelArgInfo(kernel, 1, CL_KERNEL_ARG_ADDRESS_QUALIFIER, sizeof address, &address, NULL));
  assert_int_equal(CL_KERNEL_ARG_ADDRESS_PRIVATE, address);
  cl_uint num_args;
  assert_cl_success(clGetKernelInfo(kernel, CL_KERNEL_NUM_ARGS, sizeof num_args, &num_args, NULL));
  assert_int_equal(2, num_args);
  assert_cl_success(clReleaseKernel(kernel));
  assert_cl_success(clReleaseProgram(program));

  /* clang-15 kept the source's names in the module (-fno-discard-value-names). */
  program = il_program(env, "kernels");
  build(env, program, "");
  kernel = clCreateKernel(program, "structs", &err);
  assert_cl_success(err);
  assert_cl_success(clGetKernelArgInfo(kernel, 1, CL_KERNEL_ARG_NAME, sizeof text, text, NULL));
  assert_string_equal("by_value", text);
  assert_cl_success(clReleaseKernel(kernel));
  assert_cl_success(clReleaseProgram(program));
}

static void test_compile_and_link_with_source(void **state) {
  struct kiln_test_env *env = *state;
  cl_program il = il_program(env, "linked");
  static const char *helper_source = "int helper(int x) { return x * x + 1; }\n";
  cl_int err;
  cl_program source = clCreateProgramWithSource(env->context, 1, &helper_source, NULL, &err);
  assert_cl_success(err);
  assert_cl_success(clCompileProgram(il, 1, &env->device, "", 0, NULL, NULL, NULL, NULL));
  assert_cl_success(clCompileProgram(source, 1, &env->device, "", 0, NULL, NULL, NULL, NULL));
  cl_program_binary_type type;
  assert_cl_success(clGetProgramBuildInfo(il, env->device, CL_PROGRAM_BINARY_TYPE, sizeof type, &type, NULL));
  assert_int_equal(CL_PROGRAM_BINARY_TYPE_COMPILED_OBJECT, type);
  /* Building the IL alone leaves `helper` undefined: a failure with a log. */
  cl_program alone = il_program(env, "linked");
  assert_int_equal(CL_BUILD_PROGRAM_FAILURE, clBuildProgram(alone, 1, &env->device, "", NULL, NULL));
  char *log = build_log(env, alone);
  assert_non_null(strstr(log, "helper"));
  free(log);
  assert_cl_success(clReleaseProgram(alone));

  cl_program inputs[2] = {il, source};
  cl_program linked = clLinkProgram(env->context, 1, &env->device, "", 2, inputs, NULL, NULL, &err);
  assert_cl_success(err);
  cl_kernel kernel = clCreateKernel(linked, "uses_helper", &err);
  assert_cl_success(err);
  cl_mem buffer = make_buffer(env, NULL, N * sizeof(cl_int));
  assert_cl_success(clSetKernelArg(kernel, 0, sizeof buffer, &buffer));
  size_t global = N;
  assert_cl_success(clEnqueueNDRangeKernel(env->queue, kernel, 1, NULL, &global, NULL, 0, NULL, NULL));
  cl_int out[N];
  assert_cl_success(clEnqueueReadBuffer(env->queue, buffer, CL_TRUE, 0, sizeof out, out, 0, NULL, NULL));
  for (int i = 0; i < N; i++) assert_int_equal(i * i + 1, out[i]);
  assert_cl_success(clReleaseMemObject(buffer));
  assert_cl_success(clReleaseKernel(kernel));
  assert_cl_success(clReleaseProgram(linked));
  assert_cl_success(clReleaseProgram(source));
  assert_cl_success(clReleaseProgram(il));
}

static void test_binary_of_il_build(void **state) {
  struct kiln_test_env *env = *state;
  cl_program program = il_program(env, "spec_constants");
  cl_uint u32 = 99;
  assert_cl_success(clSetProgramSpecializationConstant(program, 4, 4, &u32));
  build(env, program, "");
  size_t size;
  assert_cl_success(clGetProgramInfo(program, CL_PROGRAM_BINARY_SIZES, sizeof size, &size, NULL));
  unsigned char *binary = malloc(size);
  assert_cl_success(clGetProgramInfo(program, CL_PROGRAM_BINARIES, sizeof binary, &binary, NULL));
  cl_int err, status;
  cl_program reloaded =
      clCreateProgramWithBinary(env->context, 1, &env->device, &size, (const unsigned char **)&binary, &status, &err);
  assert_cl_success(err);
  build(env, reloaded, NULL);
  cl_ulong out[9];
  run_spec_constants(env, reloaded, out);
  assert_int_equal(99, out[3]);
  size_t il_size;
  assert_cl_success(clGetProgramInfo(reloaded, CL_PROGRAM_IL, 0, NULL, &il_size));
  assert_int_equal(0, il_size); /* a binary program holds no IL */
  assert_cl_success(clReleaseProgram(reloaded));
  assert_cl_success(clReleaseProgram(program));
  free(binary);
}

/* ---- build failures ---- */

static void expect_build_failure(struct kiln_test_env *env, const char *module, const char *log_says) {
  cl_program program = il_program(env, module);
  assert_int_equal(CL_BUILD_PROGRAM_FAILURE, clBuildProgram(program, 1, &env->device, "", NULL, NULL));
  cl_build_status status;
  assert_cl_success(clGetProgramBuildInfo(program, env->device, CL_PROGRAM_BUILD_STATUS, sizeof status, &status, NULL));
  assert_int_equal(CL_BUILD_ERROR, status);
  char *log = build_log(env, program);
  if (!strstr(log, log_says)) fail_msg("the log of %s lacks \"%s\": %s", module, log_says, log);
  free(log);
  cl_int err;
  assert_null(clCreateKernel(program, "k", &err));
  assert_int_equal(CL_INVALID_PROGRAM_EXECUTABLE, err);
  assert_cl_success(clReleaseProgram(program));
}

static void test_build_failures(void **state) {
  struct kiln_test_env *env = *state;
  expect_build_failure(env, "mipmap_capability", "capability 15 is not supported");
  expect_build_failure(env, "initializer", "Initializer");

  /* Cut at an instruction's end, the module parses (CL_SUCCESS at creation) but is not
   * valid: the validator's warning and the translator's refusal are in the log. */
  size_t size;
  void *il = module_bytes("spec_constants", &size);
  cl_int err;
  cl_program cut = clCreateProgramWithIL(env->context, il, size - 4 /* OpFunctionEnd */, &err);
  assert_cl_success(err);
  assert_int_equal(CL_BUILD_PROGRAM_FAILURE, clBuildProgram(cut, 1, &env->device, "", NULL, NULL));
  char *log = build_log(env, cut);
  assert_non_null(strstr(log, "warning: SPIR-V validation"));
  assert_non_null(strstr(log, "translator refused the module"));
  free(log);
  free(il);
  assert_cl_success(clReleaseProgram(cut));
  /* Bad options are the options' error, as for source. */
  cl_program program = il_program(env, "spec_constants");
  assert_int_equal(CL_INVALID_BUILD_OPTIONS, clBuildProgram(program, 1, &env->device, "-no-such-option", NULL, NULL));
  assert_cl_success(clReleaseProgram(program));
}

/* ---- the compiled-code cache ---- */

static char cache_dir[256];

static unsigned cache_entries(void) {
  DIR *dir = opendir(cache_dir);
  unsigned count = 0;
  for (struct dirent *e; dir && (e = readdir(dir));) count += strstr(e->d_name, ".kcache") != NULL;
  if (dir) closedir(dir);
  return count;
}

static void build_and_load(struct kiln_test_env *env, cl_program program) {
  build(env, program, "");
  cl_int err;
  cl_kernel kernel = clCreateKernel(program, "spec_constants", &err); /* the code is made (and stored) here */
  assert_cl_success(err);
  assert_cl_success(clReleaseKernel(kernel));
}

static void test_cache(void **state) {
  struct kiln_test_env *env = *state;
  unsigned before = cache_entries();
  cl_program program = il_program(env, "spec_constants");
  cl_uint u32 = 31337;
  assert_cl_success(clSetProgramSpecializationConstant(program, 4, 4, &u32));
  build_and_load(env, program);
  assert_int_equal(before + 1, cache_entries());
  assert_cl_success(clReleaseProgram(program));
  /* The same module and constants: a hit (no new entry), with the right value. */
  program = il_program(env, "spec_constants");
  assert_cl_success(clSetProgramSpecializationConstant(program, 4, 4, &u32));
  build_and_load(env, program);
  assert_int_equal(before + 1, cache_entries());
  cl_ulong out[9];
  run_spec_constants(env, program, out);
  assert_int_equal(31337, out[3]);
  /* Another value is another entry. */
  u32 = 31338;
  assert_cl_success(clSetProgramSpecializationConstant(program, 4, 4, &u32));
  build_and_load(env, program);
  assert_int_equal(before + 2, cache_entries());
  run_spec_constants(env, program, out);
  assert_int_equal(31338, out[3]);
  assert_cl_success(clReleaseProgram(program));
}

/* ---- without a translator (KILN_LLVM_SPIRV="") ---- */

static void test_no_translator(void **state) {
  struct kiln_test_env *env = *state;
  char versions[64] = "x";
  size_t size;
  assert_cl_success(clGetDeviceInfo(env->device, CL_DEVICE_IL_VERSION, sizeof versions, versions, &size));
  assert_int_equal(1, size);
  assert_string_equal("", versions);
  assert_cl_success(clGetDeviceInfo(env->device, CL_DEVICE_ILS_WITH_VERSION, 0, NULL, &size));
  assert_int_equal(0, size);
  assert_false(kiln_test_extension_listed(env->device, "cl_khr_il_program"));
  assert_false(kiln_test_extension_listed(env->device, "cl_khr_spirv_no_integer_wrap_decoration"));
  assert_false(kiln_test_extension_listed(env->device, "cl_khr_spirv_linkonce_odr"));
  assert_null(clGetExtensionFunctionAddressForPlatform(env->platform, "clCreateProgramWithILKHR"));
  size_t il_size;
  void *il = module_bytes("spec_constants", &il_size);
  cl_int err;
  assert_null(clCreateProgramWithIL(env->context, il, il_size, &err));
  assert_int_equal(CL_INVALID_OPERATION, err);
  free(il);
  cl_program source = source_program(env, "linked.cl");
  cl_uint value = 1;
  assert_int_equal(CL_INVALID_OPERATION, clSetProgramSpecializationConstant(source, 4, 4, &value));
  assert_cl_success(clReleaseProgram(source));
}

/* ---- a translator that crashes (KILN_LLVM_SPIRV=tests/spirv/crashing_translator.sh) ---- */

static void test_crashing_translator(void **state) {
  struct kiln_test_env *env = *state;
  expect_build_failure(env, "spec_constants", "killed by signal 11");
  /* Compile fails the same way, and the process goes on: another build, the same. */
  cl_program program = il_program(env, "kernels");
  assert_int_equal(CL_COMPILE_PROGRAM_FAILURE,
                   clCompileProgram(program, 1, &env->device, "", 0, NULL, NULL, NULL, NULL));
  char *log = build_log(env, program);
  assert_non_null(strstr(log, "translator refused the module"));
  free(log);
  assert_cl_success(clReleaseProgram(program));
  expect_build_failure(env, "features", "killed by signal 11");
}

int main(int argc, char **argv) {
  if (argc > 1 && strcmp(argv[1], "--crashing-translator") == 0) {
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_crashing_translator)};
    return cmocka_run_group_tests(tests, kiln_test_env_setup, kiln_test_env_teardown);
  }
  if (argc > 1 && strcmp(argv[1], "--no-translator") == 0) {
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_no_translator)};
    return cmocka_run_group_tests(tests, kiln_test_env_setup, kiln_test_env_teardown);
  }
  /* A cache of this run's own, set before Kiln reads the environment. */
  snprintf(cache_dir, sizeof cache_dir, "/tmp/kiln-test-spirv-cache-%d", (int)getpid());
  setenv("KILN_CACHE_DIR", cache_dir, 1);
  unsetenv("KILN_CACHE");
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_device_queries),
      cmocka_unit_test(test_create_errors),
      cmocka_unit_test(test_program_queries),
      cmocka_unit_test(test_spec_constants),
      cmocka_unit_test(test_spec_constant_errors),
      cmocka_unit_test(test_kernel_arg_info),
      cmocka_unit_test(test_compile_and_link_with_source),
      cmocka_unit_test(test_binary_of_il_build),
      cmocka_unit_test(test_build_failures),
      cmocka_unit_test(test_cache),
  };
  int failed = cmocka_run_group_tests(tests, kiln_test_env_setup, kiln_test_env_teardown);
  char command[400];
  snprintf(command, sizeof command, "rm -rf '%s'", cache_dir);
  if (system(command) != 0) fprintf(stderr, "could not remove %s\n", cache_dir);
  return failed;
}
