/*
 * serve_cli.test.js - `crashtrail serve` without a browser: its exit statuses (a wrong command
 * line 2 with the usage; a missing file, a file that is not a crashtrail store, a newer store, a
 * port in use 1, with one line saying why), what it answers over HTTP (methods, strict routes
 * and ids, no traversal, the Host check, the security headers, HEAD), that it never writes the
 * store, and SIGINT stopping it with status 0. Also `crashtrail report --db STORE ID`, whose
 * page must be byte for byte the served one. Requests are raw HTTP (node:http), so paths reach
 * the server exactly as written, dot segments included.
 */
'use strict';
const { test, before, after } = require('node:test');
const { spawn } = require('node:child_process');
const crypto = require('node:crypto');
const fs = require('node:fs');
const http = require('node:http');
const path = require('node:path');
const L = require('./lib');
const { assert } = L;

let dir, db, dump, server;
const running = [];

/* Starts `crashtrail serve --db store --port 0 ...`; resolves once it prints its URL. */
function startServer(store, extra = []) {
  const proc = spawn(path.join(L.BIN, 'crashtrail'), ['serve', '--db', store, '--port', '0', ...extra],
                     { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '', err = '';
  const exited = new Promise((resolve) => proc.on('exit', (code, signal) => resolve({ code, signal })));
  proc.stderr.on('data', (d) => { err += d; });
  running.push(proc);
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`crashtrail serve printed no URL in 10 s: ${err}`)), 10000);
    proc.stdout.on('data', (d) => {
      out += d;
      const m = /^serving (http:\/\/127\.0\.0\.1:(\d+)\/)$/m.exec(out);
      if (m) clearTimeout(timer), resolve({ url: m[1], port: +m[2], proc, exited, stderr: () => err });
    });
    exited.then(({ code, signal }) => { clearTimeout(timer); reject(new Error(`crashtrail serve exited (${code} ${signal}): ${err}`)); });
  });
}

