// jit.cpp: executable module -> machine code. A copy of the module is linked with the
// builtin library, gets one work-group launcher per kernel (launcher.cpp), is retargeted
// from SPIR to the host (triple, data layout, calling conventions), internalized except
// for the launchers, optimized (O3, or O0 with -cl-opt-disable) and compiled by an ORC
// LLJIT for the host CPU and its features.
#include "device/cpu/bounds_check.h"
#include "device/cpu/compiler/compiler_internal.hpp"
#include "device/cpu/compiler/kernel_debugging.hpp"
#include "device/cpu/compiler/local_masked_access.hpp"
#include "device/cpu/compiler/masked_global_loads.hpp"
#include "device/cpu/compiler/streaming_stores.hpp"
#include "device/cpu/compiler/wfv/wfv.hpp"

#include <llvm/ExecutionEngine/ObjectCache.h>
#include <llvm/ExecutionEngine/Orc/CompileUtils.h>
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
#include <llvm/Transforms/IPO/GlobalDCE.h>
#include <llvm/Support/MemoryBuffer.h>
#include <llvm/Support/TargetSelect.h>
#include <llvm/TargetParser/Host.h>
#include <llvm/Support/raw_ostream.h>
#include <llvm/Target/TargetMachine.h>
#include <llvm/Transforms/Utils/Cloning.h>

#include <atomic>
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
  // Code generation's diagnostics (its context's handler points here): destroyed last.
  kiln::LlvmDiagnostics diagnostics;
  std::unique_ptr<ObjectCache> capture;  // jit's compiler uses it: declared first, destroyed last
  std::unique_ptr<LLJIT> jit;
  std::vector<kiln_launcher_fn> launchers;
  std::vector<std::string> objects;  // the machine code compiled for it (empty when loaded from objects)
  std::vector<uint64_t> stack_bytes; // per launcher: the stack a call needs (stack_sizes.cpp)
  std::vector<bool> fibers;          // per launcher: runs work-items as fibers (launcher.cpp)
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
  // No SLP vectorizer: with LLVM 19 on x86 it built a mixed and/ashr <4 x i64> whose unused
  // lanes shift by >= 64, and the generated code returned the shift's lanes for the and's
  // (test_kernel_builtins_conversions' integer conversions got -1). Vectorization across
  // work-items is the loop vectorizer's (readied by work_item_vectorize.cpp).
  tuning.SLPVectorization = false;
  PassBuilder pb(&tm, tuning);
  if (!opt_disable && kiln::work_item_vectorization_mode() != kiln::WorkItemVectorization::Off &&
      kiln::wfv::mode() != kiln::wfv::Mode::Off)
    pb.registerOptimizerEarlyEPCallback(
        [](ModulePassManager &mpm, OptimizationLevel) { kiln::add_work_item_vectorization(mpm); });
  pb.registerModuleAnalyses(mam);
  pb.registerCGSCCAnalyses(cgam);
  pb.registerFunctionAnalyses(fam);
  pb.registerLoopAnalyses(lam);
  pb.crossRegisterProxies(lam, fam, cgam, mam);
  ModulePassManager mpm = opt_disable ? pb.buildO0DefaultPipeline(OptimizationLevel::O0)
                                      : pb.buildPerModuleDefaultPipeline(OptimizationLevel::O3);
  // The launchers inlined every kernel and builtin they run; the original (internal)
  // definitions still call the work-item intrinsics, which exist only as launcher values.
  // O3 deletes them anyway; without optimization they must be deleted explicitly.
  if (opt_disable) mpm.addPass(GlobalDCEPass());
  mpm.run(m, mam);
}

std::string launcher_name(size_t index) { return "kiln_launcher_" + std::to_string(index); }

// ---- machine code for the compiled-code cache (program_cache.c) ----

std::atomic<unsigned long> code_generations{0};

// Keeps a copy of every object file the JIT's compiler produces (never supplies one:
// a cached program is loaded with addObjectFile, without IR).
class ObjectCapture : public ObjectCache {
public:
  explicit ObjectCapture(std::vector<std::string> &objects) : objects_(objects) {}
  void notifyObjectCompiled(const Module *, MemoryBufferRef object) override {
    code_generations++;
    objects_.emplace_back(object.getBufferStart(), object.getBufferSize());
  }
  std::unique_ptr<MemoryBuffer> getObject(const Module *) override { return nullptr; }

private:
  std::vector<std::string> &objects_;
};

