/*
 * serve.test.js - `crashtrail serve` in a real browser (Debian's headless chromium). A store
 * holds four real crashes in two groups: programs/two_threads.c built twice (-O0 and -O1: two
 * builds of one program, crashing the same way, a second apart) and programs/hostile.c run from
 * a directory whose name has HTML in it, with a hostile argument and thread name. The store
 * itself sits in a directory whose name has HTML and URI syntax in it (%, ?, #).
 * The server is started with --port 0 and driven like a user: the crash groups (count,
 * signature, top frame, builds, first/last seen, checked against `crashtrail list` and the
 * dumps), a group, a crash (the report's viewer: the crash line marked and in view, a loop
 * folded and unfolded, threads switched), error pages, the hostile strings shown literally, a
 * crash ingested while it serves (there on reload), and SIGTERM stopping it with status 0.
 * CRASHTRAIL_UPDATE_SCREENSHOT=1 also writes docs/images/serve.png.
 */
'use strict';
const { test, before, after } = require('node:test');
const { spawn } = require('node:child_process');
const fs = require('node:fs');
const http = require('node:http');
const net = require('node:net');
const path = require('node:path');
const L = require('./lib');
const { assert } = L;

const ARG = '</script><script>window.__pwned = 2</script>';
let dir, db, server, browser, page;
let dumpA, dumpB, dumpH, jsonA, jsonB, jsonH;

/* Starts `crashtrail serve --db db --port 0`; resolves once it prints its URL. */
function startServer(store) {
  const proc = spawn(path.join(L.BIN, 'crashtrail'), ['serve', '--db', store, '--port', '0'],
                     { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '', err = '';
  const exited = new Promise((resolve) => proc.on('exit', (code, signal) => resolve({ code, signal })));
  proc.stderr.on('data', (d) => { err += d; });
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`crashtrail serve printed no URL in 10 s: ${err}`)), 10000);
    proc.stdout.on('data', (d) => {
      out += d;
      const m = /^serving (http:\/\/127\.0\.0\.1:(\d+)\/)$/m.exec(out);
      if (m) clearTimeout(timer), resolve({ url: m[1], port: +m[2], proc, exited, stdout: () => out, stderr: () => err });
    });
    exited.then(({ code, signal }) => { clearTimeout(timer); reject(new Error(`crashtrail serve exited (${code} ${signal}): ${err}`)); });
  });
}

/* An HTTP request from here (the pages' Content-Security-Policy forbids fetch): {status,
 * headers, body}. */
