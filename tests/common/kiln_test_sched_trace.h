/* kiln_test_sched_trace.h: the scheduling trace (KILN_TRACE=sched) as suites read it.
 *
 * kiln_sched_trace_enable (first thing in main(), before any OpenCL call: Kiln reads
 * KILN_TRACE and KILN_TRACE_FILE once) points the trace at a file of this process; a test
 * takes kiln_sched_trace_mark() before its work and, after clFinish, reads the NDRange
 * lines appended since with kiln_sched_trace_since. Every line must have the documented
 * format (docs/arm-scheduling-controls.md) and consistent numbers. */
#ifndef KILN_TEST_SCHED_TRACE_H
#define KILN_TEST_SCHED_TRACE_H

#include "kiln_test.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static char kiln_sched_trace_path[256];

/* Sends the scheduling trace to an empty file of this process. Call before any OpenCL call. */
static inline void kiln_sched_trace_enable(const char *suite) {
  const char *dir = getenv("TMPDIR");
  snprintf(kiln_sched_trace_path, sizeof kiln_sched_trace_path, "%s/kiln-%s-%ld.trace", dir && *dir ? dir : "/tmp",
           suite, (long)getpid());
  FILE *f = fopen(kiln_sched_trace_path, "w");
  if (!f) {
    fprintf(stderr, "cannot create %s\n", kiln_sched_trace_path);
    exit(1);
  }
  fclose(f);
  setenv("KILN_TRACE", "sched", 1);
  setenv("KILN_TRACE_FILE", kiln_sched_trace_path, 1);
}

static inline void kiln_sched_trace_remove(void) { unlink(kiln_sched_trace_path); }

/* The trace file's size: lines appended after this are the caller's. */
static inline long kiln_sched_trace_mark(void) {
  struct stat st;
  if (stat(kiln_sched_trace_path, &st) != 0) fail_msg("trace file %s is gone", kiln_sched_trace_path);
  return (long)st.st_size;
}

/* One "kiln-trace sched ndrange ..." line. batch_size is the first batch's size,
 * batch_smallest the size of the last round's batches ("batch_size=8..1"; the same
 * value when all batches have one size). */
struct kiln_sched_line {
  char kernel[64];
  unsigned long long groups, batch_size, batch_smallest, batches;
  unsigned workers, cu_limit;
  unsigned long long queue_depth; /* most batches one thread held queued at a time */
};

#define KILN_SCHED_MAX_LINES 256

/* Parses one line (without its newline) or fails the test. Checks the numbers add up:
 * 1 <= smallest <= batch_size <= groups; one size: batches = ceil(groups / batch_size),
 * else more batches than that and at most one per group; 1 <= workers <= batches;
 * workers <= cu_limit when there is a limit; 1 <= queue_depth <= batches. */
static inline struct kiln_sched_line kiln_sched_line_parse(const char *text) {
  struct kiln_sched_line line;
  char sizes[64];
  int end = -1;
  int fields = sscanf(text,
                      "kiln-trace sched ndrange kernel=%63s groups=%llu batch_size=%63s batches=%llu "
                      "workers=%u cu_limit=%u queue_depth=%llu%n",
                      line.kernel, &line.groups, sizes, &line.batches, &line.workers, &line.cu_limit,
                      &line.queue_depth, &end);
  if (fields != 7 || end != (int)strlen(text)) fail_msg("trace line not in the documented format: '%s'", text);
  if (line.queue_depth < 1 || line.queue_depth > line.batches) fail_msg("trace line with an impossible queue depth: '%s'", text);
  int used = -1;
  if (sscanf(sizes, "%llu..%llu%n", &line.batch_size, &line.batch_smallest, &used) == 2 && used == (int)strlen(sizes)) {
    if (line.batch_smallest >= line.batch_size) fail_msg("trace line with sizes not decreasing: '%s'", text);
  } else if (sscanf(sizes, "%llu%n", &line.batch_size, &used) == 1 && used == (int)strlen(sizes)) {
    line.batch_smallest = line.batch_size;
  } else {
    fail_msg("trace line with a malformed batch_size: '%s'", text);
  }
  unsigned long long one_size = line.batch_size ? (line.groups + line.batch_size - 1) / line.batch_size : 0;
  if (line.batch_smallest < 1 || line.batch_size > line.groups ||
      (line.batch_smallest == line.batch_size ? line.batches != one_size
                                              : line.batches <= one_size || line.batches > line.groups))
    fail_msg("trace line with inconsistent batches: '%s'", text);
  if (line.workers < 1 || line.workers > line.batches || (line.cu_limit && line.workers > line.cu_limit))
    fail_msg("trace line with an impossible worker count: '%s'", text);
  return line;
}

/* Reads the lines appended since `mark` whose kernel is `kernel` (every kernel when NULL)
 * into out[0 .. max-1] and returns how many there were; every line is checked. */
static inline size_t kiln_sched_trace_since(long mark, const char *kernel, struct kiln_sched_line *out, size_t max) {
  FILE *f = fopen(kiln_sched_trace_path, "r");
  if (!f) fail_msg("cannot read the trace file %s", kiln_sched_trace_path);
  if (fseek(f, mark, SEEK_SET) != 0) fail_msg("cannot seek the trace file to %ld", mark);
  char text[1024];
  size_t count = 0;
  while (fgets(text, sizeof text, f)) {
    size_t length = strlen(text);
    if (length == 0 || text[length - 1] != '\n') fail_msg("trace line without its newline: '%s'", text);
    text[--length] = '\0';
    struct kiln_sched_line line = kiln_sched_line_parse(text);
    if (kernel && strcmp(kernel, line.kernel) != 0) continue;
    if (count < max) out[count] = line;
    count++;
  }
  fclose(f);
  return count;
}

/* The one line of `kernel` since `mark` (fails unless there is exactly one). */
static inline struct kiln_sched_line kiln_sched_trace_one(long mark, const char *kernel, const char *what) {
  struct kiln_sched_line lines[4];
  size_t n = kiln_sched_trace_since(mark, kernel, lines, 4);
  if (n != 1) fail_msg("%s: %zu trace lines for kernel %s, expected 1", what, n, kernel);
  return lines[0];
}

#endif
