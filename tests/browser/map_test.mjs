// tests/browser/map_test.mjs - the memory map page in a real browser.
//
//   node map_test.mjs --fixture build/bin/make_map_fixture --work DIR
//                     --artifacts build/artifacts [--chromium /usr/bin/chromium]
//
// Makes the fixture pages (make_map_fixture), opens them in headless
// chromium and checks what a person would: no console errors, the known
// blocks and holes drawn (the page's read-only test hooks AND the canvas
// pixels), wheel zoom, drag pan, shift-drag box zoom, hover metadata, click
// to pin, the largest-hole table, the failure's blocker window, the what-if
// box, search, the diff marks.  Saves screenshots to the artifacts folder.
// Exit 0: all passed; 1: a check failed; 77: cannot run here (skipped).
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { SKIP, loadPlaywright, launch, args, watchedPage, openMap } from './browser.mjs';

const opt = args(process.argv, { chromium: '/usr/bin/chromium', work: 'build/browser', artifacts: 'build/artifacts' });
const { pw, why } = await loadPlaywright();
if (!pw) { console.log('SKIP: ' + why); process.exit(SKIP); }
if (!opt.fixture) { console.error('--fixture PATH (make_map_fixture) is required'); process.exit(2); }

const work = resolve(opt.work), artifacts = resolve(opt.artifacts);
mkdirSync(work, { recursive: true });
mkdirSync(artifacts, { recursive: true });
execFileSync(opt.fixture, ['--out-dir', work], { stdio: 'inherit' });
const X = JSON.parse(readFileSync(join(work, 'expected.json'), 'utf8'));
const MiB = X.mib;

let failed = 0, passed = 0;
function check(ok, what, detail) {
  if (ok) { passed++; console.log('ok   ' + what); }
  else { failed++; console.log('FAIL ' + what + (detail !== undefined ? ': ' + JSON.stringify(detail) : '')); }
}
function hexColor(h) { return [1, 3, 5].map((k) => parseInt(h.slice(k, k + 2), 16)); }
function near(p, rgb, tol = 12) { return rgb.every((v, k) => Math.abs(p[k] - v) <= tol); }

