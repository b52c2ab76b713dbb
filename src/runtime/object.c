#include "runtime/object.h"
#include "runtime/debug_err.h"

#include <pthread.h>
#include <stdio.h>
#include <unistd.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* The live-object registry: an open-addressing hash set of handle addresses with
 * tombstones, behind a reader/writer lock (validation is the common case). The type
 * is read from the header only after the address is found live, so a freed or foreign
 * pointer is never dereferenced. */
#define TOMBSTONE ((uintptr_t)1)

/* Writers first: with glibc's default (readers first), threads validating handles without
 * pause starved a thread creating objects (1 300 objects a second against 110 000). No
 * thread takes it twice, so the non-recursive kind is safe. */
static pthread_rwlock_t registry_lock = PTHREAD_RWLOCK_WRITER_NONRECURSIVE_INITIALIZER_NP;
static uintptr_t *registry_slots;
static size_t registry_capacity; /* power of two */
static size_t registry_live;
static size_t registry_used; /* live + tombstones */

static size_t slot_hash(uintptr_t key) {
  key ^= key >> 33;
  key *= 0xff51afd7ed558ccdULL;
  key ^= key >> 33;
  return (size_t)key;
}

static void registry_insert_slot(uintptr_t *slots, size_t capacity, uintptr_t key) {
  size_t i = slot_hash(key) & (capacity - 1);
  while (slots[i] != 0 && slots[i] != TOMBSTONE) i = (i + 1) & (capacity - 1);
  slots[i] = key;
}

static void registry_grow(void) {
  size_t capacity = registry_capacity ? registry_capacity * 2 : 1024;
  if (registry_live * 4 < registry_capacity) capacity = registry_capacity; /* only tombstones to purge */
  uintptr_t *slots = calloc(capacity, sizeof *slots);
  if (!slots) abort(); /* the registry cannot lose handles; out of memory here is fatal */
  for (size_t i = 0; i < registry_capacity; i++)
    if (registry_slots[i] > TOMBSTONE) registry_insert_slot(slots, capacity, registry_slots[i]);
  free(registry_slots);
  registry_slots = slots;
  registry_capacity = capacity;
  registry_used = registry_live;
}

static void registry_add(const void *handle) {
  pthread_rwlock_wrlock(&registry_lock);
  if ((registry_used + 1) * 4 >= registry_capacity * 3) registry_grow();
  registry_insert_slot(registry_slots, registry_capacity, (uintptr_t)handle);
  registry_live++;
  registry_used++;
  pthread_rwlock_unlock(&registry_lock);
}

static size_t registry_find_locked(uintptr_t key) {
  if (!registry_capacity) return SIZE_MAX;
  size_t i = slot_hash(key) & (registry_capacity - 1);
  while (registry_slots[i] != 0) {
    if (registry_slots[i] == key) return i;
    i = (i + 1) & (registry_capacity - 1);
  }
  return SIZE_MAX;
}

/* The objects held by the calls running on this thread: a stack, each scope owning the
 * entries above its mark. Allocated on a thread's first entry-point call; freed at thread
 * exit. initial-exec: one pointer of static TLS, no lookup function on every call. */
struct call_holds {
  unsigned depth;
  size_t count, capacity;
  struct kiln_object **items;
  struct kiln_object *inline_items[32];
};
static __attribute__((tls_model("initial-exec"))) _Thread_local struct call_holds *thread_holds;
static pthread_key_t holds_key;
static pthread_once_t holds_key_once = PTHREAD_ONCE_INIT;

static void holds_free(void *memory) {
  struct call_holds *holds = memory;
  if (holds->items != holds->inline_items) free(holds->items);
  free(holds);
}

static void holds_key_create(void) { pthread_key_create(&holds_key, holds_free); }

struct kiln_call_scope kiln_call_scope_enter(void) {
  struct call_holds *holds = thread_holds;
  if (!holds) {
    pthread_once(&holds_key_once, holds_key_create);
    holds = calloc(1, sizeof *holds);
    if (!holds) abort(); /* a few hundred bytes per thread, once */
    holds->items = holds->inline_items;
    holds->capacity = sizeof holds->inline_items / sizeof holds->inline_items[0];
    pthread_setspecific(holds_key, holds);
    thread_holds = holds;
  }
  holds->depth++;
  return (struct kiln_call_scope){holds->count};
}

void kiln_call_scope_exit(struct kiln_call_scope *scope) {
  struct call_holds *holds = thread_holds;
  /* A release may destroy an object whose destruction validates others: they are pushed
   * above the mark and released by this same loop. */
  while (holds->count > scope->mark) kiln_object_release(holds->items[--holds->count]);
  holds->depth--;
}

