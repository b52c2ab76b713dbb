/* options.c: OpenCL option strings (API spec, "Compiler Options" and "Linker Options"). */
#include "device/cpu/compiler/options.h"

#include "device/cpu/compiler/clang_flags.h"
#include "device/cpu/compiler/compiler.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Options that translate one-to-one into the same cc1 flag. */
static const char *const passthrough_compile[] = {
    "-cl-single-precision-constant", "-cl-fp32-correctly-rounded-divide-sqrt",
    "-cl-mad-enable",                "-cl-uniform-work-group-size",
    "-w",                            "-Werror",
};
/* Math options allowed both when compiling and when linking a program executable. */
static const char *const passthrough_math[] = {
    "-cl-no-signed-zeros",
    "-cl-unsafe-math-optimizations",
    "-cl-finite-math-only",
};
/* Accepted, no effect on this device. */
static const char *const ignored_compile[] = {"-cl-strict-aliasing"};

static bool in_list(const char *s, const char *const *list, size_t n) {
  for (size_t i = 0; i < n; i++)
    if (strcmp(s, list[i]) == 0) return true;
  return false;
}
#define IN_LIST(s, list) in_list((s), (list), sizeof(list) / sizeof((list)[0]))

static char *format(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  char *out = NULL;
  if (vasprintf(&out, fmt, ap) < 0) out = NULL;
  va_end(ap);
  return out;
}

/* Splits the option string at white space; double quotes group, backslash escapes. */
struct tokens {
  char **items;
  size_t count;
};

static void tokens_free(struct tokens *t) {
  for (size_t i = 0; i < t->count; i++) free(t->items[i]);
  free(t->items);
}

static int tokenize(const char *s, struct tokens *out) {
  out->items = NULL;
  out->count = 0;
  size_t len = s ? strlen(s) : 0;
  char *buf = malloc(len + 1);
  if (!buf) return -1;
  size_t i = 0;
  while (i < len) {
    while (i < len && isspace((unsigned char)s[i])) i++;
    if (i >= len) break;
    size_t n = 0;
    bool quoted = false;
    while (i < len && (quoted || !isspace((unsigned char)s[i]))) {
      char c = s[i++];
      if (c == '"') {
        quoted = !quoted;
        continue;
      }
      if (c == '\\' && i < len) c = s[i++];
      buf[n++] = c;
    }
    buf[n] = '\0';
    char **grown = realloc(out->items, (out->count + 1) * sizeof *grown);
    char *copy = strdup(buf);
    if (!grown || !copy) {
      free(copy);
      if (grown) out->items = grown;
      free(buf);
      tokens_free(out);
      return -1;
    }
    out->items = grown;
    out->items[out->count++] = copy;
  }
  free(buf);
  return 0;
}

char **kiln_options_tokenize(const char *options) {
  struct tokens t;
  if (tokenize(options, &t) != 0) return NULL;
  char **list = realloc(t.items, (t.count + 1) * sizeof *list);
  if (!list) {
    tokens_free(&t);
    return NULL;
  }
  list[t.count] = NULL;
  return list;
}

void kiln_options_tokens_free(char **tokens) {
  if (!tokens) return;
  for (char **t = tokens; *t; t++) free(*t);
  free(tokens);
}

static int push_arg(struct kiln_cl_options *o, const char *a, const char *b) {
  char *joined = b ? format("%s%s", a, b) : strdup(a);
  char **grown = realloc(o->cc1_args, (o->num_cc1_args + 2) * sizeof *grown);
  if (!joined || !grown) {
    free(joined);
    if (grown) o->cc1_args = grown;
    return -1;
  }
  o->cc1_args = grown;
  o->cc1_args[o->num_cc1_args++] = joined;
  o->cc1_args[o->num_cc1_args] = NULL;
  return 0;
}

void kiln_cl_options_free(struct kiln_cl_options *o) {
  if (!o) return;
  for (size_t i = 0; i < o->num_cc1_args; i++) free(o->cc1_args[i]);
  free(o->cc1_args);
  o->cc1_args = NULL;
  o->num_cc1_args = 0;
}

/* One option at tokens[*i]; advances *i past a separate argument. Returns 0, 1 (invalid,
 * *bad set, and *why when there is more to say than "invalid") or -1 (out of memory). */
