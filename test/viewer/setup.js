/*
 * setup.js - the viewer tests' fixture (ctest viewer.setup): makes sure playwright-core is in
 * test/viewer/node_modules, installing it with `npm ci` from package-lock.json when it is not.
 * Fails with a clear message when it cannot (no npm, or no npm registry reachable), and when
 * the browser the tests drive (Debian's chromium, never downloaded) is missing.
 */
'use strict';
const { spawnSync } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');

const here = __dirname;
const chromium = process.env.CT_CHROMIUM || '/usr/bin/chromium';

function fail(msg) {
  console.error(`viewer tests: ${msg}`);
  process.exit(1);
}

if (!fs.existsSync(chromium)) fail(`no browser at ${chromium}: install Debian's chromium (apt-get install chromium)`);
if (!fs.existsSync(path.join(here, 'node_modules', 'playwright-core', 'package.json'))) {
  console.log('viewer tests: installing playwright-core (npm ci) into test/viewer/node_modules');
  const r = spawnSync('npm', ['ci', '--no-audit', '--no-fund', '--loglevel=error'],
                      { cwd: here, stdio: 'inherit', env: { ...process.env, PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD: '1' } });
  if (r.error || r.status !== 0)
    fail('`npm ci` failed in test/viewer: playwright-core cannot be installed (no npm, or the npm ' +
         'registry cannot be reached); the browser tests cannot run without it');
}
const version = require(path.join(here, 'node_modules', 'playwright-core', 'package.json')).version;
console.log(`viewer tests: playwright-core ${version}, browser ${chromium}`);
