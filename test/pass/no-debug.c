// Code without debug information is still recorded: no lines, but every block is known.
// RUN: %clang -fplugin=%plugin -fplugin-arg-crashtrail-defer-calls=0 -O1 -g0 -c %s -o %t.o && %crashtrail meta %t.o | FileCheck %s
int nodebug(int x) { return x > 1 ? nodebug(x - 1) + 1 : 0; }
// CHECK: function nodebug (nodebug) at 0x0, :0, site bits {{[0-9]+}}, flags 3
