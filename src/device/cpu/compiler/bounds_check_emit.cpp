// bounds_check_emit.cpp: bounds::emit_checks (bounds_checks.hpp) and lower_any_lane.
//
// Accesses are guarded in runs: checked accesses of one block whose addresses can all be
// computed before the first of them (pure address arithmetic is moved up), with nothing
// between them that must not be duplicated (a barrier, a call that may touch memory):
//   head:  their tests (one per base pointer: the bytes its accesses at constant offsets
//          span); br (some work-item outside) ? slow : fast
//   fast:  the run as it was
//   slow:  a copy of the run in which each access goes to its address or, for a work-item
//          outside, to a scratch "sink" (a memory copy gets length zero; a load reads a
//          sink of zeros), and the first work-item outside is reported
//   tail:  phis of the two copies' values
// One test and branch per run instead of per access: fewer blocks for LLVM's loop passes
// (whose time grows with a loop's blocks: CTS vector_creation's kernels have hundreds of
// accesses), one branch per vector of work-items. The test is the vectorizer's uniform
// ANY_ABOVE, so under whole-function vectorization it stays a branch even inside divergent
// code (the slow copy has no branch of its own: wfv/linearize.cpp keeps such a piece) and
// the fast copy keeps plain vector accesses; the report is one call per vector
// (FIRST_LANE, LANE_VALUE, ONCE_PER_VECTOR). Scalar code gets those calls lowered to the
// work-item's own answers (lower_any_lane).
#include "device/cpu/compiler/bounds_checks.hpp"
#include "device/cpu/compiler/compiler_internal.hpp"
#include "device/cpu/compiler/wfv/wfv.hpp"

#include <llvm/Analysis/ValueTracking.h>
#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/Instructions.h>
#include <llvm/IR/IntrinsicInst.h>
#include <llvm/IR/MDBuilder.h>
#include <llvm/Transforms/Utils/BasicBlockUtils.h>
#include <llvm/Transforms/Utils/Cloning.h>
#include <llvm/Transforms/Utils/ValueMapper.h>

#include <algorithm>
#include <map>
#include <set>
#include <string>
#include <vector>

using namespace llvm;

namespace kiln::bounds {

namespace {

class Emitter {
 public:
  Emitter(Function &k, const kiln_kernel_desc &desc, const std::vector<Access> &accesses)
      : k_(k),
        desc_(desc),
        m_(*k.getParent()),
        c_(m_.getContext()),
        dl_(m_.getDataLayout()),
        i64_(Type::getInt64Ty(c_)),
        i32_(Type::getInt32Ty(c_)),
        ptr_(PointerType::get(c_, 0)) {
    for (const Access &a : accesses) {
      by_inst_[a.inst].push_back(&a);
      if (!what_of_.count(a.origin)) what_of_[a.origin] = description(a.origin);
    }
    bound_ = m_.getOrInsertFunction(KILN_INTRINSIC_MEMORY_BOUND, FunctionType::get(i64_, {i32_}, false));
    violation_ = m_.getOrInsertFunction(
        KILN_BOUNDS_VIOLATION_SYMBOL,
        FunctionType::get(Type::getVoidTy(c_), {ptr_, i64_, i64_, i64_, i32_, i64_, i64_, i64_}, false));
    any_above_ = cross_lane(wfv::ANY_ABOVE, Type::getInt1Ty(c_), {i64_, i64_});
    first_lane_ = cross_lane(wfv::FIRST_LANE, i32_, {Type::getInt1Ty(c_)});
    lane_value_ = cross_lane(wfv::LANE_VALUE, i64_, {i64_, i32_});
    invariant_ = MDNode::get(c_, {});
    unlikely_ = MDBuilder(c_).createBranchWeights(1, 1 << 20);
    // What the slow copy's accesses outside reach instead, as large as the largest access:
    // stores and atomics one (what it holds is never used), loads another, never written,
    // so that they give zero without a select per load (a select of vectors is a branch in
    // x86 code generation, whose block splitting grew quadratically with a long run).
    uint64_t largest = 1;
    for (const Access &a : accesses)
      if (auto *size = dyn_cast<ConstantInt>(a.size)) largest = std::max(largest, size->getZExtValue());
    auto sink = [&](const char *name) {
      auto *type = ArrayType::get(Type::getInt8Ty(c_), largest);
      // Not constant: a load from it must not fold into a select either.
      auto *gv = new GlobalVariable(m_, type, false, GlobalValue::InternalLinkage, Constant::getNullValue(type), name);
      gv->setAlignment(Align(64));
      gv->setMetadata(wfv::SINK_METADATA, MDNode::get(c_, {}));
      return gv;
    };
    sink_ = sink("kiln.bounds.sink");
    zeros_ = sink("kiln.bounds.zeros");
  }

