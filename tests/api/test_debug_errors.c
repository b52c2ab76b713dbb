/* KILN_DEBUG=err through the loader: every failing entry point call writes exactly one
 * line "kiln-trace err <entry point> <code name>: <reason>" to KILN_DEBUG_FILE, and a
 * successful call writes nothing. Run twice by CTest: plainly (main() sets KILN_DEBUG=err
 * and KILN_DEBUG_FILE before the first OpenCL call: Kiln reads them once), and with
 * --off, where KILN_DEBUG is unset: the same calls then write nothing, neither to the
 * file nor to stderr. */
#include "kiln_test.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static bool debug_on = true;
static char log_path[256];
static long log_read; /* bytes of the file already checked */

/* The text Kiln appended to the file since the last call (caller frees). */
static char *take_new_text(void) {
  FILE *f = fopen(log_path, "r");
  if (!f) return calloc(1, 1); /* not created (yet): nothing written */
  fseek(f, 0, SEEK_END);
  long end = ftell(f);
  char *text = calloc((size_t)(end - log_read) + 1, 1);
  assert_non_null(text);
  fseek(f, log_read, SEEK_SET);
  size_t n = fread(text, 1, (size_t)(end - log_read), f);
  fclose(f);
  text[n] = '\0';
  log_read = end;
  return text;
}

static void expect_nothing(void) {
  char *text = take_new_text();
  if (*text) fail_msg("expected no line, got: %s", text);
  free(text);
}

/* Exactly one new line, for `entry_point` and `code`, whose reason contains `fragment`. */
static void expect_line(const char *entry_point, const char *code, const char *fragment) {
  if (!debug_on) {
    expect_nothing();
    return;
  }
  char *text = take_new_text();
  char prefix[160];
  snprintf(prefix, sizeof prefix, "kiln-trace err %s %s: ", entry_point, code);
  const char *newline = strchr(text, '\n');
  if (!newline || newline[1] != '\0') fail_msg("expected exactly one line for %s, got: \"%s\"", entry_point, text);
  if (strncmp(text, prefix, strlen(prefix)) != 0) fail_msg("expected \"%s...\", got: %s", prefix, text);
  const char *reason = text + strlen(prefix);
  if (reason == newline) fail_msg("no reason: %s", text);
  if (fragment && !strstr(reason, fragment)) fail_msg("expected the reason to mention \"%s\", got: %s", fragment, text);
  free(text);
}

static const char *source = "kernel void k(global int *out, int n) { out[get_global_id(0)] = n; }\n";

static cl_kernel build_kernel(struct kiln_test_env *env, cl_program *program) {
  cl_int err;
  *program = clCreateProgramWithSource(env->context, 1, &source, NULL, &err);
  assert_cl_success(err);
  assert_cl_success(clBuildProgram(*program, 0, NULL, NULL, NULL, NULL));
  cl_kernel kernel = clCreateKernel(*program, "k", &err);
  assert_cl_success(err);
  return kernel;
}

static void test_queries(void **state) {
  struct kiln_test_env *env = *state;
  expect_nothing(); /* the fixture's calls all succeeded */
  cl_uint units;
  assert_cl_success(clGetDeviceInfo(env->device, CL_DEVICE_MAX_COMPUTE_UNITS, sizeof units, &units, NULL));
  expect_nothing();
  assert_int_equal(CL_INVALID_VALUE, clGetDeviceInfo(env->device, 0x7fff, sizeof units, &units, NULL));
  expect_line("clGetDeviceInfo", "CL_INVALID_VALUE", "param_name 0x7fff is not a device query");
  assert_int_equal(CL_INVALID_VALUE, clGetDeviceInfo(env->device, CL_DEVICE_NAME, 1, &units, NULL));
  expect_line("clGetDeviceInfo", "CL_INVALID_VALUE", "param_value_size 1 is smaller than the value");
  /* The loader answers an empty list itself (it has no handle to forward it by): through
   * Kiln's table, as a loader that forwards it would. */
  assert_int_equal(CL_INVALID_VALUE, kiln_test_dispatch_of(env->context)->clWaitForEvents(0, NULL));
  expect_line("clWaitForEvents", "CL_INVALID_VALUE", "num_events is 0 and event_list is NULL");
}

