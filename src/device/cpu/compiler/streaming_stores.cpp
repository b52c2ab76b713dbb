// streaming_stores.cpp: add_streaming_stores (streaming_stores.hpp).
//
// Why: an ordinary store to a line not in the cache first reads the line (write-allocate),
// so c[i] = a[i] + b[i] over buffers larger than the cache moves four lines per three
// touched; a non-temporal store writes the line without reading it. On the 2-core EPYC
// (32 MiB L3) the vectorized vadd loop over 64 MiB buffers ran in 0.70x the time with
// aligned non-temporal stores (0.77x with unaligned ones, which x86 splits into 8-byte
// MOVNTSD/MOVNTI). On data the cache holds they would be slower (the next kernel reads
// from memory), so the runtime asks for them per launch (ndrange.c), and the launcher
// keeps both stores behind a branch the predictor always gets right, instead of a second
// launcher (twice the code generation for every such kernel).
#include "device/cpu/compiler/streaming_stores.hpp"

#include "device/cpu/compiler/compiler_internal.hpp"
#include "device/cpu/kernel_abi.h"

#include <llvm/Analysis/AssumptionCache.h>
#include <llvm/Analysis/LoopInfo.h>
#include <llvm/Analysis/ScalarEvolution.h>
#include <llvm/Analysis/ScalarEvolutionExpressions.h>
#include <llvm/Analysis/TargetLibraryInfo.h>
#include <llvm/IR/Dominators.h>
#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/InstIterator.h>
#include <llvm/IR/Instructions.h>
#include <llvm/IR/IntrinsicsX86.h>
#include <llvm/TargetParser/Triple.h>
#include <llvm/Transforms/Utils/BasicBlockUtils.h>

#include <algorithm>
#include <cstddef>
#include <map>
#include <set>
#include <utility>
#include <vector>

using namespace llvm;

namespace {

// Non-temporal stores are weakly ordered: a kernel that synchronizes through memory
// (atomics, fences) or calls code of the program (whose stores and atomics this pass
// does not see) keeps ordinary stores.
bool unsuitable(Function &f) {
  for (Instruction &i : instructions(f)) {
    if (isa<FenceInst>(i) || isa<AtomicRMWInst>(i) || isa<AtomicCmpXchgInst>(i)) return true;
    if (auto *load = dyn_cast<LoadInst>(&i); load && load->isAtomic()) return true;
    if (auto *store = dyn_cast<StoreInst>(&i); store && store->isAtomic()) return true;
    if (auto *call = dyn_cast<CallBase>(&i)) {
      if (call->isInlineAsm()) return true;
      Function *callee = call->getCalledFunction();
      if (!callee || !callee->isDeclaration()) return true;
    }
  }
  return false;
}

constexpr int64_t CACHE_LINE = 64;  // x86's

struct Part {
  StoreInst *store;
  const SCEV *start;
  uint64_t size;
};

// Alignment the non-temporal copy asks for: the store's size up to a 64-byte vector
// (wider ones are split into such parts).
uint64_t wanted_alignment(uint64_t size) { return std::min<uint64_t>(size, 64); }

// Whether the parts, one buffer's stores in one loop, write [start, start + step) of each
// iteration exactly once, a cache line or more: the stream covers whole lines, which the
// write-combining buffers then send without reading them. Loops writing less per iteration
// are left alone: they are the expensive ones (the vectorizer interleaves cheap bodies),
// where the stores cost nothing to speak of, and a line filled over several long
// iterations may leave a write-combining buffer half written. On the 2-core EPYC,
// kiln_bench's sin(x) * exp(y) (three 32 MiB buffers, one 32-byte store per iteration) gave
// 710 Melem/s with non-temporal stores, 737 without (medians of 6 alternating runs).
bool tiles_step(ScalarEvolution &se, std::vector<Part> &parts, const APInt &step) {
  if (step.getSignificantBits() > 63 || step.getSExtValue() < CACHE_LINE) return false;
  std::vector<std::pair<int64_t, uint64_t>> spans;  // offset from the first part, size
  for (const Part &part : parts) {
    auto *offset = dyn_cast<SCEVConstant>(se.getMinusSCEV(part.start, parts.front().start));
    if (!offset || offset->getAPInt().getSignificantBits() > 63) return false;
    spans.emplace_back(offset->getAPInt().getSExtValue(), part.size);
  }
  std::sort(spans.begin(), spans.end());
  int64_t end = spans.front().first;
  for (auto &[offset, size] : spans) {
    if (offset != end) return false;  // a gap or an overlap
    end += (int64_t)size;
  }
  return end - spans.front().first == step.getSExtValue();
}

// The stores of `loop` (not of its inner loops) that stream, with the alignment each wants.
void find_streams(Loop &loop, LoopInfo &li, DominatorTree &dt, ScalarEvolution &se, const DataLayout &dl,
                  std::vector<std::pair<StoreInst *, uint64_t>> &chosen) {
  BasicBlock *latch = loop.getLoopLatch();
  if (!latch) return;
  std::map<const SCEV *, std::vector<Part>> streams;  // by buffer (the pointers' SCEV base)
  std::map<const SCEV *, const SCEV *> steps;
  std::set<const SCEV *> touched_otherwise;          // buffers the loop also reads (or writes otherwise)
  for (BasicBlock *block : loop.blocks())
    for (Instruction &i : *block) {
      if (auto *call = dyn_cast<CallBase>(&i)) {
        if (!call->mayReadOrWriteMemory()) continue;
        for (Value *arg : call->args())
          if (arg->getType()->isPointerTy()) touched_otherwise.insert(se.getPointerBase(se.getSCEV(arg)));
        continue;
      }
      Value *pointer = getLoadStorePointerOperand(&i);
      if (!pointer) continue;
      const SCEV *address = se.getSCEV(pointer);
      const SCEV *base = se.getPointerBase(address);
      auto *store = dyn_cast<StoreInst>(&i);
      auto *recurrence = dyn_cast<SCEVAddRecExpr>(address);
      uint64_t size = store ? dl.getTypeStoreSize(store->getValueOperand()->getType()).getFixedValue() : 0;
      bool part = store && store->isSimple() && store->getPointerAddressSpace() == kiln::AS_GLOBAL &&
                  li.getLoopFor(block) == &loop && dt.dominates(block, latch) && size >= 4 && size <= 64 &&
                  (size & (size - 1)) == 0 && recurrence && recurrence->getLoop() == &loop &&
                  recurrence->isAffine();
      const SCEV *step = part ? recurrence->getStepRecurrence(se) : nullptr;
      auto *constant_step = dyn_cast_or_null<SCEVConstant>(step);
      if (!constant_step || !constant_step->getAPInt().isStrictlyPositive()) {
        touched_otherwise.insert(base);
        continue;
      }
      auto known = steps.emplace(base, step);
      if (known.first->second != step) touched_otherwise.insert(base);
      streams[base].push_back({store, recurrence->getStart(), size});
    }
  for (auto &[base, parts] : streams) {
    if (touched_otherwise.count(base)) continue;
    if (!tiles_step(se, parts, cast<SCEVConstant>(steps[base])->getAPInt())) continue;
    for (const Part &part : parts) chosen.emplace_back(part.store, wanted_alignment(part.size));
  }
}

}  // namespace

