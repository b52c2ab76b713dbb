// linearize.cpp: wfv::linearize (wfv.hpp).
//
// Levels, outside in: the function's blocks outside loops, then each loop's own blocks
// (not its subloops'). Every block of a level starts with the level's predicate: none at
// the function level, the loop's active-lane predicate inside a loop.
//
// A divergent branch D (outermost first) opens a region: the blocks reachable from D before
// its immediate post-dominator P. The region's blocks and its subloops (each with its
// single exit block) are laid out in a topological order and chained by unconditional
// branches, ending in a new block before P. A block's predicate is the OR of its incoming
// edges' predicates (source predicate AND the branch condition, or its negation); a phi
// becomes a chain of selects on those edge predicates (edges into one block exclude each
// other). A subloop in a region is skipped when no lane is active (a guard block), so that
// its uniform trip count is never computed from values of lanes that did not get there;
// what it defines reaches later blocks through phis, zero on the skipping edge.
//
// A uniform branch in a region whose sides meet again inside it, with no divergent branch
// or loop between, stays a branch: all of the region's active lanes take the same side, so
// those blocks form one node of the chain and share its predicate.
//
// A divergent loop (its exit condition differs between lanes; one exiting block, the
// latch) gets an active-lane predicate phi: lanes leave it when their exit condition holds,
// and the loop repeats while any lane is active (ANY_LANE). A value used after the loop is
// each lane's value at its last iteration: a select per iteration keeps it.
#include "device/cpu/compiler/wfv/divergence.hpp"
#include "device/cpu/compiler/wfv/wfv.hpp"

#include <llvm/Analysis/LoopInfo.h>
#include <llvm/Analysis/PostDominators.h>
#include <llvm/IR/Constants.h>
#include <llvm/IR/Dominators.h>
#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/Module.h>
#include <llvm/IR/Instructions.h>
#include <llvm/IR/Verifier.h>
#include <llvm/Support/raw_ostream.h>
#include <llvm/Transforms/Utils/BasicBlockUtils.h>

#include <functional>
#include <map>
#include <set>
#include <vector>

using namespace llvm;

namespace kiln::wfv {

namespace {

class Linearizer {
 public:
  Linearizer(Function &f, BlockPredicates &predicates, std::string &why) : f_(f), preds_(predicates), why_(why) {}

  bool run() {
    divergent_ = divergent_branches(f_);
    if (!check_loops()) return false;
    return level(nullptr, nullptr);
  }

 private:
  Function &f_;
  BlockPredicates &preds_;
  std::string &why_;
  DenseSet<BasicBlock *> divergent_;  // blocks whose branch is divergent and not yet linearized
  std::set<BasicBlock *> divergent_loops_;  // headers
  DominatorTree dt_;
  PostDominatorTree pdt_;
  LoopInfo li_;

  void analyze() {
    dt_.recalculate(f_);
    pdt_.recalculate(f_);
    li_.releaseMemory();
    li_.analyze(dt_);
  }

  bool fail(const std::string &why) {
    why_ = why;
    return false;
  }

  // Divergent loops must exit only at the latch, to one block.
  bool check_loops() {
    analyze();
    for (Loop *loop : li_.getLoopsInPreorder()) {
      SmallVector<BasicBlock *, 4> exiting;
      loop->getExitingBlocks(exiting);
      bool divergent = false;
      for (BasicBlock *bb : exiting) divergent |= divergent_.contains(bb);
      if (!divergent) continue;
      if (exiting.size() != 1 || exiting[0] != loop->getLoopLatch() || !loop->getUniqueExitBlock() ||
          !loop->getLoopPredecessor())
        return fail("a loop whose lanes leave it at different iterations through more than its latch");
      divergent_loops_.insert(loop->getHeader());
      divergent_.erase(exiting[0]);
    }
    return true;
  }

  Value *and_pred(IRBuilder<> &b, Value *p, Value *c) { return p ? b.CreateAnd(p, c) : c; }

  // The blocks of `loop` (null: the function) outside its subloops.
  std::vector<BasicBlock *> level_blocks(Loop *loop) {
    std::vector<BasicBlock *> blocks;
    for (BasicBlock &bb : f_)
      if (li_.getLoopFor(&bb) == loop) blocks.push_back(&bb);
    return blocks;
  }

