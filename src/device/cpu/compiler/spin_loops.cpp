// spin_loops.cpp: which kernels need their work-items run as fibers (device/cpu/fibers.h).
// A work-item can only wait for another of its group in a loop whose exit depends on what
// that other one stores, read through an atomic or volatile access, an atomic
// read-modify-write or a pipe function — a non-atomic read of another work-item's
// store without a barrier between them is a data race, undefined in OpenCL, though a fence
// in the loop keeps such a read in it, so with a fence plain reads count too. Such a loop is
// a spin loop; its reads must be inside it (a value read before the loop cannot change in
// it). A histogram's loop of atomic_inc, whose results decide nothing, is not one, nor is a
// compare-and-swap loop that retries an update (a float atomic add), so such kernels keep
// the ordinary, vectorized launchers.
#include "device/cpu/builtins/pipe_host.h"
#include "device/cpu/compiler/compiler_internal.hpp"
#include "device/cpu/kernel_abi.h"

#include <llvm/Analysis/LoopInfo.h>
#include <llvm/Analysis/ValueTracking.h>
#include <llvm/IR/Dominators.h>
#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/InstIterator.h>
#include <llvm/IR/Instructions.h>
#include <llvm/IR/IntrinsicInst.h>
#include <llvm/Passes/PassBuilder.h>
#include <llvm/Transforms/Scalar/SROA.h>
#include <llvm/Transforms/Utils/BasicBlockUtils.h>

#include <set>
#include <vector>

using namespace llvm;

