// idle_work_items.cpp: bound_idle_work_items (idle_work_items.hpp).
//
// Why the bound holds: u is the same for every work-item of the row and the guard's block
// is reached by all of them or none (it depends on no branch that differs between them),
// so every work-item raises its running maximum with the same values and stores the same
// bound. A work-item at x >= bound passes no guard's true edge, hence reaches no effect.
// Lanes here are wfv/'s: work-items of one row (same y and z ids), whose divergence model
// (wfv/divergence.cpp) is the one that applies. The second bound: a guard `x < u` (`<=`,
// signed) whose compare runs once per call is true for every x below its bound; below the
// least bound of the guards a call reaches, every such compare has its constant value, so
// the all-active copy, which has the constants in their place, does what fn would.
#include "device/cpu/compiler/idle_work_items.hpp"

#include "device/cpu/compiler/compiler_internal.hpp"
#include "device/cpu/compiler/wfv/divergence.hpp"

#include <llvm/Analysis/LoopInfo.h>
#include <llvm/Analysis/PostDominators.h>
#include <llvm/Analysis/ValueTracking.h>
#include <llvm/IR/Dominators.h>
#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/InstIterator.h>
#include <llvm/IR/IntrinsicInst.h>
#include <llvm/IR/PatternMatch.h>
#include <llvm/Support/raw_ostream.h>
#include <llvm/Transforms/Utils/Cloning.h>

#include <cstdlib>
#include <optional>
#include <set>
#include <vector>

using namespace llvm;
using namespace llvm::PatternMatch;

namespace kiln {

namespace {

// Blocks that some work-items of a row may reach and others not: those control-dependent
// (through the post-dominator tree) on a branch that differs between them, and, in turn,
// on any branch of such a block.
DenseSet<BasicBlock *> divergently_reached(Function &f, const wfv::Divergence &d) {
  PostDominatorTree pdt(f);
  DenseSet<BasicBlock *> reached, sources;
  std::vector<BasicBlock *> work;
  auto source = [&](BasicBlock *bb) {
    if (sources.insert(bb).second) work.push_back(bb);
  };
  for (BasicBlock &bb : f) {
    Instruction *term = bb.getTerminator();
    if (term->getNumSuccessors() < 2) continue;
    if (auto *sw = dyn_cast<SwitchInst>(term)) {
      if (d.values.count(sw->getCondition())) source(&bb);
    } else if (!isa<BranchInst>(term) || d.branches.count(&bb)) {
      source(&bb);
    }
  }
  while (!work.empty()) {
    BasicBlock *x = work.back();
    work.pop_back();
    DomTreeNode *node = pdt.getNode(x);
    if (!node) continue;
    DomTreeNode *stop = node->getIDom();
    for (BasicBlock *succ : successors(x))
      for (DomTreeNode *n = pdt.getNode(succ); n && n != stop && n->getBlock(); n = n->getIDom()) {
        BasicBlock *y = n->getBlock();
        if (reached.insert(y).second && y->getTerminator()->getNumSuccessors() > 1) source(y);
      }
  }
  return reached;
}

// Whether `v` is the work-item's local x id, through casts that keep its value (ids are
// below 2^31).
bool is_x_id(const Value *v) {
  while (auto *cast = dyn_cast<CastInst>(v)) {
    bool keeps = isa<ZExtInst>(cast) || isa<SExtInst>(cast) ||
                 (isa<TruncInst>(cast) && cast->getType()->getIntegerBitWidth() >= 32);
    if (!keeps) return false;
    v = cast->getOperand(0);
  }
  auto *call = dyn_cast<CallBase>(v);
  return call && wfv::is_lane_id(*call) && isa<ConstantInt>(call->getArgOperand(0));
}

// `x pred u`, with x the local x id: what `cmp` being `taken` says.
struct Guard {
  CmpInst::Predicate pred;
  Value *u;
  ICmpInst *cmp;
  bool taken;
};

class Bounds {
 public:
  explicit Bounds(Function &f) : d_(wfv::divergence(f)), divergent_(divergently_reached(f, d_)), dt_(f) {}

  // Whether the value is the same for every work-item of the row, every time it is used
  // in a block they all reach.
  bool row_uniform(const Value *v) const {
    if (isa<Constant>(v) || isa<Argument>(v)) return !d_.values.count(v);
    auto *inst = dyn_cast<Instruction>(v);
    return inst && !d_.values.count(inst) && !divergent_.count(inst->getParent());
  }

