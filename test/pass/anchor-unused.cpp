// A function the pass plans but writes no record in (an abstract class's deleting destructor,
// whose body clang makes a trap) is still named in the metadata by its local alias (a
// `.crashtrail` anchor, for a symbol another module could preempt). Nothing in the IR uses that
// alias, so it must be kept alive explicitly (llvm.compiler.used): otherwise it was dropped
// before code generation and the object, and every shared library linked from it, had an
// undefined reference to it (seen building jsoncpp 1.9.5 as a shared library).
// RUN: %clangxx -fplugin=%plugin -O2 -g -fPIC -S -emit-llvm %s -o - | FileCheck %s
// RUN: %clangxx -fplugin=%plugin -O2 -g -fPIC -c %s -o %t.o
// RUN: llvm-nm %t.o | FileCheck %s --check-prefix=SYMS
// RUN: %crashtrail meta %t.o | FileCheck %s --check-prefix=META
struct Writer {
  virtual ~Writer();
  virtual int write(int) = 0;
};
Writer::~Writer() = default;

struct Plain : Writer {
  int write(int x) override { return x > 3 ? x * 2 : x; }
};

int use(Writer &w, int x) { return w.write(x); }

// CHECK-DAG: @_ZN6WriterD0Ev.crashtrail = internal alias
// CHECK-DAG: @llvm.compiler.used = {{.*}}@_ZN6WriterD0Ev.crashtrail
// SYMS-NOT: U {{.*}}.crashtrail
// SYMS: t _ZN6WriterD0Ev.crashtrail
// SYMS-NOT: U {{.*}}.crashtrail
// META: function _ZN6WriterD0Ev (Writer::~Writer())
