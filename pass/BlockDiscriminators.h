//===- BlockDiscriminators.h - name each planned block in the line table ----------------===//
#ifndef CRASHTRAIL_BLOCKDISCRIMINATORS_H
#define CRASHTRAIL_BLOCKDISCRIMINATORS_H

#include "FunctionPlan.h"

namespace crashtrail {

// Gives every located instruction of plan block I the DWARF discriminator I + 1, so the line
// table says which machine instructions came from which block, in the order the machine runs
// them. Returns false (and changes nothing) where discriminators already mean something: a
// unit built for sample profiling (-fdebug-info-for-profiling), or a function that has them.
bool tagBlockDiscriminators(FunctionPlan &P);

// After instrumentation: or's CT_DISC_COLD into the discriminators of the code the instrumenter
// put behind branches weighted `Unlikely` (its slow paths), so the post-mortem does not take
// their rows, laid out anywhere, for the order of their block's lines.
void markColdDiscriminators(FunctionPlan &P, const llvm::MDNode *Unlikely);

} // namespace crashtrail

#endif
