// printf_lowering.cpp: rewrites OpenCL C printf calls for the host (builtins/printf_host.h).
// clang emits `i32 (ptr addrspace(2), ...) @printf` with SPIR variadic arguments: vectors by
// value, which the host's C varargs cannot read. Each call becomes
//   __kiln_printf(format, types, count, args)
// with `types` a constant table describing the arguments and `args` a stack buffer holding
// their values (one buffer per function, sized for its largest call: calls of one
// work-item never overlap). The buffer is a static alloca in the entry block, so kernels
// with barriers keep it in their per-work-item frames like any private variable.
#include "device/cpu/builtins/printf_host.h"
#include "device/cpu/compiler/compiler_internal.hpp"

#include <llvm/IR/Constants.h>
#include <llvm/IR/DerivedTypes.h>
#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/Instructions.h>

#include <map>
#include <string>
#include <vector>

using namespace llvm;

namespace {

constexpr const char *PRINTF_NAME = "printf";

// JIT code finds the host function by name (libkiln hides its own symbols).
[[maybe_unused]] const bool host_registered = (kiln_printf_host_register(), true);

bool is_printf(const Function *f) { return f && f->getName() == PRINTF_NAME && f->isDeclaration() && f->isVarArg(); }

// The descriptor of one argument, or 0 when printf cannot take it.
uint32_t describe(Type *t, const DataLayout &dl) {
  unsigned count = 1;
  if (auto *vec = dyn_cast<FixedVectorType>(t)) {
    count = vec->getNumElements();
    t = vec->getElementType();
  }
  if (t->isIntegerTy(8) || t->isIntegerTy(16) || t->isIntegerTy(32) || t->isIntegerTy(64))
    return KILN_PRINTF_ARG_TYPE(KILN_PRINTF_ARG_INT, t->getIntegerBitWidth() / 8, count);
  if (t->isHalfTy() || t->isFloatTy() || t->isDoubleTy())
    return KILN_PRINTF_ARG_TYPE(KILN_PRINTF_ARG_FLOAT, t->getPrimitiveSizeInBits() / 8, count);
  if (t->isPointerTy() && count == 1 && dl.getPointerSizeInBits(t->getPointerAddressSpace()) == 64)
    return KILN_PRINTF_ARG_TYPE(KILN_PRINTF_ARG_POINTER, 8, 1);
  return 0;
}

struct CallLayout {
  CallInst *call;
  std::vector<uint32_t> types;
  std::vector<uint64_t> offsets;
  uint64_t bytes = 0;
};

FunctionCallee host_function(Module &m) {
  LLVMContext &c = m.getContext();
  PointerType *ptr = PointerType::get(c, 0);
  return m.getOrInsertFunction(KILN_PRINTF_HOST_SYMBOL,
                               FunctionType::get(Type::getInt32Ty(c), {ptr, ptr, Type::getInt32Ty(c), ptr}, false));
}

// A private constant table of the call's argument descriptors.
Constant *types_table(Module &m, const std::vector<uint32_t> &types) {
  LLVMContext &c = m.getContext();
  Constant *init = ConstantDataArray::get(c, ArrayRef<uint32_t>(types));
  auto *gv = new GlobalVariable(m, init->getType(), true, GlobalValue::PrivateLinkage, init, "kiln.printf.types",
                                nullptr, GlobalValue::NotThreadLocal, kiln::AS_CONSTANT);
  gv->setUnnamedAddr(GlobalValue::UnnamedAddr::Global);
  gv->setAlignment(Align(4));
  return gv;
}

Value *generic_pointer(IRBuilder<> &b, Value *p) {
  PointerType *ptr = PointerType::get(b.getContext(), 0);
  return p->getType() == ptr ? p : b.CreateAddrSpaceCast(p, ptr);
}

}  // namespace

namespace kiln {

bool lower_printf(Module &m, std::string &error) {
  Function *printf_fn = m.getFunction(PRINTF_NAME);
  if (!is_printf(printf_fn)) return true;
  const DataLayout &dl = m.getDataLayout();

  std::map<Function *, std::vector<CallLayout>> calls;
  for (User *u : printf_fn->users()) {
    auto *call = dyn_cast<CallInst>(u);
    if (!call || call->getCalledOperand() != printf_fn || call->arg_size() < 1) {
      error = "printf used other than by a direct call";
      return false;
    }
    CallLayout layout{call, {}, {}, 0};
    for (unsigned i = 1; i < call->arg_size(); i++) {
      Value *arg = call->getArgOperand(i);
      uint32_t type = describe(arg->getType(), dl);
      if (!type) {
        std::string name;
        raw_string_ostream os(name);
        arg->getType()->print(os);
        error = "printf argument " + std::to_string(i) + " has a type printf cannot print (" + os.str() + ")";
        return false;
      }
      layout.bytes = (layout.bytes + KILN_PRINTF_ARG_ALIGN - 1) / KILN_PRINTF_ARG_ALIGN * KILN_PRINTF_ARG_ALIGN;
      layout.offsets.push_back(layout.bytes);
      layout.types.push_back(type);
      layout.bytes += kiln_printf_arg_bytes(type);
    }
    calls[call->getFunction()].push_back(std::move(layout));
  }

  FunctionCallee host = host_function(m);
  LLVMContext &c = m.getContext();
  for (auto &[function, layouts] : calls) {
    uint64_t bytes = 0;
    for (const CallLayout &l : layouts) bytes = std::max(bytes, l.bytes);
    AllocaInst *buffer = nullptr;
    if (bytes) {
      IRBuilder<> entry(&*function->getEntryBlock().getFirstInsertionPt());
      buffer = entry.CreateAlloca(ArrayType::get(Type::getInt8Ty(c), bytes), nullptr, "kiln.printf.args");
      buffer->setAlignment(Align(16));
    }
    for (CallLayout &l : layouts) {
      IRBuilder<> b(l.call);
      for (size_t i = 0; i < l.types.size(); i++) {
        Value *slot = b.CreateConstInBoundsGEP1_64(b.getInt8Ty(), buffer, l.offsets[i]);
        b.CreateAlignedStore(l.call->getArgOperand((unsigned)i + 1), slot, Align(KILN_PRINTF_ARG_ALIGN));
      }
      Value *types = l.types.empty() ? ConstantPointerNull::get(PointerType::get(c, 0))
                                     : generic_pointer(b, types_table(m, l.types));
      Value *args = buffer ? static_cast<Value *>(buffer) : ConstantPointerNull::get(PointerType::get(c, 0));
      CallInst *lowered = b.CreateCall(host, {generic_pointer(b, l.call->getArgOperand(0)), types,
                                              b.getInt32((uint32_t)l.types.size()), args});
      l.call->replaceAllUsesWith(lowered);
      l.call->eraseFromParent();
    }
  }
  if (printf_fn->use_empty()) printf_fn->eraseFromParent();
  return true;
}

bool calls_printf(Function &kernel) {
  for (Function *f : reachable_functions(kernel))
    if (is_printf(f) || f->getName() == KILN_PRINTF_HOST_SYMBOL) return true;
  return false;
}

}  // namespace kiln
