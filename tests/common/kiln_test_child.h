/* kiln_test_child.h: cases that used to crash the process run in a child process, so that
 * a regression is reported as a failed test instead of killing the suite. The child is
 * this test program again, started with `--child NAME`; main() calls kiln_test_child_main
 * first. A child case returns 0 when everything it checked held. */
#ifndef KILN_TEST_CHILD_H
#define KILN_TEST_CHILD_H

#include "kiln_test.h"

#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

struct kiln_test_child_case {
  const char *name;
  int (*run)(void);
};

/* In main(): when started as a child, runs the named case and ends the process with its
 * status (with _exit: a case that makes the compiler abandon a call, by design, leaves
 * memory that LeakSanitizer would report at exit); otherwise returns. CMocka's assertions
 * work in a case: outside a running test, a failed one prints and exits non-zero. */
static inline void kiln_test_child_main(int argc, char **argv, const struct kiln_test_child_case *cases, size_t count) {
  if (argc < 3 || strcmp(argv[1], "--child") != 0) return;
  int status = 2;
  for (size_t i = 0; i < count; i++)
    if (strcmp(argv[2], cases[i].name) == 0) status = cases[i].run();
  fflush(NULL);
  _exit(status);
}

/* Runs case `name` in a child process (this program, /proc/self/exe), killed after
 * `timeout_s`; returns its wait status and what it printed (truncated to `size`). */
static inline int kiln_test_child_run(const char *name, unsigned timeout_s, char *output, size_t size) {
  int fds[2];
  if (pipe(fds) != 0) fail_msg("pipe failed");
  pid_t pid = fork();
  if (pid < 0) fail_msg("fork failed");
  if (pid == 0) {
    dup2(fds[1], STDOUT_FILENO);
    dup2(fds[1], STDERR_FILENO);
    close(fds[0]);
    alarm(timeout_s);
    execl("/proc/self/exe", "child", "--child", name, (char *)NULL);
    _exit(127);
  }
  close(fds[1]);
  size_t used = 0;
  ssize_t got;
  while ((got = read(fds[0], output + used, size - 1 - used)) > 0) used += (size_t)got;
  output[used] = '\0';
  close(fds[0]);
  int status = 0;
  if (waitpid(pid, &status, 0) != pid) fail_msg("%s: waitpid failed", name);
  return status;
}

/* Runs case `name` in a child process and fails the test unless it exited with 0: a
 * signal (a crash), a non-zero status or a run longer than `timeout_s` is reported with
 * the child's output. */
static inline void kiln_test_child_expect_ok(const char *name, unsigned timeout_s) {
  char output[8192];
  int status = kiln_test_child_run(name, timeout_s, output, sizeof output);
  if (WIFSIGNALED(status))
    fail_msg("%s: the child died of signal %d (%s); it printed:\n%s", name, WTERMSIG(status),
             WTERMSIG(status) == SIGALRM ? "timeout" : strsignal(WTERMSIG(status)), output);
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
    fail_msg("%s: the child exited with %d; it printed:\n%s", name, WEXITSTATUS(status), output);
}

#endif
