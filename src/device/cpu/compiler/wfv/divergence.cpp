// divergence.cpp: the lanes' divergence model (divergence.hpp). Lanes are work-items that
// differ only in their x id, run in lockstep: a load from one address gives every lane the
// same value, so loads are uniform unless their address is not.
#include "device/cpu/compiler/wfv/divergence.hpp"

#include "device/cpu/compiler/compiler_internal.hpp"
#include "device/cpu/compiler/wfv/wfv.hpp"

#include <llvm/Analysis/TargetTransformInfoImpl.h>
#include <llvm/Analysis/UniformityAnalysis.h>
#include <llvm/IR/Constants.h>
#include <llvm/IR/Instructions.h>
#include <llvm/Passes/PassBuilder.h>

using namespace llvm;

namespace kiln::wfv {

bool is_lane_id(const CallBase &call) {
  const Function *callee = call.getCalledFunction();
  if (!callee || callee->getName() != KILN_INTRINSIC_LOCAL_ID) return false;
  auto *dim = dyn_cast<ConstantInt>(call.getArgOperand(0));
  return !dim || dim->isZero();
}

namespace {

class LaneDivergence : public TargetTransformInfoImplCRTPBase<LaneDivergence> {
 public:
  explicit LaneDivergence(const DataLayout &dl) : TargetTransformInfoImplCRTPBase(dl) {}
  bool hasBranchDivergence(const Function * = nullptr) const { return true; }
  bool isSourceOfDivergence(const Value *v) const {
    // Private memory is each lane's own; atomics and calls that write memory run per lane.
    if (isa<AllocaInst>(v) || isa<AtomicRMWInst>(v) || isa<AtomicCmpXchgInst>(v)) return true;
    if (auto *load = dyn_cast<LoadInst>(v)) return !load->isSimple();
    auto *call = dyn_cast<CallBase>(v);
    if (!call) return false;
    if (is_lane_id(*call)) return true;
    const Function *callee = call->getCalledFunction();
    if (callee && (kiln::is_work_item_intrinsic(callee->getName()) || is_cross_lane(callee))) return false;
    return !call->onlyReadsMemory();
  }
  // "Does it hold for any lane" (and the other cross-lane calls) is one answer for all
  // lanes, whatever the operands: a branch on it (the bounds checks' "some access
  // outside") stays a branch.
  bool isAlwaysUniform(const Value *v) const {
    auto *call = dyn_cast<CallBase>(v);
    return call && is_cross_lane(call->getCalledFunction());
  }
};

}  // namespace

Divergence divergence(Function &f) {
  FunctionAnalysisManager fam;
  const DataLayout &dl = f.getParent()->getDataLayout();
  fam.registerPass([&] { return TargetIRAnalysis([&dl](const Function &) { return TargetTransformInfo(LaneDivergence(dl)); }); });
  PassBuilder pb;
  pb.registerFunctionAnalyses(fam);  // keeps the target-info model registered above
  UniformityInfo &ui = fam.getResult<UniformityInfoAnalysis>(f);
  Divergence d;
  for (Argument &arg : f.args())
    if (ui.isDivergent(&arg)) d.values.insert(&arg);
  for (BasicBlock &bb : f) {
    if (auto *br = dyn_cast<BranchInst>(bb.getTerminator()); br && br->isConditional() && ui.hasDivergentTerminator(bb))
      d.branches.insert(&bb);
    for (Instruction &inst : bb)
      if (ui.isDivergent(&inst)) d.values.insert(&inst);
  }
  return d;
}

DenseSet<BasicBlock *> divergent_branches(Function &f) { return divergence(f).branches; }

}  // namespace kiln::wfv