/* One raw request: {status, headers, body}. rawPath is sent as is. */
function request(port, rawPath, { method = 'GET', headers = {}, body } = {}) {
  return new Promise((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port, path: rawPath, method, headers, agent: false }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (d) => { text += d; });
      res.on('end', () => resolve({ status: res.statusCode, headers: res.headers, body: text }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

const sha = (f) => crypto.createHash('sha256').update(fs.readFileSync(f)).digest('hex');
const serve = (args, opts) => L.crashtrail(['serve', ...args], { timeout: 10000, ...opts });

before(async () => {
  dir = L.workDir('serve-cli');
  dump = L.crash(dir, 'null_deref', [path.resolve(__dirname, '../e2e/programs/null_deref.c')]);
  db = path.join(dir, 'store.db');
  const r = L.crashtrail(['ingest', dump, '--db', db]);
  assert.equal(r.status, 0, r.stderr);
  server = await startServer(db);
});

after(() => {
  for (const p of running) if (p.exitCode === null && p.signalCode === null) p.kill('SIGKILL');
});

test('a wrong command line: exit 2 with the usage', () => {
  for (const args of [['--db', db, '--bogus'], ['--db', db, '--port', 'http'], ['--db', db, '--port', '65536'],
                      ['--db', db, '--port', '-1'], ['--db', db, '--port', ''], ['--db', db, '--bind', 'example.com'],
                      ['--db', db, 'extra'], ['--db']]) {
    const r = serve(args);
    assert.equal(r.status, 2, `${args.join(' ')}: ${r.stderr}`);
    assert.match(r.stderr, /usage: crashtrail serve \[--db FILE\] \[--port N\] \[--bind ADDR\]/, args.join(' '));
    assert.equal(r.stdout, '');
  }
  const h = serve(['--help']);
  assert.equal(h.status, 0);
  assert.match(h.stdout, /--port N/);
  assert.match(L.crashtrail(['--help']).stdout, /serve {2,}the crash store in a local web server/);
});

test('no store, not a store, a newer store: exit 1 with one line, nothing created or changed', () => {
  const missing = path.join(dir, 'missing.db');
  let r = serve(['--db', missing]);
  assert.equal(r.status, 1);
  assert.match(r.stderr, /missing\.db: No such file or directory/);
  assert.equal(r.stderr.trim().split('\n').length, 1, r.stderr);
  assert.ok(!fs.existsSync(missing), 'no store is created');
  const text = path.join(dir, 'text.db');
  fs.writeFileSync(text, 'not a database at all\n'.repeat(100));
  const other = path.join(dir, 'other.db');
  assert.equal(L.run('sqlite3', [other, 'CREATE TABLE t(x); INSERT INTO t VALUES(1);']).status, 0);
  const empty = path.join(dir, 'empty.db');
  fs.writeFileSync(empty, '');
  for (const f of [text, other, empty]) {
    const before = sha(f);
    r = serve(['--db', f]);
    assert.equal(r.status, 1, f);
    assert.equal(r.stderr, `crashtrail: ${f}: not a crashtrail store\n`);
    assert.equal(sha(f), before, 'the file is left as it was');
  }
  const newer = path.join(dir, 'newer.db');
  fs.copyFileSync(db, newer);
  assert.equal(L.run('sqlite3', [newer, 'PRAGMA user_version=999']).status, 0);
  r = serve(['--db', newer]);
  assert.equal(r.status, 1);
  assert.match(r.stderr, /newer\.db: store schema version 999 is newer than this crashtrail/);
});

test('a port in use: exit 1 naming the address and the reason', () => {
  const r = serve(['--db', db, '--port', String(server.port)]);
  assert.equal(r.status, 1);
  assert.equal(r.stdout, '');
  assert.equal(r.stderr, `crashtrail: cannot listen on 127.0.0.1 port ${server.port}: Address already in use\n`);
});

test('pages: 200 with the security headers; HEAD has no body', async () => {
  for (const p of ['/', '/group/1', '/crash/1', '/?q=<script>', '/crash/1?x=1#y']) {
    const r = await request(server.port, p);
    assert.equal(r.status, 200, p);
    assert.equal(r.headers['content-type'], 'text/html; charset=utf-8');
    assert.match(r.headers['content-security-policy'], /^default-src 'none';.*frame-ancestors 'none'/);
    assert.equal(r.headers['x-content-type-options'], 'nosniff');
    assert.equal(r.headers['cache-control'], 'no-store');
    assert.ok(!r.body.includes('<script>window') && !r.body.includes('q=<script>'), 'the query is never echoed');
  }
  const head = await request(server.port, '/crash/1', { method: 'HEAD' });
  assert.equal(head.status, 200);
  assert.equal(head.body, '');
});

test('strict routes and ids, no traversal: 404 with an error page', async () => {
  for (const p of ['/crash/0', '/crash/01', '/crash/-1', '/crash/+1', '/crash/1.0', '/crash/1e0', '/crash/0x1',
                   '/crash/2', '/crash/99999999999999999999', '/group/9223372036854775807', '/group/1/',
                   '/crash//1', '//crash/1', '/crash/1/..', '/crash/1/../1', '/../../../../etc/passwd',
                   '/%2e%2e/%2e%2e/etc/passwd', '/..%2f..%2fetc%2fpasswd', '/viewer.js', '/assets/serve.js',
                   '/serve.html', '/index.html', '/favicon.ico', '/CRASH/1', '/crash']) {
    const r = await request(server.port, p);
    assert.equal(r.status, 404, p);
    assert.match(r.body, /"page":"error","db":null,"status":404,"reason":"Not Found"/, p);
    assert.ok(!r.body.includes('root:'), p);
  }
});

test('methods other than GET and HEAD: 405 with Allow', async () => {
  for (const method of ['POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS']) {
    const r = await request(server.port, '/crash/1', { method, body: method === 'OPTIONS' ? undefined : 'x=1' });
    assert.equal(r.status, 405, method);
    assert.equal(r.headers.allow, 'GET, HEAD');
    assert.match(r.body, /"status":405,"reason":"Method Not Allowed"/);
  }
});

test('the Host must name this server on loopback (no DNS rebinding): else 400', async () => {
  const port = server.port;
  for (const host of [`localhost:${port}`, `127.0.0.1:${port}`, `[::1]:${port}`, `LocalHost:${port}`])
    assert.equal((await request(port, '/', { headers: { host } })).status, 200, host);
  for (const host of [`evil.example:${port}`, 'localhost', `localhost:${port + 1}`, `127.0.0.1.evil.example:${port}`,
                      `localhost:${port}@evil.example`, `10.0.0.1:${port}`])
    assert.equal((await request(port, '/', { headers: { host } })).status, 400, host);
});

test('the store is never written, and `report --db` writes the served page', async () => {
  const before = sha(db);
  for (let i = 0; i < 5; i++) for (const p of ['/', '/group/1', '/crash/1']) await request(server.port, p);
  assert.equal(sha(db), before, 'the store file is unchanged');
  const out = path.join(dir, 'crash1.html');
  let r = L.crashtrail(['report', '--db', db, '1', '-o', out]);
  assert.equal(r.status, 0, r.stderr);
  assert.ok((await request(server.port, '/crash/1')).body === fs.readFileSync(out, 'utf8'));
  const data = L.reportData(out), json = L.showJson(dump);
  assert.equal(data.threads[0].n, json.threads[0].steps.length, 'the stored crash has every step');
  r = L.crashtrail(['report', '--db', db, '7', '-o', out]);
  assert.equal(r.status, 1);
  assert.match(r.stderr, /there is no crash 7/);
  r = L.crashtrail(['report', '--db', path.join(dir, 'nope.db'), '1', '-o', out]);
  assert.equal(r.status, 1);
  assert.ok(!fs.existsSync(path.join(dir, 'nope.db')), 'no store is created');
  r = L.crashtrail(['report', '--db', db, 'one', '-o', out]);
  assert.equal(r.status, 1);
});

test('SIGINT stops the server with status 0; so does SIGTERM', async () => {
  for (const sig of ['SIGINT', 'SIGTERM']) {
    const s = await startServer(db);
    assert.equal((await request(s.port, '/')).status, 200);
    s.proc.kill(sig);
    const { code, signal } = await s.exited;
    assert.deepEqual({ code, signal }, { code: 0, signal: null }, `${sig}: ${s.stderr()}`);
    assert.equal(s.stderr(), '');
  }
});
