/* The compiler's option checking (OpenCL 3.0 "Compiler Options" / "Linker Options") and
 * the program binary envelope (magic, versions, checksum). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "device/cpu/compiler/compiler.h"
#include "device/cpu/compiler/module_binary.h"
#include "device/cpu/compiler/options.h"
#include "runtime/program.h"

#include <stdlib.h>
#include <string.h>

static void check_option(const char *options, bool for_link, int expected, const char *in_log) {
  char *log = NULL;
  int status = kiln_compiler_check_options(options, for_link, &log);
  if (status != expected) print_error("options '%s' (link %d): got %d, log: %s\n", options, for_link, status, log);
  assert_int_equal(status, expected);
  assert_non_null(log);
  if (in_log) assert_non_null(strstr(log, in_log));
  free(log);
}

static void compile_options_accepted(void **state) {
  (void)state;
  static const char *const ok[] = {
      "", "   ", NULL, "-D FOO", "-DFOO", "-D FOO=1 -DBAR=2", "-D \"X=a b\"", "-I /tmp", "-I/tmp",
      "-cl-single-precision-constant", "-cl-denorms-are-zero", "-cl-fp32-correctly-rounded-divide-sqrt",
      "-cl-opt-disable", "-cl-mad-enable", "-cl-no-signed-zeros", "-cl-unsafe-math-optimizations",
      "-cl-finite-math-only", "-cl-fast-relaxed-math", "-cl-uniform-work-group-size", "-cl-no-subgroup-ifp",
      "-w", "-Werror", "-cl-std=CL1.0", "-cl-std=CL1.1", "-cl-std=CL1.2", "-cl-std=CL2.0", "-cl-std=CL3.0", "-cl-kernel-arg-info",
      "-g", "-cl-strict-aliasing", "-cl-mad-enable -cl-std=CL3.0 -D N=4 -Werror",
  };
  for (size_t i = 0; i < sizeof ok / sizeof ok[0]; i++) check_option(ok[i], false, KILN_COMPILE_OK, NULL);
}

static void compile_options_rejected(void **state) {
  (void)state;
  check_option("-cl-std=CL4.0", false, KILN_COMPILE_INVALID_OPTIONS, "-cl-std=CL4.0");
  check_option("-cl-std=", false, KILN_COMPILE_INVALID_OPTIONS, "-cl-std=");
  check_option("-O3", false, KILN_COMPILE_INVALID_OPTIONS, "-O3");
  check_option("-cl-mad-enable -foo", false, KILN_COMPILE_INVALID_OPTIONS, "-foo");
  check_option("-D", false, KILN_COMPILE_INVALID_OPTIONS, "-D");
  check_option("-I", false, KILN_COMPILE_INVALID_OPTIONS, "-I");
  check_option("-create-library", false, KILN_COMPILE_INVALID_OPTIONS, "-create-library");
  check_option("-cl-fast-relaxed-maths", false, KILN_COMPILE_INVALID_OPTIONS, "-cl-fast-relaxed-maths");
}

/* -g, or KILN_DEBUG_KERNELS set: a debug build (docs/debugging.md). The environment makes
 * every compilation one, never a link; "0" and "" are unset. */
static void debug_builds(void **state) {
  (void)state;
  struct kiln_cl_options parsed;
  unsetenv("KILN_DEBUG_KERNELS");
  assert_int_equal(KILN_COMPILE_OK, kiln_cl_options_parse("-cl-mad-enable", KILN_OPTIONS_BUILD, &parsed, NULL));
  assert_false(parsed.debug);
  kiln_cl_options_free(&parsed);
  assert_int_equal(KILN_COMPILE_OK, kiln_cl_options_parse("-D X=1 -g", KILN_OPTIONS_COMPILE, &parsed, NULL));
  assert_true(parsed.debug);
  kiln_cl_options_free(&parsed);
  assert_true(kiln_cl_options_request_debug("-D X=1 -g"));
  assert_false(kiln_cl_options_request_debug("-D g -D X=-g"));
  assert_false(kiln_cl_options_request_debug(NULL));
  static const char *const unset[] = {"0", ""};
  for (size_t i = 0; i < 2; i++) {
    setenv("KILN_DEBUG_KERNELS", unset[i], 1);
    assert_false(kiln_debug_kernels_forced());
    assert_false(kiln_cl_options_request_debug(""));
  }
  setenv("KILN_DEBUG_KERNELS", "1", 1);
  assert_true(kiln_debug_kernels_forced());
  assert_true(kiln_cl_options_request_debug(NULL));
  assert_int_equal(KILN_COMPILE_OK, kiln_cl_options_parse("", KILN_OPTIONS_BUILD, &parsed, NULL));
  assert_true(parsed.debug);
  kiln_cl_options_free(&parsed);
  assert_int_equal(KILN_COMPILE_OK, kiln_cl_options_parse("", KILN_OPTIONS_LINK, &parsed, NULL));
  assert_false(parsed.debug);
  kiln_cl_options_free(&parsed);
  unsetenv("KILN_DEBUG_KERNELS");
}

