// call_signatures.cpp: match_call_signatures (compiler_internal.hpp). A module translated
// from SPIR-V (spirv_frontend.cpp) passes OpenCL C's opaque types as the translator types
// them: an image as `ptr addrspace(1)`, a sampler as `ptr addrspace(2)`, an event as `ptr`.
// The builtin library has them as target extension types, which lower_opaque_types makes
// `ptr`; the calls linked to those definitions then differ from them in pointer address
// spaces only. Such a call is rebuilt with address-space casts (no-ops on the host), so it
// matches its callee and can be inlined; any other mismatch is left alone.
#include "device/cpu/compiler/compiler_internal.hpp"

#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/InstIterator.h>
#include <llvm/IR/Instructions.h>

#include <vector>

using namespace llvm;

namespace {

bool same_but_address_spaces(Type *a, Type *b) { return a == b || (a->isPointerTy() && b->isPointerTy()); }

bool repairable(FunctionType *call, FunctionType *callee) {
  if (call->getNumParams() != callee->getNumParams() || call->isVarArg() != callee->isVarArg()) return false;
  if (!same_but_address_spaces(call->getReturnType(), callee->getReturnType())) return false;
  for (unsigned i = 0; i < call->getNumParams(); i++)
    if (!same_but_address_spaces(call->getParamType(i), callee->getParamType(i))) return false;
  return true;
}

} // namespace

namespace kiln {

void match_call_signatures(Module &m) {
  std::vector<CallInst *> calls;
  for (Function &f : m)
    for (Instruction &i : instructions(f))
      if (auto *call = dyn_cast<CallInst>(&i))
        if (auto *callee = dyn_cast<Function>(call->getCalledOperand())) // getCalledFunction(): null when mismatched
          if (call->getFunctionType() != callee->getFunctionType() &&
              repairable(call->getFunctionType(), callee->getFunctionType()))
            calls.push_back(call);
  for (CallInst *call : calls) {
    auto *callee = cast<Function>(call->getCalledOperand());
    FunctionType *type = callee->getFunctionType();
    IRBuilder<> b(call);
    std::vector<Value *> args;
    for (unsigned i = 0; i < call->arg_size(); i++) {
      Value *arg = call->getArgOperand(i);
      Type *wanted = i < type->getNumParams() ? type->getParamType(i) : arg->getType();
      args.push_back(arg->getType() == wanted ? arg : b.CreateAddrSpaceCast(arg, wanted));
    }
    CallInst *repaired = b.CreateCall(type, callee, args);
    repaired->setCallingConv(call->getCallingConv());
    repaired->setAttributes(call->getAttributes());
    repaired->setTailCallKind(call->getTailCallKind());
    repaired->copyMetadata(*call);
    Value *result = repaired;
    if (!call->getType()->isVoidTy() && call->getType() != type->getReturnType())
      result = b.CreateAddrSpaceCast(repaired, call->getType());
    if (!call->getType()->isVoidTy()) call->replaceAllUsesWith(result);
    repaired->takeName(call);
    call->eraseFromParent();
  }
}

} // namespace kiln
