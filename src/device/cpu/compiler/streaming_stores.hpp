// streaming_stores.hpp: non-temporal stores for kernels that stream their output.
#ifndef KILN_DEVICE_CPU_COMPILER_STREAMING_STORES_HPP
#define KILN_DEVICE_CPU_COMPILER_STREAMING_STORES_HPP

#include <llvm/IR/Function.h>

namespace kiln {

// Gives an optimized launcher (x86 only) a non-temporal copy of each store to global
// memory that writes, with the other stores of its loop to the same buffer, every byte of a
// consecutive stream once, a cache line or more per iteration (vectorized and interleaved
// work-item loops: c[i] = a[i] + b[i]), when the loop reads nothing from that buffer. The copy runs when the launch's range has
// KILN_NDRANGE_STREAMING_STORES set (kernel_abi.h) and the address is aligned; the launcher
// then ends with a store fence. Kernels with atomics or fences are left alone. Returns the
// number of stores given a copy.
unsigned add_streaming_stores(llvm::Function &launcher);

}  // namespace kiln

#endif
