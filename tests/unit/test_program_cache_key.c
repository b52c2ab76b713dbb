/* The compiled-code cache's own pieces: SHA-256 (sha256.h, LLVM's behind it) against the
 * FIPS 180-4 / NIST example digests (whole and in odd pieces), what the key covers, which sources are not cached,
 * and a store/load round trip in one process: a hit gives the same kernels and runs with
 * no code generation; a damaged entry is a miss. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "device/cpu/compiler/program_cache.h"
#include "device/cpu/compiler/sha256.h"

#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static void hex(const unsigned char digest[KILN_SHA256_SIZE], char out[2 * KILN_SHA256_SIZE + 1]) {
  for (unsigned i = 0; i < KILN_SHA256_SIZE; i++) snprintf(out + 2 * i, 3, "%02x", digest[i]);
}

static void check_sha256(const char *message, size_t size, const char *want) {
  unsigned char digest[KILN_SHA256_SIZE];
  char text[2 * KILN_SHA256_SIZE + 1];
  kiln_sha256(message, size, digest);
  hex(digest, text);
  assert_string_equal(text, want);
  /* The same bytes in pieces of 1, 3, 63, 64 and 65 bytes. */
  static const size_t pieces[] = {1, 3, 63, 64, 65};
  for (size_t p = 0; p < 5; p++) {
    struct kiln_sha256 h;
    kiln_sha256_init(&h);
    for (size_t at = 0; at < size; at += pieces[p])
      kiln_sha256_update(&h, message + at, size - at < pieces[p] ? size - at : pieces[p]);
    kiln_sha256_final(&h, digest);
    hex(digest, text);
    assert_string_equal(text, want);
  }
}

