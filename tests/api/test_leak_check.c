/* The leak check every suite runs under (KILN_LEAK_CHECK=1): a process that exits with a
 * Kiln object unreleased must fail, and one that released everything must not. */
#include "kiln_test.h"

#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

static int exit_status_of_child(bool leak_a_buffer) {
  pid_t pid = fork();
  assert_true(pid >= 0);
  if (pid == 0) {
    cl_device_id device = kiln_test_device();
    cl_int err;
    cl_context context = clCreateContext(NULL, 1, &device, NULL, NULL, &err);
    cl_mem buffer = clCreateBuffer(context, CL_MEM_READ_WRITE, 64, NULL, &err);
    if (!leak_a_buffer) clReleaseMemObject(buffer);
    clReleaseContext(context);
    exit(0);
  }
  int status = 0;
  assert_int_equal(pid, waitpid(pid, &status, 0));
  assert_true(WIFEXITED(status));
  return WEXITSTATUS(status);
}

static void test_leaking_process_fails(void **state) {
  (void)state;
  assert_string_equal("1", getenv("KILN_LEAK_CHECK"));
  assert_int_equal(97, exit_status_of_child(true));
}

static void test_clean_process_passes(void **state) {
  (void)state;
  assert_int_equal(0, exit_status_of_child(false));
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_leaking_process_fails),
      cmocka_unit_test(test_clean_process_passes),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
