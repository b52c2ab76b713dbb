/* fibers.c: fibers.h — a group's work-items as fibers on per-thread stacks, scheduled
 * round-robin by kiln_fibers_run_group on the calling thread's own stack. */
#include "device/cpu/fibers.h"

#include "device/cpu/compiler/compiler.h"
#include "device/cpu/kernel_abi.h"
#include "device/cpu/worker_pool.h"

#include <pthread.h>
#include <stddef.h>
#include <stdlib.h>
#include <sys/mman.h>

/* Boost.Context's C interface (boost/context/detail/fcontext.hpp, libboost_context):
 * make_fcontext prepares a context on a stack (given by its top) that starts in `entry`;
 * jump_fcontext suspends the caller and resumes `to`, which receives the caller's context
 * and `data`. */
struct fcontext_transfer {
  void *context;
  void *data;
};
extern struct fcontext_transfer jump_fcontext(void *to, void *data);
extern void *make_fcontext(void *stack_top, size_t size, void (*entry)(struct fcontext_transfer));

/* Sanitizers must be told of stack switches (their fiber interfaces). */
#if defined(__SANITIZE_ADDRESS__)
#define KILN_FIBERS_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define KILN_FIBERS_ASAN 1
#endif
#endif
#if defined(__SANITIZE_THREAD__)
#define KILN_FIBERS_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define KILN_FIBERS_TSAN 1
#endif
#endif
#ifdef KILN_FIBERS_ASAN
#include <sanitizer/asan_interface.h>
#include <sanitizer/common_interface_defs.h>
#endif
#ifdef KILN_FIBERS_TSAN
#include <sanitizer/tsan_interface.h>
#endif

enum fiber_state { FIBER_RUNNABLE, FIBER_AT_BARRIER, FIBER_DONE };

struct fiber {
  void *context; /* where it stopped (or starts) */
  enum fiber_state state;
#ifdef KILN_FIBERS_TSAN
  void *tsan;
#endif
};

/* A thread's fibers, kept while it lives (a worker for ever, a helping application thread
 * until it exits). A fiber runs work-items one after another, from the next one nobody
 * has started, until one of them waits (a barrier or a spin loop's further turn); only
 * then does the scheduler start another fiber. Work-items that never wait so cost a call
 * each, not a stack and two switches; a group reaching a barrier gets a fiber per
 * work-item. */
struct fiber_set {
  char *stacks;      /* `capacity` stacks of KILN_FIBER_STACK_BYTES, fiber 0's lowest */
  uint64_t capacity;
  struct fiber *fibers;
  bool running;      /* within kiln_fibers_run_group */
  void *scheduler;   /* the run_group loop's context while a fiber runs */
  uint64_t current;  /* the running fiber */
  uint64_t started;  /* fibers started */
  uint64_t cursor[3]; /* work-items: the next to start, the count, those ended (kernel_abi.h) */
  uint64_t waiting;  /* work-items at a barrier */
  unsigned turns;    /* spin loops' turns (fibers_yield) */
  kiln_fiber_item_fn item;
  void *item_context;
  struct fiber_set *next; /* in the registry */
#ifdef KILN_FIBERS_ASAN
  const void *scheduler_stack;
  size_t scheduler_stack_size;
#endif
#ifdef KILN_FIBERS_TSAN
  void *scheduler_tsan;
  /* ThreadSanitizer's fiber states of slots [0, tsan_fibers), kept across groups: making
   * one clears most of a megabyte, too slow to do per work-item (a 65 536-item histogram
   * with barriers took minutes). Slots run one after another on this thread anyway. */
  uint64_t tsan_fibers;
#endif
};

/* Every thread's set, for kiln_fibers_on_stack; the lock also covers their stacks. */
static pthread_mutex_t registry_lock = PTHREAD_MUTEX_INITIALIZER;
static struct fiber_set *registry;
static pthread_key_t set_key;
static pthread_once_t set_key_once = PTHREAD_ONCE_INIT;
static _Thread_local struct fiber_set *thread_set;

bool kiln_fibers_stack_fits(uint64_t code_bytes) {
  return code_bytes <= KILN_FIBER_STACK_BYTES - KILN_STACK_RESERVE_BYTES;
}

