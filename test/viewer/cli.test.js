/*
 * cli.test.js - `crashtrail report` as a command: exit status 2 and the usage for a wrong
 * command line, 1 and one line on stderr for a bad dump with no file left behind (an existing
 * output kept whole), the source budget (whole files, or excerpts around the lines that ran),
 * and the report's size.
 */
'use strict';
const { test, before } = require('node:test');
const fs = require('node:fs');
const path = require('node:path');
const L = require('./lib');
const { assert } = L;

let dir, dump, json;

before(() => {
  dir = L.workDir('cli');
  const calc = path.join(L.EXAMPLES, 'calc');
  const sources = fs.readdirSync(calc).filter((f) => f.endsWith('.c')).map((f) => path.join(calc, f));
  dump = L.crash(dir, 'calc', sources);
  json = L.showJson(dump);
});

test('a wrong command line: exit 2 with the usage', () => {
  for (const args of [['report'], ['report', dump], ['report', dump, '-o', 'x.html', '--bogus'],
                      ['report', dump, '-o'], ['report', dump, '-o', 'x.html', '--source-budget=lots']]) {
    const r = L.crashtrail(args, { cwd: dir });
    assert.equal(r.status, 2, `${args.join(' ')}: ${r.stderr}`);
    assert.match(r.stderr, /crashtrail: /);
  }
  const r = L.crashtrail(['report', dump, '-o', 'x.html', '--bogus'], { cwd: dir });
  assert.match(r.stderr, /--bogus/);
  assert.match(r.stderr, /usage: crashtrail report DUMP -o FILE/);
  assert.ok(!fs.existsSync(path.join(dir, 'x.html')));
  assert.match(L.crashtrail(['--help']).stdout, /report DUMP -o F/);
});

test('a bad dump: exit 1, one line on stderr, no file left, an existing output kept', () => {
  const bad = path.join(dir, 'bad.ctd'), out = path.join(dir, 'out.html');
  fs.writeFileSync(bad, 'this is not a dump\n');
  let r = L.crashtrail(['report', bad, '-o', out]);
  assert.equal(r.status, 1);
  assert.equal(r.stderr.trim().split('\n').length, 1, r.stderr);
  assert.ok(!fs.existsSync(out));
  fs.writeFileSync(out, 'old report');
  r = L.crashtrail(['report', bad, '-o', out]);
  assert.equal(r.status, 1);
  assert.equal(fs.readFileSync(out, 'utf8'), 'old report');
  r = L.crashtrail(['report', dump, '-o', path.join(dir, 'no such dir', 'r.html')]);
  assert.equal(r.status, 1);
  assert.match(r.stderr, /cannot create/);
  assert.deepEqual(fs.readdirSync(dir).filter((f) => f.includes('.tmp')), [], 'no temporary file is left');
});

test('sources: whole files by default, excerpts around the executed lines past the budget', () => {
  const full = L.reportData(L.report(dump, path.join(dir, 'full.html')));
  const part = L.reportData(L.report(dump, path.join(dir, 'part.html'), ['--source-budget=1']));
  const text = (data, file, line) => {
    const s = data.sources.find((x) => data.strings[x.file] === file);
    for (let k = 0; s && k < s.chunks.length; k += 2)
      if (line >= s.chunks[k] && line < s.chunks[k] + s.chunks[k + 1].length) return s.chunks[k + 1][line - s.chunks[k]];
    return undefined;
  };
  assert.ok(full.sources.length >= 3 && full.sources.every((s) => s.whole));
  assert.ok(part.sources.some((s) => !s.whole), 'a 1 KB budget leaves some files as excerpts');
  const th = json.threads.find((t) => t.crashed);
  for (const s of th.steps) {
    const want = fs.readFileSync(s.file, 'utf8').split('\n')[s.line - 1];
    assert.equal(text(full, s.file, s.line), want, `${s.file}:${s.line} whole`);
    assert.equal(text(part, s.file, s.line), want, `${s.file}:${s.line} excerpt`);
  }
  assert.ok(fs.statSync(path.join(dir, 'part.html')).size < fs.statSync(path.join(dir, 'full.html')).size);
});

test('the report is small and carries what the JSON timeline has', () => {
  const out = L.report(dump, path.join(dir, 'size.html'));
  const size = fs.statSync(out).size;
  console.log(`calc report: ${size} bytes for ${json.threads[0].steps.length} steps`);
  assert.ok(size < 400 * 1024, `${size} bytes`);
  const data = L.reportData(out);
  assert.equal(data.format, 'crashtrail-report');
  assert.equal(data.threads.length, json.threads.length);
  json.threads.forEach((t, i) => {
    const d = data.threads[i];
    assert.equal(d.tid, t.tid);
    assert.equal(d.n, t.steps.length);
    t.steps.forEach((s, k) => {
      const l = d.loc[k] * 7;
      assert.equal(data.strings[data.locs[l]], s.function);
      assert.equal(data.strings[data.locs[l + 1]], s.file);
      assert.equal(data.locs[l + 2], s.line);
    });
  });
});
