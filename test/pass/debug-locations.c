// In a module with a computed goto, codegen tracks variable locations with DBG_VALUEs, not by
// instruction referencing (DebugLocationMode.cpp): in a threaded interpreter's dispatch, which
// codegen copies into every handler, instruction referencing loses the accumulator's location
// for the rest of each copy (docs/fidelity.md, limit U). Other modules keep LLVM's default
// (their user variables have better locations with it), and so does a choice made on the
// command line.
// RUN: %clang -fplugin=%plugin -O2 -g -c %s -o %t.o -mllvm -print-after=livedebugvalues 2>&1 | FileCheck %s
// RUN: %clang -fplugin=%plugin -O2 -g -c %s -o %t.o -mllvm -print-after=livedebugvalues -mllvm -experimental-debug-variable-locations=true 2>&1 | FileCheck %s --check-prefix=DEFAULT
// RUN: %clang -fplugin=%plugin -O2 -g -c %s -o %t.o -DSWITCH_ONLY -mllvm -print-after=livedebugvalues 2>&1 | FileCheck %s --check-prefix=DEFAULT
// RUN: %clang -fplugin=%plugin -O2 -g %s %rt -DMAIN -o %t && %t
// RUN: %clang -fplugin=%plugin -O2 -g %s %rt -DMAIN -DSWITCH_ONLY -o %t.switch && %t.switch

// CHECK-LABEL: # Machine code for function run
// CHECK-NOT: DBG_INSTR_REF
// CHECK: DBG_VALUE $r{{.*}}"__crashtrail_path"
// CHECK: # End machine code for function run
// DEFAULT-LABEL: # Machine code for function run
// DEFAULT: DBG_INSTR_REF

#ifdef SWITCH_ONLY
int run(const unsigned char *code, int acc) {
  for (const unsigned char *pc = code;;) {
    switch (*pc++ & 3) {
    case 0: acc += pc[0] ? 3 : 1; break;
    case 1: if (acc > 100) acc -= 7; break;
    case 2: acc = acc * 2 + (acc & 1); break;
    default: return acc;
    }
  }
}
#else
int run(const unsigned char *code, int acc) {
  static void *ops[] = {&&op_add, &&op_sub, &&op_dbl, &&op_end};
  const unsigned char *pc = code;
#define NEXT goto *ops[*pc++ & 3]
  NEXT;
op_add:
  acc += pc[0] ? 3 : 1;
  NEXT;
op_sub:
  if (acc > 100) acc -= 7;
  NEXT;
op_dbl:
  acc = acc * 2 + (acc & 1);
  NEXT;
op_end:
  return acc;
}
#endif

#ifdef MAIN
int main(void) {
  static const unsigned char prog[] = {0, 1, 0, 2, 2, 1, 0, 2, 1, 3};
  return run(prog, 5) == 100 ? 0 : 1;
}
#endif