static void set_destroy(void *arg) {
  struct fiber_set *s = arg;
  pthread_mutex_lock(&registry_lock);
  for (struct fiber_set **p = &registry; *p; p = &(*p)->next)
    if (*p == s) {
      *p = s->next;
      break;
    }
  pthread_mutex_unlock(&registry_lock);
  if (s->stacks) munmap(s->stacks, s->capacity * KILN_FIBER_STACK_BYTES);
#ifdef KILN_FIBERS_TSAN
  for (uint64_t f = 0; f < s->tsan_fibers; f++) __tsan_destroy_fiber(s->fibers[f].tsan);
#endif
  free(s->fibers);
  free(s);
}

static void set_key_create(void) { (void)pthread_key_create(&set_key, set_destroy); }

/* The calling thread's set with room for `items` fibers, or NULL. */
static struct fiber_set *thread_fibers(uint64_t items) {
  struct fiber_set *s = thread_set;
  if (!s) {
    if (pthread_once(&set_key_once, set_key_create) != 0 || !(s = calloc(1, sizeof *s))) return NULL;
    if (pthread_setspecific(set_key, s) != 0) {
      free(s);
      return NULL;
    }
    pthread_mutex_lock(&registry_lock);
    s->next = registry;
    registry = s;
    pthread_mutex_unlock(&registry_lock);
    thread_set = s;
  }
  if (items <= s->capacity) return s;
  /* Grown to what the group needs (work-group sizes are bounded); address space only
   * until touched. */
  struct fiber *fibers = malloc(items * sizeof *fibers);
  void *stacks = mmap(NULL, items * KILN_FIBER_STACK_BYTES, PROT_READ | PROT_WRITE,
                      MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_STACK, -1, 0);
  if (!fibers || stacks == MAP_FAILED) {
    free(fibers);
    if (stacks != MAP_FAILED) munmap(stacks, items * KILN_FIBER_STACK_BYTES);
    return NULL;
  }
  pthread_mutex_lock(&registry_lock);
  if (s->stacks) munmap(s->stacks, s->capacity * KILN_FIBER_STACK_BYTES);
  s->stacks = stacks;
  s->capacity = items;
  pthread_mutex_unlock(&registry_lock);
#ifdef KILN_FIBERS_TSAN
  for (uint64_t f = 0; f < s->tsan_fibers; f++) fibers[f].tsan = s->fibers[f].tsan;
#endif
  free(s->fibers);
  s->fibers = fibers;
  return s;
}

static char *stack_low(const struct fiber_set *s, uint64_t i) { return s->stacks + i * KILN_FIBER_STACK_BYTES; }

/* From the scheduler into fiber i, until it barriers, yields or ends. */
static void enter(struct fiber_set *s, uint64_t i) {
  struct fiber *f = &s->fibers[i];
  s->current = i;
#ifdef KILN_FIBERS_ASAN
  void *fake_stack = NULL;
  __sanitizer_start_switch_fiber(&fake_stack, stack_low(s, i), KILN_FIBER_STACK_BYTES);
#endif
#ifdef KILN_FIBERS_TSAN
  __tsan_switch_to_fiber(f->tsan, 0);
#endif
  struct fcontext_transfer t = jump_fcontext(f->context, s);
#ifdef KILN_FIBERS_ASAN
  __sanitizer_finish_switch_fiber(fake_stack, NULL, NULL);
#endif
  f->context = t.context;
}

/* From the running fiber back to the scheduler; an `ending` fiber is never resumed. */
static void leave(struct fiber_set *s, bool ending) {
#ifdef KILN_FIBERS_ASAN
  void *fake_stack = NULL;
  __sanitizer_start_switch_fiber(ending ? NULL : &fake_stack, s->scheduler_stack, s->scheduler_stack_size);
#endif
#ifdef KILN_FIBERS_TSAN
  __tsan_switch_to_fiber(s->scheduler_tsan, 0);
#endif
  (void)ending;
  struct fcontext_transfer t = jump_fcontext(s->scheduler, NULL);
#ifdef KILN_FIBERS_ASAN
  __sanitizer_finish_switch_fiber(fake_stack, &s->scheduler_stack, &s->scheduler_stack_size);
#endif
  s->scheduler = t.context;
}

static void fiber_main(struct fcontext_transfer t) {
  struct fiber_set *s = t.data;
#ifdef KILN_FIBERS_ASAN
  __sanitizer_finish_switch_fiber(NULL, &s->scheduler_stack, &s->scheduler_stack_size);
#endif
  s->scheduler = t.context;
  s->item(s->item_context, s->cursor);
  s->fibers[s->current].state = FIBER_DONE;
  leave(s, true);
}

