/*
 * hostile.test.js - strings from outside cannot break the page. programs/hostile.c crashes in a
 * directory whose name has HTML in it, with a command-line argument, a thread name and source
 * text that try to close the data's <script> element and run code. The page must show each of
 * them literally and run nothing of theirs; the data must not contain a single `<`.
 */
'use strict';
const { test, before, after } = require('node:test');
const fs = require('node:fs');
const path = require('node:path');
const L = require('./lib');
const { assert } = L;

const ARG = '</script><script>window.__pwned = 2</script>';
let html, browser, page, srcFile;

before(async () => {
  const dir = path.join(L.workDir('hostile'), 'a <b> & "c" \'d\'');
  fs.mkdirSync(dir);
  srcFile = path.join(dir, 'hostile.c');
  fs.copyFileSync(path.join(L.PROGRAMS, 'hostile.c'), srcFile);
  const dump = L.crash(dir, 'hostile', [srcFile], { flags: ['-pthread'], args: [ARG] });
  html = L.report(dump, path.join(dir, 'r.html'));
  browser = await L.launch();
  page = await L.open(browser, html);
});

after(async () => {
  if (browser) await browser.close();
});

test('the embedded data has no "<" at all, and the page has only its own two scripts', async () => {
  const text = fs.readFileSync(html, 'utf8');
  const data = /<script type="application\/json" id="ct-data">([^]*?)<\/script>/.exec(text)[1];
  assert.ok(!data.includes('<'));
  assert.equal(await page.evaluate(() => document.scripts.length), 2);
  assert.equal(await page.evaluate(() => window.__pwned), undefined);
  assert.deepEqual(page.errors, []);
});

test('the hostile strings are shown literally', async () => {
  assert.ok((await page.textContent('#sum-process')).includes(ARG), 'the argument');
  assert.ok((await page.textContent('#sum-process')).includes('a <b> & "c" \'d\''), 'the directory');
  assert.ok((await page.textContent('#lanes')).includes('</script><!--'), 'the thread name');
  assert.equal((await L.sourcePane(page)).path, srcFile);
  await page.keyboard.press('g');
  const src = await page.evaluate(() => [...document.querySelectorAll('#src-lines .src .tx')].map((e) => e.textContent).join('\n'));
  assert.ok(src.includes('</script><script>window.__pwned = 1</script>  <!-- --> ]]> &amp; "double"'), 'the comment');
  assert.ok(src.includes(`const char *s = "${ARG}";`), 'the string literal');
  assert.equal(await page.evaluate(() => window.__pwned), undefined);
});
