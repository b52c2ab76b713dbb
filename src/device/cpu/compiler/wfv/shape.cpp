// shape.cpp: Shapes and access_kind (wfv.hpp). Affine shapes follow add, sub, shl and
// multiplication by a constant, casts and address arithmetic. Integer casts keep the stride
// on the assumption that ids of one vector do not wrap around between lanes (they would
// need 2^32 work-items in one dimension for a 32-bit index). Zero extension and logical
// right shifts are different: lanes of `x - 2` straddle zero, and as unsigned values lane 0
// is 2^32 - 2 while lane 2 is 0, so they keep the stride only for values known to be
// non-negative in every lane (flags such as nneg speak for active lanes only, and lane 0,
// the base of a consecutive access, may be inactive).
#include "device/cpu/compiler/compiler_internal.hpp"
#include "device/cpu/compiler/wfv/divergence.hpp"
#include "device/cpu/compiler/wfv/wfv.hpp"

#include <llvm/ADT/PostOrderIterator.h>
#include <llvm/Analysis/SimplifyQuery.h>
#include <llvm/Analysis/ValueTracking.h>
#include <llvm/IR/Constants.h>
#include <llvm/IR/GetElementPtrTypeIterator.h>
#include <llvm/IR/Instructions.h>
#include <llvm/IR/IntrinsicInst.h>
#include <llvm/IR/Operator.h>

using namespace llvm;