static void link_options(void **state) {
  (void)state;
  static const char *const ok[] = {
      "", "-create-library", "-create-library -enable-link-options", "-cl-denorms-are-zero",
      "-cl-no-signed-zeros", "-cl-unsafe-math-optimizations", "-cl-finite-math-only",
      "-cl-fast-relaxed-math", "-cl-no-subgroup-ifp",
  };
  for (size_t i = 0; i < sizeof ok / sizeof ok[0]; i++) check_option(ok[i], true, KILN_COMPILE_OK, NULL);
  check_option("-enable-link-options", true, KILN_COMPILE_INVALID_OPTIONS, "-enable-link-options");
  check_option("-D X", true, KILN_COMPILE_INVALID_OPTIONS, "-D");
  check_option("-cl-std=CL1.2", true, KILN_COMPILE_INVALID_OPTIONS, "-cl-std=CL1.2");
  check_option("-cl-opt-disable", true, KILN_COMPILE_INVALID_OPTIONS, "-cl-opt-disable");
}

static void binary_envelope(void **state) {
  (void)state;
  const char payload[] = "some bitcode bytes";
  void *bytes = NULL;
  size_t size = 0;
  assert_int_equal(kiln_binary_wrap(KILN_MODULE_LIBRARY, payload, sizeof payload, &bytes, &size), 0);
  assert_int_equal(size, KILN_BINARY_HEADER_SIZE + sizeof payload);
  assert_memory_equal(bytes, "KILNBIN", 8);

  uint32_t kind = 0;
  const void *p = NULL;
  size_t n = 0;
  const char *why = NULL;
  assert_int_equal(kiln_binary_unwrap(bytes, size, &kind, &p, &n, &why), 0);
  assert_int_equal(kind, KILN_MODULE_LIBRARY);
  assert_int_equal(n, sizeof payload);
  assert_memory_equal(p, payload, sizeof payload);

  unsigned char *b = bytes;
  b[size - 3] ^= 0x40; /* corrupt payload */
  assert_int_equal(kiln_binary_unwrap(bytes, size, &kind, &p, &n, &why), KILN_COMPILE_INVALID_BINARY);
  assert_non_null(strstr(why, "checksum"));
  b[size - 3] ^= 0x40;
  assert_int_equal(kiln_binary_unwrap(bytes, size - 1, &kind, &p, &n, &why), KILN_COMPILE_INVALID_BINARY);
  assert_int_equal(kiln_binary_unwrap(bytes, 10, &kind, &p, &n, &why), KILN_COMPILE_INVALID_BINARY);
  b[20] ^= 1; /* Kiln version */
  assert_int_equal(kiln_binary_unwrap(bytes, size, &kind, &p, &n, &why), KILN_COMPILE_INVALID_BINARY);
  assert_non_null(strstr(why, "Kiln version"));
  b[20] ^= 1;
  b[0] = 'X';
  assert_int_equal(kiln_binary_unwrap(bytes, size, &kind, &p, &n, &why), KILN_COMPILE_INVALID_BINARY);
  free(bytes);
  /* FNV-1a 64 reference values */
  assert_true(kiln_fnv1a64("", 0) == 0xcbf29ce484222325ull);
  assert_true(kiln_fnv1a64("a", 1) == 0xaf63dc4c8601ec8cull);
}

/* The runtime's option checks (uniform work-groups, argument info) read an option string
 * as the compiler does: one tokenizer (options.h). They used to split at every space and
 * group with single quotes too, so the two could see different options. */
static void runtime_reads_options_as_compiler(void **state) {
  (void)state;
  static const struct {
    const char *options;
    bool has_arg_info;
  } cases[] = {
      {"-cl-kernel-arg-info", true},
      {"-DX=\"a b\" -cl-kernel-arg-info", true},
      {"-DX=a\\ -cl-kernel-arg-info", false},  /* an escaped space: one option */
      {"'-cl-kernel-arg-info'", false},          /* single quotes are characters */
      {"-DX=\"a -cl-kernel-arg-info\"", false}, /* inside a quoted value */
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    char **tokens = kiln_options_tokenize(cases[i].options);
    assert_non_null(tokens);
    bool compiler_sees = false;
    for (char **t = tokens; *t; t++) compiler_sees |= strcmp(*t, "-cl-kernel-arg-info") == 0;
    kiln_options_tokens_free(tokens);
    assert_int_equal(cases[i].has_arg_info, compiler_sees);
    if (kiln_program_options_have(cases[i].options, "-cl-kernel-arg-info") != cases[i].has_arg_info)
      fail_msg("'%s': the runtime disagrees with the compiler", cases[i].options);
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(compile_options_accepted),
      cmocka_unit_test(compile_options_rejected),
      cmocka_unit_test(debug_builds),
      cmocka_unit_test(link_options),
      cmocka_unit_test(binary_envelope),
      cmocka_unit_test(runtime_reads_options_as_compiler),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
