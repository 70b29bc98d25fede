/*
 * viewer.js - the report page itself: reads the embedded data, builds the views and keeps one
 * selection (a thread and a step) that the step list, the source pane, the thread lanes, the
 * status line and the URL fragment all follow.
 *
 * The fragment #t=TID&s=STEP names the selected step; it is rewritten on every selection
 * (replaceState: no history entry per keypress), so a copied URL or a reload opens the same
 * step. Without one, the page opens on the crash: its thread, its step, centred, and its line
 * marked in the source. Keys are in keys.js. Per-thread outlines (folds, calls) are built the
 * first time a thread is shown.
 */
(function () {
  'use strict';

  function App(raw) {
    this.model = CT.loadModel(raw);
    this.outlines = [];
    this.selOf = [];
    this.cur = -1;
    this.sel = -1;
    this.view = 'timeline';
  }
  CT.App = App;

  App.prototype.outline = function (ti) {
    return this.outlines[ti] || (this.outlines[ti] = new CT.Outline(this.model.threads[ti]));
  };

  /* {fn, file, line} of the crash: the crashed thread's crash step, else the top frame. */
  App.prototype.crashLocation = function () {
    var m = this.model, th = m.threads[m.crashThread], L = m.locs;
    if (th && th.crashStep >= 0) {
      var loc = th.loc[th.crashStep];
      return { fn: L.fn[loc], file: L.file[loc], line: L.line[loc] };
    }
    for (var i = 0; i < m.threads.length; i++)
      for (var k = 0; k < m.threads[i].stack.length; k++) {
        var f = m.threads[i].stack[k];
        if (f.file >= 0) return { fn: f.fn, file: f.file, line: f.line };
      }
    return null;
  };

  App.prototype.init = function () {
    var self = this, m = this.model;
    CT.renderSummary(this);
    this.steps = new CT.StepList(document.getElementById('steps'), this);
    this.source = new CT.SourceView(this);
    this.lanes = new CT.Lanes(document.getElementById('lanes'), m, function (ti, t) { self.switchThread(ti, t); });
    document.getElementById('steps').addEventListener('scroll', function () { self.scheduleLanes(); }, { passive: true });
    this.initTabs();
    this.initKeys();
    this.initSplitter();
    window.addEventListener('hashchange', function () { self.openHash(); });
    if (!this.openHash()) this.goCrash();
  };

  App.prototype.goCrash = function () {
    var m = this.model, ti = m.crashThread >= 0 ? m.crashThread : 0, th = m.threads[ti];
    this.showView('timeline');
    if (!th) return;
    this.select(ti, th.crashStep >= 0 ? th.crashStep : th.n - 1, { center: true });
  };

  /* Selects the step the fragment names. False if there is none (or it names nothing). */
  App.prototype.openHash = function () {
    var h = /^#t=(\d+)&s=(\d+)$/.exec(location.hash), m = this.model;
    if (!h) return false;
    for (var i = 0; i < m.threads.length; i++)
      if (m.threads[i].tid === +h[1] && +h[2] < m.threads[i].n) {
        if (i === this.cur && +h[2] === this.sel) return true;
        this.showView('timeline');
        this.select(i, +h[2], { center: true });
        return true;
      }
    return false;
  };

  App.prototype.setThread = function (ti) {
    if (ti === this.cur) return;
    if (this.cur >= 0) this.selOf[this.cur] = this.sel;
    this.cur = ti;
    this.steps.setOutline(this.outline(ti));
  };

  /* The one way the selection changes. opts.center: centre the row in the list. */
  App.prototype.select = function (ti, s, opts) {
    var th = this.model.threads[ti];
    if (!th || s < 0 || s >= th.n) return;
    this.setThread(ti);
    this.sel = s;
    this.status();
    if (this.outline(ti).reveal(s)) this.steps.refresh();
    this.steps.select(s, opts && opts.center);
    var L = this.model.locs, loc = th.loc[s];
    this.source.show(L.file[loc], L.line[loc], { th: th, step: s });
    this.writeHash(th.tid, s);
    this.scheduleLanes();
  };

  App.prototype.writeHash = function (tid, s) {
    var h = '#t=' + tid + '&s=' + s;
    if (location.hash === h) return;
    try { history.replaceState(null, '', h); } catch (e) { location.replace(h); }
  };

  App.prototype.status = function () {
    var m = this.model, th = m.threads[this.cur], s = this.sel, L = m.locs, loc = th.loc[s];
    var st = document.getElementById('status');
    st.textContent = '';
    [['thread ', (th.name || '') + ' ' + th.tid], ['  \u00b7  step ', s + ' of ' + th.n],
     ['  \u00b7  depth ', String(th.depth[s] - th.minDepth)],
     ['  \u00b7  ', (m.str(L.fn[loc]) || '??') + '  ' + (m.str(L.file[loc]) || '?') + ':' + L.line[loc]],
     ['  \u00b7  ', CT.fmtTime(th.time[s])]].concat(this.inlineChain(loc)).forEach(function (p) {
      st.appendChild(document.createTextNode(p[0]));
      st.appendChild(CT.el('b', null, [p[1]]));
    });
  };

  /* Where an inlined step's function was inlined: [' \u00b7 inlined into ', 'term at eval.c:33'], ... */
  App.prototype.inlineChain = function (loc) {
    var m = this.model, L = m.locs, out = [], k = L.inl[loc];
    for (var guard = 0; k >= 0 && guard < 64; guard++) {
      var f = m.inlines, b = k * 5, parent = f[b + 4];
      var into = parent >= 0 ? m.str(f[parent * 5]) : m.str(L.outer[loc]);
      out.push([guard ? ', ' : '  \u00b7  inlined into ', (into || '??') + ' at ' + CT.basename(m.str(f[b + 1])) + ':' + f[b + 2]]);
      k = parent;
    }
    return out;
  };

  App.prototype.scheduleLanes = function () {
    var self = this;
    if (this.lanesPending) return;
    this.lanesPending = true;
    requestAnimationFrame(function () {
      self.lanesPending = false;
      if (self.cur < 0) return;
      var th = self.model.threads[self.cur], o = self.outline(self.cur), v = self.steps.vl.visibleRange();
      var a = o.stepOfRow(Math.max(0, v[0])), b = o.stepOfRow(Math.min(o.nrows - 1, Math.max(0, v[1])));
      self.lanes.update({ thread: self.cur, time: th.time[self.sel],
                          from: a >= 0 ? th.time[a] : NaN, to: b >= 0 ? th.time[b] : NaN });
    });
  };

  /* Opens thread ti at time t (a lane click), or at the time of the current selection. */
  App.prototype.switchThread = function (ti, t) {
    var th = this.model.threads[ti];
    if (!th || !th.n) return;
    if (!(t === t) && ti !== this.cur) {
      var cur = this.model.threads[this.cur];
      t = cur ? cur.time[this.sel] : NaN;
    }
    var s = t === t ? CT.stepAtTime(th, t) : this.selOf[ti] !== undefined ? this.selOf[ti] : th.n - 1;
    this.showView('timeline');
    this.select(ti, s, { center: true });
  };

  App.prototype.fixSelection = function () {
    var o = this.outline(this.cur), s = this.sel;
    while (s > 0 && o.rowOfStep[s] < 0) s--;
    this.steps.refresh();
    if (s !== this.sel) this.select(this.cur, s, {});
    else this.steps.select(s, false);
  };

  App.prototype.toggleFold = function (f) {
    this.outline(this.cur).toggleFold(f);
    this.fixSelection();
  };

  App.prototype.toggleCall = function (s) {
    if (this.outline(this.cur).toggleCall(s)) this.fixSelection();
  };

  /* Enter: the call whose entry is selected, else the loop the selection is in. */
  App.prototype.toggleAtSelection = function () {
    var o = this.outline(this.cur);
    if (o.isCall(this.sel)) return this.toggleCall(this.sel);
    var f = CT.foldOf(o.folds, this.sel);
    if (f >= 0) this.toggleFold(f);
  };

  App.prototype.showView = function (name) {
    this.view = name;
    document.querySelectorAll('#tabs button').forEach(function (b) {
      b.setAttribute('aria-selected', String(b.dataset.view === name));
    });
    document.querySelectorAll('#left > .view').forEach(function (v) { v.hidden = v.id !== 'view-' + name; });
    this.renderView(name);
  };

  App.prototype.renderView = function (name) {
    var self = this;
    if (this.rendered && this.rendered[name]) return;
    this.rendered = this.rendered || {};
    this.rendered[name] = true;
    if (name === 'stack') CT.renderStack(this, document.getElementById('view-stack'));
    if (name === 'modules') CT.renderModules(this, document.getElementById('view-modules'));
    if (name === 'warnings') CT.renderWarnings(this, document.getElementById('view-warnings'));
    if (name === 'last' || name === 'first') {
      var list = new CT.ExecList(this, this.model[name], document.getElementById(name + '-list'),
                                 document.getElementById(name + '-note'), name);
      if (name === 'last') requestAnimationFrame(function () { list.vl.scrollTo(self.model.last.length - 1, false); });
    }
  };

  App.prototype.initTabs = function () {
    var self = this, m = this.model, counts = { last: m.last.length, first: m.first.length,
      warnings: m.summary.warnings.length, modules: m.modules.length };
    document.querySelectorAll('#tabs button').forEach(function (b) {
      var c = counts[b.dataset.view];
      if (c !== undefined) b.insertBefore(CT.el('span', 'count', [' ' + c.toLocaleString() + ' ']), b.querySelector('kbd'));
      b.addEventListener('click', function () { self.showView(b.dataset.view); });
    });
  };

  App.prototype.initSplitter = function () {
    var split = document.getElementById('splitter'), left = document.getElementById('left');
    split.addEventListener('mousedown', function (ev) {
      ev.preventDefault();
      split.classList.add('drag');
      function move(e) { left.style.flexBasis = Math.max(240, e.clientX) + 'px'; }
      function up() {
        split.classList.remove('drag');
        document.removeEventListener('mousemove', move);
        document.removeEventListener('mouseup', up);
      }
      document.addEventListener('mousemove', move);
      document.addEventListener('mouseup', up);
    });
  };

  function start() {
    var t0 = performance.now();
    try {
      var raw = JSON.parse(document.getElementById('ct-data').textContent);
      var app = (CT.app = new App(raw));
      app.init();
    } catch (e) {
      document.body.textContent = 'This crashtrail report could not be read: ' + e.message;
      throw e;
    }
    CT.openMs = performance.now() - t0;
    document.body.dataset.ready = '1';
  }
  /* After the whole script (keys.js comes after this file) and the document are in. */
  if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', start);
  else setTimeout(start, 0);
})();
