// vector_math.cpp: add_vector_math_variants (compiler_internal.hpp). The builtin library's
// math calls SLEEF's scalar functions (Sleef_sinf_u10, ...). SLEEF also has vector versions
// of each (Sleef_sinf8_u10avx2, ...) with the same accuracy; announcing them with LLVM's
// vector-function ABI lets the loop vectorizer call them for 4, 8 or 16 work-items at once
// instead of calling the scalar function once per work-item.
#include "device/cpu/compiler/compiler_internal.hpp"

#include <llvm/ADT/StringMap.h>
#include <llvm/IR/DerivedTypes.h>
#include <llvm/IR/Module.h>
#include <llvm/TargetParser/Host.h>
#include <llvm/Transforms/Utils/ModuleUtils.h>

#include <dlfcn.h>

#include <string>
#include <vector>

using namespace llvm;

namespace {

struct Isa {
  const char *feature;  // host CPU feature that must be present
  const char *suffix;   // SLEEF's name for the instruction set
  unsigned float_lanes, double_lanes;
};
// Widest first: the vectorizer picks the width it prefers among those offered.
const Isa isas[] = {{"avx512f", "avx512f", 16, 8}, {"avx2", "avx2", 8, 4}, {"sse4.1", "sse4", 4, 2}};

// SLEEF is loaded with libkiln (builtins/CMakeLists.txt); a variant is offered only when
// this SLEEF exports it.
bool sleef_exports(const std::string &name) {
  static void *sleef = dlopen("libsleef.so.3", RTLD_LAZY | RTLD_NOLOAD);
  return sleef && dlsym(sleef, name.c_str());
}

}  // namespace

namespace kiln {

void add_vector_math_variants(Module &m) {
  static const StringMap<bool> features = sys::getHostCPUFeatures();
  std::vector<GlobalValue *> declared;
  for (Function &f : m) {
    StringRef name = f.getName();
    if (!f.isDeclaration() || !name.starts_with("Sleef_") || f.arg_empty() || f.arg_size() > 2) continue;
    Type *type = f.getReturnType();
    if (!type->isFloatTy() && !type->isDoubleTy()) continue;
    bool same_types = true;
    for (Argument &a : f.args()) same_types &= a.getType() == type;
    if (!same_types) continue;
    // Sleef_<stem>_<accuracy>: float stems end in 'f'; vector names put the lane count
    // after the stem (doubles add 'd') and the instruction set after the accuracy.
    size_t underscore = name.rfind('_');
    if (underscore == StringRef::npos || underscore <= 6) continue;
    std::string stem = name.substr(0, underscore).str(), accuracy = name.substr(underscore + 1).str();
    bool is_float = type->isFloatTy();
    if (is_float && stem.back() != 'f') continue;
    std::string variants;
    for (const Isa &isa : isas) {
      auto it = features.find(isa.feature);
      if (it == features.end() || !it->second) continue;
      unsigned lanes = is_float ? isa.float_lanes : isa.double_lanes;
      std::string vector_name =
          stem + (is_float ? "" : "d") + std::to_string(lanes) + "_" + accuracy + isa.suffix;
      if (!sleef_exports(vector_name)) continue;
      auto *vector_type = FixedVectorType::get(type, lanes);
      std::vector<Type *> params(f.arg_size(), vector_type);
      FunctionCallee vector_fn = m.getOrInsertFunction(vector_name, FunctionType::get(vector_type, params, false));
      declared.push_back(cast<GlobalValue>(vector_fn.getCallee()));
      if (!variants.empty()) variants += ",";
      variants += "_ZGV_LLVM_N" + std::to_string(lanes) + std::string(f.arg_size(), 'v') + "_" + name.str() + "(" +
                  vector_name + ")";
    }
    if (!variants.empty()) f.addFnAttr("vector-function-abi-variant", variants);
  }
  // Unused until the vectorizer calls them: kept from dead-declaration removal until then.
  if (!declared.empty()) appendToCompilerUsed(m, declared);
}

}  // namespace kiln
