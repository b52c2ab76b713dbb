// widen.cpp: wfv::widen (wfv.hpp). Walks the linearized function in reverse post-order and
// emits, per instruction: a scalar copy for uniform and affine values (an affine value's
// copy computes lane 0's value; its vector is built on demand as base + lane x stride), a
// vector instruction for varying ones, or one scalar copy per lane (calls without a vector
// form, atomics, volatile accesses), each behind a test of its lane's predicate when the
// instruction has effects. Loads and stores pick their access per pointer shape
// (access_kind); in predicated blocks they are masked, a uniform one runs when any lane is
// active.
#include "device/cpu/compiler/compiler_internal.hpp"
#include "device/cpu/compiler/wfv/divergence.hpp"
#include "device/cpu/compiler/wfv/wfv.hpp"

#include <llvm/ADT/PostOrderIterator.h>
#include <llvm/Analysis/VectorUtils.h>
#include <llvm/IR/Constants.h>
#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/Instructions.h>
#include <llvm/IR/IntrinsicInst.h>
#include <llvm/IR/Verifier.h>
#include <llvm/Support/raw_ostream.h>

#include <algorithm>
#include <vector>

using namespace llvm;

namespace kiln::wfv {

namespace {

class Widener {
 public:
  Widener(Function &f, const BlockPredicates &preds, unsigned width, std::string &why)
      : f_(f), preds_(preds), w_(width), why_(why), m_(*f.getParent()), c_(f.getContext()), dl_(m_.getDataLayout()),
        b_(c_) {}

  Function *run() {
    if (!shapes_.compute(f_, why_)) return nullptr;
    std::vector<Type *> params(f_.getFunctionType()->param_begin(), f_.getFunctionType()->param_end());
    params.push_back(Type::getInt64Ty(c_));
    nf_ = Function::Create(FunctionType::get(f_.getReturnType(), params, false), GlobalValue::InternalLinkage,
                           f_.getName() + ".wfv", m_);
    nf_->setAttributes(f_.getAttributes());
    nf_->setCallingConv(f_.getCallingConv());
    x_base_ = nf_->getArg(f_.arg_size());
    for (unsigned i = 0; i < f_.arg_size(); i++) {
      nf_->getArg(i)->setName(f_.getArg(i)->getName());
      scalar_[f_.getArg(i)] = nf_->getArg(i);
    }
    for (BasicBlock &bb : f_) first_[&bb] = BasicBlock::Create(c_, bb.getName(), nf_);
    entry_ = first_[&f_.getEntryBlock()];
    ReversePostOrderTraversal<Function *> rpo(&f_);
    for (BasicBlock *bb : rpo) {
      b_.SetInsertPoint(first_[bb]);
      for (Instruction &inst : *bb)
        if (!emit(inst)) return abandon();
      last_[bb] = b_.GetInsertBlock();
    }
    for (auto &[orig, phi] : phis_) {
      bool wide = phi->getType()->isVectorTy() && !orig->getType()->isVectorTy();
      for (unsigned i = 0; i < orig->getNumIncomingValues(); i++) {
        BasicBlock *from = orig->getIncomingBlock(i);
        if (!last_.count(from)) continue;  // unreachable
        phi->addIncoming(wide ? vec(orig->getIncomingValue(i)) : scalar(orig->getIncomingValue(i)), last_[from]);
      }
    }
    // Blocks never reached (none after preparation) keep no code.
    for (BasicBlock &bb : f_)
      if (!last_.count(&bb)) {
        first_[&bb]->eraseFromParent();
      }
    std::string broken;
    raw_string_ostream os(broken);
    if (verifyFunction(*nf_, &os)) {
      why_ = "widening produced invalid IR: " + os.str();
      return abandon();
    }
    return nf_;
  }

 private:
  Function &f_;
  const BlockPredicates &preds_;
  unsigned w_;
  std::string &why_;
  Module &m_;
  LLVMContext &c_;
  const DataLayout &dl_;
  IRBuilder<> b_;
  Shapes shapes_;
  Function *nf_ = nullptr;
  Argument *x_base_ = nullptr;
  BasicBlock *entry_ = nullptr;
  DenseMap<const BasicBlock *, BasicBlock *> first_, last_;
  DenseMap<const Value *, Value *> scalar_, vector_;
  std::vector<std::pair<PHINode *, PHINode *>> phis_;

  Function *abandon() {
    if (nf_) {
      for (BasicBlock &bb : *nf_) bb.dropAllReferences();
      nf_->eraseFromParent();
    }
    return nullptr;
  }

  bool fail(const std::string &why) {
    why_ = why;
    return false;
  }

