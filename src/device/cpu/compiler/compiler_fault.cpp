// compiler_fault.cpp: the signal handlers and fatal error handler behind compiler_fault.hpp.
#include "device/cpu/compiler/compiler_fault.hpp"
#include "device/cpu/compiler/compiler_internal.hpp"

#include <llvm/Support/ErrorHandling.h>
#include <llvm/Support/PrettyStackTrace.h>
#include <llvm/Support/raw_ostream.h>

#include <pthread.h>
#include <signal.h>
#include <string.h>
#include <ucontext.h>
#include <unistd.h>

#include <algorithm>

namespace {

constexpr int GUARDED_SIGNALS[] = {SIGSEGV, SIGBUS, SIGFPE, SIGILL};
constexpr int SIGNAL_COUNT = sizeof GUARDED_SIGNALS / sizeof GUARDED_SIGNALS[0];
struct sigaction previous_actions[SIGNAL_COUNT];
pthread_once_t install_once = PTHREAD_ONCE_INIT;

// initial-exec: a signal handler may read it on any thread without allocating TLS.
__attribute__((tls_model("initial-exec"))) thread_local kiln::FaultGuard *current_guard;

// Writes into a fixed buffer (no allocation of its own), truncating.
class FixedStream : public llvm::raw_ostream {
  char *buffer_;
  size_t capacity_, used_ = 0;
  void write_impl(const char *data, size_t size) override {
    size_t n = std::min(size, capacity_ - used_);
    memcpy(buffer_ + used_, data, n);
    used_ += n;
  }
  uint64_t current_pos() const override { return used_; }

 public:
  FixedStream(char *buffer, size_t size) : raw_ostream(/*unbuffered=*/true), buffer_(buffer), capacity_(size - 1) {}
  ~FixedStream() override { buffer_[used_] = '\0'; }
};

// What clang and LLVM said they were doing (their PrettyStackTrace entries: "parsing
// function body 'k'", "a.cl:2:21: current parser token ';'"), outermost first. The entries
// live on the faulting stack, which is abandoned right after: they are read here, in the
// handler, as LLVM's own crash handler does.
void describe_compiler_state(kiln::FaultGuard *guard) {
  const llvm::PrettyStackTraceEntry *entries[8];
  int count = 0;
  auto *head = static_cast<const llvm::PrettyStackTraceEntry *>(llvm::SavePrettyStackState());
  for (auto *e = head; e && count < 8; e = e->getNextEntry()) entries[count++] = e;
  FixedStream os(guard->what, sizeof guard->what);
  for (int i = count - 1; i >= 0; i--) {
    os << "  ";
    entries[i]->print(os);
  }
}

void on_fault(int sig, siginfo_t *info, void *context) {
  kiln::FaultGuard *guard = current_guard;
  if (guard) {
    if (guard->fault == kiln::Fault::none) {  // else describing the state faulted: leave it there
      uintptr_t address = (uintptr_t)info->si_addr;
      bool overflow = sig == SIGSEGV && address >= guard->overflow_low && address < guard->overflow_high;
      guard->signal = sig;
#if defined(__x86_64__)
      guard->fault_sp = (uintptr_t) static_cast<ucontext_t *>(context)->uc_mcontext.gregs[REG_RSP];
#elif defined(__aarch64__)
      guard->fault_sp = (uintptr_t) static_cast<ucontext_t *>(context)->uc_mcontext.sp;
#endif
      guard->fault = overflow ? kiln::Fault::stack_overflow : kiln::Fault::crash;
      if (!overflow) describe_compiler_state(guard);
    }
    current_guard = nullptr;
    siglongjmp(guard->resume, 1);
  }
  // Not a compiler fault: as if Kiln had installed nothing.
  int i = 0;
  while (i < SIGNAL_COUNT - 1 && GUARDED_SIGNALS[i] != sig) i++;
  const struct sigaction &previous = previous_actions[i];
  if ((previous.sa_flags & SA_SIGINFO) && previous.sa_sigaction) {
    previous.sa_sigaction(sig, info, context);
  } else if (previous.sa_handler != SIG_DFL && previous.sa_handler != SIG_IGN) {
    previous.sa_handler(sig);
  } else {
    signal(sig, SIG_DFL);  // returning re-runs the faulting instruction, which now kills
    if (info->si_code <= 0) raise(sig);  // sent (kill, raise), not a fault: nothing re-runs
  }
}

// report_fatal_error: on a compiler thread the call fails; elsewhere LLVM's default
// (the message, then the process exits) follows when this returns.
void on_fatal_error(void *, const char *reason, bool) {
  kiln::FaultGuard *guard = current_guard;
  if (!guard) {
    llvm::errs() << "LLVM ERROR: " << reason << "\n";
    return;
  }
  current_guard = nullptr;
  guard->fault_sp = (uintptr_t)__builtin_frame_address(0);
  guard->fault = kiln::Fault::fatal_error;
  snprintf(guard->what, sizeof guard->what, "%s", reason);
  siglongjmp(guard->resume, 1);
}

void install() {
  struct sigaction action = {};
  action.sa_sigaction = on_fault;
  action.sa_flags = SA_SIGINFO | SA_ONSTACK | SA_NODEFER;
  sigemptyset(&action.sa_mask);
  for (int i = 0; i < SIGNAL_COUNT; i++) sigaction(GUARDED_SIGNALS[i], &action, &previous_actions[i]);
  llvm::install_fatal_error_handler(on_fatal_error, nullptr);
}

const char *signal_name(int sig) {
  switch (sig) {
  case SIGSEGV: return "SIGSEGV";
  case SIGBUS: return "SIGBUS";
  case SIGFPE: return "SIGFPE";
  case SIGILL: return "SIGILL";
  default: return "a signal";
  }
}

}  // namespace

namespace kiln {

void install_fault_handlers() { pthread_once(&install_once, install); }

void arm_fault_guard(FaultGuard *guard) { current_guard = guard; }
void disarm_fault_guard() { current_guard = nullptr; }

std::string fault_message(const FaultGuard &guard, size_t stack_mib) {
  switch (guard.fault) {
  case Fault::stack_overflow:
    return "error: the program is nested too deeply for the compiler (its " + std::to_string(stack_mib) +
           " MiB stack ran out)\n";
  case Fault::crash:
    return std::string("error: clang/LLVM crashed compiling this program (") + signal_name(guard.signal) +
           ", a compiler bug, caught by Kiln); the compiler was at:\n" + guard.what;
  case Fault::fatal_error:
    return std::string("error: clang/LLVM stopped compiling this program (a fatal error, caught by Kiln): ") +
           guard.what + "\n";
  case Fault::none: break;
  }
  return "";
}

}  // namespace kiln

extern "C" int kiln_compiler_provoke_fault(enum kiln_compiler_fault kind, char **log) {
  if (log) *log = nullptr;
  return kiln::run_on_compiler_thread(
      [kind] {
        switch (kind) {
        case KILN_FAULT_SIGSEGV: raise(SIGSEGV); break;
        case KILN_FAULT_SIGFPE: raise(SIGFPE); break;
        case KILN_FAULT_LLVM_FATAL_ERROR: llvm::report_fatal_error("provoked by a Kiln test"); break;
        }
        return (int)KILN_COMPILE_OK;  // not reached
      },
      log);
}