  void run() {
    std::vector<BasicBlock *> blocks;
    for (BasicBlock &bb : k_) blocks.push_back(&bb);
    for (BasicBlock *bb : blocks)
      for (Instruction *from = &*bb->getFirstInsertionPt(); from;) {
        Instruction *first = nullptr, *last = nullptr;
        std::set<Instruction *> hoist;
        if (!next_run(from, first, last, hoist)) break;
        BasicBlock *tail = guard(first, last, hoist);
        from = &*tail->getFirstInsertionPt();
      }
  }

 private:
  Function &k_;
  const kiln_kernel_desc &desc_;
  Module &m_;
  LLVMContext &c_;
  const DataLayout &dl_;
  Type *i64_, *i32_, *ptr_;
  std::map<Instruction *, std::vector<const Access *>> by_inst_; // a memory copy: source, destination
  std::map<Origin, Constant *> what_of_;
  FunctionCallee bound_, violation_;
  Function *any_above_, *first_lane_, *lane_value_;
  GlobalVariable *sink_, *zeros_;
  MDNode *invariant_, *unlikely_;

  struct Extent {
    Value *base, *span;
  };
  // An access's test values (in the slow copy).
  struct Test {
    Value *offset, *size, *span, *limit, *too_large;
  };

  Function *cross_lane(const char *name, Type *result, ArrayRef<Type *> params) {
    auto *f = cast<Function>(m_.getOrInsertFunction(name, FunctionType::get(result, params, false)).getCallee());
    f->setDoesNotAccessMemory();
    f->setDoesNotThrow();
    return f;
  }

  // "kernel 'k' argument 1 'out'" or "kernel 'k' __local variable 'k.tile'", a constant the
  // violation handler keeps a pointer to.
  Constant *description(const Origin &o) {
    std::string text = "kernel '" + k_.getName().str() + "' ";
    StringRef name = o.local ? o.local->getName() : k_.getArg(o.arg)->getName();
    text += o.local ? "__local variable" : "argument " + std::to_string(o.arg);
    if (!name.empty()) text += " '" + name.str() + "'";
    auto *gv =
        new GlobalVariable(m_, ArrayType::get(Type::getInt8Ty(c_), text.size() + 1), true, GlobalValue::PrivateLinkage,
                           ConstantDataArray::getString(c_, text), "kiln.bounds.what");
    gv->setUnnamedAddr(GlobalValue::UnnamedAddr::Global);
    return gv;
  }

  // The address an access uses now (an earlier run's rewriting may have replaced the value
  // found first by a phi).
  static Value *address_of(const Access &a) {
    Instruction *i = a.inst;
    if (auto *load = dyn_cast<LoadInst>(i)) return load->getPointerOperand();
    if (auto *store = dyn_cast<StoreInst>(i)) return store->getPointerOperand();
    if (auto *rmw = dyn_cast<AtomicRMWInst>(i)) return rmw->getPointerOperand();
    if (auto *cas = dyn_cast<AtomicCmpXchgInst>(i)) return cas->getPointerOperand();
    auto *transfer = dyn_cast<MemTransferInst>(i);
    return transfer && !a.write ? transfer->getSource() : cast<MemIntrinsic>(i)->getDest();
  }

