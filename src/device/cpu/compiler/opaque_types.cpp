// opaque_types.cpp: lower_opaque_types (compiler_internal.hpp). Clang 19 gives OpenCL C's
// opaque types on SPIR targets as SPIR-V target extension types — target("spirv.Image", ...),
// target("spirv.Sampler"), target("spirv.Event") — which the host's code generator cannot
// lower. On Kiln's device each of them is a pointer: an image is a pointer to its struct
// kiln_device_image, a sampler its KILN_SAMPLER_* bits (kernel_abi.h) in a pointer, an
// event nothing the builtins look at, a pipe its struct kiln_pipe (device/cpu/pipe.h), a
// reservation id its 64 bits. So every such type becomes `ptr`, in every signature,
// instruction and constant, and the conversions the builtin library is written against
// become casts:
//   __translate_sampler_initializer(i32 bits)  (clang's, for constant sampler_t) -> inttoptr
//   __kiln_sampler_bits(sampler_t)             (the library's)                   -> ptrtoint
//   __kiln_image_desc(image*_t), overloaded    (the library's)                   -> the pointer
//   __kiln_reserve_id_bits(reserve_id_t)       (the library's)                   -> ptrtoint
//   __kiln_reserve_id_from_bits(ulong)         (the library's)                   -> inttoptr
// Once a constant sampler's bits are a constant, every decision of a read folds away.
#include "device/cpu/compiler/compiler_internal.hpp"

#include <llvm/IR/Constants.h>
#include <llvm/IR/DebugInfo.h>
#include <llvm/IR/DerivedTypes.h>
#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/InstIterator.h>
#include <llvm/IR/Instructions.h>
#include <llvm/IR/Module.h>
#include <llvm/Transforms/Utils/ValueMapper.h>

#include <vector>

using namespace llvm;

namespace {

constexpr const char *kSamplerInitializer = "__translate_sampler_initializer";
constexpr const char *kSamplerBits = "__kiln_sampler_bits";
constexpr const char *kImageDescPrefix = "_Z17__kiln_image_desc";  // overloaded per image type
constexpr const char *kReserveIdBits = "__kiln_reserve_id_bits";
constexpr const char *kReserveIdFromBits = "__kiln_reserve_id_from_bits";

bool is_conversion(StringRef name) {
  return name == kSamplerInitializer || name == kSamplerBits || name.starts_with(kImageDescPrefix) ||
         name == kReserveIdBits || name == kReserveIdFromBits;
}

class OpaqueTypeMapper : public ValueMapTypeRemapper {
 public:
  explicit OpaqueTypeMapper(LLVMContext &c) : pointer_(PointerType::get(c, 0)) {}

  Type *remapType(Type *t) override {
    auto found = cache_.find(t);
    if (found != cache_.end()) return found->second;
    Type *mapped = map(t);
    cache_[t] = mapped;
    return mapped;
  }

 private:
  // Opaque types cannot be struct members or vector elements in OpenCL C, but private
  // arrays of event_t exist, and a block literal (an unnamed packed struct) holds the
  // queue_t and clk_event_t values its block captures: arrays, unnamed structs and
  // function types are rebuilt, nothing else.
  Type *map(Type *t) {
    if (auto *ext = dyn_cast<TargetExtType>(t)) return ext->getName().starts_with("spirv.") ? pointer_ : t;
    if (auto *array = dyn_cast<ArrayType>(t)) {
      Type *element = remapType(array->getElementType());
      return element == array->getElementType() ? t : ArrayType::get(element, array->getNumElements());
    }
    if (auto *st = dyn_cast<StructType>(t); st && st->isLiteral()) {
      bool changed = false;
      std::vector<Type *> fields;
      for (Type *f : st->elements()) {
        fields.push_back(remapType(f));
        changed |= fields.back() != f;
      }
      return changed ? StructType::get(t->getContext(), fields, st->isPacked()) : t;
    }
    if (auto *fn = dyn_cast<FunctionType>(t)) {
      bool changed = false;
      Type *ret = remapType(fn->getReturnType());
      changed |= ret != fn->getReturnType();
      std::vector<Type *> params;
      for (Type *p : fn->params()) {
        params.push_back(remapType(p));
        changed |= params.back() != p;
      }
      return changed ? FunctionType::get(ret, params, fn->isVarArg()) : t;
    }
    return t;
  }

  PointerType *pointer_;
  DenseMap<Type *, Type *> cache_;
};

// Clang writes an integer given an opaque type (CLK_NULL_RESERVE_ID is
// __builtin_astype((void *)SIZE_MAX, reserve_id_t)) as `bitcast (i64 -1 to target(...))`,
// which has no pointer form: it becomes inttoptr.
class IntegerCastMaterializer : public ValueMaterializer {
 public:
  explicit IntegerCastMaterializer(LLVMContext &c) : pointer_(PointerType::get(c, 0)) {}

  Value *materialize(Value *v) override {
    auto *cast = dyn_cast<ConstantExpr>(v);
    if (!cast || cast->getOpcode() != Instruction::BitCast || !isa<TargetExtType>(cast->getType()) ||
        !cast->getOperand(0)->getType()->isIntegerTy())
      return nullptr;
    return ConstantExpr::getIntToPtr(cast->getOperand(0), pointer_);
  }

