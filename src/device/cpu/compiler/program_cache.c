/* program_cache.c: the compiled-code disk cache (see program_cache.h).
 *
 * Entry file "<64 hex digits of the key>.kcache", integers little-endian:
 *   "KILNPCC\0" | u32 format | u32 0 | key[32] | u64 payload size | u64 FNV-1a 64 of payload
 *   payload: u64 n, module bytes[n] | u64 n, log bytes[n] | u64 count, { u64 n, object bytes[n] }* */
#include "device/cpu/compiler/program_cache.h"

#include "device/cpu/compiler/builtins_ref.h"
#include "device/cpu/compiler/module_binary.h"
#include "device/cpu/compiler/options.h"
#include "device/cpu/bounds_check.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <link.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#ifndef KILN_LLVM_VERSION_STRING
#error "KILN_LLVM_VERSION_STRING must be defined by the build"
#endif

#define ENTRY_FORMAT 1u
#define HEADER_SIZE 64u
#define MAX_OBJECTS 1024u
static const char entry_magic[8] = {'K', 'I', 'L', 'N', 'P', 'C', 'C', '\0'};

/* ---- location and switch ---- */

static char *join(const char *a, const char *b) {
  size_t na = strlen(a), nb = strlen(b);
  char *s = malloc(na + nb + 2);
  if (!s) return NULL;
  memcpy(s, a, na);
  s[na] = '/';
  memcpy(s + na + 1, b, nb + 1);
  return s;
}

static bool cache_enabled(void) {
  /* Code compiled under these switches differs from what the key describes. */
  if (getenv("KILN_WORK_ITEM_VECTORIZE") || getenv("KILN_VECTORIZE") || getenv("KILN_VECTOR_WIDTH")) return false;
  const char *flag = getenv("KILN_CACHE");
  return !(flag && strcmp(flag, "0") == 0);
}

char *kiln_program_cache_dir(void) {
  if (!cache_enabled()) return NULL;
  const char *dir = getenv("KILN_CACHE_DIR");
  if (dir && *dir) return strdup(dir);
  const char *xdg = getenv("XDG_CACHE_HOME");
  if (xdg && *xdg == '/') return join(xdg, "kiln");  /* the XDG spec ignores relative paths */
  const char *home = getenv("HOME");
  if (home && *home) return join(home, ".cache/kiln");
  return NULL;
}

/* mkdir -p, private to the user (entries hold the user's code). */
static bool make_directories(const char *path) {
  char *p = strdup(path);
  if (!p) return false;
  for (char *s = p + 1; *s; s++) {
    if (*s != '/') continue;
    *s = '\0';
    if (mkdir(p, 0700) != 0 && errno != EEXIST) {
      free(p);
      return false;
    }
    *s = '/';
  }
  bool ok = mkdir(p, 0700) == 0 || errno == EEXIST;
  free(p);
  return ok;
}

/* ---- the key ---- */

struct build_id_search {
  const void *address;
  unsigned char id[64];
  size_t size;
};

/* The GNU build id of the loaded object that contains search->address. */
static int find_build_id(struct dl_phdr_info *info, size_t size, void *data) {
  (void)size;
  struct build_id_search *search = data;
  uintptr_t address = (uintptr_t)search->address;
  bool contains = false;
  for (int i = 0; i < info->dlpi_phnum && !contains; i++) {
    const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
    uintptr_t start = info->dlpi_addr + ph->p_vaddr;
    contains = ph->p_type == PT_LOAD && address >= start && address < start + ph->p_memsz;
  }
  if (!contains) return 0;
  for (int i = 0; i < info->dlpi_phnum; i++) {
    const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
    if (ph->p_type != PT_NOTE) continue;
    const unsigned char *note = (const unsigned char *)(info->dlpi_addr + ph->p_vaddr);
    const unsigned char *end = note + ph->p_memsz;
    while (note + sizeof(ElfW(Nhdr)) <= end) {
      const ElfW(Nhdr) *header = (const ElfW(Nhdr) *)note;
      const unsigned char *name = note + sizeof *header;
      const unsigned char *desc = name + ((header->n_namesz + 3) & ~3u);
      const unsigned char *next = desc + ((header->n_descsz + 3) & ~3u);
      if (next > end) break;
      if (header->n_type == NT_GNU_BUILD_ID && header->n_namesz == 4 && memcmp(name, "GNU", 4) == 0 &&
          header->n_descsz > 0 && header->n_descsz <= sizeof search->id) {
        memcpy(search->id, desc, header->n_descsz);
        search->size = header->n_descsz;
        return 1;
      }
      note = next;
    }
  }
  return 1;  /* the object has no build id */
}