/* Holds `object` until the current call returns (nothing outside a call). */
static void hold_for_call(struct kiln_object *object) {
  struct call_holds *holds = thread_holds;
  if (!holds || holds->depth == 0) return;
  /* Entry points validate the same handle more than once (the entry point, then the code
   * it shares with other calls): one hold per call and object is enough. */
  for (size_t i = holds->count; i-- > 0 && i + 8 >= holds->count;)
    if (holds->items[i] == object) return;
  if (holds->count == holds->capacity) {
    size_t capacity = holds->capacity * 2;
    struct kiln_object **items = malloc(capacity * sizeof *items);
    if (!items) abort(); /* the handle was validated: the call relies on holding it */
    memcpy(items, holds->items, holds->count * sizeof *items);
    if (holds->items != holds->inline_items) free(holds->items);
    holds->items = items;
    holds->capacity = capacity;
  }
  kiln_object_retain(object);
  holds->items[holds->count++] = object;
}

bool kiln_object_is_valid(const void *handle, kiln_object_type type) {
  if (!handle) return false;
  pthread_rwlock_rdlock(&registry_lock);
  bool valid = registry_find_locked((uintptr_t)handle) != SIZE_MAX &&
               ((const struct kiln_object *)handle)->type == type;
  /* Under the read lock: the final API release, which unregisters under the write lock,
   * cannot come in between; the object lives at least until the call returns. */
  if (valid) hold_for_call((struct kiln_object *)handle);
  pthread_rwlock_unlock(&registry_lock);
  return valid;
}

size_t kiln_object_registry_count(void) {
  pthread_rwlock_rdlock(&registry_lock);
  size_t n = registry_live;
  pthread_rwlock_unlock(&registry_lock);
  return n;
}

void kiln_object_init_internal(struct kiln_object *object, kiln_object_type type, kiln_object_destroy_fn destroy) {
  object->dispatch = kiln_dispatch_for_handles();
  object->type = type;
  atomic_init(&object->api_refs, 0);
  atomic_init(&object->refs, 1);
  object->destroy = destroy;
}

void kiln_object_init(struct kiln_object *object, kiln_object_type type, kiln_object_destroy_fn destroy) {
  kiln_object_init_internal(object, type, destroy);
  atomic_init(&object->api_refs, 1);
  registry_add(object);
}

void kiln_object_publish(struct kiln_object *object) {
  if (atomic_fetch_add(&object->api_refs, 1) == 0) {
    kiln_object_retain(object); /* the API's hold */
    registry_add(object);
  }
}

void kiln_object_retain(struct kiln_object *object) {
  atomic_fetch_add_explicit(&object->refs, 1, memory_order_relaxed);
}

bool kiln_object_try_retain(struct kiln_object *object) {
  unsigned refs = atomic_load_explicit(&object->refs, memory_order_relaxed);
  while (refs && !atomic_compare_exchange_weak_explicit(&object->refs, &refs, refs + 1, memory_order_relaxed,
                                                        memory_order_relaxed)) {
  }
  return refs != 0;
}

void kiln_object_release(struct kiln_object *object) {
  if (atomic_fetch_sub_explicit(&object->refs, 1, memory_order_acq_rel) == 1 && object->destroy)
    object->destroy(object);
}

/* KILN_DEBUG=err: why a retain or release was refused. */
static cl_int refused(const void *handle, cl_int invalid_code) {
  return KILN_FAIL(invalid_code, "the handle (%p) is %s", handle,
                   handle ? "not a live object of this type (released, or another kind of object)" : "NULL");
}

cl_int kiln_object_api_retain(void *handle, kiln_object_type type, cl_int invalid_code) {
  /* Validation and increment happen under the read lock so a concurrent final release
   * cannot unregister the handle in between. */
  if (!handle) return refused(handle, invalid_code);
  pthread_rwlock_rdlock(&registry_lock);
  struct kiln_object *object = handle;
  bool valid = registry_find_locked((uintptr_t)handle) != SIZE_MAX && object->type == type;
  if (valid) atomic_fetch_add(&object->api_refs, 1);
  pthread_rwlock_unlock(&registry_lock);
  return valid ? CL_SUCCESS : refused(handle, invalid_code);
}

cl_int kiln_object_api_release(void *handle, kiln_object_type type, cl_int invalid_code) {
  if (!handle) return refused(handle, invalid_code);
  struct kiln_object *object = handle;
  pthread_rwlock_wrlock(&registry_lock);
  size_t slot = registry_find_locked((uintptr_t)handle);
  if (slot == SIZE_MAX || object->type != type) {
    pthread_rwlock_unlock(&registry_lock);
    return refused(handle, invalid_code);
  }
  bool last = atomic_fetch_sub(&object->api_refs, 1) == 1;
  if (last) {
    registry_slots[slot] = TOMBSTONE;
    registry_live--;
  }
  pthread_rwlock_unlock(&registry_lock);
  if (last) kiln_object_release(object);
  return CL_SUCCESS;
}

/* A hidden prefix before each handle struct links freed blocks and remembers the size. */
struct object_block_prefix {
  struct object_block_prefix *next_free;
  size_t size;
};
#define PREFIX_BYTES ((sizeof(struct object_block_prefix) + 15) & ~(size_t)15)

static pthread_mutex_t pool_lock = PTHREAD_MUTEX_INITIALIZER;
/* Per type, freed blocks in the order they were freed (oldest first). */
struct free_fifo {
  struct object_block_prefix *head, *tail;
  size_t count;
};
static struct free_fifo pool_free[KILN_OBJECT_TYPE_COUNT];
static atomic_size_t objects_in_use[KILN_OBJECT_TYPE_COUNT];

