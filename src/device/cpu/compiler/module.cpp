// module.cpp: module objects — kernel descriptions from clang's kernel metadata, the
// static __local layout, barrier and loop detection, program binaries.
#include "device/cpu/compiler/compiler_internal.hpp"

#include "device/cpu/compiler/module_binary.h"
#include "device/cpu/device_enqueue_symbols.h"

#include <CL/cl.h>
#include <llvm/ADT/SCCIterator.h>
#include <llvm/Analysis/CFG.h>
#include <llvm/Analysis/CallGraph.h>
#include <llvm/Bitcode/BitcodeReader.h>
#include <llvm/Bitcode/BitcodeWriter.h>
#include <llvm/IR/Constants.h>
#include <llvm/IR/DerivedTypes.h>
#include <llvm/IR/InstIterator.h>
#include <llvm/IR/Instructions.h>
#include <llvm/IR/Metadata.h>
#include <llvm/Support/Error.h>
#include <llvm/Support/MemoryBuffer.h>
#include <llvm/Support/raw_ostream.h>

#include <cstdlib>
#include <cstring>
#include <map>
#include <set>
#include <sstream>

using namespace llvm;

namespace kiln {

char *dup_log(const std::string &text) { return strdup(text.c_str()); }

bool is_kernel(const Function &f) { return !f.isDeclaration() && f.getCallingConv() == CallingConv::SPIR_KERNEL; }

bool has_option(const Module &m, const char *option) {
  const NamedMDNode *node = m.getNamedMetadata(OPTIONS_METADATA);
  if (!node) return false;
  for (const MDNode *op : node->operands())
    if (op->getNumOperands() == 1)
      if (auto *s = dyn_cast<MDString>(op->getOperand(0)))
        if (s->getString() == option) return true;
  return false;
}

void add_option(Module &m, const char *option) {
  if (has_option(m, option)) return;
  m.getOrInsertNamedMetadata(OPTIONS_METADATA)->addOperand(MDNode::get(m.getContext(), MDString::get(m.getContext(), option)));
}

std::unique_ptr<Module> copy_module(const Module &m, LLVMContext &context, std::string &error) {
  SmallVector<char, 0> buffer;
  raw_svector_ostream os(buffer);
  WriteBitcodeToFile(m, os);
  auto parsed = parseBitcodeFile(MemoryBufferRef(StringRef(buffer.data(), buffer.size()), "kiln"), context);
  if (!parsed) {
    error = toString(parsed.takeError());
    return nullptr;
  }
  return std::move(*parsed);
}

std::vector<Function *> reachable_functions(Function &f) {
  std::vector<Function *> order{&f};
  std::set<Function *> seen{&f};
  for (size_t i = 0; i < order.size(); i++)
    for (Instruction &inst : instructions(*order[i]))
      if (auto *call = dyn_cast<CallBase>(&inst))
        if (Function *callee = call->getCalledFunction())
          if (seen.insert(callee).second) order.push_back(callee);
  return order;
}

// wait_group_events is a work-group barrier too (builtins/async_copy.cl).
static bool is_barrier_name(StringRef name) {
  return name == KILN_INTRINSIC_BARRIER || name == "_Z7barrierj" || name.starts_with("_Z18work_group_barrierj") ||
         name.starts_with("_Z17wait_group_events");
}

// The work-group collective functions (work_group_all, work_group_reduce_add, ...; not
// work_group_barrier), by mangled name, and the work-group pipe reservations (clang's
// unmangled __work_group_reserve_read_pipe, ...): builtins/work_group.cl and pipes.cl
// synchronize the group with barriers and need the runtime's scratch.
static bool is_collective_name(StringRef name) {
  if (name.starts_with("__work_group_reserve_") || name.starts_with("__work_group_commit_")) return true;
  if (!name.consume_front("_Z")) return false;
  name = name.drop_while([](char c) { return c >= '0' && c <= '9'; });
  return name.starts_with("work_group_") && !name.starts_with("work_group_barrier");
}

static bool calls_collective(Function &kernel) {
  for (Function *f : reachable_functions(kernel))
    if (is_collective_name(f->getName())) return true;
  return false;
}

bool calls_barrier(Function &kernel) {
  for (Function *f : reachable_functions(kernel))
    if (is_barrier_name(f->getName())) return true;
  return calls_collective(kernel);
}

// Device-side enqueue (device/cpu/device_enqueue.h): clang's enqueue_kernel and kernel
// query entry points, and the library's enqueue_marker, get_default_queue and event
// functions, by (mangled) name.
static bool is_enqueue_name(StringRef name) {
  if (kiln_device_enqueue_is_clang_entry(name.str().c_str())) return true;
  static const char *const library[] = {"enqueue_marker", "get_default_queue", "retain_event", "release_event",
                                        "create_user_event", "is_valid_event", "set_user_event_status",
                                        "capture_event_profiling_info"};
  if (!name.consume_front("_Z")) return false;
  name = name.drop_while([](char c) { return c >= '0' && c <= '9'; });
  for (const char *function : library)
    if (name.starts_with(function)) return true;
  return false;
}

static bool calls_enqueue(Function &kernel) {
  for (Function *f : reachable_functions(kernel))
    if (is_enqueue_name(f->getName())) return true;
  return false;
}

// The kernel clang makes of a block passed to enqueue_kernel: __<kernel>_block_invoke[_N]_kernel,
// without argument metadata; its parameters are the block literal (generic) and a __local
// pointer per local-memory size the enqueue passes. The SPIR-V translator's (entry points
// of the module) have metadata, saying the first argument is the literal's generic pointer.
static bool is_block_kernel(const Function &f) {
  StringRef name = f.getName();
  if (!name.starts_with("__") || !name.contains("_block_invoke") || !name.ends_with("_kernel")) return false;
  const MDNode *addr = f.getMetadata("kernel_arg_addr_space");
  return !addr || (f.arg_size() >= 1 && f.getArg(0)->getType()->isPointerTy() &&
                   f.getArg(0)->getType()->getPointerAddressSpace() == kiln::AS_GENERIC);
}

// Loops as the source wrote them: the front end runs no LLVM pass, so a loop of constant
// trip count is still a back edge here (the batch planner takes it as a long work-item).
bool has_loops(Function &kernel) {
  SmallVector<std::pair<const BasicBlock *, const BasicBlock *>, 8> back_edges;
  for (Function *f : reachable_functions(kernel)) {
    if (f->isDeclaration()) continue;
    FindFunctionBackedges(*f, back_edges);
    if (!back_edges.empty()) return true;
  }
  return false;
}

// OpenCL C forbids recursion (6.11 restriction j): a cycle in the call graph among the
// module's defined functions, described as "f -> g -> f"; "" when there is none.
static std::string find_recursion(Module &m) {
  CallGraph graph(m);
  for (scc_iterator<CallGraph *> scc = scc_begin(&graph); !scc.isAtEnd(); ++scc) {
    if (!scc.hasCycle() || !(*scc).front()->getFunction()) continue;
    // A call path from the SCC's first function back to it (breadth first, inside the SCC).
    std::set<CallGraphNode *> members((*scc).begin(), (*scc).end());
    CallGraphNode *start = (*scc).front();
    std::map<CallGraphNode *, CallGraphNode *> parent;
    std::vector<CallGraphNode *> queue{start};
    CallGraphNode *last = nullptr;
    for (size_t i = 0; i < queue.size() && !last; i++)
      for (const auto &edge : *queue[i]) {
        CallGraphNode *callee = edge.second;
        if (callee == start) {
          last = queue[i];
          break;
        }
        if (members.count(callee) && parent.emplace(callee, queue[i]).second) queue.push_back(callee);
      }
    std::vector<std::string> path{start->getFunction()->getName().str()};
    for (CallGraphNode *n = last; n && n != start; n = parent[n]) path.insert(path.begin() + 1, n->getFunction()->getName().str());
    std::string cycle;
    for (const std::string &name : path) cycle += name + " -> ";
    return cycle + path.front();
  }
  return "";
}

// Inline assembly, which OpenCL C does not have (clang accepts it): a GPU's would not
// assemble for the host, and an x86 one that does not assemble stopped the process in
// code generation. Empty when there is none.
static std::string find_inline_asm(Module &m) {
  if (!m.getModuleInlineAsm().empty()) return "at file scope";
  for (Function &f : m)
    for (Instruction &inst : instructions(f))
      if (auto *call = dyn_cast<CallBase>(&inst); call && call->isInlineAsm()) return "in function " + f.getName().str();
  return "";
}

// The functions whose instructions use a constant (through constant expressions).
static void user_functions(Value *v, std::set<Function *> &out) {
  for (User *u : v->users()) {
    if (auto *inst = dyn_cast<Instruction>(u))
      out.insert(inst->getFunction());
    else if (isa<Constant>(u) && !isa<GlobalValue>(u))
      user_functions(u, out);
  }
}

LocalLayout local_layout(Function &kernel) {
  LocalLayout layout;
  std::vector<Function *> reach = reachable_functions(kernel);
  std::set<Function *> reachable(reach.begin(), reach.end());
  const DataLayout &dl = kernel.getParent()->getDataLayout();
  for (GlobalVariable &gv : kernel.getParent()->globals()) {
    if (gv.getAddressSpace() != AS_LOCAL) continue;
    std::set<Function *> users;
    user_functions(&gv, users);
    bool used = false;
    for (Function *f : users) used |= reachable.count(f) != 0;
    if (!used) continue;
    uint64_t align = std::max<uint64_t>(gv.getAlign().valueOrOne().value(), dl.getABITypeAlign(gv.getValueType()).value());
    layout.bytes = (layout.bytes + align - 1) / align * align;
    layout.variables.emplace_back(&gv, layout.bytes);
    layout.bytes += dl.getTypeAllocSize(gv.getValueType());
  }
  return layout;
}

}  // namespace kiln

