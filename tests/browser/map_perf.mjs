// tests/browser/map_perf.mjs - first render and zoom frame times of the
// memory map page at 100k and 1M allocations, and first render and scrub
// steps of a page with a long history, in headless chromium.
// Prints figures; never asserts a time (machines differ).
//
//   node map_perf.mjs --fixture build/bin/make_map_fixture --work DIR
//                     [--sizes 100000,1000000] [--history 10000000,1000000]
//                     [--chromium /usr/bin/chromium]
//
// first render: from navigation start to the end of the first draw
// (parse of the embedded data, base64 decode, prefix sums, first frame);
// zoom frames: 40 wheel steps in, 40 out, each timed around the draw.
// --history EVENTS,LIVE (empty: skipped): make_map_fixture --history-perf
// (LIVE long-lived allocations, then release + allocate pairs up to EVENTS,
// every event kept); first render as above, then the first scrub (it
// decodes the spans the page holds) and 40 scrub steps over the strip,
// each timed from the call to the end of the map's draw.
import { execFileSync } from 'node:child_process';
import { mkdirSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { SKIP, loadPlaywright, launch, args } from './browser.mjs';

const opt = args(process.argv, { chromium: '/usr/bin/chromium', work: 'build/browser-perf', sizes: '100000,1000000', history: '10000000,1000000' });
const { pw, why } = await loadPlaywright();
if (!pw) { console.log('SKIP: ' + why); process.exit(SKIP); }
const work = resolve(opt.work);
mkdirSync(work, { recursive: true });
const pct = (a, p) => a.slice().sort((x, y) => x - y)[Math.min(a.length - 1, Math.floor(p * a.length))];

const browser = await launch(pw, opt.chromium, { width: 1400, height: 820 });
try {
  for (const n of opt.sizes.split(',').filter(Boolean).map(Number)) {
    const html = join(work, `map_${n}.html`);
    execFileSync(opt.fixture, ['--perf', String(n), '--out', html], { stdio: 'inherit' });
    const page = await browser.context.newPage();
    const errors = [];
    page.on('pageerror', (e) => errors.push(String(e)));
    await page.goto(pathToFileURL(html).href, { timeout: 120000 });
    await page.waitForFunction(() => window.__realmShadow && window.__realmShadow.ready, null, { timeout: 120000 });
    // timing.scriptStartMs: when the page's script began (after the HTML,
    // data block included, was parsed), from navigation start.
    const nav = await page.evaluate(() => ({ ...window.__realmShadow.timing, frames: null, firstFrameMs: window.__realmShadow.timing.frames[0] }));
    const g = await page.evaluate(() => window.__realmShadow.rowGeometry(0));
    const box = await page.$eval('#map', (el) => { const r = el.getBoundingClientRect(); return { x: r.left, y: r.top }; });
    await page.mouse.move(box.x + g.left + g.width * 0.37, box.y + g.barTop + 20);
    await page.evaluate(() => { window.__realmShadow.timing.frames.length = 0; });
    const steps = [];
    for (let k = 0; k < 40; k++) steps.push(-240);
    for (let k = 0; k < 40; k++) steps.push(240);
    const modes = new Set();
    for (const dy of steps) {
      await page.mouse.wheel(0, dy);
      await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
      modes.add((await page.evaluate(() => window.__realmShadow.visibleBlocks(0).mode)));
    }
    const frames = await page.evaluate(() => window.__realmShadow.timing.frames.slice());
    console.log(`${n} allocations: page ${(statSync(html).size / 1e6).toFixed(1)} MB; ` +
      `first render ${(nav.scriptStartMs + nav.firstRenderMs).toFixed(0)} ms after navigation start ` +
      `(HTML parse ${nav.scriptStartMs.toFixed(0)} ms, data decode ${nav.decodeMs.toFixed(0)} ms, first frame ${nav.firstFrameMs.toFixed(1)} ms); ` +
      `zoom frames: ${frames.length}, median ${pct(frames, 0.5).toFixed(2)} ms, p95 ${pct(frames, 0.95).toFixed(2)} ms, max ${Math.max(...frames).toFixed(2)} ms ` +
      `(modes drawn: ${[...modes].join(', ')})` + (errors.length ? ' ERRORS: ' + errors.join('; ') : ''));
    await page.close();
  }
  if (opt.history) {
    const [events, live] = opt.history.split(',').map(Number);
    const html = join(work, `history_${events}_${live}.html`);
    execFileSync(opt.fixture, ['--history-perf', String(events), String(live), '--out', html], { stdio: 'inherit' });
    const page = await browser.context.newPage();
    const errors = [];
    page.on('pageerror', (e) => errors.push(String(e)));
    await page.goto(pathToFileURL(html).href, { timeout: 300000 });
    await page.waitForFunction(() => window.__realmShadow && window.__realmShadow.ready, null, { timeout: 300000 });
    const nav = await page.evaluate(() => ({ ...window.__realmShadow.timing, frames: null, scrubs: null, firstFrameMs: window.__realmShadow.timing.frames[0] }));
    const info = await page.evaluate(() => window.__realmShadow.momentOf(0));
    // One scrub: the map rebuilt at shown moment k and drawn, timed inside
    // the page; also the live allocations there.
    const scrub = (k) => page.evaluate((k) => {
      const rs = window.__realmShadow, t = performance.now();
      rs.scrub(0, k);
      return { ms: performance.now() - t, live: rs.state().memories[0].count };
    }, k);
    const first = await scrub(Math.floor(info.shown / 2));
    const steps = [], lives = [];
    for (let i = 0; i < 40; i++) {
      const r = await scrub(Math.floor(((i + 1) / 41) * (info.shown - 1)));
      steps.push(r.ms); lives.push(r.live);
    }
    console.log(`history of ${info.end - info.first} events, ${live} long-lived: page ${(statSync(html).size / 1e6).toFixed(1)} MB, ` +
      `${info.shown} moments shown, ${info.spans} spans; ` +
      `first render ${(nav.scriptStartMs + nav.firstRenderMs).toFixed(0)} ms after navigation start ` +
      `(HTML parse ${nav.scriptStartMs.toFixed(0)} ms, data decode ${nav.decodeMs.toFixed(0)} ms, first frame ${nav.firstFrameMs.toFixed(1)} ms); ` +
      `first scrub (decodes the spans) ${first.ms.toFixed(0)} ms; ` +
      `scrub steps: ${steps.length}, median ${pct(steps, 0.5).toFixed(1)} ms, p95 ${pct(steps, 0.95).toFixed(1)} ms, max ${Math.max(...steps).toFixed(1)} ms ` +
      `at ${Math.min(...lives)}-${Math.max(...lives)} live allocations` + (errors.length ? ' ERRORS: ' + errors.join('; ') : ''));
    await page.close();
  }
} finally {
  await browser.close();
}