 private:
  PointerType *pointer_;
};

// The conversions, on the lowered module.
void lower_conversions(Module &m) {
  std::vector<CallInst *> calls;
  for (Function &f : m)
    for (Instruction &inst : instructions(f))
      if (auto *call = dyn_cast<CallInst>(&inst))
        if (Function *callee = call->getCalledFunction()) {
          if (is_conversion(callee->getName())) calls.push_back(call);
        }
  for (CallInst *call : calls) {
    IRBuilder<> b(call);
    StringRef name = call->getCalledFunction()->getName();
    Value *arg = call->getArgOperand(0);
    Value *result;
    if (name == kSamplerInitializer || name == kReserveIdFromBits)
      result = b.CreateIntToPtr(b.CreateZExt(arg, b.getInt64Ty()), call->getType());
    else if (name == kSamplerBits || name == kReserveIdBits)
      result = b.CreateZExtOrTrunc(b.CreatePtrToInt(arg, b.getInt64Ty()), call->getType());
    else
      result = b.CreateAddrSpaceCast(arg, call->getType());
    call->replaceAllUsesWith(result);
    call->eraseFromParent();
  }
  for (const char *name : {kSamplerInitializer, kSamplerBits, kReserveIdBits, kReserveIdFromBits})
    if (Function *f = m.getFunction(name); f && f->use_empty()) f->eraseFromParent();
  for (Function &f : make_early_inc_range(m))
    if (f.isDeclaration() && f.use_empty() && f.getName().starts_with(kImageDescPrefix)) f.eraseFromParent();
}

}  // namespace

namespace kiln {

bool is_opaque_type_conversion(StringRef name) { return is_conversion(name); }

bool lower_opaque_types(Module &m, std::string & /*error: none is left since variables are lowered too*/) {
  OpaqueTypeMapper mapper(m.getContext());
  IntegerCastMaterializer integer_casts(m.getContext());
  // Variables of these types (a __local reserve_id_t shared by a work-group, say) are
  // recreated with the pointer type; their address, the value every use sees, keeps its type.
  for (GlobalVariable &gv : make_early_inc_range(m.globals())) {
    Type *type = mapper.remapType(gv.getValueType());
    if (type == gv.getValueType()) continue;
    Constant *init = nullptr;
    if (gv.hasInitializer())
      init = isa<UndefValue>(gv.getInitializer()) ? UndefValue::get(type) : Constant::getNullValue(type);
    auto *g = new GlobalVariable(m, type, gv.isConstant(), gv.getLinkage(), init, "", &gv, gv.getThreadLocalMode(),
                                 gv.getAddressSpace());
    g->copyAttributesFrom(&gv);
    g->takeName(&gv);
    gv.replaceAllUsesWith(g);
    gv.eraseFromParent();
  }

  // Functions whose signature changes are recreated with the new one (a function's type
  // cannot change in place); their bodies move over, old arguments map to new ones.
  ValueToValueMapTy map;
  // Debug info (-g, docs/debugging.md) stays as it is: unmapped, every distinct node would
  // be copied by the remapping below, the compile unit among them (the verifier then finds
  // a unit missing from llvm.dbg.cu). Nothing to map without debug info.
  DebugInfoFinder debug_info;
  debug_info.processModule(m);
  for (DICompileUnit *cu : debug_info.compile_units()) map.MD()[cu].reset(cu);
  for (DISubprogram *sp : debug_info.subprograms()) map.MD()[sp].reset(sp);
  for (DIType *type : debug_info.types()) map.MD()[type].reset(type);
  for (DIScope *scope : debug_info.scopes()) map.MD()[scope].reset(scope);
  std::vector<Function *> replaced;
  for (Function &f : m) {
    auto *type = cast<FunctionType>(mapper.remapType(f.getFunctionType()));
    if (type == f.getFunctionType()) continue;
    Function *g = Function::Create(type, f.getLinkage(), f.getAddressSpace());
    m.getFunctionList().insert(f.getIterator(), g);  // kernels keep their order (jit.cpp relies on it)
    g->copyAttributesFrom(&f);
    g->copyMetadata(&f, 0);
    g->setComdat(f.getComdat());
    g->takeName(&f);
    g->splice(g->end(), &f);
    for (unsigned i = 0; i < f.arg_size(); i++) {
      g->getArg(i)->takeName(f.getArg(i));
      map[f.getArg(i)] = g->getArg(i);
    }
    map[&f] = g;
    replaced.push_back(&f);
  }
  // Every body: operands through the map, instruction and call types through the mapper
  // (ValueMapper rebuilds constants of the old types, e.g. an event_t's zero, as null).
  for (Function &f : m)
    if (!f.isDeclaration()) RemapFunction(f, map, RF_IgnoreMissingLocals, &mapper, &integer_casts);
  for (Function *f : replaced) {
    f->replaceAllUsesWith(map[f]);  // any use outside a body (both are `ptr` values)
    f->eraseFromParent();
  }
  lower_conversions(m);
  return true;
}

}  // namespace kiln
