// work_item_vectorize.cpp: prepares the launchers' work-item loops for LLVM's loop
// vectorizer (compiler_internal.hpp). Runs once inlining and simplification are done,
// before the vectorizer.
//
// Parallel: work-items of a group are unordered unless a barrier orders them, and
// work-items that race on memory make the kernel undefined (OpenCL C, memory model). So the
// iterations of a work-item loop (emit_loop's "x" loops, tagged WORK_ITEM_LOOP) are
// independent as far as shared memory (global, constant, local) goes, and the loop is
// annotated llvm.loop.parallel_accesses: the vectorizer then needs no run-time alias checks,
// which it cannot build for addresses computed from data (an image's texels, a gather).
// Private memory is different: the launcher's stack slots and the barrier frames outlive an
// iteration, so a loop that stores to private or generic memory, or calls something that
// writes memory, or has atomics or volatile accesses, stays unannotated.
//
// Scalarized: the vectorizer widens scalar instructions only and refuses a loop holding an
// OpenCL vector type (float4 pixels). A copy of such a function, its vectors split into
// scalars, is offered to the vectorizer first; when the vectorizer widens a loop of the copy
// and TTI prices a work-item there clearly below the original's, the copy replaces the
// function (its work-items then run 4, 8 or 16 at a time instead of one float4 at a time);
// otherwise the copy is dropped and the function keeps its vector code.
#include "device/cpu/compiler/compiler_internal.hpp"

#include <llvm/Analysis/LoopInfo.h>
#include <llvm/Analysis/TargetTransformInfo.h>
#include <llvm/Analysis/VectorUtils.h>
#include <llvm/IR/Constants.h>
#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/InstIterator.h>
#include <llvm/IR/Instructions.h>
#include <llvm/IR/Metadata.h>
#include <llvm/IR/PassManager.h>
#include <llvm/Transforms/InstCombine/InstCombine.h>
#include <llvm/Transforms/Scalar/Scalarizer.h>
#include <llvm/Transforms/Utils/Cloning.h>
#include <llvm/Transforms/Utils/LCSSA.h>
#include <llvm/Transforms/Utils/LoopSimplify.h>
#include <llvm/Transforms/Utils/LoopUtils.h>
#include <llvm/Transforms/Vectorize/LoopVectorize.h>

#include <cstdlib>
#include <cstring>
#include <vector>

using namespace llvm;