  Type *wide_type(Type *t) { return FixedVectorType::get(t, w_); }

  Value *scalar(Value *v) {
    if (auto *bb = dyn_cast<BasicBlock>(v)) return first_.lookup(bb);
    if (isa<Constant>(v) || isa<MetadataAsValue>(v)) return v;
    Value *s = scalar_.lookup(v);
    assert(s && "scalar value used before its definition");
    return s;
  }

  // The offsets of the lanes from lane 0 for a stride, in t's integer type.
  Constant *lane_offsets(Type *int_type, int64_t stride) {
    std::vector<Constant *> offsets;
    for (unsigned l = 0; l < w_; l++) offsets.push_back(ConstantInt::get(int_type, (uint64_t)wrapping_mul(stride, l), true));
    return ConstantVector::get(offsets);
  }

  Value *vec(Value *v) {
    if (auto *c = dyn_cast<Constant>(v)) return ConstantVector::getSplat(ElementCount::getFixed(w_), c);
    if (Value *done = vector_.lookup(v)) return done;
    Shape s = shapes_.of(v);
    Value *base = scalar(v);
    IRBuilder<> mb(c_);
    if (auto *inst = dyn_cast<Instruction>(base)) {
      if (isa<PHINode>(inst)) mb.SetInsertPoint(inst->getParent(), inst->getParent()->getFirstInsertionPt());
      else if (inst->getNextNode()) mb.SetInsertPoint(inst->getNextNode());
      else mb.SetInsertPoint(inst->getParent());
    } else {
      mb.SetInsertPoint(entry_, entry_->getFirstInsertionPt());
    }
    Value *splat = mb.CreateVectorSplat(w_, base);
    Value *r = splat;
    if (!s.uniform()) {
      if (v->getType()->isPointerTy())
        r = mb.CreateGEP(mb.getInt8Ty(), splat, lane_offsets(mb.getInt64Ty(), s.stride));
      else
        r = mb.CreateAdd(splat, lane_offsets(v->getType(), s.stride));
    }
    vector_[v] = r;
    return r;
  }

  // Lane l's value of v, at the builder's position.
  Value *lane(Value *v, unsigned l) {
    if (isa<Constant>(v) || isa<BasicBlock>(v) || isa<MetadataAsValue>(v)) return scalar(v);
    Shape s = shapes_.of(v);
    if (s.uniform()) return scalar(v);
    if (s.affine()) {
      Value *base = scalar(v);
      if (v->getType()->isPointerTy()) return b_.CreateConstGEP1_64(b_.getInt8Ty(), base, (uint64_t)wrapping_mul(s.stride, l));
      return b_.CreateAdd(base, ConstantInt::get(v->getType(), (uint64_t)wrapping_mul(s.stride, l), true));
    }
    return b_.CreateExtractElement(vector_.lookup(v), (uint64_t)l);
  }

  // The lanes' predicate of the block holding `inst`, as <w x i1>; null: all lanes.
  Value *mask(const Instruction &inst) {
    Value *p = preds_.lookup(inst.getParent());
    if (!p) return nullptr;
    if (auto *c = dyn_cast<ConstantInt>(p); c && c->isOne()) return nullptr;
    return vec(p);
  }

  Value *all_lanes() { return ConstantVector::getSplat(ElementCount::getFixed(w_), b_.getTrue()); }

  // A copy of inst on uniform operands.
  void emit_scalar(Instruction &inst) {
    Instruction *copy = inst.clone();
    for (unsigned i = 0; i < copy->getNumOperands(); i++) copy->setOperand(i, scalar(inst.getOperand(i)));
    b_.Insert(copy, inst.getName());
    if (!inst.getType()->isVoidTy()) scalar_[&inst] = copy;
  }

