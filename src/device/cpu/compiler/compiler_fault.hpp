// compiler_fault.hpp: turning a fault of the compiler into a failed call. Clang and LLVM
// have bugs that crash on some input (clang 19 dereferences NULL for `(float4)(pointer)`,
// fixed upstream in LLVM 23), stop the process with "LLVM ERROR" (report_fatal_error), or
// overflow any stack on deeply nested programs. A compiler thread arms a guard around each
// call; a SIGSEGV, SIGBUS, SIGFPE or SIGILL on that thread, or a fatal error reported on
// it, jumps back to where the guard was armed (siglongjmp from a handler on an alternate
// signal stack), and the call fails with a build error naming what happened. The state of
// the abandoned call is leaked and the thread is not reused (LLVM's CrashRecoveryContext
// recovers the same way). Faults on any other thread go to the handler installed before.
#ifndef KILN_DEVICE_CPU_COMPILER_FAULT_HPP
#define KILN_DEVICE_CPU_COMPILER_FAULT_HPP

#include <setjmp.h>
#include <stddef.h>
#include <stdint.h>

#include <string>

namespace kiln {

enum class Fault { none, stack_overflow, crash, fatal_error };

struct FaultGuard {
  sigjmp_buf resume;
  uintptr_t overflow_low, overflow_high;  // a SIGSEGV at [low, high) is a stack overflow
  uintptr_t fault_sp = 0;  // the stack pointer at the fault (0: unknown)
  Fault fault = Fault::none;
  int signal = 0;
  char what[2048] = "";  // the fatal error's reason, or what the compiler was doing
};

// Installs the signal handlers and LLVM's fatal error handler (once per process).
void install_fault_handlers();
// Arms `guard` on this thread after sigsetjmp(guard->resume, 1) returned 0; disarm once the
// call returned. A thread needs an alternate signal stack (sigaltstack) for overflows.
void arm_fault_guard(FaultGuard *guard);
void disarm_fault_guard();

// The build log line for a fault (a stack of `stack_mib` MiB for overflows).
std::string fault_message(const FaultGuard &guard, size_t stack_mib);

}  // namespace kiln

#endif
