/*
 * timeline.js - the step list of the current thread: one row per shown step (outline.js), in
 * a virtual list (vlist.js), with its source line beside it.
 *
 * A row: step number (a link to the step: #t=TID&s=STEP), time relative to the dump, the
 * module, the function indented by call depth (named at an entry, and on return to a caller;
 * time, module and function only where they differ from the row above), file:line, a mark (crash, uncertain, history lost before
 * it), the source text. A call's entry row has a twisty to collapse the call; a folded loop is one
 * header row ("x N") above its last iteration. Rendering a row only sets text and classes.
 */
(function () {
  'use strict';
  var INDENT = 10, MAX_INDENT = 40, LOC_CHARS = 19; /* file:line longer than this keeps its end */

  function span(el, cls) {
    var s = document.createElement('span');
    s.className = cls;
    el.appendChild(s);
    return s;
  }

  function StepList(scroller, app) {
    this.app = app;
    this.model = app.model;
    this.outline = null;
    this.sel = -1;
    this.codeOf = [];
    var self = this;
    this.vl = new CT.VList(scroller, {
      rowHeight: 20,
      create: function (el) { self.createRow(el); },
      render: function (el, r) { self.renderRow(el, r); },
      onClick: function (r, ev) { self.click(r, ev); }
    });
  }
  CT.StepList = StepList;

  StepList.prototype.createRow = function (el) {
    var seq = span(el, 'c-seq');
    el.link = document.createElement('a');
    seq.appendChild(el.link);
    el.time = span(el, 'c-time');
    el.mod = span(el, 'c-mod');
    el.tree = span(el, 'c-tree');
    el.tw = span(el.tree, 'tw');
    el.fn = span(el.tree, 'fn');
    el.calls = span(el.tree, 'calls');
    el.loc = span(el, 'c-loc');
    el.mark = span(el, 'c-mark');
    el.code = span(el, 'c-code');
    el.chip = span(el.mod, 'chip');
  };

  StepList.prototype.setOutline = function (outline) {
    this.outline = outline;
    this.vl.setCount(outline.nrows);
  };

  StepList.prototype.code = function (loc) {
    var c = this.codeOf[loc];
    if (c === undefined) {
      var L = this.model.locs;
      c = this.codeOf[loc] = this.model.lineText(L.file[loc], L.line[loc]).replace(/^\s+/, '');
    }
    return c;
  };

  StepList.prototype.renderFold = function (el, f) {
    var o = this.outline, info = o.foldInfo(f, this.model), open = o.foldOpen[f];
    el.className = 'vl-row foldrow' + (open ? ' open' : '');
    el.link.textContent = '';
    el.link.removeAttribute('href');
    el.time.textContent = '';
    el.chip.hidden = true;
    el.tree.style.paddingLeft = '0';
    el.tw.textContent = open ? '\u25be' : '\u25b8';
    el.fn.textContent = '\u21bb loop \u00d7' + info.count.toLocaleString();
    el.fn.className = 'fn';
    el.calls.textContent = '';
    el.loc.textContent = CT.basename(this.model.str(info.file)) + ':' + info.lo + (info.hi > info.lo ? '\u2013' + info.hi : '');
    el.mark.textContent = '';
    el.code.textContent = open
      ? info.count + ' iterations of ' + info.period + ' step' + (info.period > 1 ? 's' : '') + ' (click to fold)'
      : (info.count - 1).toLocaleString() + ' earlier iterations folded (' + info.hidden.toLocaleString() +
        ' steps): click to expand';
  };

  StepList.prototype.renderRow = function (el, r) {
    var o = this.outline, v = o.rows[r];
    if (v < 0) return this.renderFold(el, -1 - v);
    var th = o.th, s = v, L = this.model.locs, loc = th.loc[s], fl = th.flags[s], F = CT.STEP;
    /* the step in the row above: names and times are shown where they change from it */
    var above = r > 0 ? o.rows[r - 1] : -1, prev = above >= 0 ? th.loc[above] : -1;
    el.className = 'vl-row step' + (s === this.sel ? ' sel' : '') + (fl & F.CRASH ? ' crash' : '') +
      (fl & F.STOPPED ? ' stopped' : '') + (fl & F.ENTRY ? ' entry' : '') + (fl & F.GAP ? ' gap' : '');
    el.link.textContent = th.first + s;
    el.link.href = '#t=' + th.tid + '&s=' + s;
    var t = th.time[s], showTime = above < 0 || r <= this.vl.first + 1 || !(t === th.time[above]);
    el.time.textContent = showTime ? CT.fmtTime(t) : '';
    var before = above >= 0 ? prev : s > 0 ? th.loc[s - 1] : -1; /* past a fold header: the step before */
    var modChange = before < 0 || L.module[before] !== L.module[loc];
    el.chip.hidden = !modChange;
    if (modChange) el.chip.textContent = this.model.moduleName(L.module[loc]);
    var indent = Math.min(th.depth[s] - th.minDepth, MAX_INDENT);
    el.tree.style.paddingLeft = indent * INDENT + 'px';
    var isCall = o.isCall(s), collapsed = isCall && o.collapsed.has(s);
    el.tw.textContent = isCall ? (collapsed ? '\u25b8' : '\u25be') : '';
    var fnChange = prev < 0 || (fl & F.ENTRY) || L.fn[prev] !== L.fn[loc];
    el.fn.textContent = fnChange ? (fl & F.ENTRY || prev < 0 ? '' : '\u21a9 ') + (this.model.str(L.fn[loc]) || '??') : '';
    el.fn.className = fnChange && !(fl & F.ENTRY) && prev >= 0 ? 'fn ret' : 'fn';
    el.calls.textContent = collapsed ? '\u2026 ' + (o.callEnd[s] - s - 1).toLocaleString() + ' steps' : '';
    var where = CT.basename(this.model.str(L.file[loc])) + ':' + L.line[loc];
    el.loc.textContent = where.length > LOC_CHARS ? '\u2026' + where.slice(1 - LOC_CHARS) : where;
    el.code.textContent = this.code(loc);
    var mark = fl & F.CRASH ? '\u2716' : fl & F.STOPPED ? '\u23f8' : fl & F.UNCERTAIN ? '?' : fl & F.GAP ? '\u2248' : '';
    el.mark.textContent = mark;
    el.mark.title = (fl & F.CRASH ? 'the crash' : '') + (fl & F.STOPPED ? 'where this thread was stopped for the dump' : '') + (fl & F.UNCERTAIN ? ' (uncertain: not proven by the record)' : '') +
      (fl & F.GAP ? ' (history was lost before this step)' : '');
  };

  StepList.prototype.click = function (r, ev) {
    var o = this.outline, v = o.rows[r];
    if (v < 0) {
      this.app.toggleFold(-1 - v);
      return;
    }
    if (ev.target.classList.contains('tw')) {
      this.app.toggleCall(v);
      return;
    }
    if (ev.target.tagName === 'A') ev.preventDefault();
    this.app.select(this.app.cur, v, { center: false });
  };

  /* Marks step s selected and scrolls it into view (centred if asked). */
  StepList.prototype.select = function (s, center) {
    this.sel = s;
    var r = this.outline.rowOfStep[s];
    if (r >= 0) this.vl.scrollTo(r, center);
    else this.vl.draw();
  };

  StepList.prototype.refresh = function () {
    this.vl.setCount(this.outline.nrows);
  };
})();
