/* bounds_check.c: see bounds_check.h. */
#include "device/cpu/bounds_check.h"

#include "device/cpu/compiler/compiler.h"
#include "device/cpu/kernel_abi.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static bool checking;

/* Read when the library is loaded: the launch path then tests a plain flag per batch. */
__attribute__((constructor)) static void read_mode(void) {
  const char *env = getenv("KILN_CHECK");
  if (!env) return;
  char list[128];
  snprintf(list, sizeof list, "%s", env);
  char *saved = NULL;
  for (char *name = strtok_r(list, ",", &saved); name; name = strtok_r(NULL, ",", &saved))
    if (strcmp(name, "bounds") == 0) checking = true;
}

bool kiln_bounds_checking(void) { return checking; }

/* The first violation of the batch this thread runs. A batch runs on one thread (fibers
 * included), so no other thread writes it. */
struct violation {
  bool happened;
  const char *what; /* "kernel 'k' argument 1 'out'", a constant of the compiled code */
  int64_t offset; /* from the start of the memory the argument may reach (negative: before it) */
  uint64_t size, span;
  uint32_t is_write;
  uint64_t global_id[3];
};
static _Thread_local struct violation batch_violation;

static void violation(const char *what, int64_t offset, uint64_t size, uint64_t span, uint32_t is_write, uint64_t gx,
                      uint64_t gy, uint64_t gz) {
  struct violation *v = &batch_violation;
  if (!what || v->happened) return; /* null: a work-item of a checked vector that was inside */
  *v = (struct violation){true, what, offset, size, span, is_write, {gx, gy, gz}};
}

void kiln_bounds_check_register(void) { kiln_jit_define_symbol(KILN_BOUNDS_VIOLATION_SYMBOL, (void *)violation); }

void kiln_bounds_batch_begin(void) { batch_violation.happened = false; }

bool kiln_bounds_batch_violated(void) { return batch_violation.happened; }

void kiln_bounds_report(void) {
  const struct violation *v = &batch_violation;
  if (!v->happened) return;
  char line[512];
  int n = snprintf(line, sizeof line,
                   "kiln: bounds check: %s: %s of %" PRIu64 " bytes at offset %" PRId64 " outside its %" PRIu64
                   " bytes, work-item (%" PRIu64 ", %" PRIu64 ", %" PRIu64 "); the command fails\n",
                   v->what, v->is_write ? "write" : "read", v->size, v->offset, v->span, v->global_id[0],
                   v->global_id[1], v->global_id[2]);
  if (n > 0) {
    ssize_t written = write(STDERR_FILENO, line, (size_t)n < sizeof line ? (size_t)n : sizeof line - 1);
    (void)written; /* a report that cannot be written is lost; the command fails regardless */
  }
}