  bool level(BasicBlock *header, Value *base) {
    analyze();
    Loop *loop = header ? li_.getLoopFor(header) : nullptr;
    for (BasicBlock *bb : level_blocks(loop)) preds_[bb] = base;
    for (;;) {
      analyze();
      loop = header ? li_.getLoopFor(header) : nullptr;
      BasicBlock *d = nullptr;
      for (auto *node : depth_first(dt_.getRootNode())) {
        BasicBlock *bb = node->getBlock();
        if (li_.getLoopFor(bb) == loop && divergent_.contains(bb)) {
          d = bb;
          break;
        }
      }
      if (!d) break;
      if (!region(d, loop)) return false;
    }
    analyze();
    loop = header ? li_.getLoopFor(header) : nullptr;
    std::vector<BasicBlock *> subheaders;
    for (Loop *sub : loop ? loop->getSubLoops() : li_.getTopLevelLoops()) subheaders.push_back(sub->getHeader());
    for (BasicBlock *sub : subheaders) {
      analyze();
      Loop *l = li_.getLoopFor(sub);
      BasicBlock *entry = l->getLoopPredecessor();
      if (!entry) return fail("a loop entered from several blocks");
      Value *pred = preds_.lookup(entry);
      if (divergent_loops_.count(sub)) pred = divergent_loop(l, entry, pred);
      if (!level(sub, pred)) return false;
    }
    return true;
  }

  Value *divergent_loop(Loop *l, BasicBlock *entry, Value *entry_pred) {
    LLVMContext &c = f_.getContext();
    BasicBlock *h = l->getHeader(), *latch = l->getLoopLatch(), *exit = l->getUniqueExitBlock();
    auto *br = cast<BranchInst>(latch->getTerminator());
    IRBuilder<> hb(h, h->begin());
    PHINode *active = hb.CreatePHI(Type::getInt1Ty(c), 2, "wfv.active");
    active->addIncoming(entry_pred ? entry_pred : ConstantInt::getTrue(c), entry);
    IRBuilder<> b(br);
    Value *cond = br->getCondition();
    Value *stay = br->getSuccessor(0) == h ? cond : b.CreateNot(cond);
    Value *next = b.CreateAnd(active, stay, "wfv.active.next");
    Value *leaving = b.CreateAnd(active, b.CreateNot(stay), "wfv.leaving");
    std::vector<PHINode *> lcssa;
    for (PHINode &phi : exit->phis()) lcssa.push_back(&phi);
    for (PHINode *phi : lcssa) {
      Value *v = phi->getIncomingValueForBlock(latch);
      PHINode *kept = hb.CreatePHI(phi->getType(), 2, phi->getName() + ".wfv.kept");
      kept->addIncoming(Constant::getNullValue(phi->getType()), entry);
      Value *update = b.CreateSelect(leaving, v, kept, phi->getName() + ".wfv.last");
      kept->addIncoming(update, latch);
      phi->replaceAllUsesWith(update);
      phi->eraseFromParent();
    }
    active->addIncoming(next, latch);
    Function *any = any_lane(*f_.getParent());
    Value *again = b.CreateCall(any, {next}, "wfv.again");
    BranchInst::Create(h, exit, again, latch);
    br->eraseFromParent();
    return active;
  }

  static Function *any_lane(Module &m) {
    LLVMContext &c = m.getContext();
    FunctionCallee fc = m.getOrInsertFunction(ANY_LANE, FunctionType::get(Type::getInt1Ty(c), {Type::getInt1Ty(c)}, false));
    auto *fn = cast<Function>(fc.getCallee());
    fn->setDoesNotAccessMemory();
    fn->setDoesNotThrow();
    return fn;
  }

  // A node of a region: one block of the level, or a subloop with its exit block.
  struct Node {
    BasicBlock *block = nullptr;  // the block, or the subloop's header
    Loop *loop = nullptr;
    BasicBlock *exit = nullptr;   // the block whose terminator leaves the node
    Value *pred = nullptr;
    BasicBlock *entry = nullptr;  // where the chain enters it (a subloop's guard)
    std::vector<BasicBlock *> kept = {};  // blocks after `block` up to `exit` whose branches stay
  };

