// tests/browser/map_perf.mjs - first render and zoom frame times of the
// memory map page at 100k and 1M allocations, and first render and scrub
// steps of a page with a long history, in headless chromium.
// Prints figures; never asserts a time (machines differ).
//
//   node map_perf.mjs --fixture build/bin/make_map_fixture --work DIR
//                     [--sizes 100000,1000000] [--history 10000000,1000000]
//                     [--cli build/bin/realm-shadow] [--chromium /usr/bin/chromium]
//
// first render: from navigation start to the end of the first draw of the
// map, its figures and (with a history) its time strip, the dump's own
// moment, with the page's handlers bound (usable): the HTML parse up to the
// script (the data block before it), the decode of the allocation columns,
// prefix sums, the first frame.  It does not include the history block,
// which follows the script: "history read" is when its spans are decoded
// and indexed, from navigation start (the parser reaches it after the first
// frame, then the page reads it).
// zoom frames: 40 wheel steps in, 40 out, each timed around the draw.
// --history EVENTS,LIVE (empty: skipped): make_map_fixture --history-perf
// (LIVE long-lived allocations, then release + allocate pairs up to EVENTS,
// every event kept); first render and history read as above, then the
// first scrub (the moment built from every span), 40 scrub steps forward
// over the strip, 40 backward, and 20 jumps between far moments; each
// timed in the page from the call to the end of the map's draw (arrays,
// figures, side panel, frame), in wall time and in the renderer thread's
// CPU time; the side panel's largest holes and allocations follow in a
// task of their own, timed apart.
// --cli REALM_SHADOW: when DIR holds the history's dump from an earlier run
// (history_EVENTS_LIVE.html.rsd, which make_map_fixture writes beside the
// page), the page is written again from it with `realm-shadow html`
// (about 40 s at 10M events) instead of recording and dumping the history
// again: the page embeds the script, so a change of the script alone needs
// only this.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { SKIP, loadPlaywright, launch, args, watchedPage, openMap } from './browser.mjs';

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
    const errors = [];
    const page = await watchedPage(browser, errors);
    await openMap(page, html, 120000);
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
    if (opt.cli && existsSync(html + '.rsd')) {
      const t = performance.now();
      execFileSync(opt.cli, ['html', html + '.rsd', '--no-replay', '-o', html], { stdio: 'inherit' });
      console.log(`page written again from ${html}.rsd: ${((performance.now() - t) / 1e3).toFixed(1)} s`);
    } else {
      execFileSync(opt.fixture, ['--history-perf', String(events), String(live), '--out', html], { stdio: 'inherit' });
    }
    const errors = [];
    const page = await watchedPage(browser, errors);
    await openMap(page, html, 300000);
    const nav = await page.evaluate(() => ({ ...window.__realmShadow.timing, frames: null, scrubs: null, firstFrameMs: window.__realmShadow.timing.frames[0] }));
    const info = await page.evaluate(() => window.__realmShadow.momentOf(0));
    const readMs = await page.evaluate(() => window.__realmShadow.historyRead());
    // One scrub: the map moved to shown moment k and drawn, timed inside
    // the page; also the live allocations there.  Each is also timed in
    // the renderer's thread CPU time, which other processes on the machine
    // do not inflate: the thread clock of a performance mark before and
    // after it, read from a trace of the marks alone.
    const cdp = await browser.context.newCDPSession(page);
    const marks = new Map();
    cdp.on('Tracing.dataCollected', (e) => { for (const ev of e.value) if (/^rs-scrub-/.test(ev.name)) marks.set(ev.name, ev.tts); });
    const traced = new Promise((r) => cdp.on('Tracing.tracingComplete', r));
    await cdp.send('Tracing.start', { traceConfig: { includedCategories: ['blink.user_timing'] }, transferMode: 'ReportEvents' });
    let scrubs = 0;
    const scrub = (k) => page.evaluate(async ([k, n]) => {
      const rs = window.__realmShadow;
      performance.mark('rs-scrub-begin-' + n);
      const t = performance.now();
      await rs.scrub(0, k);
      const ms = performance.now() - t;
      performance.mark('rs-scrub-end-' + n);
      return { ms, n, live: rs.state().memories[0].count };
    }, [k, scrubs++]);
    const first = await scrub(Math.floor(info.shown / 2));
    const series = async (moments) => {
      const ms = [], lives = [], ns = [];
      for (const k of moments) { const r = await scrub(k); ms.push(r.ms); lives.push(r.live); ns.push(r.n); }
      return { ms, lives, ns };
    };
    const at = (i) => Math.floor((i / 41) * (info.shown - 1));
    const fwd = await series([...Array(40).keys()].map((i) => at(i + 1)));
    const back = await series([...Array(40).keys()].map((i) => at(40 - i)));
    const jumps = await series([...Array(20).keys()].map((i) => (i % 2 ? at(2 + i) : at(39 - i))));
    await cdp.send('Tracing.end');
    await traced;
    for (const r of [fwd, back, jumps]) r.cpu = r.ns.map((n) => (marks.get('rs-scrub-end-' + n) - marks.get('rs-scrub-begin-' + n)) / 1000);
    const moves = await page.evaluate(() => ({ ...window.__realmShadow.timing.moves }));
    const tables = { ms: await page.evaluate(() => window.__realmShadow.timing.tables.slice()) };
    const fig = (name, r) => `${name}: ${r.ms.length}, median ${pct(r.ms, 0.5).toFixed(1)} ms, p95 ${pct(r.ms, 0.95).toFixed(1)} ms, max ${Math.max(...r.ms).toFixed(1)} ms` +
      (r.cpu ? ` (renderer CPU median ${pct(r.cpu, 0.5).toFixed(1)} ms, p95 ${pct(r.cpu, 0.95).toFixed(1)} ms, max ${Math.max(...r.cpu).toFixed(1)} ms)` : '');
    console.log(`history of ${info.end - info.first} events, ${live} long-lived: page ${(statSync(html).size / 1e6).toFixed(1)} MB, ` +
      `${info.shown} moments shown, ${info.spans} spans; ` +
      `first render ${(nav.scriptStartMs + nav.firstRenderMs).toFixed(0)} ms after navigation start ` +
      `(HTML parse ${nav.scriptStartMs.toFixed(0)} ms, data decode ${nav.decodeMs.toFixed(0)} ms, first frame ${nav.firstFrameMs.toFixed(1)} ms); ` +
      `history read ${readMs.toFixed(0)} ms after navigation start; ` +
      `first scrub ${first.ms.toFixed(0)} ms; ` + fig('scrub steps forward', fwd) + '; ' + fig('backward', back) + '; ' +
      fig('far jumps', jumps) + '; ' + fig('side tables after each (their own task)', tables) + ` (moves: ${moves.forward} forward, ${moves.backward} backward, ${moves.rebuilt} rebuilt) ` +
      `at ${Math.min(...fwd.lives, ...back.lives)}-${Math.max(...fwd.lives, ...back.lives)} live allocations` + (errors.length ? ' ERRORS: ' + errors.join('; ') : ''));
    await page.close();
  }
} finally {
  await browser.close();
}
