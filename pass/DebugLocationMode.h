//===- DebugLocationMode.h - which codegen tracks variable locations ---------------------===//
//
// The crashing frame's unfinished path is read back through the DWARF location list of the
// artificial variable __crashtrail_path (docs/design.md, "The unfinished path"); the fewer
// instructions that list leaves out, the fewer crashes lose their last steps.
//
//===----------------------------------------------------------------------------------------===//
#ifndef CRASHTRAIL_DEBUGLOCATIONMODE_H
#define CRASHTRAIL_DEBUGLOCATIONMODE_H

namespace llvm {
class Function;
}

namespace crashtrail {

// True if F has an indirectbr: a threaded interpreter's dispatch, the case that needs
// preferDbgValueLocations.
bool hasComputedGoto(const llvm::Function &F);

// Has codegen track variable locations with DBG_VALUEs (LiveDebugValues' VarLocBasedImpl)
// instead of instruction referencing, unless the command line chose
// (-mllvm -experimental-debug-variable-locations=...). Takes effect for the functions codegen
// has not selected yet, which is all of them when called from the pass. Returns true if it
// changed the setting.
bool preferDbgValueLocations();

} // namespace crashtrail

#endif
