/* trace.c: see trace.h. */
#include "runtime/trace.h"

#include <fcntl.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define LINE_MAX_BYTES 512

static const struct {
  const char *name;
  enum kiln_trace_topic topic;
} topics[] = {
    {"sched", KILN_TRACE_SCHED},
    {"err", KILN_TRACE_ERR},
};

static pthread_once_t trace_once = PTHREAD_ONCE_INIT;
static unsigned enabled_topics;
static int trace_fd = -1;

static unsigned topics_named(const char *env) {
  if (!env || !*env) return 0;
  char list[256];
  snprintf(list, sizeof list, "%s", env);
  char *saved = NULL;
  unsigned named = 0;
  for (char *name = strtok_r(list, ",", &saved); name; name = strtok_r(NULL, ",", &saved))
    for (size_t i = 0; i < sizeof topics / sizeof topics[0]; i++)
      if (strcmp(name, "all") == 0 || strcmp(name, topics[i].name) == 0) named |= topics[i].topic;
  return named;
}

static void trace_init(void) {
  enabled_topics = topics_named(getenv("KILN_DEBUG")) | topics_named(getenv("KILN_TRACE"));
  if (!enabled_topics) return;
  const char *path = getenv("KILN_DEBUG_FILE");
  if (!path || !*path) path = getenv("KILN_TRACE_FILE");
  /* An unusable file falls back to stderr rather than losing the trace silently. */
  trace_fd = path && *path ? open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644) : -1;
  if (trace_fd < 0) trace_fd = STDERR_FILENO;
}

_Atomic unsigned kiln_trace_topics;

unsigned kiln_trace_topics_read(void) {
  pthread_once(&trace_once, trace_init);
  atomic_store_explicit(&kiln_trace_topics, enabled_topics | KILN_TRACE_READ, memory_order_release);
  return enabled_topics | KILN_TRACE_READ;
}

void kiln_trace(enum kiln_trace_topic topic, const char *format, ...) {
  if (!kiln_trace_enabled(topic)) return;
  const char *name = "";
  for (size_t i = 0; i < sizeof topics / sizeof topics[0]; i++)
    if (topics[i].topic == topic) name = topics[i].name;
  char line[LINE_MAX_BYTES];
  int at = snprintf(line, sizeof line, "kiln-trace %s ", name);
  va_list ap;
  va_start(ap, format);
  int n = vsnprintf(line + at, sizeof line - (size_t)at - 1, format, ap);
  va_end(ap);
  size_t length = (size_t)at + (n < 0 ? 0 : (size_t)n);
  if (length > sizeof line - 2) length = sizeof line - 2; /* truncated: keep the newline */
  line[length++] = '\n';
  ssize_t written = write(trace_fd, line, length);
  (void)written; /* a trace that cannot be written is dropped */
}
