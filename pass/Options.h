//===- Options.h - crashtrail pass options ----------------------------------===//
//
// All settings of the pass in one struct. They come from three places, later ones winning:
// defaults, `-mllvm -crashtrail-*` command-line options (for -fpass-plugin and opt), and
// `-fplugin-arg-crashtrail-NAME=VALUE` (parsed by the clang frontend plugin, which runs in the
// same process before code generation).
//
//===----------------------------------------------------------------------------------------===//
#ifndef CRASHTRAIL_PASS_OPTIONS_H
#define CRASHTRAIL_PASS_OPTIONS_H

#include <string>
#include <vector>

namespace crashtrail {

enum class RecordMode { Ring, RingAndTables };

struct Options {
  RecordMode Mode = RecordMode::Ring;
  std::vector<std::string> AllowLists;  // instrument only what these lists name
  std::vector<std::string> IgnoreLists; // never instrument what these lists name
  bool DescribeAccumulator = true;      // DWARF variable for the unfinished path
  bool BlockTrace = false;              // test only: also call __crashtrail_test_block per block
  bool ComputedRecordIds = false;       // record ids computed, not immediates: a function's
                                        // code may span sections (basic block sections,
                                        // machine function splitting) or be inlined after
                                        // instrumentation (LTO); see RuntimeGlue.cpp
  bool InlineSlowPaths = false;         // slow paths as cold blocks in the function (the
                                        // way before SlowPathAsm.cpp; always so with
                                        // computed record ids)
  bool CarryAcc = false;                // local functions carry their caller's accumulator
                                        // (CarriedAccumulator.cpp)
  bool DeferCalls = true;               // no record before a direct call: the caller's path
                                        // reaches the ring after its callee's (post-order);
                                        // see PlanBuilder.cpp
  bool TableMaps = true;                // tables mode, code built for an executable: a block
                                        // marks a per-thread byte map, folded into the table
                                        // by the runtime (runtime/table_maps.c)
  std::vector<std::string> Errors;      // bad plugin arguments, reported as diagnostics

  // Whether calls are deferred: not with carried accumulators, whose records the post-order
  // parse was never made to place (roundtrip.carried with both: records that fit no call).
  bool defersCalls() const { return DeferCalls && !CarryAcc; }
};

// The effective options for this compilation (command line merged with plugin arguments).
Options &currentOptions();

// Applies one `-fplugin-arg-crashtrail-` argument; false (and an entry in Errors) if unknown.
bool applyPluginArgument(const std::string &Arg);

} // namespace crashtrail

#endif
