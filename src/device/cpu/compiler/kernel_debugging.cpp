// kernel_debugging.cpp: see kernel_debugging.hpp.
#include "device/cpu/compiler/kernel_debugging.hpp"

#include <llvm/ExecutionEngine/Orc/DebugObjectManagerPlugin.h>
#include <llvm/ExecutionEngine/Orc/EPCDebugObjectRegistrar.h>
#include <llvm/ExecutionEngine/Orc/ObjectLinkingLayer.h>
#include <llvm/ExecutionEngine/Orc/TargetProcess/JITLoaderGDB.h>
#include <llvm/IR/DIBuilder.h>
#include <llvm/IR/DebugInfoMetadata.h>
#include <llvm/IR/InstIterator.h>
#include <llvm/IR/IntrinsicInst.h>
#include <llvm/BinaryFormat/Dwarf.h>
#include <llvm/IR/Instructions.h>
#include <llvm/IR/Module.h>
#include <llvm/Support/FileSystem.h>
#include <llvm/Support/Path.h>
#include <llvm/Support/raw_ostream.h>

#include <atomic>
#include <mutex>

using namespace llvm;

namespace kiln {

namespace {

// This process's debug directory: created on the first debug build, removed with its
// contents by the destructor (at exit, or when the ICD loader unloads libkiln). gdb reads
// the files while the process runs, so they must outlive every program built from them.
struct DebugSourceRoot {
  std::mutex mutex;
  std::string path;
  ~DebugSourceRoot() {
    if (!path.empty()) (void)sys::fs::remove_directories(path);
  }
};

DebugSourceRoot &debug_source_root() {
  static DebugSourceRoot root;
  return root;
}

}  // namespace

std::string write_debug_source(const char *source, size_t length, const char *name) {
  static std::atomic<unsigned long> builds{0};
  DebugSourceRoot &root = debug_source_root();
  std::string base;
  {
    std::lock_guard<std::mutex> lock(root.mutex);
    if (root.path.empty()) {
      SmallString<128> created;
      if (sys::fs::createUniqueDirectory("kiln-debug", created)) return "";
      root.path = std::string(created.str());
    }
    base = root.path;
  }
  // One directory per build: two programs of a process may both be "program.cl".
  SmallString<128> dir(base);
  sys::path::append(dir, std::to_string(++builds));
  if (sys::fs::create_directories(dir)) return "";
  SmallString<128> file(dir);
  sys::path::append(file, name);
  std::error_code ec;
  raw_fd_ostream os(file, ec);
  if (ec) return "";
  os.write(source, length);
  os.close();
  return os.has_error() ? "" : std::string(dir.str());
}

namespace {

// `e` without its DW_OP_constu N, DW_OP_swap, DW_OP_xderef (CGDebugInfo's
// AppendAddressSpaceXDeref); itself when it has none.
DIExpression *without_xderef(DIExpression *e) {
  ArrayRef<uint64_t> ops = e->getElements();
  SmallVector<uint64_t, 8> kept;
  bool changed = false;
  for (size_t i = 0; i < ops.size(); i++) {
    if (i + 3 < ops.size() && ops[i] == dwarf::DW_OP_constu && ops[i + 2] == dwarf::DW_OP_swap &&
        ops[i + 3] == dwarf::DW_OP_xderef) {
      i += 3;
      changed = true;
      continue;
    }
    kept.push_back(ops[i]);
  }
  return changed ? DIExpression::get(e->getContext(), kept) : e;
}

}  // namespace

void drop_address_space_derefs(Module &m) {
  for (Function &f : m)
    for (Instruction &inst : instructions(f)) {
      if (auto *intrinsic = dyn_cast<DbgVariableIntrinsic>(&inst))
        intrinsic->setExpression(without_xderef(intrinsic->getExpression()));
      for (DbgVariableRecord &record : filterDbgVars(inst.getDbgRecordRange()))
        record.setExpression(without_xderef(record.getExpression()));
    }
}

void add_launcher_debug_scope(Function &f, const Function &kernel) {
  DISubprogram *kernel_sp = kernel.getSubprogram();
  if (!kernel_sp || f.getSubprogram()) return;
  Module &m = *f.getParent();
  DIBuilder dib(m, /*AllowUnresolved=*/false, kernel_sp->getUnit());
  DISubroutineType *type = dib.createSubroutineType(dib.getOrCreateTypeArray({}));
  unsigned line = kernel_sp->getLine();
  DISubprogram *sp = dib.createFunction(kernel_sp->getFile(), f.getName(), f.getName(), kernel_sp->getFile(), line, type,
                                        line, DINode::FlagArtificial, DISubprogram::SPFlagDefinition);
  f.setSubprogram(sp);
  // A call without a location inlines its callee's lines as they are, in the callee's
  // scope, which is not this function's (the verifier rejects that); with one, they become
  // an inlined subroutine (gdb: `break kernel`, a frame of its own in `bt`).
  DILocation *at = DILocation::get(f.getContext(), line, 0, sp);
  for (Instruction &inst : instructions(f))
    if (isa<CallBase>(inst) && !inst.getDebugLoc()) inst.setDebugLoc(at);
  dib.finalizeSubprogram(sp);
  dib.finalize();
}

Error enable_gdb_registration(orc::LLJIT &jit) {
  auto *layer = dyn_cast<orc::ObjectLinkingLayer>(&jit.getObjLinkingLayer());
  if (!layer) return make_error<StringError>("kernel debugging needs JITLink", inconvertibleErrorCode());
  orc::ExecutionSession &es = jit.getExecutionSession();
  // The registration function by address, not looked up by name in the process: the ICD
  // loader opens libkiln (and so libLLVM) with RTLD_LOCAL, out of dlopen(NULL)'s reach.
  // It is libLLVM's, next to the one __jit_debug_descriptor gdb reads.
  auto registrar = std::make_unique<orc::EPCDebugObjectRegistrar>(
      es, orc::ExecutorAddr::fromPtr(&llvm_orc_registerJITLoaderGDBWrapper));
  layer->addPlugin(std::make_unique<orc::DebugObjectManagerPlugin>(es, std::move(registrar),
                                                                   /*RequireDebugSections=*/true,
                                                                   /*AutoRegisterCode=*/true));
  return Error::success();
}

}  // namespace kiln
