// link.cpp: kiln_compiler_link — llvm::Linker over compiled objects and libraries; for an
// executable, printf lowering and a check that every function the program calls is its
// own or the builtin library's (by the library's symbol list: reading its 3.7 MB of
// bitcode takes tens of milliseconds). The library itself is linked in by the JIT
// (link_builtin_library), when the code is generated, one shard (family) at a time.
#include "device/cpu/builtins/pipe_host.h"
#include "device/cpu/device_enqueue_symbols.h"
#include "device/cpu/builtins/printf_host.h"
#include "device/cpu/compiler/builtins_ref.h"
#include "device/cpu/compiler/compiler_internal.hpp"
#include "device/cpu/compiler/options.h"

#include <llvm/Bitcode/BitcodeReader.h>
#include <llvm/Demangle/Demangle.h>
#include <llvm/Linker/Linker.h>
#include <llvm/Support/Error.h>
#include <llvm/Support/MemoryBuffer.h>
#include <llvm/Support/raw_ostream.h>

#include <algorithm>
#include <cstring>
#include <mutex>
#include <set>
#include <vector>
#include <string>

using namespace llvm;

namespace {

struct LinkState {
  std::unique_ptr<LLVMContext> context = std::make_unique<LLVMContext>();
  std::unique_ptr<Module> module;
  kiln::LlvmDiagnostics diagnostics;  // the linker's (duplicate definitions, type clashes) and the log
  std::string &log = diagnostics.log;
  ~LinkState() { module.reset(); }  // before its context
};

// The library's defined names with the shard defining each, sorted by name (built once
// from the embedded list).
struct BuiltinSymbol {
  StringRef name;
  unsigned shard;
  bool operator<(const BuiltinSymbol &other) const { return name < other.name; }
};

const std::vector<BuiltinSymbol> &builtin_symbols() {
  static std::vector<BuiltinSymbol> symbols;
  static std::once_flag once;
  std::call_once(once, [] {
    const char *list = nullptr;
    size_t size = 0;
    kiln_builtins_get_symbols(&list, &size);
    SmallVector<StringRef, 0> lines;
    StringRef(list ? list : "", list ? size : 0).split(lines, '\n', -1, false);
    symbols.reserve(lines.size());
    for (StringRef line : lines) {
      auto [name, index] = line.split('\t');
      unsigned shard = 0;
      if (!index.getAsInteger(10, shard)) symbols.push_back({name, shard});
    }
    std::sort(symbols.begin(), symbols.end());
  });
  return symbols;
}

// The shard defining `name`, or -1.
int builtin_shard_of(StringRef name) {
  const std::vector<BuiltinSymbol> &symbols = builtin_symbols();
  auto it = std::lower_bound(symbols.begin(), symbols.end(), BuiltinSymbol{name, 0});
  return it != symbols.end() && it->name == name ? static_cast<int>(it->shard) : -1;
}

bool builtin_library_defines(StringRef name) { return builtin_shard_of(name) >= 0; }

}  // namespace