  // The guard that `cond` being `taken` implies, if any.
  std::optional<Guard> guard_of(Value *cond, bool taken) const {
    Value *a, *b;
    if (taken ? match(cond, m_LogicalAnd(m_Value(a), m_Value(b))) : match(cond, m_LogicalOr(m_Value(a), m_Value(b)))) {
      if (std::optional<Guard> g = guard_of(a, taken)) return g;
      return guard_of(b, taken);
    }
    if (match(cond, m_Not(m_Value(a)))) return guard_of(a, !taken);
    auto *cmp = dyn_cast<ICmpInst>(cond);
    if (!cmp) return std::nullopt;
    CmpInst::Predicate pred = taken ? cmp->getPredicate() : cmp->getInversePredicate();
    Value *x = cmp->getOperand(0), *u = cmp->getOperand(1);
    if (!is_x_id(x)) {
      std::swap(x, u);
      pred = CmpInst::getSwappedPredicate(pred);
      if (!is_x_id(x)) return std::nullopt;
    }
    if (!row_uniform(u)) return std::nullopt;
    switch (pred) {
      case CmpInst::ICMP_ULT:
      case CmpInst::ICMP_ULE:
      case CmpInst::ICMP_EQ:
      case CmpInst::ICMP_SLT:
      case CmpInst::ICMP_SLE:
        return Guard{pred, u, cmp, taken};
      default:
        return std::nullopt;
    }
  }

  // The nearest guarding edge above `bb` (block, successor) whose block all work-items of
  // the row reach.
  struct GuardEdge {
    BasicBlock *block;
    unsigned successor;
    Guard guard;
  };
  std::optional<GuardEdge> guard_above(BasicBlock *bb) const {
    DomTreeNode *node = dt_.getNode(bb);
    for (DomTreeNode *n = node ? node->getIDom() : nullptr; n; n = n->getIDom()) {
      BasicBlock *d = n->getBlock();
      auto *br = dyn_cast<BranchInst>(d->getTerminator());
      if (!br || !br->isConditional() || divergent_.count(d)) continue;
      for (unsigned s = 0; s < 2; s++)
        if (br->getSuccessor(0) != br->getSuccessor(1) && dt_.dominates(BasicBlockEdge(d, br->getSuccessor(s)), bb))
          if (std::optional<Guard> g = guard_of(br->getCondition(), s == 0)) return GuardEdge{d, s, *g};
    }
    return std::nullopt;
  }

