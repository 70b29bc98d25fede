//===- DebugLocationMode.cpp - which codegen tracks variable locations -------------------===//
//
// LLVM 14 on x86-64 tracks variable locations by instruction referencing (DBG_INSTR_REF, then
// InstrRefBasedLDV) by default. In a threaded interpreter's dispatch, which codegen
// tail-duplicates into every handler, that loses the accumulator's location for the rest of each
// copy (the references to the dispatch's values come out as $noreg there). The older
// DBG_VALUE-based tracking keeps the register: on Lua's lvm.c at -O2 the accumulator's location
// list covers 91.5% of luaV_execute's bytes against 85.8%, and that file's user variables gain
// too (61.7% of their scopes covered against 58.9%), for the same code. It is not better
// everywhere: on the SQLite amalgamation (a switch, no computed goto) the accumulator gains
// little (94.1% to 94.4%) and user variables lose much (69.3% to 58.1%). So the pass switches
// only modules that have a computed goto (docs/fidelity.md, limit U).
//
// The switch is the cl::opt codegen reads per function (debuginfoShouldUseDebugInstrRef), set
// through the option registry: no LLVM header declares it, and it exists under the same name
// in LLVM 14 and 19. A value given on the command line is left alone.
//
//===----------------------------------------------------------------------------------------===//
#include "DebugLocationMode.h"

#include "llvm/IR/Function.h"
#include "llvm/IR/Instructions.h"
#include "llvm/Support/CommandLine.h"

using namespace llvm;

namespace crashtrail {

bool hasComputedGoto(const Function &F) {
  for (const BasicBlock &BB : F)
    if (isa<IndirectBrInst>(BB.getTerminator())) return true;
  return false;
}

bool preferDbgValueLocations() {
  static const char Name[] = "experimental-debug-variable-locations";
  StringMap<cl::Option *> &Opts = cl::getRegisteredOptions();
  auto It = Opts.find(Name);
  if (It == Opts.end() || It->second->getNumOccurrences() > 0) return false;
  // addOccurrence parses the value as the command line would and counts as one, so it stays
  // for the rest of the process: one module in clang -cc1; opt given several would keep it.
  return !It->second->addOccurrence(0, Name, "false");
}

} // namespace crashtrail