namespace kiln {

bool link_builtin_library(Module &m, std::string &error) {
  const kiln_builtins_shard *shards = nullptr;
  size_t count = kiln_builtins_get_shards(&shards);
  // Shards are linked as the open names require them; a shard's functions may call into
  // another shard, so this repeats until nothing new is needed. Each is read lazily: the
  // linker materializes only the functions the program needs.
  std::vector<bool> linked(count, false);
  for (;;) {
    std::set<unsigned> needed;
    for (const GlobalValue &g : m.global_values())
      if (g.isDeclaration() && !g.use_empty()) {
        int shard = builtin_shard_of(g.getName());
        if (shard >= 0 && static_cast<size_t>(shard) < count && !linked[shard]) needed.insert(shard);
      }
    if (needed.empty()) break;
    for (unsigned shard : needed) {
      linked[shard] = true;
      const kiln_builtins_shard &s = shards[shard];
      auto parsed = getLazyBitcodeModule(
          MemoryBufferRef(StringRef(reinterpret_cast<const char *>(s.bitcode), s.size), s.name), m.getContext());
      if (!parsed) {
        error = std::string("cannot read the builtin library (") + s.name + "): " + toString(parsed.takeError());
        return false;
      }
      std::unique_ptr<Module> builtins = std::move(*parsed);
      builtins->setTargetTriple(m.getTargetTriple());
      builtins->setDataLayout(m.getDataLayout());
      if (Linker::linkModules(m, std::move(builtins), Linker::LinkOnlyNeeded)) {
        error = std::string("cannot link the builtin library (") + s.name + ")";
        return false;
      }
    }
  }
  // kiln_compiler_link checked the program's own calls: anything still open is the
  // library's (its documented externals are not mangled).
  for (Function &f : m)
    if (f.isDeclaration() && !f.use_empty() && f.getName().starts_with("_Z") && !kiln::is_opaque_type_conversion(f.getName())) {
      error = "the builtin library does not define " + demangle(f.getName().str());
      return false;
    }
  return true;
}

}  // namespace kiln

static int link_modules(kiln_module *const *inputs, size_t num_inputs, const char *options, bool create_library,
                kiln_module **out, char **log) {
  *out = nullptr;
  if (log) *log = nullptr;
  struct kiln_cl_options parsed;
  int status = kiln_cl_options_parse(options, KILN_OPTIONS_BUILD, &parsed, log);
  if (status != KILN_COMPILE_OK) return status;
  bool denorms_are_zero = parsed.denorms_are_zero; /* a program linking option as well */
  kiln_cl_options_free(&parsed);
  if (log) {
    free(*log);
    *log = nullptr;
  }

  LinkState s;
  kiln::collect_llvm_diagnostics(*s.context, &s.diagnostics);
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
  if (status == KILN_COMPILE_OK && denorms_are_zero) kiln::add_option(*s.module, kiln::OPTION_DENORMS_ARE_ZERO);

  if (status == KILN_COMPILE_OK && !create_library) {
    std::string printf_error;
    if (!kiln::lower_printf(*s.module, printf_error)) {
      s.log += "error: " + printf_error + "\n";
      status = KILN_COMPILE_FAILED;
    }
    // What the program calls but does not define must come from the builtin library.
    bool undefined = false;
    for (Function &f : *s.module) {
      if (status != KILN_COMPILE_OK) break;
      StringRef name = f.getName();
      if (!f.isDeclaration() || f.isIntrinsic() || f.use_empty() || kiln::is_work_item_intrinsic(name) ||
          name == KILN_INTRINSIC_BARRIER || name == KILN_PRINTF_HOST_SYMBOL || builtin_library_defines(name) ||
          kiln::is_opaque_type_conversion(name) || kiln_pipe_host_defines(name.str().c_str()) ||
          kiln_device_enqueue_is_clang_entry(name.str().c_str()))
        continue;
      std::string demangled = demangle(name.str());
      s.log += "error: undefined function " + demangled + (demangled != name ? " (" + name.str() + ")" : "") + "\n";
      undefined = true;
    }
    if (undefined) status = KILN_COMPILE_FAILED;
  }

  if (status == KILN_COMPILE_OK) {
    std::string error;
    kiln_module *m = kiln::wrap_module(std::move(s.context), std::move(s.module),
                                       create_library ? KILN_MODULE_LIBRARY : KILN_MODULE_EXECUTABLE, error);
    if (!m) {
      s.log += "error: " + error + "\n";
      status = KILN_COMPILE_FAILED;
    } else {
      kiln::collect_llvm_diagnostics(*m->context, nullptr);
      *out = m;
    }
  }
  if (log) *log = kiln::dup_log(s.log);
  return status;
}

extern "C" int kiln_compiler_link(kiln_module *const *inputs, size_t num_inputs, const char *options,
                                  bool create_library, kiln_module **out, char **log) {
  *out = nullptr;
  return kiln::run_on_compiler_thread([&] { return link_modules(inputs, num_inputs, options, create_library, out, log); }, log);
}
