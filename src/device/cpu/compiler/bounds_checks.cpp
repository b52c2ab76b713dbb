// bounds_checks.cpp: KILN_CHECK=bounds (device/cpu/bounds_check.h). Every load, store,
// atomic and memory intrinsic of a kernel whose address derives from one of its pointer
// arguments (global, constant or local) is guarded by a test against the extent the runtime
// wrote after the argument block (kernel_abi.h's table), one through a static __local
// variable against the variable's size (unless scalar evolution proves it inside); outside
// it, the access is not made (it goes to a scratch "sink" instead; a load gives zero) and
// the violation handler is called with the argument, the offset, the size and the
// work-item's global id.
//
// The kernel is inlined (but for math functions with vector forms; its stack slots
// promoted) first, so that accesses in the builtins (vload, atomics, async copies) are
// seen with their pointer's origin. An address whose origin is not one argument or
// variable (a pointer read from memory, made from an integer, a phi of two arguments, a
// program-scope variable, private memory) is not checked.
#include "device/cpu/compiler/compiler_internal.hpp"
#include "device/cpu/compiler/wfv/wfv.hpp"
#include "device/cpu/kernel_abi.h"

#include <llvm/Analysis/AssumptionCache.h>
#include <llvm/Analysis/LoopInfo.h>
#include <llvm/Analysis/ScalarEvolution.h>
#include <llvm/Analysis/ScalarEvolutionExpressions.h>
#include <llvm/Analysis/TargetLibraryInfo.h>
#include <llvm/Analysis/ValueTracking.h>
#include <llvm/IR/Dominators.h>
#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/InstIterator.h>
#include <llvm/IR/Instructions.h>
#include <llvm/IR/IntrinsicInst.h>
#include <llvm/IR/MDBuilder.h>
#include <llvm/Passes/PassBuilder.h>
#include <llvm/Transforms/Scalar/SROA.h>
#include <llvm/TargetParser/Triple.h>
#include <llvm/Transforms/Utils/BasicBlockUtils.h>

#include <algorithm>
#include <map>
#include <vector>

using namespace llvm;

