; dispatch-first.ll - computed-goto.c (test/pass) compiled with clang-14 -O2 -g0, values named
; by -passes=instnamer, and the dispatch block (bb27, the indirectbr) moved to right after the
; entry. Now a handler with two predecessors (bb14: from the dispatch and from bb12) comes
; after the dispatch in block order, as in Lua's luaV_execute: its successor code must still
; arrive through the phi after the dispatch's check point has split the dispatch block. (A
; regression test: the code was keyed by the dispatch's block, which the split left behind.)
target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-f80:128-n8:16:32:64-S128"
target triple = "x86_64-pc-linux-gnu"

@trap = internal global i32 0, align 4
@run.ops = internal unnamed_addr constant [5 x i8*] [i8* blockaddress(@run, %bb2), i8* blockaddress(@run, %bb8), i8* blockaddress(@run, %bb19), i8* blockaddress(@run, %bb12), i8* blockaddress(@run, %bb14)], align 16
@.str = private unnamed_addr constant [4 x i8] c"%d\0A\00", align 1

; Function Attrs: mustprogress nofree noinline norecurse nounwind uwtable willreturn
define dso_local i32 @hook(i32 noundef %arg) local_unnamed_addr #0 {
bb:
  %i = load volatile i32, i32* @trap, align 4, !tbaa !5
  %i1 = xor i32 %i, %arg
  ret i32 %i1
}

; Function Attrs: mustprogress nofree noinline norecurse nosync nounwind readnone uwtable willreturn
define dso_local i32 @callee(i32 noundef %arg) local_unnamed_addr #1 {
bb:
  %i = srem i32 %arg, 7
  %i1 = icmp eq i32 %i, 0
  %i2 = select i1 %i1, i32 -1, i32 3
  %i3 = add nsw i32 %i2, %arg
  ret i32 %i3
}

; Function Attrs: nofree norecurse nounwind uwtable
define dso_local i32 @run(i8* nocapture noundef readonly %arg) #2 {
bb:
  %i = load volatile i32, i32* @trap, align 4, !tbaa !5
  %i1 = icmp eq i32 %i, 0
  br i1 %i1, label %bb24, label %bb20

bb27:                                             ; preds = %bb24, %bb6
  %i28 = phi i8* [ %i25, %bb24 ], [ %i33, %bb6 ]
  %i29 = phi i32 [ %i26, %bb24 ], [ %i7, %bb6 ]
  %i30 = load i8, i8* %i28, align 1, !tbaa !9
  %i31 = zext i8 %i30 to i64
  %i32 = getelementptr inbounds [5 x i8*], [5 x i8*]* @run.ops, i64 0, i64 %i31
  %i33 = getelementptr inbounds i8, i8* %i28, i64 1
  %i34 = load i8*, i8** %i32, align 8, !tbaa !10
  indirectbr i8* %i34, [label %bb2, label %bb8, label %bb19, label %bb12, label %bb14]
bb2:                                              ; preds = %bb27
  %i3 = add nsw i32 %i29, 1
  %i4 = load volatile i32, i32* @trap, align 4, !tbaa !5
  %i5 = icmp eq i32 %i4, 0
  br i1 %i5, label %bb6, label %bb20

bb6:                                              ; preds = %bb14, %bb8, %bb2
  %i7 = phi i32 [ %i3, %bb2 ], [ %i16, %bb14 ], [ %i9, %bb8 ]
  br label %bb27

bb8:                                              ; preds = %bb27
  %i9 = shl nsw i32 %i29, 1
  %i10 = load volatile i32, i32* @trap, align 4, !tbaa !5
  %i11 = icmp eq i32 %i10, 0
  br i1 %i11, label %bb6, label %bb20

bb12:                                             ; preds = %bb27
  %i13 = add nsw i32 %i29, 5
  br label %bb14

bb14:                                             ; preds = %bb27, %bb12
  %i15 = phi i32 [ %i29, %bb27 ], [ %i13, %bb12 ]
  %i16 = tail call i32 @callee(i32 noundef %i15)
  %i17 = load volatile i32, i32* @trap, align 4, !tbaa !5
  %i18 = icmp eq i32 %i17, 0
  br i1 %i18, label %bb6, label %bb20

bb19:                                             ; preds = %bb27
  ret i32 %i29

bb20:                                             ; preds = %bb14, %bb8, %bb2, %bb
  %i21 = phi i32 [ 0, %bb ], [ %i3, %bb2 ], [ %i16, %bb14 ], [ %i9, %bb8 ]
  %i22 = phi i8* [ %arg, %bb ], [ %i33, %bb2 ], [ %i33, %bb14 ], [ %i33, %bb8 ]
  %i23 = tail call i32 @hook(i32 noundef %i21)
  br label %bb24

bb24:                                             ; preds = %bb20, %bb
  %i25 = phi i8* [ %i22, %bb20 ], [ %arg, %bb ]
  %i26 = phi i32 [ %i23, %bb20 ], [ 0, %bb ]
  br label %bb27

}

; Function Attrs: nofree nounwind uwtable
define dso_local i32 @main() local_unnamed_addr #3 {
bb:
  %i = alloca [64 x i8], align 16
  %i1 = getelementptr inbounds [64 x i8], [64 x i8]* %i, i64 0, i64 0
  call void @llvm.lifetime.start.p0i8(i64 64, i8* nonnull %i1) #6
  br label %bb6

