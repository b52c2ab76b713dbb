// compiler_internal.hpp: what the compiler's C++ files share — the module object and
// helpers over LLVM IR produced for the SPIR target (see clang_flags.h).
#ifndef KILN_DEVICE_CPU_COMPILER_INTERNAL_HPP
#define KILN_DEVICE_CPU_COMPILER_INTERNAL_HPP

#include "device/cpu/compiler/compiler.h"

#include <CL/cl.h>
#include <llvm/IR/Function.h>
#include <llvm/IR/GlobalVariable.h>
#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/Module.h>
#include <llvm/IR/PassManager.h>

#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace llvm {
class PassBuilder;
class CallBase;
}

struct kiln_module {
  std::unique_ptr<llvm::LLVMContext> context;
  std::unique_ptr<llvm::Module> module;
  enum kiln_module_kind kind = KILN_MODULE_OBJECT;
  std::vector<kiln_kernel_desc> kernels;
  std::deque<std::vector<kiln_kernel_arg_desc>> args;
  std::deque<std::string> strings;  // storage for the descriptions' strings
  uint64_t global_bytes = 0;
};

namespace kiln {

// SPIR address spaces (clang_flags.h).
enum : unsigned { AS_PRIVATE = 0, AS_GLOBAL = 1, AS_CONSTANT = 2, AS_LOCAL = 3, AS_GENERIC = 4 };

// Kernel metadata: SPIR-V's SubgroupsPerWorkgroup (spirv_frontend.cpp), an i32.
constexpr const char *SUB_GROUPS_PER_WORK_GROUP_METADATA = "kiln.sub_groups_per_work_group";

// Named metadata carrying the compile options that matter after compilation.
constexpr const char *OPTIONS_METADATA = "kiln.options";
constexpr const char *OPTION_OPT_DISABLE = "opt-disable";
// -cl-denorms-are-zero: launchers flush denormals (launcher.cpp).
constexpr const char *OPTION_DENORMS_ARE_ZERO = "denorms-are-zero";
// -g: enqueue_kernel and enqueue_marker say why they failed (device_enqueue.cpp).
constexpr const char *OPTION_DEBUG = "g";

char *dup_log(const std::string &text);

// Diagnostics LLVM reports through a context (linker clashes, code generation errors), as
// build log lines. A context without a handler prints errors to stderr and exits the
// process. `into` must outlive the handler: pass nullptr to remove it.
struct LlvmDiagnostics {
  std::string log;
  unsigned errors = 0;
};
void collect_llvm_diagnostics(llvm::LLVMContext &context, LlvmDiagnostics *into);

// Runs `work` (a compiler entry point's body, returning a kiln_compile_status) on a
// compiler thread with a deep stack (compiler_thread.cpp); a program nested so deeply that
// even that stack runs out, or one clang or LLVM crashes on, makes it return
// KILN_COMPILE_FAILED with *log saying so.
int run_on_compiler_thread(const std::function<int()> &work, char **log);

// Adds the frame size of every function of a relocatable object compiled with
// EmitStackSizeSection (stack_sizes.cpp) to `sizes`, by symbol name. False when the object
// has no such section or cannot be read.
bool read_stack_sizes(llvm::StringRef object_bytes, std::map<std::string, uint64_t> &sizes);
// A call the launcher replaces by a work-item value (kernel_abi.h): get_local_id and the
// like. Not the barrier intrinsic, nor other __kiln_ helpers such as printf's.
inline bool is_work_item_intrinsic(llvm::StringRef name) {
  for (const char *n : {KILN_INTRINSIC_LOCAL_ID, KILN_INTRINSIC_GROUP_ID, KILN_INTRINSIC_LOCAL_SIZE,
                        KILN_INTRINSIC_ENQUEUED_LOCAL_SIZE, KILN_INTRINSIC_GLOBAL_SIZE, KILN_INTRINSIC_GLOBAL_OFFSET,
                        KILN_INTRINSIC_NUM_GROUPS, KILN_INTRINSIC_WORK_DIM, KILN_INTRINSIC_MEMORY_BOUND})
    if (name == n) return true;
  return false;
}
bool is_kernel(const llvm::Function &f);
bool has_option(const llvm::Module &m, const char *option);
void add_option(llvm::Module &m, const char *option);

// Builds a module object (and its kernel descriptions) around an LLVM module.
// Returns nullptr and sets error when the module's kernels cannot be described.
kiln_module *wrap_module(std::unique_ptr<llvm::LLVMContext> context, std::unique_ptr<llvm::Module> module,
                         enum kiln_module_kind kind, std::string &error);

// A copy of a module in another context (through bitcode).
std::unique_ptr<llvm::Module> copy_module(const llvm::Module &m, llvm::LLVMContext &context, std::string &error);

// Functions reachable from f through direct calls (f included).
std::vector<llvm::Function *> reachable_functions(llvm::Function &f);
bool calls_barrier(llvm::Function &kernel);
// Whether kernel or a function it calls has a loop (a back edge in its control flow).
bool has_loops(llvm::Function &kernel);

// Static __local variables a kernel uses (transitively), with their offsets in local memory.
struct LocalLayout {
  std::vector<std::pair<llvm::GlobalVariable *, uint64_t>> variables;
  uint64_t bytes = 0;
};
LocalLayout local_layout(llvm::Function &kernel);

// printf (printf_lowering.cpp): rewrites the module's printf calls into calls of the host
// helper (builtins/printf_host.h); false and `error` when an argument cannot be printed.
bool lower_printf(llvm::Module &m, std::string &error);
// Whether kernel (or a function it calls) calls printf, lowered or not.
bool calls_printf(llvm::Function &kernel);

// Links the builtin library into an executable's module (link.cpp; only what it calls);
// false with `error` when something stays undefined.
bool link_builtin_library(llvm::Module &m, std::string &error);

// OpenCL C's opaque types (opaque_types.cpp): images, samplers and events arrive as SPIR-V
// target extension types, which the host cannot compile; they become pointers, and the
// library's conversions between them and their representation become casts. Runs on the
// linked module, before the launchers are built. False with `error` when a global has one.
bool lower_opaque_types(llvm::Module &m, std::string &error);
// Device-side enqueue (device_enqueue.cpp): clang's calls of __enqueue_kernel_* and
// __get_kernel_*_impl become calls of the device's functions with the block kernel's
// index in the module; runs after lower_opaque_types. False with `error` when a block's
// kernel is not a constant.
bool lower_device_enqueue(llvm::Module &m, std::string &error);
// Calls that differ from their callee only in pointer address spaces (a module from
// SPIR-V calling the library's builtins on images and samplers: call_signatures.cpp) are
// rebuilt with address-space casts; runs after lower_opaque_types.
void match_call_signatures(llvm::Module &m);
// A call lower_opaque_types replaces (sampler initializers, the library's image and sampler
// conversions): left open by linking, defined by no library.
bool is_opaque_type_conversion(llvm::StringRef name);

// SLEEF's vector math functions offered to the loop vectorizer for the scalar ones the
// module calls (vector_math.cpp), for the host's widest instruction sets.
void add_vector_math_variants(llvm::Module &m);

// Integer division (safe_division.cpp): OpenCL leaves x / 0 and INT_MIN / -1 undefined,
// but on x86 they trap and would kill the application. Every division or remainder whose
// divisor is not a constant known to be safe divides by 1 instead in those cases.
void guard_integer_division(llvm::Module &m);

// An image format a launcher is specialized for (struct kiln_device_image's fields).
struct ImageFormat {
  uint32_t channel_order;  // 0: any format
  uint32_t channel_data_type;
  uint32_t element_size;
};
// The work-group launcher of kernel `k` (launcher.cpp), added to `m` as `name`. With
// `image_formats` (per argument), a launcher for images of those formats: their views'
// format fields are constants there (kernels without barriers only).
llvm::Function *build_launcher(llvm::Module &m, llvm::Function &k, const kiln_kernel_desc &desc,
                               const LocalLayout &locals, const std::string &name, std::string &error,
                               const std::vector<ImageFormat> *image_formats = nullptr, bool fibers = false);
// Kernels whose work-items may wait on each other (spin_loops.cpp): when `k` reads memory
// atomically at all, inlines it and puts a call of KILN_FIBERS_YIELD_SYMBOL on the back
// edges of its loops whose exits depend on such reads; `spins`: it has such loops, so it
// needs a launcher that runs its work-items as fibers (build_launcher's `fibers`).
bool yield_in_spin_loops(llvm::Function &k, bool &spins, std::string &error);
// KILN_CHECK=bounds (bounds_checks.cpp): inlines `k` and guards each of its accesses through a
// pointer argument with a test against the argument's extent (kernel_abi.h's table).
bool add_bounds_checks(llvm::Function &k, const kiln_kernel_desc &desc, std::string &error);
// After launchers are built: the whole-function vectorizer's cross-lane calls left in scalar
// code (bounds checks put them there) become the work-item's own answer.
void lower_any_lane(llvm::Module &m);
// The launcher of a kernel with image arguments (image_dispatch.cpp): launchers specialized
// for common formats (every image argument of one format) behind a dispatcher `name` that
// picks one by the images of the launch, else the generic launcher. Plain build_launcher
// for kernels without images, with barriers or fibers, and when `specialize` is false.
llvm::Function *build_image_launchers(llvm::Module &m, llvm::Function &k, const kiln_kernel_desc &desc,
                                      const LocalLayout &locals, const std::string &name, bool specialize,
                                      std::string &error, bool fibers = false);
// Runs over `f` the function passes `add` puts in a pass manager, with LLVM's analyses
// registered on a PassBuilder without a target (launcher.cpp).
void run_function_passes(llvm::Function &f,
                         const std::function<void(llvm::PassBuilder &, llvm::FunctionPassManager &)> &add);
// Inlines every call of a defined function into `f`, repeatedly (OpenCL C has no recursion),
// but for calls `keep` says to keep; false with `error` when a call cannot be inlined.
bool inline_all(llvm::Function &f, std::string &error,
                const std::function<bool(const llvm::CallBase &)> &keep = nullptr);
// The loop metadata option marking the launchers' innermost (x) work-item loops.
constexpr const char *WORK_ITEM_LOOP = "kiln.work_item_loop";
// Attribute of a launcher that runs whole vectors of work-items through a wfv/ function:
// its scalar-remainder loop gets no scalarized trial (work_item_vectorize.cpp), which would
// take the wfv/ vectors apart along with it.
constexpr const char *WFV_LAUNCHER = "kiln-wfv-launcher";
// Adds the pass that readies the launchers' work-item loops for the loop vectorizer
// (work_item_vectorize.cpp): parallel where memory allows, scalarized where that vectorizes.
void add_work_item_vectorization(llvm::ModulePassManager &mpm);
// KILN_WORK_ITEM_VECTORIZE (read once): unset, Kiln decides by cost; "force": every work-item
// loop the vectorizer can widen is widened (8 work-items), whatever the cost (tests use it to
// run the vectorized code on any machine); "off": no such pass (to compare).
enum class WorkItemVectorization { Auto, Force, Off };
WorkItemVectorization work_item_vectorization_mode();


}  // namespace kiln

#endif
