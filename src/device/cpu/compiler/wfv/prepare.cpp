// prepare.cpp: wfv::prepare (wfv.hpp) — the kernel in the form the later steps expect.
#include "device/cpu/compiler/compiler_internal.hpp"
#include "device/cpu/compiler/wfv/wfv.hpp"

#include <llvm/IR/InstIterator.h>
#include <llvm/IR/Instructions.h>
#include <llvm/Passes/PassBuilder.h>
#include <llvm/Transforms/InstCombine/InstCombine.h>
#include <llvm/Transforms/Scalar/Scalarizer.h>
#include <llvm/Transforms/Utils/LCSSA.h>
#include <llvm/Transforms/Utils/LoopSimplify.h>
#include <llvm/Transforms/Utils/LowerSwitch.h>
#include <llvm/Transforms/Utils/UnifyFunctionExitNodes.h>

using namespace llvm;

namespace kiln::wfv {

bool prepare(Function &f, std::string &why) {
  if (!inline_all(f, why)) return false;
  kiln::run_function_passes(f, [](PassBuilder &pb, FunctionPassManager &fpm) {
    // O2's function simplification: SROA, loop rotation (exits at the latch), LICM and
    // trivial unswitching (uniform conditions hoisted out of loops), full unrolling of
    // short loops.
    fpm = pb.buildFunctionSimplificationPipeline(OptimizationLevel::O2, ThinOrFullLTOPhase::None);
    // OpenCL vectors (a float4 position) as scalars: a vector of work-items of them is then
    // one vector per component. Switches as branches, which linearization handles.
    ScalarizerPassOptions scalarize;
    scalarize.ScalarizeLoadStore = true;
    fpm.addPass(ScalarizerPass(scalarize));
    fpm.addPass(InstCombinePass());
    fpm.addPass(LowerSwitchPass());
    fpm.addPass(UnifyFunctionExitNodesPass());
    fpm.addPass(LoopSimplifyPass());
    fpm.addPass(LCSSAPass());
  });
  for (Instruction &inst : instructions(f)) {
    if (isa<UnreachableInst>(inst)) {
      why = "unreachable code";
      return false;
    }
    if (isa<IndirectBrInst>(inst) || isa<CallBrInst>(inst) || isa<InvokeInst>(inst)) {
      why = "unsupported terminator";
      return false;
    }
    if (auto *call = dyn_cast<CallInst>(&inst)) {
      if (call->isInlineAsm() || !call->getCalledFunction()) {
        why = "indirect call or inline assembly";
        return false;
      }
      if (call->isConvergent()) {
        why = "convergent call " + call->getCalledFunction()->getName().str();
        return false;
      }
    }
  }
  return true;
}

}  // namespace kiln::wfv
