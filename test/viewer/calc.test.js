/*
 * calc.test.js - the report of the calc example (examples/calc, a NULL dereference in
 * factor()) in a real browser: opens on the crash, folds and unfolds a loop, collapses a call,
 * follows a step into the source, keyboard navigation, a step link that survives a reload, the
 * help overlay, and no network request. Saves a screenshot (CRASHTRAIL_UPDATE_SCREENSHOT=1 also
 * writes docs/images/report.png, the one the README shows).
 */
'use strict';
const { test, before, after } = require('node:test');
const fs = require('node:fs');
const path = require('node:path');
const L = require('./lib');
const { assert } = L;

let dir, dump, html, json, browser, page;

before(async () => {
  dir = L.workDir('calc');
  const calc = path.join(L.EXAMPLES, 'calc');
  const sources = fs.readdirSync(calc).filter((f) => f.endsWith('.c')).map((f) => path.join(calc, f));
  dump = L.crash(dir, 'calc', sources, { flags: ['-fplugin-arg-crashtrail-mode=tables', '-g'] });
  json = L.showJson(dump);
  html = L.report(dump, path.join(dir, 'calc.html'));
  browser = await L.launch();
  page = await L.open(browser, html);
});

after(async () => {
  if (browser) await browser.close();
});

test('opens on the crash: the crash line is marked, selected and in view in both panes', async () => {
  const { thread, step } = L.crashStep(json);
  const sel = await L.selected(page);
  assert.equal(sel.seq, step.seq, 'the crash step is selected');
  assert.match(sel.cls, /\bcrash\b/);
  assert.ok(await L.inView(page, '#steps .step.crash', '#steps'), 'the crash row is visible');
  assert.equal(sel.hash, `#t=${thread.tid}&s=${step.seq}`);
  const src = await L.sourcePane(page);
  assert.equal(src.path, step.file);
  assert.equal(src.line, step.line);
  assert.ok(await L.inView(page, '#src-lines .src.crash', '#src-lines'), 'the crash line is visible in the source');
  const crashLine = await page.textContent('#src-lines .src.crash .ln');
  assert.equal(+crashLine, step.line);
  assert.equal(await page.textContent('#sum-signal'), 'SIGSEGV');
  assert.match(await page.textContent('#sum-what'), new RegExp(json.signal.fault_address));
  assert.match(await page.textContent('#sum-top'), new RegExp(`${step.function}\\s+${path.basename(step.file)}:${step.line}`));
  assert.deepEqual(page.errors, []);
});

test('a loop is folded with its count, and unfolds and folds again on a click', async () => {
  const index = await page.getAttribute('#steps .foldrow', 'data-index');
  assert.ok(index !== null, 'a folded loop is in view near the crash');
  const header = page.locator(`#steps .vl-row[data-index="${index}"]`);
  const after = async () => +(await page.textContent(`#steps .vl-row[data-index="${+index + 1}"] .c-seq`));
  const text = await header.textContent();
  assert.match(text, /loop ×\d+/);
  const hidden = +/earlier iterations folded \((\d+) steps\)/.exec(text)[1];
  const lastIteration = await after();
  await header.click();
  assert.match(await header.textContent(), /click to fold/);
  assert.equal(await after(), lastIteration - hidden, 'every iteration is shown after the header');
  await header.click();
  assert.match(await header.textContent(), /click to expand/);
  assert.equal(await after(), lastIteration);
});

test('a call collapses to its entry line and expands again', async () => {
  const entry = page.locator('#steps .step.entry .tw:text("▾")').last();
  const row = entry.locator('xpath=ancestor::div[contains(@class,"vl-row")]');
  const seq = +(await row.locator('.c-seq').textContent());
  await entry.click();
  const collapsed = page.locator(`#steps .step:has(.c-seq a[href$="&s=${seq}"])`);
  assert.match(await collapsed.locator('.calls').textContent(), /… \d+ steps/);
  await collapsed.locator('.tw').click();
  assert.equal(await collapsed.locator('.calls').textContent(), '');
});

test('selecting a step shows its file and line in the source pane', async () => {
  const row = page.locator('#steps .step', { has: page.locator('.c-loc', { hasText: /^lexer\.c:\d+$/ }) }).first();
  const loc = await row.locator('.c-loc').textContent();
  const seq = +(await row.locator('.c-seq').textContent());
  await row.locator('.c-code').click();
  const sel = await L.selected(page);
  assert.equal(sel.seq, seq);
  const src = await L.sourcePane(page);
  assert.equal(src.name, 'lexer.c');
  assert.ok(src.path.endsWith('/examples/calc/lexer.c'));
  assert.equal(`lexer.c:${src.line}`, loc);
  assert.equal(src.curLine, src.line, 'the current line is marked');
  assert.ok(await L.inView(page, '#src-lines .src.cur', '#src-lines'), 'and scrolled into view');
});

