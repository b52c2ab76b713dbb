/* The compiled-code disk cache through the loader. Every build runs in a new process
 * (this binary re-executed in child mode, as the cache is meant for) that reports through a pipe; the parent never
 * touches OpenCL, it only looks at the cache directory. Covered: a miss writes one entry,
 * a hit in a new process gives the same kernels, arguments and log and correct results;
 * other options or source -> another entry; corrupt or truncated entries are rebuilt;
 * KILN_CACHE=0 writes nothing; an unusable directory does not fail the build; the XDG and
 * HOME locations; concurrent builders of the same program. The kernels use builtins
 * backed by SLEEF (sin), so a hit must resolve the library's symbols as a build does. */
#include "kiln_test.h"

#include <dirent.h>
#include <fcntl.h>
#include <ftw.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static const char *program_source =
    "kernel void scale(global float *out, global const float *in, float factor) {\n"
    "  size_t i = get_global_id(0);\n"
    "  out[i] = in[i] * factor + fabs(in[i]) + clamp(in[i], -1.0f, 2.0f) + sin(in[i]);\n"
    "}\n"
    "kernel __attribute__((reqd_work_group_size(8, 1, 1)))\n"
    "void sum8(global int *out, local int *scratch, const int bias) {\n"
    "  size_t l = get_local_id(0);\n"
    "  scratch[l] = (int)get_global_id(0);\n"
    "  barrier(CLK_LOCAL_MEM_FENCE);\n"
    "  if (l == 0) { int s = bias; for (int j = 0; j < 8; j++) s += scratch[j]; out[get_group_id(0)] = s; }\n"
    "}\n";

static const char *other_source = "kernel void twice(global int *p) { p[get_global_id(0)] *= 2; }\n";

#define N 64

/* What a child saw. */
struct child_report {
  int stage;     /* 0: all done; otherwise where it failed */
  cl_int error;  /* the failing call's code */
  cl_int build;
  int results_ok;
  char names[128];
  char kernels[2048];  /* every kernel's and argument's description */
  char log[512];
};

static void describe(cl_kernel kernel, cl_device_id device, char *out, size_t size) {
  char name[64] = "", attributes[128] = "";
  cl_uint num_args = 0;
  cl_ulong local = 0, private_bytes = 0;
  size_t wg[3] = {0};
  clGetKernelInfo(kernel, CL_KERNEL_FUNCTION_NAME, sizeof name, name, NULL);
  clGetKernelInfo(kernel, CL_KERNEL_NUM_ARGS, sizeof num_args, &num_args, NULL);
  clGetKernelInfo(kernel, CL_KERNEL_ATTRIBUTES, sizeof attributes, attributes, NULL);
  clGetKernelWorkGroupInfo(kernel, device, CL_KERNEL_LOCAL_MEM_SIZE, sizeof local, &local, NULL);
  clGetKernelWorkGroupInfo(kernel, device, CL_KERNEL_PRIVATE_MEM_SIZE, sizeof private_bytes, &private_bytes, NULL);
  clGetKernelWorkGroupInfo(kernel, device, CL_KERNEL_COMPILE_WORK_GROUP_SIZE, sizeof wg, wg, NULL);
  size_t used = strlen(out);
  used += (size_t)snprintf(out + used, size - used, "%s/%u/%s/%llu/%llu/%zu,%zu,%zu:", name, num_args, attributes,
                           (unsigned long long)local, (unsigned long long)private_bytes, wg[0], wg[1], wg[2]);
  for (cl_uint i = 0; i < num_args && used < size; i++) {
    cl_kernel_arg_address_qualifier address = 0;
    cl_kernel_arg_access_qualifier access = 0;
    cl_kernel_arg_type_qualifier type = 0;
    char type_name[64] = "?", arg_name[64] = "?";
    clGetKernelArgInfo(kernel, i, CL_KERNEL_ARG_ADDRESS_QUALIFIER, sizeof address, &address, NULL);
    clGetKernelArgInfo(kernel, i, CL_KERNEL_ARG_ACCESS_QUALIFIER, sizeof access, &access, NULL);
    clGetKernelArgInfo(kernel, i, CL_KERNEL_ARG_TYPE_QUALIFIER, sizeof type, &type, NULL);
    clGetKernelArgInfo(kernel, i, CL_KERNEL_ARG_TYPE_NAME, sizeof type_name, type_name, NULL);
    clGetKernelArgInfo(kernel, i, CL_KERNEL_ARG_NAME, sizeof arg_name, arg_name, NULL);
    used += (size_t)snprintf(out + used, size - used, " %x,%x,%llx,%s,%s", address, access, (unsigned long long)type,
                             type_name, arg_name);
  }
  if (used < size) used += (size_t)snprintf(out + used, size - used, ";");
}