namespace {

// A read of memory another work-item may be writing meanwhile.
bool reads_shared_memory(const Instruction &inst) {
  if (auto *load = dyn_cast<LoadInst>(&inst)) return load->isAtomic() || load->isVolatile();
  if (isa<AtomicRMWInst>(inst) || isa<AtomicCmpXchgInst>(inst)) return true;
  if (auto *call = dyn_cast<CallInst>(&inst)) {
    if (isa<IntrinsicInst>(call)) return false;
    // The pipe functions (builtins/pipe_host.c): a read or reservation may fail until
    // another work-item writes, a write until another reads.
    Function *callee = call->getCalledFunction();
    return callee && callee->isDeclaration() && kiln_pipe_host_defines(callee->getName().str().c_str());
  }
  return false;
}

bool anything_shared_read(Function &k, std::set<Function *> &seen) {
  if (!seen.insert(&k).second || k.isDeclaration()) return false;
  for (Instruction &inst : instructions(k)) {
    if (reads_shared_memory(inst) || isa<FenceInst>(inst)) return true;
    if (auto *call = dyn_cast<CallInst>(&inst))
      if (Function *callee = call->getCalledFunction())
        if (anything_shared_read(*callee, seen)) return true;
  }
  return false;
}

// A plain read of memory other work-items may write: not of a stack variable (unoptimized
// code reads its own variables from the stack).
bool reads_memory_of_others(const Instruction &inst) {
  auto *load = dyn_cast<LoadInst>(&inst);
  return load && !isa<AllocaInst>(getUnderlyingObject(load->getPointerOperand()));
}

// The loads of a stack slot, through address computations.
std::vector<const Instruction *> loads_of(const AllocaInst *slot) {
  std::vector<const Instruction *> loads;
  std::vector<const Value *> addresses{slot};
  std::set<const Value *> seen{slot};
  while (!addresses.empty()) {
    const Value *address = addresses.back();
    addresses.pop_back();
    for (const User *u : address->users()) {
      if (isa<LoadInst>(u)) loads.push_back(cast<Instruction>(u));
      else if ((isa<GetElementPtrInst>(u) || isa<CastInst>(u)) && seen.insert(u).second) addresses.push_back(u);
    }
  }
  return loads;
}

const Value *strip_casts(const Value *v) {
  while (auto *cast = dyn_cast<CastInst>(v)) v = cast->getOperand(0);
  return v;
}

// Whether `v`, a compare-and-swap's expected value, is what the loop read from the same
// address: a load of it in the loop, or the swap's own result from a failed turn (through
// the loop's phis; from before the loop: the first guess).
bool expects_own_read(const Value *v, const AtomicCmpXchgInst &cas, const Loop &loop,
                      std::set<const Value *> &seen) {
  v = strip_casts(v);
  if (!seen.insert(v).second) return true;  // a cycle of phis: their other values decide
  auto *inst = dyn_cast<Instruction>(v);
  if (!inst || !loop.contains(inst)) return false;
  if (auto *load = dyn_cast<LoadInst>(inst))
    return load->getPointerOperand()->stripPointerCasts() == cas.getPointerOperand()->stripPointerCasts();
  if (auto *extract = dyn_cast<ExtractValueInst>(inst))
    return extract->getAggregateOperand() == &cas && extract->getIndices()[0] == 0;
  if (auto *select = dyn_cast<SelectInst>(inst))
    return expects_own_read(select->getTrueValue(), cas, loop, seen) &&
           expects_own_read(select->getFalseValue(), cas, loop, seen);
  if (auto *phi = dyn_cast<PHINode>(inst)) {
    for (unsigned i = 0; i < phi->getNumIncomingValues(); i++)
      if (loop.contains(phi->getIncomingBlock(i)) && !expects_own_read(phi->getIncomingValue(i), cas, loop, seen))
        return false;
    return true;
  }
  return false;
}

// A compare-and-swap that retries an update (its expected value is the loop's own read of
// the address): it fails only when another work-item's update came in between, which that
// one made without waiting, so a loop that turns again only on its failure is lock-free —
// and, work-items of a group running one at a time on a thread, no other of them comes in
// between. A swap expecting anything else (a lock's 0) is a wait.
bool retries_update(const Value *v, const Loop &loop) {
  auto *cas = dyn_cast<AtomicCmpXchgInst>(v);
  std::set<const Value *> seen;
  return cas && loop.contains(cas) && expects_own_read(cas->getCompareOperand(), *cas, loop, seen);
}

// The compare-and-swap of `loop` whose result `v` may be (through phis and selects), or null.
const AtomicCmpXchgInst *swap_of(const Value *v, const Loop &loop, std::set<const Value *> &seen) {
  v = strip_casts(v);
  if (!seen.insert(v).second) return nullptr;
  if (auto *extract = dyn_cast<ExtractValueInst>(v)) {
    auto *cas = dyn_cast<AtomicCmpXchgInst>(extract->getAggregateOperand());
    return cas && extract->getIndices()[0] == 0 && loop.contains(cas) ? cas : nullptr;
  }
  if (auto *phi = dyn_cast<PHINode>(v))
    for (const Value *in : phi->incoming_values())
      if (const AtomicCmpXchgInst *cas = swap_of(in, loop, seen)) return cas;
  if (auto *select = dyn_cast<SelectInst>(v)) {
    if (const AtomicCmpXchgInst *cas = swap_of(select->getTrueValue(), loop, seen)) return cas;
    return swap_of(select->getFalseValue(), loop, seen);
  }
  return nullptr;
}

// Whether `v` is what the expected value holds after `cas`: its result, or (unchanged on
// success) what it expected.
bool holds_after_swap(const Value *v, const AtomicCmpXchgInst &cas, std::set<const Value *> &seen) {
  v = strip_casts(v);
  if (v == strip_casts(cas.getCompareOperand()) || !seen.insert(v).second) return true;
  if (auto *extract = dyn_cast<ExtractValueInst>(v))
    return extract->getAggregateOperand() == &cas && extract->getIndices()[0] == 0;
  if (auto *phi = dyn_cast<PHINode>(v)) {
    for (const Value *in : phi->incoming_values())
      if (!holds_after_swap(in, cas, seen)) return false;
    return true;
  }
  if (auto *select = dyn_cast<SelectInst>(v))
    return holds_after_swap(select->getTrueValue(), cas, seen) && holds_after_swap(select->getFalseValue(), cas, seen);
  return false;
}

// Whether `condition` only tells whether such a swap succeeded: its success bit, or its
// result — or the expected value after it — compared with what it expected (OpenCL 1.x's
// atomic_cmpxchg; a strong swap's "spurious failure" check), negated or widened into a
// bool and tested again, or merged with constants.
bool tests_swap_success(const Value *condition, const Loop &loop, std::set<const Value *> &seen) {
  condition = strip_casts(condition);
  if (isa<Constant>(condition) || !seen.insert(condition).second) return true;
  if (auto *extract = dyn_cast<ExtractValueInst>(condition))
    return extract->getIndices()[0] == 1 && retries_update(extract->getAggregateOperand(), loop);
  if (auto *binary = dyn_cast<BinaryOperator>(condition))  // not: xor with true
    return binary->getOpcode() == Instruction::Xor && isa<Constant>(binary->getOperand(1)) &&
           tests_swap_success(binary->getOperand(0), loop, seen);
  if (auto *phi = dyn_cast<PHINode>(condition)) {
    for (const Value *in : phi->incoming_values())
      if (!tests_swap_success(in, loop, seen)) return false;
    return true;
  }
  auto *cmp = dyn_cast<ICmpInst>(condition);
  if (!cmp || !cmp->isEquality()) return false;
  const Value *a = strip_casts(cmp->getOperand(0)), *b = strip_casts(cmp->getOperand(1));
  if (isa<Constant>(b)) return tests_swap_success(a, loop, seen);  // a bool tested again
  for (int side = 0; side < 2; side++, std::swap(a, b)) {
    std::set<const Value *> found, held;
    const AtomicCmpXchgInst *cas = swap_of(a, loop, found);
    if (cas && retries_update(cas, loop) && strip_casts(cas->getCompareOperand()) == b &&
        holds_after_swap(a, *cas, held))
      return true;
  }
  return false;
}

// Whether a branch of `loop` decides on a value computed from one of its shared reads
// (other than whether an update's compare-and-swap succeeded).
bool is_spin_loop(const Loop &loop) {
  std::vector<const Instruction *> work;
  std::set<const Instruction *> tainted;
  // A fence in the loop keeps its plain reads in it too (OpenCL 1.x code waits with
  // mem_fence where it has no atomic load): they count as well.
  bool fenced = false;
  for (const BasicBlock *bb : loop.blocks())
    for (const Instruction &inst : *bb) fenced |= isa<FenceInst>(inst);
  for (const BasicBlock *bb : loop.blocks())
    for (const Instruction &inst : *bb)
      if ((reads_shared_memory(inst) || (fenced && reads_memory_of_others(inst))) && tainted.insert(&inst).second)
        work.push_back(&inst);
  while (!work.empty()) {
    const Instruction *inst = work.back();
    work.pop_back();
    for (const User *u : inst->users()) {
      auto *user = dyn_cast<Instruction>(u);
      if (!user) continue;
      if ((isa<BranchInst>(user) || isa<SwitchInst>(user)) && loop.contains(user)) {
        std::set<const Value *> seen;
        auto *branch = dyn_cast<BranchInst>(user);
        if (!branch || !tests_swap_success(branch->getCondition(), loop, seen)) return true;
        continue;
      }
      if (tainted.insert(user).second) work.push_back(user);
      // Through a stack variable (unoptimized code keeps them): its loads.
      auto *store = dyn_cast<StoreInst>(user);
      if (!store || store->getValueOperand() != inst) continue;
      if (auto *slot = dyn_cast<AllocaInst>(getUnderlyingObject(store->getPointerOperand())))
        for (const Instruction *load : loads_of(slot))
          if (tainted.insert(load).second) work.push_back(load);
    }
  }
  return false;
}

}  // namespace

