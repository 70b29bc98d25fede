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
; The record's fast path, then the call in the block both paths join:
; CHECK: store {{.*}} @__crashtrail_ring_pos
; CHECK-NEXT: br label %[[CALL:[0-9]+]]
; CHECK: [[CALL]]:
; CHECK-NEXT: musttail call i32 @callee
; CHECK-NEXT: ret i32
