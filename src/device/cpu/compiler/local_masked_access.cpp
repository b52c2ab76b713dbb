// local_masked_access.cpp: lower_local_masked_accesses (local_masked_access.hpp).
//
// Why: x86 without AVX-512 has no cheap masked store. VMASKMOVPS stores are microcoded on
// AMD Zen 2/3, and a load that reads what one just wrote cannot take the value from the
// store buffer; in the barrier reduction (each level's loads read the previous level's
// masked stores) the 2-core EPYC spent 60 % of the kernel on three such instructions.
// Masks of these loops are also mostly empty (`lid < s` for small s), which the test of
// any active lane skips.
//
// Why it is correct for local memory only: the lanes that are off are written back with
// the values just read. Nothing else can write them meanwhile, since the work-items of a
// group all run on the thread that owns the block (a global buffer is shared with the
// other threads). The block has KILN_LOCAL_MEM_PADDING bytes on each side (kernel_abi.h),
// so a vector with one lane in the block stays within the thread's memory.
#include "device/cpu/compiler/local_masked_access.hpp"

#include "device/cpu/compiler/compiler_internal.hpp"
#include "device/cpu/kernel_abi.h"

#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/InstIterator.h>
#include <llvm/IR/IntrinsicInst.h>
#include <llvm/Transforms/Utils/BasicBlockUtils.h>

#include <vector>

using namespace llvm;

namespace kiln {

unsigned lower_local_masked_accesses(Function &f) {
  const DataLayout &dl = f.getParent()->getDataLayout();
  std::vector<IntrinsicInst *> accesses;
  for (Instruction &inst : instructions(f)) {
    auto *ii = dyn_cast<IntrinsicInst>(&inst);
    if (!ii) continue;
    bool load = ii->getIntrinsicID() == Intrinsic::masked_load;
    if (!load && ii->getIntrinsicID() != Intrinsic::masked_store) continue;
    Value *pointer = ii->getArgOperand(load ? 0 : 1);
    Type *type = load ? ii->getType() : ii->getArgOperand(0)->getType();
    // Lanes beyond the one that is in the block stay within the padding.
    if (pointer->getType()->getPointerAddressSpace() == AS_LOCAL &&
        dl.getTypeStoreSize(type).getFixedValue() <= KILN_LOCAL_MEM_PADDING)
      accesses.push_back(ii);
  }
  for (IntrinsicInst *ii : accesses) {
    bool load = ii->getIntrinsicID() == Intrinsic::masked_load;
    Value *pointer = ii->getArgOperand(load ? 0 : 1);
    Align align = cast<ConstantInt>(ii->getArgOperand(load ? 1 : 2))->getAlignValue();
    Value *mask = ii->getArgOperand(load ? 2 : 3);
    IRBuilder<> b(ii);
    Value *any = b.CreateOrReduce(mask);
    BasicBlock *head = ii->getParent();
    Instruction *then_end = SplitBlockAndInsertIfThen(any, ii->getIterator(), false);
    b.SetInsertPoint(then_end);
    if (load) {
      Value *passthru = ii->getArgOperand(3);
      Value *whole = b.CreateAlignedLoad(ii->getType(), pointer, align);
      Value *blended = b.CreateSelect(mask, whole, passthru);
      b.SetInsertPoint(ii);
      PHINode *phi = b.CreatePHI(ii->getType(), 2);
      phi->addIncoming(blended, then_end->getParent());
      phi->addIncoming(passthru, head);
      ii->replaceAllUsesWith(phi);
    } else {
      Value *value = ii->getArgOperand(0);
      Value *old = b.CreateAlignedLoad(value->getType(), pointer, align);
      b.CreateAlignedStore(b.CreateSelect(mask, value, old), pointer, align);
    }
    ii->eraseFromParent();
  }
  return (unsigned)accesses.size();
}

}  // namespace kiln
