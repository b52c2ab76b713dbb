// spirv_frontend.cpp: a SPIR-V module -> a compiled object, as frontend.cpp makes one from
// OpenCL C. The translator (spirv_translator.h) writes LLVM 15 bitcode for the SPIR
// target, shaped as clang shapes OpenCL C (spir_kernel functions, kernel_arg_* metadata,
// builtins called by their Itanium-mangled OpenCL C names); LLVM 19 reads and upgrades
// it, and from there on an IL program is compiled, linked and cached like a source one.
#include "device/cpu/compiler/clang_flags.h"
#include "device/cpu/compiler/compiler_internal.hpp"
#include "device/cpu/compiler/options.h"
#include "device/cpu/compiler/spirv_module.h"
#include "device/cpu/compiler/spirv_translator.h"

#include <llvm/Bitcode/BitcodeReader.h>
#include <llvm/IR/Constants.h>
#include <llvm/IR/Verifier.h>
#include <llvm/Support/MemoryBuffer.h>
#include <llvm/Support/raw_ostream.h>

#include <cstdlib>
#include <string>

using namespace llvm;

namespace {

// clang-19's data layout for KILN_CLANG_TRIPLE: the translator writes SPIR 1.2's, and
// objects linked together (IL with source) should agree.
constexpr const char *CLANG_SPIR64_DATA_LAYOUT =
    "e-i64:64-v16:16-v24:32-v32:32-v48:64-v96:128-v192:256-v256:256-v512:512-v1024:1024-G1";

int read_bitcode(const void *bitcode, size_t size, const struct kiln_cl_options &parsed,
                 const struct kiln_spirv_module *il, kiln_module **out, std::string &log) {
  auto context = std::make_unique<LLVMContext>();
  kiln::LlvmDiagnostics diagnostics;
  kiln::collect_llvm_diagnostics(*context, &diagnostics);
  MemoryBufferRef buffer(StringRef(static_cast<const char *>(bitcode), size), "spirv.bc");
  Expected<std::unique_ptr<Module>> parsed_module = parseBitcodeFile(buffer, *context);
  if (!parsed_module) {
    log += "error: cannot read the translated module: " + toString(parsed_module.takeError()) + "\n";
    kiln::collect_llvm_diagnostics(*context, nullptr);
    return KILN_COMPILE_FAILED;
  }
  std::unique_ptr<Module> module = std::move(*parsed_module);
  std::string problems;
  raw_string_ostream problem_stream(problems);
  bool broken = verifyModule(*module, &problem_stream);
  kiln::collect_llvm_diagnostics(*context, nullptr);
  if (broken || diagnostics.errors) {
    log += diagnostics.log + "error: the translated module is not valid LLVM IR:\n" + problem_stream.str();
    module.reset();
    return KILN_COMPILE_FAILED;
  }
  // SPIR-V's LinkOnceODR exports a definition that other modules may also have: as LLVM's
  // linkonce_odr, the linker would take it only when the module linked so far calls it
  // (so an object linked before its user would lose it); weak_odr is always kept, one copy.
  for (Function &f : *module)
    if (f.hasLinkOnceODRLinkage()) f.setLinkage(GlobalValue::WeakODRLinkage);
  for (GlobalVariable &g : module->globals())
    if (g.hasLinkOnceODRLinkage()) g.setLinkage(GlobalValue::WeakODRLinkage);
  // SubgroupsPerWorkgroup, which the translator drops: CL_KERNEL_COMPILE_NUM_SUB_GROUPS.
  for (Function &f : *module)
    if (f.getCallingConv() == CallingConv::SPIR_KERNEL)
      if (uint32_t n = kiln_spirv_sub_groups_per_work_group(il, f.getName().str().c_str()))
        f.setMetadata(kiln::SUB_GROUPS_PER_WORK_GROUP_METADATA,
                      MDNode::get(*context, ConstantAsMetadata::get(ConstantInt::get(Type::getInt32Ty(*context), n))));
  module->setTargetTriple(KILN_CLANG_TRIPLE);
  module->setDataLayout(CLANG_SPIR64_DATA_LAYOUT);
  if (parsed.opt_disable) kiln::add_option(*module, kiln::OPTION_OPT_DISABLE);
  if (parsed.denorms_are_zero) kiln::add_option(*module, kiln::OPTION_DENORMS_ARE_ZERO);
  if (parsed.debug) kiln::add_option(*module, kiln::OPTION_DEBUG);
  std::string error;
  kiln_module *m = kiln::wrap_module(std::move(context), std::move(module), KILN_MODULE_OBJECT, error);
  if (!m) {
    log += "error: " + error + "\n";
    return KILN_COMPILE_FAILED;
  }
  *out = m;
  return KILN_COMPILE_OK;
}

} // namespace

extern "C" int kiln_compiler_compile_il(const struct kiln_spirv_module *il, const char *options, kiln_module **out,
                                        char **log) {
  *out = nullptr;
  *log = nullptr;
  struct kiln_cl_options parsed;
  int status = kiln_cl_options_parse(options, KILN_OPTIONS_BUILD, &parsed, log);
  if (status != KILN_COMPILE_OK) return status;
  free(*log);
  *log = nullptr;
  char *support = nullptr;
  if (kiln_spirv_check_support(il, &support) != 0) {
    kiln_cl_options_free(&parsed);
    *log = support;
    return support ? KILN_COMPILE_FAILED : KILN_COMPILE_OUT_OF_MEMORY;
  }
  std::string warnings;
  char *invalid = nullptr;
  if (kiln_spirv_validate(il, &invalid) != 0)
    warnings = std::string("warning: SPIR-V validation: ") + (invalid ? invalid : "invalid module") +
               " (building anyway: the translator decides)\n";
  free(invalid);
  uint32_t *specialized = kiln_spirv_specialize(il);
  size_t num_words = 0;
  uint32_t *words = specialized ? kiln_spirv_translator_workarounds(specialized, il->num_words, &num_words) : nullptr;
  free(specialized);
  void *bitcode = nullptr;
  size_t size = 0;
  char *translator_log = nullptr;
  if (!words) {
    kiln_cl_options_free(&parsed);
    return KILN_COMPILE_OUT_OF_MEMORY;
  }
  int translated = kiln_spirv_translate(words, num_words, &bitcode, &size, &translator_log);
  free(words);
  std::string text = warnings + (translator_log ? translator_log : "");
  free(translator_log);
  if (translated != 0) {
    kiln_cl_options_free(&parsed);
    *log = kiln::dup_log(text);
    return KILN_COMPILE_FAILED;
  }
  status = kiln::run_on_compiler_thread([&] { return read_bitcode(bitcode, size, parsed, il, out, text); }, log);
  free(bitcode);
  kiln_cl_options_free(&parsed);
  if (!*log) *log = kiln::dup_log(text);
  return status;
}
