// link.cpp: kiln_compiler_link — llvm::Linker over compiled objects and libraries; for an
// executable also the builtin library (only what is referenced), then a check that every
// function the program calls exists.
#include "device/cpu/compiler/builtins_ref.h"
#include "device/cpu/compiler/compiler_internal.hpp"
#include "device/cpu/compiler/options.h"

#include <llvm/Bitcode/BitcodeReader.h>
#include <llvm/Demangle/Demangle.h>
#include <llvm/IR/DiagnosticInfo.h>
#include <llvm/IR/DiagnosticPrinter.h>
#include <llvm/Linker/Linker.h>
#include <llvm/Support/Error.h>
#include <llvm/Support/MemoryBuffer.h>
#include <llvm/Support/raw_ostream.h>

#include <cstring>
#include <set>
#include <string>

using namespace llvm;

namespace {

bool is_work_item_intrinsic(StringRef name) {
  static const char *const names[] = {
      KILN_INTRINSIC_LOCAL_ID,     KILN_INTRINSIC_GROUP_ID,      KILN_INTRINSIC_LOCAL_SIZE,
      KILN_INTRINSIC_ENQUEUED_LOCAL_SIZE, KILN_INTRINSIC_GLOBAL_SIZE, KILN_INTRINSIC_GLOBAL_OFFSET,
      KILN_INTRINSIC_NUM_GROUPS,   KILN_INTRINSIC_WORK_DIM,      KILN_INTRINSIC_BARRIER,
  };
  for (const char *n : names)
    if (name == n) return true;
  return false;
}

// Collects the linker's diagnostics (duplicate definitions, type clashes).
void collect_diagnostic(const DiagnosticInfo *info, void *context) {
  std::string &out = *static_cast<std::string *>(context);
  raw_string_ostream os(out);
  DiagnosticPrinterRawOStream printer(os);
  os << (info->getSeverity() == DS_Error ? "error: " : "warning: ");
  info->print(printer);
  os << "\n";
}

struct LinkState {
  std::unique_ptr<LLVMContext> context = std::make_unique<LLVMContext>();
  std::unique_ptr<Module> module;
  std::string log;
  ~LinkState() { module.reset(); }  // before its context
};

int link_builtins(LinkState &s, Linker &linker) {
  const unsigned char *bitcode = nullptr;
  size_t size = 0;
  kiln_builtins_get(&bitcode, &size);
  if (!bitcode || size == 0) return KILN_COMPILE_OK;  // no builtin library in this build
  // Lazily: the linker materializes only the functions the program needs.
  auto parsed = getLazyBitcodeModule(
      MemoryBufferRef(StringRef(reinterpret_cast<const char *>(bitcode), size), "kiln-builtins"), *s.context);
  if (!parsed) {
    s.log += "error: cannot read the builtin library: " + toString(parsed.takeError()) + "\n";
    return KILN_COMPILE_FAILED;
  }
  std::unique_ptr<Module> builtins = std::move(*parsed);
  builtins->setTargetTriple(s.module->getTargetTriple());
  builtins->setDataLayout(s.module->getDataLayout());
  if (linker.linkInModule(std::move(builtins), Linker::LinkOnlyNeeded)) return KILN_COMPILE_FAILED;
  return KILN_COMPILE_OK;
}

}  // namespace

extern "C" int kiln_compiler_link(kiln_module *const *inputs, size_t num_inputs, const char *options,
                                  bool create_library, kiln_module **out, char **log) {
  *out = nullptr;
  if (log) *log = nullptr;
  struct kiln_cl_options parsed;
  int status = kiln_cl_options_parse(options, KILN_OPTIONS_BUILD, &parsed, log);
  if (status != KILN_COMPILE_OK) return status;
  kiln_cl_options_free(&parsed);
  if (log) {
    free(*log);
    *log = nullptr;
  }

  LinkState s;
  s.context->setDiagnosticHandlerCallBack(collect_diagnostic, &s.log);
  s.module = std::make_unique<Module>("kiln-program", *s.context);
  Linker linker(*s.module);
  status = KILN_COMPILE_OK;
  for (size_t i = 0; i < num_inputs && status == KILN_COMPILE_OK; i++) {
    std::string error;
    std::unique_ptr<Module> copy = kiln::copy_module(*inputs[i]->module, *s.context, error);
    if (!copy) {
      s.log += "error: " + error + "\n";
      status = KILN_COMPILE_FAILED;
      break;
    }
    if (i == 0) {
      s.module->setTargetTriple(copy->getTargetTriple());
      s.module->setDataLayout(copy->getDataLayout());
    }
    if (linker.linkInModule(std::move(copy))) status = KILN_COMPILE_FAILED;
  }

  if (status == KILN_COMPILE_OK && !create_library) {
    // Declarations the program itself leaves open must be defined by the builtin library.
    std::set<std::string> open;
    for (Function &f : *s.module)
      if (f.isDeclaration() && !f.isIntrinsic() && !is_work_item_intrinsic(f.getName())) open.insert(f.getName().str());
    status = link_builtins(s, linker);
    std::string printf_error;
    if (status == KILN_COMPILE_OK && !kiln::lower_printf(*s.module, printf_error)) {
      s.log += "error: " + printf_error + "\n";
      status = KILN_COMPILE_FAILED;
    }
    for (Function &f : *s.module) {
      if (status != KILN_COMPILE_OK) break;
      if (!f.isDeclaration() || f.isIntrinsic() || f.use_empty() || is_work_item_intrinsic(f.getName())) continue;
      if (open.count(f.getName().str()) || f.getName().starts_with("_Z")) {
        std::string name = f.getName().str();
        std::string demangled = demangle(name);
        s.log += "error: undefined function " + demangled + (demangled != name ? " (" + name + ")" : "") + "\n";
      }
    }
    if (status == KILN_COMPILE_OK && s.log.find("undefined function") != std::string::npos) status = KILN_COMPILE_FAILED;
  }

  if (status == KILN_COMPILE_OK) {
    std::string error;
    kiln_module *m = kiln::wrap_module(std::move(s.context), std::move(s.module),
                                       create_library ? KILN_MODULE_LIBRARY : KILN_MODULE_EXECUTABLE, error);
    if (!m) {
      s.log += "error: " + error + "\n";
      status = KILN_COMPILE_FAILED;
    } else {
      m->context->setDiagnosticHandlerCallBack(nullptr, nullptr);
      *out = m;
    }
  }
  if (log) *log = kiln::dup_log(s.log);
  return status;
}
