/*
 * source.js - the source pane: the file of the selected step (or frame, or entry), its line
 * marked and scrolled into view, and every line shaded by how recently it ran before the
 * selected step in that thread (heat: 1 = a few steps ago ... 5 = long ago).
 *
 * Rows are the file's lines, or for a file the report only has excerpts of, the excerpts with
 * one "lines a-b not in the report" row between them. Recency is found by walking back from
 * the selected step, at most RECENCY_WINDOW steps: bounded work per selection whatever the
 * size of the thread. The crash line is marked in every view of its file.
 */
(function () {
  'use strict';
  var RECENCY_WINDOW = 200000;
  var HEAT = [2, 10, 50, 250]; /* ages (in steps) that end heat levels 1..4 */

  function span(el, cls) {
    var s = document.createElement('span');
    s.className = cls;
    el.appendChild(s);
    return s;
  }

  function SourceView(app) {
    this.app = app;
    this.model = app.model;
    this.pathEl = document.getElementById('src-path');
    this.noteEl = document.getElementById('src-note');
    this.dirEl = document.getElementById('src-dir');
    this.root = document.getElementById('source');
    this.file = -2;
    this.line = 0;
    this.rows = new Int32Array(0);
    this.rowOfLine = new Int32Array(0);
    this.ages = new Int32Array(0);
    this.ran = null;
    this.crash = app.crashLocation();
    var self = this;
    this.vl = new CT.VList(document.getElementById('src-lines'), {
      rowHeight: 20,
      create: function (el) {
        el.ln = span(el, 'ln');
        el.mk = span(el, 'mk');
        el.tx = span(el, 'tx');
      },
      render: function (el, r) { self.renderRow(el, r); }
    });
  }
  CT.SourceView = SourceView;

  /* Rows of a file: line numbers, and -first for a gap row of missing lines from `first`. */
  SourceView.prototype.layout = function (src) {
    var rows = [], rowOf = new Int32Array(src.n + 2).fill(-1), next = 1;
    src.chunks.forEach(function (c) {
      if (c[0] > next) rows.push(-next);
      for (var l = c[0]; l <= c[1]; l++) { rowOf[l] = rows.length; rows.push(l); }
      next = c[1] + 1;
    });
    if (next <= src.n && src.chunks.length) rows.push(-next);
    this.rows = Int32Array.from(rows);
    this.rowOfLine = rowOf;
  };

  /* The lines of file that ran at all, in any thread. */
  SourceView.prototype.ranLines = function (file, n) {
    var L = this.model.locs, ran = new Uint8Array(n + 2);
    for (var i = 0; i < L.n; i++) if (L.file[i] === file && L.line[i] <= n) ran[L.line[i]] = 1;
    return ran;
  };

  SourceView.prototype.heat = function (th, s) {
    var ages = this.ages, L = this.model.locs, file = this.file;
    ages.fill(-1);
    if (!th || s < 0) return;
    for (var j = s, stop = Math.max(0, s - RECENCY_WINDOW); j >= stop; j--) {
      var loc = th.loc[j];
      if (L.file[loc] !== file) continue;
      var l = L.line[loc];
      if (l < ages.length && ages[l] < 0) ages[l] = s - j;
    }
  };

  /* Shows line `line` of `file` (a string-table number); ctx {th, step} shades by recency. */
  SourceView.prototype.show = function (file, line, ctx) {
    var src = this.model.sources.get(file), changed = file !== this.file;
    this.file = file;
    this.line = line;
    this.root.dataset.file = this.model.str(file) || '';
    this.root.dataset.line = line;
    if (changed) {
      this.src = src;
      var path = this.model.str(file) || '', cut = path.lastIndexOf('/');
      this.pathEl.textContent = path ? path.slice(cut + 1) : '(no file)';
      this.dirEl.textContent = cut > 0 ? path.slice(0, cut) : '';
      this.pathEl.title = this.dirEl.title = path;
      if (src && src.chunks.length) {
        this.layout(src);
        this.ages = new Int32Array(src.n + 2);
        this.ran = this.ranLines(file, src.n);
        this.noteEl.textContent = src.n + ' lines' + (src.whole ? '' : ' \u00b7 excerpts around the lines that ran');
      } else {
        this.rows = new Int32Array(0);
        this.rowOfLine = new Int32Array(0);
        this.noteEl.textContent = 'source not in the report (not readable where it was made)';
      }
    }
    if (this.src && this.src.chunks.length) this.heat(ctx && ctx.th, ctx ? ctx.step : -1);
    this.vl.setCount(this.rows.length);
    var r = line > 0 && line < this.rowOfLine.length ? this.rowOfLine[line] : -1;
    if (r >= 0) this.vl.scrollTo(r, changed || !this.isVisible(r));
  };

  SourceView.prototype.isVisible = function (r) {
    var v = this.vl.visibleRange();
    return r >= v[0] + 2 && r <= v[1] - 2;
  };

  SourceView.prototype.renderRow = function (el, r) {
    var l = this.rows[r];
    if (l <= 0) {
      var next = r + 1 < this.rows.length ? this.rows[r + 1] - 1 : this.src.n;
      el.className = 'vl-row src gaprow';
      el.ln.textContent = '';
      el.mk.textContent = '';
      el.tx.textContent = '\u22ef lines ' + -l + '\u2013' + next + ' not in the report';
      return;
    }
    var age = this.ages[l], cls = 'vl-row src';
    if (age === 0) cls += ' cur';
    else if (age > 0) {
      var h = 1;
      while (h <= HEAT.length && age > HEAT[h - 1]) h++;
      cls += ' h' + h;
    }
    if (l === this.line) cls += age === 0 ? '' : ' cur';
    if (this.ran && this.ran[l]) cls += ' ran';
    var isCrash = this.crash && this.crash.file === this.file && this.crash.line === l;
    if (isCrash) cls += ' crash';
    el.className = cls;
    el.ln.textContent = l;
    el.mk.textContent = isCrash ? '\u2716' : '';
    el.tx.textContent = this.src.text[l] || '';
  };
})();