namespace {

// What an address derives from: a checked argument, or a static __local variable.
struct Origin {
  int arg = -1;                   // the argument's index
  GlobalVariable *local = nullptr;  // or the variable
  bool operator<(const Origin &o) const { return arg != o.arg ? arg < o.arg : local < o.local; }
};

// One access to check: `address` of `size` bytes (an i64 value).
struct Access {
  Instruction *inst;
  Value *address;
  Value *size;
  Origin origin;
  bool write;
};

bool checked_kind(enum kiln_arg_kind kind) {
  return kind == KILN_ARG_GLOBAL_PTR || kind == KILN_ARG_CONSTANT_PTR || kind == KILN_ARG_LOCAL_PTR;
}

// Where `p` derives from, when that is exactly one checked argument or __local variable.
bool origin(Value *p, const Function &k, const kiln_kernel_desc &desc, Origin &out) {
  SmallVector<const Value *, 4> objects;
  getUnderlyingObjects(p, objects, nullptr, 0);
  if (objects.size() != 1) return false;
  if (auto *gv = dyn_cast<GlobalVariable>(objects[0]);
      gv && gv->getAddressSpace() == kiln::AS_LOCAL && gv->getValueType()->isSized()) {
    out.local = const_cast<GlobalVariable *>(gv);
    return true;
  }
  auto *arg = dyn_cast<Argument>(objects[0]);
  if (!arg || arg->getParent() != &k || arg->getArgNo() >= desc.num_args) return false;
  if (!checked_kind(desc.args[arg->getArgNo()].kind)) return false;
  out.arg = (int)arg->getArgNo();
  return true;
}

std::vector<Access> find_accesses(Function &k, const kiln_kernel_desc &desc) {
  const DataLayout &dl = k.getParent()->getDataLayout();
  Type *i64 = Type::getInt64Ty(k.getContext());
  std::vector<Access> found;
  auto add = [&](Instruction &inst, Value *p, Value *size, bool write) {
    Origin o;
    if (origin(p, k, desc, o)) found.push_back({&inst, p, size, o, write});
  };
  auto bytes = [&](Type *t) { return ConstantInt::get(i64, dl.getTypeStoreSize(t).getFixedValue()); };
  for (Instruction &inst : instructions(k)) {
    if (auto *load = dyn_cast<LoadInst>(&inst)) {
      add(inst, load->getPointerOperand(), bytes(load->getType()), false);
    } else if (auto *store = dyn_cast<StoreInst>(&inst)) {
      add(inst, store->getPointerOperand(), bytes(store->getValueOperand()->getType()), true);
    } else if (auto *rmw = dyn_cast<AtomicRMWInst>(&inst)) {
      add(inst, rmw->getPointerOperand(), bytes(rmw->getValOperand()->getType()), true);
    } else if (auto *cas = dyn_cast<AtomicCmpXchgInst>(&inst)) {
      add(inst, cas->getPointerOperand(), bytes(cas->getNewValOperand()->getType()), true);
    } else if (auto *mem = dyn_cast<MemIntrinsic>(&inst)) {
      // Checked as two accesses, source first; the length is the same for both.
      IRBuilder<> b(mem);
      Value *length = b.CreateZExtOrTrunc(mem->getLength(), i64);
      if (auto *transfer = dyn_cast<MemTransferInst>(mem)) add(inst, transfer->getSource(), length, false);
      add(inst, mem->getDest(), length, true);
    }
  }
  return found;
}

// "kernel 'k' argument 1 'out'" or "kernel 'k' __local variable 'k.tile'", a constant the
// violation handler keeps a pointer to.
Constant *description(Module &m, const Function &k, const Origin &o) {
  std::string text = "kernel '" + k.getName().str() + "' ";
  StringRef name = o.local ? o.local->getName() : k.getArg(o.arg)->getName();
  text += o.local ? "__local variable" : "argument " + std::to_string(o.arg);
  if (!name.empty()) text += " '" + name.str() + "'";
  auto *gv = new GlobalVariable(m, ArrayType::get(Type::getInt8Ty(m.getContext()), text.size() + 1), true,
                                GlobalValue::PrivateLinkage, ConstantDataArray::getString(m.getContext(), text),
                                "kiln.bounds.what");
  gv->setUnnamedAddr(GlobalValue::UnnamedAddr::Global);
  return gv;
}

// The work-item's global id in dimension d, from the intrinsics the launcher replaces.
Value *global_id(IRBuilder<> &b, Module &m, unsigned d) {
  Type *i64 = b.getInt64Ty();
  auto intrinsic = [&](const char *name) {
    FunctionCallee f = m.getOrInsertFunction(name, FunctionType::get(i64, {b.getInt32Ty()}, false));
    return b.CreateCall(f, {b.getInt32(d)});
  };
  Value *group = b.CreateMul(intrinsic(KILN_INTRINSIC_GROUP_ID), intrinsic(KILN_INTRINSIC_ENQUEUED_LOCAL_SIZE));
  return b.CreateAdd(b.CreateAdd(group, intrinsic(KILN_INTRINSIC_LOCAL_ID)), intrinsic(KILN_INTRINSIC_GLOBAL_OFFSET));
}

// With a required work-group size, the local ids' ranges (as !range metadata of the calls,
// which the launcher replaces), so that index arithmetic over them has known bounds.
void mark_local_id_ranges(Function &k, const kiln_kernel_desc &desc) {
  if (!desc.reqd_work_group_size[0]) return;
  for (Instruction &inst : instructions(k))
    if (auto *call = dyn_cast<CallInst>(&inst))
      if (Function *f = call->getCalledFunction(); f && f->getName() == KILN_INTRINSIC_LOCAL_ID)
        if (auto *d = dyn_cast<ConstantInt>(call->getArgOperand(0)); d && d->getZExtValue() < 3) {
          auto *t = cast<IntegerType>(call->getType());
          MDBuilder md(k.getContext());
          call->setMetadata(LLVMContext::MD_range,
                            md.createRange(APInt(t->getBitWidth(), 0),
                                           APInt(t->getBitWidth(), desc.reqd_work_group_size[d->getZExtValue()])));
        }
}

// Accesses of a static __local array that scalar evolution proves inside it (indices from
// loop counters and local ids with a required work-group size: a tile's loads and stores)
// need no check.
void drop_proven_accesses(Function &k, std::vector<Access> &accesses) {
  const DataLayout &dl = k.getParent()->getDataLayout();
  TargetLibraryInfoImpl tlii(Triple(k.getParent()->getTargetTriple()));
  TargetLibraryInfo tli(tlii);
  AssumptionCache ac(k);
  DominatorTree dt(k);
  LoopInfo li(dt);
  ScalarEvolution se(k, tli, ac, dt, li);
  auto proven = [&](const Access &a) {
    auto *size = dyn_cast<ConstantInt>(a.size);
    if (!a.origin.local || !size) return false;
    const SCEV *offset = se.getMinusSCEV(se.getSCEV(a.address), se.getSCEV(a.origin.local));
    if (isa<SCEVCouldNotCompute>(offset)) return false;
    ConstantRange range = se.getSignedRange(offset);
    // An affine offset in a loop whose header is its only exit: its body runs for
    // iterations 0 .. max backedge-taken count - 1 (SCEV's range counts the exiting one).
    if (auto *ar = dyn_cast<SCEVAddRecExpr>(offset); ar && ar->isAffine()) {
      const Loop *l = ar->getLoop();
      BasicBlock *bb = a.inst->getParent();
      auto *step = dyn_cast<SCEVConstant>(ar->getStepRecurrence(se));
      auto *count = dyn_cast<SCEVConstant>(se.getConstantMaxBackedgeTakenCount(l));
      if (step && count && !count->getValue()->isZero() && l->getExitingBlock() == l->getHeader() &&
          bb != l->getHeader() && l->contains(bb) && count->getAPInt().getActiveBits() < 32) {
        unsigned w = range.getBitWidth();
        ConstantRange iterations(APInt(w, 0), APInt(w, count->getAPInt().getZExtValue()));  // [0, count - 1]
        range = se.getSignedRange(ar->getStart()).add(iterations.multiply(ConstantRange(step->getAPInt())));
      }
    }
    APInt span(range.getBitWidth(), dl.getTypeAllocSize(a.origin.local->getValueType()));
    APInt bytes(range.getBitWidth(), size->getZExtValue());
    return !range.isFullSet() && range.getSignedMin().sge(0) && span.uge(bytes) &&
           range.getSignedMax().sle(span - bytes);
  };
  accesses.erase(std::remove_if(accesses.begin(), accesses.end(), proven), accesses.end());
}

}  // namespace

