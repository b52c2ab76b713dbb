// local_masked_access.hpp: masked vector accesses of local memory as whole-vector ones.
#ifndef KILN_DEVICE_CPU_COMPILER_LOCAL_MASKED_ACCESS_HPP
#define KILN_DEVICE_CPU_COMPILER_LOCAL_MASKED_ACCESS_HPP

#include <llvm/IR/Function.h>

namespace kiln {

// Rewrites each masked load and store of local memory in an optimized launcher (from the
// loop vectorizer over a region's work-items: `if (lid < s) l[lid] += l[lid + s]`) into a
// test whether any lane is active, then a whole-vector load blended with the pass-through
// value, or a whole-vector load, blend and store. Returns the number rewritten.
unsigned lower_local_masked_accesses(llvm::Function &launcher);

}  // namespace kiln

#endif
