// bounds_checks.hpp: between the two halves of KILN_CHECK=bounds: bounds_checks.cpp finds
// the accesses to check (and drops those proven inside), bounds_check_emit.cpp guards them.
#ifndef KILN_DEVICE_CPU_COMPILER_BOUNDS_CHECKS_HPP
#define KILN_DEVICE_CPU_COMPILER_BOUNDS_CHECKS_HPP

#include "device/cpu/compiler/compiler.h"

#include <llvm/IR/Function.h>
#include <llvm/IR/GlobalVariable.h>
#include <llvm/IR/Instruction.h>

#include <vector>

namespace kiln::bounds {

// What an address derives from: a checked argument, or a static __local variable.
struct Origin {
  int arg = -1;                          // the argument's index
  llvm::GlobalVariable *local = nullptr; // or the variable
  bool operator<(const Origin &o) const { return arg != o.arg ? arg < o.arg : local < o.local; }
};

// One access to check: `address` of `size` bytes (an i64 value), as found. A memory copy
// is two accesses of one instruction: its source (write false) and its destination.
struct Access {
  llvm::Instruction *inst;
  llvm::Value *address;
  llvm::Value *size;
  Origin origin;
  bool write;
};

// Guards every access of `accesses` (all of function k's) with its test.
void emit_checks(llvm::Function &k, const kiln_kernel_desc &desc, const std::vector<Access> &accesses);

} // namespace kiln::bounds

#endif