// An LLJIT for the host whose symbols resolve against the process and the symbols of
// kiln_jit_define_symbol. With `capture`, the objects it compiles are kept there.
// With `debug`, the objects it links are registered with gdb (kernel_debugging.hpp).
Expected<std::unique_ptr<LLJIT>> create_jit(JITTargetMachineBuilder jtmb, ObjectCache *capture, bool debug) {
  LLJITBuilder builder;
  builder.setJITTargetMachineBuilder(std::move(jtmb));
  if (capture)
    builder.setCompileFunctionCreator(
        [capture](JITTargetMachineBuilder jtmb) -> Expected<std::unique_ptr<IRCompileLayer::IRCompiler>> {
          auto tm = jtmb.createTargetMachine();
          if (!tm) return tm.takeError();
          return std::make_unique<TMOwningSimpleCompiler>(std::move(*tm), capture);
        });
  auto jit = builder.create();
  if (!jit) return jit.takeError();
  if (debug)
    if (Error e = kiln::enable_gdb_registration(**jit)) return e;
  JITDylib &dylib = (*jit)->getMainJITDylib();
  auto process = DynamicLibrarySearchGenerator::GetForCurrentProcess((*jit)->getDataLayout().getGlobalPrefix());
  if (!process) return process.takeError();
  dylib.addGenerator(std::move(*process));
  // The ICD loader opens libkiln.so privately (RTLD_LOCAL), so the libraries the builtins
  // call (SLEEF, libm) are not in the process's global scope: search them by name too.
  // libgcc_s has the half conversions the x86 back end calls (__truncdfhf2: double to
  // half; without F16C also float to half and back), since GCC 12.
  for (const char *library : {"libsleef.so.3", "libm.so.6", "libgcc_s.so.1"}) {
    auto generator = DynamicLibrarySearchGenerator::Load(library, (*jit)->getDataLayout().getGlobalPrefix());
    if (!generator) return generator.takeError();
    dylib.addGenerator(std::move(*generator));
  }
  std::lock_guard<std::mutex> lock(symbols_mutex);
  SymbolMap symbols;
  for (auto &[name, address] : defined_symbols())
    symbols[(*jit)->mangleAndIntern(name)] = {ExecutorAddr::fromPtr(address), JITSymbolFlags::Exported};
  if (!symbols.empty())
    if (Error e = dylib.define(absoluteSymbols(std::move(symbols)))) return e;
  return jit;
}

// The JIT target for the host; opt_disable: no optimization in code generation either.
Expected<JITTargetMachineBuilder> host_target(bool opt_disable) {
  auto jtmb = JITTargetMachineBuilder::detectHost();
  if (!jtmb) return jtmb.takeError();
  jtmb->setCodeGenOptLevel(opt_disable ? CodeGenOptLevel::None : CodeGenOptLevel::Aggressive);
  jtmb->getOptions().EmitStackSizeSection = true;  // read back by stack_sizes.cpp
  return jtmb;
}

// Each launcher's stack need: its own frame, plus every other function of the program
// (no recursion: a call chain holds each at most once). 0 when the objects carry no stack
// sizes.
void measure_stacks(kiln_jit_program &program, const std::vector<StringRef> &objects, size_t count) {
  std::map<std::string, uint64_t> sizes;
  bool known = !objects.empty();
  for (StringRef object : objects) known &= kiln::read_stack_sizes(object, sizes);
  std::set<std::string> launchers;
  for (size_t i = 0; i < count; i++) launchers.insert(launcher_name(i));
  uint64_t others = 0;  // specialized launchers behind a dispatcher (image_dispatch.cpp) included
  for (auto &[name, bytes] : sizes)
    if (!launchers.count(name)) others += bytes;
  for (size_t i = 0; i < count; i++) {
    auto own = sizes.find(launcher_name(i));
    program.stack_bytes.push_back(known && own != sizes.end() ? own->second + others : 0);
    // Its work-item function, the one function a fiber launcher names after itself.
    program.fibers.push_back(sizes.count(launcher_name(i) + ".fiber_item") != 0);
  }
}

Error find_launchers(kiln_jit_program &program, size_t count) {
  for (size_t i = 0; i < count; i++) {
    auto address = program.jit->lookup(launcher_name(i));
    if (!address) return address.takeError();
    program.launchers.push_back(address->toPtr<kiln_launcher_fn>());
  }
  return Error::success();
}

}  // namespace

