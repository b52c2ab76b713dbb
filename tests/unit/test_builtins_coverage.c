/* Links a kernel calling a representative of every builtin family (builtins/coverage.cl),
 * compiled with the user-kernel flags of compiler/clang_flags.h for OpenCL C 1.2, 2.0 and
 * 3.0, with the builtin library, and checks that what stays undefined is only what the
 * library documents as external: the __kiln_* intrinsics, SLEEF, the C math library,
 * the image and sampler conversions the compiler lowers and the pipe functions the runtime
 * defines (builtins/pipe_host.c). The same for a kernel calling
 * every sub-group builtin, and every half builtin, clang's opencl-c.h declares
 * (builtins/declarations_probe.py). */
#include "builtins/harness.h"

#include "device/cpu/builtins/pipe_host.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

/* `prepare` (run in the temporary directory first) may write the kernel source `source`. */
static void check_source(const char *std, const char *prepare, const char *source, const char *defines) {
  char tmp[] = "/tmp/kiln_bt_cov_XXXXXX";
  assert_non_null(mkdtemp(tmp));
  char cmd[16384];
  snprintf(cmd, sizeof cmd,
           "cd %s && %s && clang-19 -target " KILN_CLANG_TRIPLE " -x cl -cl-std=%s -Xclang -fdeclare-opencl-builtins "
           "-Xclang -finclude-default-header -Xclang -cl-ext=" KILN_CLANG_CL_EXT " -U__SPIR__ -U__SPIR64__ %s -O0 "
           "-emit-llvm -c %s -o k.bc && llvm-link-19 k.bc " KILN_BUILTINS_BC " -o linked.bc && "
           "llvm-nm-19 --undefined-only linked.bc | awk '{print $2}'",
           tmp, prepare, std, defines, source);
  FILE *p = popen(cmd, "r");
  assert_non_null(p);
  void *libm = dlopen("libm.so.6", RTLD_NOW | RTLD_LOCAL);
  assert_non_null(libm);
  char name[512];
  int undefined = 0, external = 0;
  while (fgets(name, sizeof name, p)) {
    name[strcspn(name, "\n")] = '\0';
    ++external;
    if (!strncmp(name, "__kiln_", 7) || !strncmp(name, "Sleef_", 6)) continue;
    /* Image and sampler conversions the compiler turns into casts (opaque_types.cpp). */
    if (!strcmp(name, "__translate_sampler_initializer") || !strncmp(name, "_Z17__kiln_image_desc", 21)) continue;
    if (strncmp(name, "_Z", 2) != 0 && dlsym(libm, name)) continue;
    if (kiln_pipe_host_defines(name)) continue;
    print_error("%s: undefined %s\n", std, name);
    ++undefined;
  }
  int rc = pclose(p);
  dlclose(libm);
  print_message("  %s: %d external symbols, %d not provided\n", std, external, undefined);
  assert_int_equal(rc, 0);
  assert_true(external > 0); /* the intrinsics at least */
  assert_int_equal(undefined, 0);
  snprintf(cmd, sizeof cmd, "rm -rf %s", tmp);
  assert_int_equal(system(cmd), 0);
}

static void check_std(const char *std) {
  char source[4200];
  snprintf(source, sizeof source, "%s/coverage.cl", kiln_bt_source_dir());
  check_source(std, "true", source, "");
}

/* The sub-group extensions' macros the front end defines (compiler/opencl_c_features.c). */
#define SUBGROUP_DEFINES                                                                            \
  "-Dcl_khr_subgroup_extended_types=1 -Dcl_khr_subgroup_non_uniform_vote=1 -Dcl_khr_subgroup_ballot=1 " \
  "-Dcl_khr_subgroup_non_uniform_arithmetic=1 -Dcl_khr_subgroup_shuffle=1 "                          \
  "-Dcl_khr_subgroup_shuffle_relative=1 -Dcl_khr_subgroup_clustered_reduce=1 -Dcl_khr_subgroup_rotate=1"

/* Every builtin of `family` that clang's opencl-c.h declares (declarations_probe.py). */
static void check_declarations(const char *family, const char *std, int at_least) {
  char prepare[8192];
  snprintf(prepare, sizeof prepare,
           "python3 %s/declarations_probe.py \"$(clang-19 -print-resource-dir)/include/opencl-c.h\" %s probe.cl > count && "
           "test \"$(cat count)\" -gt %d",
           kiln_bt_source_dir(), family, at_least);
  check_source(std, prepare, "probe.cl", SUBGROUP_DEFINES " -D__opencl_c_fp16=1 -D__opencl_c_work_group_collective_functions=1");
}

static void test_subgroup_declarations(void **state) { (void)state; check_declarations("subgroups", "CL3.0", 500); }
static void test_half_declarations_cl30(void **state) { (void)state; check_declarations("half3", "CL3.0", 1500); }
static void test_half_declarations_cl12(void **state) { (void)state; check_declarations("half1", "CL1.2", 1500); }

static void test_cl12(void **state) { (void)state; check_std("CL1.2"); }
static void test_cl20(void **state) { (void)state; check_std("CL2.0"); }
static void test_cl30(void **state) { (void)state; check_std("CL3.0"); }

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_cl12),
    cmocka_unit_test(test_cl20),
    cmocka_unit_test(test_cl30),
    cmocka_unit_test(test_subgroup_declarations),
    cmocka_unit_test(test_half_declarations_cl30),
    cmocka_unit_test(test_half_declarations_cl12),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
