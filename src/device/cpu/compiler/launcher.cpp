// launcher.cpp: the work-group launcher of a kernel (kernel_abi.h). It loops over the
// launch's work-groups; inside, z/y/x loops over local ids run the fully inlined kernel
// body, whose work-item intrinsic calls become the loops' values and whose static __local
// variables become offsets into the thread's local memory.
//
// Kernels with barriers: continuation-based synchronization (Karrenberg & Hack, CGO'12).
// The inlined body is split at every barrier into barrier-free regions. Values live across
// a barrier are recomputed where cheap (arithmetic on arguments and work-item ids) or else
// demoted to stack slots. Stack slots of values that differ between work-items live in
// frames (per slot an array with an element per work-item of the group, heap-allocated per
// launcher call); those of values uniform across the group (LLVM's uniformity analysis; e.g. the
// stride of a tree reduction) live once per group, in two launcher-local buffers: a region
// reads the "current" one when a work-item enters it and writes the "next" one when the
// work-item leaves, and "next" becomes "current" once every work-item has run the region.
// (One shared slot would be wrong: work-items run one after another, so the first one's
// update would reach the others within the same region.) Being launcher allocas, the
// uniform slots become registers after optimization, and region loops whose only frame
// traffic was such a value vectorize. Each
// region becomes a function of one work-item (region_function) that returns which region
// comes next when the work-item reaches a barrier (or returns); wfv/ widens it like a
// kernel, and its own z/y/x loops run whole vectors of work-items through the wide forms
// and the rest through it, stopping where the region's guards on the x id leave the rest
// of the row idle (idle_work_items.hpp); a dispatcher runs the next region's loops.
// Barriers must be
// reached by all work-items of a group (OpenCL's rule), so the next region is the same
// for all of them.
#include "device/cpu/builtins/address_space_host.h"
#include "device/cpu/builtins/pipe_host.h"
#include "device/cpu/bounds_check.h"
#include "device/cpu/compiler/compiler_internal.hpp"
#include "device/cpu/compiler/idle_work_items.hpp"
#include "device/cpu/compiler/kernel_debugging.hpp"
#include "device/cpu/compiler/wfv/wfv.hpp"
#include "device/cpu/device_enqueue_symbols.h"
#include "device/cpu/fibers.h"

#include <llvm/Analysis/TargetTransformInfoImpl.h>
#include <llvm/Analysis/UniformityAnalysis.h>
#include <llvm/IR/Constants.h>
#include <llvm/IR/Dominators.h>
#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/InstIterator.h>
#include <llvm/IR/Instructions.h>
#include <llvm/IR/IntrinsicInst.h>
#include <llvm/IR/IntrinsicsX86.h>
#include <llvm/IR/ReplaceConstant.h>
#include <llvm/Passes/PassBuilder.h>
#include <llvm/TargetParser/Host.h>
#include <llvm/TargetParser/Triple.h>
#include <llvm/Transforms/InstCombine/InstCombine.h>
#include <llvm/Transforms/Scalar/EarlyCSE.h>
#include <llvm/Transforms/Scalar/SROA.h>
#include <llvm/Transforms/Utils/BasicBlockUtils.h>
#include <llvm/Transforms/Utils/Cloning.h>
#include <llvm/Transforms/Utils/Local.h>
#include <llvm/Transforms/Utils/ValueMapper.h>

#include <cstddef>
#include <functional>
#include <map>
#include <set>
#include <string>

using namespace llvm;