static void test_buffers(void **state) {
  struct kiln_test_env *env = *state;
  cl_int err = CL_SUCCESS;
  assert_null(clCreateBuffer(env->context, CL_MEM_READ_ONLY | CL_MEM_WRITE_ONLY, 64, NULL, &err));
  assert_int_equal(CL_INVALID_VALUE, err);
  expect_line("clCreateBuffer", "CL_INVALID_VALUE", "more than one of CL_MEM_READ_WRITE");
  assert_null(clCreateBuffer(env->context, CL_MEM_USE_HOST_PTR, 64, NULL, &err));
  assert_int_equal(CL_INVALID_HOST_PTR, err);
  expect_line("clCreateBuffer", "CL_INVALID_HOST_PTR", "host_ptr is NULL");
  /* errcode_ret NULL: still reported. */
  assert_null(clCreateBuffer(env->context, 0, 0, NULL, NULL));
  expect_line("clCreateBuffer", "CL_INVALID_BUFFER_SIZE", NULL);

  cl_mem buffer = clCreateBuffer(env->context, CL_MEM_READ_WRITE, 64, NULL, &err);
  assert_cl_success(err);
  expect_nothing();
  char host[128];
  assert_int_equal(CL_INVALID_VALUE, clEnqueueReadBuffer(env->queue, buffer, CL_TRUE, 32, 64, host, 0, NULL, NULL));
  expect_line("clEnqueueReadBuffer", "CL_INVALID_VALUE",
              "offset 32 + size 64 is past the end of the buffer (64 bytes)");
  assert_cl_success(clEnqueueReadBuffer(env->queue, buffer, CL_TRUE, 0, 64, host, 0, NULL, NULL));
  expect_nothing();
  assert_int_equal(CL_INVALID_EVENT_WAIT_LIST,
                   clEnqueueWriteBuffer(env->queue, buffer, CL_TRUE, 0, 64, host, 2, NULL, NULL));
  expect_line("clEnqueueWriteBuffer", "CL_INVALID_EVENT_WAIT_LIST", "num_events_in_wait_list is 2");

  /* A released handle: the loader cannot forward it, so through the table it had. */
  const struct _cl_icd_dispatch *dispatch = kiln_test_dispatch_of(buffer);
  assert_cl_success(clReleaseMemObject(buffer));
  expect_nothing();
  size_t size;
  assert_int_equal(CL_INVALID_MEM_OBJECT, dispatch->clGetMemObjectInfo(buffer, CL_MEM_SIZE, sizeof size, &size, NULL));
  expect_line("clGetMemObjectInfo", "CL_INVALID_MEM_OBJECT", "is not a valid cl_mem");
  /* A handle of another type. */
  assert_int_equal(CL_INVALID_MEM_OBJECT, clRetainMemObject((cl_mem)env->queue));
  expect_line("clRetainMemObject", "CL_INVALID_MEM_OBJECT", "is not a live object of this type");
}

static void test_programs_and_kernels(void **state) {
  struct kiln_test_env *env = *state;
  cl_int err;
  const char *broken = "kernel void broken(global int *p) { p[0] = undeclared_thing; }\n";
  cl_program bad = clCreateProgramWithSource(env->context, 1, &broken, NULL, &err);
  assert_cl_success(err);
  assert_int_equal(CL_BUILD_PROGRAM_FAILURE, clBuildProgram(bad, 0, NULL, NULL, NULL, NULL));
  expect_line("clBuildProgram", "CL_BUILD_PROGRAM_FAILURE", "CL_PROGRAM_BUILD_LOG): ");
  assert_cl_success(clReleaseProgram(bad));

  cl_program program;
  cl_kernel kernel = build_kernel(env, &program);
  expect_nothing();
  assert_null(clCreateKernel(program, "nope", &err));
  assert_int_equal(CL_INVALID_KERNEL_NAME, err);
  expect_line("clCreateKernel", "CL_INVALID_KERNEL_NAME", "no kernel named \"nope\" (its kernels: k)");

  cl_mem out = clCreateBuffer(env->context, CL_MEM_READ_WRITE, 64 * sizeof(cl_int), NULL, &err);
  assert_cl_success(err);
  short small = 1;
  assert_int_equal(CL_INVALID_ARG_SIZE, clSetKernelArg(kernel, 1, sizeof small, &small));
  expect_line("clSetKernelArg", "CL_INVALID_ARG_SIZE", "argument 1 of kernel k is a int of 4 bytes: arg_size is 2");
  assert_int_equal(CL_INVALID_ARG_SIZE, clSetKernelArg(kernel, 0, 4, &out));
  expect_line("clSetKernelArg", "CL_INVALID_ARG_SIZE", "arg_size 4 is not sizeof(cl_mem)");
  assert_int_equal(CL_INVALID_ARG_INDEX, clSetKernelArg(kernel, 2, sizeof out, &out));
  expect_line("clSetKernelArg", "CL_INVALID_ARG_INDEX", "arg_index 2: kernel k has 2 arguments");
  assert_cl_success(clSetKernelArg(kernel, 0, sizeof out, &out));
  expect_nothing();

  size_t global = 64, local = 64;
  assert_int_equal(CL_INVALID_KERNEL_ARGS,
                   clEnqueueNDRangeKernel(env->queue, kernel, 1, NULL, &global, NULL, 0, NULL, NULL));
  expect_line("clEnqueueNDRangeKernel", "CL_INVALID_KERNEL_ARGS", "argument 1 of kernel k is not set");
  cl_int n = 7;
  assert_cl_success(clSetKernelArg(kernel, 1, sizeof n, &n));
  assert_int_equal(CL_INVALID_WORK_DIMENSION,
                   clEnqueueNDRangeKernel(env->queue, kernel, 4, NULL, &global, NULL, 0, NULL, NULL));
  expect_line("clEnqueueNDRangeKernel", "CL_INVALID_WORK_DIMENSION", "work_dim is 4");
  local = 0;
  assert_int_equal(CL_INVALID_WORK_GROUP_SIZE,
                   clEnqueueNDRangeKernel(env->queue, kernel, 1, NULL, &global, &local, 0, NULL, NULL));
  expect_line("clEnqueueNDRangeKernel", "CL_INVALID_WORK_GROUP_SIZE", "local_work_size[0] is 0");
  local = 64;
  assert_cl_success(clEnqueueNDRangeKernel(env->queue, kernel, 1, NULL, &global, &local, 0, NULL, NULL));
  assert_cl_success(clFinish(env->queue));
  expect_nothing();

  /* An extension entry point reports its own name (found through the platform). */
  typedef cl_int(CL_API_CALL * sub_group_info_fn)(cl_kernel, cl_device_id, cl_kernel_sub_group_info, size_t,
                                                  const void *, size_t, void *, size_t *);
  sub_group_info_fn sub_group_info =
      (sub_group_info_fn)kiln_test_extension_function(env->platform, "clGetKernelSubGroupInfoKHR");
  struct kiln_test_fake_handle fake = kiln_test_fake_handle_like(kernel);
  size_t sizes;
  assert_int_equal(CL_INVALID_KERNEL,
                   sub_group_info((cl_kernel)&fake, env->device, CL_KERNEL_MAX_SUB_GROUP_SIZE_FOR_NDRANGE,
                                  sizeof global, &global, sizeof sizes, &sizes, NULL));
  expect_line("clGetKernelSubGroupInfoKHR", "CL_INVALID_KERNEL", "is not a valid cl_kernel");

  assert_cl_success(clReleaseMemObject(out));
  assert_cl_success(clReleaseKernel(kernel));
  assert_cl_success(clReleaseProgram(program));
  expect_nothing();
}