namespace kiln {

unsigned add_streaming_stores(Function &f) {
  Module &m = *f.getParent();
  Triple triple(m.getTargetTriple());
  if (!triple.isX86() || f.isDeclaration() || f.arg_size() < 2 || unsuitable(f)) return 0;
  const DataLayout &dl = m.getDataLayout();
  std::vector<std::pair<StoreInst *, uint64_t>> chosen;
  {
    DominatorTree dt(f);
    LoopInfo li(dt);
    TargetLibraryInfoImpl tlii(triple);
    TargetLibraryInfo tli(tlii);
    AssumptionCache ac(f);
    ScalarEvolution se(f, tli, ac, dt, li);
    for (Loop *loop : li.getLoopsInPreorder()) find_streams(*loop, li, dt, se, dl, chosen);
  }
  if (chosen.empty()) return 0;

  // Entry: whether this launch streams, as a mask per alignment: an address ANDed with it
  // is 0 only when streaming and aligned. When not streaming the mask is all ones, which
  // only a null address would pass (a store through null is undefined anyway).
  IRBuilder<> b(&*f.getEntryBlock().getFirstInsertionPt());
  Value *flags_at = b.CreateConstInBoundsGEP1_64(b.getInt8Ty(), f.getArg(1), offsetof(struct kiln_ndrange, flags));
  Value *flags = b.CreateLoad(b.getInt32Ty(), flags_at, "kiln.range.flags");
  Value *streaming = b.CreateICmpNE(b.CreateAnd(flags, KILN_NDRANGE_STREAMING_STORES), b.getInt32(0), "kiln.streaming");
  std::map<uint64_t, Value *> masks;
  for (auto &[store, alignment] : chosen)
    if (!masks.count(alignment))
      masks[alignment] = b.CreateSelect(streaming, b.getInt64(alignment - 1), b.getInt64(~uint64_t{0}), "kiln.nt.mask");

  MDNode *nontemporal = MDNode::get(f.getContext(), ConstantAsMetadata::get(b.getInt32(1)));
  for (auto &[store, alignment] : chosen) {
    b.SetInsertPoint(store);
    Value *address = b.CreatePtrToInt(store->getPointerOperand(), b.getInt64Ty());
    Value *use = b.CreateICmpEQ(b.CreateAnd(address, masks[alignment]), b.getInt64(0), "kiln.nt");
    Instruction *then_end, *else_end;
    SplitBlockAndInsertIfThenElse(use, store->getIterator(), &then_end, &else_end);
    auto *streamed = cast<StoreInst>(store->clone());
    streamed->insertBefore(then_end);
    streamed->setAlignment(std::max(store->getAlign(), Align(alignment)));
    streamed->setMetadata(LLVMContext::MD_nontemporal, nontemporal);
    store->moveBefore(else_end);
  }

  // Before every return: the streamed stores complete before the batch is reported done.
  std::vector<ReturnInst *> returns;
  for (BasicBlock &block : f)
    if (auto *ret = dyn_cast<ReturnInst>(block.getTerminator())) returns.push_back(ret);
  Function *sfence = Intrinsic::getDeclaration(&m, Intrinsic::x86_sse_sfence);
  for (ReturnInst *ret : returns) {
    Instruction *then_end = SplitBlockAndInsertIfThen(streaming, ret->getIterator(), false);
    IRBuilder<>(then_end).CreateCall(sfence);
  }
  return (unsigned)chosen.size();
}

}  // namespace kiln
