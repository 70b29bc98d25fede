/*
 * lanes.js - one lane per thread on a shared time axis: when each thread ran (a histogram of
 * its steps over time), the crash, the selected step's moment across all lanes, and the part
 * of the current thread the step list shows. Clicking a lane opens that thread at the
 * clicked moment, so threads are read in their relative order.
 *
 * Step times are approximate (to the ring chunk), so lanes show order to that resolution.
 * Each lane's histogram is computed once per canvas width (linear in the thread's steps) and
 * drawn on a canvas: no DOM per step.
 */
(function () {
  'use strict';
  var PAD = 4;

  function Lanes(container, model, onPick) {
    this.model = model;
    this.onPick = onPick;
    this.lanes = [];
    this.state = { thread: 0, time: NaN, from: NaN, to: NaN };
    var self = this;
    container.textContent = '';
    model.threads.forEach(function (th, i) {
      var lane = document.createElement('div'), name = document.createElement('span');
      lane.className = 'lane';
      lane.dataset.thread = i;
      lane.title = 'Thread ' + th.tid + ': click to open it at that moment';
      name.className = 'lane-name';
      name.appendChild(document.createTextNode(th.name || 'thread'));
      var dim = document.createElement('span');
      dim.className = 'dim';
      dim.textContent = ' ' + th.tid + ' \u00b7 ' + th.n.toLocaleString() + ' steps';
      name.appendChild(dim);
      if (th.crashed || th.exited || th.prefork) {
        var tag = document.createElement('span');
        tag.className = 'lane-tag ' + (th.crashed ? 'crashed' : 'other');
        tag.textContent = th.crashed ? 'CRASHED' : th.exited ? 'exited' : 'before fork';
        name.appendChild(tag);
      }
      var canvas = document.createElement('canvas');
      lane.appendChild(name);
      lane.appendChild(canvas);
      container.appendChild(lane);
      lane.addEventListener('click', function (ev) {
        var t = NaN;
        if (ev.target === canvas) {
          var r = canvas.getBoundingClientRect();
          t = model.tmin + ((ev.clientX - r.left) / r.width) * (model.tmax - model.tmin);
        }
        self.onPick(i, t);
      });
      self.lanes.push({ el: lane, canvas: canvas, hist: null, width: 0 });
    });
    if (window.ResizeObserver) new ResizeObserver(function () { self.draw(); }).observe(container);
  }
  CT.Lanes = Lanes;

  Lanes.prototype.histogram = function (th, w) {
    var bins = new Float32Array(w), time = th.time;
    for (var i = 0; i < th.n; i++) {
      var t = time[i];
      if (t !== t) continue;
      var b = Math.floor(this.x(t, w));
      bins[b < 0 ? 0 : b >= w ? w - 1 : b]++;
    }
    return bins;
  };

  /* The x of time t on a canvas w pixels wide (PAD device pixels kept free at each end). */
  Lanes.prototype.x = function (t, w) {
    var m = this.model, pad = PAD * (window.devicePixelRatio || 1);
    return pad + ((t - m.tmin) / (m.tmax - m.tmin)) * (w - 1 - 2 * pad);
  };

  Lanes.prototype.update = function (state) {
    this.state = state;
    this.draw();
  };

  Lanes.prototype.draw = function () {
    var css = getComputedStyle(document.documentElement), self = this, st = this.state;
    var bar = css.getPropertyValue('--lane-bar').trim(), crash = css.getPropertyValue('--crash').trim();
    var accent = css.getPropertyValue('--accent').trim(), dpr = window.devicePixelRatio || 1;
    this.lanes.forEach(function (lane, i) {
      var th = self.model.threads[i], c = lane.canvas;
      lane.el.classList.toggle('cur', i === st.thread);
      var w = Math.max(1, Math.round(c.clientWidth * dpr)), h = Math.max(1, Math.round(c.clientHeight * dpr));
      if (!c.clientWidth) return;
      if (c.width !== w || c.height !== h) { c.width = w; c.height = h; }
      if (lane.width !== w) { lane.hist = self.histogram(th, w); lane.width = w; }
      var g = c.getContext('2d'), hist = lane.hist, max = 0;
      g.clearRect(0, 0, w, h);
      for (var b = 0; b < w; b++) if (hist[b] > max) max = hist[b];
      g.fillStyle = bar;
      if (th.n && th.time[0] === th.time[0]) { /* the span from its first to its last step */
        var xa = self.x(th.time[0], w), xb = self.x(th.time[th.n - 1], w);
        g.fillRect(xa, h / 2 - dpr / 2, Math.max(dpr, xb - xa), dpr);
      }
      var lm = Math.log1p(max) || 1;
      for (b = 0; b < w; b++)
        if (hist[b]) {
          var bh = Math.max(2 * dpr, (Math.log1p(hist[b]) / lm) * h);
          g.fillRect(b - dpr, h - bh, 3 * dpr, bh);
        }
      if (i === st.thread && st.from === st.from && st.to === st.to) {
        var x0 = self.x(st.from, w), x1 = self.x(st.to, w);
        g.fillStyle = accent;
        g.globalAlpha = 0.18;
        g.fillRect(x0, 0, Math.max(2 * dpr, x1 - x0), h);
        g.globalAlpha = 1;
      }
      if (th.crashStep >= 0 && th.time[th.crashStep] === th.time[th.crashStep]) {
        g.fillStyle = crash;
        g.fillRect(self.x(th.time[th.crashStep], w) - dpr, 0, 2 * dpr, h);
      }
      if (st.time === st.time) {
        g.fillStyle = accent;
        g.fillRect(self.x(st.time, w) - dpr / 2, 0, dpr, h);
      }
    });
  };
})();
