// jit.cpp: executable module -> machine code. A copy of the module gets one work-group
// launcher per kernel (launcher.cpp), is retargeted from SPIR to the host (triple, data
// layout, calling conventions), internalized except for the launchers, optimized (O3, or
// O0 with -cl-opt-disable) and compiled by an ORC LLJIT for the host CPU and its features.
#include "device/cpu/compiler/compiler_internal.hpp"

#include <llvm/ExecutionEngine/Orc/ExecutionUtils.h>
#include <llvm/ExecutionEngine/Orc/JITTargetMachineBuilder.h>
#include <llvm/ExecutionEngine/Orc/LLJIT.h>
#include <llvm/ExecutionEngine/Orc/ThreadSafeModule.h>
#include <llvm/IR/Constants.h>
#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/InstIterator.h>
#include <llvm/IR/Instructions.h>
#include <llvm/IR/ReplaceConstant.h>
#include <llvm/IR/Verifier.h>
#include <llvm/Passes/PassBuilder.h>
#include <llvm/Support/TargetSelect.h>
#include <llvm/Support/raw_ostream.h>
#include <llvm/Target/TargetMachine.h>
#include <llvm/Transforms/Utils/Cloning.h>

#include <cstddef>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <map>
#include <set>
#include <mutex>
#include <string>

using namespace llvm;
using namespace llvm::orc;

struct kiln_jit_program {
  std::unique_ptr<LLJIT> jit;
  std::vector<kiln_launcher_fn> launchers;
};

namespace {

std::mutex symbols_mutex;
std::map<std::string, void *> &defined_symbols() {
  static std::map<std::string, void *> symbols;
  return symbols;
}

void initialize_llvm() {
  static std::once_flag once;
  std::call_once(once, [] {
    InitializeNativeTarget();
    InitializeNativeTargetAsmPrinter();
  });
}

// SPIR -> host: calling conventions, target attributes, `convergent` (only the barrier
// intrinsic keeps it; the launcher generator removes its calls).
void retarget(Module &m, TargetMachine &tm) {
  m.setTargetTriple(tm.getTargetTriple().str());
  m.setDataLayout(tm.createDataLayout());
  for (Function &f : m) {
    f.setCallingConv(CallingConv::C);
    bool barrier = f.getName() == KILN_INTRINSIC_BARRIER;
    if (!barrier) f.removeFnAttr(Attribute::Convergent);
    f.removeFnAttr(Attribute::NoInline);
    f.removeFnAttr(Attribute::OptimizeNone);
    f.removeFnAttr("target-cpu");
    f.removeFnAttr("target-features");
    f.removeFnAttr("tune-cpu");
    for (Instruction &inst : instructions(f))
      if (auto *call = dyn_cast<CallBase>(&inst)) {
        call->setCallingConv(CallingConv::C);
        Function *callee = call->getCalledFunction();
        if (!callee || callee->getName() != KILN_INTRINSIC_BARRIER) call->removeFnAttr(Attribute::Convergent);
      }
  }
}

void optimize(Module &m, TargetMachine &tm, bool opt_disable) {
  LoopAnalysisManager lam;
  FunctionAnalysisManager fam;
  CGSCCAnalysisManager cgam;
  ModuleAnalysisManager mam;
  PipelineTuningOptions tuning;
  tuning.LoopVectorization = !opt_disable;
  tuning.SLPVectorization = !opt_disable;
  PassBuilder pb(&tm, tuning);
  pb.registerModuleAnalyses(mam);
  pb.registerCGSCCAnalyses(cgam);
  pb.registerFunctionAnalyses(fam);
  pb.registerLoopAnalyses(lam);
  pb.crossRegisterProxies(lam, fam, cgam, mam);
  ModulePassManager mpm = opt_disable ? pb.buildO0DefaultPipeline(OptimizationLevel::O0)
                                      : pb.buildPerModuleDefaultPipeline(OptimizationLevel::O3);
  mpm.run(m, mam);
}

std::string launcher_name(size_t index) { return "kiln_launcher_" + std::to_string(index); }

}  // namespace

