//===- Instrumenter.h - emit the path accumulator and the record flushes ----------------===//
#ifndef CRASHTRAIL_PASS_INSTRUMENTER_H
#define CRASHTRAIL_PASS_INSTRUMENTER_H

#include "FunctionPlan.h"
#include "Options.h"
#include "RuntimeGlue.h"

namespace crashtrail {

// Emits the instrumentation that FunctionPlan describes into P.F. The plan's blocks keep their
// identity (a logical block is the IR block that starts it); slow paths added here are not
// logical blocks.
void instrumentFunction(FunctionPlan &P, RuntimeGlue &G, const Options &O);

} // namespace crashtrail

#endif