const browser = await launch(pw, opt.chromium, { width: 1400, height: 820 });
try {
  const consoleErrors = [];
  const page = await watchedPage(browser, consoleErrors);
  page.on('request', (r) => { if (!r.url().startsWith('file:') && !r.url().startsWith('data:')) consoleErrors.push('network request: ' + r.url()); });

  // ---- the single dump: blocks, holes, failure ------------------------
  await openMap(page, join(work, 'single.html'));
  const rs = (fn, ...a) => page.evaluate(([f, a]) => window.__realmShadow[f](...a), [fn, a]);
  const box = await page.$eval('#map', (el) => { const r = el.getBoundingClientRect(); return { x: r.left, y: r.top }; });
  const geo = await rs('rowGeometry', 0);
  const xOf = (addr) => rs('xOf', 0, addr);
  const midY = geo.barTop + 34;  // below block labels, above the pinned bar

  let s = await rs('state');
  check(s.memories.length === 2, 'two memories shown', s.memories.length);
  check(s.memories[0].name === 'GPU 0 framebuffer' && s.memories[0].count === 4 + X.small_count, 'framebuffer row with its allocations', s.memories[0]);
  check(s.memories[0].view[0] === 0 && s.memories[0].view[1] === X.fb.capacity, 'starts on the whole memory', s.memories[0].view);

  let vb = await rs('visibleBlocks', 0);
  const blockOf = (inst) => vb.blocks.find((b) => b.instance === inst);
  check(vb.mode === 'detail' && vb.blocks.length === 4 + X.small_count, 'every allocation drawn at the whole-memory view', [vb.mode, vb.blocks.length]);
  const ba = blockOf(X.a.instance), bd = blockOf(X.d.instance);
  check(ba && Math.abs(ba.x0 - await xOf(0)) < 0.01 && Math.abs(ba.x1 - await xOf(X.a.size)) < 0.01, 'block A spans its range', ba);
  check(bd && Math.abs(bd.x1 - bd.x0 - geo.width / 4) < 0.5, 'block D is a quarter of the axis', bd);

  const px = async (addr, y = midY) => rs('pixel', await xOf(addr), y);
  const blue = hexColor(await rs('kindColor', 1)), pool = hexColor(await rs('kindColor', 6));
  check(near(await px(128 * MiB), blue), 'pixel: region instance A drawn in its kind color', await px(128 * MiB));
  check(near(await px(768 * MiB), blue), 'pixel: region instance D drawn in its kind color', await px(768 * MiB));
  check(near(await px(928 * MiB), pool), 'pixel: the 1024 pool pieces drawn (aggregated columns)', await px(928 * MiB));
  check(near(await px(992 * MiB), [255, 255, 255], 2), 'pixel: tail hole is empty (white)', await px(992 * MiB));
  check(near(await px(608 * MiB), [255, 255, 255], 2), 'pixel: hole under the reservation is empty', await px(608 * MiB));
  const inWindow = await px(320 * MiB);
  check(inWindow[0] > 235 && inWindow[1] < 235 && inWindow[2] < 235, 'pixel: hole inside the blocker window is tinted red', inWindow);
  const lane = await rs('pixel', await xOf(X.pending.offset + 100 * MiB), geo.laneTop + geo.laneHeight - 5);
  check(!near(lane, [255, 255, 255], 10), 'pixel: the pending request is drawn in the lower lane', lane);

  // text: the title and figures lines end inside the row (shortened with an
  // ellipsis when the row is narrow, never cut by the edge), and no label
  // sits on the bar it annotates (the blocker window's goes under it)
  const textsFit = async (mi) => {
    const g = await rs('rowGeometry', mi), texts = await rs('texts', mi), bad = [];
    for (const t of texts) {
      if (t.x + t.w > g.left + g.width + 0.5) bad.push(['past the right edge', t]);
      if (t.y < g.barTop + g.barHeight && t.y + t.h > g.barTop) bad.push(['on the bar', t]);
    }
    return { ok: texts.length >= 2 && bad.length === 0, bad, texts };
  };
  let fit = await textsFit(0);
  check(fit.ok && fit.texts.some((t) => t.text.startsWith('request 192 MiB')), 'row 0: title and figures inside the row, blocker label off the bar', fit);
  fit = await textsFit(1);
  check(fit.ok, 'row 1: title and figures inside the row', fit);
  await page.setViewportSize({ width: 700, height: 820 });
  await page.waitForTimeout(100);
  await page.evaluate(() => window.__realmShadow.redrawNow());
  fit = await textsFit(0);
  check(fit.ok && fit.texts.some((t) => t.text.endsWith('…')), 'a narrow window shortens the figures line with an ellipsis', fit);
  await page.setViewportSize({ width: 1400, height: 820 });
  await page.waitForTimeout(100);
  await page.evaluate(() => window.__realmShadow.redrawNow());

  // failure: selected at load, the C++ window and the page's own agree
  check(s.failure && s.failure.mi === 0, 'the recorded failure is selected', s.failure);
  const failText = await page.textContent('#failures');
  check(/fragmentation/.test(failText) && /release 1 allocation/.test(failText) && failText.includes('[268435456, 536870912)'), 'failure list names cause and blocker window', failText);
  const jsw = await rs('findBlockers', 0, X.failure.size, 256);
  check(jsw && jsw.window_offset === X.failure.window[0] && jsw.window_end === X.failure.window[1] && jsw.count === 1, 'what-if blockers agree with FindBlockers', jsw);

  // hover: metadata of D, then a hole
  await page.mouse.move(box.x + await xOf(X.d.offset + X.d.size / 2), box.y + midY);
  await page.waitForSelector('#tooltip:not([hidden])');
  let tip = await page.textContent('#tooltip');
  check(tip.includes(X.d.instance) && tip.includes('legate store 17') && tip.includes('(4096, 8192)') && tip.includes('region_instance') && tip.includes('256 MiB'), 'hover shows instance, size, kind and identity', tip);
  await page.mouse.move(box.x + await xOf(992 * MiB), box.y + midY);
  tip = await page.textContent('#tooltip');
  check(tip.includes('hole') && tip.includes('64 MiB') && tip.includes('1006632960'), 'hover on a hole shows its offset and size', tip);
  await page.mouse.move(box.x + await xOf(X.b.offset + 10 * MiB), box.y + midY);
  tip = await page.textContent('#tooltip');
  check(tip.includes('release pending') && tip.includes('compute_flux'), 'hover shows the release-pending state', tip);

  // click pins, Escape unpins
  await page.mouse.click(box.x + await xOf(100 * MiB), box.y + midY);
  s = await rs('state');
  check(s.pinned && s.pinned.what === 'allocation' && (await rs('allocation', 0, s.pinned.index)).instance === X.a.instance, 'click pins allocation A', s.pinned);
  await page.mouse.move(box.x + await xOf(768 * MiB), box.y + midY);
  tip = await page.textContent('#tooltip');
  check(tip.includes(X.a.instance) && tip.includes('stencil.py:42'), 'pinned tooltip stays on A while the mouse moves', tip);
  await page.keyboard.press('Escape');
  check((await rs('state')).pinned === null, 'Escape unpins');

  // wheel zoom around D's middle
  await page.mouse.move(box.x + await xOf(768 * MiB), box.y + midY);
  for (let k = 0; k < 5; k++) await page.mouse.wheel(0, -300);
  await page.waitForFunction(() => { const v = window.__realmShadow.state().memories[0].view; return v[1] - v[0] < 400 * 1048576; });
  s = await rs('state');
  let v = s.memories[0].view;
  check(v[1] - v[0] < X.fb.capacity / 3 && v[0] < 768 * MiB && v[1] > 768 * MiB, 'wheel zooms in around the cursor', v);
  const spanZoomed = v[1] - v[0];
  // drag pans
  const from = box.x + geo.left + geo.width / 2;
  await page.mouse.move(from, box.y + midY);
  await page.mouse.down();
  await page.mouse.move(from + 100, box.y + midY, { steps: 5 });
  await page.mouse.move(from + 200, box.y + midY, { steps: 5 });
  await page.mouse.up();
  s = await rs('state');
  check(Math.abs((v[0] - s.memories[0].view[0]) - spanZoomed * 200 / geo.width) < spanZoomed * 0.02, 'drag pans by the dragged distance', [v, s.memories[0].view]);
  check((await rs('state')).pinned === null, 'a drag does not pin');

  // reset, then shift-drag box zoom over the pool pieces
  await page.click('#reset');
  await page.waitForFunction(() => window.__realmShadow.state().memories[0].view[0] === 0 && window.__realmShadow.state().memories[0].view[1] === 1 << 30);
  const bx0 = await xOf(896 * MiB), bx1 = await xOf(960 * MiB);
  await page.keyboard.down('Shift');
  await page.mouse.move(box.x + bx0, box.y + midY);
  await page.mouse.down();
  await page.mouse.move(box.x + (bx0 + bx1) / 2, box.y + midY, { steps: 4 });
  await page.mouse.move(box.x + bx1, box.y + midY, { steps: 4 });
  await page.mouse.up();
  await page.keyboard.up('Shift');
  await page.evaluate(() => window.__realmShadow.redrawNow());
  v = (await rs('state')).memories[0].view;
  const perPx = X.fb.capacity / geo.width;
  check(Math.abs(v[0] - 896 * MiB) < 2 * perPx && Math.abs(v[1] - 960 * MiB) < 2 * perPx, 'shift-drag box zooms to the box', v);
  vb = await rs('visibleBlocks', 0);
  const pieces = vb.blocks.filter((b) => b.instance.startsWith('0x50000000000'));
  check(vb.mode === 'detail' && pieces.length > 1000 && pieces.every((b) => b.x1 - b.x0 > 0.9), 'after box zoom each pool piece is its own block', [vb.mode, pieces.length]);

  // down to a single allocation
  await rs('zoomTo', 0, 896 * MiB, 896 * MiB + 256 * 1024);
  vb = await rs('visibleBlocks', 0);
  const first = vb.blocks.find((b) => b.instance === '0x5000000000000000');
  check(first && Math.abs((first.x1 - first.x0) - geo.width / 4) < 1, 'zoomed to single allocations (64 KiB = a quarter of the view)', first);

  // largest-hole table: click zooms there
  await page.click('#holes tbody tr:first-child');
  await page.evaluate(() => window.__realmShadow.redrawNow());
  v = (await rs('state')).memories[0].view;
  const [h0o, h0s] = X.holes_before[0];
  check(v[0] <= h0o && v[1] >= h0o + h0s && v[1] - v[0] < 2 * h0s, 'clicking the largest hole zooms onto it', v);
  const holeFirst = await page.textContent('#holes tbody tr:first-child');
  check(holeFirst.includes('128 MiB') && holeFirst.includes('268435456'), 'largest hole first in the table', holeFirst);

  // what-if: fits, then blocked
  await page.fill('#wiSize', '100 MiB');
  await page.fill('#wiAlign', '256');
  await page.click('#whatIf button');
  let wi = await page.textContent('#wiResult');
  s = await rs('state');
  check(/fits/.test(wi) && s.whatIf && s.whatIf.fits && s.whatIf.offset === 256 * MiB, 'what-if 100 MiB: first fit at 256 MiB', [wi, s.whatIf]);
  await page.fill('#wiSize', '250MiB');
  await page.click('#whatIf button');
  wi = await page.textContent('#wiResult');
  check(/does not fit/.test(wi) && /fragmentation/.test(wi) && /release/.test(wi), 'what-if 250 MiB: does not fit, blocker window shown', wi);
  await page.fill('#wiSize', 'lots');
  await page.click('#whatIf button');
  check(/cannot read/.test(await page.textContent('#wiResult')), 'what-if rejects an unreadable size');

  // search: text and instance id
  await page.fill('#search', 'legate store');
  await page.press('#search', 'Enter');
  let res = await page.textContent('#results');
  check(res.includes(X.d.instance), 'search by identity text finds D', res);
  await page.fill('#search', X.b.instance);
  await page.press('#search', 'Enter');
  res = await page.textContent('#results');
  check(res.includes(X.b.instance) && (await rs('state')).hits === 1, 'search by instance id finds B', res);
  await page.fill('#search', '');
  await page.press('#search', 'Enter');

  // the screenshot: whole memories, failure window highlighted, D hovered
  await page.click('#reset');
  await page.evaluate(() => window.__realmShadow.redrawNow());
  await page.mouse.move(box.x + await xOf(X.d.offset + X.d.size / 2), box.y + midY);
  await page.waitForTimeout(100);
  await page.screenshot({ path: join(artifacts, 'map.png') });
  console.log('screenshot: ' + join(artifacts, 'map.png'));

  // ---- the replay table: a click draws a policy's map -------------------
  await openMap(page, join(work, 'replay.html'));
  check(await page.isVisible('#replaySection'), 'replay: the section is shown for a memory with a replay');
  const replayText = await page.textContent('#replay');
  check(/realm/.test(replayText) && /best-fit/.test(replayText) && /1\.19 GiB/.test(replayText) && /the dump/.test(replayText),
    'replay: a row per policy with its min capacity, and the dump', replayText);
  const rgeo = await rs('rowGeometry', 0);
  const holeAt300 = await rs('pixel', await rs('xOf', 0, 300 * MiB), rgeo.barTop + rgeo.barHeight / 2);
  await page.click('#replay tbody tr:nth-child(2)');
  await page.evaluate(() => window.__realmShadow.redrawNow());
  s = await rs('state');
  const placedAt = await rs('allocation', 0, 1);
  check(s.replayShown[0] === 'best-fit' && s.memories[0].count === 2 && placedAt.offset === 256 * MiB && placedAt.instance === '0x4000000000000200',
    'replay: clicking best-fit draws its map (the failed request placed at 256 MiB)', [s.replayShown, s.memories[0].count, placedAt]);
  const filled = await rs('pixel', await rs('xOf', 0, 300 * MiB), rgeo.barTop + rgeo.barHeight / 2);
  check(!near(filled, holeAt300), 'pixel: the hole at 300 MiB is drawn full in the best-fit map', [holeAt300, filled]);
  check(/showing best-fit/.test(await page.textContent('#replayShowing')), 'replay: the panel says which map is shown');
  await page.click('#replay tbody tr:nth-child(3)');
  s = await rs('state');
  check(s.replayShown[0] === null && s.memories[0].count === 4 + X.small_count, 'replay: the dump row brings the recorded map back', [s.replayShown, s.memories[0].count]);
  await page.click('#replay tbody tr:nth-child(2)');
  await page.evaluate(() => window.__realmShadow.redrawNow());
  await page.screenshot({ path: join(artifacts, 'map_replay.png') });
  await openMap(page, join(work, 'single.html'));
  check(!(await page.isVisible('#replaySection')), 'replay: no section without a replay');

  // ---- two dumps: the diff ----------------------------------------------
  await openMap(page, join(work, 'map.html'));
  s = await rs('state');
  check(s.dump === 1 && s.diff, 'two dumps: the after picture with diff marks', [s.dump, s.diff]);
  const diffText = await page.textContent('#diff');
  check(/added 1\b/.test(diffText) && /moved or resized 1\b/.test(diffText) && /removed 1\b/.test(diffText), 'diff counts: one added, one moved, one removed', diffText);
  const geo2 = await rs('rowGeometry', 0);
  const green = await rs('pixel', await rs('xOf', 0, 64 * MiB), geo2.barTop + 3);
  check(near(green, [0x16, 0xa3, 0x4a]), 'pixel: added allocation E has the added mark', green);
  const moved = await rs('pixel', await rs('xOf', 0, 600 * MiB), geo2.barTop + 3);
  check(near(moved, [0x25, 0x63, 0xeb]), 'pixel: moved allocation C has the moved mark', moved);
  // the ghost is a red hatch: some pixel of a short run is on a line
  const ghostX = await rs('xOf', 0, 200 * MiB), ghost = [];
  for (let k = 0; k < 10; k++) ghost.push(await rs('pixel', ghostX + k, geo2.barTop + geo2.barHeight - 7));
  check(ghost.some((p) => p[0] > 180 && p[1] < 130 && p[2] < 130), 'pixel: removed A leaves a red ghost in the hole', ghost);
  await page.screenshot({ path: join(artifacts, 'map_diff.png') });
  await page.selectOption('#dumpSelect', '0');
  s = await rs('state');
  check(s.dump === 0 && !s.diff && s.memories[0].count === 4 + X.small_count, 'switching to the before picture', [s.dump, s.diff]);

  // ---- two nodes, coloured by task ---------------------------------------
  await openMap(page, join(work, 'nodes.html'));
  s = await rs('state');
  check(s.multiNode && s.colorBy === 'task', 'two nodes, coloured by task as the page was written', [s.multiNode, s.colorBy]);
  const bands = await rs('nodeBands');
  const g0 = await rs('rowGeometry', 0), g1 = await rs('rowGeometry', 1);
  check(bands[0].node === 0 && bands[1].node === 1 && g0.top > 0 && g1.top >= g0.top + g0.height + 20, 'each node\'s rows under a band of its own', [bands, g0.top, g1.top]);
  const groups = await rs('groups');
  check(groups.length === 2 && groups[0].value === 'alpha' && groups[0].bytes === X.nodes.alpha_bytes && groups[1].value === 'beta' && groups[1].bytes === X.nodes.beta_bytes,
        'top groups by bytes across the nodes: alpha, then beta', groups);
  const legend = await page.textContent('#legend');
  check(legend.includes('alpha') && legend.includes('beta') && legend.includes('task unknown'), 'the legend names the top groups', legend);
  const pAlpha = await rs('pixel', await rs('xOf', 0, X.nodes.alpha_at), g0.barTop + 20);
  check(near(pAlpha, hexColor(groups[0].color)), 'pixel: an alpha block has alpha\'s colour', [pAlpha, groups[0].color]);
  const pBeta = await rs('pixel', await rs('xOf', 1, X.nodes.beta_at), g1.barTop + 20);
  check(near(pBeta, hexColor(groups[1].color)), 'pixel: node 1\'s beta block has beta\'s colour', [pBeta, groups[1].color]);
  const pNone = await rs('pixel', await rs('xOf', 1, X.nodes.none_at), g1.barTop + 20);
  check(near(pNone, hexColor('#dde2e8')), 'pixel: an allocation without a task is "unknown"', pNone);
  await page.screenshot({ path: join(artifacts, 'map_nodes.png') });
  await page.selectOption('#colorBy', 'kind');
  const pKind = await rs('pixel', await rs('xOf', 0, X.nodes.alpha_at), g0.barTop + 20);
  check((await rs('state')).colorBy === 'kind' && near(pKind, hexColor(await rs('kindColor', 1))), 'colour by kind again: region instances in their kind colour', pKind);

  check(consoleErrors.length === 0, 'no console errors and no network requests', consoleErrors);
} finally {
  await browser.close();
}
console.log(`${passed} passed, ${failed} failed`);
process.exit(failed ? 1 : 0);