static unsigned char builtins_identity[KILN_SHA256_SIZE];

/* The build id covers the embedded bitcode and all of Kiln's code, so a rebuilt Kiln never
 * reuses entries; hashing the 3+ MB bitcode (the fallback) would cost milliseconds. */
static void compute_builtins_identity(void) {
  const struct kiln_builtins_shard *shards = NULL;
  size_t count = kiln_builtins_get_shards(&shards);
  struct build_id_search search = {.address = count ? (const void *)shards : (const void *)&kiln_builtins_get_shards};
  dl_iterate_phdr(find_build_id, &search);
  struct kiln_sha256 h;
  kiln_sha256_init(&h);
  kiln_sha256_update(&h, &count, sizeof count);
  if (search.size) {
    kiln_sha256_update(&h, "build-id", 8);
    kiln_sha256_update(&h, search.id, search.size);
  } else {
    kiln_sha256_update(&h, "bitcode", 7);
    for (size_t i = 0; i < count; i++) {
      kiln_sha256_update(&h, &shards[i].size, sizeof shards[i].size);
      kiln_sha256_update(&h, shards[i].bitcode, shards[i].size);
    }
  }
  kiln_sha256_final(&h, builtins_identity);
}

static void hash_field(struct kiln_sha256 *h, const void *data, size_t size) {
  uint64_t n = size;
  kiln_sha256_update(h, &n, sizeof n);
  if (size) kiln_sha256_update(h, data, size);
}

static void hash_string(struct kiln_sha256 *h, const char *s) { hash_field(h, s ? s : "", s ? strlen(s) : 0); }

/* True when the text names "include" or "import" (the program may read files the key does
 * not cover) or the build's date or time (also when split by backslash-newlines). */
static bool may_read_files(const char *text, size_t length) {
  static const char *const words[] = {"include", "import", "__DATE__", "__TIME__", "__TIMESTAMP__"};
  for (size_t w = 0; w < sizeof words / sizeof words[0]; w++) {
    const char *word = words[w];
    for (size_t i = 0; i < length; i++) {
      size_t j = i, k = 0;
      while (word[k] && j < length) {
        if (text[j] == '\\' && j + 1 < length && (text[j + 1] == '\n' || text[j + 1] == '\r')) {
          j += 2;
          if (j < length && text[j - 1] == '\r' && text[j] == '\n') j++;
        } else if (text[j] == word[k]) {
          j++;
          k++;
        } else {
          break;
        }
      }
      if (!word[k]) return true;
    }
  }
  return false;
}

/* What every key holds: the entry format, Kiln's and LLVM's versions, the builtin
 * library, the host, the bounds-check mode and the options. */
static void hash_build_environment(struct kiln_sha256 *h, const char *options) {
  static pthread_once_t once = PTHREAD_ONCE_INIT;
  pthread_once(&once, compute_builtins_identity);
  kiln_sha256_init(h);
  hash_string(h, "kiln program cache");
  uint32_t format = ENTRY_FORMAT;
  hash_field(h, &format, sizeof format);
  hash_string(h, KILN_VERSION_STRING);
  hash_string(h, KILN_LLVM_VERSION_STRING);
  hash_field(h, builtins_identity, sizeof builtins_identity);
  hash_string(h, kiln_jit_host_identity());
  hash_string(h, kiln_bounds_checking() ? "bounds-checked" : ""); /* KILN_CHECK=bounds code differs */
  hash_string(h, options);
}

