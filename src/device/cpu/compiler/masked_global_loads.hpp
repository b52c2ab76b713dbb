// masked_global_loads.hpp: masked vector loads of memory other than local as whole-vector
// loads where they cannot fault.
#ifndef KILN_DEVICE_CPU_COMPILER_MASKED_GLOBAL_LOADS_HPP
#define KILN_DEVICE_CPU_COMPILER_MASKED_GLOBAL_LOADS_HPP

#include <llvm/IR/Function.h>

namespace kiln {

// On hosts without AVX-512: rewrites each masked load of an optimized launcher that does
// not read local memory (local_masked_access.hpp has those) into a test whether some lane
// is active and the vector lies within one page, then a whole-vector load blended with the
// pass-through value; else the masked load. Returns the number rewritten.
unsigned lower_masked_global_loads(llvm::Function &launcher);

}  // namespace kiln

#endif
