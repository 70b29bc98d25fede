// The accumulator's constants are folded through a join only while the join holds few of
// its phis: each folded operation is a phi of the join's block, a register live from the
// join to its use. Unbounded, the two inlined lookups below (the shape of Lua's lua_compare,
// index2value twice) kept four constants live across the second lookup, loaded on every path
// into the join, and a callee-saved register was pushed and popped on every call.
// RUN: %clang -fplugin=%plugin -O2 -S %s -o - | FileCheck %s
// RUN: %clang -fplugin=%plugin -O2 -c %s -o %t.o && %crashtrail meta %t.o | FileCheck %s --check-prefix=META
typedef struct { long v; unsigned char tt; } TValue;
typedef struct { TValue *top; TValue *func; TValue nil; TValue reg; } State;
int lessthan(State *L, const TValue *a, const TValue *b);
int equal(State *L, const TValue *a, const TValue *b);

static inline TValue *index2value(State *L, int idx) {
  if (idx > 0) {
    TValue *o = L->func + idx;
    return o >= L->top ? &L->nil : o;
  } else if (idx > -1000000) {
    return L->top + idx;
  } else if (idx == -1000000) {
    return &L->reg;
  }
  return &L->nil;
}

int compare(State *L, int i1, int i2, int op) {
  const TValue *a = index2value(L, i1);
  const TValue *b = index2value(L, i2);
  if ((a->tt & 15) == 0 || (b->tt & 15) == 0) return 0;
  if (op == 0) return equal(L, a, b);
  if (op == 1) return lessthan(L, a, b);
  return 0;
}

// CHECK-LABEL: compare:
// CHECK-NOT: pushq {{%rbx|%rbp|%r12|%r13|%r14|%r15}}
// CHECK: .cfi_endproc
// Still instrumented: every branch has its code.
// META-LABEL: function compare
// META: block 0 branch
