// divergence.hpp: what differs between the lanes of a vector of work-items, told to LLVM's
// uniformity analysis (used by linearize.cpp to find divergent branches and loops, and by
// idle_work_items.cpp).
#ifndef KILN_DEVICE_CPU_COMPILER_WFV_DIVERGENCE_HPP
#define KILN_DEVICE_CPU_COMPILER_WFV_DIVERGENCE_HPP

#include <llvm/ADT/DenseSet.h>
#include <llvm/IR/Function.h>
#include <llvm/IR/InstrTypes.h>

namespace kiln::wfv {

// The blocks of `f` whose terminator's condition differs between lanes.
llvm::DenseSet<llvm::BasicBlock *> divergent_branches(llvm::Function &f);

// What differs between the lanes of `f`: branches (as above) and values.
struct Divergence {
  llvm::DenseSet<llvm::BasicBlock *> branches;
  llvm::DenseSet<const llvm::Value *> values;
};
Divergence divergence(llvm::Function &f);

// Whether `call` is __kiln_local_id with a dimension other than a constant 1 or 2.
bool is_lane_id(const llvm::CallBase &call);

}  // namespace kiln::wfv

#endif
