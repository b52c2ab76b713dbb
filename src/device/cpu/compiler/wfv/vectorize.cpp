// vectorize.cpp: wfv::vectorize_kernel, mode and width (wfv.hpp).
#include "device/cpu/compiler/compiler_internal.hpp"
#include "device/cpu/bounds_check.h"
#include "device/cpu/compiler/wfv/wfv.hpp"

#include <llvm/ADT/StringMap.h>
#include <llvm/Analysis/LoopInfo.h>
#include <llvm/IR/Dominators.h>
#include <llvm/IR/InstIterator.h>
#include <llvm/IR/Instructions.h>
#include <llvm/Support/raw_ostream.h>
#include <llvm/TargetParser/Host.h>
#include <llvm/Transforms/Utils/Cloning.h>

#include <cstdlib>
#include <cstring>

using namespace llvm;

namespace kiln::wfv {

namespace {

// Private memory per work-item above which a vector of them would need too large a stack
// (each lane has its own copy; launchers run on worker threads' stacks).
constexpr uint64_t MAX_VECTOR_PRIVATE_BYTES = 64 * 1024;

uint64_t private_bytes(Function &f) {
  const DataLayout &dl = f.getParent()->getDataLayout();
  uint64_t bytes = 0;
  for (Instruction &inst : f.getEntryBlock())
    if (auto *a = dyn_cast<AllocaInst>(&inst))
      if (std::optional<TypeSize> size = a->getAllocationSize(dl)) bytes += size->getFixedValue();
  return bytes;
}

bool has_loop(Function &f) {
  DominatorTree dt(f);
  LoopInfo li(dt);
  return !li.empty();
}

// Whether most of the linearized function's loads and stores would be vector accesses
// (not gathers, scatters or one address for all lanes: CTS vector_creation's kernels).
// Invariant loads (the bounds checks' extents) and accesses that may go to the sink (their
// slow copies) do not count.
bool mostly_consecutive(Function &f) {
  Shapes shapes;
  std::string why;
  if (!shapes.compute(f, why)) return false;
  const DataLayout &dl = f.getParent()->getDataLayout();
  int consecutive = 0, other = 0;
  for (Instruction &inst : instructions(f)) {
    Value *ptr = nullptr;
    Type *type = nullptr;
    if (auto *load = dyn_cast<LoadInst>(&inst)) {
      if (load->hasMetadata(LLVMContext::MD_invariant_load)) continue;
      ptr = load->getPointerOperand();
      type = load->getType();
    } else if (auto *store = dyn_cast<StoreInst>(&inst)) {
      ptr = store->getPointerOperand();
      type = store->getValueOperand()->getType();
    } else {
      continue;
    }
    if (auto *select = dyn_cast<SelectInst>(ptr); select && (is_sink(select->getTrueValue()) || is_sink(select->getFalseValue())))
      continue;
    (access_kind(shapes.of(ptr), type, dl) == Access::Consecutive ? consecutive : other)++;
  }
  return consecutive > other;
}

}  // namespace

Function *vectorize_kernel(Function &kernel, unsigned width, bool has_images, std::string &why, bool barrier_region) {
  Module &m = *kernel.getParent();
  std::string name = (kernel.getName() + ".wfv" + Twine(width)).str();
  if (Function *done = m.getFunction(name)) return done;  // image launchers share one
  if (calls_printf(kernel)) {
    why = "printf (its lines would interleave by lane)";
    return nullptr;
  }
  // Image reads dispatch on the format with branches that linearization would run for every
  // format; their launchers are specialized per format and widened by the loop vectorizer.
  if (mode() == Mode::Loops && has_images) {
    why = "image arguments (format-specialized launchers instead)";
    return nullptr;
  }
  ValueToValueMapTy map;
  Function *copy = CloneFunction(&kernel, map);
  copy->setLinkage(GlobalValue::InternalLinkage);
  Function *wide = nullptr;
  BlockPredicates predicates;
  if (prepare(*copy, why)) {
    bool loop_free = !barrier_region && !has_loop(*copy);
    if (mode() == Mode::Loops && loop_free) why = "no loop (the loop vectorizer widens its work-item loop)";
    else if (private_bytes(*copy) * width > MAX_VECTOR_PRIVATE_BYTES) why = "private arrays too large for a vector of work-items";
    else if (linearize(*copy, predicates, why)) {
      // Mode::Checked: a kernel without loops gains from WFV only through vector accesses,
      // and its checked copies (bounds_check_emit.cpp) of long runs of other accesses took
      // minutes to compile: it keeps a scalar work-item loop then.
      if (mode() == Mode::Checked && loop_free && !mostly_consecutive(*copy)) {
        why = "bounds-checked, no loop and mostly accesses other than vector ones";
      } else {
        if (getenv("KILN_DEBUG_WFV_IR")) copy->print(errs());
        wide = widen(*copy, predicates, width, why);
      }
    }
  }
  copy->eraseFromParent();
  if (wide) wide->setName(name);
  static const bool debug = getenv("KILN_DEBUG_WFV") != nullptr;
  if (debug)
    errs() << "kiln: " << kernel.getName() << ": " << (wide ? "vectorized, " + std::to_string(width) + " work-items" : "not vectorized: " + why.substr(0, getenv("KILN_DEBUG_WFV_IR") ? std::string::npos : 200)) << "\n";
  return wide;
}

Mode mode() {
  static const Mode m = [] {
    const char *v = getenv("KILN_VECTORIZE");
    if (v && strcmp(v, "0") == 0) return Mode::Off;
    if (v && strcmp(v, "all") == 0) return Mode::All;
    // Bounds-checked kernels (bounds_checks.cpp) have a call on a cold path of every
    // access, which stops LLVM's loop vectorizer but not whole-function vectorization.
    if (kiln_bounds_checking()) return Mode::Checked;
    return Mode::Loops;
  }();
  return m;
}

namespace {

// KILN_VECTOR_WIDTH, or 0.
unsigned forced_width() {
  static const unsigned w = [] {
    if (const char *v = getenv("KILN_VECTOR_WIDTH")) {
      unsigned n = (unsigned)strtoul(v, nullptr, 10);
      if (n >= 2 && n <= 64 && (n & (n - 1)) == 0) return n;
    }
    return 0u;
  }();
  return w;
}

unsigned register_floats() {
  static const unsigned w = [] {
    StringMap<bool> features = sys::getHostCPUFeatures();
    if (features.lookup("avx512f")) return 16u;
    if (features.lookup("avx2")) return 8u;
    return 4u;
  }();
  return w;
}

}  // namespace

unsigned width() { return forced_width() ? forced_width() : 2 * register_floats(); }

unsigned narrow_width() { return forced_width() ? 0 : register_floats(); }

}  // namespace kiln::wfv