bool kiln_program_cache_key_for_source(const char *source, size_t length, const char *options,
                                       const struct kiln_cl_header *headers, size_t num_headers,
                                       struct kiln_program_cache_key *key) {
  if (!cache_enabled()) return false;
  if (may_read_files(source, length)) return false;
  /* Debug builds (-g, KILN_DEBUG_KERNELS) are never cached: their objects name source
   * files this process wrote (docs/debugging.md), and they are built for gdb, not speed. */
  if (kiln_cl_options_request_debug(options)) return false;
  if (options && strstr(options, "-I")) return false;
  for (size_t i = 0; i < num_headers; i++)
    if (headers[i].source && may_read_files(headers[i].source, headers[i].length)) return false;
  struct kiln_sha256 h;
  hash_build_environment(&h, options);
  hash_field(&h, source, length);
  uint64_t n = num_headers;
  kiln_sha256_update(&h, &n, sizeof n);
  for (size_t i = 0; i < num_headers; i++) {
    hash_string(&h, headers[i].include_name);
    hash_field(&h, headers[i].source, headers[i].source ? headers[i].length : 0);
  }
  kiln_sha256_final(&h, key->digest);
  return true;
}

bool kiln_program_cache_key_for_il(const uint32_t *words, size_t num_words, const char *translator,
                                   const char *options, struct kiln_program_cache_key *key) {
  if (!cache_enabled() || kiln_cl_options_request_debug(options)) return false;
  struct stat st; /* the translator program's identity: a new version is a new file */
  if (stat(translator, &st) != 0) return false;
  struct kiln_sha256 h;
  hash_build_environment(&h, options);
  hash_string(&h, "SPIR-V");
  hash_string(&h, translator);
  int64_t identity[3] = {(int64_t)st.st_size, (int64_t)st.st_mtim.tv_sec, (int64_t)st.st_mtim.tv_nsec};
  hash_field(&h, identity, sizeof identity);
  hash_field(&h, words, num_words * sizeof *words);
  kiln_sha256_final(&h, key->digest);
  return true;
}

/* ---- entries ---- */

static char *entry_path(const char *dir, const struct kiln_program_cache_key *key) {
  char name[2 * KILN_SHA256_SIZE + sizeof KILN_PROGRAM_CACHE_SUFFIX];
  for (size_t i = 0; i < KILN_SHA256_SIZE; i++) snprintf(name + 2 * i, 3, "%02x", key->digest[i]);
  memcpy(name + 2 * KILN_SHA256_SIZE, KILN_PROGRAM_CACHE_SUFFIX, sizeof KILN_PROGRAM_CACHE_SUFFIX);
  return join(dir, name);
}

/* A bounds-checked reader over the payload. */
struct reader {
  const unsigned char *at, *end;
};

static bool read_block(struct reader *r, const unsigned char **bytes, size_t *size) {
  if ((size_t)(r->end - r->at) < 8) return false;
  uint64_t n = kiln_get_le64(r->at);
  r->at += 8;
  if (n > (uint64_t)(r->end - r->at)) return false;
  *bytes = r->at;
  *size = (size_t)n;
  r->at += n;
  return true;
}

static unsigned char *read_file(const char *path, size_t *size) {
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return NULL;
  struct stat st;
  unsigned char *data = NULL;
  if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size >= (off_t)HEADER_SIZE &&
      (data = malloc((size_t)st.st_size)) != NULL) {
    size_t done = 0;
    while (done < (size_t)st.st_size) {
      ssize_t n = read(fd, data + done, (size_t)st.st_size - done);
      if (n <= 0) break;
      done += (size_t)n;
    }
    if (done != (size_t)st.st_size) {
      free(data);
      data = NULL;
    }
    *size = done;
  }
  close(fd);
  return data;
}