static void test_sha256_vectors(void **state) {
  (void)state;
  check_sha256("", 0, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  check_sha256("abc", 3, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  const char *two_blocks = "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq";
  check_sha256(two_blocks, strlen(two_blocks), "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
  char *million = malloc(1000000);
  assert_non_null(million);
  memset(million, 'a', 1000000);
  check_sha256(million, 1000000, "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
  free(million);
}

static const char *source = "kernel void add(global int *p, int v) { p[get_global_id(0)] += v; }\n";

static struct kiln_program_cache_key key_of(const char *src, const char *options) {
  struct kiln_program_cache_key key;
  assert_true(kiln_program_cache_key_for_source(src, strlen(src), options, NULL, 0, &key));
  return key;
}

static void test_key_covers_source_options_headers(void **state) {
  (void)state;
  unsetenv("KILN_CACHE");
  struct kiln_program_cache_key a = key_of(source, NULL), b = key_of(source, NULL);
  assert_memory_equal(a.digest, b.digest, KILN_SHA256_SIZE);
  struct kiln_program_cache_key empty_options = key_of(source, "");
  assert_memory_equal(a.digest, empty_options.digest, KILN_SHA256_SIZE);  /* NULL and "" are the same options */
  struct kiln_program_cache_key other_options = key_of(source, "-cl-fast-relaxed-math");
  assert_memory_not_equal(a.digest, other_options.digest, KILN_SHA256_SIZE);
  const char *changed = "kernel void add(global int *p, int v) { p[get_global_id(0)] -= v; }\n";
  struct kiln_program_cache_key other_source = key_of(changed, NULL);
  assert_memory_not_equal(a.digest, other_source.digest, KILN_SHA256_SIZE);
  struct kiln_cl_header header = {"h.h", "#define X 1\n", 12}, header2 = {"h.h", "#define X 2\n", 12};
  struct kiln_program_cache_key with_header, with_other_header;
  assert_true(kiln_program_cache_key_for_source(source, strlen(source), NULL, &header, 1, &with_header));
  assert_true(kiln_program_cache_key_for_source(source, strlen(source), NULL, &header2, 1, &with_other_header));
  assert_memory_not_equal(a.digest, with_header.digest, KILN_SHA256_SIZE);
  assert_memory_not_equal(with_header.digest, with_other_header.digest, KILN_SHA256_SIZE);
  assert_non_null(strstr(kiln_jit_host_identity(), ";"));
}

static void test_sources_that_read_files_not_cached(void **state) {
  (void)state;
  struct kiln_program_cache_key key;
  const char *includes = "#include \"x.h\"\nkernel void k(global int *p) { p[0] = X; }\n";
  const char *spliced = "#inc\\\nlude <x.h>\nkernel void k(global int *p) { p[0] = X; }\n";
  assert_false(kiln_program_cache_key_for_source(includes, strlen(includes), NULL, NULL, 0, &key));
  assert_false(kiln_program_cache_key_for_source(spliced, strlen(spliced), NULL, NULL, 0, &key));
  const char *dated = "kernel void k(global char *p) { p[0] = __TIME__[0]; }\n";
  assert_false(kiln_program_cache_key_for_source(dated, strlen(dated), NULL, NULL, 0, &key));
  assert_false(kiln_program_cache_key_for_source(source, strlen(source), "-I /tmp", NULL, 0, &key));
  /* Debug builds (docs/debugging.md) are never cached. */
  assert_false(kiln_program_cache_key_for_source(source, strlen(source), "-cl-mad-enable -g", NULL, 0, &key));
  setenv("KILN_DEBUG_KERNELS", "1", 1);
  assert_false(kiln_program_cache_key_for_source(source, strlen(source), NULL, NULL, 0, &key));
  unsetenv("KILN_DEBUG_KERNELS");
  assert_true(kiln_program_cache_key_for_source(source, strlen(source), NULL, NULL, 0, &key));
  setenv("KILN_CACHE", "0", 1);
  assert_false(kiln_program_cache_key_for_source(source, strlen(source), NULL, NULL, 0, &key));
  assert_null(kiln_program_cache_dir());
  unsetenv("KILN_CACHE");
}

/* ---- store and load ---- */

static char dir[256];

static int remove_one(const char *path, const struct stat *st, int flag, struct FTW *ftw) {
  (void)st, (void)flag, (void)ftw;
  return remove(path);
}

static void build(const char *options, kiln_module **exe, kiln_jit_program **jit) {
  kiln_module *object = NULL;
  char *log = NULL;
  assert_int_equal(kiln_compiler_compile(source, strlen(source), options, NULL, 0, &object, &log), KILN_COMPILE_OK);
  free(log);
  assert_int_equal(kiln_compiler_link(&object, 1, options, false, exe, &log), KILN_COMPILE_OK);
  free(log);
  kiln_module_free(object);
  assert_int_equal(kiln_jit_load(*exe, jit, &log), KILN_COMPILE_OK);
  free(log);
}

/* Runs kernel 0 (add) over 4 work-items in one work-group: p[i] += v. */
static void run_add(const kiln_jit_program *jit, const kiln_module *exe) {
  const struct kiln_kernel_desc *desc = kiln_module_kernel(exe, 0);
  assert_non_null(desc);
  assert_int_equal(desc->num_args, 2);
  int data[4] = {1, 2, 3, 4};
  int *p = data, v = 10;
  _Alignas(16) unsigned char args[64] = {0};
  assert_true(desc->args_block_size <= sizeof args);
  memcpy(args + desc->args[0].offset, &p, sizeof p);
  memcpy(args + desc->args[1].offset, &v, sizeof v);
  struct kiln_ndrange nd = {.work_dim = 1,
                            .global_size = {4, 1, 1},
                            .local_size = {4, 1, 1},
                            .num_groups = {1, 1, 1}};
  kiln_launcher_fn launcher = kiln_jit_launcher(jit, 0);
  assert_non_null(launcher);
  launcher(args, &nd, 0, 1, NULL);
  for (int i = 0; i < 4; i++) assert_int_equal(data[i], i + 11);
}

static void test_store_then_load_without_codegen(void **state) {
  (void)state;
  snprintf(dir, sizeof dir, "/tmp/kiln-cache-unit-XXXXXX");
  assert_non_null(mkdtemp(dir));
  setenv("KILN_CACHE_DIR", dir, 1);
  unsetenv("KILN_CACHE");
  struct kiln_program_cache_key key = key_of(source, "-cl-kernel-arg-info");
  kiln_module *exe = NULL, *cached = NULL;
  kiln_jit_program *jit = NULL, *cached_jit = NULL;
  char *log = NULL;
  assert_false(kiln_program_cache_load(&key, &cached, &cached_jit, &log));
  unsigned long before = kiln_jit_code_generations();
  build("-cl-kernel-arg-info", &exe, &jit);
  assert_int_equal(kiln_jit_code_generations(), before + kiln_jit_object_count(jit));
  assert_true(kiln_jit_object_count(jit) >= 1);
  kiln_program_cache_store(&key, exe, jit, "a warning\n");

  before = kiln_jit_code_generations();
  assert_true(kiln_program_cache_load(&key, &cached, &cached_jit, &log));
  assert_int_equal(kiln_jit_code_generations(), before);  /* no code generation on a hit */
  assert_string_equal(log, "a warning\n");
  free(log);
  assert_int_equal(kiln_module_kernel_count(cached), kiln_module_kernel_count(exe));
  const struct kiln_kernel_desc *a = kiln_module_kernel(exe, 0), *b = kiln_module_kernel(cached, 0);
  assert_string_equal(a->name, b->name);
  assert_int_equal(a->num_args, b->num_args);
  assert_int_equal(a->args_block_size, b->args_block_size);
  for (uint32_t i = 0; i < a->num_args; i++) {
    assert_int_equal(a->args[i].kind, b->args[i].kind);
    assert_int_equal(a->args[i].offset, b->args[i].offset);
    assert_int_equal(a->args[i].size, b->args[i].size);
    assert_string_equal(a->args[i].type_name, b->args[i].type_name);
    assert_string_equal(a->args[i].name, b->args[i].name);
  }
  run_add(jit, exe);
  run_add(cached_jit, cached);
  kiln_jit_free(cached_jit);
  kiln_module_free(cached);

  /* A damaged entry is a miss. */
  char path[512];
  char name[2 * KILN_SHA256_SIZE + 1];
  hex(key.digest, name);
  snprintf(path, sizeof path, "%s/%s%s", dir, name, KILN_PROGRAM_CACHE_SUFFIX);
  /* A changed byte in the stored log: only the checksum can tell. */
  FILE *f = fopen(path, "r+b");
  assert_non_null(f);
  static char content[1 << 20];
  size_t size = fread(content, 1, sizeof content, f);
  char *warning = memmem(content, size, "a warning", 9);
  assert_non_null(warning);
  assert_int_equal(fseek(f, warning - content, SEEK_SET), 0);
  fputc('A', f);
  fclose(f);
  cached = NULL;
  cached_jit = NULL;
  log = NULL;
  assert_false(kiln_program_cache_load(&key, &cached, &cached_jit, &log));
  assert_int_equal(truncate(path, 10), 0);
  assert_false(kiln_program_cache_load(&key, &cached, &cached_jit, &log));
  kiln_jit_free(jit);
  kiln_module_free(exe);
  nftw(dir, remove_one, 8, FTW_DEPTH | FTW_PHYS);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_sha256_vectors),
      cmocka_unit_test(test_key_covers_source_options_headers),
      cmocka_unit_test(test_sources_that_read_files_not_cached),
      cmocka_unit_test(test_store_then_load_without_codegen),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