/* Runs both kernels of program_source and checks every value. */
static int run_kernels(cl_context context, cl_device_id device, cl_program program, struct child_report *r) {
  cl_int err;
  cl_command_queue queue = clCreateCommandQueueWithProperties(context, device, NULL, &err);
  if (err != CL_SUCCESS) return 0;
  float in[N], out[N];
  for (int i = 0; i < N; i++) in[i] = (float)(i - 20) * 0.25f;
  cl_mem min = clCreateBuffer(context, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, sizeof in, in, &err);
  cl_mem mout = clCreateBuffer(context, CL_MEM_WRITE_ONLY, sizeof out, NULL, &err);
  cl_mem msum = clCreateBuffer(context, CL_MEM_WRITE_ONLY, N / 8 * sizeof(int), NULL, &err);
  cl_kernel scale = clCreateKernel(program, "scale", &err);
  cl_kernel sum8 = clCreateKernel(program, "sum8", &err);
  float factor = 3.0f;
  int bias = 5, sums[N / 8];
  size_t global = N, local = 8;
  err = clSetKernelArg(scale, 0, sizeof mout, &mout);
  err |= clSetKernelArg(scale, 1, sizeof min, &min);
  err |= clSetKernelArg(scale, 2, sizeof factor, &factor);
  err |= clSetKernelArg(sum8, 0, sizeof msum, &msum);
  err |= clSetKernelArg(sum8, 1, 8 * sizeof(int), NULL);
  err |= clSetKernelArg(sum8, 2, sizeof bias, &bias);
  err |= clEnqueueNDRangeKernel(queue, scale, 1, NULL, &global, NULL, 0, NULL, NULL);
  err |= clEnqueueNDRangeKernel(queue, sum8, 1, NULL, &global, &local, 0, NULL, NULL);
  err |= clEnqueueReadBuffer(queue, mout, CL_TRUE, 0, sizeof out, out, 0, NULL, NULL);
  err |= clEnqueueReadBuffer(queue, msum, CL_TRUE, 0, sizeof sums, sums, 0, NULL, NULL);
  int ok = err == CL_SUCCESS;
  for (int i = 0; i < N && ok; i++) {
    float clamped = in[i] < -1.0f ? -1.0f : in[i] > 2.0f ? 2.0f : in[i];
    float want = in[i] * factor + fabsf(in[i]) + clamped + (float)sin((double)in[i]);
    ok = fabsf(out[i] - want) <= 1e-5f * (1.0f + fabsf(want));
  }
  for (int g = 0; g < N / 8 && ok; g++) ok = sums[g] == bias + 8 * 8 * g + 28;
  r->error = err;
  clReleaseKernel(scale);
  clReleaseKernel(sum8);
  clReleaseMemObject(min);
  clReleaseMemObject(mout);
  clReleaseMemObject(msum);
  clReleaseCommandQueue(queue);
  return ok;
}

/* In the child: build `source` with `options`; describe and (for program_source) run it. */
static void child_build(const char *source, const char *options, struct child_report *r) {
  cl_platform_id platform = NULL;
  cl_uint count = 0;
  cl_platform_id platforms[8];
  clGetPlatformIDs(8, platforms, &count);
  for (cl_uint i = 0; i < count && i < 8; i++) {
    char name[64] = "";
    clGetPlatformInfo(platforms[i], CL_PLATFORM_NAME, sizeof name, name, NULL);
    if (strcmp(name, "Kiln") == 0) platform = platforms[i];
  }
  r->stage = 1;
  if (!platform) return;
  cl_device_id device;
  cl_int err = clGetDeviceIDs(platform, CL_DEVICE_TYPE_ALL, 1, &device, NULL);
  cl_context context = clCreateContext(NULL, 1, &device, NULL, NULL, &err);
  r->stage = 2;
  if (err != CL_SUCCESS) return;
  cl_program program = clCreateProgramWithSource(context, 1, &source, NULL, &err);
  r->build = clBuildProgram(program, 1, &device, options, NULL, NULL);
  clGetProgramBuildInfo(program, device, CL_PROGRAM_BUILD_LOG, sizeof r->log, r->log, NULL);
  r->stage = 3;
  if (r->build == CL_SUCCESS) {
    clGetProgramInfo(program, CL_PROGRAM_KERNEL_NAMES, sizeof r->names, r->names, NULL);
    cl_kernel kernels[8];
    cl_uint num = 0;
    r->error = clCreateKernelsInProgram(program, 8, kernels, &num);
    for (cl_uint i = 0; i < num; i++) {
      describe(kernels[i], device, r->kernels, sizeof r->kernels);
      clReleaseKernel(kernels[i]);
    }
    r->results_ok = source == program_source ? run_kernels(context, device, program, r) : 1;
    r->stage = 0;
  }
  clReleaseProgram(program);
  clReleaseContext(context);
}