namespace {

bool is_shared_space(unsigned as) {
  return as == kiln::AS_GLOBAL || as == kiln::AS_CONSTANT || as == kiln::AS_LOCAL;
}

// Whether the memory accesses of `loop` allow its iterations to run in any order (above).
bool iterations_independent(const Loop &loop) {
  for (BasicBlock *bb : loop.blocks())
    for (Instruction &inst : *bb) {
      if (!inst.mayReadOrWriteMemory()) continue;
      if (auto *load = dyn_cast<LoadInst>(&inst)) {
        if (!load->isSimple()) return false;
      } else if (auto *store = dyn_cast<StoreInst>(&inst)) {
        if (!store->isSimple() || !is_shared_space(store->getPointerAddressSpace())) return false;
      } else if (auto *call = dyn_cast<CallBase>(&inst)) {
        if (!call->onlyReadsMemory()) return false;
      } else {
        return false;  // atomics, fences
      }
    }
  return true;
}

// Marks `loop` parallel; with `force`, also asks the vectorizer for 8 work-items at a time
// whatever its cost model says (KILN_WORK_ITEM_VECTORIZE=force).
void annotate_parallel(Loop &loop, bool force) {
  LLVMContext &c = loop.getHeader()->getContext();
  MDNode *group = MDNode::getDistinct(c, {});
  for (BasicBlock *bb : loop.blocks())
    for (Instruction &inst : *bb)
      if (inst.mayReadOrWriteMemory())
        inst.setMetadata(LLVMContext::MD_access_group,
                         uniteAccessGroups(inst.getMetadata(LLVMContext::MD_access_group), group));
  SmallVector<Metadata *, 4> ops{nullptr};
  if (MDNode *old = loop.getLoopID())
    for (unsigned i = 1; i < old->getNumOperands(); i++) ops.push_back(old->getOperand(i));
  ops.push_back(MDNode::get(c, {MDString::get(c, "llvm.loop.parallel_accesses"), group}));
  if (force) {
    Type *i32 = Type::getInt32Ty(c);
    ops.push_back(MDNode::get(c, {MDString::get(c, "llvm.loop.vectorize.enable"),
                                  ConstantAsMetadata::get(ConstantInt::getTrue(c))}));
    ops.push_back(MDNode::get(c, {MDString::get(c, "llvm.loop.vectorize.width"),
                                  ConstantAsMetadata::get(ConstantInt::get(i32, 8))}));
  }
  MDNode *id = MDNode::getDistinct(c, ops);
  id->replaceOperandWith(0, id);
  loop.setLoopID(id);
}

bool has_vector_values(const Loop &loop) {
  for (BasicBlock *bb : loop.blocks())
    for (Instruction &inst : *bb) {
      if (inst.getType()->isVectorTy()) return true;
      if (auto *store = dyn_cast<StoreInst>(&inst); store && store->getValueOperand()->getType()->isVectorTy())
        return true;
    }
  return false;
}

// The work-items one iteration of a loop the vectorizer made runs (its index step).
uint64_t vector_loop_width(const Loop &loop) {
  for (BasicBlock *bb : loop.blocks())
    for (Instruction &inst : *bb)
      if (inst.getName().starts_with("index.next"))
        if (auto *step = dyn_cast<ConstantInt>(inst.getOperand(1))) return step->getZExtValue();
  return 0;
}

// TTI's reciprocal throughput of one pass over `loop`'s blocks.
uint64_t loop_cost(const Loop &loop, const TargetTransformInfo &tti) {
  uint64_t cost = 0;
  for (BasicBlock *bb : loop.blocks())
    for (Instruction &inst : *bb) {
      InstructionCost c = tti.getInstructionCost(&inst, TargetTransformInfo::TCK_RecipThroughput);
      cost += c.isValid() ? (uint64_t)*c.getValue() : 1000;
    }
  return cost;
}

// The cost of one work-item through f's innermost work-item loops, in TTI units x 64 (each
// loop counted once: versions of a loop that unswitching made count as separate loops, a
// mild overestimate on both sides); `vectorized` says whether the vectorizer widened one.
uint64_t work_item_cost(Function &f, FunctionAnalysisManager &fam, bool &vectorized) {
  LoopInfo &loops = fam.getResult<LoopAnalysis>(f);
  const TargetTransformInfo &tti = fam.getResult<TargetIRAnalysis>(f);
  uint64_t cost = 0;
  vectorized = false;
  for (Loop *loop : loops.getLoopsInPreorder()) {
    if (!loop->isInnermost()) continue;
    if (loop->getHeader()->getName().starts_with("vector.body")) {
      uint64_t width = vector_loop_width(*loop);
      if (!width) continue;
      cost += loop_cost(*loop, tti) * 64 / width;
      vectorized = true;
    } else if (findOptionMDForLoop(loop, kiln::WORK_ITEM_LOOP) && !findOptionMDForLoop(loop, "llvm.loop.isvectorized")) {
      cost += loop_cost(*loop, tti) * 64;
    }
  }
  return cost;
}

// A vector of small integers that fits a scalar register (uchar4 pixels, short2 ...): the
// scalarizer would split its loads and stores into one per element, which the vectorizer
// then gathers and scatters element by element. As one integer load or store (the elements
// taken out and put back with shifts) they become one gather or one wide store instead.
IntegerType *packed_type(Type *t) {
  auto *vec = dyn_cast<FixedVectorType>(t);
  if (!vec || !vec->getElementType()->isIntegerTy()) return nullptr;
  unsigned bits = vec->getPrimitiveSizeInBits().getFixedValue();
  if (bits != 16 && bits != 32 && bits != 64) return nullptr;
  return IntegerType::get(t->getContext(), bits);
}

void pack_small_vector_accesses(Function &f) {
  std::vector<Instruction *> accesses;
  for (Instruction &inst : instructions(f))
    if ((isa<LoadInst>(inst) && packed_type(inst.getType())) ||
        (isa<StoreInst>(inst) && packed_type(cast<StoreInst>(inst).getValueOperand()->getType())))
      accesses.push_back(&inst);
  for (Instruction *inst : accesses) {
    IRBuilder<> b(inst);
    if (auto *load = dyn_cast<LoadInst>(inst)) {
      auto *vec = cast<FixedVectorType>(load->getType());
      IntegerType *packed = packed_type(vec);
      unsigned element_bits = vec->getScalarSizeInBits();
      LoadInst *whole = b.CreateAlignedLoad(packed, load->getPointerOperand(), load->getAlign());
      whole->copyMetadata(*load, {LLVMContext::MD_access_group, LLVMContext::MD_noalias, LLVMContext::MD_alias_scope});
      Value *v = PoisonValue::get(vec);
      for (unsigned i = 0; i < vec->getNumElements(); i++)
        v = b.CreateInsertElement(v, b.CreateTrunc(b.CreateLShr(whole, i * element_bits), vec->getElementType()), i);
      load->replaceAllUsesWith(v);
      load->eraseFromParent();
    } else {
      auto *store = cast<StoreInst>(inst);
      // Frozen: a 3-element vector is stored as 4 whose last is poison (clang's vec3
      // stores), and one poison element would make the whole packed integer poison, which
      // the optimizer may then drop with the store.
      Value *value = b.CreateFreeze(store->getValueOperand());
      auto *vec = cast<FixedVectorType>(value->getType());
      IntegerType *packed = packed_type(vec);
      unsigned element_bits = vec->getScalarSizeInBits();
      Value *whole = ConstantInt::get(packed, 0);
      for (unsigned i = 0; i < vec->getNumElements(); i++)
        whole = b.CreateOr(whole, b.CreateShl(b.CreateZExt(b.CreateExtractElement(value, i), packed), i * element_bits));
      StoreInst *packed_store = b.CreateAlignedStore(whole, store->getPointerOperand(), store->getAlign());
      packed_store->copyMetadata(*store, {LLVMContext::MD_access_group, LLVMContext::MD_noalias, LLVMContext::MD_alias_scope});
      store->eraseFromParent();
    }
  }
}

// Annotates f's innermost work-item loops whose iterations are independent; true when one
// of them holds vector values (worth a scalarized trial).
bool annotate_work_item_loops(Function &f, FunctionAnalysisManager &fam) {
  LoopInfo &loops = fam.getResult<LoopAnalysis>(f);
  bool vector_values = false;
  for (Loop *loop : loops.getLoopsInPreorder()) {
    if (!loop->isInnermost() || !findOptionMDForLoop(loop, kiln::WORK_ITEM_LOOP)) continue;
    if (!iterations_independent(*loop)) continue;
    annotate_parallel(*loop, kiln::work_item_vectorization_mode() == kiln::WorkItemVectorization::Force);
    vector_values |= has_vector_values(*loop);
  }
  return vector_values;
}

class WorkItemVectorizePass : public PassInfoMixin<WorkItemVectorizePass> {
public:
  PreservedAnalyses run(Module &m, ModuleAnalysisManager &mam) {
    FunctionAnalysisManager &fam = mam.getResult<FunctionAnalysisManagerModuleProxy>(m).getManager();
    std::vector<Function *> candidates;
    for (Function &f : m) {
      if (f.isDeclaration()) continue;
      if (annotate_work_item_loops(f, fam) && !f.hasFnAttribute(kiln::WFV_LAUNCHER)) candidates.push_back(&f);
      fam.invalidate(f, PreservedAnalyses::none());
    }
    for (Function *f : candidates) {
      bool vectorized = false;
      uint64_t original_cost = work_item_cost(*f, fam, vectorized);
      ValueToValueMapTy map;
      Function *copy = CloneFunction(f, map);
      pack_small_vector_accesses(*copy);
      FunctionPassManager trial;
      ScalarizerPassOptions options;
      options.ScalarizeLoadStore = true;
      trial.addPass(ScalarizerPass(options));
      trial.addPass(InstCombinePass());
      trial.addPass(LoopSimplifyPass());
      trial.addPass(LCSSAPass());
      trial.addPass(LoopVectorizePass());
      trial.run(*copy, fam);
      uint64_t trial_cost = work_item_cost(*copy, fam, vectorized);
      fam.clear(*copy, copy->getName());
      Function *dropped = copy;
      // The vectorized copy only where TTI finds it clearly cheaper per work-item than the
      // original's vector code (under 0.6 of it): TTI prices gathers optimistically. Measured on
      // a 16-core AVX-512 Xeon: kiln_bench's resamples, at 0.38 (RGBA8) and 0.50 (float), ran
      // 2.1x and 1.5x faster vectorized; its RGBA8 convolution, at 0.67, 1.2-1.7x slower (nine
      // masked texel gathers and a scatter per 16 work-items instead of nine 4-byte loads each).
      bool force = kiln::work_item_vectorization_mode() == kiln::WorkItemVectorization::Force;
      if (vectorized && (force || trial_cost * 10 < original_cost * 6)) {
        copy->takeName(f);
        f->replaceAllUsesWith(copy);
        dropped = f;
      }
      fam.clear(*dropped, dropped->getName());
      dropped->eraseFromParent();
    }
    return PreservedAnalyses::none();
  }
};

}  // namespace

namespace kiln {

void add_work_item_vectorization(ModulePassManager &mpm) { mpm.addPass(WorkItemVectorizePass()); }

WorkItemVectorization work_item_vectorization_mode() {
  static const WorkItemVectorization mode = [] {
    const char *v = getenv("KILN_WORK_ITEM_VECTORIZE");
    if (v && strcmp(v, "force") == 0) return WorkItemVectorization::Force;
    if (v && strcmp(v, "off") == 0) return WorkItemVectorization::Off;
    return WorkItemVectorization::Auto;
  }();
  return mode;
}

}  // namespace kiln
