// Every located instruction of plan block B carries DWARF discriminator B + 1, so the line
// table names the block each machine instruction came from (the post-mortem orders a block's
// lines by those rows: postmortem/line_order.c). The function is flagged CT_FN_BLOCK_DISC
// (16). A unit built for sample profiling keeps its own discriminators and gets no flag.
// RUN: %clang -fplugin=%plugin -O2 -g -S -emit-llvm %s -o - | FileCheck %s
// RUN: %clang -fplugin=%plugin -O2 -g -c %s -o %t.o
// RUN: %crashtrail meta %t.o | FileCheck %s --check-prefix=META
// RUN: llvm-dwarfdump --debug-line %t.o | FileCheck %s --check-prefix=LINES
// RUN: %clang -fplugin=%plugin -O2 -g -fdebug-info-for-profiling -c %s -o %t.prof.o
// RUN: %crashtrail meta %t.prof.o | FileCheck %s --check-prefix=PROF
// RUN: %clang -fplugin=%plugin -O0 -c %s -o %t.nodebug.o
// RUN: %crashtrail meta %t.nodebug.o | FileCheck %s --check-prefix=NODEBUG

// CHECK-LABEL: define {{.*}} @classify(
// CHECK: ret i32 {{.*}}, !dbg [[RET:![0-9]+]]
// CHECK-DAG: !DILexicalBlockFile({{.*}}discriminator: 1)
// CHECK-DAG: !DILexicalBlockFile({{.*}}discriminator: 2)
// CHECK-DAG: !DILexicalBlockFile({{.*}}discriminator: 3)
// CHECK-DAG: [[RET]] = !DILocation(line: {{[0-9]+}}, column: {{[0-9]+}}, scope: [[RETSCOPE:![0-9]+]])
// CHECK-DAG: [[RETSCOPE]] = !DILexicalBlockFile({{.*}}discriminator: {{[1-9]}}

// META: function classify {{.*}} flags {{(48|49|52|53|56|57|60|61)}}{{$}}
// LINES: Discriminator
// LINES: {{ +[0-9]+ +[0-9]+ +[0-9]+ +[0-9]+ +[1-9] }}
// PROF: function classify {{.*}} flags {{(32|33|36|37|40|41|44|45)}}{{$}}
// NODEBUG: function classify {{.*}} flags {{(34|35|38|39|42|43|46|47)}}{{$}}

int classify(int *v, int n) {
  int pos = 0, neg = 0;
  for (int i = 0; i < n; i++) {
    if (v[i] > 0)
      pos += v[i];
    else
      neg -= v[i];
  }
  return pos * 3 + neg;
}
