// llvm_diagnostics.cpp: LLVM's diagnostics as build log lines (compiler_internal.hpp).
#include "device/cpu/compiler/compiler_internal.hpp"

#include <llvm/IR/DiagnosticInfo.h>
#include <llvm/IR/DiagnosticPrinter.h>
#include <llvm/Support/raw_ostream.h>

namespace {

void collect(const llvm::DiagnosticInfo *info, void *context) {
  auto *into = static_cast<kiln::LlvmDiagnostics *>(context);
  bool error = info->getSeverity() == llvm::DS_Error;
  if (error) into->errors++;
  llvm::raw_string_ostream os(into->log);
  llvm::DiagnosticPrinterRawOStream printer(os);
  os << (error ? "error: " : "warning: ");
  info->print(printer);
  os << "\n";
}

}  // namespace

namespace kiln {

void collect_llvm_diagnostics(llvm::LLVMContext &context, LlvmDiagnostics *into) {
  context.setDiagnosticHandlerCallBack(into ? collect : nullptr, into);
}

}  // namespace kiln
