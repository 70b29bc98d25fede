// Loading the plugin twice (-fplugin and -fpass-plugin) instruments once.
// RUN: %clang -fplugin=%plugin -fpass-plugin=%plugin -O1 -S -emit-llvm %s -o - | FileCheck %s
int f(int x) { return x ? x + 1 : 2; }
// CHECK-LABEL: define{{.*}} @f(
// CHECK-COUNT-1: call{{.*}} asm sideeffect {{.*}}callq __crashtrail_{{write|stamped_write}}_here
// CHECK-NOT: call{{.*}} asm sideeffect {{.*}}callq __crashtrail_{{write|stamped_write}}_here
// CHECK: ret i32
// CHECK: define{{.*}} @__crashtrail_module_ctor
// CHECK-NOT: define{{.*}} @__crashtrail_module_ctor
