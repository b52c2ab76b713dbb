/* spirv_translator.c: finding, probing and running the SPIR-V translator program
 * (spirv_translator.h). The module and the bitcode pass through files in a private
 * temporary directory: llvm-spirv-15 reads neither from a pipe. */
#include "device/cpu/compiler/spirv_translator.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#ifndef KILN_LLVM_SPIRV_PATH
#define KILN_LLVM_SPIRV_PATH "/usr/bin/llvm-spirv-15"
#endif

/* A translation that runs longer than this is killed (a build failure, not a hang). */
#define TRANSLATE_TIMEOUT_MS (300 * 1000)
#define OUTPUT_LIMIT         (1u << 20) /* of its messages kept for the log */

extern char **environ;

static double now_ms(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

/* Runs argv[0] with stdin from /dev/null and stdout + stderr into *output (malloc'd,
 * NUL-terminated). Returns its exit status, or -1 when it could not run, was killed or
 * timed out (*output says which). */
static int run(char *const argv[], char **output, int timeout_ms) {
  *output = NULL;
  int fds[2];
  if (pipe2(fds, O_CLOEXEC) != 0) return -1;
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_adddup2(&actions, fds[1], 1);
  posix_spawn_file_actions_adddup2(&actions, fds[1], 2);
  pid_t pid;
  int err = posix_spawn(&pid, argv[0], &actions, NULL, argv, environ);
  posix_spawn_file_actions_destroy(&actions);
  close(fds[1]);
  if (err != 0) {
    close(fds[0]);
    char buffer[512];
    snprintf(buffer, sizeof buffer, "cannot run %s: %s\n", argv[0], strerror(err));
    *output = strdup(buffer);
    return -1;
  }
  size_t length = 0, capacity = 4096;
  char *text = malloc(capacity + 64);
  bool timed_out = false;
  double deadline = now_ms() + timeout_ms;
  for (;;) {
    struct pollfd p = {fds[0], POLLIN, 0};
    int left = (int)(deadline - now_ms()), ready = left > 0 ? poll(&p, 1, left) : 0;
    if (ready < 0 && errno == EINTR) continue;
    if (ready == 0) {
      timed_out = true;
      kill(pid, SIGKILL);
      break;
    }
    char chunk[4096];
    ssize_t got = read(fds[0], chunk, sizeof chunk);
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0) break;
    if (text && length + (size_t)got > capacity && capacity < OUTPUT_LIMIT) {
      capacity = capacity * 2 > OUTPUT_LIMIT ? OUTPUT_LIMIT : capacity * 2;
      char *bigger = realloc(text, capacity + 64);
      if (!bigger) free(text);
      text = bigger;
    }
    size_t keep = text && length < capacity ? (size_t)got < capacity - length ? (size_t)got : capacity - length : 0;
    if (keep) memcpy(text + length, chunk, keep);
    length += keep;
  }
  close(fds[0]);
  int status = 0;
  pid_t waited;
  while ((waited = waitpid(pid, &status, 0)) < 0 && errno == EINTR) {
  }
  if (!text) return -1;
  text[length] = '\0';
  *output = text;
  if (timed_out) {
    strcat(text, "\n(timed out: killed)\n");
    return -1;
  }
  /* No status when the application ignores SIGCHLD (the kernel reaps the child) or reaps
   * every child in a handler of its own: the caller judges by the output file. */
  if (waited < 0) return errno == ECHILD ? 0 : -1;
  if (WIFSIGNALED(status)) {
    snprintf(text + length, 64, "\n(killed by signal %d)\n", WTERMSIG(status));
    return -1;
  }
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

static struct kiln_spirv_translator translator;
static bool translator_found;

/* `--help` lists "=1.N - SPIR-V 1.N" under --spirv-max-version: the versions it writes,
 * which are the ones its reader accepts. */
static unsigned max_minor_in_help(const char *help) {
  const char *at = strstr(help, "--spirv-max-version");
  if (!at) return 0;
  unsigned best = 0;
  for (const char *line = strchr(at, '\n'); line; line = strchr(line + 1, '\n')) {
    unsigned major, minor;
    if (sscanf(line + 1, " =%u.%u", &major, &minor) != 2) break;
    if (major == 1 && minor > best) best = minor;
  }
  return best;
}

/* SPIR-V 1.4 is not read completely by llvm-spirv-15 (it stops on OpPtrDiff, OpPtrEqual,
 * OpCopyLogical, OpDecorateString and OpCopyMemory's second memory operand: the CTS's
 * spirv14 tests), so the device takes versions up to 1.3 whatever the translator lists. */
#define KILN_SPIRV_MAX_MINOR 3

static void probe(void) {
  const char *path = getenv("KILN_LLVM_SPIRV");
  if (!path) path = KILN_LLVM_SPIRV_PATH;
  if (!*path || access(path, X_OK) != 0) return;
  char *argv[] = {(char *)path, "--help", NULL};
  char *help = NULL;
  if (run(argv, &help, 30 * 1000) == 0 && help && strstr(help, "--spec-const")) {
    translator.path = path;
    translator.max_minor = max_minor_in_help(help);
    if (translator.max_minor > KILN_SPIRV_MAX_MINOR) translator.max_minor = KILN_SPIRV_MAX_MINOR;
    translator_found = true;
  }
  free(help);
}

const struct kiln_spirv_translator *kiln_spirv_translator(void) {
  static pthread_once_t once = PTHREAD_ONCE_INIT;
  pthread_once(&once, probe);
  return translator_found ? &translator : NULL;
}

static int fail(char **log, const char *what, const char *detail) {
  size_t n = strlen(what) + (detail ? strlen(detail) : 0) + 32;
  *log = malloc(n);
  if (*log) snprintf(*log, n, "error: %s%s%s\n", what, detail ? ": " : "", detail ? detail : "");
  return -1;
}

static bool write_file(const char *path, const void *bytes, size_t size) {
  FILE *f = fopen(path, "wb");
  if (!f) return false;
  bool ok = fwrite(bytes, 1, size, f) == size;
  return fclose(f) == 0 && ok;
}

static void *read_file(const char *path, size_t *size) {
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  struct stat st;
  void *bytes = NULL;
  if (fstat(fileno(f), &st) == 0 && st.st_size > 0 && (bytes = malloc(st.st_size)) &&
      fread(bytes, 1, st.st_size, f) != (size_t)st.st_size) {
    free(bytes);
    bytes = NULL;
  }
  fclose(f);
  *size = bytes ? (size_t)st.st_size : 0;
  return bytes;
}

int kiln_spirv_translate(const uint32_t *words, size_t num_words, void **bitcode, size_t *size, char **log) {
  *bitcode = NULL;
  *size = 0;
  *log = NULL;
  const struct kiln_spirv_translator *t = kiln_spirv_translator();
  if (!t) return fail(log, "no SPIR-V translator", NULL);
  const char *tmp = getenv("TMPDIR");
  char dir[4096];
  snprintf(dir, sizeof dir, "%s/kiln-spirv-XXXXXX", tmp && *tmp ? tmp : "/tmp");
  if (!mkdtemp(dir)) return fail(log, "cannot create a temporary directory", strerror(errno));
  char in[4200], out[4200];
  snprintf(in, sizeof in, "%s/module.spv", dir);
  snprintf(out, sizeof out, "%s/module.bc", dir);
  int status = -1;
  if (!write_file(in, words, num_words * sizeof *words)) {
    fail(log, "cannot write the module for the translator", strerror(errno));
  } else {
    /* CL2.0: SPIR-V's scoped atomics and group operations become OpenCL C 2.0 builtins
     * (atomic_*_explicit, work_group_*), which the builtin library defines. Argument
     * names come from OpName, for clGetKernelArgInfo. */
    char *argv[] = {
        (char *)t->path, "-r", "--spirv-target-env=CL2.0", "--spirv-gen-kernel-arg-name-md", in, "-o", out, NULL};
    char *output = NULL;
    int code = run(argv, &output, TRANSLATE_TIMEOUT_MS);
    if (code == 0) *bitcode = read_file(out, size);
    if (code == 0 && *bitcode) {
      status = 0;
      *log = output; /* its warnings, if any */
      output = NULL;
    } else {
      fail(log, "the SPIR-V translator refused the module", output && *output ? output : "no output");
    }
    free(output);
  }
  unlink(in);
  unlink(out);
  rmdir(dir);
  return status;
}
