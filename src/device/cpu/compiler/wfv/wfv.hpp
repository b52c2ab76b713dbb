// wfv/: whole-function vectorization across work-items (Karrenberg & Hack, "Whole-Function
// Vectorization", CGO'11; Moll & Hack's Region Vectorizer). From a kernel it makes a
// function that runs `width` consecutive work-items along x at once: values that are the
// same for all of them (arguments, group ids, counters of uniform loops) stay scalar, values
// that are affine in the lane (ids, addresses of consecutive elements) stay scalar plus a
// stride, all others become vectors; divergent branches and loops run under lane
// predicates. The launcher (launcher.cpp) calls it for whole vectors of work-items and the
// scalar kernel for the rest. Sub-groups (not offered yet) are to be one such vector each.
//
// Files: prepare.cpp (inline, simplify, split OpenCL vectors into scalars, canonical
// loops), divergence.cpp (what differs between lanes, for LLVM's uniformity analysis),
// linearize.cpp (divergent control flow -> predicated code, scalar IR), shape.cpp (uniform /
// affine / varying values, access kinds), widen.cpp (the vector function), vectorize.cpp
// (the whole of it, switches), describe.cpp (a C view of the decisions, for unit tests).
#ifndef KILN_DEVICE_CPU_COMPILER_WFV_HPP
#define KILN_DEVICE_CPU_COMPILER_WFV_HPP

#include <llvm/ADT/DenseMap.h>
#include <llvm/IR/Function.h>
#include <llvm/IR/GlobalVariable.h>

#include <cstdint>
#include <string>

namespace kiln::wfv {

// `i1 __kiln_wfv_any(i1 p)`: whether p holds for any active lane (uniform). Linearization
// uses it for the exits of loops whose lanes leave at different iterations; widening makes
// it an OR reduction over the block's predicate.
constexpr const char *ANY_LANE = "__kiln_wfv_any";

// `i1 __kiln_wfv_any_above(i64 x, i64 limit)`: whether x >u limit for any active lane
// (uniform), the bounds checks' "is some work-item's offset outside". Widened, an x that
// grows by a constant stride between lanes, with every lane active, is tested at the first
// and last lane only; that is exact for limit < 2^63 (a larger limit may answer true).
constexpr const char *ANY_ABOVE = "__kiln_wfv_any_above";

// `i32 __kiln_wfv_first_lane(i1 p)`: the first active lane where p holds (any lane when
// none does; 0 for one work-item) and `i64 __kiln_wfv_lane_value(i64 x, i32 lane)`: that
// lane's x (x itself for one work-item), both uniform: a report about one of the lanes
// (the bounds checks' violation) is one call, not one per lane.
constexpr const char *FIRST_LANE = "__kiln_wfv_first_lane";
constexpr const char *LANE_VALUE = "__kiln_wfv_lane_value";

// A call site attribute: the call (void, its arguments the same for all lanes) is made once
// for a vector's active lanes, not once per lane (the bounds checks' report of one lane).
constexpr const char *ONCE_PER_VECTOR = "kiln-wfv-once";

// Metadata of a global variable that stands for "no access": a load or store whose address
// is `select c, p, (that variable)` is, widened, p's access for the lanes where c holds
// (a masked vector access when p is consecutive) and none for the others, whose loads give
// zero (the bounds checks' slow copies: their loads' sink holds zeros and is never written).
constexpr const char *SINK_METADATA = "kiln.wfv.sink";

// Whether v is (a cast of) such a variable.
inline bool is_sink(const llvm::Value *v) {
  auto *gv = llvm::dyn_cast<llvm::GlobalVariable>(v->stripPointerCasts());
  return gv && gv->hasMetadata(SINK_METADATA);
}

// One of the calls above, whose answer is the same for all lanes.
inline bool is_cross_lane(const llvm::Function *f) {
  if (!f) return false;
  llvm::StringRef n = f->getName();
  return n == ANY_LANE || n == ANY_ABOVE || n == FIRST_LANE || n == LANE_VALUE;
}

// The predicate under which a block's instructions run for each lane (an i1 of the scalar
// IR, or absent: every lane that reached the function).
using BlockPredicates = llvm::DenseMap<llvm::BasicBlock *, llvm::Value *>;

// Inlines every call, simplifies, scalarizes OpenCL vector types, lowers switches, makes
// one return block and loops with preheaders, dedicated exits and LCSSA form. False with
// `why` for a function the later steps do not handle.
bool prepare(llvm::Function &f, std::string &why);

// Rewrites divergent control flow (branches whose condition differs between lanes) into
// predicated code: divergent regions become straight-line blocks whose joins select by
// predicate, loops whose lanes leave at different iterations run while any lane is active.
// Afterwards every branch is uniform. False with `why` for control flow it does not
// handle (loops with several exiting blocks, irreducible or multi-entry regions).
bool linearize(llvm::Function &f, BlockPredicates &predicates, std::string &why);

// How a value varies across the lanes: the same for all (uniform, stride 0), lane 0's
// value plus lane x stride (affine; for pointers the stride is in bytes), or anything.
struct Shape {
  enum Kind : uint8_t { Unknown, Affine, Varying } kind = Unknown;
  int64_t stride = 0;
  bool uniform() const { return kind == Affine && stride == 0; }
  bool affine() const { return kind == Affine; }
  bool operator==(const Shape &o) const { return kind == o.kind && stride == o.stride; }
  bool operator!=(const Shape &o) const { return !(*this == o); }
  static Shape uniform_shape() { return {Affine, 0}; }
  static Shape affine_shape(int64_t s) { return {Affine, s}; }
  static Shape varying() { return {Varying, 0}; }
};

// Stride arithmetic wraps like the values' own (mod 2^64; narrower types truncate): a
// stride of -7e18 times lane 2 is a value, not undefined behavior.
inline int64_t wrapping_add(int64_t a, int64_t b) { return (int64_t)((uint64_t)a + (uint64_t)b); }
inline int64_t wrapping_sub(int64_t a, int64_t b) { return (int64_t)((uint64_t)a - (uint64_t)b); }
inline int64_t wrapping_mul(int64_t a, int64_t b) { return (int64_t)((uint64_t)a * (uint64_t)b); }
inline int64_t wrapping_shl(int64_t a, unsigned c) { return (int64_t)((uint64_t)a << c); }

// The shape of every value of a linearized function (a fixed point over its SSA graph).
// Lane 0 is the work-item whose x id is the first of the vector.
class Shapes {
 public:
  // False with `why` when the function uses something without a known shape
  // (work-item ids of a dimension computed at run time).
  bool compute(llvm::Function &f, std::string &why);
  Shape of(const llvm::Value *v) const;

