// The accumulator is described to DWARF as an artificial variable, also in a
// -gline-tables-only build (whose unit is upgraded so the variable is emitted), so the
// post-mortem can read the crashing frame's unfinished path.
// RUN: %clang -fplugin=%plugin -O2 -gline-tables-only -c %s -o %t.o
// RUN: llvm-dwarfdump --name=__crashtrail_path %t.o | FileCheck %s
// RUN: %clang -fplugin=%plugin -fplugin-arg-crashtrail-acc-var=0 -O2 -g -c %s -o %t2.o
// RUN: llvm-dwarfdump --name=__crashtrail_path %t2.o | FileCheck %s --check-prefix=OFF

int work(int *v, int n) {
  int s = 0;
  for (int i = 0; i < n; i++)
    s += v[i] > 0 ? v[i] : -v[i];
  return s;
}

// CHECK: DW_TAG_variable
// CHECK: DW_AT_location
// CHECK: DW_AT_name ("__crashtrail_path")
// CHECK: DW_AT_artificial (true)
// OFF-NOT: __crashtrail_path
