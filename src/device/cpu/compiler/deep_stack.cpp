// deep_stack.cpp: the compiler's own thread stack. Clang's parser, semantic checks and
// code generation, and LLVM's passes, recurse once per level of nesting in the program
// (`- - - ... 1`, `a + a + ... + a`, `if (...) if (...) ...`): 10 000 unary minuses or a
// 100 000-term sum overflowed the calling thread's 8 MiB stack and killed the process.
// Every compiler entry point therefore runs on a pooled compiler thread with a large stack
// (it is address space: pages are only committed as the recursion touches them) and a
// large guard zone below it. A program that is nested deeper still runs into the guard zone; a
// SIGSEGV handler on an alternate signal stack recognizes a fault in a compiler thread's
// guard zone and jumps back to where that thread took the call, and the call fails with a
// build error.
// The compiler state of the abandoned call is leaked (a few MB, once per such program):
// LLVM's own crash recovery (CrashRecoveryContext) abandons it the same way. Faults
// anywhere else go to the handler that was installed before Kiln's.
#include "device/cpu/compiler/compiler_internal.hpp"

#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdlib.h>
#include <time.h>

#include <functional>
#include <string>

namespace {

constexpr size_t STACK_BYTES = size_t(256) << 20;
constexpr size_t GUARD_BYTES = size_t(1) << 20;  // no compiler frame jumps over it
constexpr size_t ALT_STACK_BYTES = 64 * 1024;

struct Guard {
  sigjmp_buf resume;
  uintptr_t low, high;  // a fault at an address in [low, high) is this thread's overflow
};

// initial-exec: the handler may read it on any thread without allocating TLS.
__attribute__((tls_model("initial-exec"))) thread_local Guard *current_guard;

struct sigaction previous_action;
pthread_once_t handler_once = PTHREAD_ONCE_INIT;

void on_fault(int sig, siginfo_t *info, void *context) {
  Guard *guard = current_guard;
  uintptr_t address = (uintptr_t)info->si_addr;
  if (guard && address >= guard->low && address < guard->high) siglongjmp(guard->resume, 1);
  // Not a compiler overflow: as if Kiln had installed nothing.
  if ((previous_action.sa_flags & SA_SIGINFO) && previous_action.sa_sigaction) {
    previous_action.sa_sigaction(sig, info, context);
  } else if (previous_action.sa_handler != SIG_DFL && previous_action.sa_handler != SIG_IGN) {
    previous_action.sa_handler(sig);
  } else {
    signal(sig, SIG_DFL);  // returning re-runs the faulting instruction, which now kills
  }
}

void install_handler() {
  struct sigaction action = {};
  action.sa_sigaction = on_fault;
  action.sa_flags = SA_SIGINFO | SA_ONSTACK | SA_NODEFER;
  sigemptyset(&action.sa_mask);
  sigaction(SIGSEGV, &action, &previous_action);
}

struct Call {
  const std::function<int()> *work;
  int status = KILN_COMPILE_FAILED;
  bool overflowed = false;
  bool done = false;
  Call *next = nullptr;
};

// The pool of compiler threads. Creating a thread per compile cost a 256 MiB mapping per
// call, and under AddressSanitizer each dead thread left mappings behind until mmap failed
// (found by fuzz_build_options after 250 000 builds). Threads wait for calls, a thread is
// started only when none waits, idle threads leave after IDLE_SECONDS, and a thread whose
// call overflowed leaves at once (its stack is committed to the guard zone).
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

// Runs one call with the overflow guard armed; false when it overflowed.
bool run_guarded(Call *call, Guard *guard) {
  if (sigsetjmp(guard->resume, 1) != 0) {
    current_guard = nullptr;
    call->overflowed = true;
    return false;
  }
  current_guard = guard;
  call->status = (*call->work)();
  current_guard = nullptr;
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
  Guard *guard = new Guard;
  guard->low = (uintptr_t)stack_low - GUARD_BYTES;
  guard->high = (uintptr_t)stack_low + 64 * 1024;

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
      healthy = run_guarded(call, guard);
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
  delete guard;
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

int run_with_deep_stack(const std::function<int()> &work, char **log) {
  pthread_once(&handler_once, install_handler);
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
  if (call.overflowed) {
    if (log) {
      free(*log);
      *log = dup_log("error: the program is nested too deeply for the compiler (its " +
                     std::to_string(STACK_BYTES >> 20) + " MiB stack ran out)\n");
    }
    return KILN_COMPILE_FAILED;
  }
  return call.status;
}

}  // namespace kiln
