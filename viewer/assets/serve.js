/*
 * serve.js - the crash groups, a group's crashes and the error pages of `crashtrail serve`,
 * built from the page's data ("crashtrail-serve", serve_pages.c). Every string reaches the page
 * through text nodes (el() below) or setAttribute on title: nothing from the store is parsed as
 * HTML. Links are made from ids, which are numbers. Times are UTC, as `crashtrail list` shows
 * them.
 */
(function () {
  'use strict';

  var data = JSON.parse(document.getElementById('ct-data').textContent);

  /* An element with a class and children (strings and numbers become text nodes). */
  function el(tag, cls, children) {
    var e = document.createElement(tag);
    if (cls) e.className = cls;
    (children || []).forEach(function (c) {
      if (c === null || c === undefined) return;
      e.appendChild(typeof c === 'string' || typeof c === 'number' ? document.createTextNode(String(c)) : c);
    });
    return e;
  }

  function link(href, children, cls) {
    var a = el('a', cls, children);
    a.setAttribute('href', href);
    return a;
  }

  function id(n) {
    if (typeof n !== 'number' || !isFinite(n) || n < 1 || Math.floor(n) !== n) throw new Error('bad id ' + n);
    return String(n);
  }

  function titled(e, title) {
    if (title) e.setAttribute('title', title);
    return e;
  }

  function basename(p) {
    return p ? p.slice(p.lastIndexOf('/') + 1) : '';
  }

  /* "YYYY-MM-DD HH:MM:SS" (UTC) of a time in milliseconds since the epoch. */
  function utc(ms) {
    return new Date(ms).toISOString().slice(0, 19).replace('T', ' ');
  }

  function plural(n, one, many) {
    return n + ' ' + (n === 1 ? one : many);
  }

  function crumbs(items) {
    var nav = document.getElementById('crumbs');
    items.forEach(function (it, i) {
      nav.appendChild(el('span', 'dim', ['/']));
      nav.appendChild(i === items.length - 1 ? el('span', 'cur', [it[0]]) : link(it[1], [it[0]]));
    });
  }

  function table(tableId, heads, rows) {
    var t = el('table', 'grid'), head = el('tr', null, heads.map(function (h) {
      return /^(group|count|builds|crash|pid)$/.test(h) ? el('th', 'num', [h]) : el('th', null, [h]);
    }));
    t.id = tableId;
    t.appendChild(el('thead', null, [head]));
    t.appendChild(el('tbody', null, rows));
    return el('div', 'table-wrap', [t]);
  }

  /* A row that opens href when clicked anywhere (its first cell holds the real link). */
  function clickRow(href, cells, rowId) {
    var tr = el('tr', 'click', cells);
    tr.dataset.id = rowId;
    tr.addEventListener('click', function (ev) {
      if (ev.target.closest('a') || (window.getSelection && String(window.getSelection()))) return;
      location.href = href;
    });
    return tr;
  }

  function topFrame(g) {
    if (!g.file && !g.function) return el('span', 'dim', ['unknown']);
    var where = g.file ? basename(g.file) + ':' + g.line : '';
    return titled(el('span', null, [g.function || '??', ' ', el('span', 'dim', [where])]),
                  g.file ? g.file + ':' + g.line : '');
  }

  function signalTag(name) {
    return el('span', name ? 'sigtag' : 'sigtag request', [name || 'request']);
  }

  function groupsPage() {
    var groups = data.groups, crashes = 0, page = document.getElementById('page');
    groups.forEach(function (g) { crashes += g.count; });
    document.title = 'Crash groups \u2014 crashtrail';
    crumbs([['crash groups']]);
    page.appendChild(el('h1', null, ['Crash groups', el('span', 'dim', [plural(groups.length, 'group', 'groups') + ', ' + plural(crashes, 'crash', 'crashes')])]));
    if (!groups.length) {
      page.appendChild(el('p', 'empty', ['No crashes in this store yet. Add some with: crashtrail ingest DUMP... --db ' + data.db]));
      return;
    }
    page.appendChild(table('groups', ['group', 'count', 'signal', 'signature', 'top frame', 'program', 'builds',
                                      'first seen (UTC)', 'last seen (UTC)'], groups.map(function (g) {
      var href = '/group/' + id(g.id);
      return clickRow(href, [
        el('td', 'num c-group', [link(href, ['#' + g.id])]),
        el('td', 'num c-count', [g.count]),
        el('td', 'c-signal', [signalTag(g.signal)]),
        el('td', 'wrap c-signature', [link(href, [g.signature])]),
        el('td', 'c-top', [topFrame(g)]),
        titled(el('td', 'c-program', [basename(g.program)]), g.program),
        el('td', 'num c-builds', [g.builds]),
        el('td', 'c-first', [utc(g.first * 1000)]),
        el('td', 'c-last', [utc(g.last * 1000)])], g.id);
    })));
  }

  function fault(c) {
    if (!c.signal) return el('span', 'dim', [c.message ? 'on request: ' + c.message : 'on request']);
    return el('span', null, [c.code || '', /SEGV|BUS|ILL|FPE/.test(c.signal) ? el('span', 'dim', [' at ']) : null,
                             /SEGV|BUS|ILL|FPE/.test(c.signal) ? c.fault : null]);
  }

  function groupPage() {
    var g = data.group, page = document.getElementById('page');
    document.title = 'Group ' + g.id + ': ' + g.signature + ' \u2014 crashtrail';
    crumbs([['crash groups', '/'], ['group #' + g.id]]);
    page.appendChild(el('h1', null, [signalTag(g.signal), el('span', 'sig', [g.signature])]));
    var facts = [['crashes', String(g.count)], ['top frame', topFrame(g)], ['builds', String(g.builds)],
                 ['first seen', utc(g.first * 1000) + ' UTC'], ['last seen', utc(g.last * 1000) + ' UTC']];
    page.appendChild(el('dl', 'facts', [].concat.apply([], facts.map(function (f) {
      return [el('dt', null, [f[0]]), el('dd', 'f-' + f[0].replace(' ', '-'), [f[1]])];
    }))));
    page.appendChild(table('crashes', ['crash', 'time (UTC)', 'program', 'pid', 'thread', 'fault', 'build', 'dump'],
                           data.crashes.map(function (c) {
      var href = '/crash/' + id(c.id);
      return clickRow(href, [
        el('td', 'num c-crash', [link(href, ['#' + c.id])]),
        el('td', 'c-when', [utc(c.time_ms)]),
        titled(el('td', 'wrap c-program', [basename(c.exe), ' ', el('span', 'dim', [c.args.slice(1).join(' ')])]), c.exe),
        el('td', 'num c-pid', [c.pid]),
        el('td', 'c-thread', [c.thread ? c.thread + ' ' : '', el('span', 'dim', ['(' + c.tid + ')'])]),
        el('td', 'c-fault', [fault(c)]),
        titled(el('td', 'c-build', [c.builds.map(function (b) { return b.slice(0, 12); }).join(' ')]), c.builds.join('\n')),
        titled(el('td', 'c-dump', [basename(c.dump)]), c.dump)], c.id);
    })));
  }

  function errorPage() {
    var page = document.getElementById('page');
    document.title = data.status + ' ' + data.reason + ' \u2014 crashtrail';
    crumbs([['crash groups', '/'], [String(data.status)]]);
    page.appendChild(el('div', 'error-box', [
      el('h1', null, [data.status + ' ' + data.reason]),
      el('p', 'message', [data.message]),
      el('p', null, [link('/', ['The crash groups'])])]));
  }

  document.getElementById('store').textContent = data.db || '';
  if (data.page === 'groups') groupsPage();
  else if (data.page === 'group') groupPage();
  else errorPage();
  document.body.dataset.ready = '1';
})();