function request(url, { method = 'GET', body } = {}) {
  return new Promise((resolve, reject) => {
    const req = http.request(url, { method }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (d) => { text += d; });
      res.on('end', () => resolve({ status: res.statusCode, headers: res.headers, body: text }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

/* Opens a served page and waits until its script has run. */
async function openUrl(url) {
  const resp = await page.goto(url);
  await page.waitForSelector('body[data-ready="1"]', { timeout: 30000 });
  return resp;
}

/* The rows of a served table: per row its data-id and each cell's text by its c-* class. */
function rows(table) {
  return page.$$eval(`#${table} tbody tr`, (trs) => trs.map((tr) => {
    const r = { id: +tr.dataset.id };
    for (const td of tr.cells) {
      const c = [...td.classList].find((x) => x.startsWith('c-'));
      r[c.slice(2)] = td.textContent;
      if (td.title) r[c.slice(2) + 'Title'] = td.title;
    }
    return r;
  }));
}

const utc = (iso) => iso.replace('T', ' ').replace('Z', '');  /* as the pages and `list` show it */
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/* `crashtrail list --db`: per group {id, count, first, last, builds, signature, top}. */
function listGroups() {
  const r = L.crashtrail(['list', '--db', db]);
  assert.equal(r.status, 0, r.stderr);
  return r.stdout.trim().split('\n').slice(1).map((line) => {
    const m = /^\s*(\d+)\s+(\d+)\s+(\S+ \S+)\s+(\S+ \S+)\s+(\d+)\s+(.*?)(?:\s+\(([^()]*)\))?$/.exec(line);
    assert.ok(m, line);
    return { id: +m[1], count: +m[2], first: m[3], last: m[4], builds: +m[5], signature: m[6], top: m[7] };
  });
}

function ingest(...dumps) {
  const r = L.crashtrail(['ingest', ...dumps, '--db', db]);
  assert.equal(r.status, 0, r.stderr);
  return r.stdout;
}

before(async () => {
  dir = L.workDir('serve');
  const src = path.join(L.PROGRAMS, 'two_threads.c');
  fs.mkdirSync(path.join(dir, 'a'));
  fs.mkdirSync(path.join(dir, 'b'));
  dumpA = L.crash(path.join(dir, 'a'), 'two_threads', [src], { flags: ['-pthread'] });
  await sleep(1100); /* first and last seen are in seconds: a second apart */
  dumpB = L.crash(path.join(dir, 'b'), 'two_threads', [src], { flags: ['-pthread', '-O1'] });
  const hdir = path.join(dir, 'a <b> & "c" \'d\'');
  fs.mkdirSync(hdir);
  fs.copyFileSync(path.join(L.PROGRAMS, 'hostile.c'), path.join(hdir, 'hostile.c'));
  dumpH = L.crash(hdir, 'hostile', [path.join(hdir, 'hostile.c')], { flags: ['-pthread'], args: [ARG] });
  [jsonA, jsonB, jsonH] = [dumpA, dumpB, dumpH].map(L.showJson);
  assert.notEqual(jsonA.modules[0].build_id, jsonB.modules[0].build_id, 'two builds of two_threads');
  const sdir = path.join(dir, 'store <i>&%41?#\'');
  fs.mkdirSync(sdir);
  db = path.join(sdir, 'crashes.db');
  ingest(dumpA, dumpB, dumpH);
  server = await startServer(db);
  browser = await L.launch();
  /* lib.launch aborts every non-file request; the server's are let through (routes registered
   * later are matched first), anything else is still aborted and recorded */
  const origin = new URL(server.url).origin;
  await browser.context.route((u) => u.origin === origin, (route) => route.continue());
  page = await browser.context.newPage();
  page.errors = [];
  page.on('pageerror', (e) => page.errors.push(e.stack || e.message));
});

after(async () => {
  if (browser) await browser.close();
  if (server && server.proc.exitCode === null) server.proc.kill('SIGKILL');
});

const groupOf = (groups, sig) => groups.find((g) => g.signature === sig);

test('the crash groups: count, signal, signature, top frame, builds, first and last seen', async () => {
  const resp = await openUrl(server.url);
  assert.equal(resp.status(), 200);
  const list = listGroups(), got = await rows('groups');
  assert.equal(got.length, 2, 'two groups');
  assert.deepEqual(got.map((g) => g.id), list.map((g) => g.id), 'the order of `crashtrail list`: last seen first');
  for (const g of list) {
    const r = got.find((x) => x.id === g.id);
    assert.equal(+r.count, g.count);
    assert.equal(r.signature, g.signature);
    assert.equal(+r.builds, g.builds);
    assert.equal(r.first, g.first);
    assert.equal(r.last, g.last);
    assert.equal(r.signal, 'SIGSEGV');
    assert.ok(r.top.endsWith(g.top), `${r.top} names ${g.top}`);
  }
  /* and against the dumps themselves */
  const tt = groupOf(got, 'SIGSEGV at worker');
  assert.ok(tt, `a group "SIGSEGV at worker": ${got.map((g) => g.signature)}`);
  assert.equal(tt.count, '2');
  assert.equal(tt.builds, '2', 'two builds');
  assert.equal(tt.first, utc(jsonA.process.time));
  assert.equal(tt.last, utc(jsonB.process.time));
  assert.notEqual(tt.first, tt.last);
  const { step } = L.crashStep(jsonA);
  assert.equal(tt.top, `${step.function} ${path.basename(step.file)}:${step.line}`);
  assert.equal(tt.program, 'two_threads');
  const h = got.find((g) => g !== tt);
  assert.equal(h.count, '1');
  assert.equal(h.builds, '1');
  assert.equal(h.first, utc(jsonH.process.time));
  assert.equal(await page.textContent('#page h1 .dim'), '2 groups, 3 crashes');
  assert.equal(await page.textContent('#store'), db, 'the store is named');
  const shot = path.join(dir, 'serve.png');
  await page.screenshot({ path: shot });
  if (process.env.CRASHTRAIL_UPDATE_SCREENSHOT === '1') {
    const dest = path.resolve(__dirname, '../../docs/images/serve.png');
    fs.mkdirSync(path.dirname(dest), { recursive: true });
    fs.copyFileSync(shot, dest);
  }
  assert.deepEqual(page.errors, []);
});

test('a group lists its crashes, newest first, each with its build', async () => {
  await openUrl(server.url);
  await Promise.all([page.waitForURL(/\/group\/\d+$/), page.click('#groups tr:has-text("SIGSEGV at worker") .c-signature a')]);
  await page.waitForSelector('body[data-ready="1"]');
  const gid = +/\/group\/(\d+)$/.exec(page.url())[1];
  const crashes = L.crashtrail(['list', '--crashes', '--group', String(gid), '--db', db]).stdout
    .trim().split('\n').slice(1).map((l) => +l.trim().split(/\s+/)[0]);
  const got = await rows('crashes');
  assert.deepEqual(got.map((c) => c.id), crashes, 'the crashes of `crashtrail list --group`, newest first');
  assert.equal(got.length, 2);
  const [b, a] = got;
  assert.equal(b.build, jsonB.modules[0].build_id.slice(0, 12));
  assert.equal(a.build, jsonA.modules[0].build_id.slice(0, 12));
  assert.equal(a.buildTitle, jsonA.modules[0].build_id);
  assert.equal(a.when, utc(jsonA.process.time));
  assert.equal(+a.pid, jsonA.process.pid);
  assert.equal(a.thread, `worker (${jsonA.crashed_thread})`);
  assert.equal(a.fault, 'SEGV_MAPERR at 0x0');
  assert.equal(a.dumpTitle, dumpA);
  assert.equal(a.programTitle, path.join(dir, 'a', 'two_threads'));
  assert.equal(await page.textContent('.facts .f-builds'), '2');
  assert.equal(await page.textContent('.facts .f-crashes'), '2');
  assert.equal(await page.textContent('#page h1 .sig'), 'SIGSEGV at worker');
  assert.match(await page.title(), /^Group \d+: SIGSEGV at worker/);
});

test('a crash opens in the report viewer, on its crash line; the served page is the report', async () => {
  const id = (await rows('crashes'))[1].id; /* build A, at -O0 */
  await Promise.all([page.waitForURL(new RegExp(`/crash/${id}$`)), page.click(`#crashes tr[data-id="${id}"] .c-fault`)]);
  await page.waitForSelector('body[data-ready="1"]');
  const { thread, step } = L.crashStep(jsonA);
  const sel = await L.selected(page);
  assert.equal(sel.seq, step.seq, 'the crash step is selected');
  assert.match(sel.cls, /\bcrash\b/);
  assert.equal(sel.hash, `#t=${thread.tid}&s=${step.seq}`);
  assert.ok(await L.inView(page, '#steps .step.crash', '#steps'), 'the crash row is visible');
  assert.ok(await L.inView(page, '#src-lines .src.crash', '#src-lines'), 'the crash line is visible in the source');
  assert.equal(+(await page.textContent('#src-lines .src.crash .ln')), step.line);
  assert.equal(await page.textContent('#sum-signal'), 'SIGSEGV');
  /* one front end: byte for byte what `crashtrail report --db` writes */
  const file = path.join(dir, `crash${id}.html`);
  const r = L.crashtrail(['report', '--db', db, String(id), '-o', file]);
  assert.equal(r.status, 0, r.stderr);
  const served = await request(page.url().split('#')[0]);
  assert.equal(served.status, 200);
  assert.ok(served.body === fs.readFileSync(file, 'utf8'), 'the served crash is the report of it');
  assert.deepEqual(page.errors, []);
});

test('in the served crash, loops fold and unfold, and threads switch', async () => {
  const worker = jsonA.threads.find((t) => t.name === 'worker'), main = jsonA.threads.find((t) => t.name === 'main-loop');
  const lanes = await page.$$eval('#lanes .lane .lane-name', (ls) => ls.map((l) => l.firstChild.textContent));
  assert.deepEqual(lanes.sort(), ['main-loop', 'worker']);
  assert.match(await L.currentLane(page, /^worker/), /^worker/);
  await page.click('#lanes .lane:has-text("main-loop") .lane-name');
  assert.match(await L.currentLane(page, /^main-loop/), /^main-loop/);
  assert.match((await L.selected(page)).hash, new RegExp(`^#t=${main.tid}&s=\\d+$`));
  await page.keyboard.press('g');
  const index = await page.getAttribute('#steps .foldrow', 'data-index');
  assert.ok(index !== null, 'the main loop is folded');
  const header = page.locator(`#steps .vl-row[data-index="${index}"]`);
  const next = async () => +(await page.textContent(`#steps .vl-row[data-index="${+index + 1}"] .c-seq`));
  const text = await header.textContent();
  assert.match(text, /loop ×\d+.*click to expand/);
  const hidden = +/earlier iterations folded \((\d+) steps\)/.exec(text)[1], last = await next();
  await header.click();
  assert.match(await header.textContent(), /click to fold/);
  assert.equal(await next(), last - hidden, 'every iteration is shown');
  await header.click();
  assert.match(await header.textContent(), /click to expand/);
  assert.equal(await next(), last);
  await page.keyboard.press('t');
  assert.match(await L.currentLane(page, /^worker/), /^worker/);
  await page.keyboard.press('c');
  await page.keyboard.press('k');
  const sel = await L.selected(page);
  assert.equal(sel.hash, `#t=${worker.tid}&s=${L.crashStep(jsonA).step.seq - 1}`);
  await page.reload();
  await page.waitForSelector('body[data-ready="1"]');
  assert.equal((await L.selected(page)).seq, sel.seq, 'a step link survives a reload from the server');
  assert.deepEqual(page.errors, []);
});

test('unknown pages and ids are 404 pages that lead back to the groups', async () => {
  for (const [p, what] of [['crash/999999', /no crash 999999\b/], ['group/999999', /no crash group 999999\b/],
                           ['crash/01', /no such page/], ['crash/1x', /no such page/], ['crash/', /no such page/],
                           ['group/1/', /no such page/], ['nope', /no such page/], ['index.html', /no such page/]]) {
    const resp = await openUrl(server.url + p);
    assert.equal(resp.status(), 404, p);
    assert.equal(await page.textContent('.error-box h1'), '404 Not Found');
    assert.match(await page.textContent('.error-box .message'), what);
  }
  await Promise.all([page.waitForURL(server.url), page.click('.error-box a')]);
  await page.waitForSelector('#groups');
  const post = await request(server.url, { method: 'POST', body: 'x=1' });
  assert.equal(post.status, 405);
  assert.equal(post.headers.allow, 'GET, HEAD');
  assert.deepEqual(page.errors, []);
});

test('hostile strings from the store are shown literally and run nothing', async () => {
  await openUrl(server.url);
  const h = (await rows('groups')).find((g) => g.program === 'hostile');
  assert.ok(h, 'the hostile group');
  assert.equal(h.programTitle, path.join(dir, 'a <b> & "c" \'d\'', 'hostile'));
  await openUrl(server.url + `group/${h.id}`);
  const [c] = await rows('crashes');
  assert.equal(c.program, `hostile ${ARG}`);
  assert.equal(c.thread, `</script><!-- (${jsonH.crashed_thread})`);
  assert.equal(c.dumpTitle, dumpH);
  assert.equal(await page.evaluate(() => document.scripts.length), 2, 'only the page\'s own scripts');
  const html = (await request(page.url())).body;
  const data = /<script type="application\/json" id="ct-data">([^]*?)<\/script>/.exec(html)[1];
  assert.ok(!data.includes('<'), 'the data has no "<"');
  await openUrl(server.url + `crash/${c.id}`);
  assert.ok((await page.textContent('#sum-process')).includes(ARG));
  assert.ok((await page.textContent('#lanes')).includes('</script><!--'));
  assert.equal(await page.evaluate(() => window.__pwned), undefined);
  assert.deepEqual(page.errors, []);
});

test('a crash ingested while serving is there on reload', async () => {
  await openUrl(server.url);
  const before = await rows('groups');
  const c = path.join(dir, 'c');
  fs.mkdirSync(c);
  const r = L.run(path.join(dir, 'a', 'two_threads'), [], { cwd: c });
  assert.equal(r.signal, 'SIGSEGV');
  const dumpC = path.join(c, fs.readdirSync(c).find((f) => f.endsWith('.ctd')));
  const e2e = path.resolve(__dirname, '../e2e/programs/null_deref.c');
  const dumpN = L.crash(path.join(L.workDir('serve-null')), 'null_deref', [e2e]);
  assert.match(ingest(dumpC, dumpN), /stored as crash 4 .*\n.*stored as crash 5 /);
  await page.reload();
  await page.waitForSelector('body[data-ready="1"]');
  const got = await rows('groups');
  assert.equal(got.length, before.length + 1, 'a new group');
  const tt = groupOf(got, 'SIGSEGV at worker');
  assert.equal(tt.count, '3');
  assert.equal(tt.builds, '2', 'the same build again');
  assert.equal(tt.last, utc(L.showJson(dumpC).process.time));
  assert.equal(await page.textContent('#page h1 .dim'), '3 groups, 5 crashes');
  await openUrl(server.url + 'crash/5');
  assert.equal((await L.selected(page)).seq, L.crashStep(L.showJson(dumpN)).step.seq);
  assert.deepEqual(page.errors, []);
});

test('the pages made no request but to the server', async () => {
  assert.deepEqual(browser.blocked, []);
  for (const u of browser.requests) assert.ok(u.startsWith(server.url), u);
});

test('SIGTERM stops the server: status 0, and the port is closed', async () => {
  server.proc.kill('SIGTERM');
  const { code, signal } = await server.exited;
  assert.equal(signal, null);
  assert.equal(code, 0, server.stderr());
  const refused = await new Promise((resolve) => {
    const s = net.connect(server.port, '127.0.0.1');
    s.on('connect', () => { s.destroy(); resolve(false); });
    s.on('error', (e) => resolve(e.code === 'ECONNREFUSED'));
  });
  assert.ok(refused, 'nothing listens on the port any more');
  assert.equal(server.stderr(), '', 'nothing on stderr');
});