  // One copy of inst per lane, each behind its lane's predicate bit when `guard` is given.
  // With a guard, the lanes' copies run only when some lane is active (one test for the
  // usual case of a cold path: bounds checks' reports, error branches).
  bool emit_per_lane(Instruction &inst, Value *guard) {
    Type *t = inst.getType();
    bool result = !t->isVoidTy();
    if (result && !VectorType::isValidElementType(t)) return fail("a value of aggregate type per lane");
    Value *acc = result ? PoisonValue::get(wide_type(t)) : nullptr;
    BasicBlock *none_from = nullptr, *some_done = nullptr;
    if (guard) {
      none_from = b_.GetInsertBlock();
      BasicBlock *some = BasicBlock::Create(c_, "wfv.lanes", nf_);
      some_done = BasicBlock::Create(c_, "wfv.lanes.done", nf_);
      b_.CreateCondBr(any(guard), some, some_done);
      b_.SetInsertPoint(some);
    }
    for (unsigned l = 0; l < w_; l++) {
      BasicBlock *before = nullptr, *then = nullptr, *cont = nullptr;
      if (guard) {
        Value *bit = b_.CreateExtractElement(guard, (uint64_t)l);
        before = b_.GetInsertBlock();
        then = BasicBlock::Create(c_, "wfv.lane", nf_);
        cont = BasicBlock::Create(c_, "wfv.lane.next", nf_);
        b_.CreateCondBr(bit, then, cont);
        b_.SetInsertPoint(then);
      }
      Instruction *copy = inst.clone();
      for (unsigned i = 0; i < copy->getNumOperands(); i++) {
        Value *op = inst.getOperand(i);
        if (isa<Function>(op) || isa<BasicBlock>(op)) continue;
        copy->setOperand(i, lane(op, l));
      }
      b_.Insert(copy);
      Value *updated = result ? b_.CreateInsertElement(acc, copy, (uint64_t)l) : nullptr;
      if (guard) {
        b_.CreateBr(cont);
        b_.SetInsertPoint(cont);
        if (result) {
          PHINode *phi = b_.CreatePHI(acc->getType(), 2);
          phi->addIncoming(updated, then);
          phi->addIncoming(acc, before);
          updated = phi;
        }
      }
      acc = updated;
    }
    if (guard) {
      BasicBlock *some_end = b_.GetInsertBlock();
      b_.CreateBr(some_done);
      b_.SetInsertPoint(some_done);
      if (result) {
        PHINode *phi = b_.CreatePHI(acc->getType(), 2);
        phi->addIncoming(acc, some_end);
        phi->addIncoming(PoisonValue::get(acc->getType()), none_from);
        acc = phi;
      }
    }
    if (result) vector_[&inst] = acc;
    return true;
  }

  Value *any(Value *m) { return b_.CreateOrReduce(m); }

  // wfv.hpp's ANY_ABOVE: with all lanes active and x affine, the first and last lanes' x
  // (between them x runs monotonically when its whole range is under 2^62 and the limit
  // under 2^63: no lane can step over the values above the limit); else every lane's.
  Value *any_above(Value *x, Value *limit, Value *m) {
    Shape s = shapes_.of(x);
    int64_t reach = wrapping_mul(s.stride, (int64_t)w_ - 1);
    if (!m && s.affine() && (isa<Constant>(limit) || shapes_.of(limit).uniform()) && reach > -(INT64_C(1) << 62) &&
        reach < (INT64_C(1) << 62)) {
      Value *lim = scalar(limit), *first = scalar(x);
      Value *last = b_.CreateAdd(first, ConstantInt::get(first->getType(), (uint64_t)reach, true));
      Value *huge = b_.CreateICmpSLT(lim, ConstantInt::get(lim->getType(), 0));  // limit >= 2^63
      return b_.CreateOr(b_.CreateOr(b_.CreateICmpUGT(first, lim), b_.CreateICmpUGT(last, lim)), huge);
    }
    Value *above = b_.CreateICmpUGT(vec(x), vec(limit));
    return any(m ? b_.CreateAnd(above, m) : above);
  }

  // A uniform load or store in a predicated block: once, when any lane is active (its
  // address need not be valid otherwise); a load gives zero when none is.
  bool emit_if_any(Instruction &inst, Value *m) {
    BasicBlock *before = b_.GetInsertBlock();
    BasicBlock *then = BasicBlock::Create(c_, "wfv.any", nf_), *cont = BasicBlock::Create(c_, "wfv.any.next", nf_);
    b_.CreateCondBr(any(m), then, cont);
    b_.SetInsertPoint(then);
    emit_scalar(inst);
    b_.CreateBr(cont);
    b_.SetInsertPoint(cont);
    if (!inst.getType()->isVoidTy()) {
      PHINode *phi = b_.CreatePHI(inst.getType(), 2, inst.getName());
      phi->addIncoming(scalar_[&inst], then);
      phi->addIncoming(Constant::getNullValue(inst.getType()), before);
      scalar_[&inst] = phi;
    }
    return true;
  }

