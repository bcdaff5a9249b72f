// tests/browser/history_test.mjs - the page's time strip in a real browser:
// dragging over the strip, the slider and the arrow keys move the map to a
// moment, and the map there is exactly what `realm-shadow at` rebuilds for
// that moment (every allocation: instance, offset, size, state, kind; and
// used, total free, largest hole).
//
//   node history_test.mjs --fixture build/bin/make_map_fixture --cli build/bin/realm-shadow
//                         --work DIR --artifacts DIR [--chromium /usr/bin/chromium]
//
// Exit 0: all passed; 1: a check failed; 77: cannot run here (skipped).
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { SKIP, loadPlaywright, launch, args, watchedPage, openMap } from './browser.mjs';

const opt = args(process.argv, { chromium: '/usr/bin/chromium', work: 'build/browser-history', artifacts: 'build/artifacts' });
const { pw, why } = await loadPlaywright();
if (!pw) { console.log('SKIP: ' + why); process.exit(SKIP); }
if (!opt.fixture || !opt.cli) { console.error('--fixture and --cli are required'); process.exit(2); }
const work = resolve(opt.work), artifacts = resolve(opt.artifacts);
mkdirSync(work, { recursive: true });
mkdirSync(artifacts, { recursive: true });
execFileSync(opt.fixture, ['--history', work], { stdio: 'inherit' });
const dump = join(work, 'history.rsd');

let failed = 0, passed = 0;
function check(ok, what, detail) {
  if (ok) { passed++; console.log('ok   ' + what); }
  else { failed++; console.log('FAIL ' + what + (detail !== undefined ? ': ' + JSON.stringify(detail).slice(0, 600) : '')); }
}

// What `realm-shadow at --event N` says the memory holds after N events.
function stateAt(sequence) {
  const out = join(work, 'at_' + sequence + '.rsd');
  execFileSync(opt.cli, ['at', dump, '--event', String(sequence), '-o', out], { stdio: 'pipe' });
  const json = JSON.parse(execFileSync(opt.cli, ['json', out], { maxBuffer: 1 << 28 }).toString());
  const m = json.memories[0];
  return {
    allocations: m.allocations.map((a) => [a.instance, a.offset, a.size, a.state.replace(/_/g, ' '), a.kind]),
    used: m.stats.used, total_free: m.stats.total_free, largest_hole: m.stats.largest_hole, count: m.allocations.length,
  };
}

