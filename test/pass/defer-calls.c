// Experimental (-fplugin-arg-crashtrail-defer-calls=1, -mllvm -crashtrail-defer-calls). A direct
// call that returns to its continuation writes no record before it: the caller's path stays in
// its register across the call and reaches the ring with the record that ends the caller's
// piece (here main's return), after the callee's records. So the continuation is no site and a
// loop whose every cycle calls now needs a check on its latch (`loop`). A call whose callee may
// be in another module (`external`, which code compiled with -fPIC may find in another
// module: it can be interposed) tests the module's chunk mask: while stamping is on (mask 0)
// it writes a stamped mark of the accumulator so far (its record id + CT_REC_DEFER_MARK, the
// test's immediate) that only cuts the ring; its continuation is no site either. Calls that
// may not come back to their continuation keep their record before them: setjmp (returns
// twice), abort (noreturn), a call through a pointer (the callee is named by its own first
// record, which must follow the caller's), and a call that hands a function to code that may
// be without records (qsort's comparator in `sort_with`: its callbacks follow the record). A function that calls setjmp defers nothing (a
// longjmp back to it would skip the frames below it, and their paths with them: `guard`).
// The dump decodes (postmortem/postorder.c puts the records back in call order).
// RUN: %clang -fplugin=%plugin -fplugin-arg-crashtrail-defer-calls=1 -O2 -fPIC -c %s -o %t.o
// RUN: %crashtrail meta %t.o | FileCheck %s --check-prefix=META
// RUN: %crashtrail meta %t.o | FileCheck %s --check-prefix=QSORT
// RUN: %clang -fplugin=%plugin -mllvm -crashtrail-defer-calls -O2 -fPIC -c %s -o %t2.o
// RUN: %crashtrail meta %t2.o | FileCheck %s --check-prefix=META
// RUN: %clang -fplugin=%plugin -fplugin-arg-crashtrail-defer-calls=0 -O2 -c %s -o %t3.o
// RUN: %crashtrail meta %t3.o | FileCheck %s --check-prefix=OFF
// Carried accumulators (carry-acc) turn deferred calls off: the post-order parse does not place
// their records.
// RUN: %clang -fplugin=%plugin -fplugin-arg-crashtrail-defer-calls=1 -fplugin-arg-crashtrail-carry-acc=1 -O2 -c %s -o %t4.o
// RUN: %crashtrail meta %t4.o | FileCheck %s --check-prefix=CARRY
// RUN: %clang -fplugin=%plugin -fplugin-arg-crashtrail-defer-calls=1 -O2 -fPIC -S %s -o - | FileCheck %s --check-prefix=ASM
// RUN: %clang -fplugin=%plugin -fplugin-arg-crashtrail-defer-calls=1 -O2 -g %s %rt -lpthread -o %t && %t 7 | FileCheck %s --check-prefix=EXE
// RUN: rm -rf %t.dumps && mkdir %t.dumps && env CRASHTRAIL_DIR=%t.dumps %t 7 dump
// RUN: %crashtrail show --all %t.dumps/*.ctd 2>&1 | FileCheck %s --check-prefix=SHOW
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>

__attribute__((noinline)) static int local(int x) { return x > 3 ? x * 3 : x + 1; }
__attribute__((noinline)) int external(int x) { return x & 1 ? x : -x; }
int (*volatile fp)(int) = local;
static jmp_buf env;
int crashtrail_dump(const char *reason); /* crashtrail/crashtrail.h */

__attribute__((noinline)) static int guard(int x) {
  if (setjmp(env)) return -1;
  return local(x);
}

__attribute__((noinline)) static int loop(int n) {
  int s = 0;
  for (int i = 0; i < n; i++) s += local(i);
  return s;
}

static int by_value(const void *a, const void *b) { return *(const int *)a - *(const int *)b; }
__attribute__((noinline)) void sort_with(int *v, int n) {
  qsort(v, n, sizeof *v, by_value);
  if (n > 2) v[0] = local(n);
}

int main(int argc, char **argv) {
  int x = argc > 1 ? atoi(argv[1]) : 0;
  if (guard(x) < 0) return 1;
  int s = loop(x) + external(x) + fp(x);
  if (s == 12345) abort();
  printf("%d\n", s);
  return argc > 2 ? crashtrail_dump("defer-calls") != 0 : 0;
}