static int parse_one(struct tokens *t, size_t *i, enum kiln_option_set set, struct kiln_cl_options *o,
                     const char **bad, const char **why) {
  const char *s = t->items[*i];
  *bad = s;
  *why = NULL;
  bool compile = set != KILN_OPTIONS_LINK;
  bool link = set != KILN_OPTIONS_COMPILE;

  if (compile && (strncmp(s, "-D", 2) == 0 || strncmp(s, "-I", 2) == 0)) {
    const char *value = s + 2;
    *why = s[1] == 'D' ? "a macro name must follow" : "a directory must follow";
    if (*value == '\0') {
      if (*i + 1 >= t->count) return 1; /* -D or -I without its argument */
      value = t->items[++*i];
    }
    if (*value == '\0' || (s[1] == 'D' && value[0] == '=')) return 1;
    *why = NULL;
    char flag[3] = {'-', s[1], '\0'};
    return push_arg(o, flag, NULL) || push_arg(o, value, NULL) ? -1 : 0;
  }
  if (compile && strncmp(s, "-cl-std=", 8) == 0) {
    static const char *const stds[] = {"CL1.0", "CL1.1", "CL1.2", "CL2.0", "CL3.0"};
    *why = "unknown OpenCL C version (this device accepts CL1.0, CL1.1, CL1.2, CL2.0 and CL3.0)";
    if (!IN_LIST(s + 8, stds)) return 1;
    *why = NULL;
    snprintf(o->std, sizeof o->std, "%s", s + 8);
    return 0;
  }
  if (compile && IN_LIST(s, passthrough_compile)) return push_arg(o, s, NULL) ? -1 : 0;
  if (compile && IN_LIST(s, ignored_compile)) return 0;
  if (compile && strcmp(s, "-g") == 0) { /* DWARF for gdb (docs/debugging.md); enqueue_kernel's detailed errors */
    o->debug = true;
    return 0;
  }
  if (compile && strcmp(s, "-cl-opt-disable") == 0) {
    o->opt_disable = true;
    return 0;
  }
  if (compile && strcmp(s, "-cl-kernel-arg-info") == 0) {
    o->kernel_arg_info = true;
    return push_arg(o, s, NULL) ? -1 : 0;
  }
  /* Math options: compile options, and program linking options. */
  if (IN_LIST(s, passthrough_math)) return push_arg(o, s, NULL) ? -1 : 0;
  if (strcmp(s, "-cl-fast-relaxed-math") == 0) {
    o->fast_relaxed_math = true;
    return push_arg(o, s, NULL) ? -1 : 0;
  }
  if (strcmp(s, "-cl-denorms-are-zero") == 0) {
    o->denorms_are_zero = true; /* launchers flush single and double denormals (launcher.cpp) */
    return 0;
  }
  if (strcmp(s, "-cl-no-subgroup-ifp") == 0) return 0; /* a hint: kernels that wait still get fibers */
  if (link && strcmp(s, "-create-library") == 0) {
    o->create_library = true;
    return 0;
  }
  if (link && strcmp(s, "-enable-link-options") == 0) {
    o->enable_link_options = true;
    return 0;
  }
  if (!compile && (strncmp(s, "-D", 2) == 0 || strncmp(s, "-I", 2) == 0 || strncmp(s, "-cl-std=", 8) == 0 ||
                   IN_LIST(s, passthrough_compile) || IN_LIST(s, ignored_compile) ||
                   strcmp(s, "-cl-opt-disable") == 0 || strcmp(s, "-cl-kernel-arg-info") == 0))
    *why = "a compiler option: clLinkProgram takes only linker options";
  else if (!link && (strcmp(s, "-create-library") == 0 || strcmp(s, "-enable-link-options") == 0))
    *why = "a linker option: it belongs to clLinkProgram";
  else
    *why = "not an OpenCL compiler or linker option of the OpenCL 3.0 API specification";
  return 1;
}

int kiln_cl_options_parse(const char *options, enum kiln_option_set set, struct kiln_cl_options *out,
                          char **log) {
  memset(out, 0, sizeof *out);
  snprintf(out->std, sizeof out->std, "%s", KILN_CLANG_DEFAULT_STD);
  if (log) *log = NULL;
  struct tokens t;
  if (tokenize(options, &t) != 0) return KILN_COMPILE_OUT_OF_MEMORY;
  int status = KILN_COMPILE_OK;
  for (size_t i = 0; i < t.count && status == KILN_COMPILE_OK; i++) {
    const char *bad = NULL, *why = NULL;
    int r = parse_one(&t, &i, set, out, &bad, &why);
    if (r < 0) {
      status = KILN_COMPILE_OUT_OF_MEMORY;
    } else if (r > 0) {
      status = KILN_COMPILE_INVALID_OPTIONS;
      if (log)
        *log = format("invalid %s option: '%s'%s%s\n", set == KILN_OPTIONS_LINK ? "linker" : "compiler", bad,
                      why ? ": " : "", why ? why : "");
    }
  }
  if (status == KILN_COMPILE_OK && out->enable_link_options && !out->create_library) {
    status = KILN_COMPILE_INVALID_OPTIONS;
    if (log) *log = format("invalid linker option: '-enable-link-options' requires '-create-library'\n");
  }
  if (status == KILN_COMPILE_OK && push_arg(out, "-cl-std=", out->std) != 0) status = KILN_COMPILE_OUT_OF_MEMORY;
  if (set != KILN_OPTIONS_LINK && kiln_debug_kernels_forced()) out->debug = true;
  tokens_free(&t);
  if (status != KILN_COMPILE_OK) kiln_cl_options_free(out);
  if (log && !*log) *log = strdup("");
  return status;
}

bool kiln_debug_kernels_forced(void) {
  const char *value = getenv("KILN_DEBUG_KERNELS");
  return value && *value && strcmp(value, "0") != 0;
}

bool kiln_cl_options_request_debug(const char *options) {
  if (kiln_debug_kernels_forced()) return true;
  struct tokens t;
  if (tokenize(options, &t) != 0) return true; /* out of memory: the safe answer (no cache) */
  bool debug = false;
  for (size_t i = 0; i < t.count && !debug; i++) debug = strcmp(t.items[i], "-g") == 0;
  tokens_free(&t);
  return debug;
}

int kiln_compiler_check_options(const char *options, bool for_link, char **log) {
  struct kiln_cl_options parsed;
  int status = kiln_cl_options_parse(options, for_link ? KILN_OPTIONS_LINK : KILN_OPTIONS_COMPILE, &parsed, log);
  if (status == KILN_COMPILE_OK) kiln_cl_options_free(&parsed);
  return status;
}