extern "C" {

void kiln_jit_define_symbol(const char *name, void *address) {
  std::lock_guard<std::mutex> lock(symbols_mutex);
  defined_symbols()[name] = address;
}

static int jit_load(const kiln_module *executable, kiln_jit_program **out, char **log) {
  *out = nullptr;
  if (log) *log = nullptr;
  auto fail = [log](const std::string &message) {
    if (log) *log = kiln::dup_log("error: " + message + "\n");
    return KILN_COMPILE_FAILED;
  };
  if (executable->kind != KILN_MODULE_EXECUTABLE) return fail("not an executable program");
  initialize_llvm();

  // A debug build (-g, KILN_DEBUG_KERNELS) is compiled as with -cl-opt-disable too: no
  // optimization pipeline and no work-item vectorization, so variables keep their stack
  // slots and lines stay in order (docs/debugging.md).
  bool debug = kiln::has_option(*executable->module, kiln::OPTION_DEBUG);
  bool opt_disable = debug || kiln::has_option(*executable->module, kiln::OPTION_OPT_DISABLE);
  auto jtmb = host_target(opt_disable);
  if (!jtmb) return fail(toString(jtmb.takeError()));
  auto tm = jtmb->createTargetMachine();
  if (!tm) return fail(toString(tm.takeError()));

  auto program = std::make_unique<kiln_jit_program>();
  auto context = std::make_unique<LLVMContext>();
  kiln::collect_llvm_diagnostics(*context, &program->diagnostics);
  std::string error;
  std::unique_ptr<Module> m = kiln::copy_module(*executable->module, *context, error);
  if (!m) return fail(error);
  if (!kiln::link_builtin_library(*m, error) || !kiln::lower_opaque_types(*m, error) ||
      !kiln::lower_device_enqueue(*m, error)) {
    m.reset();
    return fail(error);
  }
  kiln::match_call_signatures(*m);

  // Kernels in the order of the module's descriptions (wrap_module's order).
  std::vector<Function *> kernels;
  for (Function &f : *m)
    if (kiln::is_kernel(f)) kernels.push_back(&f);
  if (kernels.size() != executable->kernels.size()) {
    m.reset();
    return fail("kernel list mismatch");
  }
  std::vector<kiln::LocalLayout> layouts;
  for (size_t i = 0; i < kernels.size(); i++) {
    layouts.push_back(kiln::local_layout(*kernels[i]));
  }
  if (debug) kiln::add_option(*m, kiln::OPTION_OPT_DISABLE);  // for the launcher generator
  retarget(*m, **tm);
  if (debug) kiln::drop_address_space_derefs(*m);
  kiln::guard_integer_division(*m);
  if (!opt_disable) kiln::add_vector_math_variants(*m);
  std::set<Function *> launchers;
  const bool checked = kiln_bounds_checking();
  for (size_t i = 0; i < kernels.size(); i++) {
    bool fibers = false;
    Function *l = nullptr;
    if (checked && !kiln::add_bounds_checks(*kernels[i], executable->kernels[i], error)) {
      m.reset();
      return fail(error);
    }
    // Debug builds run a kernel with barriers as fibers too (one whole kernel call per
    // work-item, barriers switch fibers) instead of splitting it at its barriers: its
    // variables stay in their stack slots, where gdb finds them (docs/debugging.md).
    bool ok = kiln::yield_in_spin_loops(*kernels[i], fibers, error);
    fibers |= debug && executable->kernels[i].uses_barriers;
    if (ok)
      l = kiln::build_image_launchers(*m, *kernels[i], executable->kernels[i], layouts[i], launcher_name(i),
                                      !opt_disable, error, fibers);
    if (!l) {
      m.reset();
      return fail(error);
    }
    launchers.insert(l);
  }
  if (checked) kiln::lower_any_lane(*m);
  // Only the launchers stay visible.
  for (Function &f : *m)
    if (!f.isDeclaration() && !launchers.count(&f)) {
      f.setLinkage(GlobalValue::InternalLinkage);
      f.setComdat(nullptr);
    }
  for (GlobalVariable &gv : m->globals())
    if (!gv.isDeclaration() && !gv.getName().starts_with("llvm.")) {  // llvm.compiler.used keeps its linkage
      gv.setLinkage(GlobalValue::InternalLinkage);
      gv.setComdat(nullptr);
    }
  std::string verify;
  raw_string_ostream verify_os(verify);
  if (verifyModule(*m, &verify_os)) {
    m.reset();
    return fail("invalid launcher code: " + verify_os.str());
  }
  optimize(*m, **tm, opt_disable);
  // By name: optimization may have replaced the functions built above.
  for (size_t i = 0; i < kernels.size() && !opt_disable; i++)
    if (Function *l = m->getFunction(launcher_name(i))) {
      kiln::lower_local_masked_accesses(*l);
      kiln::lower_masked_global_loads(*l);
      kiln::add_streaming_stores(*l);
    }
  static const bool dump_ir = getenv("KILN_DEBUG_IR") != nullptr;
  if (dump_ir) m->print(errs(), nullptr);

  program->capture = std::make_unique<ObjectCapture>(program->objects);
  auto jit = create_jit(std::move(*jtmb), program->capture.get(), debug);
  if (!jit) {
    m.reset();
    return fail(toString(jit.takeError()));
  }
  program->jit = std::move(*jit);
  if (Error e = program->jit->addIRModule(ThreadSafeModule(std::move(m), std::move(context))))
    return fail(toString(std::move(e)));
  if (Error e = find_launchers(*program, kernels.size())) return fail(toString(std::move(e)));
  if (program->diagnostics.errors) {  // code generation went on after an error
    if (log) *log = kiln::dup_log(program->diagnostics.log);
    return KILN_COMPILE_FAILED;
  }
  measure_stacks(*program, std::vector<StringRef>(program->objects.begin(), program->objects.end()), kernels.size());
  *out = program.release();
  if (log) *log = strdup("");
  return KILN_COMPILE_OK;
}

kiln_launcher_fn kiln_jit_launcher(const kiln_jit_program *program, size_t kernel_index) {
  return kernel_index < program->launchers.size() ? program->launchers[kernel_index] : nullptr;
}

uint64_t kiln_jit_launcher_stack(const kiln_jit_program *program, size_t kernel_index) {
  return kernel_index < program->stack_bytes.size() ? program->stack_bytes[kernel_index] : 0;
}

bool kiln_jit_launcher_uses_fibers(const kiln_jit_program *program, size_t kernel_index) {
  return kernel_index < program->fibers.size() && program->fibers[kernel_index];
}

void kiln_jit_free(kiln_jit_program *program) { delete program; }

// ---- the compiled-code cache's side of the JIT ----

size_t kiln_jit_object_count(const kiln_jit_program *program) { return program->objects.size(); }

const void *kiln_jit_object(const kiln_jit_program *program, size_t index, size_t *size) {
  if (index >= program->objects.size()) return nullptr;
  *size = program->objects[index].size();
  return program->objects[index].data();
}

static int jit_load_objects(const kiln_module *executable, const void *const *objects, const size_t *sizes,
                            size_t count, kiln_jit_program **out, char **log) {
  *out = nullptr;
  if (log) *log = nullptr;
  auto fail = [log](const std::string &message) {
    if (log) *log = kiln::dup_log("error: " + message + "\n");
    return KILN_COMPILE_FAILED;
  };
  if (executable->kind != KILN_MODULE_EXECUTABLE) return fail("not an executable program");
  initialize_llvm();
  auto jtmb = host_target(kiln::has_option(*executable->module, kiln::OPTION_OPT_DISABLE));
  if (!jtmb) return fail(toString(jtmb.takeError()));
  auto program = std::make_unique<kiln_jit_program>();
  auto jit = create_jit(std::move(*jtmb), nullptr, false);  // debug builds are never cached
  if (!jit) return fail(toString(jit.takeError()));
  program->jit = std::move(*jit);
  for (size_t i = 0; i < count; i++) {
    auto buffer = MemoryBuffer::getMemBufferCopy(StringRef(static_cast<const char *>(objects[i]), sizes[i]),
                                                 "kiln-cached-object");
    if (Error e = program->jit->addObjectFile(std::move(buffer))) return fail(toString(std::move(e)));
  }
  if (Error e = find_launchers(*program, executable->kernels.size())) return fail(toString(std::move(e)));
  std::vector<StringRef> given;
  for (size_t i = 0; i < count; i++) given.emplace_back(static_cast<const char *>(objects[i]), sizes[i]);
  measure_stacks(*program, given, executable->kernels.size());
  *out = program.release();
  if (log) *log = strdup("");
  return KILN_COMPILE_OK;
}

const char *kiln_jit_host_identity(void) {
  static std::string identity;
  static std::once_flag once;
  std::call_once(once, [] {
    identity = sys::getProcessTriple() + ";" + sys::getHostCPUName().str() + ";";
    for (const auto &feature : sys::getHostCPUFeatures())
      identity += (feature.second ? "+" : "-") + feature.first().str() + ",";
  });
  return identity.c_str();
}

unsigned long kiln_jit_code_generations(void) { return code_generations.load(); }

int kiln_jit_load(const kiln_module *executable, kiln_jit_program **out, char **log) {
  *out = nullptr;
  return kiln::run_on_compiler_thread([&] { return jit_load(executable, out, log); }, log);
}

int kiln_jit_load_objects(const kiln_module *executable, const void *const *objects, const size_t *sizes, size_t count,
                          kiln_jit_program **out, char **log) {
  *out = nullptr;
  return kiln::run_on_compiler_thread([&] { return jit_load_objects(executable, objects, sizes, count, out, log); },
                                   log);
}

}  // extern "C"
