; A musttail call must stay right before its ret: it is flushed before and has no continuation.
; RUN: %opt -load-pass-plugin=%optplugin -passes=crashtrail -S %s | FileCheck %s
define i32 @callee(i32 %x) {
  ret i32 %x
}
define i32 @caller(i32 %x) {
  %r = musttail call i32 @callee(i32 %x)
  ret i32 %r
}
; CHECK-LABEL: define i32 @caller(
; The record (one asm statement, its slow path out of line), then the call:
; CHECK: load {{.*}} @__crashtrail_ring_pos
; CHECK-NEXT: call {{.*}} asm sideeffect {{.*}}__crashtrail_stamped_write_here3
; CHECK-NEXT: musttail call i32 @callee
; CHECK-NEXT: ret i32
