//===- TableSlots.h - which blocks share a last/first table entry -----------------------===//
#ifndef CRASHTRAIL_PASS_TABLESLOTS_H
#define CRASHTRAIL_PASS_TABLESLOTS_H

#include "FunctionPlan.h"

namespace crashtrail {

// Sets TableEntry (relative to the function's TableBase) for every block that needs one and
// TableUpdate for the blocks that write an entry; counts P.NumTableEntries. Call it right after
// buildPlan, while the function's IR blocks are still the plan's blocks.
void assignTableEntries(FunctionPlan &P);

} // namespace crashtrail

#endif