/* The oldest freed block of `type` large enough, once the quarantine is full; else NULL. */
static struct object_block_prefix *reuse_block(kiln_object_type type, size_t size) {
  struct free_fifo *fifo = &pool_free[type];
  if (fifo->count <= KILN_OBJECT_QUARANTINE) return NULL;
  struct object_block_prefix *prev = NULL;
  for (struct object_block_prefix *block = fifo->head; block; prev = block, block = block->next_free) {
    if (block->size < size) continue;
    if (prev) prev->next_free = block->next_free;
    else fifo->head = block->next_free;
    if (fifo->tail == block) fifo->tail = prev;
    fifo->count--;
    return block;
  }
  return NULL;
}

void *kiln_object_alloc(kiln_object_type type, size_t size) {
  pthread_mutex_lock(&pool_lock);
  struct object_block_prefix *block = reuse_block(type, size);
  pthread_mutex_unlock(&pool_lock);
  atomic_fetch_add_explicit(&objects_in_use[type], 1, memory_order_relaxed);
  if (block) {
    /* The dispatch pointer is left as it is: a stale handle may be read concurrently. */
    char *object = (char *)block + PREFIX_BYTES;
    memset(object + sizeof(void *), 0, block->size - sizeof(void *));
    ((struct kiln_object *)object)->type = type;
    return object;
  }
  block = calloc(1, PREFIX_BYTES + size);
  if (!block) {
    atomic_fetch_sub_explicit(&objects_in_use[type], 1, memory_order_relaxed);
    return NULL;
  }
  block->size = size;
  struct kiln_object *object = (struct kiln_object *)((char *)block + PREFIX_BYTES);
  object->dispatch = kiln_dispatch_for_handles();
  object->type = type;
  return object;
}

void kiln_object_free(struct kiln_object *object) {
  if (!object) return;
  struct object_block_prefix *block = (struct object_block_prefix *)((char *)object - PREFIX_BYTES);
  kiln_object_type type = object->type;
  if (type <= 0 || type >= KILN_OBJECT_TYPE_COUNT) abort(); /* freed twice or never allocated here */
  object->dispatch = kiln_dispatch_for_handles();
  object->type = 0; /* no longer any type: a racing validation fails */
  pthread_mutex_lock(&pool_lock);
  struct free_fifo *fifo = &pool_free[type];
  block->next_free = NULL;
  if (fifo->tail) fifo->tail->next_free = block;
  else fifo->head = block;
  fifo->tail = block;
  fifo->count++;
  pthread_mutex_unlock(&pool_lock);
  atomic_fetch_sub_explicit(&objects_in_use[type], 1, memory_order_relaxed);
}

size_t kiln_object_count_in_use(void) {
  size_t n = 0;
  for (int t = 0; t < KILN_OBJECT_TYPE_COUNT; t++) n += atomic_load(&objects_in_use[t]);
  return n;
}

/* With KILN_LEAK_CHECK=1, a process that exits while handle objects (API-visible or
 * internal, such as events nobody asked for) are still allocated reports them and exits
 * with status 97. LeakSanitizer cannot see these: the registry and the pool keep them
 * reachable. The test suites run with it on. */
__attribute__((destructor)) static void object_leak_check(void) {
  const char *check = getenv("KILN_LEAK_CHECK");
  if (!check || strcmp(check, "1") != 0) return;
  static const char *const names[KILN_OBJECT_TYPE_COUNT] = {
      [KILN_OBJECT_PLATFORM] = "platform", [KILN_OBJECT_DEVICE] = "device", [KILN_OBJECT_CONTEXT] = "context",
      [KILN_OBJECT_QUEUE] = "command queue", [KILN_OBJECT_MEM] = "memory", [KILN_OBJECT_SAMPLER] = "sampler",
      [KILN_OBJECT_PROGRAM] = "program", [KILN_OBJECT_KERNEL] = "kernel", [KILN_OBJECT_EVENT] = "event",
      [KILN_OBJECT_COMMAND_BUFFER] = "command buffer", [KILN_OBJECT_RECORDING] = "recording",
      [KILN_OBJECT_DEVICE_QUEUE] = "device queue", [KILN_OBJECT_MUTABLE_COMMAND] = "mutable command"};
  /* A worker may still be dropping the last reference of a command that has completed
   * (the pool releases it after its final batch): what is still there after a second is
   * a leak. */
  for (int waited_ms = 0; kiln_object_count_in_use() != 0 && waited_ms < 1000; waited_ms++) usleep(1000);
  if (kiln_object_count_in_use() == 0) return;
  for (int t = 1; t < KILN_OBJECT_TYPE_COUNT; t++) {
    size_t n = atomic_load(&objects_in_use[t]);
    if (n) fprintf(stderr, "kiln: leak check: %zu %s object(s) still allocated at exit\n", n, names[t]);
  }
  fflush(NULL); /* keep what the program printed: _exit does not flush stdio */
  _exit(97);
}
