/* trace.h: opt-in diagnostic logs for users debugging or tuning their code. KILN_DEBUG
 * names the topics (comma-separated; "all"), KILN_DEBUG_FILE the file lines are appended
 * to (default: stderr). KILN_TRACE and KILN_TRACE_FILE, the names before KILN_DEBUG, still
 * work: topics of both variables are enabled; KILN_DEBUG_FILE wins over KILN_TRACE_FILE.
 * All are read once, at the first trace check. Each line is written with one
 * write() call, so lines of concurrent threads do not interleave. docs/user-guide.md
 * lists the topics and their line formats. */
#ifndef KILN_RUNTIME_TRACE_H
#define KILN_RUNTIME_TRACE_H

#include <stdatomic.h>
#include <stdbool.h>

enum kiln_trace_topic {
  KILN_TRACE_SCHED = 1u << 0, /* "sched": one line per NDRange executed (docs/arm-scheduling-controls.md) */
  KILN_TRACE_ERR = 1u << 1,   /* "err": one line per failing entry point call (runtime/debug_err.h) */
};

/* Inline: the executor asks at every launch. The topics once read, with
 * KILN_TRACE_READ set; 0 before (kiln_trace_topics_read reads them). */
#define KILN_TRACE_READ (1u << 31)
extern _Atomic unsigned kiln_trace_topics;
unsigned kiln_trace_topics_read(void);
static inline bool kiln_trace_enabled(enum kiln_trace_topic topic) {
  unsigned topics = atomic_load_explicit(&kiln_trace_topics, memory_order_acquire);
  if (!(topics & KILN_TRACE_READ)) topics = kiln_trace_topics_read();
  return (topics & topic) != 0;
}

/* Writes "kiln-trace <topic> " + the formatted text + "\n" when `topic` is enabled. */
void kiln_trace(enum kiln_trace_topic topic, const char *format, ...) __attribute__((format(printf, 2, 3)));

#endif