  // An access's size in bytes now: a constant, or a memory copy's length.
  static Value *size_of(const Access &a) {
    auto *mem = dyn_cast<MemIntrinsic>(a.inst);
    return mem ? mem->getLength() : a.size;
  }

  // The work-item's global id in dimension d, from the intrinsics the launcher replaces.
  Value *global_id(IRBuilder<> &b, unsigned d) {
    auto intrinsic = [&](const char *name) {
      FunctionCallee f = m_.getOrInsertFunction(name, FunctionType::get(i64_, {i32_}, false));
      return b.CreateCall(f, {b.getInt32(d)});
    };
    Value *group = b.CreateMul(intrinsic(KILN_INTRINSIC_GROUP_ID), intrinsic(KILN_INTRINSIC_ENQUEUED_LOCAL_SIZE));
    return b.CreateAdd(b.CreateAdd(group, intrinsic(KILN_INTRINSIC_LOCAL_ID)), intrinsic(KILN_INTRINSIC_GLOBAL_OFFSET));
  }

  // An origin's reachable memory, computed where it is tested: values carried from the
  // kernel's entry would live across its barriers, saved and reloaded per work-item; these
  // are the same for every work-item (the table's loads are invariant), so each region's
  // code reads them once.
  Extent extent_at(IRBuilder<> &b, const Origin &o) {
    if (o.local) // a variable's size is known; the launcher places it in the group's memory
      return {b.CreatePtrToInt(o.local, i64_), b.getInt64(dl_.getTypeAllocSize(o.local->getValueType()))};
    Value *args_block = b.CreateCall(bound_, {b.getInt32(KILN_BOUND_ARGS)}, "args_block");
    Value *entry = b.CreateIntToPtr(
        b.CreateAdd(args_block, b.getInt64(kiln_bounds_table_offset(desc_.args_block_size) + 16 * (uint64_t)o.arg)),
        ptr_);
    LoadInst *below = b.CreateAlignedLoad(i64_, entry, Align(8), "below");
    LoadInst *span = b.CreateAlignedLoad(i64_, b.CreateConstInBoundsGEP1_64(i64_, entry, 1), Align(8), "span");
    below->setMetadata(LLVMContext::MD_invariant_load, invariant_);
    span->setMetadata(LLVMContext::MD_invariant_load, invariant_);
    // The argument's address minus `below`: where the memory it may reach starts.
    return {b.CreateSub(b.CreatePtrToInt(k_.getArg((unsigned)o.arg), i64_), below, "reach"), span};
  }

  // Computes the same for every execution, touching no memory: may move.
  static bool pure(const Instruction &i) {
    if (auto *call = dyn_cast<CallBase>(&i)) {
      const Function *f = call->getCalledFunction();
      return f && kiln::is_work_item_intrinsic(f->getName());
    }
    return !i.mayReadOrWriteMemory() && !i.mayHaveSideEffects() && !isa<PHINode>(i) && !isa<AllocaInst>(i) &&
           !i.isTerminator();
  }

  // May be in both copies of a run: not a barrier or another call that may touch memory.
  static bool copyable(const Instruction &i) {
    if (i.isTerminator() || isa<PHINode>(i) || isa<AllocaInst>(i)) return false;
    auto *call = dyn_cast<CallBase>(&i);
    if (!call) return true;
    const Function *f = call->getCalledFunction();
    if (!f) return false;
    if (kiln::is_work_item_intrinsic(f->getName()) || call->doesNotAccessMemory()) return true;
    return f->isIntrinsic() && !call->isConvergent(); // memory copies, lifetimes, debug info
  }

