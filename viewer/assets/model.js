/*
 * model.js - the report's data (a "crashtrail-report" JSON object, see viewer/README.md)
 * decoded into typed arrays, once, when the page opens.
 *
 * Per thread every step gets its location, depth, flags and time in typed arrays of length n
 * (the sparse [step, value, ...] lists of the data are expanded: a value holds until the next
 * listed step). Locations are decoded into parallel Int32Arrays; `lineKey` numbers the
 * distinct (function, file, line) triples, so two steps are "the same line" when their keys
 * are equal (what loop folding compares). Cost: linear in the number of steps.
 *
 * This file starts the script: it creates the CT namespace every later file adds to.
 */
'use strict';
var CT = (window.CT = {});
(function () {
  /* STOPPED is the viewer's own: CRASH on the last step of a thread stopped for the dump (any
   * thread but the dump's own, the first), where it marks where that thread was, not a crash */
  CT.STEP = { UNCERTAIN: 1, CRASH: 2, ENTRY: 4, GAP: 8, PENDING: 16, STOPPED: 64 };

  CT.basename = function (p) {
    if (!p) return '?';
    var i = p.lastIndexOf('/');
    return i >= 0 ? p.slice(i + 1) : p;
  };

  /* Nanoseconds relative to the dump as a short signed duration ("-1.250 ms"). */
  CT.fmtTime = function (ns) {
    if (ns !== ns) return '';
    var a = Math.abs(ns), s = ns < 0 ? '\u2212' : ns > 0 ? '+' : '';
    if (a < 1e3) return s + a.toFixed(0) + ' ns';
    if (a < 1e6) return s + (a / 1e3).toFixed(1) + ' \u00b5s';
    if (a < 1e9) return s + (a / 1e6).toFixed(3) + ' ms';
    return s + (a / 1e9).toFixed(3) + ' s';
  };

  /* The execution tables' resolution ("65 \u00b5s", "1.0 ms"); reports from before it: 65 \u00b5s. */
  CT.fmtResolution = function (ns) {
    ns = ns || 65536;
    return ns < 1e6 ? (ns / 1e3).toFixed(1) + ' \u00b5s' : (ns / 1e6).toFixed(1) + ' ms';
  };

  function expandCarry(pairs, n, out, fill) {
    out.fill(fill);
    for (var k = 0; k < pairs.length; k += 2) {
      var end = k + 2 < pairs.length ? pairs[k + 2] : n;
      out.fill(pairs[k + 1], pairs[k], end);
    }
    return out;
  }

  function decodeLocs(raw) {
    var flat = raw.locs, n = flat.length / 7, L = {
      n: n, fn: new Int32Array(n), file: new Int32Array(n), line: new Int32Array(n),
      col: new Int32Array(n), module: new Int32Array(n), inl: new Int32Array(n),
      outer: new Int32Array(n), lineKey: new Int32Array(n)
    };
    var keys = new Map();
    for (var i = 0; i < n; i++) {
      var b = i * 7;
      L.fn[i] = flat[b]; L.file[i] = flat[b + 1]; L.line[i] = flat[b + 2]; L.col[i] = flat[b + 3];
      L.module[i] = flat[b + 4]; L.inl[i] = flat[b + 5]; L.outer[i] = flat[b + 6];
      var k = flat[b] + ',' + flat[b + 1] + ',' + flat[b + 2], v = keys.get(k);
      if (v === undefined) keys.set(k, (v = keys.size));
      L.lineKey[i] = v;
    }
    return L;
  }

  function decodeThread(t, index, locs) {
    var n = t.n, th = {
      index: index, tid: t.tid, name: t.name || '', crashed: t.crashed, exited: t.exited,
      prefork: t.prefork, lost: t.lost, records: t.records, badRecords: t.bad_records, n: n,
      first: t.first || 0, /* steps decoded before the first one kept (crashtrail report --steps) */
      loc: Int32Array.from(t.loc), depth: expandCarry(t.depth, n, new Int32Array(n), 0),
      flags: new Uint8Array(n), time: expandCarry(t.time, n, new Float64Array(n), NaN),
      key: new Int32Array(n), stack: [], crashStep: -1, minDepth: 0
    };
    for (var k = 0; k < t.flags.length; k += 2) th.flags[t.flags[k]] = t.flags[k + 1];
    var minD = n ? th.depth[0] : 0;
    for (var i = 0; i < n; i++) {
      th.key[i] = locs.lineKey[th.loc[i]];
      if (th.depth[i] < minD) minD = th.depth[i];
    }
    th.minDepth = minD;
    for (i = n - 1; i >= 0 && th.crashStep < 0; i--) if (th.flags[i] & CT.STEP.CRASH) th.crashStep = i;
    if (index > 0 && !t.crashed && th.crashStep >= 0) {
      th.flags[th.crashStep] = (th.flags[th.crashStep] & ~CT.STEP.CRASH) | CT.STEP.STOPPED;
      th.crashStep = -1;
    }
    for (k = 0; k < t.stack.length; k += 7)
      th.stack.push({ pc: t.stack[k], module: t.stack[k + 1], fn: t.stack[k + 2], file: t.stack[k + 3],
                      line: t.stack[k + 4], col: t.stack[k + 5], inlined: !!t.stack[k + 6] });
    th.locals = t.locals ? {
      fn: t.locals.fn, file: t.locals.file, line: t.locals.line,
      vars: t.locals.vars.map(function (v) { return { scope: v[0], name: v[1], type: v[2], value: v[3], known: !!v[4] }; })
    } : null;
    return th;
  }

  function decodeExec(flat) {
    var out = [];
    for (var k = 0; k < flat.length; k += 5)
      out.push({ fn: flat[k], file: flat[k + 1], line: flat[k + 2], module: flat[k + 3], time: flat[k + 4] });
    return out;
  }

  /* fileId -> {file, path, n, whole, text: Array (1-based, undefined where not embedded),
   * chunks: [[first, last], ...]} */
  function decodeSources(raw, strings) {
    var map = new Map();
    raw.sources.forEach(function (s) {
      var text = new Array(s.lines + 1), chunks = [];
      for (var k = 0; k < s.chunks.length; k += 2) {
        var first = s.chunks[k], lines = s.chunks[k + 1];
        for (var j = 0; j < lines.length; j++) text[first + j] = lines[j];
        chunks.push([first, first + lines.length - 1]);
      }
      map.set(s.file, { file: s.file, path: strings[s.file], n: s.lines, whole: s.whole, text: text, chunks: chunks });
    });
    return map;
  }

  CT.loadModel = function (raw) {
    if (!raw || raw.format !== 'crashtrail-report') throw new Error('not a crashtrail report');
    var m = { raw: raw, summary: raw.summary, modules: raw.modules, strings: raw.strings };
    m.locs = decodeLocs(raw);
    m.threads = raw.threads.map(function (t, i) { return decodeThread(t, i, m.locs); });
    m.last = decodeExec(raw.last);
    m.first = decodeExec(raw.first);
    m.inlines = raw.inlines;
    m.sources = decodeSources(raw, raw.strings);
    m.str = function (i) { return i >= 0 ? m.strings[i] : null; };
    m.moduleName = function (i) { return i >= 0 && i < m.modules.length ? m.modules[i].name : '?'; };
    /* the source text of a location (trimmed), or '' */
    m.lineText = function (file, line) {
      var s = m.sources.get(file), t = s && s.text[line];
      return t === undefined ? '' : t;
    };
    m.crashThread = raw.summary.crashed >= 0 && raw.summary.crashed < m.threads.length ? raw.summary.crashed : -1;
    /* the time span of all steps, for the thread lanes */
    var lo = Infinity, hi = -Infinity;
    m.threads.forEach(function (th) {
      for (var i = 0; i < th.n; i++) if (th.time[i] === th.time[i]) { if (th.time[i] < lo) lo = th.time[i]; break; }
      for (i = th.n - 1; i >= 0; i--) if (th.time[i] === th.time[i]) { if (th.time[i] > hi) hi = th.time[i]; break; }
    });
    m.tmin = lo === Infinity ? 0 : lo;
    m.tmax = hi === -Infinity ? 0 : Math.max(hi, m.tmin + 1);
    return m;
  };

  /* The step of thread th nearest to time t (times are ordered within a thread up to the
   * chunk resolution; a binary search over them). */
  CT.stepAtTime = function (th, t) {
    if (!th.n) return -1;
    var lo = 0, hi = th.n - 1;
    if (!(t === t) || !(th.time[hi] === th.time[hi])) return hi;
    while (lo < hi) {
      var mid = (lo + hi) >> 1, v = th.time[mid];
      if (v === v && v < t) lo = mid + 1; else if (v !== v) lo = mid + 1; else hi = mid;
    }
    return lo;
  };
})();