static const char *self_path;

/* Child mode (argv: --child <source index> <options or "-">): builds and writes its report
 * to fd 3. */
static int child_main(char **argv) {
  const char *source = argv[2][0] == '0' ? program_source : other_source;
  const char *options = strcmp(argv[3], "-") == 0 ? NULL : argv[3];
  struct child_report report;
  memset(&report, 0, sizeof report);
  child_build(source, options, &report);
  ssize_t n = write(3, &report, sizeof report);
  return n == (ssize_t)sizeof report ? 0 : 3;
}

/* Starts `count` new processes (this binary in child mode, exec'ed: a fresh process as the
 * cache is meant for) that build at the same time; their reports in r[]. */
static void build_in_children(const char *source, const char *options, struct child_report *r, int count) {
  int fds[8][2];
  pid_t pids[8];
  assert_true(count <= 8);
  char *args[] = {(char *)self_path, "--child", source == program_source ? "0" : "1",
                  options ? (char *)options : "-", NULL};
  for (int i = 0; i < count; i++) {
    assert_int_equal(pipe(fds[i]), 0);
    pids[i] = fork();
    assert_true(pids[i] >= 0);
    if (pids[i] == 0) {
      close(fds[i][0]);
      if (dup2(fds[i][1], 3) != 3) _exit(4);
      execv(self_path, args);
      _exit(5);
    }
    close(fds[i][1]);
  }
  for (int i = 0; i < count; i++) {
    memset(&r[i], 0, sizeof r[i]);
    size_t got = 0;
    while (got < sizeof r[i]) {
      ssize_t n = read(fds[i][0], (char *)&r[i] + got, sizeof r[i] - got);
      if (n <= 0) break;
      got += (size_t)n;
    }
    close(fds[i][0]);
    int status = 0;
    assert_int_equal(waitpid(pids[i], &status, 0), pids[i]);
    assert_true(WIFEXITED(status));
    assert_int_equal(WEXITSTATUS(status), 0);
    assert_int_equal(got, sizeof r[i]);
  }
}

static struct child_report build_once(const char *source, const char *options) {
  struct child_report r;
  build_in_children(source, options, &r, 1);
  if (r.stage != 0) print_error("child stopped at stage %d (build %d, error %d): %s\n", r.stage, r.build, r.error, r.log);
  assert_int_equal(r.stage, 0);
  assert_int_equal(r.build, CL_SUCCESS);
  assert_true(r.results_ok);
  return r;
}

/* ---- the cache directory ---- */

static char root[256];

static int remove_one(const char *path, const struct stat *st, int flag, struct FTW *ftw) {
  (void)st, (void)flag, (void)ftw;
  return remove(path);
}

static int make_root(void **state) {
  (void)state;
  const char *tmp = getenv("TMPDIR");
  snprintf(root, sizeof root, "%s/kiln-cache-test-XXXXXX", tmp && *tmp ? tmp : "/tmp");
  assert_non_null(mkdtemp(root));
  return 0;
}

static int remove_root(void **state) {
  (void)state;
  nftw(root, remove_one, 16, FTW_DEPTH | FTW_PHYS);
  unsetenv("KILN_CACHE");
  return 0;
}

/* A fresh cache directory below root, set as KILN_CACHE_DIR. */
static const char *fresh_dir(const char *name) {
  static char dir[512];
  snprintf(dir, sizeof dir, "%s/%s", root, name);
  setenv("KILN_CACHE_DIR", dir, 1);
  unsetenv("KILN_CACHE");
  return dir;
}

/* Number of files in dir whose names end with suffix (all files for ""); the first such in `first`. */
static int count_files(const char *dir, const char *suffix, char *first, size_t first_size) {
  DIR *d = opendir(dir);
  if (!d) return 0;
  int n = 0;
  for (struct dirent *e; (e = readdir(d)) != NULL;) {
    size_t len = strlen(e->d_name), k = strlen(suffix);
    if (e->d_name[0] == '.' && (len == 1 || (len == 2 && e->d_name[1] == '.'))) continue;
    if (len < k || strcmp(e->d_name + len - k, suffix) != 0) continue;
    if (first && n == 0) snprintf(first, first_size, "%s/%s", dir, e->d_name);
    n++;
  }
  closedir(d);
  return n;
}