using namespace kiln;

namespace {

StringRef md_string(const MDNode *node, unsigned i) {
  if (!node || i >= node->getNumOperands()) return "";
  if (auto *s = dyn_cast_or_null<MDString>(node->getOperand(i).get())) return s->getString();
  return "";
}

uint64_t md_int(const MDNode *node, unsigned i, uint64_t fallback) {
  if (!node || i >= node->getNumOperands()) return fallback;
  if (auto *c = mdconst::dyn_extract_or_null<ConstantInt>(node->getOperand(i))) return c->getZExtValue();
  return fallback;
}

// OpenCL C spelling of a vec_type_hint type.
std::string hint_type_name(Type *type, bool is_signed) {
  unsigned n = 0;
  if (auto *vec = dyn_cast<FixedVectorType>(type)) {
    n = vec->getNumElements();
    type = vec->getElementType();
  }
  std::string base;
  if (type->isFloatTy()) base = "float";
  else if (type->isDoubleTy()) base = "double";
  else if (type->isHalfTy()) base = "half";
  else if (type->isIntegerTy(8)) base = is_signed ? "char" : "uchar";
  else if (type->isIntegerTy(16)) base = is_signed ? "short" : "ushort";
  else if (type->isIntegerTy(32)) base = is_signed ? "int" : "uint";
  else if (type->isIntegerTy(64)) base = is_signed ? "long" : "ulong";
  else base = "unknown";
  return n ? base + std::to_string(n) : base;
}

uint64_t private_bytes(Function &kernel) {
  const DataLayout &dl = kernel.getParent()->getDataLayout();
  uint64_t bytes = 0;
  for (Function *f : reachable_functions(kernel))
    for (Instruction &inst : instructions(*f))
      if (auto *alloca = dyn_cast<AllocaInst>(&inst))
        if (auto size = alloca->getAllocationSize(dl)) bytes += size->getFixedValue();
  return bytes;
}

bool describe_kernel(kiln_module &m, Function &f, std::string &error) {
  const DataLayout &dl = f.getParent()->getDataLayout();
  const MDNode *addr = f.getMetadata("kernel_arg_addr_space");
  const MDNode *access = f.getMetadata("kernel_arg_access_qual");
  const MDNode *types = f.getMetadata("kernel_arg_type");
  const MDNode *quals = f.getMetadata("kernel_arg_type_qual");
  const MDNode *names = f.getMetadata("kernel_arg_name");
  unsigned n = f.arg_size();
  bool block = is_block_kernel(f);
  if (n && !block && (!addr || addr->getNumOperands() != n)) {
    error = "kernel " + f.getName().str() + " lacks argument metadata";
    return false;
  }
  auto keep = [&m](StringRef s) { return m.strings.emplace_back(s.str()).c_str(); };

  std::vector<kiln_kernel_arg_desc> &args = m.args.emplace_back(n);
  uint64_t offset = 0;
  for (unsigned i = 0; i < n; i++) {
    kiln_kernel_arg_desc &a = args[i];
    Argument *arg = f.getArg(i);
    unsigned as = (unsigned)md_int(addr, i, 0);
    StringRef type_name = md_string(types, i);
    uint64_t slot_size = 8, slot_align = 8;
    auto *opaque = dyn_cast<TargetExtType>(arg->getType());
    StringRef opaque_name = opaque ? opaque->getName() : StringRef();
    // Modules from SPIR-V (spirv_frontend.cpp) carry these types as plain pointers, named
    // only in the argument metadata, as OpenCL C names them.
    if (!opaque && arg->getType()->isPointerTy() && !arg->hasByValAttr()) {
      if (type_name.starts_with("image") && type_name.ends_with("_t")) opaque_name = "spirv.Image";
      if (md_string(quals, i).contains("pipe")) opaque_name = "spirv.Pipe";  // type "pipe", qualifier "pipe"
      if (type_name == "queue_t") opaque_name = "spirv.Queue";
    }
    if (block) {  // the literal's address, then __local pointers (device_enqueue.c fills them in)
      a.kind = i == 0 ? KILN_ARG_GLOBAL_PTR : KILN_ARG_LOCAL_PTR;
      a.address_qualifier = i == 0 ? CL_KERNEL_ARG_ADDRESS_PRIVATE : CL_KERNEL_ARG_ADDRESS_LOCAL;
      a.size = i == 0 ? sizeof(void *) : 0;
      type_name = "void*";
    } else if (opaque_name == "spirv.Queue") {  // its struct kiln_device_queue
      a.kind = KILN_ARG_QUEUE;
      a.address_qualifier = CL_KERNEL_ARG_ADDRESS_PRIVATE;
      a.size = sizeof(cl_command_queue);
    } else if (opaque_name == "spirv.Image") {  // __global in the metadata, a view in the block
      a.kind = KILN_ARG_IMAGE;
      a.address_qualifier = CL_KERNEL_ARG_ADDRESS_GLOBAL;
      a.size = sizeof(cl_mem);
    } else if (opaque_name == "spirv.Pipe") {
      a.kind = KILN_ARG_PIPE;
      a.address_qualifier = CL_KERNEL_ARG_ADDRESS_GLOBAL;
      a.size = sizeof(cl_mem);
    } else switch (as) {
      case AS_GLOBAL:
        a.kind = KILN_ARG_GLOBAL_PTR;
        a.address_qualifier = CL_KERNEL_ARG_ADDRESS_GLOBAL;
        a.size = sizeof(cl_mem);
        break;
      case AS_CONSTANT:
        a.kind = KILN_ARG_CONSTANT_PTR;
        a.address_qualifier = CL_KERNEL_ARG_ADDRESS_CONSTANT;
        a.size = sizeof(cl_mem);
        break;
      case AS_LOCAL:
        a.kind = KILN_ARG_LOCAL_PTR;
        a.address_qualifier = CL_KERNEL_ARG_ADDRESS_LOCAL;
        a.size = 0;  // any non-zero size: the runtime allocates it and stores a uint64 offset
        break;
      default: {
        a.address_qualifier = CL_KERNEL_ARG_ADDRESS_PRIVATE;
        a.kind = KILN_ARG_BY_VALUE;
        if (type_name == "sampler_t") {
          a.kind = KILN_ARG_SAMPLER;
          a.size = sizeof(cl_sampler);
          break;
        }
        Type *t = arg->hasByValAttr() ? arg->getParamByValType() : arg->getType();
        slot_size = dl.getTypeAllocSize(t);
        slot_align = dl.getABITypeAlign(t).value();
        if (arg->hasByValAttr()) slot_align = std::max<uint64_t>(slot_align, arg->getParamAlign().valueOrOne().value());
        a.size = (uint32_t)slot_size;
      }
    }
    offset = (offset + slot_align - 1) / slot_align * slot_align;
    a.offset = (uint32_t)offset;
    offset += slot_size;

    StringRef acc = md_string(access, i);
    a.access_qualifier = acc == "read_only"    ? CL_KERNEL_ARG_ACCESS_READ_ONLY
                         : acc == "write_only" ? CL_KERNEL_ARG_ACCESS_WRITE_ONLY
                         : acc == "read_write" ? CL_KERNEL_ARG_ACCESS_READ_WRITE
                                               : CL_KERNEL_ARG_ACCESS_NONE;
    StringRef q = md_string(quals, i);
    uint64_t bits = 0;
    if (q.contains("const") || as == AS_CONSTANT) bits |= CL_KERNEL_ARG_TYPE_CONST;
    if (q.contains("restrict")) bits |= CL_KERNEL_ARG_TYPE_RESTRICT;
    if (q.contains("volatile")) bits |= CL_KERNEL_ARG_TYPE_VOLATILE;
    if (q.contains("pipe")) bits |= CL_KERNEL_ARG_TYPE_PIPE;
    a.type_qualifier = bits;
    a.type_name = keep(type_name);
    a.name = names ? keep(md_string(names, i)) : nullptr;
  }

  kiln_kernel_desc d{};
  d.name = keep(f.getName());
  d.num_args = n;
  d.args = args.data();
  d.args_block_size = (uint32_t)((offset + 7) / 8 * 8);
  d.static_local_bytes = local_layout(f).bytes;
  d.private_bytes = private_bytes(f);
  d.uses_barriers = calls_barrier(f);
  d.uses_work_group_scratch = calls_collective(f);
  d.uses_printf = calls_printf(f);
  d.has_loops = has_loops(f);
  d.is_block = block;
  d.enqueues = calls_enqueue(f);
  std::string attributes;
  if (const MDNode *r = f.getMetadata("reqd_work_group_size")) {
    for (unsigned i = 0; i < 3; i++) d.reqd_work_group_size[i] = md_int(r, i, 1);
    attributes += "reqd_work_group_size(" + std::to_string(d.reqd_work_group_size[0]) + "," +
                  std::to_string(d.reqd_work_group_size[1]) + "," + std::to_string(d.reqd_work_group_size[2]) + ")";
  }
  // cl_intel_required_subgroup_size: a kernel may only require a size the device runs
  // (KILN_SUB_GROUP_SIZE, CL_DEVICE_SUB_GROUP_SIZES_INTEL); its sub-group algorithms are
  // written for that size, so running it with another would give wrong results.
  if (const MDNode *s = f.getMetadata("intel_reqd_sub_group_size")) {
    d.required_sub_group_size = (uint32_t)md_int(s, 0, 0);
    if (d.required_sub_group_size != KILN_SUB_GROUP_SIZE) {
      error = "kernel " + f.getName().str() + " requires sub-group size " + std::to_string(d.required_sub_group_size) +
              " (intel_reqd_sub_group_size); this device's sub-groups have " + std::to_string(KILN_SUB_GROUP_SIZE) +
              " work-item (CL_DEVICE_SUB_GROUP_SIZES_INTEL)";
      return false;
    }
  }
  if (const MDNode *s = f.getMetadata(kiln::SUB_GROUPS_PER_WORK_GROUP_METADATA))
    d.compile_num_sub_groups = (uint32_t)md_int(s, 0, 0);
  if (const MDNode *h = f.getMetadata("work_group_size_hint")) {
    for (unsigned i = 0; i < 3; i++) d.work_group_size_hint[i] = md_int(h, i, 1);
    if (!attributes.empty()) attributes += " ";
    attributes += "work_group_size_hint(" + std::to_string(d.work_group_size_hint[0]) + "," +
                  std::to_string(d.work_group_size_hint[1]) + "," + std::to_string(d.work_group_size_hint[2]) + ")";
  }
  if (const MDNode *v = f.getMetadata("vec_type_hint")) {
    Type *t = nullptr;
    if (v->getNumOperands() > 0)
      if (auto *c = dyn_cast_or_null<ConstantAsMetadata>(v->getOperand(0).get())) t = c->getType();
    if (t) {
      if (!attributes.empty()) attributes += " ";
      attributes += "vec_type_hint(" + hint_type_name(t, md_int(v, 1, 1) != 0) + ")";
    }
  }
  d.attributes = keep(attributes);
  m.kernels.push_back(d);
  return true;
}

}  // namespace

