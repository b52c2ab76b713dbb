// idle_work_items.hpp: where a barrier region's work-items stop having anything to do.
#ifndef KILN_DEVICE_CPU_COMPILER_IDLE_WORK_ITEMS_HPP
#define KILN_DEVICE_CPU_COMPILER_IDLE_WORK_ITEMS_HPP

#include <llvm/IR/Function.h>

#include <cstdint>

namespace kiln {

// For a region function of launcher.cpp (one work-item's run of a barrier-free region):
// when every effect of the region (a store other than to its own private memory or of
// the group-uniform values it hands on, an atomic, a call that writes memory) happens
// only under a guard `x < u` (or `x <= u`, `x == u`; x the local x id, u the same for
// the whole row of work-items, the guard reached by all of them alike), adds code that
// stores, on every return, the largest such u (as an exclusive i64 bound) at
// `*(i64 *)(uniform_next + offset)`, its argument `uniform_next` being the last, and at
// offset + 8 a second bound (at most the first) below which whole vectors pass every
// guard that the call reached (0 where one of them cannot say). The
// work-items of the row from that x on then do nothing but what the first one does
// (compute the same uniform values and the same next region), so the launcher skips
// them: a tree reduction's `if (lid < s)` levels cost s work-items, not the group.
// `fn` must be simplified first (its stack slots promoted: SROA, as launcher.cpp's
// simplify does), so that the uniform values it reads are SSA values.
struct IdleBound {
  bool stored = false;  // whether the bounds are stored
  // A copy of fn (`<name>.all_active`, same parameters) for calls whose work-items all lie
  // below the second bound: the compares of the guards that run once per call and hold
  // for every x below their bound (not `x == u`) are the constants they are there, so
  // that wfv/ widens them without masks. Null when no guard is such.
  llvm::Function *all_active = nullptr;
};
IdleBound bound_idle_work_items(llvm::Function &fn, uint64_t offset);

}  // namespace kiln

#endif
