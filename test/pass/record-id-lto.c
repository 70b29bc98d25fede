// Under LTO an instrumented function is inlined into others at link time (full LTO) or imported
// into other modules (thin LTO): its records' id must not be an immediate relative to its own
// symbol there (the assembler could not resolve it: "Cannot represent a difference across
// sections", "symbol can not be undefined in a subtraction expression"). With -flto the plugin
// computes the id, and the inlined copies still name the function they came from.
// REQUIRES: lld
// RUN: %clang -fplugin=%plugin -O2 -flto=full -S -emit-llvm %s -o - | FileCheck %s --check-prefix=IR
// RUN: %clang -fplugin=%plugin -O2 -g -flto=full -DMAIN -c %s -o %t.fm.o
// RUN: %clang -fplugin=%plugin -O2 -g -flto=full -c %s -o %t.fh.o
// RUN: %clang -flto=full %lld %t.fm.o %t.fh.o %rt -o %t.full
// RUN: rm -rf %t.fd && mkdir %t.fd && env CRASHTRAIL_DIR=%t.fd %t.full
// RUN: %crashtrail show %t.fd/*.ctd | FileCheck %s --check-prefix=SHOW
// RUN: %clang -fplugin=%plugin -O2 -g -flto=thin -DMAIN -c %s -o %t.tm.o
// RUN: %clang -fplugin=%plugin -O2 -g -flto=thin -c %s -o %t.th.o
// RUN: %clang -flto=thin %lld %t.tm.o %t.th.o %rt -o %t.thin
// RUN: rm -rf %t.td && mkdir %t.td && env CRASHTRAIL_DIR=%t.td %t.thin
// RUN: %crashtrail show %t.td/*.ctd | FileCheck %s --check-prefix=SHOW

int helper(int x);
int crashtrail_dump(const char *reason); /* crashtrail/crashtrail.h */

#ifdef MAIN
int main(int argc, char **argv) {
  int s = 0;
  for (int i = 0; i < argc * 10; i++) s += helper(i);
  return crashtrail_dump("lto") == 0 && s > 0 ? 0 : 1;
}
#else
int helper(int x) {
  if (x & 1) return x * 3;
  return x / 2;
}
#endif

// IR-LABEL: define{{.*}} i32 @helper(
// IR-NOT: asm {{.*}}movq
// IR: sub {{\(?}}i64 ptrtoint{{.*}}@__crashtrail_module
// IR: ret i32

// SHOW: helper {{.*}}record-id-lto.c
// SHOW: main {{.*}}record-id-lto.c