namespace kiln::wfv {

namespace {

Shape join(Shape a, Shape b) {
  if (a.kind == Shape::Unknown) return b;
  if (b.kind == Shape::Unknown) return a;
  return a == b ? a : Shape::varying();
}

// Whether operand 0 of `user` is non-negative for every lane.
bool non_negative(const Instruction &user) {
  return isKnownNonNegative(user.getOperand(0), SimplifyQuery(user.getModule()->getDataLayout()));
}

bool all_uniform(const Instruction &inst, const Shapes &shapes) {
  for (const Use &op : inst.operands())
    if (!isa<BasicBlock>(op.get()) && !isa<Function>(op.get()) && !shapes.of(op.get()).uniform()) return false;
  return true;
}

}  // namespace

Shape Shapes::of(const Value *v) const {
  if (isa<Constant>(v) || isa<Argument>(v) || isa<BasicBlock>(v) || isa<MetadataAsValue>(v)) return Shape::uniform_shape();
  auto it = shapes_.find(v);
  return it == shapes_.end() ? Shape{} : it->second;
}

Shape Shapes::transfer(const Instruction &inst) const {
  auto sh = [this](const Value *v) { return of(v); };
  switch (inst.getOpcode()) {
    case Instruction::Add:
    case Instruction::Sub:
    case Instruction::Or:
    case Instruction::Mul:
    case Instruction::Shl:
    case Instruction::AShr:
    case Instruction::LShr: {
      Shape a = sh(inst.getOperand(0)), b = sh(inst.getOperand(1));
      if (a.kind == Shape::Unknown || b.kind == Shape::Unknown) return {};
      if (!a.affine() || !b.affine()) return Shape::varying();
      if (a.uniform() && b.uniform()) return a;
      auto *cb = dyn_cast<ConstantInt>(inst.getOperand(1));
      auto *ca = dyn_cast<ConstantInt>(inst.getOperand(0));
      switch (inst.getOpcode()) {
        case Instruction::Add: return Shape::affine_shape(wrapping_add(a.stride, b.stride));
        case Instruction::Sub: return Shape::affine_shape(wrapping_sub(a.stride, b.stride));
        case Instruction::Or:  // an add without carries
          return cast<PossiblyDisjointInst>(inst).isDisjoint() ? Shape::affine_shape(wrapping_add(a.stride, b.stride)) : Shape::varying();
        case Instruction::Mul:
          if (cb && b.uniform()) return Shape::affine_shape(wrapping_mul(a.stride, cb->getSExtValue()));
          if (ca && a.uniform()) return Shape::affine_shape(wrapping_mul(b.stride, ca->getSExtValue()));
          return Shape::varying();
        case Instruction::Shl:
          if (cb && b.uniform() && cb->getZExtValue() < 63) return Shape::affine_shape(wrapping_shl(a.stride, (unsigned)cb->getZExtValue()));
          return Shape::varying();
        default:  // a right shift by c divides each lane's value exactly when 2^c divides the stride
          if (inst.getOpcode() == Instruction::LShr && !non_negative(inst)) return Shape::varying();
          if (cb && b.uniform() && cb->getZExtValue() < 63 && a.stride % ((int64_t)1 << cb->getZExtValue()) == 0)
            return Shape::affine_shape(a.stride / ((int64_t)1 << cb->getZExtValue()));
          return Shape::varying();
      }
    }
    case Instruction::ZExt:
      if (!sh(inst.getOperand(0)).uniform() && sh(inst.getOperand(0)).kind == Shape::Affine &&
          !non_negative(inst))
        return Shape::varying();
      return sh(inst.getOperand(0));
    case Instruction::Trunc:
    case Instruction::SExt:
    case Instruction::PtrToInt:
    case Instruction::IntToPtr:
    case Instruction::AddrSpaceCast:
    case Instruction::BitCast:
    case Instruction::Freeze:
      if (inst.getOpcode() == Instruction::BitCast && !inst.getType()->isPointerTy()) {
        Shape a = sh(inst.getOperand(0));
        return a.kind == Shape::Unknown ? a : a.uniform() ? a : Shape::varying();
      }
      return sh(inst.getOperand(0));
    case Instruction::GetElementPtr: {
      auto &gep = cast<GetElementPtrInst>(inst);
      if (gep.getType()->isVectorTy()) return Shape::varying();
      Shape s = sh(gep.getPointerOperand());
      if (s.kind == Shape::Unknown) return s;
      if (!s.affine()) return Shape::varying();
      int64_t stride = s.stride;
      const DataLayout &dl = inst.getModule()->getDataLayout();
      for (auto it = gep_type_begin(gep); it != gep_type_end(gep); ++it) {
        Shape i = sh(it.getOperand());
        if (i.kind == Shape::Unknown) return i;
        if (!i.affine()) return Shape::varying();
        if (i.uniform()) continue;
        if (it.isStruct()) return Shape::varying();
        TypeSize size = it.getSequentialElementStride(dl);
        if (size.isScalable()) return Shape::varying();
        stride = wrapping_add(stride, wrapping_mul(i.stride, (int64_t)size.getFixedValue()));
      }
      return Shape::affine_shape(stride);
    }
    case Instruction::Select: {
      Shape c = sh(inst.getOperand(0));
      if (c.kind == Shape::Unknown) return c;
      if (!c.uniform()) return Shape::varying();
      return join(sh(inst.getOperand(1)), sh(inst.getOperand(2)));
    }
    case Instruction::PHI: {
      Shape s;
      for (const Value *v : cast<PHINode>(inst).incoming_values()) s = join(s, sh(v));
      return s;
    }
    case Instruction::Alloca: {
      // Each lane's own copy, one after another.
      auto &a = cast<AllocaInst>(inst);
      const DataLayout &dl = inst.getModule()->getDataLayout();
      uint64_t size = alignTo(dl.getTypeAllocSize(a.getAllocatedType()).getFixedValue(), a.getAlign());
      return Shape::affine_shape((int64_t)size);
    }
    case Instruction::Load: {
      auto &load = cast<LoadInst>(inst);
      Shape p = sh(load.getPointerOperand());
      if (p.kind == Shape::Unknown) return p;
      return p.uniform() && load.isSimple() ? p : Shape::varying();
    }
    case Instruction::AtomicRMW:
    case Instruction::AtomicCmpXchg:
    case Instruction::VAArg:
      return Shape::varying();
    case Instruction::Call: {
      auto &call = cast<CallInst>(inst);
      Function *callee = call.getCalledFunction();
      if (is_cross_lane(callee)) return Shape::uniform_shape();
      if (is_lane_id(call)) return Shape::affine_shape(1);
      if (callee && kiln::is_work_item_intrinsic(callee->getName())) return Shape::uniform_shape();
      if (!call.onlyReadsMemory()) return Shape::varying();
      break;
    }
    default:
      break;
  }
  for (const Use &op : inst.operands())
    if (!isa<BasicBlock>(op.get()) && !isa<Function>(op.get()) && sh(op.get()).kind == Shape::Unknown) return {};
  return all_uniform(inst, *this) ? Shape::uniform_shape() : Shape::varying();
}

bool Shapes::compute(Function &f, std::string &why) {
  shapes_.clear();
  ReversePostOrderTraversal<Function *> rpo(&f);
  for (bool changed = true; changed;) {
    changed = false;
    for (BasicBlock *bb : rpo)
      for (Instruction &inst : *bb) {
        if (inst.getType()->isVoidTy()) continue;
        Shape old = of(&inst);
        Shape now = join(old, transfer(inst));
        if (now != old) {
          shapes_[&inst] = now;
          changed = true;
        }
      }
  }
  for (BasicBlock &bb : f)
    for (Instruction &inst : bb) {
      if (auto *call = dyn_cast<CallInst>(&inst); call && call->getCalledFunction() &&
                                                   call->getCalledFunction()->getName() == KILN_INTRINSIC_LOCAL_ID &&
                                                   !isa<ConstantInt>(call->getArgOperand(0))) {
        why = "a work-item id of a dimension known only at run time";
        return false;
      }
      if (!inst.getType()->isVoidTy() && of(&inst).kind == Shape::Unknown) shapes_[&inst] = Shape::uniform_shape();  // unreachable
    }
  return true;
}

Access access_kind(Shape pointer, Type *type, const DataLayout &dl) {
  if (pointer.uniform()) return Access::Uniform;
  // A vector of a type narrower than its bytes (i1: a value live across a barrier, kept in
  // the work-items' frames one byte each) is bit-packed in memory, so its lanes' bytes
  // cannot be one vector access.
  if (pointer.affine() && !type->isVectorTy() && !type->isAggregateType() &&
      pointer.stride == (int64_t)dl.getTypeStoreSize(type).getFixedValue() &&
      dl.getTypeStoreSize(type) == dl.getTypeAllocSize(type) &&
      dl.getTypeSizeInBits(type) == dl.getTypeStoreSizeInBits(type))
    return Access::Consecutive;
  return Access::GatherScatter;
}

}  // namespace kiln::wfv