// META-LABEL: function main
// META-DAG: deferred-call guard
// META-DAG: deferred-call loop
// META-DAG: stamped deferred-call external -> [[EXT:[0-9]+]];
// META-NOT: site {{[0-9]+}}: block [[EXT]] (
// META-DAG: call (indirect)
// META-DAG: call abort
// META-LABEL: function guard
// META-NOT: deferred-call
// META: call _setjmp
// META-NOT: deferred-call
// META: call local
// META-NOT: deferred-call
// META-LABEL: function loop
// META-DAG: loop deferred-call local -> [[LATCH:[0-9]+]];
// META-DAG: block [[LATCH]] check {{[0-9]+}} branch

// QSORT-LABEL: function sort_with
// QSORT-NOT: deferred-call qsort
// QSORT: call qsort
// QSORT: deferred-call local

// Without the option: records before the calls, no check in the loop (its call restarts the
// record every time round).
// CARRY-NOT: deferred-call
// CARRY: function {{.*}}carries its caller's accumulator
// CARRY-NOT: deferred-call
// OFF-LABEL: function main
// OFF-NOT: deferred-call
// OFF-LABEL: function loop
// OFF-NOT: check
// OFF: call local

// The deferred call to external: the stamping test, whose immediate is the mark's record id,
// and the call, no record between; the mark's write is a stamped flush's fragment.
// ASM-LABEL: main:
// ASM: testl $(__crashtrail_module-main{{[.a-z]*}})+1073741824, __crashtrail_module+4(%rip)
// ASM-NEXT: .Ltmp
// ASM-NEXT: je [[FRAG:.Ltmp[0-9]+]]
// ASM-NOT: __crashtrail_ring_pos
// ASM: [[FRAG]]:
// ASM-NEXT: leaq -128(%rsp), %rsp
// ASM-NEXT: pushq
// ASM-NEXT: callq __crashtrail_stamped_write_here3
// ASM-NOT: __crashtrail_ring_pos
// ASM: callq external

// EXE: 83

// Every call in its place, as the ring build shows it: guard and its callee, loop's seven
// calls of local, external, the call through the pointer, then main's end; no warning.
// SHOW: main {{.*}}int x = argc
// SHOW: main {{.*}}if (guard(x) < 0)
// SHOW-NEXT: guard {{.*}}if (setjmp(env))
// SHOW-NEXT: guard {{.*}}return local(x);
// SHOW-NEXT: {{ }}local {{ *}}defer-calls.c:
// SHOW-NEXT: {{ }}guard {{ *}}defer-calls.c:
// SHOW-NEXT: main {{.*}}if (guard(x) < 0)
// SHOW-NEXT: main {{.*}}int s = loop(x)
// SHOW-NEXT: loop {{.*}}s += local(i);
// SHOW-NEXT: {{ }}local {{ *}}defer-calls.c:
// SHOW-NEXT: loop {{.*}}s += local(i);
// SHOW-NEXT: {{ }}local {{ *}}defer-calls.c:
// SHOW-NEXT: loop {{.*}}s += local(i);
// SHOW-NEXT: {{ }}local {{ *}}defer-calls.c:
// SHOW-NEXT: loop {{.*}}s += local(i);
// SHOW-NEXT: {{ }}local {{ *}}defer-calls.c:
// SHOW-NEXT: loop {{.*}}s += local(i);
// SHOW-NEXT: {{ }}local {{ *}}defer-calls.c:
// SHOW-NEXT: loop {{.*}}s += local(i);
// SHOW-NEXT: {{ }}local {{ *}}defer-calls.c:
// SHOW-NEXT: loop {{.*}}s += local(i);
// SHOW-NEXT: {{ }}local {{ *}}defer-calls.c:
// SHOW-NEXT: loop {{.*}}s += local(i);
// SHOW-NEXT: loop {{.*}}return s;
// SHOW-NEXT: main {{.*}}int s = loop(x)
// SHOW-NEXT: {{ }}external {{ *}}defer-calls.c:
// SHOW-NEXT: main {{.*}}int s = loop(x)
// SHOW-NEXT: {{ }}local {{ *}}defer-calls.c:
// SHOW-NEXT: main {{.*}}int s = loop(x)
// SHOW-NEXT: main {{.*}}if (s == 12345)
// SHOW-NOT: warning
