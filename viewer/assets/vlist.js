/*
 * vlist.js - a virtual list: a scrolling element that shows `count` rows of equal height while
 * holding only the DOM rows that fit on screen (a pool, re-filled on every scroll).
 *
 * Layout: the scroller holds a sticky, zero-height pool at its top and a spacer whose height
 * gives the scrollbar its range. Row i of the list is drawn in pool row (i - first) at
 * y = (i - first) * rowHeight - offset. Browsers cap element heights (about 16-33 million
 * pixels), so past MAX_PX the spacer is capped and scroll positions map linearly onto rows
 * (`scale`): a million rows scroll the same way as a hundred.
 *
 * The owner supplies create(el) (builds a pool row's children once) and render(el, i) (fills
 * it for row i; must be cheap: it runs for every visible row on every scroll frame).
 */
(function () {
  'use strict';
  var MAX_PX = 4000000;

  function VList(scroller, opts) {
    this.el = scroller;
    this.rowHeight = opts.rowHeight || 20;
    this.create = opts.create;
    this.render = opts.render;
    this.count = 0;
    this.first = 0;
    this.pool = document.createElement('div');
    this.pool.className = 'vl-pool';
    this.spacer = document.createElement('div');
    this.spacer.className = 'vl-spacer';
    scroller.textContent = '';
    scroller.appendChild(this.pool);
    scroller.appendChild(this.spacer);
    this.rowsEls = [];
    var self = this;
    scroller.addEventListener('scroll', function () { self.draw(); }, { passive: true });
    if (window.ResizeObserver) new ResizeObserver(function () { self.resize(); }).observe(scroller);
    if (opts.onClick)
      this.pool.addEventListener('click', function (ev) {
        var row = ev.target.closest('.vl-row');
        if (row && row.dataset.index) opts.onClick(+row.dataset.index, ev);
      });
  }
  CT.VList = VList;

  VList.prototype.viewHeight = function () { return this.el.clientHeight || 1; };

  /* The list's full height in pixels, and the spacer's (capped) height. */
  VList.prototype.virtualHeight = function () { return this.count * this.rowHeight; };

  VList.prototype.setCount = function (n) {
    this.count = n;
    var h = this.virtualHeight();
    this.scaled = h > MAX_PX;
    this.spacer.style.height = (this.scaled ? MAX_PX : h) + 'px';
    this.draw();
  };

  /* The virtual pixel position of the top of the view. */
  VList.prototype.position = function () {
    var top = this.el.scrollTop;
    if (!this.scaled) return top;
    var maxTop = MAX_PX - this.viewHeight(), total = this.virtualHeight() - this.viewHeight();
    return maxTop > 0 ? (top / maxTop) * total : 0;
  };

  VList.prototype.setPosition = function (pos) {
    var total = this.virtualHeight() - this.viewHeight();
    pos = Math.max(0, Math.min(pos, Math.max(0, total)));
    if (this.scaled) {
      var maxTop = MAX_PX - this.viewHeight();
      this.el.scrollTop = total > 0 ? (pos / total) * maxTop : 0;
    } else this.el.scrollTop = pos;
    this.draw();
  };

  VList.prototype.resize = function () {
    var need = Math.ceil(this.viewHeight() / this.rowHeight) + 2;
    while (this.rowsEls.length < need) {
      var el = document.createElement('div');
      el.className = 'vl-row';
      this.create(el);
      this.pool.appendChild(el);
      this.rowsEls.push(el);
    }
    this.setCount(this.count);
  };

  VList.prototype.draw = function () {
    if (!this.rowsEls.length) return this.resize();
    var pos = this.position(), rh = this.rowHeight;
    var first = Math.floor(pos / rh), offset = pos - first * rh;
    this.first = first;
    for (var k = 0; k < this.rowsEls.length; k++) {
      var el = this.rowsEls[k], i = first + k;
      if (i >= this.count) {
        el.hidden = true;
        delete el.dataset.index;
        continue;
      }
      el.hidden = false;
      el.style.top = (k * rh - offset) + 'px';
      el.dataset.index = i;
      this.render(el, i);
    }
  };

  /* Scrolls so row i is visible: centred if `center`, else only if it is off screen. */
  VList.prototype.scrollTo = function (i, center) {
    var rh = this.rowHeight, vh = this.viewHeight(), pos = this.position();
    var y = i * rh;
    if (center) this.setPosition(y - (vh - rh) / 2);
    else if (y < pos) this.setPosition(y);
    else if (y + rh > pos + vh) this.setPosition(y + rh - vh);
    else this.draw();
  };

  /* The first and last rows wholly visible. */
  VList.prototype.visibleRange = function () {
    var pos = this.position(), rh = this.rowHeight;
    return [Math.ceil(pos / rh), Math.floor((pos + this.viewHeight()) / rh) - 1];
  };

  VList.prototype.pageRows = function () { return Math.max(1, Math.floor(this.viewHeight() / this.rowHeight) - 1); };
})();
