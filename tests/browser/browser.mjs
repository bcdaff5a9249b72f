// tests/browser/browser.mjs - starts Debian's chromium through
// playwright-core, the same way for the test and the measurements.
import { mkdtempSync, rmSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

export const SKIP = 77;  // ctest SKIP_RETURN_CODE

// Loads playwright-core from tests/browser/node_modules (npm ci), or
// returns null with the reason.
export async function loadPlaywright() {
  try {
    return { pw: await import('playwright-core') };
  } catch (e) {
    return { why: 'playwright-core is not installed (run npm ci in tests/browser): ' + e.message };
  }
}

export async function launch(pw, chromium, viewport) {
  if (!existsSync(chromium)) throw new Error('no chromium at ' + chromium);
  const profile = mkdtempSync(join(tmpdir(), 'rs-chromium-'));
  // launchPersistentContext: a fresh --user-data-dir each run.
  const context = await pw.chromium.launchPersistentContext(profile, {
    executablePath: chromium,
    headless: true,
    viewport,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic',
           '--no-first-run', '--disable-background-networking',
           '--disable-component-update', '--disable-sync'],
  });
  return {
    context,
    async close() {
      await context.close();
      rmSync(profile, { recursive: true, force: true });
    },
  };
}

export function args(argv, defaults) {
  const out = { ...defaults };
  for (let i = 2; i < argv.length; i++) {
    const k = argv[i].replace(/^--/, '');
    out[k] = argv[i + 1];
    i++;
  }
  return out;
}

// A new page of the browser whose console errors and uncaught exceptions
// go to `errors`.
export async function watchedPage(browser, errors) {
  const page = await browser.context.newPage();
  page.on('console', (m) => { if (m.type() === 'error') errors.push(m.text()); });
  page.on('pageerror', (e) => errors.push(String(e)));
  return page;
}

// Opens the memory map page at `file` and waits until its script is ready
// (the first frame drawn).
export async function openMap(page, file, timeout = 30000) {
  await page.goto(pathToFileURL(file).href, { timeout });
  await page.waitForFunction(() => window.__realmShadow && window.__realmShadow.ready, null, { timeout });
}