bb2:                                              ; preds = %bb6
  %i3 = getelementptr inbounds [64 x i8], [64 x i8]* %i, i64 0, i64 24
  store i8 2, i8* %i3, align 8, !tbaa !9
  %i4 = call i32 @run(i8* noundef nonnull %i1)
  %i5 = tail call i32 (i8*, ...) @printf(i8* noundef nonnull dereferenceable(1) getelementptr inbounds ([4 x i8], [4 x i8]* @.str, i64 0, i64 0), i32 noundef %i4)
  call void @llvm.lifetime.end.p0i8(i64 64, i8* nonnull %i1) #6
  ret i32 0

bb6:                                              ; preds = %bb6, %bb
  %i7 = phi i64 [ 0, %bb ], [ %i18, %bb6 ]
  %i8 = phi i32 [ 0, %bb ], [ %i20, %bb6 ]
  %i9 = trunc i32 %i8 to i8
  %i10 = urem i8 %i9, 3
  %i11 = icmp eq i8 %i10, 0
  %i12 = icmp eq i8 %i10, 1
  %i13 = select i1 %i12, i8 4, i8 0
  %i14 = select i1 %i11, i8 3, i8 %i13
  %i15 = or i64 %i7, 1
  %i16 = getelementptr inbounds [64 x i8], [64 x i8]* %i, i64 0, i64 %i7
  store i8 %i14, i8* %i16, align 2, !tbaa !9
  %i17 = and i8 %i9, 1
  %i18 = add nuw nsw i64 %i7, 2
  %i19 = getelementptr inbounds [64 x i8], [64 x i8]* %i, i64 0, i64 %i15
  store i8 %i17, i8* %i19, align 1, !tbaa !9
  %i20 = add nuw nsw i32 %i8, 1
  %i21 = icmp eq i32 %i20, 12
  br i1 %i21, label %bb2, label %bb6, !llvm.loop !12
}

; Function Attrs: argmemonly nofree nosync nounwind willreturn
declare void @llvm.lifetime.start.p0i8(i64 immarg, i8* nocapture) #4

; Function Attrs: argmemonly nofree nosync nounwind willreturn
declare void @llvm.lifetime.end.p0i8(i64 immarg, i8* nocapture) #4

; Function Attrs: nofree nounwind
declare noundef i32 @printf(i8* nocapture noundef readonly, ...) local_unnamed_addr #5

attributes #0 = { mustprogress nofree noinline norecurse nounwind uwtable willreturn "frame-pointer"="none" "min-legal-vector-width"="0" "no-trapping-math"="true" "stack-protector-buffer-size"="8" "target-cpu"="x86-64" "target-features"="+cx8,+fxsr,+mmx,+sse,+sse2,+x87" "tune-cpu"="generic" }
attributes #1 = { mustprogress nofree noinline norecurse nosync nounwind readnone uwtable willreturn "frame-pointer"="none" "min-legal-vector-width"="0" "no-trapping-math"="true" "stack-protector-buffer-size"="8" "target-cpu"="x86-64" "target-features"="+cx8,+fxsr,+mmx,+sse,+sse2,+x87" "tune-cpu"="generic" }
attributes #2 = { nofree norecurse nounwind uwtable "frame-pointer"="none" "min-legal-vector-width"="0" "no-trapping-math"="true" "stack-protector-buffer-size"="8" "target-cpu"="x86-64" "target-features"="+cx8,+fxsr,+mmx,+sse,+sse2,+x87" "tune-cpu"="generic" }
attributes #3 = { nofree nounwind uwtable "frame-pointer"="none" "min-legal-vector-width"="0" "no-trapping-math"="true" "stack-protector-buffer-size"="8" "target-cpu"="x86-64" "target-features"="+cx8,+fxsr,+mmx,+sse,+sse2,+x87" "tune-cpu"="generic" }
attributes #4 = { argmemonly nofree nosync nounwind willreturn }
attributes #5 = { nofree nounwind "frame-pointer"="none" "no-trapping-math"="true" "stack-protector-buffer-size"="8" "target-cpu"="x86-64" "target-features"="+cx8,+fxsr,+mmx,+sse,+sse2,+x87" "tune-cpu"="generic" }
attributes #6 = { nounwind }

!llvm.module.flags = !{!0, !1, !2, !3}
!llvm.ident = !{!4}

!0 = !{i32 1, !"wchar_size", i32 4}
!1 = !{i32 7, !"PIC Level", i32 2}
!2 = !{i32 7, !"PIE Level", i32 2}
!3 = !{i32 7, !"uwtable", i32 1}
!4 = !{!"Debian clang version 14.0.6"}
!5 = !{!6, !6, i64 0}
!6 = !{!"int", !7, i64 0}
!7 = !{!"omnipotent char", !8, i64 0}
!8 = !{!"Simple C/C++ TBAA"}
!9 = !{!7, !7, i64 0}
!10 = !{!11, !11, i64 0}
!11 = !{!"any pointer", !7, i64 0}
!12 = distinct !{!12, !13}
!13 = !{!"llvm.loop.mustprogress"}
