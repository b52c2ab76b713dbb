// masked_global_loads.cpp: lower_masked_global_loads (masked_global_loads.hpp).
//
// Why: without AVX-512 a masked load is VMASKMOVPS, slow on AMD Zen: the stencil's halo
// loads (one active lane in 16) held 15 % of its time on the 2-core EPYC. A whole-vector
// load also reads the elements of the lanes that are off, and cannot fault when the vector
// lies within one page that an active lane reads (pages are mapped whole): true of 63 of
// every 64 positions of a 64-byte vector. The lanes that are off take the pass-through
// value, so the kernel sees the same vector. Loads only: a whole-vector store would write
// elements that belong to other work-items or other threads.
#include "device/cpu/compiler/masked_global_loads.hpp"

#include "device/cpu/compiler/compiler_internal.hpp"

#include <llvm/ADT/StringMap.h>
#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/InstIterator.h>
#include <llvm/IR/IntrinsicInst.h>
#include <llvm/TargetParser/Host.h>
#include <llvm/Transforms/Utils/BasicBlockUtils.h>

#include <vector>

using namespace llvm;

namespace kiln {

namespace {
constexpr uint64_t PAGE_SIZE = 4096;  // the smallest page x86-64 maps
}

unsigned lower_masked_global_loads(Function &f) {
  static const bool avx512 = sys::getHostCPUFeatures().lookup("avx512f");
  if (avx512) return 0;  // masked loads are plain loads with a mask register there
  const DataLayout &dl = f.getParent()->getDataLayout();
  std::vector<IntrinsicInst *> loads;
  for (Instruction &inst : instructions(f))
    if (auto *ii = dyn_cast<IntrinsicInst>(&inst); ii && ii->getIntrinsicID() == Intrinsic::masked_load &&
                                                   ii->getArgOperand(0)->getType()->getPointerAddressSpace() != AS_LOCAL &&
                                                   dl.getTypeStoreSize(ii->getType()).getFixedValue() <= PAGE_SIZE)
      loads.push_back(ii);
  for (IntrinsicInst *load : loads) {
    Value *pointer = load->getArgOperand(0), *mask = load->getArgOperand(2), *passthru = load->getArgOperand(3);
    Align align = cast<ConstantInt>(load->getArgOperand(1))->getAlignValue();
    uint64_t bytes = dl.getTypeStoreSize(load->getType()).getFixedValue();
    IRBuilder<> b(load);
    Value *offset = b.CreateAnd(b.CreatePtrToInt(pointer, b.getInt64Ty()), b.getInt64(PAGE_SIZE - 1));
    Value *in_page = b.CreateICmpULE(offset, b.getInt64(PAGE_SIZE - bytes));
    Instruction *then_end, *else_end;
    SplitBlockAndInsertIfThenElse(b.CreateAnd(b.CreateOrReduce(mask), in_page), load->getIterator(), &then_end,
                                  &else_end);
    b.SetInsertPoint(then_end);
    Value *whole = b.CreateSelect(mask, b.CreateAlignedLoad(load->getType(), pointer, align), passthru);
    b.SetInsertPoint(load);
    PHINode *phi = b.CreatePHI(load->getType(), 2);
    load->replaceAllUsesWith(phi);
    load->moveBefore(else_end);
    phi->addIncoming(whole, then_end->getParent());
    phi->addIncoming(load, else_end->getParent());
  }
  return (unsigned)loads.size();
}

}  // namespace kiln