static void start_fiber(struct fiber_set *s) {
  uint64_t f = s->started++;
#ifdef KILN_FIBERS_ASAN
  /* An ended fiber left its frames' redzones behind. */
  __asan_unpoison_memory_region(stack_low(s, f), KILN_FIBER_STACK_BYTES);
#endif
#ifdef KILN_FIBERS_TSAN
  if (f == s->tsan_fibers) s->fibers[s->tsan_fibers++].tsan = __tsan_create_fiber(0);
#endif
  s->fibers[f].context = make_fcontext(stack_low(s, f) + KILN_FIBER_STACK_BYTES, KILN_FIBER_STACK_BYTES, fiber_main);
  s->fibers[f].state = FIBER_RUNNABLE;
}

int kiln_fibers_run_group(kiln_fiber_item_fn item, void *context, uint64_t items) {
  struct fiber_set *s = thread_fibers(items);
  if (!s || s->running) return 1;
  s->running = true;
  s->item = item;
  s->item_context = context;
  s->cursor[KILN_FIBERS_CURSOR_NEXT] = s->cursor[KILN_FIBERS_CURSOR_DONE] = 0;
  s->cursor[KILN_FIBERS_CURSOR_END] = items;
  s->started = s->waiting = 0;
  const uint64_t *next = &s->cursor[KILN_FIBERS_CURSOR_NEXT], *done = &s->cursor[KILN_FIBERS_CURSOR_DONE];
#ifdef KILN_FIBERS_TSAN
  s->scheduler_tsan = __tsan_get_current_fiber();
#endif
  start_fiber(s);
  while (*done < items) {
    /* Round-robin; a fiber whose work-item waits lets a new one take the next unstarted
     * work-item (which may be what it waits for), entered in the same round. */
    for (uint64_t f = 0; f < s->started; f++) {
      if (s->fibers[f].state != FIBER_RUNNABLE) continue;
      enter(s, f);
      if (s->fibers[f].state != FIBER_DONE && *next < items) start_fiber(s);
    }
    /* A barrier opens once every work-item that has not ended waits at it (all must
     * reach it: OpenCL's rule). */
    if (s->waiting && *next == items && s->waiting + *done == items) {
      for (uint64_t f = 0; f < s->started; f++)
        if (s->fibers[f].state == FIBER_AT_BARRIER) s->fibers[f].state = FIBER_RUNNABLE;
      s->waiting = 0;
    }
  }
  s->running = false;
  return 0;
}

static void fibers_barrier(void) {
  struct fiber_set *s = thread_set;
  s->fibers[s->current].state = FIBER_AT_BARRIER;
  s->waiting++;
  leave(s, false);
}

/* A spin loop's back edge switches only every KILN_FIBER_TURNS_PER_YIELD turns. With a
 * switch per turn, a loop that retries a compare-and-swap from the value its last failure
 * returned (the CTS's compare_exchange tests: 1024 work-items, 10 000 turns each) saw that
 * value changed by every other work-item before each retry: one success per round of the
 * group, and thousands of switches over a thousand stacks per success; a few turns in a
 * row let a retry see the value its failure read. A wait still lets the others run, a few
 * turns later. */
#define KILN_FIBER_TURNS_PER_YIELD 4u
static void fibers_yield(void) {
  struct fiber_set *s = thread_set;
  if (++s->turns % KILN_FIBER_TURNS_PER_YIELD == 0) leave(s, false);
}

bool kiln_fibers_on_stack(uintptr_t p) {
  bool found = false;
  pthread_mutex_lock(&registry_lock);
  for (struct fiber_set *s = registry; s && !found; s = s->next)
    found = s->stacks && p >= (uintptr_t)s->stacks && p < (uintptr_t)s->stacks + s->capacity * KILN_FIBER_STACK_BYTES;
  pthread_mutex_unlock(&registry_lock);
  return found;
}

void kiln_fibers_register(void) {
  kiln_jit_define_symbol(KILN_FIBERS_RUN_GROUP_SYMBOL, (void *)kiln_fibers_run_group);
  kiln_jit_define_symbol(KILN_FIBERS_BARRIER_SYMBOL, (void *)fibers_barrier);
  kiln_jit_define_symbol(KILN_FIBERS_YIELD_SYMBOL, (void *)fibers_yield);
}
