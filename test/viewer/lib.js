/*
 * lib.js - what the viewer tests share: building a crashing program with crashtrail-cc,
 * crashing it, making its report, and opening the report in Debian's headless chromium
 * (driven by playwright-core; the browser is never downloaded) from file://, with every
 * non-file request recorded and aborted.
 *
 * Environment (set by test/viewer/CMakeLists.txt): CT_BUILD the build tree (bin/ has
 * crashtrail and crashtrail-cc), CT_WORK a scratch directory, CT_CHROMIUM the browser.
 */
'use strict';
const assert = require('node:assert/strict');
const { spawnSync } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');

const BUILD = process.env.CT_BUILD || path.resolve(__dirname, '../../build');
const BIN = path.join(BUILD, 'bin');
const WORK = process.env.CT_WORK || path.join(os.tmpdir(), 'crashtrail-viewer-tests');
const CHROMIUM = process.env.CT_CHROMIUM || '/usr/bin/chromium';
const PROGRAMS = path.join(__dirname, 'programs');
const EXAMPLES = path.resolve(__dirname, '../../examples');

function loadPlaywright() {
  try {
    return require('playwright-core');
  } catch (e) {
    throw new Error('playwright-core is not installed in test/viewer/node_modules: run the viewer.setup ' +
                    'test (ctest -R viewer.setup) or `npm ci` in test/viewer (needs the npm registry)');
  }
}

/* A fresh scratch directory for one test. */
function workDir(name) {
  const dir = path.join(WORK, name);
  fs.rmSync(dir, { recursive: true, force: true });
  fs.mkdirSync(dir, { recursive: true });
  return dir;
}

function run(cmd, args, opts) {
  const r = spawnSync(cmd, args, { encoding: 'utf8', maxBuffer: 1 << 28, ...opts });
  if (r.error) throw r.error;
  return r;
}

/* Builds sources with crashtrail-cc, runs the program (which must die of SIGSEGV) in dir and
 * returns the path of the dump it wrote. */
function crash(dir, name, sources, { flags = [], args = [], env = {} } = {}) {
  const exe = path.join(dir, name);
  /* CT_CC_FLAGS: more flags for every program (viewer.threads_deferred: deferred calls) */
  const more = (process.env.CT_CC_FLAGS || '').split(/\s+/).filter(Boolean);
  const cc = run(path.join(BIN, 'crashtrail-cc'), ['-O0', ...flags, ...more, ...sources, '-o', exe]);
  assert.equal(cc.status, 0, `crashtrail-cc failed:\n${cc.stderr}`);
  const r = run(exe, args, { cwd: dir, env: { ...process.env, ...env } });
  assert.equal(r.signal, 'SIGSEGV', `${name} should die of SIGSEGV, got status ${r.status} signal ${r.signal}`);
  const dumps = fs.readdirSync(dir).filter((f) => f.endsWith('.ctd'));
  assert.equal(dumps.length, 1, `one dump expected in ${dir}, found ${dumps}`);
  return path.join(dir, dumps[0]);
}

function crashtrail(args, opts) {
  return run(path.join(BIN, 'crashtrail'), args, opts);
}

/* `crashtrail report DUMP -o OUT`, which must succeed. Returns OUT. */
function report(dump, out, extra = []) {
  const r = crashtrail(['report', dump, '-o', out, ...extra]);
  assert.equal(r.status, 0, `crashtrail report failed:\n${r.stderr}`);
  return out;
}

/* The JSON timeline of a dump (`crashtrail show --format=json`), to check the page against. */
function showJson(dump) {
  const r = crashtrail(['show', '--format=json', dump]);
  assert.equal(r.status, 0, r.stderr);
  return JSON.parse(r.stdout);
}

/* The data object embedded in a report. */
function reportData(file) {
  const html = fs.readFileSync(file, 'utf8');
  const m = /<script type="application\/json" id="ct-data">([^]*?)<\/script>/.exec(html);
  assert.ok(m, 'the report embeds its data');
  return JSON.parse(m[1]);
}