/* The inode of the one entry in dir: a hit reads the entry (and only refreshes its mtime);
 * a build that stores writes a new file and renames it over, so the inode changes. */
static ino_t entry_inode(const char *dir) {
  char path[768];
  assert_int_equal(count_files(dir, ".kcache", path, sizeof path), 1);
  struct stat st;
  assert_int_equal(stat(path, &st), 0);
  return st.st_ino;
}

static void assert_same_build(const struct child_report *a, const struct child_report *b) {
  assert_string_equal(a->names, b->names);
  assert_string_equal(a->kernels, b->kernels);
  assert_string_equal(a->log, b->log);
}

/* ---- tests ---- */

static void test_miss_then_hit_in_new_process(void **state) {
  (void)state;
  const char *dir = fresh_dir("hit");
  struct child_report first = build_once(program_source, "-cl-kernel-arg-info");
  assert_int_equal(count_files(dir, ".kcache", NULL, 0), 1);
  assert_int_equal(count_files(dir, "", NULL, 0), 1);  /* no temporary file left */
  ino_t stored = entry_inode(dir);
  struct child_report second = build_once(program_source, "-cl-kernel-arg-info");
  assert_int_equal(count_files(dir, ".kcache", NULL, 0), 1);
  assert_true(entry_inode(dir) == stored); /* read, not rebuilt and stored again */
  assert_same_build(&first, &second);
  assert_string_equal(first.names, "scale;sum8");
  assert_non_null(strstr(first.kernels, "reqd_work_group_size(8,1,1)"));
  assert_non_null(strstr(first.kernels, "float*,in"));
}

static void test_other_options_or_source_other_entry(void **state) {
  (void)state;
  const char *dir = fresh_dir("keys");
  build_once(program_source, NULL);
  assert_int_equal(count_files(dir, ".kcache", NULL, 0), 1);
  build_once(program_source, "-cl-mad-enable");
  assert_int_equal(count_files(dir, ".kcache", NULL, 0), 2);
  build_once(other_source, NULL);
  assert_int_equal(count_files(dir, ".kcache", NULL, 0), 3);
  build_once(program_source, "-cl-mad-enable");  /* a hit: nothing new */
  assert_int_equal(count_files(dir, ".kcache", NULL, 0), 3);
}

static unsigned char *read_whole(const char *path, size_t *size) {
  FILE *f = fopen(path, "rb");
  assert_non_null(f);
  unsigned char *data = malloc(1 << 22);
  assert_non_null(data);
  *size = fread(data, 1, 1 << 22, f);
  fclose(f);
  assert_true(*size > 64 && *size < (1 << 22));
  return data;
}

/* Damages the one entry in dir with `damage`, then checks a new build is right and rewrites it. */
static void check_rebuilt_after(const char *name, void (*damage)(const char *path)) {
  const char *dir = fresh_dir(name);
  struct child_report original = build_once(program_source, "-cl-kernel-arg-info");
  char path[768];
  assert_int_equal(count_files(dir, ".kcache", path, sizeof path), 1);
  size_t size = 0;
  unsigned char *before = read_whole(path, &size);
  damage(path);
  ino_t damaged = entry_inode(dir);
  struct child_report rebuilt = build_once(program_source, "-cl-kernel-arg-info");
  assert_same_build(&original, &rebuilt);
  ino_t rewritten = entry_inode(dir);
  assert_true(rewritten != damaged); /* the damaged entry was replaced, not used */
  size_t rewritten_size = 0;
  unsigned char *after = read_whole(path, &rewritten_size);
  /* The entry was written again (builds are deterministic: the same bytes). */
  assert_int_equal(rewritten_size, size);
  assert_memory_equal(after, before, size);
  free(before);
  free(after);
  struct child_report hit = build_once(program_source, "-cl-kernel-arg-info");
  assert_same_build(&original, &hit);
  assert_true(entry_inode(dir) == rewritten);
}

static void flip_byte_in_middle(const char *path) {
  int fd = open(path, O_RDWR);
  assert_true(fd >= 0);
  struct stat st;
  assert_int_equal(fstat(fd, &st), 0);
  unsigned char byte;
  off_t at = st.st_size / 2;
  assert_int_equal(pread(fd, &byte, 1, at), 1);
  byte ^= 0x5a;
  assert_int_equal(pwrite(fd, &byte, 1, at), 1);
  close(fd);
}

static void truncate_to_half(const char *path) {
  struct stat st;
  assert_int_equal(stat(path, &st), 0);
  assert_int_equal(truncate(path, st.st_size / 2), 0);
}

static void truncate_to_header(const char *path) { assert_int_equal(truncate(path, 40), 0); }