/* A reason recorded in one call is never shown for a later one. */
static void test_no_stale_reason(void **state) {
  struct kiln_test_env *env = *state;
  assert_int_equal(CL_INVALID_VALUE, kiln_test_dispatch_of(env->context)->clWaitForEvents(0, NULL));
  expect_line("clWaitForEvents", "CL_INVALID_VALUE", "num_events is 0");
  assert_int_equal(CL_INVALID_COMMAND_QUEUE, clFinish((cl_command_queue)env->context));
  expect_line("clFinish", "CL_INVALID_COMMAND_QUEUE", "is not a valid cl_command_queue");
}

int main(int argc, char **argv) {
  const char *dir = getenv("TMPDIR");
  snprintf(log_path, sizeof log_path, "%s/kiln-debug-errors-%ld.log", dir && *dir ? dir : "/tmp", (long)getpid());
  unlink(log_path);
  debug_on = !(argc > 1 && strcmp(argv[1], "--off") == 0);
  int saved_stderr = -1;
  char stderr_path[300];
  snprintf(stderr_path, sizeof stderr_path, "%s.stderr", log_path);
  unsetenv("KILN_TRACE");
  unsetenv("KILN_TRACE_FILE");
  setenv("KILN_DEBUG_FILE", log_path, 1);
  if (debug_on) {
    setenv("KILN_DEBUG", "err", 1);
  } else {
    /* Off: Kiln must write nothing anywhere; stderr is captured to check that. */
    unsetenv("KILN_DEBUG");
    fflush(stderr);
    saved_stderr = dup(STDERR_FILENO);
    int fd = open(stderr_path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (saved_stderr < 0 || fd < 0 || dup2(fd, STDERR_FILENO) < 0) return 1;
    close(fd);
  }
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_queries),
      cmocka_unit_test(test_buffers),
      cmocka_unit_test(test_programs_and_kernels),
      cmocka_unit_test(test_no_stale_reason),
  };
  int failed = cmocka_run_group_tests(tests, kiln_test_env_setup, kiln_test_env_teardown);
  if (!debug_on) {
    fflush(stderr);
    dup2(saved_stderr, STDERR_FILENO);
    close(saved_stderr);
    FILE *f = fopen(stderr_path, "r");
    char line[1024];
    while (f && fgets(line, sizeof line, f)) {
      fputs(line, stderr); /* what the suite itself wrote */
      if (strstr(line, "kiln-trace")) {
        fprintf(stderr, "FAILED: Kiln wrote to stderr with KILN_DEBUG unset\n");
        failed++;
      }
    }
    if (f) fclose(f);
    unlink(stderr_path);
    if (access(log_path, F_OK) == 0) {
      fprintf(stderr, "FAILED: Kiln created %s with KILN_DEBUG unset\n", log_path);
      failed++;
    }
  }
  unlink(log_path);
  return failed;
}