bool kiln_program_cache_load(const struct kiln_program_cache_key *key, kiln_module **executable,
                             kiln_jit_program **jit, char **log) {
  if (getenv("KILN_DEBUG_IR")) return false;  /* the IR is printed only when compiled */
  char *dir = kiln_program_cache_dir();
  if (!dir) return false;
  char *path = entry_path(dir, key);
  free(dir);
  if (!path) return false;
  size_t size = 0;
  unsigned char *data = read_file(path, &size);
  bool hit = false;
  kiln_module *module = NULL;
  const void **objects = NULL;
  size_t *sizes = NULL;
  if (!data) goto out;
  if (memcmp(data, entry_magic, sizeof entry_magic) != 0 || kiln_get_le64(data + 8) != ENTRY_FORMAT ||
      memcmp(data + 16, key->digest, KILN_SHA256_SIZE) != 0 || kiln_get_le64(data + 48) != size - HEADER_SIZE ||
      kiln_fnv1a64(data + HEADER_SIZE, size - HEADER_SIZE) != kiln_get_le64(data + 56))
    goto out;
  struct reader r = {data + HEADER_SIZE, data + size};
  const unsigned char *module_bytes, *log_bytes, *count_bytes;
  size_t module_size, log_size;
  if (!read_block(&r, &module_bytes, &module_size) || !read_block(&r, &log_bytes, &log_size)) goto out;
  if (r.end - r.at < 8) goto out;
  count_bytes = r.at;
  r.at += 8;
  uint64_t count = kiln_get_le64(count_bytes);
  if (count == 0 || count > MAX_OBJECTS) goto out;
  objects = calloc((size_t)count, sizeof *objects);
  sizes = calloc((size_t)count, sizeof *sizes);
  if (!objects || !sizes) goto out;
  for (uint64_t i = 0; i < count; i++) {
    const unsigned char *bytes;
    if (!read_block(&r, &bytes, &sizes[i])) goto out;
    objects[i] = bytes;
  }
  if (r.at != r.end) goto out;
  char *module_log = NULL;
  int status = kiln_module_deserialize(module_bytes, module_size, &module, &module_log);
  free(module_log);
  if (status != KILN_COMPILE_OK || kiln_module_get_kind(module) != KILN_MODULE_EXECUTABLE) goto out;
  char *jit_log = NULL;
  status = kiln_jit_load_objects(module, objects, sizes, (size_t)count, jit, &jit_log);
  free(jit_log);
  if (status != KILN_COMPILE_OK) goto out;
  *log = malloc(log_size + 1);
  if (!*log) {
    kiln_jit_free(*jit);
    *jit = NULL;
    goto out;
  }
  memcpy(*log, log_bytes, log_size);
  (*log)[log_size] = '\0';
  *executable = module;
  module = NULL;
  hit = true;
  utimensat(AT_FDCWD, path, NULL, 0);  /* recently used: pruned last */
out:
  if (module) kiln_module_free(module);
  free(objects);
  free(sizes);
  free(data);
  free(path);
  return hit;
}

/* ---- storing and the size bound ---- */

struct entry_info {
  char *path;
  time_t used;
  uint64_t bytes;
};

static int older_first(const void *a, const void *b) {
  time_t x = ((const struct entry_info *)a)->used, y = ((const struct entry_info *)b)->used;
  return x < y ? -1 : x > y;
}

static bool has_suffix(const char *name, const char *suffix) {
  size_t n = strlen(name), k = strlen(suffix);
  return n >= k && strcmp(name + n - k, suffix) == 0;
}

/* Removes least recently used entries while the total exceeds the bound, and temporary
 * files a crashed writer left (older than an hour). */