/* A browser with a fresh profile, and a record of every request any page makes. */
async function launch({ colorScheme = 'light', viewport = { width: 1400, height: 800 } } = {}) {
  const { chromium } = loadPlaywright();
  const profile = fs.mkdtempSync(path.join(os.tmpdir(), 'crashtrail-chromium-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM, headless: true, viewport, colorScheme,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
           '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
  const requests = [], blocked = [];
  context.on('request', (r) => requests.push(r.url()));
  await context.route('**/*', (route) => {
    const url = route.request().url();
    if (url.startsWith('file://')) return route.continue();
    blocked.push(url);
    return route.abort();
  });
  return {
    context, requests, blocked,
    async close() {
      await context.close();
      fs.rmSync(profile, { recursive: true, force: true });
    },
  };
}

/* Opens a report (with an optional #fragment) and waits until it has rendered. */
async function open(browser, file, hash = '') {
  const page = browser.context.pages()[0] || (await browser.context.newPage());
  page.errors = [];
  page.on('pageerror', (e) => page.errors.push(e.stack || e.message));
  await page.goto('file://' + file + hash);
  try {
    await page.waitForSelector('body[data-ready="1"]', { timeout: 30000 });
  } catch (e) {
    throw new Error(`the report did not open: ${page.errors.join('; ') || e.message}`);
  }
  return page;
}

/* Whether the element matching selector is wholly inside the visible part of its scroller. */
/* Whether the element is inside the scroller's visible box. Polled for up to 2 s: the
 * virtual lists render and scroll in animation frames, which a loaded machine delays. */
async function inView(page, selector, scroller) {
  const check = () => page.evaluate(([sel, scr]) => {
    const e = document.querySelector(sel), s = document.querySelector(scr);
    if (!e || !s || e.hidden) return false;
    const a = e.getBoundingClientRect(), b = s.getBoundingClientRect();
    return a.height > 0 && a.top >= b.top - 0.5 && a.bottom <= b.bottom + 0.5;
  }, [selector, scroller]);
  for (let i = 0; i < 40; i++) {
    if (await check()) return true;
    await page.waitForTimeout(50);
  }
  return check();
}

/* The selected step: {seq, text of its row cells}, from the DOM. */
async function selected(page) {
  return page.evaluate(() => {
    const r = document.querySelector('#steps .step.sel');
    if (!r) return null;
    const t = (c) => r.querySelector(c).textContent;
    return { seq: +t('.c-seq'), loc: t('.c-loc'), fn: t('.fn'), code: t('.c-code'), cls: r.className,
             status: document.getElementById('status').textContent, hash: location.hash };
  });
}

/* The source pane: {path, line} it shows and the number of its current (marked) line. */
async function sourcePane(page) {
  return page.evaluate(() => {
    const s = document.getElementById('source'), cur = document.querySelector('#src-lines .src.cur .ln');
    return { path: s.dataset.file, line: +s.dataset.line, curLine: cur ? +cur.textContent : -1,
             name: document.getElementById('src-path').textContent };
  });
}

/* The name of the current thread's lane, once it matches `re` (the lanes are redrawn in an
 * animation frame after a selection, so a loaded machine shows the old lane for a moment); the
 * name it has after 5 s otherwise, for the caller's assertion to report. */
async function currentLane(page, re) {
  const sel = '#lanes .lane.cur .lane-name';
  await page.waitForFunction(([s, src]) => {
    const e = document.querySelector(s);
    return e && new RegExp(src).test(e.textContent);
  }, [sel, re.source], { timeout: 5000 }).catch(() => {});
  return page.textContent(sel);
}

/* The crash step of the crashed thread in `crashtrail show --format=json` output. */
function crashStep(json) {
  const th = json.threads.find((t) => t.crashed);
  const s = th.steps.find((x) => x.crash);
  return { thread: th, step: s };
}

module.exports = { assert, BIN, EXAMPLES, PROGRAMS, WORK, workDir, crash, crashtrail, report, reportData,
                   showJson, launch, open, inView, selected, sourcePane, currentLane, crashStep, run };