 private:
  wfv::Divergence d_;
  DenseSet<BasicBlock *> divergent_;
  DominatorTree dt_;
};

// Whether a store through `pointer` goes to the work-item's private memory or to the
// uniform values it hands on (region functions' last argument).
bool private_or_handed_on(const Value *pointer, const Argument *next) {
  const Value *base = getUnderlyingObject(pointer, 0);
  return isa<AllocaInst>(base) || base == next;
}

bool is_effect(const Instruction &inst, const Argument *next) {
  if (auto *store = dyn_cast<StoreInst>(&inst))
    return !store->isSimple() || !private_or_handed_on(store->getPointerOperand(), next);
  if (auto *mem = dyn_cast<MemIntrinsic>(&inst)) return mem->isVolatile() || !private_or_handed_on(mem->getDest(), next);
  if (auto *ii = dyn_cast<IntrinsicInst>(&inst); ii && ii->isAssumeLikeIntrinsic()) return false;
  if (auto *call = dyn_cast<CallBase>(&inst)) {
    const Function *callee = call->getCalledFunction();
    if (callee && is_work_item_intrinsic(callee->getName())) return false;
    return !call->onlyReadsMemory();
  }
  if (auto *load = dyn_cast<LoadInst>(&inst)) return !load->isSimple();
  return inst.mayWriteToMemory() || isa<FenceInst>(inst);
}

// KILN_DEBUG_WFV: which regions skip idle work-items, with wfv/'s decisions.
bool debug() {
  static const bool on = getenv("KILN_DEBUG_WFV") != nullptr;
  return on;
}

// The exclusive i64 bound on x that `g` implies, at the builder's position.
Value *emit_bound(IRBuilder<> &b, const Guard &g) {
  Type *i64 = b.getInt64Ty();
  Value *u = g.u;
  switch (g.pred) {
    case CmpInst::ICMP_ULT:
      return b.CreateZExt(u, i64);
    case CmpInst::ICMP_SLT:
      return b.CreateZExt(b.CreateBinaryIntrinsic(Intrinsic::smax, u, ConstantInt::get(u->getType(), 0)), i64);
    case CmpInst::ICMP_SLE:
      return b.CreateSelect(b.CreateICmpSLT(u, ConstantInt::get(u->getType(), 0)), b.getInt64(0),
                            b.CreateBinaryIntrinsic(Intrinsic::uadd_sat, b.CreateZExt(u, i64), b.getInt64(1)));
    default:  // ULE, EQ
      return b.CreateBinaryIntrinsic(Intrinsic::uadd_sat, b.CreateZExt(u, i64), b.getInt64(1));
  }
}

}  // namespace

IdleBound bound_idle_work_items(Function &fn, uint64_t offset) {
  Argument *next = fn.getArg(fn.arg_size() - 1);
  std::vector<Bounds::GuardEdge> guards;  // one per guarding edge, in the order of the code
  std::set<std::pair<BasicBlock *, unsigned>> seen;
  {
    Bounds bounds(fn);
    for (Instruction &inst : instructions(fn)) {
      if (!is_effect(inst, next)) continue;
      std::optional<Bounds::GuardEdge> g = bounds.guard_above(inst.getParent());
      if (!g) {
        if (debug()) errs() << "kiln: " << fn.getName() << ": runs every work-item (an effect under no guard on the x id)\n";
        return {};
      }
      if (seen.insert({g->block, g->successor}).second) guards.push_back(*g);
    }
  }
  // A guard whose compare runs once per call, in its block (outside loops), and holds for
  // every x below its bound (not ==) is the constant it is for them in the all-active copy;
  // any other guard that a call reaches leaves that call no all-active vectors.
  DominatorTree dt(fn);
  LoopInfo loops(dt);
  auto constant_below_bound = [&](const Bounds::GuardEdge &e) {
    return e.guard.pred != CmpInst::ICMP_EQ && e.guard.cmp->getParent() == e.block && !loops.getLoopFor(e.block);
  };
  LLVMContext &c = fn.getContext();
  IRBuilder<> b(&*fn.getEntryBlock().getFirstInsertionPt());
  Type *i64 = b.getInt64Ty();
  AllocaInst *idle_from = b.CreateAlloca(i64, nullptr, "idle_from");
  AllocaInst *full_below = b.CreateAlloca(i64, nullptr, "full_below");
  b.CreateStore(b.getInt64(0), idle_from);
  b.CreateStore(b.getInt64(UINT64_MAX), full_below);
  bool any_constant = false;
  for (const Bounds::GuardEdge &e : guards) {  // (whichever way the branch goes: still bounds)
    b.SetInsertPoint(e.block->getTerminator());
    Value *bound = emit_bound(b, e.guard);
    b.CreateStore(b.CreateBinaryIntrinsic(Intrinsic::umax, b.CreateLoad(i64, idle_from), bound), idle_from);
    bool constant = constant_below_bound(e);
    any_constant |= constant;
    b.CreateStore(constant ? b.CreateBinaryIntrinsic(Intrinsic::umin, b.CreateLoad(i64, full_below), bound) : b.getInt64(0),
                  full_below);
  }
  for (BasicBlock &bb : fn)
    if (auto *ret = dyn_cast<ReturnInst>(bb.getTerminator())) {
      b.SetInsertPoint(ret);
      Value *idle = b.CreateLoad(i64, idle_from);
      b.CreateStore(idle, b.CreateConstInBoundsGEP1_64(b.getInt8Ty(), next, offset));
      b.CreateStore(b.CreateBinaryIntrinsic(Intrinsic::umin, b.CreateLoad(i64, full_below), idle),
                    b.CreateConstInBoundsGEP1_64(b.getInt8Ty(), next, offset + 8));
    }
  IdleBound result{true, nullptr};
  if (any_constant) {
    ValueToValueMapTy map;
    result.all_active = CloneFunction(&fn, map);
    result.all_active->setName(fn.getName() + ".all_active");
    std::set<ICmpInst *> replaced;  // (two edges may test one compare)
    for (const Bounds::GuardEdge &e : guards) {
      if (!constant_below_bound(e) || !replaced.insert(e.guard.cmp).second) continue;
      auto *cmp = cast<Instruction>(map[e.guard.cmp]);
      cmp->replaceAllUsesWith(ConstantInt::getBool(c, e.guard.taken));
      cmp->eraseFromParent();
    }
  }
  if (debug())
    errs() << "kiln: " << fn.getName() << ": stops rows where its " << guards.size() << " guard(s) on the x id end"
           << (result.all_active ? ", runs whole vectors below it unmasked" : "") << "\n";
  return result;
}

}  // namespace kiln
