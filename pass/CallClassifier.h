//===- CallClassifier.h - which calls end a record, which transitions are stamped -------===//
//
// A call "records" when the callee may run instrumented code (or never return): the caller
// must flush its accumulator first, so that the callee's records follow the caller's in the
// ring (the blocking witness of Ball and Larus's qpt). Calls that cannot run instrumented
// code are free: intrinsics, inline assembly, crashtrail's own runtime, and C library
// functions known not to call back into the program.
//
// A record is stamped when control may leave the module right after it: before a call whose
// callee may live in another module, and at a return from a function that may have been
// entered from another module. Stamps order the rings of one thread (docs/design.md).
//
//===----------------------------------------------------------------------------------------===//
#ifndef CRASHTRAIL_PASS_CALLCLASSIFIER_H
#define CRASHTRAIL_PASS_CALLCLASSIFIER_H

#include "llvm/Analysis/TargetLibraryInfo.h"
#include "llvm/IR/InstrTypes.h"
#include "llvm/IR/Instructions.h"

namespace crashtrail {

// True if the call must be preceded by a flush (and followed by a new record).
bool isRecordingCall(const llvm::CallBase &CB, const llvm::TargetLibraryInfo &TLI);

// True if the callee may be defined in another loaded module (not a hidden one: a hidden
// symbol resolves within its module).
bool calleeMayBeForeign(const llvm::CallBase &CB);

// True if F may be called from another module (so its returns are stamped).
bool mayBeEnteredFromOutside(const llvm::Function &F);

// True if control may come back from the call by another way than its return: setjmp (and
// every returns_twice function), and the context switches of coroutine libraries
// (swapcontext, setcontext; Boost.Context's jump_fcontext, ontop_fcontext), after which the
// thread runs another context's frames and comes back when one switches back. The frame's
// path up to the call must be in the ring before it (no elided flush), and the decoder cannot
// predict its arrival after it (the flush reached from there is always written).
bool mayComeBackElsewhere(const llvm::CallBase &CB);

// True if, with defer-calls, no record need be written before the call: a direct call that
// returns to its continuation and nowhere else (not musttail, not noreturn, not setjmp or a
// context switch, not a carrying call), so the caller's path can stay in its register across
// it and the decoder can place the callee's records, which reach the ring first, by the callee
// the walk passes. Calls in tail position are not split (the caller decides that).
bool mayDeferRecord(const llvm::CallInst &CI);

// A call marked `tail` whose result (or nothing) is returned right after it, which codegen
// may turn into a jump. If codegen keeps a call after all (arguments on the stack, say), the
// frame returns at once when the callee does: the timeline is the same, and only a crash
// inside the callee sees the frame in its unwound stack.
bool isTailPositionCall(const llvm::CallInst &CI);

// The name shown for the callee in summaries; empty for an indirect call.
std::string calleeName(const llvm::CallBase &CB);

} // namespace crashtrail

#endif
