//===- SlowPathAsm.h - flushes whose slow path is out of line, in a cold section -----------===//
//
// See SlowPathAsm.cpp.
//
//===----------------------------------------------------------------------------------------===//
#ifndef CRASHTRAIL_PASS_SLOWPATHASM_H
#define CRASHTRAIL_PASS_SLOWPATHASM_H

#include "llvm/IR/IRBuilder.h"

namespace crashtrail {

struct RuntimeGlue;
struct Options;

// Whether a symbol name can stand in assembly unquoted (letters, digits, '_', '.').
bool plainAsmName(llvm::StringRef S);

// The section a function's cold fragments go to (in the function's comdat group, if any), as
// the flags part of a .pushsection; empty if the function cannot have one (its name would
// need quoting; record ids are computed, which fragments cannot read; the options ask for
// inline slow paths), and its flushes then keep their slow paths inline.
std::string coldFragmentSection(llvm::Function &F, const Options &O);

// One flush as a single inline assembly statement: the chunk test, the record's two stores
// and the position's update inline; the slow path a fragment in Section that calls the
// module's trampoline. Inserted before B's insertion point. Pos is the loaded ring position.
void emitOutOfLineFlush(llvm::IRBuilder<> &B, RuntimeGlue &G, const std::string &Section,
                        llvm::Value *Pos, llvm::Value *Acc, bool Stamped,
                        llvm::GlobalValue *Anchor);

// A deferred call's cut while stamping is on (docs/design.md, "Deferred calls"): inline only
// `testl $ID, MASK(%rip); je 1f` (ID: the function's record id plus CT_REC_DEFER_MARK); the
// fragment in Section, a stamped flush's, writes a stamped mark record (ID, the accumulator so
// far) through the module's stamped trampoline. The accumulator is unchanged: the record goes
// on across the call.
void emitDeferMark(llvm::IRBuilder<> &B, RuntimeGlue &G, const std::string &Section,
                   llvm::Value *Acc, llvm::GlobalValue *Anchor);

} // namespace crashtrail

#endif