  // A varying value stored to one address: the lanes store in order, so the last active
  // one's value stays; stored once, from that lane (a scatter to one address would test
  // and store lane by lane).
  void emit_last_lane_store(StoreInst &store, Value *m) {
    Value *value = vec(store.getValueOperand()), *ptr = scalar(store.getPointerOperand());
    if (!m) {
      b_.CreateAlignedStore(b_.CreateExtractElement(value, (uint64_t)w_ - 1), ptr, store.getAlign());
      return;
    }
    IntegerType *bits_type = b_.getIntNTy(w_);
    Value *bits = b_.CreateBitCast(m, bits_type);
    BasicBlock *then = BasicBlock::Create(c_, "wfv.last", nf_), *cont = BasicBlock::Create(c_, "wfv.last.next", nf_);
    b_.CreateCondBr(b_.CreateICmpNE(bits, ConstantInt::get(bits_type, 0)), then, cont);
    b_.SetInsertPoint(then);
    Value *leading = b_.CreateBinaryIntrinsic(Intrinsic::ctlz, bits, b_.getTrue());
    Value *last = b_.CreateSub(ConstantInt::get(bits_type, w_ - 1), leading);
    b_.CreateAlignedStore(b_.CreateExtractElement(value, last), ptr, store.getAlign());
    b_.CreateBr(cont);
    b_.SetInsertPoint(cont);
  }

  // wfv.hpp's SINK_METADATA: an address `select c, p, sink` (or `select c, sink, p`)
  // becomes p, the lanes choosing p join the mask (not for a p the same for all lanes: its
  // access is made once, through the select).
  bool skip_sink(Value *&ptr, Value *&m) {
    auto *select = dyn_cast<SelectInst>(ptr);
    if (!select) return false;
    bool sink_if_true = is_sink(select->getTrueValue());
    if (!sink_if_true && !is_sink(select->getFalseValue())) return false;
    Value *p = sink_if_true ? select->getFalseValue() : select->getTrueValue();
    if (shapes_.of(p).uniform()) return false;
    Value *c = select->getCondition();
    Value *lanes = isa<Constant>(c) || shapes_.of(c).uniform() ? b_.CreateVectorSplat(w_, scalar(c)) : vec(c);
    if (sink_if_true) lanes = b_.CreateNot(lanes);
    m = m ? b_.CreateAnd(m, lanes) : lanes;
    ptr = p;
    return true;
  }

  bool emit_load(LoadInst &load) {
    Value *ptr = load.getPointerOperand();
    Type *t = load.getType();
    Value *m = mask(load);
    if (!load.isSimple()) return emit_per_lane(load, m);
    // Lanes whose load went to the sink (which holds zeros) get zero.
    Value *passthru = skip_sink(ptr, m) ? Constant::getNullValue(wide_type(t)) : nullptr;
    switch (access_kind(shapes_.of(ptr), t, dl_)) {
      case Access::Uniform:
        if (m) return emit_if_any(load, m);
        emit_scalar(load);
        return true;
      case Access::Consecutive:
        if (!VectorType::isValidElementType(t)) return fail("a load of an aggregate");
        if (m) vector_[&load] = b_.CreateMaskedLoad(wide_type(t), scalar(ptr), load.getAlign(), m, passthru, load.getName());
        else vector_[&load] = b_.CreateAlignedLoad(wide_type(t), scalar(ptr), load.getAlign(), load.getName());
        return true;
      case Access::GatherScatter:
        if (!VectorType::isValidElementType(t)) return fail("a load of an aggregate");
        vector_[&load] = b_.CreateMaskedGather(wide_type(t), vec(ptr), load.getAlign(), m ? m : all_lanes(), passthru,
                                               load.getName());
        return true;
    }
    return false;
  }

  bool emit_store(StoreInst &store) {
    Value *ptr = store.getPointerOperand(), *value = store.getValueOperand();
    Type *t = value->getType();
    Value *m = mask(store);
    if (!store.isSimple()) return emit_per_lane(store, m);
    skip_sink(ptr, m);
    if (!VectorType::isValidElementType(t)) {
      if (access_kind(shapes_.of(ptr), t, dl_) == Access::Uniform && shapes_.of(value).uniform()) {
        if (m) return emit_if_any(store, m);
        emit_scalar(store);
        return true;
      }
      return emit_per_lane(store, m);
    }
    switch (access_kind(shapes_.of(ptr), t, dl_)) {
      case Access::Uniform:
        if (shapes_.of(value).uniform()) {
          if (m) return emit_if_any(store, m);
          emit_scalar(store);
        } else {
          emit_last_lane_store(store, m);
        }
        return true;
      case Access::Consecutive:
        if (m) b_.CreateMaskedStore(vec(value), scalar(ptr), store.getAlign(), m);
        else b_.CreateAlignedStore(vec(value), scalar(ptr), store.getAlign());
        return true;
      case Access::GatherScatter:
        b_.CreateMaskedScatter(vec(value), vec(ptr), store.getAlign(), m ? m : all_lanes());
        return true;
    }
    return false;
  }

