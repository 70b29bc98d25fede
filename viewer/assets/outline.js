/*
 * outline.js - what the step list of one thread shows: its rows, given which loops are folded
 * and which calls are collapsed, and the moves of keyboard navigation over them.
 *
 * rows is an Int32Array: a value v >= 0 is step v, a value v < 0 is the header of fold -1-v.
 * A folded loop shows its header and then only its last iteration (the one that led on toward
 * the crash); an unfolded one shows the header and every iteration. A collapsed call shows its
 * entry step only. rowOfStep[s] is the row of step s, -1 while it is hidden.
 *
 * Invariants: the steps in rows are increasing; each fold header directly precedes the first
 * shown step of its fold. Rebuilding is linear in the steps shown (collapsed calls are jumped
 * over), so a toggle costs a few milliseconds even with a million steps.
 */
(function () {
  'use strict';

  function Outline(th) {
    this.th = th;
    this.folds = CT.detectFolds(th.key, th.n);
    this.foldOpen = new Uint8Array(this.folds.length);
    this.foldAt = new Int32Array(th.n).fill(-1);
    for (var f = 0; f < this.folds.length; f++) this.foldAt[this.folds.start[f]] = f;
    this.callEnd = CT.callEnds(th);
    this.collapsed = new Set();
    this.rowOfStep = new Int32Array(th.n);
    this.rows = new Int32Array(0);
    this.nrows = 0;
    this.build();
  }
  CT.Outline = Outline;

  Outline.prototype.lastIteration = function (f) {
    var F = this.folds;
    return F.start[f] + F.period[f] * (F.count[f] - 1);
  };

  Outline.prototype.build = function () {
    var n = this.th.n, rows = new Int32Array(n + this.folds.length), r = 0;
    var foldAt = this.foldAt, open = this.foldOpen, callEnd = this.callEnd, collapsed = this.collapsed;
    var rowOf = this.rowOfStep, headerAt = -1, i = 0;
    rowOf.fill(-1);
    while (i < n) {
      var f = foldAt[i];
      if (f >= 0 && headerAt !== i) {
        rows[r++] = -1 - f;
        if (!open[f]) i = this.lastIteration(f);
        headerAt = i;
        continue;
      }
      rowOf[i] = r;
      rows[r++] = i;
      i = collapsed.size && collapsed.has(i) ? callEnd[i] : i + 1;
    }
    this.rows = rows;
    this.nrows = r;
  };

  /* The step a row stands for: itself, or for a fold header the first step shown after it. */
  Outline.prototype.stepOfRow = function (r) {
    var v = this.rows[r];
    return v >= 0 ? v : r + 1 < this.nrows ? this.rows[r + 1] : -1;
  };

  Outline.prototype.isCall = function (s) {
    return (this.th.flags[s] & CT.STEP.ENTRY) !== 0 && this.callEnd[s] > s + 1;
  };

  Outline.prototype.toggleCall = function (s) {
    if (!this.isCall(s)) return false;
    if (this.collapsed.has(s)) this.collapsed.delete(s); else this.collapsed.add(s);
    this.build();
    return true;
  };

  Outline.prototype.toggleFold = function (f) {
    this.foldOpen[f] ^= 1;
    this.build();
  };

  Outline.prototype.setAllFolds = function (open) {
    this.foldOpen.fill(open ? 1 : 0);
    this.build();
  };

  /* Makes step s shown (unfolds its loop, expands the calls around it). True if it changed. */
  Outline.prototype.reveal = function (s) {
    if (s < 0 || this.rowOfStep[s] >= 0) return false;
    var f = CT.foldOf(this.folds, s);
    if (f >= 0 && s < this.lastIteration(f)) this.foldOpen[f] = 1;
    var self = this;
    this.collapsed.forEach(function (e) { if (e < s && s < self.callEnd[e]) self.collapsed.delete(e); });
    this.build();
    return true;
  };

  /* The next (dir 1) or previous (dir -1) shown step from step s, or -1. */
  Outline.prototype.nextShown = function (s, dir, count) {
    var r = this.rowOfStep[s], found = -1;
    for (count = count || 1; count > 0; count--) {
      r += dir;
      while (r >= 0 && r < this.nrows && this.rows[r] < 0) r += dir;
      if (r < 0 || r >= this.nrows) break;
      found = this.rows[r];
    }
    return found;
  };

  /* The line that made the call step s is in: the nearest earlier step that is shallower, or
   * the step before the entry of s's invocation. -1 at the outermost level. */
  Outline.prototype.callSite = function (s) {
    var d = this.th.depth, fl = this.th.flags;
    for (var j = s; j > 0; j--) {
      if ((fl[j] & CT.STEP.ENTRY) && d[j] <= d[s]) return j - 1;
      if (d[j - 1] < d[s]) return j - 1;
    }
    return -1;
  };

  /* The first step of the call made on step s's line, or -1 if s made no call. */
  Outline.prototype.callee = function (s) {
    var d = this.th.depth;
    return s + 1 < this.th.n && d[s + 1] > d[s] ? s + 1 : -1;
  };

  /* The next/previous step at s's depth or shallower (over calls), or -1. */
  Outline.prototype.over = function (s, dir) {
    var d = this.th.depth, ds = d[s];
    for (var j = s + dir; j >= 0 && j < this.th.n; j += dir) if (d[j] <= ds) return j;
    return -1;
  };

  /* A short description of fold f: {lo, hi, file, count, hidden}. */
  Outline.prototype.foldInfo = function (f, model) {
    var F = this.folds, th = this.th, lo = Infinity, hi = 0, s0 = F.start[f];
    for (var j = 0; j < F.period[f]; j++) {
      var l = model.locs.line[th.loc[s0 + j]];
      if (l < lo) lo = l;
      if (l > hi) hi = l;
    }
    return { lo: lo, hi: hi, file: model.locs.file[th.loc[s0]], fn: model.locs.fn[th.loc[s0]],
             count: F.count[f], period: F.period[f], hidden: F.period[f] * (F.count[f] - 1) };
  };
})();
