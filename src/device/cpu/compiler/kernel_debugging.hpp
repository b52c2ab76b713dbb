// kernel_debugging.hpp: what a debug build (-g, KILN_DEBUG_KERNELS; docs/debugging.md)
// does beyond an ordinary one: the source written where gdb can list it, the launcher
// given a debug scope for the kernel it inlines, and the JIT's objects registered with
// gdb's JIT interface.
#pragma once

#include <llvm/ExecutionEngine/Orc/LLJIT.h>
#include <llvm/IR/Function.h>
#include <llvm/IR/Module.h>
#include <llvm/Support/Error.h>

#include <string>

namespace kiln {

// Writes a program's source as <dir>/program.cl under this process's debug directory
// (a unique directory in the system's temporary directory, removed when libkiln is
// unloaded or the process exits) and returns <dir>: the DWARF compilation directory.
// Empty when it cannot be written (the build still gets its debug info, without source).
std::string write_debug_source(const char *source, size_t length, const char *name);

// Clang describes OpenCL variables of SPIR address spaces as DW_OP_xderef from address
// space N (SPIR numbering); gdb cannot evaluate that ("Unhandled dwarf expression opcode
// 0x18"), and on the host every address space is the one flat memory: the xderef
// becomes a plain address. Call after retargeting to the host.
void drop_address_space_derefs(llvm::Module &m);

// Gives `f` (a launcher, or a fiber launcher's work-item function, which inline `kernel`)
// a debug scope: an artificial subprogram in the kernel's compile unit, and a location on
// each call it makes so that code inlined there keeps its lines, as an inlined
// subroutine of `f`. No-op when the kernel has no debug info.
void add_launcher_debug_scope(llvm::Function &f, const llvm::Function &kernel);

// Registers every object the JIT links with gdb (__jit_debug_register_code, libLLVM's
// copy). Needs the JITLink linking layer (LLJIT's default for ELF x86-64 and AArch64).
llvm::Error enable_gdb_registration(llvm::orc::LLJIT &jit);

}  // namespace kiln