extern "C" {

void kiln_jit_define_symbol(const char *name, void *address) {
  std::lock_guard<std::mutex> lock(symbols_mutex);
  defined_symbols()[name] = address;
}

int kiln_jit_load(const kiln_module *executable, kiln_jit_program **out, char **log) {
  *out = nullptr;
  if (log) *log = nullptr;
  auto fail = [log](int status, const std::string &message) {
    if (log) *log = kiln::dup_log("error: " + message + "\n");
    return status;
  };
  if (executable->kind != KILN_MODULE_EXECUTABLE) return fail(KILN_COMPILE_FAILED, "not an executable program");
  initialize_llvm();

  auto jtmb = JITTargetMachineBuilder::detectHost();
  if (!jtmb) return fail(KILN_COMPILE_FAILED, toString(jtmb.takeError()));
  bool opt_disable = kiln::has_option(*executable->module, kiln::OPTION_OPT_DISABLE);
  jtmb->setCodeGenOptLevel(opt_disable ? CodeGenOptLevel::None : CodeGenOptLevel::Aggressive);
  auto tm = jtmb->createTargetMachine();
  if (!tm) return fail(KILN_COMPILE_FAILED, toString(tm.takeError()));

  auto context = std::make_unique<LLVMContext>();
  std::string error;
  std::unique_ptr<Module> m = kiln::copy_module(*executable->module, *context, error);
  if (!m) return fail(KILN_COMPILE_FAILED, error);

  // Kernels in the order of the module's descriptions (wrap_module's order).
  std::vector<Function *> kernels;
  for (Function &f : *m)
    if (kiln::is_kernel(f)) kernels.push_back(&f);
  if (kernels.size() != executable->kernels.size()) {
    m.reset();
    return fail(KILN_COMPILE_FAILED, "kernel list mismatch");
  }
  std::vector<kiln::LocalLayout> layouts;
  for (size_t i = 0; i < kernels.size(); i++) {
    layouts.push_back(kiln::local_layout(*kernels[i]));
  }
  retarget(*m, **tm);
  std::set<Function *> launchers;
  for (size_t i = 0; i < kernels.size(); i++) {
    Function *l = kiln::build_launcher(*m, *kernels[i], executable->kernels[i], layouts[i], launcher_name(i), error);
    if (!l) {
      m.reset();
      return fail(KILN_COMPILE_FAILED, error);
    }
    launchers.insert(l);
  }
  // Only the launchers stay visible.
  for (Function &f : *m)
    if (!f.isDeclaration() && !launchers.count(&f)) {
      f.setLinkage(GlobalValue::InternalLinkage);
      f.setComdat(nullptr);
    }
  for (GlobalVariable &gv : m->globals())
    if (!gv.isDeclaration()) {
      gv.setLinkage(GlobalValue::InternalLinkage);
      gv.setComdat(nullptr);
    }
  std::string verify;
  raw_string_ostream verify_os(verify);
  if (verifyModule(*m, &verify_os)) {
    m.reset();
    return fail(KILN_COMPILE_FAILED, "invalid launcher code: " + verify_os.str());
  }
  optimize(*m, **tm, opt_disable);
  static const bool dump_ir = getenv("KILN_DEBUG_IR") != nullptr;
  if (dump_ir) m->print(errs(), nullptr);

  auto jit = LLJITBuilder().setJITTargetMachineBuilder(std::move(*jtmb)).create();
  if (!jit) {
    m.reset();
    return fail(KILN_COMPILE_FAILED, toString(jit.takeError()));
  }
  JITDylib &dylib = (*jit)->getMainJITDylib();
  auto process = DynamicLibrarySearchGenerator::GetForCurrentProcess((*jit)->getDataLayout().getGlobalPrefix());
  if (!process) {
    m.reset();
    return fail(KILN_COMPILE_FAILED, toString(process.takeError()));
  }
  dylib.addGenerator(std::move(*process));
  {
    std::lock_guard<std::mutex> lock(symbols_mutex);
    SymbolMap symbols;
    for (auto &[name, address] : defined_symbols())
      symbols[(*jit)->mangleAndIntern(name)] = {ExecutorAddr::fromPtr(address), JITSymbolFlags::Exported};
    if (!symbols.empty())
      if (Error e = dylib.define(absoluteSymbols(std::move(symbols)))) {
        m.reset();
        return fail(KILN_COMPILE_FAILED, toString(std::move(e)));
      }
  }
  if (Error e = (*jit)->addIRModule(ThreadSafeModule(std::move(m), std::move(context))))
    return fail(KILN_COMPILE_FAILED, toString(std::move(e)));

  auto program = std::make_unique<kiln_jit_program>();
  program->jit = std::move(*jit);
  for (size_t i = 0; i < kernels.size(); i++) {
    auto address = program->jit->lookup(launcher_name(i));
    if (!address) return fail(KILN_COMPILE_FAILED, toString(address.takeError()));
    program->launchers.push_back(address->toPtr<kiln_launcher_fn>());
  }
  *out = program.release();
  if (log) *log = strdup("");
  return KILN_COMPILE_OK;
}

kiln_launcher_fn kiln_jit_launcher(const kiln_jit_program *program, size_t kernel_index) {
  return kernel_index < program->launchers.size() ? program->launchers[kernel_index] : nullptr;
}

void kiln_jit_free(kiln_jit_program *program) { delete program; }

}  // extern "C"