  bool emit_call(CallInst &call) {
    Function *callee = call.getCalledFunction();
    if (auto *intrinsic = dyn_cast<IntrinsicInst>(&call)) {
      switch (intrinsic->getIntrinsicID()) {
        case Intrinsic::lifetime_start:
        case Intrinsic::lifetime_end:
        case Intrinsic::assume:
        case Intrinsic::experimental_noalias_scope_decl:
        case Intrinsic::dbg_declare:
        case Intrinsic::dbg_value:
        case Intrinsic::dbg_label:
          return true;  // hints about the scalar code
        default:
          break;
      }
    }
    if (callee->getName() == ANY_LANE) {  // of the block's active lanes
      Value *p = call.getArgOperand(0);
      Value *m = mask(call);
      if (shapes_.of(p).uniform())
        scalar_[&call] = m ? b_.CreateAnd(scalar(p), any(m)) : scalar(p);
      else
        scalar_[&call] = any(m ? b_.CreateAnd(vec(p), m) : vec(p));
      return true;
    }
    if (callee->getName() == ANY_ABOVE) {
      scalar_[&call] = any_above(call.getArgOperand(0), call.getArgOperand(1), mask(call));
      return true;
    }
    if (callee->getName() == FIRST_LANE) {  // lowest set bit of the active lanes' p; none: the last lane
      Value *p = call.getArgOperand(0), *m = mask(call);
      Value *bits = shapes_.of(p).uniform() ? b_.CreateVectorSplat(w_, scalar(p)) : vec(p);
      if (m) bits = b_.CreateAnd(bits, m);
      Value *word = b_.CreateBitCast(bits, b_.getIntNTy(w_));
      Value *first = b_.CreateBinaryIntrinsic(Intrinsic::cttz, word, b_.getFalse());
      first = b_.CreateBinaryIntrinsic(Intrinsic::umin, first, ConstantInt::get(word->getType(), w_ - 1));
      scalar_[&call] = b_.CreateZExtOrTrunc(first, call.getType());
      return true;
    }
    if (callee->getName() == LANE_VALUE) {
      Value *x = call.getArgOperand(0), *l = scalar(call.getArgOperand(1));
      Shape s = shapes_.of(x);
      if (isa<Constant>(x) || s.uniform()) {
        scalar_[&call] = scalar(x);
      } else if (s.affine()) {  // lane 0's value plus lane times stride
        Value *stride = ConstantInt::get(x->getType(), (uint64_t)s.stride, true);
        scalar_[&call] = b_.CreateAdd(scalar(x), b_.CreateMul(b_.CreateZExt(l, x->getType()), stride));
      } else {
        scalar_[&call] = b_.CreateExtractElement(vec(x), l);
      }
      return true;
    }
    if (is_lane_id(call)) {
      scalar_[&call] = b_.CreateZExtOrTrunc(x_base_, call.getType());
      return true;
    }
    auto uniform_arg = [&](const Use &a) { return isa<Constant>(a) || shapes_.of(a).uniform(); };
    if (call.hasFnAttr(ONCE_PER_VECTOR) && call.getType()->isVoidTy() &&
        std::all_of(call.arg_begin(), call.arg_end(), uniform_arg)) {
      Value *m = mask(call);
      BasicBlock *done = nullptr;
      if (m) {  // a linearized block may run with no lane active
        BasicBlock *some = BasicBlock::Create(c_, "wfv.once", nf_);
        done = BasicBlock::Create(c_, "wfv.once.done", nf_);
        b_.CreateCondBr(any(m), some, done);
        b_.SetInsertPoint(some);
      }
      emit_scalar(call);
      if (m) {
        b_.CreateBr(done);
        b_.SetInsertPoint(done);
      }
      return true;
    }
    Shape s = call.getType()->isVoidTy() ? Shape::varying() : shapes_.of(&call);
    if (s.affine()) {
      emit_scalar(call);
      return true;
    }
    Type *t = call.getType();
    bool all_vectorizable = t->isVoidTy() || VectorType::isValidElementType(t);
    for (Value *a : call.args()) all_vectorizable &= VectorType::isValidElementType(a->getType());
    // A function with vector variants (SLEEF's, vector_math.cpp) is pure, whatever its
    // declaration says: inactive lanes may run through them.
    bool has_variants = !VFDatabase::getMappings(call).empty();
    if (all_vectorizable && !t->isVoidTy() && (call.doesNotAccessMemory() || has_variants)) {
      Intrinsic::ID id = getVectorIntrinsicIDForCall(&call, nullptr);
      if (id != Intrinsic::not_intrinsic && isTriviallyVectorizable(id)) {
        std::vector<Type *> overloads;
        if (isVectorIntrinsicWithOverloadTypeAtArg(id, -1)) overloads.push_back(wide_type(t));
        std::vector<Value *> args;
        for (unsigned i = 0; i < call.arg_size(); i++) {
          Value *a = call.getArgOperand(i);
          bool scalar_arg = isVectorIntrinsicWithScalarOpAtArg(id, i);
          if (scalar_arg && !shapes_.of(a).uniform()) return emit_per_lane(call, nullptr);
          args.push_back(scalar_arg ? scalar(a) : vec(a));
          if (isVectorIntrinsicWithOverloadTypeAtArg(id, (int)i)) overloads.push_back(args.back()->getType());
        }
        Function *decl = Intrinsic::getDeclaration(&m_, id, overloads);
        CallInst *wide = b_.CreateCall(decl, args, call.getName());
        wide->copyFastMathFlags(&call);
        vector_[&call] = wide;
        return true;
      }
      // The widest variant whose lane count divides the width: the vector is run through it
      // in parts (two AVX2 variants of 8 for a width of 16).
      Function *variant = nullptr;
      unsigned vf = 0;
      for (const VFInfo &info : VFDatabase::getMappings(call)) {
        unsigned lanes = info.Shape.VF.getKnownMinValue();
        if (info.Shape.VF.isScalable() || lanes > w_ || w_ % lanes || info.isMasked() || lanes <= vf) continue;
        bool plain = true;
        for (const VFParameter &p : info.Shape.Parameters) plain &= p.ParamKind == VFParamKind::Vector;
        Function *candidate = m_.getFunction(info.VectorName);
        if (!plain || !candidate) continue;
        variant = candidate;
        vf = lanes;
      }
      if (variant) {
        std::vector<Value *> wide_args;
        for (Value *a : call.args()) wide_args.push_back(vec(a));
        std::vector<Value *> parts;
        for (unsigned first = 0; first < w_; first += vf) {
          std::vector<Value *> args;
          for (Value *a : wide_args) args.push_back(vf == w_ ? a : b_.CreateShuffleVector(a, createSequentialMask(first, vf, 0)));
          parts.push_back(b_.CreateCall(variant, args, call.getName()));
        }
        vector_[&call] = concatenateVectors(b_, parts);
        return true;
      }
      return emit_per_lane(call, nullptr);
    }
    return emit_per_lane(call, mask(call));
  }

