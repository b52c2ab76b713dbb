// deep_stack.cpp: the compiler's own thread stack. Clang's parser, semantic checks and
// code generation, and LLVM's passes, recurse once per level of nesting in the program
// (`- - - ... 1`, `a + a + ... + a`, `if (...) if (...) ...`): 10 000 unary minuses or a
// 100 000-term sum overflowed the calling thread's 8 MiB stack and killed the process.
// Every compiler entry point therefore runs on a thread of its own with a large stack (it
// is address space: pages are only committed as the recursion touches them) and a large
// guard zone below it. A program that is nested deeper still runs into the guard zone; a
// SIGSEGV handler on an alternate signal stack recognizes a fault in a compiler thread's
// guard zone and jumps back to that thread's start, and the call fails with a build error.
// The compiler state of the abandoned call is leaked (a few MB, once per such program):
// LLVM's own crash recovery (CrashRecoveryContext) abandons it the same way. Faults
// anywhere else go to the handler that was installed before Kiln's.
#include "device/cpu/compiler/compiler_internal.hpp"

#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdlib.h>

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
  int status;
  bool overflowed;
};

void *thread_main(void *arg) {
  Call *call = static_cast<Call *>(arg);
  stack_t alt = {};
  alt.ss_sp = malloc(ALT_STACK_BYTES);
  alt.ss_size = ALT_STACK_BYTES;
  pthread_attr_t attr;
  void *stack_low = nullptr;
  size_t stack_size = 0;
  if (!alt.ss_sp || sigaltstack(&alt, nullptr) != 0 || pthread_getattr_np(pthread_self(), &attr) != 0) {
    free(alt.ss_sp);
    call->status = call->work ? (*call->work)() : KILN_COMPILE_FAILED;  // unguarded, as before
    return nullptr;
  }
  pthread_attr_getstack(&attr, &stack_low, &stack_size);
  pthread_attr_destroy(&attr);
  Guard *guard = new Guard;
  guard->low = (uintptr_t)stack_low - GUARD_BYTES;
  guard->high = (uintptr_t)stack_low + 64 * 1024;
  if (sigsetjmp(guard->resume, 1) == 0) {
    current_guard = guard;
    call->status = (*call->work)();
  } else {
    call->overflowed = true;
  }
  current_guard = nullptr;
  stack_t off = {};
  off.ss_flags = SS_DISABLE;
  sigaltstack(&off, nullptr);
  free(alt.ss_sp);
  delete guard;
  return nullptr;
}

}  // namespace

namespace kiln {

int run_with_deep_stack(const std::function<int()> &work, char **log) {
  pthread_once(&handler_once, install_handler);
  Call call{&work, KILN_COMPILE_FAILED, false};
  pthread_attr_t attr;
  pthread_t thread;
  bool started = pthread_attr_init(&attr) == 0 && pthread_attr_setstacksize(&attr, STACK_BYTES) == 0 &&
                 pthread_attr_setguardsize(&attr, GUARD_BYTES) == 0 &&
                 pthread_create(&thread, &attr, thread_main, &call) == 0;
  pthread_attr_destroy(&attr);
  if (!started) return work();  // no thread to spare: the caller's stack, as before
  pthread_join(thread, nullptr);
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
