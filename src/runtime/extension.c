/* extension.c: the extension strings, versioned lists and per-enqueue hooks, derived from
 * kiln_extensions once per process (an extension's availability does not change while it
 * runs). */
#include "runtime/extension.h"

#include <pthread.h>
#include <string.h>

#define SCOPES 2
#define EXTENSIONS_MAX 64
#define STRING_MAX 2048

static pthread_once_t built_once = PTHREAD_ONCE_INIT;
static char strings[SCOPES][STRING_MAX];
static kiln_enqueue_check_fn enqueue_checks[EXTENSIONS_MAX];
static unsigned enqueue_check_count;
static kiln_launch_hints_fn launch_hints[EXTENSIONS_MAX];
static unsigned launch_hints_count;
static cl_name_version versions[SCOPES][EXTENSIONS_MAX];
static size_t version_counts[SCOPES];

static unsigned scope_index(enum kiln_extension_scope scope) { return scope == KILN_EXTENSION_PLATFORM ? 0 : 1; }

static void build(void) {
  for (const struct kiln_extension *const *e = kiln_extensions; *e; e++) {
    if (!kiln_extension_available(*e)) continue;
    if ((*e)->check_enqueue && enqueue_check_count < EXTENSIONS_MAX)
      enqueue_checks[enqueue_check_count++] = (*e)->check_enqueue;
    if ((*e)->launch_hints && launch_hints_count < EXTENSIONS_MAX)
      launch_hints[launch_hints_count++] = (*e)->launch_hints;
    for (unsigned s = 0; s < SCOPES; s++) {
      enum kiln_extension_scope scope = s == 0 ? KILN_EXTENSION_PLATFORM : KILN_EXTENSION_DEVICE;
      if (!((*e)->scope & scope) || version_counts[s] == EXTENSIONS_MAX) continue;
      cl_name_version *v = &versions[s][version_counts[s]++];
      v->version = (*e)->version;
      strncpy(v->name, (*e)->name, CL_NAME_VERSION_MAX_NAME_SIZE - 1);
      if (strings[s][0]) strncat(strings[s], " ", STRING_MAX - strlen(strings[s]) - 1);
      strncat(strings[s], (*e)->name, STRING_MAX - strlen(strings[s]) - 1);
    }
  }
}

const char *kiln_extension_string(enum kiln_extension_scope scope) {
  pthread_once(&built_once, build);
  return strings[scope_index(scope)];
}

const cl_name_version *kiln_extension_versions(enum kiln_extension_scope scope, size_t *count) {
  pthread_once(&built_once, build);
  *count = version_counts[scope_index(scope)];
  return versions[scope_index(scope)];
}

const kiln_enqueue_check_fn *kiln_extension_enqueue_checks(unsigned *count) {
  pthread_once(&built_once, build);
  *count = enqueue_check_count;
  return enqueue_checks;
}

const kiln_launch_hints_fn *kiln_extension_launch_hints(unsigned *count) {
  pthread_once(&built_once, build);
  *count = launch_hints_count;
  return launch_hints;
}
