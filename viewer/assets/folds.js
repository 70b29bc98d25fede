/*
 * folds.js - the structure of a thread's steps: repeated loop iterations and function calls.
 *
 * Loop folding (the same rule as `crashtrail show`, postmortem/out_text.c): at each position i
 * the shortest period p (1..MAX_PERIOD steps) whose body repeats at least MIN_REPEATS times in
 * a row is one fold of k repetitions; detection then resumes after the fold. Two steps are the
 * same when they ran the same source line of the same function (model.js `key`). Only periods
 * whose next two occurrences start with the same line are checked in full, and a found fold
 * is skipped whole, so the work is near-linear: at most MAX_PERIOD cheap probes per step that
 * starts no fold, and one comparison per step inside a fold.
 *
 * Calls: a step with the ENTRY flag starts an invocation at its depth d; the invocation ends
 * before the first later step that is shallower than d, or is another entry at depth d (the
 * next call from the same caller). One pass with a stack: linear.
 */
(function () {
  'use strict';
  var MAX_PERIOD = 64, MIN_REPEATS = 3;

  /* How many times key[i, i+p) repeats from i (at least 1). */
  function repeats(key, n, i, p) {
    var k = 1;
    while (i + (k + 1) * p <= n) {
      var base = i + k * p, j = 0;
      while (j < p && key[i + j] === key[base + j]) j++;
      if (j < p) break;
      k++;
    }
    return k;
  }

  /* The folds of a thread: {start, period, count} as Int32Arrays, ordered by start, disjoint. */
  CT.detectFolds = function (key, n) {
    var starts = [], periods = [], counts = [];
    var i = 0;
    while (i < n) {
      var found = 0;
      for (var p = 1; p <= MAX_PERIOD && i + MIN_REPEATS * p <= n; p++) {
        if (key[i + p] !== key[i] || key[i + 2 * p] !== key[i]) continue;
        var k = repeats(key, n, i, p);
        if (k >= MIN_REPEATS) {
          starts.push(i); periods.push(p); counts.push(k);
          i += p * k;
          found = 1;
          break;
        }
      }
      if (!found) i++;
    }
    return { start: Int32Array.from(starts), period: Int32Array.from(periods),
             count: Int32Array.from(counts), length: starts.length };
  };

  /* For each ENTRY step, the index of the first step after its invocation (else 0). */
  CT.callEnds = function (th) {
    var n = th.n, end = new Int32Array(n), stack = new Int32Array(n + 1), sp = 0;
    var depth = th.depth, flags = th.flags, ENTRY = CT.STEP.ENTRY;
    for (var j = 0; j < n; j++) {
      var d = depth[j], entry = flags[j] & ENTRY;
      while (sp && (depth[stack[sp - 1]] > d || (entry && depth[stack[sp - 1]] === d))) end[stack[--sp]] = j;
      if (entry) stack[sp++] = j;
    }
    while (sp) end[stack[--sp]] = n;
    return end;
  };

  /* The fold containing step s (binary search over starts), or -1. */
  CT.foldOf = function (folds, s) {
    var lo = 0, hi = folds.length - 1, f = -1;
    while (lo <= hi) {
      var mid = (lo + hi) >> 1;
      if (folds.start[mid] <= s) { f = mid; lo = mid + 1; } else hi = mid - 1;
    }
    if (f >= 0 && s < folds.start[f] + folds.period[f] * folds.count[f]) return f;
    return -1;
  };
})();