namespace kiln {

kiln_module *wrap_module(std::unique_ptr<LLVMContext> context, std::unique_ptr<Module> module,
                         enum kiln_module_kind kind, std::string &error) {
  std::string assembly = find_inline_asm(*module);
  if (!assembly.empty()) {
    error = "inline assembly is not supported (" + assembly + ")";
    module.reset();  // before its context
    return nullptr;
  }
  std::string cycle = find_recursion(*module);
  if (!cycle.empty()) {
    error = "recursion is not allowed in OpenCL C: " + cycle;
    module.reset();  // before its context
    return nullptr;
  }
  auto m = std::make_unique<kiln_module>();
  m->kind = kind;
  for (Function &f : *module)
    if (is_kernel(f) && !describe_kernel(*m, f, error)) {
      module.reset();  // before its context
      return nullptr;
    }
  const DataLayout &dl = module->getDataLayout();
  for (GlobalVariable &gv : module->globals())
    if (gv.getAddressSpace() == AS_GLOBAL && !gv.isDeclaration()) m->global_bytes += dl.getTypeAllocSize(gv.getValueType());
  m->context = std::move(context);
  m->module = std::move(module);
  return m.release();
}

}  // namespace kiln

extern "C" {

enum kiln_module_kind kiln_module_get_kind(const kiln_module *module) { return module->kind; }

void kiln_module_free(kiln_module *module) {
  if (!module) return;
  module->module.reset();  // before its context
  delete module;
}

size_t kiln_module_kernel_count(const kiln_module *module) { return module->kernels.size(); }

const struct kiln_kernel_desc *kiln_module_kernel(const kiln_module *module, size_t index) {
  return index < module->kernels.size() ? &module->kernels[index] : nullptr;
}

uint64_t kiln_module_global_variable_bytes(const kiln_module *module) { return module->global_bytes; }

bool kiln_module_has_debug_option(const kiln_module *module) { return has_option(*module->module, OPTION_DEBUG); }

int kiln_module_serialize(const kiln_module *module, void **bytes, size_t *size) {
  SmallVector<char, 0> buffer;
  raw_svector_ostream os(buffer);
  WriteBitcodeToFile(*module->module, os);
  return kiln_binary_wrap((uint32_t)module->kind, buffer.data(), buffer.size(), bytes, size);
}

static int deserialize(const void *bytes, size_t size, kiln_module **out, char **log) {
  *out = nullptr;
  uint32_t kind = 0;
  const void *payload = nullptr;
  size_t payload_size = 0;
  const char *why = nullptr;
  if (kiln_binary_unwrap(bytes, size, &kind, &payload, &payload_size, &why) != KILN_COMPILE_OK) {
    if (log) *log = dup_log(std::string("invalid binary: ") + why + "\n");
    return KILN_COMPILE_INVALID_BINARY;
  }
  auto context = std::make_unique<LLVMContext>();
  LlvmDiagnostics diagnostics;
  collect_llvm_diagnostics(*context, &diagnostics);
  auto parsed = parseBitcodeFile(
      MemoryBufferRef(StringRef(static_cast<const char *>(payload), payload_size), "kiln-binary"), *context);
  collect_llvm_diagnostics(*context, nullptr);
  if (!parsed || diagnostics.errors) {
    std::string why = parsed ? diagnostics.log : toString(parsed.takeError()) + "\n";
    if (parsed) parsed->reset();  // before its context
    if (log) *log = dup_log("invalid binary: " + why);
    return KILN_COMPILE_INVALID_BINARY;
  }
  std::string error;
  kiln_module *m = wrap_module(std::move(context), std::move(*parsed), (enum kiln_module_kind)kind, error);
  if (!m) {
    if (log) *log = dup_log("invalid binary: " + error + "\n");
    return KILN_COMPILE_INVALID_BINARY;
  }
  *out = m;
  if (log) *log = strdup("");
  return KILN_COMPILE_OK;
}

int kiln_module_deserialize(const void *bytes, size_t size, kiln_module **out, char **log) {
  *out = nullptr;
  return kiln::run_on_compiler_thread([&] { return deserialize(bytes, size, out, log); }, log);
}

}  // extern "C"
