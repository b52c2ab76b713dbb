// describe.cpp: kiln_wfv_describe (describe.h).
#include "device/cpu/compiler/wfv/describe.h"

#include "device/cpu/compiler/wfv/wfv.hpp"

#include <llvm/AsmParser/Parser.h>
#include <llvm/IR/Instructions.h>
#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/Module.h>
#include <llvm/Support/SourceMgr.h>

#include <cstdlib>
#include <cstring>
#include <string>

using namespace llvm;

namespace {

std::string shape_text(kiln::wfv::Shape s) {
  if (s.uniform()) return "uniform";
  if (s.affine()) return "affine " + std::to_string(s.stride);
  return "varying";
}

const char *access_text(kiln::wfv::Access a, bool store) {
  switch (a) {
    case kiln::wfv::Access::Uniform: return "uniform";
    case kiln::wfv::Access::Consecutive: return "consecutive";
    default: return store ? "scatter" : "gather";
  }
}

}  // namespace

extern "C" char *kiln_wfv_describe(const char *ir, const char *function, unsigned width) {
  LLVMContext c;
  SMDiagnostic error;
  std::unique_ptr<Module> m = parseAssemblyString(ir, error, c);
  if (!m) return nullptr;
  Function *f = m->getFunction(function);
  if (!f || f->isDeclaration()) return nullptr;
  std::string out, why;
  kiln::wfv::BlockPredicates predicates;
  kiln::wfv::Shapes shapes;
  if (!kiln::wfv::linearize(*f, predicates, why) || !shapes.compute(*f, why)) {
    out += "not vectorized: " + why + "\n";
    return strdup(out.c_str());
  }
  const DataLayout &dl = m->getDataLayout();
  for (BasicBlock &bb : *f) {
    Value *p = predicates.lookup(&bb);
    out += "block " + bb.getName().str() + ": " + (p ? "predicated" : "all lanes") + "\n";
    if (auto *br = dyn_cast<BranchInst>(bb.getTerminator()); br && br->isConditional())
      out += "branch " + bb.getName().str() + ": kept\n";
    for (Instruction &inst : bb) {
      if (inst.hasName()) out += "%" + inst.getName().str() + ": " + shape_text(shapes.of(&inst)) + "\n";
      if (auto *load = dyn_cast<LoadInst>(&inst); load && load->hasName())
        out += "load %" + load->getName().str() + ": " +
               access_text(kiln::wfv::access_kind(shapes.of(load->getPointerOperand()), load->getType(), dl), false) + "\n";
      if (auto *store = dyn_cast<StoreInst>(&inst)) {
        Value *v = store->getValueOperand();
        std::string name = v->hasName() ? "%" + v->getName().str() : "constant";
        out += "store " + name + ": " +
               access_text(kiln::wfv::access_kind(shapes.of(store->getPointerOperand()), v->getType(), dl), true) + "\n";
      }
    }
  }
  Function *wide = kiln::wfv::widen(*f, predicates, width, why);
  out += wide ? "widened\n" : "not vectorized: " + why + "\n";
  return strdup(out.c_str());
}
