// Allow and ignore lists use clang's special case list format (fun:, src:).
// RUN: echo 'fun:keep*' > %t.allow
// RUN: %clang -fplugin=%plugin -fplugin-arg-crashtrail-allowlist=%t.allow -O1 -c %s -o %t.o
// RUN: %crashtrail meta %t.o | FileCheck %s --check-prefix=ALLOW
// RUN: echo 'fun:keep_one' > %t.ignore
// RUN: %clang -fplugin=%plugin -fplugin-arg-crashtrail-ignorelist=%t.ignore -O1 -c %s -o %t.o
// RUN: %crashtrail meta %t.o | FileCheck %s --check-prefix=IGNORE

int keep_one(int x) { return x ? x + 1 : 0; }
int drop_one(int x) { return x ? x - 1 : 0; }

// ALLOW: 1 units, 1 functions
// ALLOW: function keep_one
// IGNORE: 1 units, 1 functions
// IGNORE: function drop_one