  // The blocks between `head`'s uniform branch and the block where its sides meet again
  // (its immediate post-dominator, returned), when that is a piece of the region taken
  // whole: blocks of the level only, no divergent branch, none entered from outside it.
  // Such a branch sends all of the region's active lanes one way, so it stays a branch (the
  // bounds checks' "is some lane outside" before each access; uniform tests in general).
  BasicBlock *uniform_piece(BasicBlock *head, Loop *level_loop, const std::set<BasicBlock *> &region,
                            const std::map<BasicBlock *, int> &taken, std::vector<BasicBlock *> &piece) {
    auto *br = dyn_cast<BranchInst>(head->getTerminator());
    if (!br || !br->isConditional() || br->getSuccessor(0) == br->getSuccessor(1) || divergent_.contains(head))
      return nullptr;
    DomTreeNode *pnode = pdt_.getNode(head)->getIDom();
    BasicBlock *meet = pnode ? pnode->getBlock() : nullptr;
    auto usable = [&](BasicBlock *bb) {
      return region.count(bb) && !taken.count(bb) && li_.getLoopFor(bb) == level_loop && !divergent_.contains(bb) &&
             isa<BranchInst>(bb->getTerminator());
    };
    if (!meet || !usable(meet)) return nullptr;
    piece.clear();
    std::set<BasicBlock *> seen{head};
    std::vector<BasicBlock *> work(succ_begin(head), succ_end(head));
    while (!work.empty()) {
      BasicBlock *bb = work.back();
      work.pop_back();
      if (bb == meet || seen.count(bb)) continue;
      if (!usable(bb)) return nullptr;
      seen.insert(bb);
      piece.push_back(bb);
      for (BasicBlock *s : successors(bb)) work.push_back(s);
    }
    for (BasicBlock *bb : piece)
      for (BasicBlock *pred : predecessors(bb))
        if (!seen.count(pred)) return nullptr;
    for (BasicBlock *pred : predecessors(meet))
      if (!seen.count(pred)) return nullptr;
    piece.push_back(meet);
    return meet;
  }

  // The blocks reachable from d before its immediate post-dominator *p, subloops' blocks
  // included; false (with why_) when that leaves the loop. `entered`: a block of them has a
  // predecessor outside them and d.
  bool region_blocks(BasicBlock *d, Loop *level_loop, BasicBlock *&p, std::set<BasicBlock *> &blocks, bool &entered) {
    DomTreeNode *pnode = pdt_.getNode(d)->getIDom();
    p = pnode ? pnode->getBlock() : nullptr;
    if (!p) return fail("a divergent branch without a join");
    blocks.clear();
    std::vector<BasicBlock *> work(succ_begin(d), succ_end(d));
    while (!work.empty()) {
      BasicBlock *bb = work.back();
      work.pop_back();
      if (bb == p || blocks.count(bb)) continue;
      if (level_loop && (!level_loop->contains(bb) || bb == level_loop->getHeader()))
        return fail("a divergent branch that leaves its loop");
      blocks.insert(bb);
      for (BasicBlock *s : successors(bb)) work.push_back(s);
    }
    entered = false;
    for (BasicBlock *bb : blocks)
      for (BasicBlock *pred : predecessors(bb)) entered |= pred != d && !blocks.count(pred);
    return true;
  }

