/*
 * keys.js - keyboard navigation, as listed in the help overlay (viewer.html): next/previous
 * step, into/out of a call, over a call, fold/unfold, pages, first/last, the crash, threads,
 * the views, help. The step keys act on the timeline view; every move goes through
 * App.select, so the list, source pane, lanes and URL follow. Modified keys (Ctrl, Alt, Meta)
 * are left to the browser. It adds these methods to CT.App (viewer.js).
 */
(function () {
  'use strict';
  var App = CT.App;

  App.prototype.initKeys = function () {
    var self = this, help = document.getElementById('help');
    function toggleHelp(show) { help.hidden = !show; }
    document.getElementById('help-button').onclick = function () { toggleHelp(true); };
    help.addEventListener('click', function (e) { if (e.target === help) toggleHelp(false); });
    document.addEventListener('keydown', function (e) {
      if (e.ctrlKey || e.metaKey || e.altKey) return;
      if (!help.hidden) {
        if (e.key === 'Escape' || e.key === '?') { toggleHelp(false); e.preventDefault(); }
        return;
      }
      var views = ['timeline', 'stack', 'last', 'first', 'modules', 'warnings'];
      if (e.key === '?') return toggleHelp(true), e.preventDefault();
      if (e.key >= '1' && e.key <= '6') return self.showView(views[+e.key - 1]), e.preventDefault();
      if (self.view !== 'timeline' || self.cur < 0) return;
      if (self.key(e.key)) e.preventDefault();
    });
  };

  /* The timeline's keys. True if the key was one. */
  App.prototype.key = function (k) {
    var o = this.outline(this.cur), s = this.sel, th = this.model.threads[this.cur], to = -2;
    var page = this.steps.vl.pageRows();
    switch (k) {
    case 'j': case 'ArrowDown': to = o.nextShown(s, 1); break;
    case 'k': case 'ArrowUp': to = o.nextShown(s, -1); break;
    case 'PageDown': to = o.nextShown(s, 1, page); break;
    case 'PageUp': to = o.nextShown(s, -1, page); break;
    case 'l': case 'ArrowRight':
      to = o.callee(s);
      if (to < 0 && o.isCall(s) && o.collapsed.has(s)) return this.toggleCall(s), true;
      break;
    case 'h': case 'ArrowLeft': to = o.callSite(s); break;
    case 'n': to = o.over(s, 1); break;
    case 'N': to = o.over(s, -1); break;
    case 'g': case 'Home': to = 0; break;
    case 'G': case 'End': to = th.n - 1; break;
    case 'c': this.goCrash(); return true;
    case 'Enter': case ' ': this.toggleAtSelection(); return true;
    case 't': case 'T': {
      var n = this.model.threads.length, ti = this.cur;
      do ti = (ti + (k === 't' ? 1 : n - 1)) % n; while (ti !== this.cur && !this.model.threads[ti].n);
      if (ti !== this.cur) this.switchThread(ti, NaN);
      return true;
    }
    default: return false;
    }
    if (to >= 0) this.select(this.cur, to, { center: false });
    return true;
  };
})();
