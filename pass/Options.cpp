//===- Options.cpp - crashtrail pass options --------------------------------===//
//
// Command-line options carry one prefix, `crashtrail-`, so `opt -help` lists them together.
//
//===----------------------------------------------------------------------------------------===//
#include "Options.h"

#include "llvm/Support/CommandLine.h"

using namespace llvm;

namespace {
cl::opt<std::string> ClMode("crashtrail-mode",
                            cl::desc("What crashtrail records: 'ring' (the path only) or "
                                     "'tables' (the path plus last/first-execution tables)"),
                            cl::init("ring"));
cl::list<std::string> ClAllow("crashtrail-allowlist",
                              cl::desc("Instrument only functions/files named in this special "
                                       "case list (fun:, src: entries)"));
cl::list<std::string> ClIgnore("crashtrail-ignorelist",
                               cl::desc("Do not instrument functions/files named in this "
                                        "special case list (fun:, src: entries)"));
cl::opt<bool> ClBlockTrace("crashtrail-block-trace",
                           cl::desc("Testing: also call __crashtrail_test_block(function, block) at "
                                    "the start of every block, an independent trace to check the "
                                    "path encoding against"),
                           cl::init(false), cl::Hidden);
cl::opt<bool> ClAccVar("crashtrail-acc-var",
                       cl::desc("Describe the path accumulator to DWARF so the crashing "
                                "frame's unfinished path can be recovered"),
                       cl::init(true));
cl::opt<bool> ClComputedRecordIds("crashtrail-computed-ids",
                              cl::desc("Compute record ids instead of storing immediates, for "
                                       "code that may span sections (basic block sections, "
                                       "machine function splitting) or be inlined after "
                                       "instrumentation (LTO). clang's -fplugin sets it from "
                                       "-fbasic-block-sections, -fsplit-machine-functions and "
                                       "-flto by itself"));
cl::opt<bool> ClInlineSlowPaths("crashtrail-inline-slow-paths",
                                cl::desc("Keep flushes' slow paths as cold blocks of their "
                                         "functions instead of out-of-line fragments in a cold "
                                         "section (for measurements)"),
                                cl::init(false), cl::Hidden);
cl::opt<bool> ClCarryAcc("crashtrail-carry-acc",
                         cl::desc("Local functions take their caller's accumulator and return "
                                  "it (experimental; CarriedAccumulator.cpp)"),
                         cl::init(false), cl::Hidden);
cl::opt<bool> ClDeferCalls("crashtrail-defer-calls",
                           cl::desc("Write no record before a direct call: the caller's path "
                                    "stays in its register and reaches the ring with its next "
                                    "record, after the callee's (the default since 2026-11-30; "
                                    "the post-mortem reorders such records: "
                                    "postmortem/postorder.c)"),
                           cl::init(true), cl::Hidden);
cl::opt<bool> ClTableMaps("crashtrail-table-maps",
                          cl::desc("Tables mode, code built for an executable: a block's table "
                                   "update is one store into a per-thread byte map, which the "
                                   "runtime folds into the table when the thread's coarse time "
                                   "moves (0: a compare with the table entry per block)"),
                          cl::init(true), cl::Hidden);
} // namespace

namespace crashtrail {

static bool parseMode(const std::string &V, RecordMode &Out) {
  if (V == "ring") Out = RecordMode::Ring;
  else if (V == "tables" || V == "ring+tables") Out = RecordMode::RingAndTables;
  else return false;
  return true;
}

Options &currentOptions() {
  static Options O;
  static bool Merged = false;
  if (!Merged) {
    Merged = true;
    if (!parseMode(ClMode, O.Mode))
      O.Errors.push_back("unknown -crashtrail-mode '" + ClMode + "' (expected ring or tables)");
    O.AllowLists.insert(O.AllowLists.end(), ClAllow.begin(), ClAllow.end());
    O.IgnoreLists.insert(O.IgnoreLists.end(), ClIgnore.begin(), ClIgnore.end());
    O.DescribeAccumulator = ClAccVar;
    O.BlockTrace = ClBlockTrace;
    O.ComputedRecordIds = ClComputedRecordIds;
    O.InlineSlowPaths = ClInlineSlowPaths;
    O.CarryAcc = ClCarryAcc;
    O.DeferCalls = ClDeferCalls;
    O.TableMaps = ClTableMaps;
  }
  return O;
}

bool applyPluginArgument(const std::string &Arg) {
  Options &O = currentOptions();
  auto Eq = Arg.find('=');
  std::string Name = Arg.substr(0, Eq), Value = Eq == std::string::npos ? "" : Arg.substr(Eq + 1);
  if (Name == "mode" && parseMode(Value, O.Mode)) return true;
  if (Name == "allowlist" && !Value.empty()) return O.AllowLists.push_back(Value), true;
  if (Name == "ignorelist" && !Value.empty()) return O.IgnoreLists.push_back(Value), true;
  if (Name == "acc-var" && (Value == "0" || Value == "1"))
    return O.DescribeAccumulator = Value == "1", true;
  if (Name == "carry-acc" && (Value == "0" || Value == "1"))
    return O.CarryAcc = Value == "1", true;
  if (Name == "defer-calls" && (Value == "0" || Value == "1"))
    return O.DeferCalls = Value == "1", true;
  if (Name == "table-maps" && (Value == "0" || Value == "1"))
    return O.TableMaps = Value == "1", true;
  O.Errors.push_back("unknown crashtrail plugin argument '" + Arg +
                     "' (expected mode=ring|tables, allowlist=FILE, ignorelist=FILE, "
                     "acc-var=0|1, carry-acc=0|1, defer-calls=0|1, "
                     "table-maps=0|1)");
  return false;
}

} // namespace crashtrail
