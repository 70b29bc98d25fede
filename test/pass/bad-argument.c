// A wrong plugin argument is a compiler error that names the argument, not a silent default.
// RUN: not %clang -fplugin=%plugin -fplugin-arg-crashtrail-mode=everything -c %s -o %t.o 2>&1 | FileCheck %s
// CHECK: error: crashtrail: unknown crashtrail plugin argument 'mode=everything'
int f(void) { return 0; }
