// bounds_checks.cpp: KILN_CHECK=bounds (device/cpu/bounds_check.h): which accesses of a
// kernel to check. Every load, store, atomic and memory intrinsic whose address derives from
// one of its pointer arguments (global, constant or local) is checked against the extent
// the runtime wrote after the argument block (kernel_abi.h's table), one through a static
// __local variable against the variable's size, unless scalar evolution proves it inside;
// bounds_check_emit.cpp adds the tests. Outside, the access is not made and the violation
// handler is called with the argument, the offset, the size and the work-item's global id.
//
// The kernel is inlined (but for math functions with vector forms; its stack slots
// promoted) first, so that accesses in the builtins (vload, atomics, async copies) are
// seen with their pointer's origin. An address whose origin is not one argument or
// variable (a pointer read from memory, made from an integer, a phi of two arguments, a
// program-scope variable, private memory) is not checked.
#include "device/cpu/compiler/bounds_checks.hpp"
#include "device/cpu/compiler/compiler_internal.hpp"
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

#include <algorithm>
#include <vector>

using namespace llvm;
using kiln::bounds::Access;
using kiln::bounds::Origin;

namespace {

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
  if (!accesses.empty()) bounds::emit_checks(k, desc, accesses);
  return true;
}

}  // namespace kiln
