// Headless Chromium (Debian's chromium) driven by playwright-core, for the hosted pages. Each test
// gets a fresh profile; screenshots go under the build folder as test artifacts.
import { chromium } from 'playwright-core';
import assert from 'node:assert/strict';
import { mkdtempSync, mkdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { startOnOwnPort } from '../../api/lib/harness.mjs';

export const CHROMIUM = process.env.CORRIDOR_CHROMIUM || '/usr/bin/chromium';

// A phone: the hosted pages must work at this size with touch.
export const PHONE = {
  viewport: { width: 390, height: 844 }, deviceScaleFactor: 2, isMobile: true, hasTouch: true,
  userAgent: 'Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0 Mobile Safari/537.36',
};

export async function launchBrowser() {
  const profile = mkdtempSync(join(tmpdir(), 'corridor-chromium-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update',
      '--disable-sync', '--no-first-run'],
    ...PHONE,
  });
  return {
    context,
    async close() {
      await context.close();
      rmSync(profile, { recursive: true, force: true });
    },
  };
}

// Where this run's screenshots go: <build>/browser-artifacts/<suite>/.
export function artifactDir(suite) {
  const base = process.env.CORRIDOR_BUILD_DIR || tmpdir();
  const dir = join(base, 'browser-artifacts', suite);
  mkdirSync(dir, { recursive: true });
  return dir;
}

export async function screenshot(page, suite, name) {
  const path = join(artifactDir(suite), `${name}.png`);
  await page.screenshot({ path, fullPage: true });
  return path;
}

// A server whose hosted pages are reached at its own address: the port is chosen first so that
// public_base_url can name it. Options as the harness's startCorridor (one platform by default);
// the sandbox credentials of the first platform are on server.credentials.
export async function startPagesServer(options = {}) {
  const server = await startOnOwnPort({ platforms: 1, ...options });
  server.credentials = server.platforms[0].sandbox;
  return server;
}

// Every named screenshot of the suite was written and holds a rendered page (a blank or failed
// capture is a few hundred bytes at most).
export function assertScreenshots(suite, names) {
  for (const name of names) {
    assert.ok(statSync(join(artifactDir(suite), `${name}.png`)).size > 1000, `screenshot ${name}`);
  }
}
