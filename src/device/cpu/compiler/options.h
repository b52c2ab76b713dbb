/* options.h: OpenCL compiler/linker option strings, checked against the set the OpenCL 3.0
 * API spec defines and translated into clang cc1 arguments. */
#ifndef KILN_DEVICE_CPU_COMPILER_OPTIONS_H
#define KILN_DEVICE_CPU_COMPILER_OPTIONS_H

#include <stdbool.h>
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Which options are allowed. */
enum kiln_option_set {
  KILN_OPTIONS_COMPILE, /* clCompileProgram */
  KILN_OPTIONS_LINK,    /* clLinkProgram */
  KILN_OPTIONS_BUILD,   /* clBuildProgram: compile options plus program linking options */
};

struct kiln_cl_options {
  char **cc1_args; /* NULL-terminated; the clang cc1 arguments the options translate to */
  size_t num_cc1_args;
  char std[8];     /* "CL1.2" when not given */
  bool opt_disable;
  bool debug;      /* -g, or KILN_DEBUG_KERNELS set (compile and build sets): docs/debugging.md */
  bool kernel_arg_info;
  bool create_library;
  bool enable_link_options;
  bool denorms_are_zero;
  bool fast_relaxed_math;
};

/* 0 or KILN_COMPILE_INVALID_OPTIONS (with a message naming the option in *log, malloc'd)
 * or KILN_COMPILE_OUT_OF_MEMORY. On success *out must be released with kiln_cl_options_free. */
int kiln_cl_options_parse(const char *options, enum kiln_option_set set, struct kiln_cl_options *out, char **log);
void kiln_cl_options_free(struct kiln_cl_options *options);

/* KILN_DEBUG_KERNELS=1 in the environment: every compilation is built as with -g. */
bool kiln_debug_kernels_forced(void);
/* True when a build with these options is a debug build (-g, or KILN_DEBUG_KERNELS): the
 * compiled-code cache skips those (their code carries debug info and source paths of
 * this process). */
bool kiln_cl_options_request_debug(const char *options);

/* An option string split into options: at white space, double quotes group and a
 * backslash escapes the next character. The one tokenizer of option strings (the runtime's
 * option checks use it too, so both read the same options). A NULL-terminated list to
 * free with kiln_options_tokens_free; NULL when out of memory. */
char **kiln_options_tokenize(const char *options);
void kiln_options_tokens_free(char **tokens);

#ifdef __cplusplus
}
#endif

#endif
