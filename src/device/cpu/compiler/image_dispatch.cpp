// image_dispatch.cpp: build_image_launchers
// (compiler_internal.hpp). An image's format is known only at launch, so the builtins
// decode elements behind a switch on the format key (builtins/image.cl). For the formats
// imaging and ML code use most, a kernel whose image arguments all share one of them gets
// a launcher where the views' format fields, and so the key, are constants: the switch
// folds away and every read and write is straight-line code. A small dispatcher, under the launcher's name, reads the images'
// views from the argument block and calls the matching launcher, or the generic one.
#include "device/cpu/compiler/compiler_internal.hpp"

#include <CL/cl.h>
#include <llvm/IR/Constants.h>
#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/InstIterator.h>
#include <llvm/IR/Instructions.h>

#include <cstddef>
#include <vector>

using namespace llvm;

namespace {

// RGBA in 8-bit normalized, float and half: pictures, and feature maps on GPUs.
constexpr kiln::ImageFormat kSpecializedFormats[] = {
    {CL_RGBA, CL_UNORM_INT8, 4}, {CL_RGBA, CL_FLOAT, 16}, {CL_RGBA, CL_HALF_FLOAT, 8}};

}  // namespace

namespace kiln {

Function *build_image_launchers(Module &m, Function &k, const kiln_kernel_desc &desc, const LocalLayout &locals,
                                const std::string &name, bool specialize, std::string &error, bool fibers) {
  std::vector<unsigned> images;
  for (unsigned i = 0; i < desc.num_args; i++)
    if (desc.args[i].kind == KILN_ARG_IMAGE) images.push_back(i);
  if (!specialize || images.empty() || desc.uses_barriers || fibers)
    return build_launcher(m, k, desc, locals, name, error, nullptr, fibers);

  std::vector<Function *> launchers;
  for (const ImageFormat &format : kSpecializedFormats) {
    std::vector<ImageFormat> formats(desc.num_args, ImageFormat{0, 0, 0});
    for (unsigned i : images) formats[i] = format;
    Function *l = build_launcher(m, k, desc, locals, name + ".rgba_" + std::to_string(format.channel_data_type), error,
                                 &formats);
    if (!l) return nullptr;
    // Kept apart until the work-item loops are vectorized (work_item_vectorize.cpp decides
    // per function); one call per launcher run costs nothing.
    l->addFnAttr(Attribute::NoInline);
    launchers.push_back(l);
  }
  Function *generic = build_launcher(m, k, desc, locals, name + ".generic", error);
  if (!generic) return nullptr;
  generic->addFnAttr(Attribute::NoInline);

  LLVMContext &c = m.getContext();
  Function *f = Function::Create(generic->getFunctionType(), GlobalValue::ExternalLinkage, name, m);
  f->addFnAttr(Attribute::NoUnwind);
  IRBuilder<> b(BasicBlock::Create(c, "entry", f));
  std::vector<Value *> forward;
  for (Argument &a : f->args()) forward.push_back(&a);
  // Each image's channel order and data type, from its view (kernel_abi.h).
  std::vector<std::pair<Value *, Value *>> formats;
  for (unsigned i : images) {
    Value *slot = b.CreateConstInBoundsGEP1_64(b.getInt8Ty(), f->getArg(0), desc.args[i].offset);
    Value *view = b.CreateAlignedLoad(b.getPtrTy(), slot, Align(8));
    auto field = [&](size_t offset) {
      return b.CreateAlignedLoad(b.getInt32Ty(), b.CreateConstInBoundsGEP1_64(b.getInt8Ty(), view, offset), Align(4));
    };
    formats.emplace_back(field(offsetof(kiln_device_image, channel_order)),
                         field(offsetof(kiln_device_image, channel_data_type)));
  }
  for (size_t s = 0; s < launchers.size(); s++) {
    Value *all = b.getTrue();
    for (auto &[order, type] : formats)
      all = b.CreateAnd(all, b.CreateAnd(b.CreateICmpEQ(order, b.getInt32(kSpecializedFormats[s].channel_order)),
                                         b.CreateICmpEQ(type, b.getInt32(kSpecializedFormats[s].channel_data_type))));
    BasicBlock *match = BasicBlock::Create(c, "specialized", f), *next = BasicBlock::Create(c, "next", f);
    b.CreateCondBr(all, match, next);
    b.SetInsertPoint(match);
    b.CreateRet(b.CreateCall(launchers[s], forward));
    b.SetInsertPoint(next);
  }
  b.CreateRet(b.CreateCall(generic, forward));
  return f;
}

}  // namespace kiln