  // An integer compare of an id with a bound the same for all lanes (`lid < s`, `gid == 0`).
  // The id is an affine value of stride 1, or one masked to its low bits (`(int)lid == 15`
  // after InstCombine: `and lid, 0xffffffff`). A lane's answer depends only on how many
  // lanes lie below the bound, a scalar: comparing the lane numbers with it is one narrow
  // vector compare instead of W compares in the values' type (64-bit for size_t ids: four
  // per 16 lanes on AVX2, and their packing). Exact where lane 0's value plus W - 1 does not
  // pass the largest value (of the type, or of the mask); there the lanes' values are
  // compared after all. Equality of unmasked ids is exact always (modular).
  Value *affine_compare(ICmpInst &cmp) {
    Value *l = cmp.getOperand(0), *r = cmp.getOperand(1);
    CmpInst::Predicate p = cmp.getPredicate();
    // Whether `v` is an id: affine of stride 1 itself (`inner` null), or `inner & mask`.
    auto as_id = [&](Value *v, Value *&inner, const APInt *&mask) {
      if (shapes_.of(v) == Shape::affine_shape(1)) {
        inner = nullptr;
        mask = nullptr;
        return true;
      }
      auto *bo = dyn_cast<BinaryOperator>(v);
      auto *m = bo && bo->getOpcode() == Instruction::And ? dyn_cast<ConstantInt>(bo->getOperand(1)) : nullptr;
      if (!m || !m->getValue().isMask() || m->getValue().countr_one() < 8 ||
          m->getValue().countr_one() >= m->getBitWidth() - 1 || shapes_.of(bo->getOperand(0)) != Shape::affine_shape(1))
        return false;
      mask = &m->getValue();
      inner = bo->getOperand(0);
      return true;
    };
    Value *id = nullptr;
    const APInt *mask = nullptr;
    if (!(shapes_.of(r).uniform() && as_id(l, id, mask))) {
      if (!(shapes_.of(l).uniform() && as_id(r, id, mask))) return nullptr;
      std::swap(l, r);
      p = CmpInst::getSwappedPredicate(p);
    }
    auto *t = dyn_cast<IntegerType>(l->getType());
    if (!t || t->getBitWidth() < 8) return nullptr;
    Value *first = mask ? b_.CreateAnd(scalar(id), ConstantInt::get(t, *mask)) : scalar(l);
    Value *bound = scalar(r);
    Value *distance = b_.CreateSub(bound, first);  // as unsigned: exact when bound >= first
    Constant *lanes = lane_offsets(b_.getInt32Ty(), 1);
    auto at_most = [&](uint64_t max) {  // umin(distance, max) as i32
      Value *m = ConstantInt::get(t, max);
      return b_.CreateTrunc(b_.CreateSelect(b_.CreateICmpULT(distance, m), distance, m), b_.getInt32Ty());
    };
    auto splat = [&](Value *v) { return b_.CreateVectorSplat(w_, v); };
    bool is_signed = ICmpInst::isSigned(p);
    Value *fast;
    if (ICmpInst::isEquality(p)) {
      fast = b_.CreateICmpEQ(lanes, splat(at_most(w_)));
      if (p == CmpInst::ICMP_NE) fast = b_.CreateNot(fast);
      if (!mask) return fast;
    } else {
      CmpInst::Predicate strict = ICmpInst::getStrictPredicate(p);
      bool below_bound = strict == CmpInst::ICMP_ULT || strict == CmpInst::ICMP_SLT;
      // The lanes below (or at) the bound are the first `count`; x > b is !(x <= b), x >= b
      // is !(x < b).
      bool count_inclusive = below_bound ? p != strict : p == strict;
      Value *empty = is_signed ? b_.CreateICmpSLT(bound, first) : b_.CreateICmpULT(bound, first);
      Value *count = count_inclusive ? b_.CreateAdd(at_most(w_ - 1), b_.getInt32(1)) : at_most(w_);
      count = b_.CreateSelect(empty, b_.getInt32(0), count);
      fast = b_.CreateICmpULT(lanes, splat(count));
      if (!below_bound) fast = b_.CreateNot(fast);
    }
    unsigned bits = t->getBitWidth();
    APInt last = mask ? *mask : is_signed ? APInt::getSignedMaxValue(bits) : APInt::getMaxValue(bits);
    Value *wraps = is_signed && !mask ? b_.CreateICmpSGT(first, ConstantInt::get(t, last - (w_ - 1)))
                                      : b_.CreateICmpUGT(first, ConstantInt::get(t, last - (w_ - 1)));
    BasicBlock *before = b_.GetInsertBlock();
    BasicBlock *exact = BasicBlock::Create(c_, "wfv.wraps", nf_), *cont = BasicBlock::Create(c_, "wfv.wraps.next", nf_);
    b_.CreateCondBr(wraps, exact, cont);
    b_.SetInsertPoint(exact);
    Value *slow = b_.CreateICmp(cmp.getPredicate(), vec(cmp.getOperand(0)), vec(cmp.getOperand(1)));
    b_.CreateBr(cont);
    b_.SetInsertPoint(cont);
    PHINode *phi = b_.CreatePHI(fast->getType(), 2, cmp.getName());
    phi->addIncoming(slow, exact);
    phi->addIncoming(fast, before);
    return phi;
  }

