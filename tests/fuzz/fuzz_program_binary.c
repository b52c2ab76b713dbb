/* clCreateProgramWithBinary on arbitrary bytes, then, when accepted, a build, kernel
 * creation (code generation) and the program's queries. A binary Kiln does not recognize
 * must be CL_INVALID_BINARY with binary_status set; one it accepts must build or fail the
 * build with a log.
 *
 * With KILN_FUZZ_MAKE_SEEDS=DIR, it writes seeds instead and exits: binaries of Kiln's own
 * format made by this build (a compiled object, a library and an executable, with and
 * without argument info and optimization); a committed binary would go stale with the
 * format or LLVM. */
#include "fuzz_common.h"

static void write_binary(const char *dir, const char *name, cl_program program) {
  size_t size = 0;
  FUZZ_CHECK(clGetProgramInfo(program, CL_PROGRAM_BINARY_SIZES, sizeof size, &size, NULL));
  unsigned char *bytes = malloc(size);
  FUZZ_CHECK(clGetProgramInfo(program, CL_PROGRAM_BINARIES, sizeof bytes, &bytes, NULL));
  char path[4096];
  snprintf(path, sizeof path, "%s/%s", dir, name);
  FILE *f = fopen(path, "wb");
  if (!f || fwrite(bytes, 1, size, f) != size) abort();
  fclose(f);
  free(bytes);
}

static void make_seeds(const char *dir) {
  struct fuzz_env *env = fuzz_env();
  const char *source = "int twice(int x) { return 2 * x; }\n"
                       "kernel void k(global int *p, local int *l, int n) {\n"
                       "  l[get_local_id(0)] = p[get_global_id(0)];\n"
                       "  barrier(CLK_LOCAL_MEM_FENCE);\n"
                       "  for (int i = 0; i < n; i++) p[get_global_id(0)] += twice(l[0]);\n"
                       "}\n";
  const char *options[] = {NULL, "-cl-kernel-arg-info", "-cl-opt-disable"};
  for (int o = 0; o < 3; o++) {
    cl_int err;
    cl_program object = clCreateProgramWithSource(env->context, 1, &source, NULL, &err);
    FUZZ_CHECK(err);
    FUZZ_CHECK(clCompileProgram(object, 1, &env->device, options[o], 0, NULL, NULL, NULL, NULL));
    char name[64];
    snprintf(name, sizeof name, "object-%d", o);
    write_binary(dir, name, object);
    cl_program library = clLinkProgram(env->context, 1, &env->device, "-create-library", 1, &object, NULL, NULL, &err);
    FUZZ_CHECK(err);
    snprintf(name, sizeof name, "library-%d", o);
    write_binary(dir, name, library);
    cl_program executable = clLinkProgram(env->context, 1, &env->device, NULL, 1, &library, NULL, NULL, &err);
    FUZZ_CHECK(err);
    snprintf(name, sizeof name, "executable-%d", o);
    write_binary(dir, name, executable);
    FUZZ_CHECK(clReleaseProgram(executable));
    FUZZ_CHECK(clReleaseProgram(library));
    FUZZ_CHECK(clReleaseProgram(object));
  }
}

int LLVMFuzzerInitialize(int *argc, char ***argv) {
  (void)argc;
  (void)argv;
  const char *dir = getenv("KILN_FUZZ_MAKE_SEEDS");
  if (dir) {
    make_seeds(dir);
    exit(0);
  }
  return 0;
}

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size) {
  struct fuzz_env *env = fuzz_env();
  cl_int status = 12345, err = 12345;
  cl_program program = clCreateProgramWithBinary(env->context, 1, &env->device, &size, &data, &status, &err);
  fuzz_expect_status(err, "clCreateProgramWithBinary");
  if (!program) {
    if (err == CL_SUCCESS || (size && err == CL_INVALID_BINARY && status != CL_INVALID_BINARY)) abort();
    return 0;
  }
  if (err != CL_SUCCESS || status != CL_SUCCESS) abort();
  err = clBuildProgram(program, 1, &env->device, NULL, NULL, NULL);
  fuzz_expect_status(err, "clBuildProgram");
  if (err == CL_SUCCESS) fuzz_describe_kernels(env, program);
  size_t log_size = 0;
  FUZZ_CHECK(clGetProgramBuildInfo(program, env->device, CL_PROGRAM_BUILD_LOG, 0, NULL, &log_size));
  FUZZ_CHECK(clReleaseProgram(program));
  return 0;
}
