// device_enqueue.cpp: lower_device_enqueue (compiler_internal.hpp). Clang lowers
// enqueue_kernel and the kernel queries on blocks to calls of runtime functions that take
// the block's kernel as a function pointer:
//   __enqueue_kernel_basic(queue, flags, ndrange*, kernel, literal)
//   __enqueue_kernel_basic_events(queue, flags, ndrange*, n, wait*, event*, kernel, literal)
//   __enqueue_kernel_varargs(queue, flags, ndrange*, kernel, literal, n_locals, size_t sizes[])
//   __enqueue_kernel_events_varargs(queue, flags, ndrange*, n, wait*, event*, kernel, literal, n_locals, sizes)
//   __get_kernel_work_group_size_impl(kernel, literal), ..._preferred_work_group_size_multiple_impl
//   __get_kernel_{max_sub_group_size,sub_group_count}_for_ndrange_impl(ndrange*, kernel, literal)
// A kernel's code is not what the device runs (its launcher is), so each call becomes a
// call of the device's own function with the kernel's index in the module instead
// (device/cpu/device_enqueue.h), which finds the launcher in the running program's table.
// The ndrange is passed by address (the basic form marks it byval: the host function takes
// a pointer, so the attribute goes).
#include "device/cpu/compiler/compiler_internal.hpp"
#include "device/cpu/device_enqueue_symbols.h"

#include <llvm/IR/Constants.h>
#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/Instructions.h>
#include <llvm/IR/Module.h>

#include <map>
#include <vector>

using namespace llvm;

namespace {

// Where each operand of clang's call sits (-1: absent).
struct EntryShape {
  const char *name;
  int ndrange, events, kernel, locals;  // events: count, list, return follow; locals: count, sizes follow
  int query;                            // a kiln_block_query, or -1 for an enqueue
};

const EntryShape kShapes[] = {
    {"__enqueue_kernel_basic", 2, -1, 3, -1, -1},
    {"__enqueue_kernel_basic_events", 2, 3, 6, -1, -1},
    {"__enqueue_kernel_varargs", 2, -1, 3, 5, -1},
    {"__enqueue_kernel_events_varargs", 2, 3, 6, 8, -1},
    {"__get_kernel_work_group_size_impl", -1, -1, 0, -1, KILN_BLOCK_QUERY_WORK_GROUP_SIZE},
    {"__get_kernel_preferred_work_group_size_multiple_impl", -1, -1, 0, -1, KILN_BLOCK_QUERY_PREFERRED_MULTIPLE},
    {"__get_kernel_max_sub_group_size_for_ndrange_impl", 0, -1, 1, -1, KILN_BLOCK_QUERY_MAX_SUB_GROUP_SIZE},
    {"__get_kernel_sub_group_count_for_ndrange_impl", 0, -1, 1, -1, KILN_BLOCK_QUERY_SUB_GROUP_COUNT},
};

}  // namespace

namespace kiln {

bool lower_device_enqueue(Module &m, std::string &error) {
  std::map<const Function *, unsigned> kernel_index;
  for (Function &f : m)
    if (is_kernel(f)) kernel_index.emplace(&f, (unsigned)kernel_index.size());
  LLVMContext &c = m.getContext();
  Type *i32 = Type::getInt32Ty(c);
  PointerType *ptr = PointerType::get(c, 0);
  FunctionCallee enqueue =
      m.getOrInsertFunction(KILN_ENQUEUE_KERNEL_SYMBOL, FunctionType::get(i32, {ptr, i32, ptr, i32, ptr, ptr, i32, ptr, i32, ptr}, false));
  FunctionCallee query = m.getOrInsertFunction(KILN_BLOCK_QUERY_SYMBOL, FunctionType::get(i32, {i32, i32, ptr}, false));

  // A block literal holds its invoke function's address, but OpenCL C calls blocks
  // directly (clang's block kernels too), so nothing reads it: the address becomes null,
  // so that no copy of the function outside a launcher keeps work-item intrinsics.
  for (Function &f : m) {
    if (f.isDeclaration() || is_kernel(f) || !f.getName().contains("_block_invoke")) continue;
    Constant *null = ConstantPointerNull::get(f.getType());
    for (Use &use : make_early_inc_range(f.uses())) {
      auto *call = dyn_cast<CallBase>(use.getUser());
      if (call && call->isCallee(&use)) continue;
      if (auto *c = dyn_cast<Constant>(use.getUser()); c && !isa<GlobalValue>(c)) c->handleOperandChange(&f, null);
      else use.set(null);
    }
  }

  for (const EntryShape &shape : kShapes) {
    Function *entry = m.getFunction(shape.name);
    if (!entry) continue;
    std::vector<CallInst *> calls;
    for (User *u : entry->users())
      if (auto *call = dyn_cast<CallInst>(u); call && call->getCalledFunction() == entry) calls.push_back(call);
    for (CallInst *call : calls) {
      auto *kernel = dyn_cast<Function>(call->getArgOperand(shape.kernel)->stripPointerCasts());
      auto found = kernel ? kernel_index.find(kernel) : kernel_index.end();
      if (found == kernel_index.end()) {
        error = std::string(shape.name) + " in " + call->getFunction()->getName().str() +
                ": the block's kernel is not known at compile time";
        return false;
      }
      IRBuilder<> b(call);
      auto pointer = [&](int at) -> Value * {
        if (at < 0) return ConstantPointerNull::get(ptr);
        return b.CreateAddrSpaceCast(call->getArgOperand(at), ptr);
      };
      Value *index = b.getInt32(found->second);
      Value *result;
      if (shape.query >= 0) {
        result = b.CreateCall(query, {index, b.getInt32(shape.query), pointer(shape.ndrange)});
      } else {
        Value *literal = pointer(shape.kernel + 1);
        bool events = shape.events >= 0, locals = shape.locals >= 0;
        result = b.CreateCall(enqueue, {b.CreateAddrSpaceCast(call->getArgOperand(0), ptr), call->getArgOperand(1),
                                        pointer(shape.ndrange), events ? call->getArgOperand(shape.events) : b.getInt32(0),
                                        pointer(events ? shape.events + 1 : -1), pointer(events ? shape.events + 2 : -1),
                                        index, literal, locals ? call->getArgOperand(shape.locals) : b.getInt32(0),
                                        pointer(locals ? shape.locals + 1 : -1)});
      }
      call->replaceAllUsesWith(result);
      call->eraseFromParent();
    }
    if (entry->use_empty()) entry->eraseFromParent();
  }
  return true;
}

}  // namespace kiln
