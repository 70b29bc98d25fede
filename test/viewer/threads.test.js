/*
 * threads.test.js - a crash in a worker thread while another thread exists (programs/
 * two_threads.c): one lane per thread, the report opens on the crashed thread, a lane click or
 * `t` switches threads at the same moment (the main thread had finished its loop when the
 * worker crashed: that moment is its last step, or the first step stamped after it), and loops
 * fold in each thread.
 */
'use strict';
const { test, before, after } = require('node:test');
const path = require('node:path');
const L = require('./lib');
const { assert } = L;

let dump, html, json, browser, page, worker, main;

before(async () => {
  const dir = L.workDir(process.env.CT_CC_FLAGS ? 'threads_deferred' : 'threads');
  dump = L.crash(dir, 'two_threads', [path.join(L.PROGRAMS, 'two_threads.c')], { flags: ['-pthread'] });
  json = L.showJson(dump);
  worker = json.threads.find((t) => t.name === 'worker');
  main = json.threads.find((t) => t.name === 'main-loop');
  assert.ok(worker && worker.crashed && main && main.steps.length > 0, 'two threads recorded, the worker crashed');
  html = L.report(dump, path.join(dir, 'threads.html'));
  browser = await L.launch();
  page = await L.open(browser, html);
});

after(async () => {
  if (browser) await browser.close();
});

const laneNames = () => page.$$eval('#lanes .lane .lane-name', (ls) => ls.map((l) => l.firstChild.textContent));
const currentLane = (re) => L.currentLane(page, re);

test('one lane per thread; the crashed thread is open at its crash', async () => {
  assert.deepEqual((await laneNames()).sort(), ['main-loop', 'worker']);
  assert.match(await currentLane(/^worker/), /^worker/);
  assert.match(await page.textContent('#lanes .lane.cur'), /CRASHED/);
  const { step } = L.crashStep(json);
  assert.equal((await L.selected(page)).seq, step.seq);
  assert.ok(await L.inView(page, '#steps .step.crash', '#steps'));
  assert.ok(await L.inView(page, '#src-lines .src.crash', '#src-lines'));
});

/* the function names in the step rows drawn on screen (a virtual list's hidden pool rows keep
 * the content they last had: they are not listed) */
const listedFns = () => page.$$eval('#steps .step:not([hidden]) .fn', (f) => f.map((x) => x.textContent).filter(Boolean));

async function onlyMainListed() {
  const fns = await listedFns();
  const mainFns = new Set(main.steps.map((s) => s.function));
  assert.ok(fns.length > 0 && fns.every((f) => mainFns.has(f.replace(/^[^\w]+/, '').trim())) && !fns.some((f) => /worker/.test(f)),
    `only main-loop steps are listed: ${[...new Set(fns)].join(', ')}`);
}

test('a lane click opens the other thread; its steps and source follow', async () => {
  await page.click('#lanes .lane:has-text("main-loop") .lane-name');
  assert.match(await currentLane(/^main-loop/), /^main-loop/);
  const sel = await L.selected(page);
  assert.match(sel.hash, new RegExp(`^#t=${main.tid}&s=\\d+$`));
  assert.match(sel.status, /thread main-loop/);
  /* the step of main at the moment of the worker's crash: the first one at or after it (step
   * times are those of their ring chunk), else main's last step, which is where it was */
  const data = L.reportData(html), at = (th, s) => {
    let t = NaN;
    for (let k = 0; k < th.time.length && th.time[k] <= s; k += 2) t = th.time[k + 1];
    return t;
  };
  const dw = data.threads.find((t) => t.tid === worker.tid), dm = data.threads.find((t) => t.tid === main.tid);
  const crashTime = at(dw, L.crashStep(json).step.seq);
  let expected = -1;
  for (let s = 0; s < dm.n && expected < 0; s++) if (at(dm, s) >= crashTime) expected = s;
  if (expected < 0) expected = dm.n - 1;
  assert.equal(sel.seq, expected);
  const last = main.steps[expected];
  const src = await L.sourcePane(page);
  assert.equal(src.path, last.file);
  assert.equal(src.line, last.line);
  /* the window around that moment may hold only mix() steps (when main was inside its loop):
   * what matters is that they are main-loop's, none of worker()'s */
  await onlyMainListed();
  /* at main's last step the list ends inside the view: the pool rows past its end are hidden
   * and may still hold rows drawn before (the worker's, in CI's failed run); none may show */
  await page.keyboard.press('G');
  assert.equal((await L.selected(page)).seq, dm.n - 1);
  await onlyMainListed();
  /* main-loop was stopped for the dump (in pthread_join): its stack is in the dump, and its
   * last step says where it was, marked as stopped, not as a crash */
  assert.ok(main.stack.some((f) => f.function === 'main'), `main-loop's stack: ${JSON.stringify(main.stack)}`);
  assert.ok(main.steps[main.steps.length - 1].crash, "main-loop's last step is where it was stopped");
  assert.equal(await page.$$eval('#steps .step.crash:not([hidden])', (r) => r.length), 0, 'no crash row in main-loop');
  assert.ok(await L.inView(page, '#steps .step.stopped', '#steps'), "main-loop's last step is marked stopped");
  await page.keyboard.press('g');
  assert.equal((await L.selected(page)).seq, 0);
  assert.match(await page.textContent('#steps .foldrow'), /loop ×\d+/, 'the main loop is folded');
});

test('`t` switches back to the worker at the same moment, and the link names the thread', async () => {
  await page.keyboard.press('t');
  assert.match(await currentLane(/^worker/), /^worker/);
  const sel = await L.selected(page);
  assert.match(sel.hash, new RegExp(`^#t=${worker.tid}&s=\\d+$`));
  await page.goto('file://' + html + `#t=${main.tid}&s=3`);
  await page.waitForSelector('body[data-ready="1"]');
  assert.match(await currentLane(/^main-loop/), /^main-loop/);
  assert.equal((await L.selected(page)).seq, 3);
});

test('no network request, no script error', async () => {
  assert.deepEqual(browser.blocked, []);
  for (const r of browser.requests) assert.ok(r.startsWith('file://'), r);
  assert.deepEqual(page.errors, []);
});
