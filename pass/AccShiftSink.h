//===- AccShiftSink.h - the accumulator's shifts moved past the joins they meet ---------===//
#ifndef CRASHTRAIL_PASS_ACCSHIFTSINK_H
#define CRASHTRAIL_PASS_ACCSHIFTSINK_H

#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/IR/Function.h"
#include "llvm/IR/Instructions.h"

namespace crashtrail {

// Where every value reaching a phi of the accumulator is shifted left by the same c (a
// branch's "shift first" on each incoming edge), the phi takes the unshifted values and its
// users shift by c more: `phi [x << 1, %a], [y << 1, %b]; shl %p, 6` becomes
// `phi [x, %a], [y, %b]; shl %p', 7`, one instruction fewer on each way in. Compares with a
// constant (check points, elidable flushes) are rewritten exactly; users that need the value
// itself get `shl %p', c` of their own, only in cold blocks (see AccShiftSink.cpp).
// AccPhis is updated. Returns the phis rewritten.
unsigned sinkAccumulatorShifts(llvm::Function &F, llvm::SmallPtrSetImpl<llvm::PHINode *> &AccPhis);

} // namespace crashtrail

#endif
