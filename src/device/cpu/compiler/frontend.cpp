// frontend.cpp: OpenCL C -> LLVM module with clang in process. The source, the
// embedded headers and clang's resource headers (resource_headers.h) live in an
// in-memory file system laid over the real one (for -I);
// diagnostics are rendered into the build log. The only clang-heavy translation unit.
#include "device/cpu/compiler/clang_flags.h"
#include "device/cpu/compiler/compiler_internal.hpp"
#include "device/cpu/compiler/kernel_debugging.hpp"
#include "device/cpu/compiler/opencl_c_features.h"
#include "device/cpu/compiler/options.h"
#include "device/cpu/compiler/resource_headers.h"

#include <clang/Basic/Diagnostic.h>
#include <clang/Basic/DiagnosticOptions.h>
#include <clang/CodeGen/CodeGenAction.h>
#include <clang/Frontend/CompilerInstance.h>
#include <clang/Frontend/CompilerInvocation.h>
#include <clang/Frontend/TextDiagnosticPrinter.h>
#include <llvm/Support/FileSystem.h>
#include <llvm/Support/MemoryBuffer.h>
#include <llvm/Support/Path.h>
#include <llvm/Support/VirtualFileSystem.h>
#include <llvm/Support/raw_ostream.h>

#include <cstring>
#include <string>
#include <vector>

using namespace llvm;

namespace {

constexpr const char *SOURCE_DIR = "/kiln-program";
constexpr const char *SOURCE_NAME = "program.cl";

// -I paths relative to the process's working directory, made absolute (clang's working
// directory is the in-memory one).
std::string absolute_path(const char *path) {
  SmallString<256> p(path);
  sys::fs::make_absolute(p);
  return std::string(p.str());
}

}  // namespace

