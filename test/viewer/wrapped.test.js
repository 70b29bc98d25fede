/*
 * wrapped.test.js - a crash whose ring wrapped (programs/million.c with an 8 KB ring): the
 * oldest history is gone, the first remaining step carries the GAP flag, and the page opens on
 * the crash and marks that step as following lost history.
 */
'use strict';
const { test, before, after } = require('node:test');
const path = require('node:path');
const L = require('./lib');
const { assert } = L;

let json, browser, page;

before(async () => {
  const dir = L.workDir('wrapped');
  const dump = L.crash(dir, 'million', [path.join(L.PROGRAMS, 'million.c')],
                       { args: ['20000'], env: { CRASHTRAIL_RING_KB: '8' } });
  json = L.showJson(dump);
  const html = L.report(dump, path.join(dir, 'wrapped.html'));
  browser = await L.launch();
  page = await L.open(browser, html);
});

after(async () => {
  if (browser) await browser.close();
});

test('the ring wrapped: the first step follows lost history', () => {
  const th = json.threads.find((t) => t.crashed);
  assert.equal(th.history_lost, true);
  assert.equal(th.steps[0].gap, true);
});

test('the page opens on the crash and marks the step after the lost history', async () => {
  const { step } = L.crashStep(json);
  assert.equal((await L.selected(page)).seq, step.seq);
  assert.ok(await L.inView(page, '#steps .step.crash', '#steps'));
  await page.keyboard.press('g');
  const first = page.locator('#steps .step.sel');
  assert.equal(await first.locator('.c-seq').textContent(), '0');
  assert.equal(await first.locator('.c-mark').textContent(), '≈');
  assert.match(await first.locator('.c-mark').getAttribute('title'), /history was lost/);
  assert.match(await first.getAttribute('class'), /\bgap\b/);
  assert.deepEqual(page.errors, []);
  assert.deepEqual(browser.blocked, []);
});