  // Whether v can be computed before `first`, moving pure instructions of the run up (added
  // to `hoist`).
  bool available(Value *v, Instruction *first, std::set<Instruction *> &hoist) {
    auto *i = dyn_cast<Instruction>(v);
    if (!i || i->getParent() != first->getParent() || i->comesBefore(first) || hoist.count(i)) return true;
    if (i == first || !pure(*i)) return false;
    for (Value *op : i->operands())
      if (!available(op, first, hoist)) return false;
    hoist.insert(i);
    return true;
  }

  // The next run from `from` on in its block: its first and last accesses and what must move
  // above the first. False when the block has no more checked access.
  bool next_run(Instruction *from, Instruction *&first, Instruction *&last, std::set<Instruction *> &hoist) {
    for (Instruction *i = from; i; i = i->getNextNode()) {
      auto it = by_inst_.find(i);
      if (!first) {
        if (it != by_inst_.end()) first = last = i;
        continue;
      }
      if (it == by_inst_.end()) {
        if (!copyable(*i)) break;
        continue;
      }
      std::set<Instruction *> trial = hoist;
      bool ok = true;
      for (const Access *a : it->second) {
        ok = ok && available(address_of(*a), first, trial);
        if (auto *mem = dyn_cast<MemIntrinsic>(i)) ok = ok && available(mem->getLength(), first, trial);
      }
      if (!ok) break;
      hoist.swap(trial);
      last = i;
    }
    return first != nullptr;
  }

  // Guards the run [first, last]; returns the block after it.
  BasicBlock *guard(Instruction *first, Instruction *last, const std::set<Instruction *> &hoist) {
    std::vector<Instruction *> members;
    for (Instruction *i = first;; i = i->getNextNode()) {
      if (by_inst_.count(i)) members.push_back(i);
      if (i == last) break;
    }
    std::vector<Instruction *> up;
    for (Instruction *i = first; i != last; i = i->getNextNode())
      if (hoist.count(i)) up.push_back(i);
    for (Instruction *i : up) i->moveBefore(first); // in their order: operands before uses
    // The tests, in the head: one per origin and base pointer, over the bytes its accesses
    // at constant offsets from the base span together (a stencil's in[i - 1], in[i],
    // in[i + 1]: one test); an access of a variable size (a memory copy) alone.
    IRBuilder<> b(first);
    std::map<Origin, Extent> extents;
    struct Range {
      Origin origin;
      Value *base;
      int64_t low, high;  // bytes from base, [low, high)
      Value *size;        // or a variable size from base
    };
    std::vector<Range> ranges;
    std::map<std::pair<Origin, Value *>, size_t> range_of;
    for (Instruction *member : members)
      for (const Access *a : by_inst_[member]) {
        if (!extents.count(a->origin)) extents.emplace(a->origin, extent_at(b, a->origin));
        auto *size = dyn_cast<ConstantInt>(a->size);
        if (isa<MemIntrinsic>(member) || !size || size->getZExtValue() > (uint64_t)INT32_MAX) {
          ranges.push_back({a->origin, address_of(*a), 0, 0, b.CreateZExtOrTrunc(size_of(*a), i64_)});
          continue;
        }
        int64_t offset = 0;
        Value *base = GetPointerBaseWithConstantOffset(address_of(*a), offset, dl_);
        int64_t end = offset + (int64_t)size->getZExtValue();
        auto [it, added] = range_of.try_emplace({a->origin, base}, ranges.size());
        if (added) {
          ranges.push_back({a->origin, base, offset, end, nullptr});
        } else {
          ranges[it->second].low = std::min(ranges[it->second].low, offset);
          ranges[it->second].high = std::max(ranges[it->second].high, end);
        }
      }
    Value *some_outside = nullptr;
    for (const Range &r : ranges) {
      const Extent &e = extents.at(r.origin);
      Value *start = b.CreateSub(b.CreatePtrToInt(r.base, i64_), e.base);
      if (!r.size) start = b.CreateAdd(start, b.getInt64((uint64_t)r.low));
      Value *bytes = r.size ? r.size : b.getInt64((uint64_t)(r.high - r.low));
      // Inside when bytes <= span and start <= span - bytes, counted from the reachable
      // memory's start (unsigned: an address before it wraps to a large offset).
      Value *outside = b.CreateOr(b.CreateICmpUGT(bytes, e.span),
                                  b.CreateCall(any_above_, {start, b.CreateSub(e.span, bytes, "bounds.limit")}));
      some_outside = some_outside ? b.CreateOr(some_outside, outside) : outside;
    }
    // head -> fast | slow -> tail.
    BasicBlock *head = first->getParent();
    BasicBlock *fast = SplitBlock(head, first);
    BasicBlock *tail = SplitBlock(fast, last->getNextNode());
    ValueToValueMapTy copies;
    BasicBlock *slow = CloneBasicBlock(fast, copies, ".bounds.slow", &k_);
    SmallVector<BasicBlock *, 1> slow_blocks{slow};
    remapInstructionsInBlocks(slow_blocks, copies);
    head->getTerminator()->eraseFromParent();
    BranchInst::Create(slow, fast, some_outside, head)->setMetadata(LLVMContext::MD_prof, unlikely_);
    IRBuilder<> tb(tail, tail->begin());
    for (Instruction &i : *fast) {
      if (i.isTerminator() || i.getType()->isVoidTy()) continue;
      std::vector<Use *> later;
      for (Use &u : i.uses())
        if (cast<Instruction>(u.getUser())->getParent() != fast) later.push_back(&u);
      if (later.empty()) continue;
      PHINode *phi = tb.CreatePHI(i.getType(), 2, i.getName());
      phi->addIncoming(&i, fast);
      phi->addIncoming(copies[&i], slow);
      for (Use *u : later) u->set(phi);
    }
    for (Instruction *member : members) make_safe(cast<Instruction>(copies[member]), by_inst_[member], extents);
    return tail;
  }

