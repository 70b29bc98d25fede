//===- ModuleExits.h - whose frames may be entered from, or return to, other code -------===//
//
// The decoder follows frames from site to site; it cannot see control arrive from code that
// writes no records, nor, without a stamp, see control leave for another module. A function's
// linkage alone says where it may be called from; this looks at the translation unit's calls:
//  - entered from outside: external linkage or address taken (mayBeEnteredFromOutside), or a
//    local function called by a function of this unit that is not instrumented (a
//    no_instrument_function caller, one left out by an ignore list): its entry record is never
//    elided, and its returns are stamped;
//  - exits to outside: entered from outside, or tail-called by a function that exits to
//    outside (to a fixpoint): the callee's frame takes the caller's place, so its return goes
//    where the caller's would have gone, and is stamped;
//  - returns to code without records: the same, but of the functions with external linkage
//    only those another module can call (not hidden: Lua's LUAI_FUNC, whose callers are this
//    module's instrumented code) or whose address is taken: after a call, such a function's
//    way out is always written (PlanBuilder's classifyFlushes says why);
//  - constructors: listed in llvm.global_ctors, run by the loader before main (or inside
//    dlopen), which the metadata says (CT_FN_CTOR) so that the post-mortem does not take them
//    for callbacks of main's calls.
// Over-approximating any of them only costs records; missing a case loses order or blocks.
//
//===----------------------------------------------------------------------------------------===//
#ifndef CRASHTRAIL_PASS_MODULEEXITS_H
#define CRASHTRAIL_PASS_MODULEEXITS_H

#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/IR/Function.h"

#include <vector>

namespace crashtrail {

struct ModuleExits {
  llvm::SmallPtrSet<const llvm::Function *, 8> EnteredFromOutside, ExitsToOutside,
      ReturnsToUninstrumented, Constructors,
      // defined here but not instrumented (no_instrument_function, an ignore list): code
      // without records whose callbacks, with deferred calls, would look like those of the
      // deferred call before it, so calls to it are not deferred
      Uninstrumented;
};

// Instrumented: the functions that will be instrumented (the others run no records).
ModuleExits findModuleExits(llvm::Module &M, const std::vector<llvm::Function *> &Instrumented);

} // namespace crashtrail

#endif