static int compile_source(const char *source, size_t length, const char *options, const struct kiln_cl_header *headers,
                   size_t num_headers, kiln_module **out, char **log) {
  *out = nullptr;
  if (log) *log = nullptr;
  struct kiln_cl_options parsed;
  int status = kiln_cl_options_parse(options, KILN_OPTIONS_BUILD, &parsed, log);
  if (status != KILN_COMPILE_OK) return status;
  if (log) {
    free(*log);
    *log = nullptr;
  }

  std::vector<std::string> storage;
  storage.reserve(parsed.num_cc1_args + 8);
  for (size_t i = 0; i < parsed.num_cc1_args; i++) {
    const char *a = parsed.cc1_args[i];
    bool include_dir = strcmp(a, "-I") == 0 && i + 1 < parsed.num_cc1_args;
    storage.emplace_back(a);
    if (include_dir) storage.push_back(absolute_path(parsed.cc1_args[++i]));
  }
  bool opt_disable = parsed.opt_disable, denorms_are_zero = parsed.denorms_are_zero, debug = parsed.debug;
  // OpenCL C 1.x has neither program-scope __global variables nor the generic address
  // space (clang_flags.h enables both for 3.0).
  bool cl1 = strncmp(parsed.std, "CL1.", 4) == 0;
  if (cl1) storage.emplace_back("-cl-ext=-__opencl_c_program_scope_global_variables,-__opencl_c_generic_address_space");
  // OpenCL C 2.0 has every 3.0 feature Kiln reports, and sees each one's macro as 3.0
  // does: clang defines those of -cl-ext for 3.0 only (its header defines 2.0's mandatory
  // ones for 2.0, identically), so for 2.0 the front end defines them all.
  bool cl2 = strcmp(parsed.std, "CL2.0") == 0;
  size_t num_macros;
  const kiln_opencl_c_macro *macros = kiln_opencl_c_macros(&num_macros);
  for (size_t i = 0; i < num_macros; i++)
    if ((!macros[i].defined_by_clang || (cl2 && macros[i].feature)) && (!cl1 || macros[i].all_versions))
      storage.push_back(std::string("-D") + macros[i].name + "=1");
  kiln_cl_options_free(&parsed);

  if (debug) {
    // DWARF 5 (gdb 13 reads it from JIT objects: BFD applies their relocations), for
    // gdb. The compilation directory is a real one holding a copy of the source, so gdb
    // shows its lines (the in-memory /kiln-program exists only for clang).
    storage.emplace_back("-debug-info-kind=constructor");
    storage.emplace_back("-dwarf-version=5");
    storage.emplace_back("-debugger-tuning=gdb");
    std::string dir = kiln::write_debug_source(source, length, SOURCE_NAME);
    if (!dir.empty()) storage.push_back("-fdebug-compilation-dir=" + dir);
  }
  std::vector<const char *> args = {KILN_CLANG_CC1_FLAGS, "-resource-dir", KILN_VIRTUAL_RESOURCE_DIR, "-I", SOURCE_DIR};
  for (const std::string &s : storage) args.push_back(s.c_str());
  args.push_back(SOURCE_NAME);

  std::string diagnostics;
  raw_string_ostream diag_stream(diagnostics);
  IntrusiveRefCntPtr<clang::DiagnosticOptions> diag_options(new clang::DiagnosticOptions());
  diag_options->ShowColors = false;
  auto *printer = new clang::TextDiagnosticPrinter(diag_stream, diag_options.get());

  auto memory_fs = makeIntrusiveRefCnt<vfs::InMemoryFileSystem>();
  std::string main_path = std::string(SOURCE_DIR) + "/" + SOURCE_NAME;
  memory_fs->addFile(main_path, 0, MemoryBuffer::getMemBufferCopy(StringRef(source, length), SOURCE_NAME));
  for (size_t i = 0; i < num_headers; i++) {
    if (!headers[i].include_name || !headers[i].source) continue;
    std::string name = headers[i].include_name;
    std::string path = sys::path::is_absolute(name) ? name : std::string(SOURCE_DIR) + "/" + name;
    memory_fs->addFile(path, 0, MemoryBuffer::getMemBufferCopy(StringRef(headers[i].source, headers[i].length), name));
  }
  // clang's own headers come from the library, not from the real resource dir (a -dev
  // package's files): resource_headers.h.
  for (size_t i = 0; i < kiln_resource_header_count; i++) {
    const kiln_resource_header &h = kiln_resource_headers[i];
    std::string path = std::string(KILN_VIRTUAL_RESOURCE_DIR) + "/include/" + h.name;
    memory_fs->addFile(path, 0, MemoryBuffer::getMemBuffer(StringRef(h.data, h.size), h.name));
  }
  auto overlay = makeIntrusiveRefCnt<vfs::OverlayFileSystem>(vfs::getRealFileSystem());
  overlay->pushOverlay(memory_fs);
  overlay->setCurrentWorkingDirectory(SOURCE_DIR);

  clang::CompilerInstance ci;
  bool ok;
  {
    // Parse the arguments first: the diagnostics engine applies the warning options
    // (-w, -Werror) it is created with.
    IntrusiveRefCntPtr<clang::DiagnosticsEngine> arg_diags =
        clang::CompilerInstance::createDiagnostics(new clang::DiagnosticOptions(), printer, /*ShouldOwnClient=*/false);
    ok = clang::CompilerInvocation::CreateFromArgs(ci.getInvocation(), args, *arg_diags);
  }
  ci.createDiagnostics(printer, /*ShouldOwnClient=*/true);
  ci.setVerboseOutputStream(diag_stream);  // "N errors generated." goes to the log, not stderr
  ci.getFrontendOpts().DisableFree = false;
  ci.getCodeGenOpts().DisableFree = false;
  ci.getFileSystemOpts().WorkingDir = SOURCE_DIR;
  auto context = std::make_unique<LLVMContext>();
  std::unique_ptr<Module> module;  // destroyed before its context
  if (ok) {
    ci.createFileManager(overlay);
    clang::EmitLLVMOnlyAction action(context.get());
    ok = ci.ExecuteAction(action) && !ci.getDiagnostics().hasErrorOccurred();
    if (ok) module = action.takeModule();
  }
  diag_stream.flush();
  if (!ok || !module) {
    if (log) *log = kiln::dup_log(diagnostics.empty() ? std::string("compilation failed\n") : diagnostics);
    module.reset();
    return KILN_COMPILE_FAILED;
  }
  if (opt_disable) kiln::add_option(*module, kiln::OPTION_OPT_DISABLE);
  if (denorms_are_zero) kiln::add_option(*module, kiln::OPTION_DENORMS_ARE_ZERO);
  if (debug) kiln::add_option(*module, kiln::OPTION_DEBUG);
  std::string error;
  kiln_module *m = kiln::wrap_module(std::move(context), std::move(module), KILN_MODULE_OBJECT, error);
  if (!m) {
    if (log) *log = kiln::dup_log(diagnostics + "error: " + error + "\n");
    return KILN_COMPILE_FAILED;
  }
  *out = m;
  if (log) *log = kiln::dup_log(diagnostics);
  return KILN_COMPILE_OK;
}

extern "C" int kiln_compiler_compile(const char *source, size_t length, const char *options,
                                     const struct kiln_cl_header *headers, size_t num_headers, kiln_module **out,
                                     char **log) {
  *out = nullptr;
  return kiln::run_on_compiler_thread([&] { return compile_source(source, length, options, headers, num_headers, out, log); },
                                   log);
}