namespace kiln {

bool add_bounds_checks(Function &k, const kiln_kernel_desc &desc, std::string &error) {
  // Math calls with vector forms (vector_math.cpp) take no pointer to check; inlined, they
  // would lose those forms.
  if (!inline_all(k, error, [](const CallBase &call) { return call.hasFnAttr("vector-function-abi-variant"); }))
    return false;
  // Arguments and addresses out of their stack slots (clang's unoptimized code keeps them there).
  run_function_passes(k, [](PassBuilder &, FunctionPassManager &fpm) { fpm.addPass(SROAPass(SROAOptions::PreserveCFG)); });
  mark_local_id_ranges(k, desc);
  std::vector<Access> accesses = find_accesses(k, desc);
  drop_proven_accesses(k, accesses);
  if (accesses.empty()) return true;
  Module &m = *k.getParent();
  LLVMContext &c = m.getContext();
  Type *i64 = Type::getInt64Ty(c), *i32 = Type::getInt32Ty(c), *ptr = PointerType::get(c, 0);

  // An origin's reachable memory, computed where it is tested: values carried from the
  // kernel's entry would live across its barriers, saved and reloaded per work-item; these
  // are the same for every work-item (the table's loads are invariant), so each region's
  // code reads them once.
  FunctionCallee bound = m.getOrInsertFunction(KILN_INTRINSIC_MEMORY_BOUND, FunctionType::get(i64, {i32}, false));
  const DataLayout &dl = m.getDataLayout();
  MDNode *invariant = MDNode::get(c, {});
  struct Extent {
    Value *base, *span;
  };
  auto extent_at = [&](IRBuilder<> &b, const Origin &o) {
    if (o.local)  // a variable's size is known; the launcher places it in the group's memory
      return Extent{b.CreatePtrToInt(o.local, i64), b.getInt64(dl.getTypeAllocSize(o.local->getValueType()))};
    Value *args_block = b.CreateCall(bound, {b.getInt32(KILN_BOUND_ARGS)}, "args_block");
    Value *entry = b.CreateIntToPtr(
        b.CreateAdd(args_block, b.getInt64(kiln_bounds_table_offset(desc.args_block_size) + 16 * (uint64_t)o.arg)), ptr);
    LoadInst *below = b.CreateAlignedLoad(i64, entry, Align(8), "below");
    LoadInst *span = b.CreateAlignedLoad(i64, b.CreateConstInBoundsGEP1_64(i64, entry, 1), Align(8), "span");
    below->setMetadata(LLVMContext::MD_invariant_load, invariant);
    span->setMetadata(LLVMContext::MD_invariant_load, invariant);
    // The argument's address minus `below`: where the memory it may reach starts.
    return Extent{b.CreateSub(b.CreatePtrToInt(k.getArg((unsigned)o.arg), i64), below, "reach"), span};
  };
  std::map<Origin, Constant *> what_of;
  for (const Access &a : accesses)
    if (!what_of.count(a.origin)) what_of[a.origin] = description(m, k, a.origin);

  FunctionCallee violation = m.getOrInsertFunction(
      KILN_BOUNDS_VIOLATION_SYMBOL,
      FunctionType::get(Type::getVoidTy(c), {ptr, i64, i64, i64, i32, i64, i64, i64}, false));
  MDNode *unlikely = MDBuilder(c).createBranchWeights(1, 1 << 20);
  Function *any_above = cast<Function>(
      m.getOrInsertFunction(wfv::ANY_ABOVE, FunctionType::get(Type::getInt1Ty(c), {i64, i64}, false)).getCallee());
  any_above->setDoesNotAccessMemory();
  any_above->setDoesNotThrow();
  // A memory intrinsic checked twice guards its copy with both tests: group by instruction.
  std::map<Instruction *, std::vector<const Access *>> by_inst;
  std::vector<Instruction *> order;
  for (const Access &a : accesses) {
    if (!by_inst.count(a.inst)) order.push_back(a.inst);
    by_inst[a.inst].push_back(&a);
  }
  // Where a slow path's access goes for a work-item outside: a scratch block as large as
  // the largest access (a memory copy gets length zero instead). What it holds is never used.
  uint64_t largest = 1;
  for (const Access &a : accesses)
    if (auto *size = dyn_cast<ConstantInt>(a.size)) largest = std::max(largest, size->getZExtValue());
  auto *sink_type = ArrayType::get(Type::getInt8Ty(c), largest);
  auto *sink = new GlobalVariable(m, sink_type, false, GlobalValue::InternalLinkage, Constant::getNullValue(sink_type),
                                  "kiln.bounds.sink");
  sink->setAlignment(Align(64));
  for (Instruction *inst : order) {
    const std::vector<const Access *> &list = by_inst[inst];
    // Inside when size <= span and offset <= span - size, offset counted from the reachable
    // memory's start (unsigned: an address before the start wraps to a large offset).
    IRBuilder<> b(inst);
    std::vector<Value *> offsets, spans, limits, too_large;
    Value *some_outside = nullptr;
    for (const Access *a : list) {
      Extent e = extent_at(b, a->origin);
      offsets.push_back(b.CreateSub(b.CreatePtrToInt(a->address, i64), e.base, "bounds.offset"));
      spans.push_back(e.span);
      limits.push_back(b.CreateSub(e.span, a->size, "bounds.limit"));
      too_large.push_back(b.CreateICmpUGT(a->size, e.span));
      Value *outside = b.CreateOr(too_large.back(), b.CreateCall(any_above, {offsets.back(), limits.back()}));
      some_outside = some_outside ? b.CreateOr(some_outside, outside) : outside;
    }
    // if (any work-item outside) slow else fast: the usual path's access is the original
    // one; the slow path has no branch of its own (so that whole-function vectorization keeps
    // this test a branch also under a divergent condition, wfv/linearize.cpp): a work-item
    // outside makes its access at the sink and reports. Its own test is made there only.
    Instruction *slow_term = nullptr, *fast_term = nullptr;
    SplitBlockAndInsertIfThenElse(some_outside, inst, &slow_term, &fast_term, unlikely);
    BasicBlock *tail = inst->getParent();
    Instruction *fast = inst->clone();
    fast->insertBefore(fast_term);
    inst->moveBefore(slow_term);
    IRBuilder<> f(inst);
    Value *inside = nullptr;
    std::vector<Value *> fits;
    for (size_t i = 0; i < list.size(); i++) {
      fits.push_back(f.CreateAnd(f.CreateNot(too_large[i]), f.CreateICmpULE(offsets[i], limits[i])));
      inside = inside ? f.CreateAnd(inside, fits.back()) : fits.back();
    }
    auto at_sink = [&](Value *address) {
      Constant *cast = ConstantExpr::getPointerBitCastOrAddrSpaceCast(sink, address->getType());
      return f.CreateSelect(inside, address, cast, "bounds.address");
    };
    if (auto *load = dyn_cast<LoadInst>(inst)) {
      load->setOperand(load->getPointerOperandIndex(), at_sink(load->getPointerOperand()));
    } else if (auto *store = dyn_cast<StoreInst>(inst)) {
      store->setOperand(store->getPointerOperandIndex(), at_sink(store->getPointerOperand()));
    } else if (auto *rmw = dyn_cast<AtomicRMWInst>(inst)) {
      rmw->setOperand(rmw->getPointerOperandIndex(), at_sink(rmw->getPointerOperand()));
    } else if (auto *cas = dyn_cast<AtomicCmpXchgInst>(inst)) {
      cas->setOperand(cas->getPointerOperandIndex(), at_sink(cas->getPointerOperand()));
    } else if (auto *mem = dyn_cast<MemIntrinsic>(inst)) {
      Value *length = mem->getLength();
      mem->setLength(f.CreateSelect(inside, length, Constant::getNullValue(length->getType()), "bounds.length"));
    }
    // The report (the handler ignores a null description): the first access of the list
    // that is outside (a memory copy's source before its destination).
    f.SetInsertPoint(slow_term);
    Value *what = nullptr, *offset = nullptr, *size = nullptr, *span = nullptr, *write = nullptr;
    for (size_t i = list.size(); i-- > 0;) {
      const Access *a = list[i];
      Value *bad = f.CreateNot(fits[i]);
      auto pick = [&](Value *mine, Value *later) { return later ? f.CreateSelect(bad, mine, later) : mine; };
      what = pick(what_of[a->origin], what);
      offset = pick(offsets[i], offset);
      size = pick(a->size, size);
      span = pick(spans[i], span);
      write = pick(f.getInt32(a->write), write);
    }
    what = f.CreateSelect(inside, ConstantPointerNull::get(cast<PointerType>(ptr)), what);
    f.CreateCall(violation, {what, offset, size, span, write, global_id(f, m, 0), global_id(f, m, 1), global_id(f, m, 2)});
    if (!inst->getType()->isVoidTy()) {  // a load, atomic or swap outside gives zero
      PHINode *result = PHINode::Create(inst->getType(), 2, "", &*tail->begin());
      inst->replaceAllUsesWith(result);
      Value *slow_result = f.CreateSelect(inside, inst, Constant::getNullValue(inst->getType()));
      result->addIncoming(slow_result, slow_term->getParent());
      result->addIncoming(fast, fast_term->getParent());
    }
  }
  return true;
}

void lower_any_lane(Module &m) {
  // One work-item: "any lane" is its own answer.
  for (const char *name : {wfv::ANY_LANE, wfv::ANY_ABOVE}) {
    Function *test = m.getFunction(name);
    if (!test) continue;
    for (User *u : make_early_inc_range(test->users()))
      if (auto *call = dyn_cast<CallInst>(u)) {
        Value *own = call->getArgOperand(0);
        if (test->getName() == wfv::ANY_ABOVE)
          own = IRBuilder<>(call).CreateICmpUGT(call->getArgOperand(0), call->getArgOperand(1));
        call->replaceAllUsesWith(own);
        call->eraseFromParent();
      }
    if (test->use_empty()) test->eraseFromParent();
  }
}

}  // namespace kiln