test('keyboard: previous and next step, out of and into a call, the crash', async () => {
  const { step } = L.crashStep(json);
  await page.keyboard.press('c');
  assert.equal((await L.selected(page)).seq, step.seq);
  await page.keyboard.press('k');
  assert.equal((await L.selected(page)).seq, step.seq - 1);
  await page.keyboard.press('ArrowUp');
  assert.equal((await L.selected(page)).seq, step.seq - 2);
  await page.keyboard.press('j');
  assert.equal((await L.selected(page)).seq, step.seq - 1);
  await page.keyboard.press('c');
  const depth = async () => +/depth (\d+)/.exec((await L.selected(page)).status)[1];
  const d0 = await depth();
  await page.keyboard.press('h');
  const site = await L.selected(page);
  assert.equal(await depth(), d0 - 1, 'out of the call: one level up');
  assert.match(site.status, /\bterm\s/, 'factor was called from term');
  await page.keyboard.press('l');
  assert.equal(await depth(), d0, 'into the call again');
  assert.equal((await L.selected(page)).seq, site.seq + 1);
  assert.ok(await L.inView(page, '#steps .step.sel', '#steps'));
});

test('a step link survives a reload', async () => {
  await page.keyboard.press('c');
  for (let i = 0; i < 5; i++) await page.keyboard.press('k');
  const sel = await L.selected(page);
  assert.match(sel.hash, /^#t=\d+&s=\d+$/);
  await page.reload();
  await page.waitForSelector('body[data-ready="1"]');
  const again = await L.selected(page);
  assert.equal(again.seq, sel.seq);
  assert.equal(again.hash, sel.hash);
  assert.ok(await L.inView(page, '#steps .step.sel', '#steps'));
  const src = await L.sourcePane(page);
  assert.equal(`${path.basename(src.path)}:${src.line}`, sel.loc);
});

test('the help overlay lists the keys and closes with Escape', async () => {
  await page.keyboard.press('?');
  assert.ok(await page.isVisible('#help'));
  assert.match(await page.textContent('#help'), /next step/);
  await page.keyboard.press('Escape');
  assert.ok(!(await page.isVisible('#help')));
});

test('the other views: stack, last and first executed, modules', async () => {
  await page.keyboard.press('2');
  assert.match(await page.textContent('#view-stack'), new RegExp(L.crashStep(json).step.function));
  /* the crashing frame's variables (built with -g), as `crashtrail show` has them */
  const crashed = json.threads.find((t) => t.crashed);
  assert.ok(crashed.locals && crashed.locals.variables.length > 0, 'the dump has the crashing frame\'s variables');
  const rows = await page.$$eval('#view-stack tr.local', (rs) => rs.map((r) => [...r.cells].map((c) => c.textContent)));
  assert.deepEqual(rows, crashed.locals.variables.map((v) => [v.type, v.name, v.shown, v.function]));
  await page.keyboard.press('3');
  await page.locator('#last-list .exec').first().waitFor();
  assert.ok(json.last_executed.length > 0);
  /* one thread: the tables keep the clock's unit, and the note says so */
  assert.equal(json.table_resolution_ns, 65536);
  assert.match(await page.textContent('#last-note'), /to 65\.5 \u00b5s/);
  await page.keyboard.press('4');
  await page.locator('#first-list .exec').first().waitFor();
  await page.locator('#first-list .exec').first().click();
  const first = json.first_executed[0];
  assert.equal((await L.sourcePane(page)).line, first.line);
  await page.keyboard.press('5');
  assert.match(await page.textContent('#view-modules'), /calc/);
  await page.keyboard.press('1');
  assert.ok(await page.isVisible('#steps'));
});

test('screenshot of the report at the crash', async () => {
  await page.keyboard.press('c');
  const shot = path.join(dir, 'report.png');
  await page.screenshot({ path: shot });
  assert.ok(fs.statSync(shot).size > 10000);
  if (process.env.CRASHTRAIL_UPDATE_SCREENSHOT === '1') {
    const dest = path.resolve(__dirname, '../../docs/images/report.png');
    fs.mkdirSync(path.dirname(dest), { recursive: true });
    fs.copyFileSync(shot, dest);
    console.log('screenshot written to', dest);
  }
});

test('the page made no network request', async () => {
  assert.deepEqual(browser.blocked, []);
  const url = 'file://' + html;
  assert.ok(browser.requests.length >= 1);
  for (const r of browser.requests) assert.equal(r.split('#')[0], url);
  assert.deepEqual(page.errors, []);
});