namespace {

// JIT code finds the generic address space's host helper by name (libkiln hides it).
[[maybe_unused]] const bool address_space_host_registered = (kiln_address_space_host_register(), true);
// Likewise the pipe functions clang calls (builtins/pipe_host.c).
[[maybe_unused]] const bool pipe_host_registered = (kiln_pipe_host_register(), true);
// And the device-side enqueue functions (device/cpu/device_enqueue.c).
[[maybe_unused]] const bool device_enqueue_registered = (kiln_device_enqueue_register(), true);
// And the fiber launchers' scheduler (device/cpu/fibers.c).
[[maybe_unused]] const bool fibers_registered = (kiln_fibers_register(), true);
// And the bounds checks' violation handler (device/cpu/bounds_check.c).
[[maybe_unused]] const bool bounds_registered = (kiln_bounds_check_register(), true);

// The values a work-item intrinsic stands for, per dimension, at the current iteration.
struct WorkItemValues {
  Value *local_id[3], *group_id[3], *local_size[3], *enqueued_local_size[3];
  Value *global_size[3], *global_offset[3], *num_groups[3];
  Value *work_dim;
  Value *memory_bound[KILN_BOUND_COUNT];  // KILN_INTRINSIC_MEMORY_BOUND's values: the same for the call
};

// for (i = start; i < end; i += step) body(i), at the builder's position (start 0 when
// null). `work_items`: the innermost (x) loop over work-items, tagged for
// work_item_vectorize.cpp. `vectorized`: a loop over whole vectors of work-items (wfv/),
// which LLVM's vectorizer is told to leave alone. `limit`: an i64 in memory that the body
// may lower, a second end read before each iteration.
void emit_loop(IRBuilder<> &b, Value *end, const Twine &name, const std::function<void(Value *)> &body,
               bool work_items = false, Value *start = nullptr, uint64_t step = 1, bool vectorized = false,
               Value *limit = nullptr) {
  LLVMContext &c = b.getContext();
  Function *f = b.GetInsertBlock()->getParent();
  BasicBlock *pre = b.GetInsertBlock();
  BasicBlock *header = BasicBlock::Create(c, name + ".header", f);
  BasicBlock *inner = BasicBlock::Create(c, name + ".body", f);
  BasicBlock *exit = BasicBlock::Create(c, name + ".exit", f);
  b.CreateBr(header);
  b.SetInsertPoint(header);
  PHINode *i = b.CreatePHI(b.getInt64Ty(), 2, name);
  i->addIncoming(start ? start : b.getInt64(0), pre);
  if (limit) end = b.CreateBinaryIntrinsic(Intrinsic::umin, end, b.CreateLoad(b.getInt64Ty(), limit, "limit"));
  b.CreateCondBr(b.CreateICmpULT(i, end), inner, exit);
  b.SetInsertPoint(inner);
  body(i);
  Value *next = b.CreateAdd(i, b.getInt64(step), name + ".next", /*HasNUW=*/true, /*HasNSW=*/true);
  i->addIncoming(next, b.GetInsertBlock());
  BranchInst *latch = b.CreateBr(header);
  if (work_items || vectorized) {
    MDNode *tag = work_items ? MDNode::get(c, MDString::get(c, kiln::WORK_ITEM_LOOP))
                             : MDNode::get(c, {MDString::get(c, "llvm.loop.isvectorized"),
                                               ConstantAsMetadata::get(b.getInt32(1))});
    MDNode *id = MDNode::getDistinct(c, {nullptr, tag});
    id->replaceOperandWith(0, id);
    latch->setMetadata(LLVMContext::MD_loop, id);
  }
  b.SetInsertPoint(exit);
}

// Value for dimension `d` (a constant or not); out-of-range dimensions get `fallback`.
Value *select_dim(IRBuilder<> &b, Value *d, Value *const values[3], uint64_t fallback) {
  if (auto *c = dyn_cast<ConstantInt>(d)) {
    uint64_t i = c->getZExtValue();
    return i < 3 ? values[i] : b.getInt64(fallback);
  }
  Value *dim = b.CreateZExtOrTrunc(d, b.getInt32Ty());
  Value *r = b.getInt64(fallback);
  for (int i = 2; i >= 0; i--) r = b.CreateSelect(b.CreateICmpEQ(dim, b.getInt32(i)), values[i], r);
  return r;
}

// -cl-denorms-are-zero: the launcher runs with x86's MXCSR flush-to-zero and
// denormals-are-zero bits set, for single and double precision alike (OpenCL allows
// flushing both), and gives the caller its MXCSR back on every return. Elsewhere denormals
// stay (the option is a hint).
void flush_denormals(Function &f) {
  if (!Triple(sys::getProcessTriple()).isX86()) return;
  IRBuilder<> b(&*f.getEntryBlock().getFirstInsertionPt());
  AllocaInst *saved = b.CreateAlloca(b.getInt32Ty(), nullptr, "mxcsr");
  AllocaInst *flushing = b.CreateAlloca(b.getInt32Ty(), nullptr, "mxcsr.ftz");
  b.CreateIntrinsic(Intrinsic::x86_sse_stmxcsr, {}, {saved});
  b.CreateStore(b.CreateOr(b.CreateLoad(b.getInt32Ty(), saved), b.getInt32(0x8040)), flushing);  // FTZ | DAZ
  b.CreateIntrinsic(Intrinsic::x86_sse_ldmxcsr, {}, {flushing});
  for (BasicBlock &bb : f)
    if (auto *ret = dyn_cast<ReturnInst>(bb.getTerminator()))
      IRBuilder<>(ret).CreateIntrinsic(Intrinsic::x86_sse_ldmxcsr, {}, {saved});
}

// KILN_INTRINSIC_MEMORY_BOUND's value `which` (0 for an unknown one).
Value *select_bound(IRBuilder<> &b, Value *which, Value *const values[KILN_BOUND_COUNT]) {
  if (auto *c = dyn_cast<ConstantInt>(which)) {
    uint64_t i = c->getZExtValue();
    return i < KILN_BOUND_COUNT ? values[i] : b.getInt64(0);
  }
  Value *w = b.CreateZExtOrTrunc(which, b.getInt32Ty());
  Value *r = b.getInt64(0);
  for (unsigned i = 0; i < KILN_BOUND_COUNT; i++) r = b.CreateSelect(b.CreateICmpEQ(w, b.getInt32(i)), values[i], r);
  return r;
}

// Replaces every call of a work-item intrinsic in `blocks`.
void replace_intrinsics(const std::vector<BasicBlock *> &blocks, const WorkItemValues &v) {
  std::vector<CallInst *> calls;
  for (BasicBlock *bb : blocks)
    for (Instruction &inst : *bb)
      if (auto *call = dyn_cast<CallInst>(&inst))
        if (Function *callee = call->getCalledFunction())
          if (kiln::is_work_item_intrinsic(callee->getName())) calls.push_back(call);
  for (CallInst *call : calls) {
    IRBuilder<> b(call);
    StringRef name = call->getCalledFunction()->getName();
    Value *d = call->arg_size() ? call->getArgOperand(0) : nullptr;
    Value *r = nullptr;
    if (name == KILN_INTRINSIC_WORK_DIM) r = v.work_dim;
    else if (!d) continue;
    else if (name == KILN_INTRINSIC_MEMORY_BOUND) r = select_bound(b, d, v.memory_bound);
    else if (name == KILN_INTRINSIC_LOCAL_ID) r = select_dim(b, d, v.local_id, 0);
    else if (name == KILN_INTRINSIC_GROUP_ID) r = select_dim(b, d, v.group_id, 0);
    else if (name == KILN_INTRINSIC_LOCAL_SIZE) r = select_dim(b, d, v.local_size, 1);
    else if (name == KILN_INTRINSIC_ENQUEUED_LOCAL_SIZE) r = select_dim(b, d, v.enqueued_local_size, 1);
    else if (name == KILN_INTRINSIC_GLOBAL_SIZE) r = select_dim(b, d, v.global_size, 1);
    else if (name == KILN_INTRINSIC_GLOBAL_OFFSET) r = select_dim(b, d, v.global_offset, 0);
    else if (name == KILN_INTRINSIC_NUM_GROUPS) r = select_dim(b, d, v.num_groups, 1);
    if (!r) continue;
    call->replaceAllUsesWith(b.CreateZExtOrTrunc(r, call->getType()));
    call->eraseFromParent();
  }
}

std::vector<BasicBlock *> blocks_of(Function &f) {
  std::vector<BasicBlock *> blocks;
  for (BasicBlock &bb : f) blocks.push_back(&bb);
  return blocks;
}

Align arg_align(const DataLayout &dl, Type *t) { return std::min(dl.getABITypeAlign(t), Align(16)); }

bool is_barrier_call(const Instruction &inst) {
  if (auto *call = dyn_cast<CallInst>(&inst))
    if (Function *callee = call->getCalledFunction()) return callee->getName() == KILN_INTRINSIC_BARRIER;
  return false;
}

// ---- Continuation-based synchronization --------------------------------------------------

// A barrier-free region: its first block and every block reachable from it without
// passing a barrier.
struct Region {
  BasicBlock *start;
  std::vector<BasicBlock *> blocks;
};

constexpr uint32_t EXIT_REGION = 0xffffffffu;

// The kernel body prepared for CBS: inlined, barriers alone in their blocks, every value
// live across a barrier in a stack slot of the entry block.
struct SplitKernel {
  std::map<BasicBlock *, uint32_t> barrier_blocks;  // barrier block -> id of the region after it
  std::vector<Region> regions;                      // regions[0] starts at the entry
  // Per-work-item slots, laid out slot by slot (structure of arrays): slot `a`'s copy of
  // work-item `i` is at frames + items * offset + i * stride, so work-items next to each
  // other in x have their copies next to each other, and a vector of them (the loop
  // vectorizer's or wfv/'s) loads and stores them as one contiguous access.
  struct Slot {
    AllocaInst *alloca;
    uint64_t offset, stride;  // stride: the slot's size rounded up to its alignment
  };
  std::vector<Slot> slots;
  uint64_t frame_size = 0;   // the sum of the slots' strides: bytes per work-item
  uint64_t frame_align = 16; // the largest slot alignment; the frames start aligned to it too
  std::vector<std::pair<AllocaInst *, uint64_t>> uniform_slots;  // offsets in the uniform buffers
  uint64_t uniform_size = 0;
  uint64_t uniform_align = 16;
};

// What differs between the work-items of a group, told to LLVM's uniformity analysis
// through a target-info model: local ids, private memory (each work-item's own frame) and,
// conservatively, everything read from memory or returned by a call that touches memory
// (work-items of a region run one after another, so they need not see the same memory).
class WorkItemDivergence : public TargetTransformInfoImplCRTPBase<WorkItemDivergence> {
 public:
  explicit WorkItemDivergence(const DataLayout &dl) : TargetTransformInfoImplCRTPBase(dl) {}
  bool hasBranchDivergence(const Function * = nullptr) const { return true; }
  bool isSourceOfDivergence(const Value *v) const {
    if (isa<AllocaInst>(v) || isa<LoadInst>(v) || isa<AtomicRMWInst>(v) || isa<AtomicCmpXchgInst>(v) ||
        isa<VAArgInst>(v) || isa<InvokeInst>(v) || isa<CallBrInst>(v))
      return true;
    auto *call = dyn_cast<CallInst>(v);
    if (!call) return false;
    Function *callee = call->getCalledFunction();
    if (!callee) return true;
    StringRef name = callee->getName();
    if (kiln::is_work_item_intrinsic(name)) return name == KILN_INTRINSIC_LOCAL_ID;
    return !call->doesNotAccessMemory();
  }
};

// The instructions of `w` whose value is the same for every work-item of a group wherever
// it is used.
std::set<const Instruction *> uniform_values(Function &w) {
  FunctionAnalysisManager fam;
  const DataLayout &dl = w.getParent()->getDataLayout();
  fam.registerPass([&] { return TargetIRAnalysis([&dl](const Function &) { return TargetTransformInfo(WorkItemDivergence(dl)); }); });
  PassBuilder pb;
  pb.registerFunctionAnalyses(fam);  // keeps the target-info model registered above
  UniformityInfo &ui = fam.getResult<UniformityInfoAnalysis>(w);
  std::set<const Instruction *> uniform;
  for (Instruction &inst : instructions(w)) {
    if (ui.isDivergent(&inst) || inst.getType()->isVoidTy()) continue;
    // A value defined in a loop that work-items leave at different iterations differs
    // between them after the loop ("temporal divergence").
    bool divergent_use = false;
    for (const Use &u : inst.uses()) divergent_use = divergent_use || ui.isDivergentUse(u);
    if (!divergent_use) uniform.insert(&inst);
  }
  return uniform;
}

bool value_escapes_block(const Instruction &inst) {
  for (const User *u : inst.users()) {
    auto *ui = cast<Instruction>(u);
    if (ui->getParent() != inst.getParent() || isa<PHINode>(ui)) return true;
  }
  return false;
}

// Promotes the front end's stack variables to SSA values first, so that only values that
// really cross blocks end up in frames.
void simplify(Function &f) {
  kiln::run_function_passes(f, [](PassBuilder &, FunctionPassManager &fpm) {
    fpm.addPass(SROAPass(SROAOptions::PreserveCFG));
    fpm.addPass(EarlyCSEPass());
    fpm.addPass(InstCombinePass());
  });
}

// Whether `inst` is live at a barrier: some use can be reached from a barrier that is
// reachable from the definition, without passing the definition again.
bool live_across_barrier(Instruction &inst, const std::map<BasicBlock *, uint32_t> &barrier_blocks) {
  BasicBlock *def = inst.getParent();
  std::set<BasicBlock *> use_blocks;
  for (Use &u : inst.uses()) {
    auto *user = cast<Instruction>(u.getUser());
    auto *phi = dyn_cast<PHINode>(user);
    use_blocks.insert(phi ? phi->getIncomingBlock(u) : user->getParent());
  }
  use_blocks.erase(def);  // a use in (or at the end of) the defining block sees this definition
  auto reach = [def](std::vector<BasicBlock *> work, const std::function<bool(BasicBlock *)> &visit) {
    std::set<BasicBlock *> seen;
    while (!work.empty()) {
      BasicBlock *bb = work.back();
      work.pop_back();
      if (bb == def || !seen.insert(bb).second) continue;
      if (visit(bb)) return true;
      for (BasicBlock *succ : successors(bb)) work.push_back(succ);
    }
    return false;
  };
  std::vector<BasicBlock *> barriers;
  reach(std::vector<BasicBlock *>(succ_begin(def), succ_end(def)), [&](BasicBlock *bb) {
    if (barrier_blocks.count(bb)) barriers.push_back(bb);
    return false;
  });
  for (BasicBlock *barrier : barriers)
    if (reach({barrier}, [&](BasicBlock *bb) { return use_blocks.count(bb) != 0; })) return true;
  return false;
}

// Values that are cheap to recompute where they are needed instead of being kept in
// frames: pure arithmetic over constants, kernel arguments and work-item intrinsics (whose
// values are the same for a work-item in every region). The bound is on the instructions a
// copy clones (an operand used twice in the expression is cloned, and counted, twice): a
// global id is already ~6 of them, and `out[y * n + x]` ~15; kept in a frame, such an index
// became a gather or scatter in wfv/.
constexpr unsigned max_remat_instructions = 32;

// The instructions a copy of `v` clones, or more than `budget` (then: not worth it).
unsigned remat_cost(const Value *v, unsigned budget) {
  if (isa<Constant>(v) || isa<Argument>(v)) return 0;
  auto *inst = dyn_cast<Instruction>(v);
  if (!inst || budget == 0) return budget + 1;
  if (auto *call = dyn_cast<CallInst>(inst)) {
    Function *callee = call->getCalledFunction();
    if (!callee || !kiln::is_work_item_intrinsic(callee->getName())) return budget + 1;
  } else if (!isa<BinaryOperator>(inst) && !isa<CastInst>(inst) && !isa<CmpInst>(inst) && !isa<SelectInst>(inst) &&
             !isa<GetElementPtrInst>(inst)) {
    return budget + 1;
  }
  unsigned cost = 1;
  for (const Use &op : inst->operands()) {
    if (isa<Function>(op.get())) continue;
    cost += remat_cost(op.get(), budget - cost);
    if (cost > budget) return budget + 1;
  }
  return cost;
}

bool rematerializable(const Value *v) { return remat_cost(v, max_remat_instructions) <= max_remat_instructions; }

Value *rematerialize(Value *v, Instruction *before) {
  auto *inst = dyn_cast<Instruction>(v);
  if (!inst) return v;
  Instruction *copy = inst->clone();
  for (unsigned i = 0; i < copy->getNumOperands(); i++)
    if (!isa<Function>(copy->getOperand(i))) copy->setOperand(i, rematerialize(copy->getOperand(i), before));
  copy->insertBefore(before);
  copy->setName(inst->getName() + ".remat");
  return copy;
}

// Gives every use outside the defining block its own copy of a rematerializable value.
void rematerialize_escaping(Function &w) {
  std::vector<Instruction *> candidates;
  for (Instruction &inst : instructions(w))
    if (value_escapes_block(inst) && rematerializable(&inst)) candidates.push_back(&inst);
  for (Instruction *inst : candidates) {
    std::vector<Use *> uses;
    for (Use &u : inst->uses()) {
      auto *user = cast<Instruction>(u.getUser());
      if (user->getParent() != inst->getParent() || isa<PHINode>(user)) uses.push_back(&u);
    }
    for (Use *u : uses) {
      auto *user = cast<Instruction>(u->getUser());
      Instruction *before = user;
      if (auto *phi = dyn_cast<PHINode>(user)) before = phi->getIncomingBlock(*u)->getTerminator();
      u->set(rematerialize(inst, before));
    }
  }
}

bool split_kernel(Function &w, SplitKernel &s, std::string &error) {
  // A byval argument is the work-item's own copy: make it a stack slot (hence a frame slot).
  {
    IRBuilder<> b(&*w.getEntryBlock().getFirstInsertionPt());
    const DataLayout &dl = w.getParent()->getDataLayout();
    for (Argument &arg : w.args()) {
      if (!arg.hasByValAttr() || arg.use_empty()) continue;
      Type *t = arg.getParamByValType();
      Align align = std::max(dl.getABITypeAlign(t), arg.getParamAlign().valueOrOne());
      IRBuilder<> ab(&w.getEntryBlock(), w.getEntryBlock().begin());
      AllocaInst *copy = ab.CreateAlloca(t);
      copy->setAlignment(align);
      arg.replaceAllUsesWith(copy);
      b.CreateMemCpy(copy, align, &arg, align, dl.getTypeAllocSize(t));
    }
  }
  simplify(w);
  // Lifetime markers would tell the optimizer that frame slots die between regions.
  std::vector<Instruction *> dead;
  for (Instruction &inst : instructions(w))
    if (auto *ii = dyn_cast<IntrinsicInst>(&inst))
      if (ii->isLifetimeStartOrEnd()) dead.push_back(ii);
  for (Instruction *i : dead) i->eraseFromParent();

  // Barriers alone in their block: [before] -> [barrier; br] -> [after].
  std::vector<CallInst *> barriers;
  for (Instruction &inst : instructions(w))
    if (is_barrier_call(inst)) barriers.push_back(cast<CallInst>(&inst));
  std::vector<BasicBlock *> region_starts{&w.getEntryBlock()};
  for (CallInst *call : barriers) {
    BasicBlock *bb = call->getParent();
    BasicBlock *barrier_block = SplitBlock(bb, call);
    BasicBlock *after = SplitBlock(barrier_block, call->getNextNode());
    s.barrier_blocks[barrier_block] = (uint32_t)region_starts.size();
    region_starts.push_back(after);
  }

  rematerialize_escaping(w);
  std::set<const Instruction *> uniform = uniform_values(w);
  std::set<AllocaInst *> uniform_allocas;
  // Demote the values live across a barrier to entry-block stack slots (frame slots).
  // Values used only within one region stay SSA values: in a region's clone their
  // definition still dominates their uses.
  BasicBlock &entry = w.getEntryBlock();
  BasicBlock::iterator point = entry.begin();
  while (isa<AllocaInst>(point)) ++point;
  std::vector<Instruction *> values;
  std::vector<PHINode *> phis;
  for (Instruction &inst : instructions(w)) {
    if ((isa<AllocaInst>(inst) && inst.getParent() == &entry) || !value_escapes_block(inst) ||
        !live_across_barrier(inst, s.barrier_blocks))
      continue;
    if (auto *phi = dyn_cast<PHINode>(&inst))
      phis.push_back(phi);
    else
      values.push_back(&inst);
  }
  // (Flags first: demotion creates and erases instructions that the set's pointers may alias.)
  std::vector<bool> value_uniform, phi_uniform;
  for (Instruction *inst : values) value_uniform.push_back(uniform.count(inst) != 0);
  for (PHINode *phi : phis) phi_uniform.push_back(uniform.count(phi) != 0);
  for (size_t i = 0; i < values.size(); i++) {
    AllocaInst *slot = DemoteRegToStack(*values[i], false, point);
    if (value_uniform[i]) uniform_allocas.insert(slot);
  }
  for (size_t i = 0; i < phis.size(); i++) {  // its uses read the slot...
    AllocaInst *slot = DemoteRegToStack(*phis[i], false, point);
    if (phi_uniform[i]) uniform_allocas.insert(slot);
  }
  for (size_t i = 0; i < phis.size(); i++) {  // ...its operands write it
    AllocaInst *slot = DemotePHIToStack(phis[i], point);
    if (phi_uniform[i]) uniform_allocas.insert(slot);
  }

  // Frame layout of every stack slot.
  const DataLayout &dl = w.getParent()->getDataLayout();
  for (Instruction &inst : instructions(w)) {
    auto *a = dyn_cast<AllocaInst>(&inst);
    if (!a) continue;
    if (a->getParent() != &entry || !a->isStaticAlloca()) {
      error = "kernel " + w.getName().str() + ": dynamic stack allocation with barriers";
      return false;
    }
    // Accesses keep the slot's alignment (a <4 x double> slot of align 32 is stored with
    // 32-byte vector moves): the frame stride is rounded to the largest slot alignment, so
    // every work-item's slots are aligned, not only work-item 0's.
    uint64_t align = a->getAlign().value();
    bool is_uniform = uniform_allocas.count(a) != 0;
    uint64_t &size = is_uniform ? s.uniform_size : s.frame_size;
    uint64_t &max_align = is_uniform ? s.uniform_align : s.frame_align;
    size = (size + align - 1) / align * align;
    max_align = std::max(max_align, align);
    uint64_t bytes = a->getAllocationSize(dl)->getFixedValue();
    if (is_uniform) {
      s.uniform_slots.emplace_back(a, size);
      size += bytes;
    } else {
      uint64_t stride = (bytes + align - 1) / align * align;
      s.slots.push_back({a, size, stride});
      size += stride;
    }
  }
  if (s.frame_size == 0) s.frame_size = s.frame_align;

  for (BasicBlock *start : region_starts) {
    Region r{start, {start}};
    std::set<BasicBlock *> seen{start};
    for (size_t i = 0; i < r.blocks.size(); i++)
      for (BasicBlock *succ : successors(r.blocks[i]))
        if (!s.barrier_blocks.count(succ) && seen.insert(succ).second) r.blocks.push_back(succ);
    s.regions.push_back(std::move(r));
  }
  return true;
}

// A call of work-item intrinsic `name` (size_t (uint d)) at the builder's position.
Value *call_intrinsic(IRBuilder<> &b, Module &m, const char *name, unsigned d) {
  Function *fn = m.getFunction(name);
  if (!fn) {
    fn = Function::Create(FunctionType::get(b.getInt64Ty(), {b.getInt32Ty()}, false), GlobalValue::ExternalLinkage,
                          name, m);
    fn->setDoesNotAccessMemory();
    fn->setDoesNotThrow();
    fn->setWillReturn();
  }
  return b.CreateCall(fn, {b.getInt32(d)});
}

// Region `r` of `w` as a function run by one work-item, which wfv/ can widen like a kernel:
// i32 (w's parameters..., ptr frames, i64 items, ptr uniform_current, ptr uniform_next),
// returning the region to run next (EXIT_REGION after the kernel's end). Work-item
// intrinsics stay calls, replaced where the launcher inlines it. Frame slots are addressed
// by the work-item's linear local id; uniform slots are private copies read from
// uniform_current on entry and written to uniform_next on the way to a barrier.
Function *region_function(Function &w, const SplitKernel &s, size_t r) {
  Module &m = *w.getParent();
  LLVMContext &c = m.getContext();
  std::vector<Type *> params(w.getFunctionType()->param_begin(), w.getFunctionType()->param_end());
  Type *ptr = PointerType::get(c, 0);
  params.insert(params.end(), {ptr, Type::getInt64Ty(c), ptr, ptr});
  Function *fn = Function::Create(FunctionType::get(Type::getInt32Ty(c), params, false), GlobalValue::InternalLinkage,
                                  w.getName() + ".region" + Twine(r), m);
  fn->addFnAttr(Attribute::NoUnwind);
  unsigned n = w.arg_size();
  for (unsigned i = 0; i < n; i++)
    if (w.getArg(i)->hasNoAliasAttr()) fn->addParamAttr(i, Attribute::NoAlias);
  Argument *frames = fn->getArg(n), *items = fn->getArg(n + 1), *current = fn->getArg(n + 2), *next = fn->getArg(n + 3);
  IRBuilder<> b(BasicBlock::Create(c, "entry", fn));
  auto id = [&](const char *name, unsigned d) { return call_intrinsic(b, m, name, d); };
  Value *linear = b.CreateAdd(
      b.CreateMul(b.CreateAdd(b.CreateMul(id(KILN_INTRINSIC_LOCAL_ID, 2), id(KILN_INTRINSIC_LOCAL_SIZE, 1)),
                              id(KILN_INTRINSIC_LOCAL_ID, 1)),
                  id(KILN_INTRINSIC_LOCAL_SIZE, 0)),
      id(KILN_INTRINSIC_LOCAL_ID, 0), "linear_id");

  const Region &region = s.regions[r];
  ValueToValueMapTy vmap;
  for (unsigned i = 0; i < n; i++) vmap[w.getArg(i)] = fn->getArg(i);
  std::vector<BasicBlock *> clones;
  for (BasicBlock *bb : region.blocks) {
    BasicBlock *clone = CloneBasicBlock(bb, vmap, "", fn);
    vmap[bb] = clone;
    clones.push_back(clone);
  }
  for (const SplitKernel::Slot &slot : s.slots) {
    Value *column = b.CreateInBoundsGEP(b.getInt8Ty(), frames, b.CreateMul(items, b.getInt64(slot.offset)));
    vmap[slot.alloca] = b.CreateInBoundsGEP(b.getInt8Ty(), column, b.CreateMul(linear, b.getInt64(slot.stride)));
  }
  std::vector<std::pair<AllocaInst *, uint64_t>> copies;
  for (auto &[a, offset] : s.uniform_slots) {
    IRBuilder<> ab(&fn->getEntryBlock(), fn->getEntryBlock().begin());
    AllocaInst *copy = ab.CreateAlloca(a->getAllocatedType(), nullptr, a->getName() + ".uniform");
    copy->setAlignment(a->getAlign());
    b.CreateStore(b.CreateLoad(a->getAllocatedType(), b.CreateConstInBoundsGEP1_64(b.getInt8Ty(), current, offset)), copy);
    vmap[a] = copy;
    copies.emplace_back(copy, offset);
  }
  for (BasicBlock *clone : clones)
    for (Instruction &inst : *clone) RemapInstruction(&inst, vmap, RF_IgnoreMissingLocals | RF_NoModuleLevelChanges);
  // Edges from outside the region cannot be taken in its clone.
  for (BasicBlock *clone : clones)
    for (PHINode &phi : clone->phis())
      for (unsigned i = phi.getNumIncomingValues(); i-- > 0;)
        if (phi.getIncomingBlock(i)->getParent() != fn) phi.removeIncomingValue(i, /*DeletePHIIfEmpty=*/false);
  // Exits: to a barrier (the next region is the one after it) or out of the kernel.
  for (BasicBlock *clone : clones) {
    Instruction *term = clone->getTerminator();
    if (isa<ReturnInst>(term)) {
      IRBuilder<> eb(term);
      eb.CreateRet(eb.getInt32(EXIT_REGION));  // no region reads the uniform slots
      term->eraseFromParent();
      continue;
    }
    for (unsigned i = 0; i < term->getNumSuccessors(); i++) {
      auto it = s.barrier_blocks.find(term->getSuccessor(i));
      if (it == s.barrier_blocks.end()) continue;
      BasicBlock *exit = BasicBlock::Create(c, "to.region" + std::to_string(it->second), fn);
      IRBuilder<> eb(exit);
      for (auto &[copy, offset] : copies)
        eb.CreateStore(eb.CreateLoad(copy->getAllocatedType(), copy), eb.CreateConstInBoundsGEP1_64(eb.getInt8Ty(), next, offset));
      eb.CreateRet(eb.getInt32(it->second));
      term->setSuccessor(i, exit);
    }
  }
  // The kernel's stack slots, cloned with the entry block, are frame or uniform slots now.
  std::vector<Instruction *> cloned_allocas;
  for (BasicBlock *clone : clones)
    for (Instruction &inst : *clone)
      if (isa<AllocaInst>(inst)) cloned_allocas.push_back(&inst);
  for (Instruction *a : cloned_allocas) a->eraseFromParent();
  b.CreateBr(cast<BasicBlock>(vmap[region.start]));
  return fn;
}

// Where in the uniform buffers the two x bounds go (idle_work_items.hpp): after the values.
uint64_t idle_from_offset(const SplitKernel &s) { return (s.uniform_size + 7) / 8 * 8; }

// A call the launcher makes of a region function (or its wfv/ vector form), inlined once
// the launcher is complete, with the work-item values of its loops at the call.
struct RegionCall {
  CallInst *call;
  WorkItemValues values;
};

// The kernel's WFV settings, for the kernel itself or each of its regions.
struct Vectorizing {
  bool enabled;
  bool has_images;
  unsigned width, narrow_width;
};

// A function's vector forms (wfv/), null where WFV does not apply.
struct VectorForms {
  Function *wide = nullptr, *narrow = nullptr;
  // A barrier region's wide form for vectors whose work-items all pass its guards on the x
  // id (idle_work_items.hpp): no masks.
  Function *wide_all_active = nullptr;
};

VectorForms vector_forms(Function &fn, const Vectorizing &vz, bool barrier_region, Function &launcher) {
  VectorForms forms;
  if (!vz.enabled) return forms;
  std::string why;
  forms.wide = kiln::wfv::vectorize_kernel(fn, vz.width, vz.has_images, why, barrier_region);
  if (forms.wide && vz.narrow_width)
    forms.narrow = kiln::wfv::vectorize_kernel(fn, vz.narrow_width, vz.has_images, why, barrier_region);
  if (forms.wide) launcher.addFnAttr(kiln::WFV_LAUNCHER);
  return forms;
}

// One row of work-items along x, at the builder's position: whole vectors through the
// wide form, at most one narrower vector, then the rest one at a time. `run(fn, x)` emits
// the call for the work-items from x (fn null: the scalar function, one work-item).
// `idle_from`: where each call stores the x from which the row's work-items are idle, and
// 8 bytes on the x below which whole vectors may run forms.wide_all_active
// (idle_work_items.hpp); the row stops at the first, but runs at least its first call.
void emit_row(IRBuilder<> &b, WorkItemValues &v, const VectorForms &forms, const Vectorizing &vz,
              const std::function<void(Function *, Value *)> &run, Value *idle_from = nullptr) {
  Value *rest = nullptr;
  if (idle_from) {
    b.CreateStore(b.getInt64(UINT64_MAX), idle_from);
    b.CreateStore(b.getInt64(0), b.CreateConstInBoundsGEP1_64(b.getInt8Ty(), idle_from, 8));  // none before a call
  }
  auto vectors = [&](Function *fn, unsigned width, const char *name) {
    Value *end = b.CreateAnd(v.local_size[0], b.getInt64(~(uint64_t)(width - 1)), "vector_end");
    emit_loop(b, end, name, [&](Value *x) {
      v.local_id[0] = x;  // lane 0's (the vector form computes the others)
      if (fn != forms.wide || !forms.wide_all_active || !idle_from) return run(fn, x);
      // Vectors wholly below the bound that the row's first call stored need no masks.
      LLVMContext &c = b.getContext();
      Function *f = b.GetInsertBlock()->getParent();
      BasicBlock *all = BasicBlock::Create(c, "all_active", f), *some = BasicBlock::Create(c, "some_active", f);
      BasicBlock *join = BasicBlock::Create(c, "active_join", f);
      Value *full_below = b.CreateLoad(b.getInt64Ty(), b.CreateConstInBoundsGEP1_64(b.getInt8Ty(), idle_from, 8));
      b.CreateCondBr(b.CreateICmpULE(b.CreateAdd(x, b.getInt64(width)), full_below), all, some);
      b.SetInsertPoint(all);
      run(forms.wide_all_active, x);
      b.CreateBr(join);
      b.SetInsertPoint(some);
      run(fn, x);
      b.CreateBr(join);
      b.SetInsertPoint(join);
    }, false, rest, width, /*vectorized=*/true, idle_from);
    rest = end;
  };
  if (forms.wide) vectors(forms.wide, vz.width, "xv");
  if (forms.narrow) vectors(forms.narrow, vz.narrow_width, "xn");
  // The scalar loop's end is read once (a bound that the body changes would keep LLVM's
  // loop vectorizer away); before any call it is the whole row.
  Value *end = v.local_size[0];
  if (idle_from) end = b.CreateBinaryIntrinsic(Intrinsic::umin, end, b.CreateLoad(b.getInt64Ty(), idle_from));
  emit_loop(b, end, "x", [&](Value *x) {
    v.local_id[0] = x;
    run(nullptr, x);
  }, /*work_items=*/true, rest);
}

// A barrier region's functions: the one-work-item form and its wfv/ forms; `bounded`: its
// calls store the row's idle bounds (idle_work_items.hpp).
struct RegionForms {
  Function *scalar;
  VectorForms forms;
  bool bounded;
};

// Every region's functions, made once per launcher (a kernel with a required work-group
// size emits its group loops twice, over the same functions); they are added to
// `functions`, deleted once inlined.
std::vector<RegionForms> region_forms(Function &w, const SplitKernel &s, const Vectorizing &vectorizing,
                                      Function &launcher, std::vector<Function *> &functions) {
  std::vector<RegionForms> regions;
  for (size_t r = 0; r < s.regions.size(); r++) {
    Function *scalar = region_function(w, s, r);
    kiln::IdleBound idle;
    if (vectorizing.enabled) {
      simplify(*scalar);
      idle = kiln::bound_idle_work_items(*scalar, idle_from_offset(s));
    }
    VectorForms forms = vector_forms(*scalar, vectorizing, /*barrier_region=*/true, launcher);
    bool bounded = idle.stored && forms.wide;
    if (bounded && idle.all_active) {
      std::string why;
      forms.wide_all_active = kiln::wfv::vectorize_kernel(*idle.all_active, vectorizing.width, vectorizing.has_images,
                                                          why, /*barrier_region=*/true);
    }
    for (Function *fn : {scalar, forms.wide, forms.narrow, idle.all_active, forms.wide_all_active})
      if (fn) functions.push_back(fn);
    regions.push_back({scalar, forms, bounded});
  }
  return regions;
}

// Emits, at the builder's position (inside a group iteration), the dispatcher and one
// z/y/x loop per region: whole vectors of work-items through the region's wfv/ functions
// where they exist, the rest one at a time. Leaves the builder after the group's work;
// the calls to inline are added to `calls`.
void emit_regions(IRBuilder<> &b, const SplitKernel &s, const std::vector<RegionForms> &regions,
                  const std::vector<Value *> &call_args, WorkItemValues &v, Value *frames, Value *items,
                  Value *uniform_current, Value *uniform_next, AllocaInst *next_region, const Vectorizing &vectorizing,
                  std::vector<RegionCall> &calls) {
  LLVMContext &c = b.getContext();
  Function *f = b.GetInsertBlock()->getParent();
  // Past the uniform values in "next": the two x bounds of the current row, in regions that
  // store them (only worth it with vector forms: the scalar loop's end would be known only
  // after its first work-item).
  Value *idle_from = b.CreateConstInBoundsGEP1_64(b.getInt8Ty(), uniform_next, idle_from_offset(s), "idle_from");
  b.CreateStore(b.getInt32(0), next_region);
  BasicBlock *dispatch = BasicBlock::Create(c, "dispatch", f);
  BasicBlock *group_done = BasicBlock::Create(c, "group.done", f);
  b.CreateBr(dispatch);
  b.SetInsertPoint(dispatch);
  SwitchInst *sw = b.CreateSwitch(b.CreateLoad(b.getInt32Ty(), next_region, "next"), group_done, regions.size());
  std::vector<Value *> args(call_args);
  args.insert(args.end(), {frames, items, uniform_current, uniform_next});

  for (size_t r = 0; r < regions.size(); r++) {
    const RegionForms &region = regions[r];
    BasicBlock *pre = BasicBlock::Create(c, "region" + std::to_string(r), f);
    sw->addCase(b.getInt32((uint32_t)r), pre);
    b.SetInsertPoint(pre);
    auto run = [&](Function *fn, Value *x) {
      std::vector<Value *> a(args);
      if (fn) a.push_back(x);  // a vector form's lane 0
      CallInst *call = b.CreateCall(fn ? fn : region.scalar, a);
      b.CreateStore(call, next_region);
      calls.push_back({call, v});
    };
    emit_loop(b, v.local_size[2], "z", [&](Value *z) {
      v.local_id[2] = z;
      emit_loop(b, v.local_size[1], "y", [&](Value *y) {
        v.local_id[1] = y;
        emit_row(b, v, region.forms, vectorizing, run, region.bounded ? idle_from : nullptr);
      });
    });
    if (s.uniform_size)
      b.CreateMemCpy(uniform_current, Align(s.uniform_align), uniform_next, Align(s.uniform_align), s.uniform_size);
    b.CreateBr(dispatch);
  }
  b.SetInsertPoint(group_done);
}

// Inlines each region call and gives the work-item intrinsics it brought the values of
// its loops; then deletes the region functions.
bool inline_region_calls(Function &f, const std::vector<RegionCall> &calls, const std::vector<Function *> &functions,
                         std::string &error) {
  for (const RegionCall &rc : calls) {
    std::set<BasicBlock *> before;
    for (BasicBlock &bb : f) before.insert(&bb);
    BasicBlock *at = rc.call->getParent();
    InlineFunctionInfo info;
    if (!InlineFunction(*rc.call, info).isSuccess()) {
      error = "cannot inline a region of " + f.getName().str();
      return false;
    }
    std::vector<BasicBlock *> inlined{at};
    for (BasicBlock &bb : f)
      if (!before.count(&bb)) inlined.push_back(&bb);
    replace_intrinsics(inlined, rc.values);
  }
  for (Function *fn : functions) fn->eraseFromParent();
  return true;
}

using LocalVariables = std::vector<std::pair<GlobalVariable *, Value *>>;

// Static __local variables: fixed offsets in the thread's local memory (at the builder).
LocalVariables local_variables(IRBuilder<> &b, Value *local_base, const kiln::LocalLayout &locals) {
  LocalVariables vars;
  for (auto &[gv, offset] : locals.variables)
    vars.emplace_back(gv, b.CreateConstInBoundsGEP1_64(b.getInt8Ty(), local_base, offset, gv->getName()));
  return vars;
}

// Gives the uses of those variables in `f` their offsets.
void place_local_variables(Function &f, const LocalVariables &vars) {
  for (auto &[gv, p] : vars) {
    convertUsersOfConstantsToInstructions({gv}, &f);
    gv->replaceUsesWithIf(p, [&f](Use &u) {
      auto *inst = dyn_cast<Instruction>(u.getUser());
      return inst && inst->getFunction() == &f;
    });
  }
}

// The launch's values of the work-item intrinsics that a launch's description gives.
void launch_values(IRBuilder<> &b, Value *nd, WorkItemValues &v) {
  auto nd_field = [&](size_t offset, const char *field) {
    return b.CreateAlignedLoad(b.getInt64Ty(), b.CreateConstInBoundsGEP1_64(b.getInt8Ty(), nd, offset), Align(8), field);
  };
  v.work_dim = b.CreateAlignedLoad(b.getInt32Ty(), nd, Align(8), "work_dim");
  for (int d = 0; d < 3; d++) {
    v.global_offset[d] = nd_field(offsetof(kiln_ndrange, global_offset) + 8 * d, "global_offset");
    v.global_size[d] = nd_field(offsetof(kiln_ndrange, global_size) + 8 * d, "global_size");
    v.enqueued_local_size[d] = nd_field(offsetof(kiln_ndrange, local_size) + 8 * d, "local_size");
    v.num_groups[d] = nd_field(offsetof(kiln_ndrange, num_groups) + 8 * d, "num_groups");
  }
}

// ---- Fiber launchers (device/cpu/fibers.h) ------------------------------------------------

// What a fiber launcher passes its work-item function: the launch, the thread's local
// memory, the group's ids and actual sizes, then the kernel's argument values.
// (The packed argument block too: bounds-checked kernels read their table after it.)
enum : unsigned { FIBER_ND, FIBER_LOCAL_MEM, FIBER_ARGS_BLOCK, FIBER_GROUP_ID, FIBER_LOCAL_SIZE, FIBER_ARGS };

StructType *fiber_context_type(Function &k) {
  LLVMContext &c = k.getContext();
  Type *ptr = PointerType::get(c, 0);
  Type *sizes = ArrayType::get(Type::getInt64Ty(c), 3);
  std::vector<Type *> fields{ptr, ptr, ptr, sizes, sizes};
  for (Argument &a : k.args()) fields.push_back(a.getType());
  return StructType::get(c, fields);
}

// void (ptr context, ptr cursor): runs the kernel's body for work-items of the group the
// context describes, claiming each from the cursor (kernel_abi.h) until none is left, on a
// fiber's stack; its barriers are the fibers' barrier. The loop is here, not in the
// scheduler, so that what is the same for every work-item is computed once per fiber.
Function *fiber_item_function(Module &m, Function &k, const kiln::LocalLayout &locals, StructType *context_type,
                              const std::string &name, std::string &error) {
  LLVMContext &c = m.getContext();
  Type *ptr = PointerType::get(c, 0);
  Function *item = Function::Create(FunctionType::get(Type::getVoidTy(c), {ptr, ptr}, false),
                                    GlobalValue::InternalLinkage, name + ".fiber_item", m);
  item->addFnAttr(Attribute::NoUnwind);
  Argument *context = item->getArg(0), *cursor = item->getArg(1);
  IRBuilder<> b(BasicBlock::Create(c, "entry", item));
  auto field = [&](unsigned i) {
    return b.CreateLoad(context_type->getElementType(i), b.CreateStructGEP(context_type, context, i));
  };
  auto size_field = [&](unsigned i, unsigned d) {
    return b.CreateLoad(b.getInt64Ty(), b.CreateInBoundsGEP(context_type, context, {b.getInt32(0), b.getInt32(i), b.getInt32(d)}));
  };
  Value *nd = field(FIBER_ND), *local_mem = field(FIBER_LOCAL_MEM), *args_block = field(FIBER_ARGS_BLOCK);
  WorkItemValues v{};
  launch_values(b, nd, v);
  for (unsigned d = 0; d < 3; d++) {
    v.group_id[d] = size_field(FIBER_GROUP_ID, d);
    v.local_size[d] = size_field(FIBER_LOCAL_SIZE, d);
  }
  std::vector<Value *> args;
  for (unsigned i = 0; i < k.arg_size(); i++) args.push_back(field(FIBER_ARGS + i));
  Value *next_item = b.CreateConstInBoundsGEP1_64(b.getInt64Ty(), cursor, KILN_FIBERS_CURSOR_NEXT);
  Value *end_item = b.CreateLoad(b.getInt64Ty(), b.CreateConstInBoundsGEP1_64(b.getInt64Ty(), cursor, KILN_FIBERS_CURSOR_END));
  Value *done_items = b.CreateConstInBoundsGEP1_64(b.getInt64Ty(), cursor, KILN_FIBERS_CURSOR_DONE);
  BasicBlock *pre = b.GetInsertBlock();
  BasicBlock *claim = BasicBlock::Create(c, "claim", item), *run = BasicBlock::Create(c, "run", item);
  BasicBlock *finished = BasicBlock::Create(c, "finished", item);
  b.CreateBr(claim);
  b.SetInsertPoint(claim);
  Value *linear = b.CreateLoad(b.getInt64Ty(), next_item, "linear_id");
  b.CreateCondBr(b.CreateICmpULT(linear, end_item), run, finished);
  b.SetInsertPoint(run);
  b.CreateStore(b.CreateAdd(linear, b.getInt64(1)), next_item);
  // id = quotient * size + remainder, without a division where the quotient is 0 (a group's
  // every work-item in one dimension; 64-bit divisions cost more than the rest of a call).
  auto split = [&](Value *id, Value *size, Value *&quotient, const char *name) {
    BasicBlock *from = b.GetInsertBlock();
    BasicBlock *divide = BasicBlock::Create(c, Twine(name) + ".divide", item);
    BasicBlock *join = BasicBlock::Create(c, Twine(name) + ".join", item);
    b.CreateCondBr(b.CreateICmpULT(id, size), join, divide);
    b.SetInsertPoint(divide);
    Value *q = b.CreateUDiv(id, size), *r = b.CreateURem(id, size);
    b.CreateBr(join);
    b.SetInsertPoint(join);
    PHINode *remainder = b.CreatePHI(id->getType(), 2, name);
    remainder->addIncoming(id, from);
    remainder->addIncoming(r, divide);
    PHINode *quotient_phi = b.CreatePHI(id->getType(), 2);
    quotient_phi->addIncoming(b.getInt64(0), from);
    quotient_phi->addIncoming(q, divide);
    quotient = quotient_phi;
    return remainder;
  };
  Value *rest, *z;
  v.local_id[0] = split(linear, v.local_size[0], rest, "local_id.x");
  v.local_id[1] = split(rest, v.local_size[1], z, "local_id.y");
  v.local_id[2] = z;
  b.CreateCall(&k, args);
  // Counted once it has ended (the scheduler opens barriers by this count); the cursor is
  // read again after the body, whose waits let other fibers claim work-items.
  b.CreateStore(b.CreateAdd(b.CreateLoad(b.getInt64Ty(), done_items), b.getInt64(1)), done_items);
  b.CreateBr(claim);
  b.SetInsertPoint(finished);
  b.CreateRetVoid();
  b.SetInsertPoint(pre->getTerminator());
  // Private memory is this fiber's stack, from the frame of a call down to this function's
  // return address; another fiber's stack is private memory too (fibers.h).
  Value *local_address = b.CreatePtrToInt(local_mem, b.getInt64Ty());
  Value *local_bytes = b.CreateAlignedLoad(
      b.getInt64Ty(), b.CreateConstInBoundsGEP1_64(b.getInt8Ty(), nd, offsetof(kiln_ndrange, local_mem_bytes)), Align(8));
  v.memory_bound[KILN_BOUND_LOCAL_BEGIN] = local_address;
  v.memory_bound[KILN_BOUND_LOCAL_END] = b.CreateAdd(local_address, local_bytes);
  v.memory_bound[KILN_BOUND_FRAMES_BEGIN] = v.memory_bound[KILN_BOUND_FRAMES_END] = b.getInt64(0);
  v.memory_bound[KILN_BOUND_STACK_TOP] =
      b.CreatePtrToInt(b.CreateIntrinsic(Intrinsic::addressofreturnaddress, {ptr}, {}), b.getInt64Ty());
  v.memory_bound[KILN_BOUND_ARGS] = b.CreatePtrToInt(args_block, b.getInt64Ty());
  Value *local_base = b.CreateAddrSpaceCast(local_mem, PointerType::get(c, kiln::AS_LOCAL));
  LocalVariables local_vars = local_variables(b, local_base, locals);
  kiln::add_launcher_debug_scope(*item, k);  // debug builds: the kernel's lines survive inlining
  if (!kiln::inline_all(*item, error)) return nullptr;

  FunctionCallee barrier = m.getOrInsertFunction(KILN_FIBERS_BARRIER_SYMBOL, FunctionType::get(b.getVoidTy(), false));
  std::vector<Instruction *> barriers;
  for (Instruction &inst : instructions(*item))
    if (is_barrier_call(inst)) barriers.push_back(&inst);
  for (Instruction *call : barriers) {
    IRBuilder<>(call).CreateCall(barrier);
    call->eraseFromParent();
  }
  replace_intrinsics(blocks_of(*item), v);
  place_local_variables(*item, local_vars);
  return item;
}

// One group of a fiber launcher, at the builder's position: its ids and sizes into the
// context, then the fibers' run; `fail` when their stacks could not be had.
void emit_fiber_group(IRBuilder<> &b, Module &m, const WorkItemValues &v, Value *context, StructType *context_type,
                      Function *item, BasicBlock *fail) {
  for (unsigned d = 0; d < 3; d++) {
    b.CreateStore(v.group_id[d], b.CreateInBoundsGEP(context_type, context, {b.getInt32(0), b.getInt32(FIBER_GROUP_ID), b.getInt32(d)}));
    b.CreateStore(v.local_size[d], b.CreateInBoundsGEP(context_type, context, {b.getInt32(0), b.getInt32(FIBER_LOCAL_SIZE), b.getInt32(d)}));
  }
  Value *items = b.CreateMul(b.CreateMul(v.local_size[0], v.local_size[1]), v.local_size[2]);
  FunctionCallee run = m.getOrInsertFunction(
      KILN_FIBERS_RUN_GROUP_SYMBOL, FunctionType::get(b.getInt32Ty(), {b.getPtrTy(), b.getPtrTy(), b.getInt64Ty()}, false));
  Value *failed = b.CreateICmpNE(b.CreateCall(run, {item, context, items}), b.getInt32(0));
  BasicBlock *ran = BasicBlock::Create(b.getContext(), "fibers.ran", b.GetInsertBlock()->getParent());
  b.CreateCondBr(failed, fail, ran);
  b.SetInsertPoint(ran);
}
}  // namespace