  bool emit_wide(Instruction &inst) {
    Type *t = inst.getType();
    if (!VectorType::isValidElementType(t)) return fail("an OpenCL vector or aggregate value that differs between lanes");
    Value *r = nullptr;
    if (auto *bin = dyn_cast<BinaryOperator>(&inst)) {
      r = b_.CreateBinOp(bin->getOpcode(), vec(bin->getOperand(0)), vec(bin->getOperand(1)), inst.getName());
    } else if (auto *un = dyn_cast<UnaryOperator>(&inst)) {
      r = b_.CreateUnOp(un->getOpcode(), vec(un->getOperand(0)), inst.getName());
    } else if (auto *cmp = dyn_cast<CmpInst>(&inst)) {
      auto *icmp = dyn_cast<ICmpInst>(cmp);
      r = icmp ? affine_compare(*icmp) : nullptr;
      if (!r) r = b_.CreateCmp(cmp->getPredicate(), vec(cmp->getOperand(0)), vec(cmp->getOperand(1)), inst.getName());
    } else if (auto *cast = dyn_cast<CastInst>(&inst)) {
      if (!VectorType::isValidElementType(cast->getSrcTy())) return emit_per_lane(inst, nullptr);
      r = b_.CreateCast(cast->getOpcode(), vec(cast->getOperand(0)), wide_type(t), inst.getName());
    } else if (auto *sel = dyn_cast<SelectInst>(&inst)) {
      Value *cond = sel->getCondition();
      r = b_.CreateSelect(shapes_.of(cond).uniform() ? scalar(cond) : vec(cond), vec(sel->getTrueValue()),
                          vec(sel->getFalseValue()), inst.getName());
    } else if (auto *gep = dyn_cast<GetElementPtrInst>(&inst)) {
      std::vector<Value *> indices;
      for (Value *i : gep->indices()) indices.push_back(shapes_.of(i).uniform() ? scalar(i) : vec(i));
      Value *base = gep->getPointerOperand();
      r = b_.CreateGEP(gep->getSourceElementType(), shapes_.of(base).uniform() ? scalar(base) : vec(base), indices,
                       inst.getName(), gep->isInBounds());
      if (!r->getType()->isVectorTy()) r = b_.CreateVectorSplat(w_, r);
    } else if (isa<FreezeInst>(inst)) {
      r = b_.CreateFreeze(vec(inst.getOperand(0)), inst.getName());
    } else if (!inst.mayReadOrWriteMemory() && !inst.mayHaveSideEffects()) {
      return emit_per_lane(inst, nullptr);
    } else {
      return fail(std::string("an instruction it does not widen: ") + inst.getOpcodeName());
    }
    if (auto *ri = dyn_cast<Instruction>(r); ri && !isa<CallInst>(ri)) ri->copyIRFlags(&inst);
    vector_[&inst] = r;
    return true;
  }