  bool region(BasicBlock *d, Loop *level_loop) {
    // A region entered from outside (the uniform half of `a || b` jumping into the block
    // the divergent half also reaches) grows to the dominator whose region is closed: its
    // uniform branches are linearized too.
    BasicBlock *p = nullptr;
    std::set<BasicBlock *> blocks;
    for (bool entered = true;;) {
      if (!region_blocks(d, level_loop, p, blocks, entered)) return false;
      if (!entered) break;
      DomTreeNode *up = dt_.getNode(d)->getIDom();
      if (!up || li_.getLoopFor(up->getBlock()) != level_loop) return fail("a divergent region entered from outside");
      divergent_.erase(d);
      d = up->getBlock();
    }
    // A join block of the region's own (its phis become selects).
    std::vector<BasicBlock *> into_p;
    for (BasicBlock *pred : predecessors(p))
      if (pred == d || blocks.count(pred)) into_p.push_back(pred);
    BasicBlock *join = SplitBlockPredecessors(p, into_p, ".wfv.join", &dt_, &li_, nullptr, /*PreserveLCSSA=*/true);
    if (!join) return fail("cannot split a join");
    // Subloops leaving straight to the join get a dedicated exit block.
    std::vector<BasicBlock *> loop_exits;
    for (BasicBlock *pred : predecessors(join))
      if (li_.getLoopFor(pred) != level_loop) loop_exits.push_back(pred);
    for (BasicBlock *pred : loop_exits) {
      BasicBlock *exit = SplitBlockPredecessors(join, {pred}, ".wfv.exit", &dt_, &li_, nullptr, true);
      if (!exit) return fail("cannot split a loop exit");
      blocks.insert(exit);
    }
    // Nodes.
    std::map<BasicBlock *, int> node_of;  // a block of the level, or a subloop's header and exit
    std::vector<Node> nodes;
    nodes.push_back({d, nullptr, d});
    node_of[d] = 0;
    for (BasicBlock *bb : blocks) {
      Loop *l = li_.getLoopFor(bb);
      if (l == level_loop) continue;
      while (l->getParentLoop() != level_loop) l = l->getParentLoop();
      if (node_of.count(l->getHeader())) continue;
      BasicBlock *exit = l->getUniqueExitBlock();
      if (!exit || !blocks.count(exit) || li_.getLoopFor(exit) != level_loop)
        return fail("a loop with several exits in a divergent region");
      node_of[l->getHeader()] = (int)nodes.size();
      node_of[exit] = (int)nodes.size();
      nodes.push_back({l->getHeader(), l, exit});
    }
    // The level's blocks, heads before what they dominate, so that a uniform piece starts
    // at its head; a piece ending where another begins grows into it.
    for (auto *dnode : depth_first(dt_.getRootNode())) {
      BasicBlock *bb = dnode->getBlock();
      if (!blocks.count(bb) || li_.getLoopFor(bb) != level_loop || node_of.count(bb)) continue;
      int n = (int)nodes.size();
      node_of[bb] = n;
      Node node{bb, nullptr, bb};
      std::vector<BasicBlock *> piece;
      while (BasicBlock *meet = uniform_piece(node.exit, level_loop, blocks, node_of, piece)) {
        for (BasicBlock *kept : piece) {
          node_of[kept] = n;
          node.kept.push_back(kept);
        }
        node.exit = meet;
      }
      nodes.push_back(node);
    }
    // Edges between nodes; the only other target is the join.
    auto successors_of = [&](int n) {
      std::vector<int> out;
      for (BasicBlock *s : successors(nodes[n].exit)) {
        if (s == join) continue;
        auto it = node_of.find(s);
        if (it == node_of.end()) return std::vector<int>{-2};
        if (nodes[it->second].loop && s != nodes[it->second].block) return std::vector<int>{-2};
        out.push_back(it->second);
      }
      return out;
    };
    std::vector<int> order, state(nodes.size(), 0);
    bool ok = true;
    std::function<void(int)> visit = [&](int n) {
      state[n] = 1;
      for (int s : successors_of(n)) {
        if (s < 0 || state[s] == 1) {
          ok = false;
          continue;
        }
        if (state[s] == 0) visit(s);
      }
      state[n] = 2;
      order.push_back(n);
    };
    visit(0);
    if (!ok) return fail("a divergent region that is not a DAG of blocks and loops");
    if (order.size() != nodes.size()) return fail("a divergent region with unreachable parts");
    std::reverse(order.begin(), order.end());

    // Predicates: each node's, then its outgoing edges'.
    LLVMContext &c = f_.getContext();
    std::map<std::pair<BasicBlock *, BasicBlock *>, Value *> edge;  // (source exit block, target) -> pred
    std::map<int, std::vector<std::pair<BasicBlock *, BasicBlock *>>> incoming;
    nodes[0].pred = preds_.lookup(d);
    std::vector<BasicBlock *> guards(nodes.size(), nullptr);
    for (int n : order) {
      Node &node = nodes[n];
      if (n != 0) {
        IRBuilder<> b(c);
        if (node.loop) {
          guards[n] = BasicBlock::Create(c, node.block->getName() + ".wfv.guard", &f_, node.block);
          b.SetInsertPoint(guards[n]);
        } else {
          b.SetInsertPoint(node.block, node.block->getFirstInsertionPt());
        }
        Value *pred = nullptr;
        for (auto &e : incoming[n]) {
          Value *ep = edge.at(e);
          if (!ep) ep = ConstantInt::getTrue(c);
          pred = pred ? b.CreateOr(pred, ep) : ep;
        }
        node.pred = pred;
      }
      auto *term = node.exit->getTerminator();
      IRBuilder<> b(term);
      auto *br = dyn_cast<BranchInst>(term);
      if (!br) return fail("a divergent region holding a return");
      for (unsigned i = 0; i < br->getNumSuccessors(); i++) {
        BasicBlock *s = br->getSuccessor(i);
        Value *ep = node.pred;
        if (br->isConditional() && br->getSuccessor(0) != br->getSuccessor(1)) {
          Value *cond = i == 0 ? br->getCondition() : b.CreateNot(br->getCondition());
          ep = and_pred(b, node.pred, cond);
        }
        edge[{node.exit, s}] = ep;
        if (s != join) incoming[node_of.at(s)].push_back({node.exit, s});
      }
    }
    // Phis of the level's blocks and of the join become selects.
    auto blend = [&](BasicBlock *bb) {
      std::vector<PHINode *> phis;
      for (PHINode &phi : bb->phis()) phis.push_back(&phi);
      IRBuilder<> b(bb, bb->getFirstInsertionPt());
      for (PHINode *phi : phis) {
        Value *v = phi->getIncomingValue(0);
        for (unsigned i = 1; i < phi->getNumIncomingValues(); i++) {
          Value *ep = edge.at({phi->getIncomingBlock(i), bb});
          v = ep ? b.CreateSelect(ep, phi->getIncomingValue(i), v, phi->getName() + ".wfv.blend") : phi->getIncomingValue(i);
        }
        phi->replaceAllUsesWith(v);
        phi->eraseFromParent();
      }
    };
    for (int n : order)
      if (n != 0 && !nodes[n].loop) blend(nodes[n].block);
    blend(join);
    // The chain.
    Function *any = any_lane(*f_.getParent());
    BasicBlock *prev = d;
    auto chain_to = [&](BasicBlock *from, BasicBlock *to) {
      Instruction *term = from->getTerminator();
      BranchInst::Create(to, term);
      term->eraseFromParent();
    };
    for (int n : order) {
      if (n == 0) continue;
      Node &node = nodes[n];
      if (!node.loop) {
        chain_to(prev, node.block);
        prev = node.exit;
        preds_[node.block] = node.pred;
        for (BasicBlock *kept : node.kept) preds_[kept] = node.pred;
        continue;
      }
      BasicBlock *guard = guards[n];
      BasicBlock *outside = node.loop->getLoopPredecessor();
      chain_to(prev, guard);
      BasicBlock *rejoin = BasicBlock::Create(c, node.block->getName() + ".wfv.rejoin", &f_, node.exit->getNextNode());
      IRBuilder<> gb(guard);
      Value *pred = node.pred ? node.pred : ConstantInt::getTrue(c);
      gb.CreateCondBr(gb.CreateCall(any, {pred}), node.block, rejoin);
      for (PHINode &phi : node.block->phis()) phi.replaceIncomingBlockWith(outside, guard);
      // What the loop and its exit block define reaches later blocks through the rejoin.
      std::set<BasicBlock *> inside(node.loop->block_begin(), node.loop->block_end());
      inside.insert(node.exit);
      IRBuilder<> rb(rejoin);
      for (BasicBlock *bb : inside)
        for (Instruction &inst : *bb) {
          if (inst.getType()->isVoidTy()) continue;
          std::vector<Use *> outside_uses;
          for (Use &u : inst.uses())
            if (!inside.count(cast<Instruction>(u.getUser())->getParent())) outside_uses.push_back(&u);
          if (outside_uses.empty()) continue;
          PHINode *phi = rb.CreatePHI(inst.getType(), 2, inst.getName() + ".wfv.rejoin");
          phi->addIncoming(&inst, node.exit);
          phi->addIncoming(Constant::getNullValue(inst.getType()), guard);
          for (Use *u : outside_uses) u->set(phi);
        }
      chain_to(node.exit, rejoin);
      BranchInst::Create(join, rejoin);
      preds_[guard] = node.pred;
      preds_[rejoin] = node.pred;
      preds_[node.exit] = node.pred;
      prev = rejoin;
    }
    chain_to(prev, join);
    preds_[join] = nodes[0].pred;
    divergent_.erase(d);
    for (BasicBlock *bb : blocks)
      if (li_.getLoopFor(bb) == level_loop) divergent_.erase(bb);  // subloops' branches wait for their level
    return true;
  }
};

}  // namespace

bool linearize(Function &f, BlockPredicates &predicates, std::string &why) {
  Linearizer linearizer(f, predicates, why);
  if (!linearizer.run()) return false;
  std::string broken;
  raw_string_ostream os(broken);
  if (verifyFunction(f, &os)) {
    why = "linearization produced invalid IR: " + os.str();
    return false;
  }
  return true;
}

}  // namespace kiln::wfv