namespace kiln {

bool yield_in_spin_loops(Function &k, bool &spins, std::string &error) {
  spins = false;
  std::set<Function *> seen;
  if (!anything_shared_read(k, seen)) return true;
  if (!inline_all(k, error)) return false;
  // Variables out of the stack, so that what a value is made of can be followed (a
  // compare-and-swap's expected value through the union clang keeps for it).
  run_function_passes(k, [](PassBuilder &, FunctionPassManager &fpm) { fpm.addPass(SROAPass(SROAOptions::PreserveCFG)); });
  DominatorTree dt(k);
  LoopInfo loops(dt);
  std::vector<std::pair<BasicBlock *, BasicBlock *>> back_edges;
  for (Loop *loop : loops.getLoopsInPreorder()) {
    if (!is_spin_loop(*loop)) continue;
    SmallVector<BasicBlock *, 4> latches;
    loop->getLoopLatches(latches);
    for (BasicBlock *latch : latches) back_edges.emplace_back(latch, loop->getHeader());
  }
  if (back_edges.empty()) return true;
  spins = true;
  Module &m = *k.getParent();
  FunctionCallee yield = m.getOrInsertFunction(KILN_FIBERS_YIELD_SYMBOL, FunctionType::get(Type::getVoidTy(m.getContext()), false));
  // On the back edge only: a loop left at once (a compare-and-swap that succeeds at the
  // first try) yields nothing.
  for (auto &[latch, header] : back_edges) {
    BasicBlock *edge = SplitEdge(latch, header);
    IRBuilder<>(edge->getTerminator()).CreateCall(yield);
  }
  return true;
}

}  // namespace kiln