  // The slow copy of an access: made at its address where inside, at the sink otherwise
  // (a load or atomic there gives zero); the first work-item outside reported.
  void make_safe(Instruction *copy, const std::vector<const Access *> &list, const std::map<Origin, Extent> &extents) {
    IRBuilder<> f(copy);
    Value *inside = nullptr;
    std::vector<Value *> fits;
    std::vector<Test> tests;
    for (const Access *a : list) {  // its address is the original's: computed before the run
      const Extent &e = extents.at(a->origin);
      Test t;
      t.offset = f.CreateSub(f.CreatePtrToInt(address_of(*a), i64_), e.base, "bounds.offset");
      t.size = f.CreateZExtOrTrunc(size_of(*a), i64_);
      t.span = e.span;
      t.limit = f.CreateSub(t.span, t.size, "bounds.limit");
      t.too_large = f.CreateICmpUGT(t.size, t.span);
      tests.push_back(t);
      fits.push_back(f.CreateAnd(f.CreateNot(t.too_large), f.CreateICmpULE(t.offset, t.limit)));
      inside = inside ? f.CreateAnd(inside, fits.back()) : fits.back();
    }
    auto at_sink = [&](Value *address, GlobalVariable *sink) {
      Constant *cast = ConstantExpr::getPointerBitCastOrAddrSpaceCast(sink, address->getType());
      return f.CreateSelect(inside, address, cast, "bounds.address");
    };
    if (auto *load = dyn_cast<LoadInst>(copy)) {
      load->setOperand(load->getPointerOperandIndex(), at_sink(load->getPointerOperand(), zeros_));
    } else if (auto *store = dyn_cast<StoreInst>(copy)) {
      store->setOperand(store->getPointerOperandIndex(), at_sink(store->getPointerOperand(), sink_));
    } else if (auto *rmw = dyn_cast<AtomicRMWInst>(copy)) {
      rmw->setOperand(rmw->getPointerOperandIndex(), at_sink(rmw->getPointerOperand(), sink_));
    } else if (auto *cas = dyn_cast<AtomicCmpXchgInst>(copy)) {
      cas->setOperand(cas->getPointerOperandIndex(), at_sink(cas->getPointerOperand(), sink_));
    } else if (auto *mem = dyn_cast<MemIntrinsic>(copy)) {
      Value *length = mem->getLength();
      mem->setLength(f.CreateSelect(inside, length, Constant::getNullValue(length->getType()), "bounds.length"));
    }
    f.SetInsertPoint(copy->getNextNode());
    if (!copy->getType()->isVoidTy() && !isa<LoadInst>(copy)) {  // an atomic's old value
      Value *zero = Constant::getNullValue(copy->getType());
      auto *result = cast<SelectInst>(f.CreateSelect(inside, zero, zero));
      copy->replaceAllUsesWith(result);
      result->setOperand(1, copy);
    }
    // The report (the handler ignores a null description): the list's first access outside
    // (a memory copy's source before its destination), of the first work-item outside.
    Value *what = nullptr, *offset = nullptr, *size = nullptr, *span = nullptr, *write = nullptr;
    for (size_t n = list.size(); n-- > 0;) {
      const Access *a = list[n];
      const Test &t = tests[n];
      Value *bad = f.CreateNot(fits[n]);
      auto pick = [&](Value *mine, Value *later) { return later ? f.CreateSelect(bad, mine, later) : mine; };
      what = pick(what_of_[a->origin], what);
      offset = pick(t.offset, offset);
      size = pick(t.size, size);
      span = pick(t.span, span);
      write = pick(f.getInt32(a->write), write);
    }
    what = f.CreateSelect(inside, ConstantPointerNull::get(cast<PointerType>(ptr_)), what);
    Value *lane = f.CreateCall(first_lane_, {f.CreateNot(inside)});
    auto of_lane = [&](Value *v) {
      if (isa<Constant>(v)) return v;
      Type *t = v->getType();
      Value *wide = t->isPointerTy() ? f.CreatePtrToInt(v, i64_) : f.CreateZExtOrBitCast(v, i64_);
      Value *x = f.CreateCall(lane_value_, {wide, lane});
      return t->isPointerTy() ? f.CreateIntToPtr(x, t) : f.CreateTrunc(x, t);
    };
    CallInst *report =
        f.CreateCall(violation_, {of_lane(what), of_lane(offset), of_lane(size), of_lane(span), of_lane(write),
                                  of_lane(global_id(f, 0)), of_lane(global_id(f, 1)), of_lane(global_id(f, 2))});
    report->addFnAttr(Attribute::get(c_, wfv::ONCE_PER_VECTOR));
  }
};

} // namespace

void emit_checks(Function &k, const kiln_kernel_desc &desc, const std::vector<Access> &accesses) {
  Emitter(k, desc, accesses).run();
}

} // namespace kiln::bounds

namespace kiln {

void lower_any_lane(Module &m) {
  // One work-item: "any lane" is its own answer.
  for (const char *name : {wfv::ANY_LANE, wfv::ANY_ABOVE, wfv::FIRST_LANE, wfv::LANE_VALUE}) {
    Function *test = m.getFunction(name);
    if (!test) continue;
    for (User *u : make_early_inc_range(test->users()))
      if (auto *call = dyn_cast<CallInst>(u)) {
        Value *own = call->getArgOperand(0);
        if (test->getName() == wfv::ANY_ABOVE)
          own = IRBuilder<>(call).CreateICmpUGT(call->getArgOperand(0), call->getArgOperand(1));
        else if (test->getName() == wfv::FIRST_LANE)
          own = ConstantInt::get(call->getType(), 0);
        call->replaceAllUsesWith(own);
        call->eraseFromParent();
      }
    if (test->use_empty()) test->eraseFromParent();
  }
}

} // namespace kiln
