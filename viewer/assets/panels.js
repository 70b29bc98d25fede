/*
 * panels.js - everything around the step list: the crash summary at the top, and the Stack,
 * Last executed, First executed, Modules and Warnings views. All text reaches the page
 * through textContent or text nodes (el() below): nothing from the report is parsed as HTML.
 */
(function () {
  'use strict';

  /* An element with a class and text children (strings become text nodes). */
  function el(tag, cls, children) {
    var e = document.createElement(tag);
    if (cls) e.className = cls;
    (children || []).forEach(function (c) {
      if (c === null || c === undefined) return;
      e.appendChild(typeof c === 'string' || typeof c === 'number' ? document.createTextNode(String(c)) : c);
    });
    return e;
  }
  CT.el = el;

  function threadLabel(th) {
    return (th.name ? th.name + ' ' : '') + '(' + th.tid + ')';
  }

  CT.renderSummary = function (app) {
    var m = app.model, s = m.summary, sig = s.signal;
    var badge = document.getElementById('sum-signal'), what = document.getElementById('sum-what');
    badge.textContent = sig ? sig.name : 'DUMP';
    badge.classList.toggle('request', !sig);
    var parts = [];
    if (sig) {
      parts.push(sig.code || '');
      if (/SEGV|BUS|ILL|FPE/.test(sig.name)) parts.push(el('span', 'dim', [' at ']), sig.fault);
      if (sig.sender_pid !== undefined) parts.push(el('span', 'dim', [' sent by pid ']), String(sig.sender_pid));
    } else parts.push(s.message ? 'on request: ' + s.message : 'on request');
    var ct = m.threads[m.crashThread];
    if (ct) parts.push(el('span', 'dim', [sig ? ' in thread ' : ' from thread ']), threadLabel(ct));
    what.textContent = '';
    parts.forEach(function (p) { what.appendChild(typeof p === 'string' ? document.createTextNode(p) : p); });
    var top = document.getElementById('sum-top'), loc = app.crashLocation();
    if (loc) {
      top.textContent = (m.str(loc.fn) || '??') + '  ' + CT.basename(m.str(loc.file)) + ':' + loc.line;
      top.onclick = function () { app.goCrash(); };
    } else top.hidden = true;
    var proc = document.getElementById('sum-process'), steps = 0, kept = 0;
    m.threads.forEach(function (th) { steps += th.first + th.n; kept += th.n; });
    proc.textContent = '';
    [s.exe, ' ', el('span', 'dim', [s.args.slice(1).join(' ')]), el('span', 'dim', ['  \u00b7  pid ']), String(s.pid),
     el('span', 'dim', ['  \u00b7  ']), s.time.replace('T', ' ').replace('Z', ' UTC'),
     el('span', 'dim', ['  \u00b7  ' + m.threads.length + ' thread' + (m.threads.length === 1 ? '' : 's') + ', ' +
       steps.toLocaleString() + ' steps' +
       (kept < steps ? ' (the newest ' + kept.toLocaleString() + ' kept)' : '')])].forEach(function (p) {
      proc.appendChild(typeof p === 'string' ? document.createTextNode(p) : p);
    });
    if (s.warnings.length) {
      var w = el('span', 'warn', ['  \u00b7  ' + s.warnings.length + ' warning' + (s.warnings.length > 1 ? 's' : '')]);
      w.onclick = function () { app.showView('warnings'); };
      proc.appendChild(w);
    }
    document.title = (sig ? sig.name : 'Dump') + ' in ' + CT.basename(s.exe) + ' \u2014 crashtrail';
  };

  function table(headers, rows) {
    var t = el('table', 'grid'), head = el('tr', null, headers.map(function (h) { return el('th', null, [h]); }));
    t.appendChild(el('thead', null, [head]));
    var body = el('tbody');
    rows.forEach(function (r) { body.appendChild(r); });
    t.appendChild(body);
    return el('div', 'table-wrap', [t]);
  }

  CT.renderStack = function (app, container) {
    var m = app.model, parts = [];
    m.threads.forEach(function (th) {
      if (!th.stack.length) return;
      var n = 0;
      var rows = th.stack.map(function (f, i) {
        var tr = el('tr', 'click' + (i === 0 && th.crashed ? ' crash-frame' : ''), [
          el('td', 'dim', [f.inlined ? '' : '#' + n]),
          el('td', i === 0 && th.crashed ? 'crash' : null, [(m.str(f.fn) || '??') + (f.inlined ? ' (inlined)' : '')]),
          el('td', null, [f.file >= 0 ? CT.basename(m.str(f.file)) + ':' + f.line : '?']),
          el('td', 'dim', [m.moduleName(f.module)]), el('td', 'dim', [f.pc])]);
        if (!f.inlined) n++;
        tr.onclick = function () {
          container.querySelectorAll('tr.sel').forEach(function (x) { x.classList.remove('sel'); });
          tr.classList.add('sel');
          if (f.file >= 0) app.source.show(f.file, f.line, null);
        };
        return tr;
      });
      parts.push(el('div', 'view-note', ['Stack of thread ' + threadLabel(th) + ', innermost first']));
      parts.push(table(['#', 'function', 'line', 'module', 'pc'], rows));
      if (th.locals) {
        var L = th.locals, where = CT.basename(L.file) + ':' + L.line;
        parts.push(el('div', 'view-note', ['Variables of ' + L.fn + ' at ' + where +
                                           ' (values from the dumped registers and stack)']));
        parts.push(table(['type', 'name', 'value', 'in'], L.vars.map(function (v) {
          return el('tr', 'local', [el('td', 'dim', [v.type]), el('td', null, [v.name]),
                                    el('td', v.known ? 'value' : 'dim', [v.value]), el('td', 'dim', [v.scope])]);
        })));
      }
    });
    container.textContent = '';
    if (!parts.length) parts.push(el('div', 'empty', ['No stack in this dump.']));
    parts.forEach(function (p) { container.appendChild(p); });
  };

  /* A virtual list of last- or first-execution entries. */
  function ExecList(app, list, scroller, note, what) {
    var m = app.model, self = this;
    this.sel = -1;
    note.textContent = list.length
      ? 'Every line that ran, once, ordered by when it ' + what + ' ran (newest last). Times come from ' +
        'the execution tables (to ' + CT.fmtResolution(m.summary.table_resolution_ns) +
        '; closer times are not ordered); the timeline gives the exact order.'
      : 'No execution tables in this dump (build with -fplugin-arg-crashtrail-mode=tables).';
    this.vl = new CT.VList(scroller, {
      rowHeight: 20,
      create: function (e) {
        ['c-seq', 'c-time', 'c-mod', 'c-tree', 'c-loc', 'c-code'].forEach(function (c) { e[c] = e.appendChild(el('span', c)); });
      },
      render: function (e, i) {
        var x = list[i];
        e.className = 'vl-row exec' + (i === self.sel ? ' sel' : '');
        e['c-seq'].textContent = i;
        e['c-time'].textContent = CT.fmtTime(x.time);
        e['c-mod'].textContent = m.moduleName(x.module);
        e['c-tree'].textContent = m.str(x.fn) || '??';
        e['c-loc'].textContent = CT.basename(m.str(x.file)) + ':' + x.line;
        e['c-code'].textContent = m.lineText(x.file, x.line).replace(/^\s+/, '');
      },
      onClick: function (i) {
        self.sel = i;
        self.vl.draw();
        if (list[i].file >= 0) app.source.show(list[i].file, list[i].line, null);
      }
    });
    this.vl.setCount(list.length);
  }
  CT.ExecList = ExecList;

  CT.renderModules = function (app, container) {
    var rows = app.model.modules.map(function (mod) {
      return el('tr', null, [el('td', null, [mod.name]), el('td', 'dim', [mod.instrumented ? 'recorded' : 'stack only']),
        el('td', null, [mod.path || '']), el('td', 'dim', [mod.build_id || '']), el('td', 'dim', [mod.bias]),
        el('td', 'dim', [mod.debug || ''])]);
    });
    container.textContent = '';
    container.appendChild(table(['module', 'kind', 'path', 'build id', 'load bias', 'debug file'], rows));
  };

  CT.renderWarnings = function (app, container) {
    var w = app.model.summary.warnings;
    container.textContent = '';
    if (!w.length) container.appendChild(el('div', 'empty', ['No warnings: the record decoded cleanly.']));
    else container.appendChild(el('ul', 'warn-list', w.map(function (x) { return el('li', null, [x]); })));
  };
})();