static void prune(const char *dir) {
  DIR *d = opendir(dir);
  if (!d) return;
  struct entry_info *entries = NULL;
  size_t count = 0, capacity = 0;
  uint64_t total = 0;
  time_t now = time(NULL);
  for (struct dirent *e; (e = readdir(d)) != NULL;) {
    bool entry = has_suffix(e->d_name, KILN_PROGRAM_CACHE_SUFFIX);
    bool temporary = strncmp(e->d_name, ".kcache-", 8) == 0;
    if (!entry && !temporary) continue;
    char *path = join(dir, e->d_name);
    struct stat st;
    if (!path || lstat(path, &st) != 0 || !S_ISREG(st.st_mode)) {
      free(path);
      continue;
    }
    if (temporary) {
      if (now - st.st_mtime > 3600) unlink(path);
      free(path);
      continue;
    }
    if (count == capacity) {
      size_t grown = capacity ? 2 * capacity : 64;
      struct entry_info *more = realloc(entries, grown * sizeof *more);
      if (!more) {
        free(path);
        break;
      }
      entries = more;
      capacity = grown;
    }
    entries[count++] = (struct entry_info){path, st.st_mtime, (uint64_t)st.st_size};
    total += (uint64_t)st.st_size;
  }
  closedir(d);
  if (total > KILN_PROGRAM_CACHE_MAX_BYTES) {
    qsort(entries, count, sizeof *entries, older_first);
    for (size_t i = 0; i < count && total > KILN_PROGRAM_CACHE_MAX_BYTES / 4 * 3; i++)
      if (unlink(entries[i].path) == 0) total -= entries[i].bytes;
  }
  for (size_t i = 0; i < count; i++) free(entries[i].path);
  free(entries);
}

static bool write_all(int fd, const void *data, size_t size) {
  const unsigned char *p = data;
  while (size) {
    ssize_t n = write(fd, p, size);
    if (n <= 0) {
      if (n < 0 && errno == EINTR) continue;
      return false;
    }
    p += n;
    size -= (size_t)n;
  }
  return true;
}

void kiln_program_cache_store(const struct kiln_program_cache_key *key, const kiln_module *executable,
                              const kiln_jit_program *jit, const char *log) {
  size_t count = kiln_jit_object_count(jit);
  if (count == 0 || count > MAX_OBJECTS) return;
  char *dir = kiln_program_cache_dir();
  if (!dir) return;
  void *module_bytes = NULL;
  size_t module_size = 0, log_size = log ? strlen(log) : 0;
  unsigned char *entry = NULL;
  char *path = NULL, *temporary = NULL;
  int fd = -1;
  if (kiln_module_serialize(executable, &module_bytes, &module_size) != KILN_COMPILE_OK) goto out;
  size_t payload = 8 + module_size + 8 + log_size + 8;
  for (size_t i = 0; i < count; i++) {
    size_t n = 0;
    kiln_jit_object(jit, i, &n);
    payload += 8 + n;
  }
  entry = malloc(HEADER_SIZE + payload);
  if (!entry) goto out;
  unsigned char *p = entry + HEADER_SIZE;
  kiln_put_le64(p, module_size);
  memcpy(p + 8, module_bytes, module_size);
  p += 8 + module_size;
  kiln_put_le64(p, log_size);
  if (log_size) memcpy(p + 8, log, log_size);
  p += 8 + log_size;
  kiln_put_le64(p, count);
  p += 8;
  for (size_t i = 0; i < count; i++) {
    size_t n = 0;
    const void *object = kiln_jit_object(jit, i, &n);
    kiln_put_le64(p, n);
    memcpy(p + 8, object, n);
    p += 8 + n;
  }
  memcpy(entry, entry_magic, sizeof entry_magic);
  kiln_put_le64(entry + 8, ENTRY_FORMAT);
  memcpy(entry + 16, key->digest, KILN_SHA256_SIZE);
  kiln_put_le64(entry + 48, payload);
  kiln_put_le64(entry + 56, kiln_fnv1a64(entry + HEADER_SIZE, payload));

  if (!make_directories(dir)) goto out;
  path = entry_path(dir, key);
  temporary = join(dir, ".kcache-XXXXXX");
  if (!path || !temporary) goto out;
  fd = mkostemp(temporary, O_CLOEXEC);
  if (fd < 0) goto out;
  /* No fsync: after a crash a torn entry fails its checksum and is rebuilt. */
  bool written = write_all(fd, entry, HEADER_SIZE + payload);
  if (close(fd) != 0) written = false;
  fd = -1;
  if (!written || rename(temporary, path) != 0) {
    unlink(temporary);
    goto out;
  }
  prune(dir);
out:
  if (fd >= 0) {
    close(fd);
    unlink(temporary);
  }
  free(temporary);
  free(path);
  free(entry);
  free(module_bytes);
  free(dir);
}