const browser = await launch(pw, opt.chromium, { width: 1400, height: 820 });
try {
  const errors = [];
  const page = await watchedPage(browser, errors);
  await openMap(page, join(work, 'history.html'));
  const rs = (fn, ...a) => page.evaluate(([f, a]) => window.__realmShadow[f](...a), [fn, a]);
  const moves = () => page.evaluate(() => ({ ...window.__realmShadow.timing.moves }));
  // The spans follow the script; the page reads them once parsed.
  const readMs = await rs('historyRead');
  check(typeof readMs === 'number', 'the history block is read after the first frame', readMs);

  const info = await rs('momentOf', 0);
  check(info && info.buckets === 2048 && info.shown === 2049 && info.stride === 1, 'the strip: 2048 buckets over 2999 events, every boundary shown', info);
  check(info && info.index === null, 'the page opens on the dump\'s own moment', info);

  // The map against `realm-shadow at` for the moment the page shows now.
  const compare = async (what) => {
    const now = await rs('momentOf', 0);
    const want = stateAt(now.sequence);
    const got = (await rs('allocations', 0)).map((a) => [a.instance, a.offset, a.size, a.state, a.kind]);
    const s = (await rs('state')).memories[0].summary;
    const same = JSON.stringify(got) === JSON.stringify(want.allocations);
    let first = -1;
    if (!same) first = got.findIndex((g, i) => JSON.stringify(g) !== JSON.stringify(want.allocations[i]));
    check(same, what + ': after event ' + now.sequence + ' the ' + want.count + ' allocations equal realm-shadow at',
          same ? undefined : { got: got.length, want: want.count, first, g: got[first], w: want.allocations[first] });
    check(s.used === want.used && s.total_free === want.total_free && s.largest_hole === want.largest_hole,
          what + ': used, total free, largest hole equal realm-shadow at', { page: s, at: want });
  };

  // Drag over the strip: press at one moment, move to another, release.
  const g = await rs('stripGeometry', 0);
  const box = await page.$eval('#map', (el) => { const r = el.getBoundingClientRect(); return { x: r.left, y: r.top }; });
  const xOfMoment = (k) => box.x + g.left + (k / (info.shown - 1)) * g.width;
  const y = box.y + g.top + g.height / 2;
  await page.mouse.move(xOfMoment(200), y);
  await page.mouse.down();
  await compare('press on the strip');
  await page.mouse.move(xOfMoment(900), y, { steps: 8 });
  await page.mouse.up();
  let now = await rs('momentOf', 0);
  check(Math.abs(now.index - 900) <= 1, 'dragging moved the map to the moment under the pointer', now);
  await compare('drag over the strip');
  await page.screenshot({ path: join(artifacts, 'history-strip.png') });

  // Arrow keys step one moment; the slider picks any.
  await page.keyboard.press('ArrowRight');
  const stepped = await rs('momentOf', 0);
  check(stepped.index === now.index + 1, 'ArrowRight steps one moment', [now.index, stepped.index]);
  await compare('arrow key');
  await page.$eval('#timeSlider', (el) => { el.value = '1500'; el.dispatchEvent(new Event('input')); });
  now = await rs('momentOf', 0);
  check(now.index === 1500, 'the slider moves the map', now);
  await compare('slider');

  // Moments all over the window, the ends included, through the hook.
  for (const k of [0, 1, 2, 77, 1023, 1024, 2047, 2048]) {
    await rs('scrub', 0, k);
    await compare('moment ' + k);
  }
  // Backward steps and jumps, from the last moment down: each step moves
  // the shown arrays by the spans it crosses, a long jump rebuilds them.
  for (const k of [2047, 2046, 2040, 1990, 1200, 1199, 3]) {
    await rs('scrub', 0, k);
    await compare('back to moment ' + k);
  }
  // Forward again across many small steps, then far both ways.
  for (const k of [4, 9, 60, 61, 2048, 5, 1800]) {
    await rs('scrub', 0, k);
    await compare('to moment ' + k);
  }
  const moved = await moves();
  check(moved.forward > 0 && moved.backward > 0 && moved.rebuilt > 0, 'moves forward, backward and rebuilt were all taken', moved);
  // A step changes the shown arrays in place; each must equal the moment
  // rebuilt from every span (which the comparisons above hold against
  // realm-shadow at): every moment one at a time forward (the fill: spans
  // added at the end) and back, strides of several sizes (runs of slots
  // moved down and up, short and long), and steps right after far jumps.
  const walk = (moments) => page.evaluate(async (ks) => {
    const rs = window.__realmShadow, was = { ...rs.timing.moves };
    for (const k of ks) {
      try {
        await rs.scrub(0, k);
      } catch (e) {
        return { at: k, error: String(e) };
      }
      const bad = rs.shownMismatch(0);
      if (bad) return { at: k, bad };
    }
    const m = rs.timing.moves;
    return { moves: { forward: m.forward - was.forward, backward: m.backward - was.backward, rebuilt: m.rebuilt - was.rebuilt } };
  }, moments);
  const span = (from, to, by) => { const out = []; for (let k = from; by > 0 ? k <= to : k >= to; k += by) out.push(k); return out; };
  await rs('scrub', 0, 0);
  let w = await walk(span(1, info.shown - 1, 1));
  check(w.moves && w.moves.forward === info.shown - 1, 'every moment one step forward equals it rebuilt', w);
  w = await walk(span(info.shown - 2, 0, -1));
  check(w.moves && w.moves.backward === info.shown - 1, 'every moment one step back equals it rebuilt', w);
  w = await walk([...span(0, info.shown - 1, 7), ...span(info.shown - 1, 0, -13), ...span(3, info.shown - 1, 50), ...span(info.shown - 1, 0, -120)]);
  check(w.moves && w.moves.forward > 0 && w.moves.backward > 0, 'strides of 7, 13, 50 and 120 moments equal them rebuilt', w);
  w = await walk([2048, 0, 1, 2, 1, 0, 2048, 2047, 2046, 2047, 2048, 10, 1900, 1901, 1899, 1902, 5, 6, 2000, 1999]);
  check(w.moves && w.moves.rebuilt >= 4 && w.moves.forward > 0 && w.moves.backward > 0, 'steps right after far jumps equal them rebuilt', w);
  await compare('after the walks');

  await rs('scrub', 0, 0);
  const empty = (await rs('state')).memories[0];
  check(empty.count === 0 && empty.summary.used === 0, 'the window\'s first moment is the empty memory', empty.count);

  // Back to the dump's own picture.
  await page.click('#timeReset');
  now = await rs('momentOf', 0);
  const back = (await rs('state')).memories[0];
  const own = JSON.parse(execFileSync(opt.cli, ['json', dump], { maxBuffer: 1 << 28 }).toString()).memories[0];
  check(now.index === null && back.count === own.allocations.length, 'the button brings back the dump\'s own moment', [now.index, back.count]);
  check(errors.length === 0, 'no console errors', errors);
} finally {
  await browser.close();
}
console.log(`${passed} passed, ${failed} failed`);
process.exit(failed ? 1 : 0);
