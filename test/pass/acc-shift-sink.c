// Shifts of the accumulator move past the joins they meet (AccShiftSink.cpp). In a hash-chain
// walk the first test's "shift first" and the back edge's shift both reach the loop header; the
// header's phi then takes the unshifted values and shifts once, by 2, instead of once on each
// way in. The accumulator's DWARF location stays exact: at the header it is the phi shifted
// left by 1 (DW_OP_shl), and the crash-time reader evaluates that expression.
// RUN: %clang -fplugin=%plugin -O2 -g -S -emit-llvm %s -o - | FileCheck %s
// RUN: %clang -fplugin=%plugin -O2 -g -S %s -o - | FileCheck %s --check-prefix=ASM
// RUN: %clang -fplugin=%plugin -O2 -g %s %rt -DMAIN -o %t && %t

int scan(const unsigned char *w, const unsigned short *prev, unsigned cur, unsigned limit,
         int chain, unsigned char a, unsigned char b) {
  do {
    const unsigned char *m = w + cur;
    if (m[0] != a || m[1] != b) continue;
    return (int)cur;
  } while ((cur = prev[cur & 0xff]) > limit && --chain != 0);
  return -1;
}

#ifdef MAIN
int main(void) {
  unsigned char w[512];
  unsigned short prev[256];
  for (int i = 0; i < 512; i++) w[i] = (unsigned char)(i * 7);
  for (int i = 0; i < 256; i++) prev[i] = (unsigned short)(i ? i - 1 : 0);
  return scan(w, prev, 200, 2, 250, w[37], w[38]) == 37 ? 0 : 1;
}
#endif

// The entry's site init arrives unshifted too (1 for 2):
// CHECK-LABEL: define{{.*}} @scan(
// CHECK: [[H:%[0-9]+]] = phi i64 [ 1, %{{[0-9]+}} ], [ %{{[0-9]+}}, %{{[0-9]+}} ]
// CHECK: dbg{{.}}value({{(metadata )?}}i64 [[H]], {{.*}}DIExpression(DW_OP_constu, 1, DW_OP_shl, DW_OP_stack_value)
// CHECK: shl i64 [[H]], 2
// CHECK: !DILocalVariable(name: "__crashtrail_path"
// ASM-LABEL: scan:
// ASM: #DEBUG_VALUE: scan:__crashtrail_path <- [DW_OP_constu 1, DW_OP_shl, DW_OP_stack_value] $[[R:r[a-z0-9]+]]
// ASM: shlq $2, %[[R]]