static void replace_with_garbage(const char *path) {
  FILE *f = fopen(path, "wb");
  assert_non_null(f);
  for (int i = 0; i < 4096; i++) fputc((i * 7919) & 0xff, f);
  fclose(f);
}

static void test_corrupt_entry_rebuilt(void **state) {
  (void)state;
  check_rebuilt_after("flipped", flip_byte_in_middle);
  check_rebuilt_after("garbage", replace_with_garbage);
}

static void test_truncated_entry_rebuilt(void **state) {
  (void)state;
  check_rebuilt_after("half", truncate_to_half);
  check_rebuilt_after("header", truncate_to_header);
}

static void test_disabled_writes_nothing(void **state) {
  (void)state;
  const char *dir = fresh_dir("disabled");
  setenv("KILN_CACHE", "0", 1);
  build_once(program_source, NULL);
  build_once(program_source, NULL);
  unsetenv("KILN_CACHE");
  struct stat st;
  assert_int_not_equal(stat(dir, &st), 0);  /* not even the directory */
  build_once(program_source, NULL);
  assert_int_equal(count_files(dir, ".kcache", NULL, 0), 1);
}

static void test_unusable_dir_still_builds(void **state) {
  (void)state;
  char file[512], dir[600];
  snprintf(file, sizeof file, "%s/plain-file", root);
  FILE *f = fopen(file, "w");
  assert_non_null(f);
  fclose(f);
  snprintf(dir, sizeof dir, "%s/below", file);  /* a directory below a regular file: never creatable */
  setenv("KILN_CACHE_DIR", dir, 1);
  build_once(program_source, NULL);
  build_once(program_source, NULL);
  struct stat st;
  assert_int_equal(stat(file, &st), 0);
  assert_int_equal(st.st_size, 0);
}

static void test_default_locations(void **state) {
  (void)state;
  char xdg[512], home[512], dir[600];
  snprintf(xdg, sizeof xdg, "%s/xdg", root);
  snprintf(home, sizeof home, "%s/home", root);
  /* Copies in static storage: a failed assertion below must not leak them. */
  static char old_home[1024], old_xdg[1024];
  snprintf(old_home, sizeof old_home, "%s", getenv("HOME") ? getenv("HOME") : "");
  snprintf(old_xdg, sizeof old_xdg, "%s", getenv("XDG_CACHE_HOME") ? getenv("XDG_CACHE_HOME") : "");
  unsetenv("KILN_CACHE_DIR");
  setenv("XDG_CACHE_HOME", xdg, 1);
  setenv("HOME", home, 1);
  build_once(other_source, NULL);
  snprintf(dir, sizeof dir, "%s/kiln", xdg);
  assert_int_equal(count_files(dir, ".kcache", NULL, 0), 1);
  unsetenv("XDG_CACHE_HOME");
  build_once(other_source, NULL);
  snprintf(dir, sizeof dir, "%s/.cache/kiln", home);
  assert_int_equal(count_files(dir, ".kcache", NULL, 0), 1);
  if (*old_home) setenv("HOME", old_home, 1);
  if (*old_xdg) setenv("XDG_CACHE_HOME", old_xdg, 1);
}

static void test_concurrent_builders(void **state) {
  (void)state;
  const char *dir = fresh_dir("concurrent");
  struct child_report r[4];
  build_in_children(program_source, "-cl-kernel-arg-info", r, 4);
  for (int i = 0; i < 4; i++) {
    assert_int_equal(r[i].stage, 0);
    assert_true(r[i].results_ok);
    assert_same_build(&r[0], &r[i]);
  }
  assert_int_equal(count_files(dir, ".kcache", NULL, 0), 1);
  assert_int_equal(count_files(dir, "", NULL, 0), 1);
  struct child_report hit = build_once(program_source, "-cl-kernel-arg-info");
  assert_same_build(&r[0], &hit);
}

int main(int argc, char **argv) {
  if (argc == 4 && strcmp(argv[1], "--child") == 0) return child_main(argv);
  self_path = "/proc/self/exe";
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_miss_then_hit_in_new_process),
      cmocka_unit_test(test_other_options_or_source_other_entry),
      cmocka_unit_test(test_corrupt_entry_rebuilt),
      cmocka_unit_test(test_truncated_entry_rebuilt),
      cmocka_unit_test(test_disabled_writes_nothing),
      cmocka_unit_test(test_unusable_dir_still_builds),
      cmocka_unit_test(test_default_locations),
      cmocka_unit_test(test_concurrent_builders),
  };
  return cmocka_run_group_tests(tests, make_root, remove_root);
}
