/* harness.h: runs OpenCL C test kernels against the embedded builtin library without the
 * JIT: the kernel is compiled with the user-kernel flags of compiler/clang_flags.h, linked
 * with the builtin library (builtins.bc of the build tree, all shards in one module), retargeted from SPIR to the host the way the compiler does
 * (triple, data layout, calling conventions), built into a shared object with
 * harness_intrinsics.c, SLEEF and libm, and loaded with dlopen. Kernels run one work-item
 * at a time. */
#ifndef KILN_TEST_BUILTINS_HARNESS_H
#define KILN_TEST_BUILTINS_HARNESS_H

#include "device/cpu/compiler/clang_flags.h"

#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct kiln_bt_item {
  uint32_t work_dim;
  size_t global_offset[3], global_size[3], local_size[3], enqueued_local_size[3], num_groups[3];
  size_t local_id[3], group_id[3];
  unsigned barriers;
};

#define KILN_BT_DIR_(f) f
static inline const char *kiln_bt_source_dir(void) {
  static char dir[4096];
  snprintf(dir, sizeof dir, "%s", __FILE__);
  char *slash = strrchr(dir, '/');
  if (slash) *slash = '\0';
  return dir;
}

/* xorshift64: reproducible test inputs from a per-suite seed in *state. */
static inline uint64_t kiln_bt_random(uint64_t *state) {
  *state ^= *state << 13;
  *state ^= *state >> 7;
  *state ^= *state << 17;
  return *state;
}

/* Builds <this dir>/<name>.cl with -cl-std=<std>; returns the dlopen handle or NULL. */
static inline void *kiln_bt_load(const char *name, const char *std) {
  char tmp[] = "/tmp/kiln_bt_XXXXXX";
  if (!mkdtemp(tmp)) return NULL;
  char path[4200];
  const char *dir = kiln_bt_source_dir();
  char *cmd = malloc(16384);
  snprintf(cmd, 16384,
           "set -e; cd %s; "
           "clang-19 -target " KILN_CLANG_TRIPLE " -x cl -cl-std=%s -Xclang -fdeclare-opencl-builtins "
           "-Xclang -finclude-default-header -Xclang -cl-ext=" KILN_CLANG_CL_EXT
           " -U__SPIR__ -U__SPIR64__ -O1 -emit-llvm -c %s/%s.cl -o k.bc; "
           "llvm-link-19 --only-needed k.bc " KILN_BUILTINS_BC " -o linked.bc; llvm-dis-19 linked.bc -o linked.ll; "
           "sed -e 's/^target datalayout = .*/target datalayout = \"e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128\"/' "
           "-e 's/^target triple = .*/target triple = \"x86_64-pc-linux-gnu\"/' -e 's/spir_func //g; s/spir_kernel //g' -e 's/target(\"spirv[.][A-Za-z]*\"[^)]*)/ptr/g' "
           "linked.ll > host.ll; "
           "clang-19 -Wno-override-module -O2 -fPIC -shared host.ll %s/harness_intrinsics.c -o k.so -lsleef -lm",
           tmp, std, dir, name, dir);
  int rc = system(cmd);
  free(cmd);
  if (rc != 0) return NULL;
  snprintf(path, sizeof path, "%s/k.so", tmp);
  void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  if (!h) fprintf(stderr, "dlopen: %s\n", dlerror());
  return h;
}

/* Runs a 1-D kernel over n work-items (local size `local`), one at a time. */
typedef void (*kiln_bt_set_item_fn)(const struct kiln_bt_item *);
#define KILN_BT_RUN_1D(handle, kernel_type, kernel_name, n, local, ...)                          \
  do {                                                                                            \
    kiln_bt_set_item_fn set_item_ = (kiln_bt_set_item_fn)dlsym(handle, "kiln_bt_set_item");      \
    kernel_type kernel_ = (kernel_type)dlsym(handle, kernel_name);                                \
    assert_non_null(set_item_);                                                                   \
    assert_non_null(kernel_);                                                                     \
    for (size_t gid_ = 0; gid_ < (n); ++gid_) {                                                   \
      struct kiln_bt_item it_ = {1, {0, 0, 0}, {(n), 1, 1}, {(local), 1, 1}, {(local), 1, 1},      \
                                 {((n) + (local) - 1) / (local), 1, 1}, {gid_ % (local), 0, 0},   \
                                 {gid_ / (local), 0, 0}, 0};                                      \
      set_item_(&it_);                                                                            \
      kernel_(__VA_ARGS__);                                                                       \
    }                                                                                             \
  } while (0)

#endif
