// compiler_thread.cpp: the threads the compiler runs on. Clang's parser, semantic checks
// and code generation, and LLVM's passes, recurse once per level of nesting in the program
// (`- - - ... 1`, `a + a + ... + a`, `if (...) if (...) ...`): 10 000 unary minuses or a
// 100 000-term sum overflowed the calling thread's 8 MiB stack and killed the process.
// Every compiler entry point therefore runs on a pooled compiler thread with a large stack
// (it is address space: pages are only committed as the recursion touches them) and a
// large guard zone below it, inside a fault guard (compiler_fault.hpp): a program nested
// deeper still, or one that crashes clang, fails the call with a build error.
#include "device/cpu/compiler/compiler_fault.hpp"
#include "device/cpu/compiler/compiler_internal.hpp"

#include <alloca.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <functional>
#include <string>

#ifdef __has_feature
#define KILN_HAS_FEATURE(x) __has_feature(x)
#else
#define KILN_HAS_FEATURE(x) 0
#endif
#if defined(__SANITIZE_ADDRESS__) || KILN_HAS_FEATURE(address_sanitizer)
#include <sanitizer/asan_interface.h>
#endif

namespace {

constexpr size_t STACK_BYTES = size_t(256) << 20;
constexpr size_t GUARD_BYTES = size_t(1) << 20;  // no compiler frame jumps over it
// The fault handler runs here; describing clang's state at a crash takes some room.
constexpr size_t ALT_STACK_BYTES = 256 * 1024;

struct Call {
  const std::function<int()> *work;
  int status = KILN_COMPILE_FAILED;
  std::string fault;  // the build log line of a fault, else empty
  bool done = false;
  Call *next = nullptr;
};

// The pool of compiler threads. Creating a thread per compile cost a 256 MiB mapping per
// call, and under AddressSanitizer each dead thread left mappings behind until mmap failed
// (found by fuzz_build_options after 250 000 builds). Threads wait for calls, a thread is
// started only when none waits, idle threads leave after IDLE_SECONDS, and a thread whose
// call faulted leaves at once (its stack is committed down to the fault, its thread-local
// compiler state abandoned).
constexpr int IDLE_SECONDS = 10;

struct Pool {
  pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
  pthread_cond_t work_ready = PTHREAD_COND_INITIALIZER;  // a call was queued, or stopping
  pthread_cond_t call_done = PTHREAD_COND_INITIALIZER;   // a call finished, or a thread left
  Call *head = nullptr, *tail = nullptr;
  int queued = 0;   // calls no thread has taken yet
  int idle = 0;     // threads waiting for a call
  int threads = 0;  // threads alive
  bool stopping = false;

