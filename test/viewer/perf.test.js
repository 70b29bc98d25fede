/*
 * perf.test.js - a million steps (programs/million.c, 100000 iterations with 64 MiB rings):
 * the report stays compact, opens with the crash line in view, and
 * scrolls: to the top, through the middle frame by frame, and with the loops unfolded.
 * Prints the measured times for whoever tunes the viewer but does not judge them (timings on a
 * shared 2-CPU CI machine are not a pass/fail criterion): what it checks is that
 * the report holds the newest million steps, keeps only the visible rows in the DOM, and that
 * every scroll position shows the right rows.
 */
'use strict';
const { test, before, after } = require('node:test');
const fs = require('node:fs');
const path = require('node:path');
const L = require('./lib');
const { assert } = L;

const MAX_REPORT_MB = 40; /* size is deterministic: a real limit */
let html, browser, page, nsteps, first;
const times = {};

before(async () => {
  const dir = L.workDir('perf');
  const dump = L.crash(dir, 'million', [path.join(L.PROGRAMS, 'million.c')],
                       { args: ['100000'], env: { CRASHTRAIL_RING_KB: '65536' } });
  let t = Date.now();
  html = L.report(dump, path.join(dir, 'million.html'));
  times.reportMs = Date.now() - t;
  times.sizeMB = fs.statSync(html).size / 1048576;
  /* the report keeps the newest million steps (crashtrail report --steps); the program runs a
   * few more, so the first kept step is numbered after the ones left out */
  ({ n: nsteps, first } = L.reportData(html).threads[0]);
  assert.ok(nsteps === 1000000 && first > 0, `${nsteps} steps kept after ${first}`);
  browser = await L.launch();
  t = Date.now();
  page = await L.open(browser, html);
  await page.waitForSelector('#steps .step.crash');
  times.openMs = Date.now() - t;
  times.pageInitMs = await page.evaluate(() => CT.openMs);
});

after(async () => {
  console.log(`perf: ${nsteps} steps; report ${times.reportMs} ms, ${times.sizeMB.toFixed(1)} MB; ` +
              `open ${times.openMs} ms (page init ${Math.round(times.pageInitMs)} ms); top ${times.topMs} ms; ` +
              `scroll: two frames avg ${times.frameAvg} ms max ${times.frameMax} ms, drawing rows avg ${times.drawAvg} ms ` +
              `max ${times.drawMax} ms; unfold all ${times.unfoldMs} ms`);
  if (browser) await browser.close();
});

test('about a million steps, in a compact report', () => {
  assert.ok(nsteps >= 900000, `${nsteps} steps`);
  assert.ok(times.sizeMB < MAX_REPORT_MB, `${times.sizeMB} MB`);
});

test('opens on the crash', async () => {
  assert.ok(await L.inView(page, '#steps .step.crash', '#steps'));
  assert.ok(await L.inView(page, '#src-lines .src.crash', '#src-lines'));
  assert.equal((await L.selected(page)).seq, first + nsteps - 1);
  assert.ok((await page.$$('#steps .vl-row')).length < 200, 'only the visible rows are in the DOM');
});

/* Scrolls #steps to a fraction of its range and waits two frames (the time until the rows
 * are on screen); `draw` is the part spent drawing the rows and laying them out. */
const scrollTo = (frac) => page.evaluate((f) => new Promise((done) => {
  const s = document.getElementById('steps'), t0 = performance.now();
  s.scrollTop = f * (s.scrollHeight - s.clientHeight);
  CT.app.steps.vl.draw();
  s.querySelector('.vl-row').getBoundingClientRect();
  const draw = performance.now() - t0;
  requestAnimationFrame(() => requestAnimationFrame(() => done({ frame: performance.now() - t0, draw })));
}), frac);

test('scrolling to the top renders the first rows', async () => {
  times.topMs = Math.round((await scrollTo(0)).frame);
  const shown = await page.$$eval('#steps .step .c-seq', (c) => c.map((x) => +x.textContent));
  assert.ok(shown.includes(first) && shown.includes(first + 1), `the first steps are shown: ${shown.slice(0, 5)}`);
});

test('scrolling through the middle draws the middle rows', async () => {
  const frames = [], draws = [], avg = (a) => a.reduce((x, y) => x + y, 0) / a.length;
  for (let i = 0; i < 60; i++) {
    const t = await scrollTo(0.4 + i * 0.002);
    frames.push(t.frame);
    draws.push(t.draw);
  }
  times.frameAvg = Math.round(avg(frames));
  times.frameMax = Math.round(Math.max(...frames));
  times.drawAvg = avg(draws).toFixed(2);
  times.drawMax = Math.max(...draws).toFixed(2);
  const seqs = await page.$$eval('#steps .step .c-seq', (c) => c.map((x) => +x.textContent));
  assert.ok(seqs.length > 10 && Math.min(...seqs) > first + nsteps * 0.3, `rows of the middle: ${seqs.slice(0, 3)}`);
});

test('with every loop unfolded, a million rows still scroll to the end', async () => {
  times.unfoldMs = Math.round(await page.evaluate(() => {
    const t0 = performance.now(), app = CT.app;
    app.outline(app.cur).setAllFolds(true);
    app.steps.refresh();
    return performance.now() - t0;
  }));
  assert.equal(await page.evaluate(() => CT.app.outline(CT.app.cur).nrows >= CT.app.model.threads[0].n), true);
  await page.keyboard.press('c');
  assert.ok(await L.inView(page, '#steps .step.crash', '#steps'));
  await scrollTo(0);
  const top = await page.$$eval('#steps .step .c-seq', (c) => c.map((x) => +x.textContent));
  assert.ok(top.includes(first), `step ${first} (the first kept) is shown at the top: ${top.slice(0, 5)}`);
  assert.deepEqual(page.errors, []);
  assert.deepEqual(browser.blocked, []);
});
