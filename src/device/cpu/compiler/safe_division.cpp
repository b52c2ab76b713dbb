// safe_division.cpp: guard_integer_division (compiler_internal.hpp). The guard is a compare
// and a select on the divisor, so loops that divide still vectorize.
#include "device/cpu/compiler/compiler_internal.hpp"

#include <llvm/IR/Constants.h>
#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/InstIterator.h>
#include <llvm/IR/Instructions.h>

#include <utility>
#include <vector>

using namespace llvm;

namespace {

// A constant divisor none of whose elements is 0 (or -1 for a signed division).
bool is_safe_constant(Value *divisor, bool is_signed) {
  auto *c = dyn_cast<Constant>(divisor);
  if (!c) return false;
  auto safe = [is_signed](Constant *element) {
    auto *ci = dyn_cast_or_null<ConstantInt>(element);
    return ci && !ci->isZero() && !(is_signed && ci->isMinusOne());
  };
  if (auto *vector = dyn_cast<FixedVectorType>(c->getType())) {
    for (unsigned i = 0; i < vector->getNumElements(); i++)
      if (!safe(c->getAggregateElement(i))) return false;
    return true;
  }
  return safe(c);
}

void guard(BinaryOperator &division, bool is_signed) {
  Value *dividend = division.getOperand(0), *divisor = division.getOperand(1);
  Type *type = divisor->getType();
  IRBuilder<> b(&division);
  Constant *one = ConstantInt::get(type, 1);
  Value *bad = b.CreateICmpEQ(divisor, Constant::getNullValue(type), "kiln.div.zero");
  if (is_signed) {
    unsigned bits = type->getScalarSizeInBits();
    Value *min = b.CreateICmpEQ(dividend, ConstantInt::get(type, APInt::getSignedMinValue(bits)));
    Value *minus_one = b.CreateICmpEQ(divisor, Constant::getAllOnesValue(type));
    bad = b.CreateOr(bad, b.CreateAnd(min, minus_one), "kiln.div.overflow");
  }
  // Freeze: a poison divisor must not reach the division unguarded.
  Value *safe = b.CreateSelect(bad, one, b.CreateFreeze(divisor), "kiln.div.safe");
  division.setOperand(1, safe);
}

}  // namespace

namespace kiln {

void guard_integer_division(Module &m) {
  std::vector<std::pair<BinaryOperator *, bool>> divisions;  // with: signed
  for (Function &f : m)
    for (Instruction &inst : instructions(f))
      if (auto *op = dyn_cast<BinaryOperator>(&inst)) {
        unsigned code = op->getOpcode();
        bool is_signed = code == Instruction::SDiv || code == Instruction::SRem;
        if ((is_signed || code == Instruction::UDiv || code == Instruction::URem) &&
            !is_safe_constant(op->getOperand(1), is_signed))
          divisions.emplace_back(op, is_signed);
      }
  for (auto &[division, is_signed] : divisions) guard(*division, is_signed);
}

}  // namespace kiln