 private:
  Shape transfer(const llvm::Instruction &inst) const;
  llvm::DenseMap<const llvm::Value *, Shape> shapes_;
};

// The access a load or store of `type` through a pointer of shape `pointer` makes for the
// vector: one scalar access, one contiguous vector access, or a gather/scatter.
enum class Access { Uniform, Consecutive, GatherScatter };
Access access_kind(Shape pointer, llvm::Type *type, const llvm::DataLayout &dl);

// The vector function of linearized `f`: f's parameters plus the x id of lane 0 (i64); a
// returned value is lane 0's.
// Null with `why` when f holds something widening does not handle.
llvm::Function *widen(llvm::Function &f, const BlockPredicates &predicates, unsigned width, std::string &why);

// The whole of it: a new internal function `<kernel>.wfv<width>` in kernel's module, or
// null with `why` (the kernel then runs one work-item at a time). The kernel is unchanged.
// `has_images`: the kernel takes image arguments. `barrier_region`: `kernel` is one
// barrier-free region of a kernel with barriers (launcher.cpp), vectorized with or without
// a loop (the loop vectorizer, the alternative, rarely proves a region's work-items
// independent: its accesses through frames and 32-bit indices).
llvm::Function *vectorize_kernel(llvm::Function &kernel, unsigned width, bool has_images, std::string &why,
                                 bool barrier_region = false);

// KILN_VECTORIZE: unset or "1", kernels whose body has a loop are vectorized by WFV (the
// others by LLVM's loop vectorizer over the work-item loop, work_item_vectorize.cpp); "all":
// every kernel WFV can handle (tests use it); "0": no vectorization across work-items.
// Checked (KILN_CHECK=bounds, KILN_VECTORIZE unset): as All, but for kernels without loops
// whose accesses are mostly not vector accesses (the loop vectorizer, which Loops leaves
// loop-free kernels to, gives up on the checks' report calls).
enum class Mode { Loops, All, Checked, Off };
Mode mode();
// Work-items per vector: KILN_VECTOR_WIDTH if set (a power of two, 2..64), else twice the
// floats of a vector register: 32 where the host has AVX-512, 16 with AVX2, 8 otherwise. Two
// registers per value give each lane's dependence chains (a dot product's accumulator, a
// chain of arithmetic) a second independent chain to overlap with: naive SGEMM ran 2.6x and
// N-body (then with Newton steps for rsqrt) 1.2x faster at 16 than at 8 on the 2-core AVX2
// EPYC.
unsigned width();
// The width of the second, narrower function for rows that have fewer work-items left than
// width() (groups of 16 on AVX-512): the floats of one register, or 0 under
// KILN_VECTOR_WIDTH (one width only, as tests ask for).
unsigned narrow_width();

}  // namespace kiln::wfv

#endif