  // At unload or exit, idle threads must not outlive the code they run.
  ~Pool() {
    pthread_mutex_lock(&lock);
    stopping = true;
    pthread_cond_broadcast(&work_ready);
    while (idle > 0) pthread_cond_wait(&call_done, &lock);
    pthread_mutex_unlock(&lock);
  }
};
Pool pool;

// After a jump out of a fault, AddressSanitizer still marks the abandoned frames' redzones
// below this one (it declines to clear stacks over 64 MiB on a jump), and the next call
// made here would be reported as overflowing them. And LeakSanitizer would report the
// compiler state those frames pointed to, leaked on purpose: a copy of the frames is kept
// where it scans (a list reachable from a global), so the state stays reachable.
#if defined(__SANITIZE_ADDRESS__) || KILN_HAS_FEATURE(address_sanitizer)
struct KeptFrames {
  KeptFrames *next;
  size_t size;
  alignas(16) char bytes[];
};
KeptFrames *kept_frames;  // guarded by pool.lock
constexpr uintptr_t RED_ZONE_BYTES = 128;  // below the stack pointer, usable by leaf code

__attribute__((noinline)) void abandon_frames(uintptr_t stack_low, uintptr_t fault_sp) {
  uintptr_t top = (uintptr_t)__builtin_frame_address(0);  // a local may live on ASan's fake stack
  __asan_unpoison_memory_region(reinterpret_cast<void *>(stack_low), top - stack_low);
  uintptr_t low = fault_sp > stack_low + RED_ZONE_BYTES ? fault_sp - RED_ZONE_BYTES : stack_low;
  if (!fault_sp || low >= top) return;
  auto *kept = static_cast<KeptFrames *>(malloc(sizeof(KeptFrames) + (top - low)));
  if (!kept) return;
  kept->size = top - low;
  memcpy(kept->bytes, reinterpret_cast<const void *>(low), kept->size);
  pthread_mutex_lock(&pool.lock);
  kept->next = kept_frames;
  kept_frames = kept;
  pthread_mutex_unlock(&pool.lock);
}

// Calls the work below a gap, so that abandon_frames, running after the jump where the
// call's outermost frames were, copies them before its own frame covers them.
void call_work(Call *call) {
  void *gap = alloca(64 * 1024);
  asm volatile("" : : "r"(gap) : "memory");
  call->status = (*call->work)();
}
#else
void abandon_frames(uintptr_t, uintptr_t) {}
void call_work(Call *call) { call->status = (*call->work)(); }
#endif

Call *take_call_locked() {
  Call *call = pool.head;
  pool.head = call->next;
  if (!pool.head) pool.tail = nullptr;
  pool.queued--;
  return call;
}

// A thread that will not take another call stops counting as one in the same step, so a
// caller never waits for it.
void finish_call(Call *call, bool leaving) {
  pthread_mutex_lock(&pool.lock);
  if (leaving) pool.threads--;
  call->done = true;
  pthread_cond_broadcast(&pool.call_done);
  pthread_mutex_unlock(&pool.lock);
}

// Runs one call inside the fault guard; false when it faulted (the thread must not be
// reused: its stack and thread-local compiler state were abandoned mid-call).
bool run_guarded(Call *call, uintptr_t stack_low) {
  kiln::FaultGuard guard;
  guard.overflow_low = stack_low - GUARD_BYTES;
  guard.overflow_high = stack_low + 64 * 1024;
  if (sigsetjmp(guard.resume, 1) != 0) {
    abandon_frames(stack_low, guard.fault_sp);
    call->fault = kiln::fault_message(guard, STACK_BYTES >> 20);
    return false;
  }
  kiln::arm_fault_guard(&guard);
  call_work(call);
  kiln::disarm_fault_guard();
  return true;
}

void *thread_main(void *) {
  stack_t alt = {};
  alt.ss_sp = malloc(ALT_STACK_BYTES);
  alt.ss_size = ALT_STACK_BYTES;
  pthread_attr_t attr;
  void *stack_low = nullptr;
  size_t stack_size = 0;
  bool guarded = alt.ss_sp && sigaltstack(&alt, nullptr) == 0 && pthread_getattr_np(pthread_self(), &attr) == 0;
  if (guarded) {
    pthread_attr_getstack(&attr, &stack_low, &stack_size);
    pthread_attr_destroy(&attr);
  }
  bool healthy = true;
  pthread_mutex_lock(&pool.lock);
  while (healthy) {
    pool.idle++;
    int wait = 0;
    while (!pool.head && !pool.stopping && wait == 0) {
      struct timespec until;
      clock_gettime(CLOCK_REALTIME, &until);
      until.tv_sec += IDLE_SECONDS;
      wait = pthread_cond_timedwait(&pool.work_ready, &pool.lock, &until);
    }
    pool.idle--;
    if (!pool.head) break;  // idle too long, or unloading
    Call *call = take_call_locked();
    pthread_mutex_unlock(&pool.lock);
    if (guarded) {
      healthy = run_guarded(call, (uintptr_t)stack_low);
    } else {
      call->status = (*call->work)();  // unguarded, as on the caller's stack
    }
    finish_call(call, !healthy);
    if (!healthy) break;
    pthread_mutex_lock(&pool.lock);
  }
  if (healthy) {
    pool.threads--;
    pthread_cond_broadcast(&pool.call_done);
    pthread_mutex_unlock(&pool.lock);
  }

  if (guarded) {
    stack_t off = {};
    off.ss_flags = SS_DISABLE;
    sigaltstack(&off, nullptr);
  }
  free(alt.ss_sp);
  return nullptr;
}

bool start_thread_locked() {
  pthread_attr_t attr;
  pthread_t thread;
  bool started = pthread_attr_init(&attr) == 0 && pthread_attr_setstacksize(&attr, STACK_BYTES) == 0 &&
                 pthread_attr_setguardsize(&attr, GUARD_BYTES) == 0 &&
                 pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED) == 0 &&
                 pthread_create(&thread, &attr, thread_main, nullptr) == 0;
  pthread_attr_destroy(&attr);
  if (started) pool.threads++;
  return started;
}

}  // namespace

namespace kiln {

int run_on_compiler_thread(const std::function<int()> &work, char **log) {
  kiln::install_fault_handlers();
  Call call;
  call.work = &work;
  pthread_mutex_lock(&pool.lock);
  if (pool.stopping) {
    pthread_mutex_unlock(&pool.lock);
    return work();
  }
  bool need_thread = pool.queued >= pool.idle;
  if (need_thread && !start_thread_locked() && pool.threads == 0) {
    pthread_mutex_unlock(&pool.lock);
    return work();  // no thread to spare: the caller's stack, as before
  }
  if (pool.tail) pool.tail->next = &call; else pool.head = &call;
  pool.tail = &call;
  pool.queued++;
  pthread_cond_signal(&pool.work_ready);
  while (!call.done) pthread_cond_wait(&pool.call_done, &pool.lock);
  pthread_mutex_unlock(&pool.lock);
  if (!call.fault.empty()) {
    if (log) {
      free(*log);
      *log = dup_log(call.fault);
    }
    return KILN_COMPILE_FAILED;
  }
  return call.status;
}

}  // namespace kiln