namespace kiln {

void run_function_passes(Function &f, const std::function<void(PassBuilder &, FunctionPassManager &)> &add) {
  LoopAnalysisManager lam;
  FunctionAnalysisManager fam;
  CGSCCAnalysisManager cgam;
  ModuleAnalysisManager mam;
  PassBuilder pb;
  pb.registerModuleAnalyses(mam);
  pb.registerCGSCCAnalyses(cgam);
  pb.registerFunctionAnalyses(fam);
  pb.registerLoopAnalyses(lam);
  pb.crossRegisterProxies(lam, fam, cgam, mam);
  FunctionPassManager fpm;
  add(pb, fpm);
  fpm.run(f, fam);
}

bool inline_all(Function &f, std::string &error, const std::function<bool(const CallBase &)> &keep) {
  for (int round = 0; round < 1000; round++) {
    std::vector<CallBase *> calls;
    for (Instruction &inst : instructions(f))
      if (auto *call = dyn_cast<CallBase>(&inst))
        if (Function *callee = call->getCalledFunction())
          if (!callee->isDeclaration() && !(keep && keep(*call))) calls.push_back(call);
    if (calls.empty()) return true;
    for (CallBase *call : calls) {
      InlineFunctionInfo info;
      std::string callee = call->getCalledFunction()->getName().str();
      if (!InlineFunction(*call, info).isSuccess()) {
        error = "cannot inline " + callee + " into " + f.getName().str();
        return false;
      }
    }
  }
  error = "recursion in " + f.getName().str();
  return false;
}

Function *build_launcher(Module &m, Function &k, const kiln_kernel_desc &desc, const LocalLayout &locals,
                         const std::string &name, std::string &error,
                         const std::vector<kiln::ImageFormat> *image_formats, bool fibers) {
  LLVMContext &c = m.getContext();
  const DataLayout &dl = m.getDataLayout();
  Type *ptr = PointerType::get(c, 0);
  Type *i64 = Type::getInt64Ty(c);
  FunctionType *type = FunctionType::get(Type::getInt32Ty(c), {ptr, ptr, i64, i64, ptr}, false);
  Function *f = Function::Create(type, GlobalValue::ExternalLinkage, name, m);
  f->addFnAttr(Attribute::NoUnwind);
  f->addParamAttr(0, Attribute::ReadOnly);
  f->addParamAttr(0, Attribute::NoCapture);
  f->addParamAttr(1, Attribute::ReadOnly);
  f->addParamAttr(1, Attribute::NoCapture);
  Argument *args = f->getArg(0), *nd = f->getArg(1), *first = f->getArg(2), *count = f->getArg(3);
  Argument *local_mem = f->getArg(4);
  bool barriers = desc.uses_barriers && !fibers;  // a fiber launcher's barriers switch fibers

  SplitKernel split;
  if (barriers && (!inline_all(k, error) || !split_kernel(k, split, error))) {
    f->eraseFromParent();
    return nullptr;
  }

  IRBuilder<> b(BasicBlock::Create(c, "entry", f));
  Value *local_base = b.CreateAddrSpaceCast(local_mem, PointerType::get(c, AS_LOCAL), "local_base");
  auto nd_field = [&](size_t offset, const char *field) {
    return b.CreateAlignedLoad(i64, b.CreateConstInBoundsGEP1_64(b.getInt8Ty(), nd, offset), Align(8), field);
  };
  WorkItemValues v{};
  launch_values(b, nd, v);

  // Kernel arguments from the packed block.
  std::vector<Value *> call_args;
  for (unsigned i = 0; i < k.arg_size(); i++) {
    const kiln_kernel_arg_desc &a = desc.args[i];
    Argument *param = k.getArg(i);
    Value *slot = b.CreateConstInBoundsGEP1_64(b.getInt8Ty(), args, a.offset);
    switch (a.kind) {
      case KILN_ARG_GLOBAL_PTR:
      case KILN_ARG_CONSTANT_PTR:
      case KILN_ARG_SAMPLER:  // its bits, as a pointer (opaque_types.cpp)
      case KILN_ARG_PIPE:     // its struct kiln_pipe
      case KILN_ARG_QUEUE:    // its struct kiln_device_queue
        call_args.push_back(b.CreateAlignedLoad(param->getType(), slot, Align(8)));
        break;
      case KILN_ARG_IMAGE: {
        // The image's struct kiln_device_image, copied into this launcher call's frame: the
        // kernel's stores cannot alias a private copy, so its fields become values computed
        // once per call instead of loads after every write_image (SROA, LICM).
        Value *view = b.CreateAlignedLoad(b.getPtrTy(), slot, Align(8));
        AllocaInst *copy = b.CreateAlloca(b.getInt8Ty(), b.getInt64(sizeof(kiln_device_image)), "image_view");
        copy->setAlignment(Align(alignof(kiln_device_image)));
        b.CreateMemCpy(copy, copy->getAlign(), view, Align(alignof(kiln_device_image)), sizeof(kiln_device_image));
        call_args.push_back(b.CreateAddrSpaceCast(copy, param->getType()));
        if (image_formats && (*image_formats)[i].channel_order) {
          // The format this launcher is for: the view's fields become constants, and every
          // decision the builtins take on them folds away (image_dispatch.cpp); a constant
          // element size also makes texel addresses along x consecutive for the vectorizer.
          const kiln::ImageFormat &format = (*image_formats)[i];
          auto set = [&](size_t offset, uint32_t value) {
            b.CreateAlignedStore(b.getInt32(value), b.CreateConstInBoundsGEP1_64(b.getInt8Ty(), copy, offset), Align(4));
          };
          set(offsetof(kiln_device_image, channel_order), format.channel_order);
          set(offsetof(kiln_device_image, channel_data_type), format.channel_data_type);
          set(offsetof(kiln_device_image, element_size), format.element_size);
        }
        break;
      }
      case KILN_ARG_LOCAL_PTR: {
        Value *offset = b.CreateAlignedLoad(i64, slot, Align(8));
        Value *p = b.CreateInBoundsGEP(b.getInt8Ty(), local_base, offset);
        call_args.push_back(b.CreateAddrSpaceCast(p, param->getType()));
        break;
      }
      case KILN_ARG_BY_VALUE:
        if (param->hasByValAttr()) {
          // A private copy per launcher call; the inliner copies it again per work-item
          // when the kernel writes to it. (With barriers, the kernel's own entry-block
          // copy became a frame slot, so it is per work-item as well.)
          Type *t = param->getParamByValType();
          Align align = std::max(dl.getABITypeAlign(t), param->getParamAlign().valueOrOne());
          AllocaInst *copy = b.CreateAlloca(t);
          copy->setAlignment(align);
          b.CreateMemCpy(copy, align, slot, Align(1), a.size);
          call_args.push_back(copy);
        } else {
          call_args.push_back(b.CreateAlignedLoad(param->getType(), slot, arg_align(dl, param->getType())));
        }
        break;
      default:
        error = "kernel " + k.getName().str() + ": argument " + std::to_string(i) + " (" + a.type_name +
                ") of an unknown kind";
        f->eraseFromParent();
        return nullptr;
    }
  }
  LocalVariables local_vars = local_variables(b, local_base, locals);

  // With barriers: the group's frames, for the whole call.
  Value *frames = nullptr, *frames_memory = nullptr, *items = nullptr;
  AllocaInst *next_region = nullptr, *uniform_current = nullptr, *uniform_next = nullptr;
  BasicBlock *no_memory = nullptr;
  if (barriers) {
    next_region = b.CreateAlloca(b.getInt32Ty(), nullptr, "next_region");
    ArrayType *buffer_type = ArrayType::get(b.getInt8Ty(), idle_from_offset(split) + 16);
    uniform_current = b.CreateAlloca(buffer_type, nullptr, "uniform_current");
    uniform_next = b.CreateAlloca(buffer_type, nullptr, "uniform_next");
    Align buffer_align(std::max<uint64_t>(split.uniform_align, 8));
    uniform_current->setAlignment(buffer_align);
    uniform_next->setAlignment(buffer_align);
    items = b.CreateMul(b.CreateMul(v.enqueued_local_size[0], v.enqueued_local_size[1]), v.enqueued_local_size[2]);
    uint64_t frames_align = std::max<uint64_t>(KILN_LOCAL_MEM_ALIGN, split.frame_align);
    Value *bytes = b.CreateAdd(b.CreateMul(items, b.getInt64(split.frame_size)), b.getInt64(frames_align));
    FunctionCallee malloc_fn = m.getOrInsertFunction("malloc", FunctionType::get(ptr, {i64}, false));
    frames_memory = b.CreateCall(malloc_fn, {bytes}, "frames_memory");
    Value *address = b.CreatePtrToInt(frames_memory, i64);
    Value *pad = b.CreateAnd(b.CreateNeg(address), b.getInt64(frames_align - 1));
    frames = b.CreateInBoundsGEP(b.getInt8Ty(), frames_memory, pad, "frames");
    no_memory = BasicBlock::Create(c, "no_memory", f);
    BasicBlock *have_memory = BasicBlock::Create(c, "have_memory", f);
    b.CreateCondBr(b.CreateIsNull(frames_memory), no_memory, have_memory);
    b.SetInsertPoint(no_memory);
    b.CreateRet(b.getInt32(1));
    b.SetInsertPoint(have_memory);
  }

  // Where a generic pointer may point (KILN_BOUND_*; builtins/address_spaces.cl). All
  // of a work-item's stack slots lie below this launcher's return address.
  Value *local_address = b.CreatePtrToInt(local_mem, i64);
  v.memory_bound[KILN_BOUND_LOCAL_BEGIN] = local_address;
  v.memory_bound[KILN_BOUND_LOCAL_END] =
      b.CreateAdd(local_address, nd_field(offsetof(kiln_ndrange, local_mem_bytes), "local_mem_bytes"));
  Value *frames_address = frames ? b.CreatePtrToInt(frames, i64) : b.getInt64(0);
  v.memory_bound[KILN_BOUND_FRAMES_BEGIN] = frames_address;
  v.memory_bound[KILN_BOUND_FRAMES_END] =
      frames ? b.CreateAdd(frames_address, b.CreateMul(items, b.getInt64(split.frame_size))) : b.getInt64(0);
  v.memory_bound[KILN_BOUND_STACK_TOP] =
      b.CreatePtrToInt(b.CreateIntrinsic(Intrinsic::addressofreturnaddress, {ptr}, {}), i64);
  v.memory_bound[KILN_BOUND_ARGS] = b.CreatePtrToInt(args, i64);

  // A fiber launcher: the kernel's arguments in the context its work-item function reads.
  StructType *fiber_context = fibers ? fiber_context_type(k) : nullptr;
  AllocaInst *fiber_values = nullptr;
  Function *fiber_item = nullptr;
  BasicBlock *fibers_failed = nullptr;
  if (fibers) {
    fiber_values = b.CreateAlloca(fiber_context, nullptr, "fiber_context");
    b.CreateStore(nd, b.CreateStructGEP(fiber_context, fiber_values, FIBER_ND));
    b.CreateStore(local_mem, b.CreateStructGEP(fiber_context, fiber_values, FIBER_LOCAL_MEM));
    b.CreateStore(args, b.CreateStructGEP(fiber_context, fiber_values, FIBER_ARGS_BLOCK));
    for (unsigned i = 0; i < k.arg_size(); i++)
      b.CreateStore(call_args[i], b.CreateStructGEP(fiber_context, fiber_values, FIBER_ARGS + i));
    fiber_item = fiber_item_function(m, k, locals, fiber_context, name, error);
    if (!fiber_item) {
      f->eraseFromParent();
      return nullptr;
    }
    fibers_failed = BasicBlock::Create(c, "fibers.failed", f);
    IRBuilder<>(fibers_failed).CreateRet(b.getInt32(1));
  }

  // Whole-function vectorization (wfv/) where it applies: of the kernel, or (with
  // barriers) of each region. Fibers run one work-item each.
  Vectorizing vectorizing{wfv::mode() != wfv::Mode::Off && !has_option(m, OPTION_OPT_DISABLE) && !fibers, false,
                          wfv::width(), wfv::narrow_width()};
  for (unsigned i = 0; i < k.arg_size(); i++) vectorizing.has_images |= desc.args[i].kind == KILN_ARG_IMAGE;
  VectorForms forms;
  std::vector<RegionCall> region_calls;
  std::vector<Function *> region_functions;
  std::vector<RegionForms> regions;
  if (barriers) regions = region_forms(k, split, vectorizing, *f, region_functions);
  else forms = vector_forms(k, vectorizing, /*barrier_region=*/false, *f);

  Value *end = b.CreateAdd(first, count, "end");
  BasicBlock *pre = b.GetInsertBlock();
  BasicBlock *group_header = BasicBlock::Create(c, "group.header", f);
  BasicBlock *group_body = BasicBlock::Create(c, "group.body", f);
  BasicBlock *done = BasicBlock::Create(c, "done", f);
  b.CreateBr(group_header);
  b.SetInsertPoint(group_header);
  PHINode *g = b.CreatePHI(i64, 2, "group");
  g->addIncoming(first, pre);
  b.CreateCondBr(b.CreateICmpULT(g, end), group_body, done);
  b.SetInsertPoint(group_body);
  Value *rest = b.CreateUDiv(g, v.num_groups[0]);
  v.group_id[0] = b.CreateURem(g, v.num_groups[0], "group_id.x");
  v.group_id[1] = b.CreateURem(rest, v.num_groups[1], "group_id.y");
  v.group_id[2] = b.CreateUDiv(rest, v.num_groups[1], "group_id.z");
  for (int d = 0; d < 3; d++) {
    // The last group of a non-uniform NDRange is smaller.
    Value *start = b.CreateMul(v.group_id[d], v.enqueued_local_size[d]);
    Value *left = b.CreateSub(v.global_size[d], start);
    v.local_size[d] = b.CreateBinaryIntrinsic(Intrinsic::umin, v.enqueued_local_size[d], left, nullptr, "local_size");
  }
  auto emit_group = [&](WorkItemValues &values) {
    if (fibers) {
      emit_fiber_group(b, m, values, fiber_values, fiber_context, fiber_item, fibers_failed);
      return;
    }
    if (barriers) {
      emit_regions(b, split, regions, call_args, values, frames, items, uniform_current, uniform_next, next_region,
                   vectorizing, region_calls);
      return;
    }
    emit_loop(b, values.local_size[2], "z", [&](Value *z) {
      values.local_id[2] = z;
      emit_loop(b, values.local_size[1], "y", [&](Value *y) {
        values.local_id[1] = y;
        emit_row(b, values, forms, vectorizing, [&](Function *fn, Value *x) {
          std::vector<Value *> args(call_args);
          if (fn) args.push_back(x);  // a vector form's lane 0
          b.CreateCall(fn ? fn : &k, args);
        });
      });
    });
  };
  // A kernel with a required work-group size gets a second copy of the group's loops for
  // groups of exactly that size (all but the last one of a non-uniform NDRange), whose
  // sizes are constants: the loops' trip counts are known (a 16-wide row is one vector,
  // its remainder loops go), and so is every get_local_size() in the body.
  const uint64_t *reqd = desc.reqd_work_group_size;
  WorkItemValues full_values = v;
  BasicBlock *full_group = nullptr;
  if (reqd[0] && !has_option(m, OPTION_OPT_DISABLE) && !fibers) {
    Value *full = b.getTrue();
    for (int d = 0; d < 3; d++) {
      full_values.local_size[d] = full_values.enqueued_local_size[d] = b.getInt64(reqd[d]);
      // The enqueued size is the required one (ndrange.c checks it); tested all the same.
      full = b.CreateAnd(full, b.CreateICmpEQ(v.enqueued_local_size[d], b.getInt64(reqd[d])));
      full = b.CreateAnd(full, b.CreateICmpEQ(v.local_size[d], b.getInt64(reqd[d])));
    }
    full_group = BasicBlock::Create(c, "full_group", f);
    BasicBlock *partial_group = BasicBlock::Create(c, "partial_group", f);
    BasicBlock *group_join = BasicBlock::Create(c, "group.join", f);
    b.CreateCondBr(full, full_group, partial_group);
    b.SetInsertPoint(full_group);
    emit_group(full_values);
    b.CreateBr(group_join);
    b.SetInsertPoint(partial_group);
    emit_group(v);
    b.CreateBr(group_join);
    b.SetInsertPoint(group_join);
  } else {
    emit_group(v);
  }
  Value *next = b.CreateAdd(g, b.getInt64(1));
  g->addIncoming(next, b.GetInsertBlock());
  b.CreateBr(group_header);
  b.SetInsertPoint(done);
  if (barriers) {
    FunctionCallee free_fn = m.getOrInsertFunction("free", FunctionType::get(b.getVoidTy(), {ptr}, false));
    b.CreateCall(free_fn, {frames_memory});
  }
  b.CreateRet(b.getInt32(0));

  add_launcher_debug_scope(*f, k);  // debug builds: the kernel's lines survive inlining
  if (barriers) {
    if (!inline_region_calls(*f, region_calls, region_functions, error) || !inline_all(*f, error)) return nullptr;
  } else {
    if (!inline_all(*f, error)) return nullptr;
    if (full_group) {
      // Each copy's work-item values where it runs: the blocks full_group dominates.
      DominatorTree dt(*f);
      std::vector<BasicBlock *> in_full, others;
      for (BasicBlock &bb : *f) (dt.dominates(full_group, &bb) ? in_full : others).push_back(&bb);
      replace_intrinsics(in_full, full_values);
      replace_intrinsics(others, v);
    } else {
      replace_intrinsics(blocks_of(*f), v);
    }
  }
  place_local_variables(*f, local_vars);
  if (has_option(m, OPTION_DENORMS_ARE_ZERO)) flush_denormals(*f);
  return f;
}

}  // namespace kiln