  bool emit(Instruction &inst) {
    if (auto *phi = dyn_cast<PHINode>(&inst)) {
      Shape s = shapes_.of(phi);
      if (!s.affine() && !VectorType::isValidElementType(phi->getType()))
        return fail("an OpenCL vector or aggregate value that differs between lanes");
      PHINode *copy = b_.CreatePHI(s.affine() ? phi->getType() : wide_type(phi->getType()), phi->getNumIncomingValues(),
                                   phi->getName());
      (s.affine() ? scalar_ : vector_)[phi] = copy;
      phis_.emplace_back(phi, copy);
      return true;
    }
    if (auto *br = dyn_cast<BranchInst>(&inst)) {
      if (br->isConditional() && !shapes_.of(br->getCondition()).uniform())
        return fail("a divergent branch left after linearization");
      emit_scalar(inst);
      return true;
    }
    if (auto *ret = dyn_cast<ReturnInst>(&inst)) {
      // A returned value (a barrier region's next region) must be the same for every lane
      // (OpenCL's barrier rule); lane 0's is taken when the shapes cannot tell.
      Value *v = ret->getReturnValue();
      if (!v) {
        b_.CreateRetVoid();
      } else if (isa<Constant>(v) || shapes_.of(v).affine()) {
        b_.CreateRet(scalar(v));
      } else {
        if (!VectorType::isValidElementType(v->getType())) return fail("a returned aggregate that differs between lanes");
        b_.CreateRet(b_.CreateExtractElement(vec(v), (uint64_t)0));
      }
      return true;
    }
    if (auto *a = dyn_cast<AllocaInst>(&inst)) {
      if (!a->isStaticAlloca()) return fail("a private array of run-time size");
      IRBuilder<> eb(entry_, entry_->begin());
      AllocaInst *lanes = eb.CreateAlloca(eb.getInt8Ty(), eb.getInt64((uint64_t)shapes_.of(a).stride * w_), a->getName());
      lanes->setAlignment(a->getAlign());
      scalar_[a] = lanes;
      return true;
    }
    if (auto *load = dyn_cast<LoadInst>(&inst)) return emit_load(*load);
    if (auto *store = dyn_cast<StoreInst>(&inst)) return emit_store(*store);
    if (auto *call = dyn_cast<CallInst>(&inst)) return emit_call(*call);
    if (isa<AtomicRMWInst>(inst) || isa<AtomicCmpXchgInst>(inst)) return emit_per_lane(inst, mask(inst));
    if (isa<FenceInst>(inst)) {
      emit_scalar(inst);
      return true;
    }
    if (inst.isTerminator()) return fail(std::string("a terminator it does not handle: ") + inst.getOpcodeName());
    if (shapes_.of(&inst).affine()) {
      emit_scalar(inst);
      return true;
    }
    return emit_wide(inst);
  }
};

}  // namespace

Function *widen(Function &f, const BlockPredicates &predicates, unsigned width, std::string &why) {
  return Widener(f, predicates, width, why).run();
}

}  // namespace kiln::wfv
