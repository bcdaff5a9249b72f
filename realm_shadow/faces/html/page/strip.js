  // page/strip.js: the time strip above each memory with a history, and the
  // map at a moment of it.
  // ---- the strip ------------------------------------------------------
  // Drawn from the buckets html_page.cc wrote (min and max of used bytes
  // and of the largest hole over every moment of each bucket), a pixel
  // column taking the min and max of its buckets: nothing sampled.  The
  // moments the map can show are bucket boundaries (every `stride`-th); at
  // each, the state is the spans alive there, from the replay of every
  // event when the page was written, and the figures Summarize gave then:
  // exact, never interpolated.
  let spanBlock = null;  // the parsed #rs-history element, once needed
  function spansOf(m) {
    const h = m.history;
    if (h.sp) return h.sp;
    if (!spanBlock) spanBlock = JSON.parse($('rs-history').textContent);
    const bytes = b64bytes(spanBlock[h.key]);
    delete spanBlock[h.key];
    const n = h.spans;
    if (bytes.length !== 37 * n) throw new Error('memory ' + m.id + ': spans length ' + bytes.length);
    const buf = bytes.buffer, base = bytes.byteOffset;
    h.sp = {
      off: new Float64Array(buf, base, n), size: new Float64Array(buf, base + 8 * n, n),
      inst: new Uint32Array(buf, base + 16 * n, 2 * n), ident: new Uint32Array(buf, base + 24 * n, n),
      first: new Uint32Array(buf, base + 28 * n, n), last: new Uint32Array(buf, base + 32 * n, n),
      bits: new Uint8Array(buf, base + 36 * n, n),
    };
    return h.sp;
  }

  // What the page shows at the dump's own moment, kept to come back to.
  function keepDumpPicture(m) {
    if (m.dumpPicture) return;
    m.dumpPicture = { off: m.off, size: m.size, inst: m.inst, ident: m.ident, bits: m.bits, pre: m.pre, preRel: m.preRel,
      count: m.count, summary: m.summary, top_holes: m.top_holes, top_allocations: m.top_allocations, usage: m.usage,
      pending: m.pending, reservations: m.reservations, failures: m.failures, diffStatus: m.diffStatus };
  }

  // The map of memory m at shown moment k (null: the dump's own picture).
  function showMoment(m, k) {
    const h = m.history;
    const t = performance.now();
    keepDumpPicture(m);
    m.occ = null;  // what-if's cache of the arrays
    if (k == null) {
      Object.assign(m, m.dumpPicture);
      h.moment = null;
      return performance.now() - t;
    }
    k = Math.max(0, Math.min(h.shown - 1, k));
    const sp = spansOf(m), n = h.spans;
    let c = 0;
    for (let i = 0; i < n; i++) if (sp.first[i] <= k && k <= sp.last[i]) c++;
    const off = new Float64Array(c), size = new Float64Array(c), inst = new Uint32Array(2 * c);
    const ident = new Uint32Array(c), bits = new Uint8Array(c);
    const pre = new Float64Array(c + 1), preRel = new Uint32Array(c + 1);
    const usage = m.usage.map((u) => ({ kind: u.kind, bytes: 0, count: 0 }));
    let j = 0, s = 0, r = 0;
    for (let i = 0; i < n; i++) {
      if (sp.first[i] > k || k > sp.last[i]) continue;
      off[j] = sp.off[i]; size[j] = sp.size[i];
      inst[2 * j] = sp.inst[2 * i]; inst[2 * j + 1] = sp.inst[2 * i + 1];
      ident[j] = sp.ident[i]; bits[j] = sp.bits[i];
      s += size[j]; if ((bits[j] >> 3) & 3) r++;
      pre[j + 1] = s; preRel[j + 1] = r;
      const u = usage[bits[j] & 7]; u.bytes += size[j]; u.count++;
      j++;
    }
    Object.assign(m, { off, size, inst, ident, bits, pre, preRel, count: c, usage, diffStatus: new Uint8Array(c) });
    const seq = h.boundary[h.shownAt[k]];
    m.summary = {
      capacity: m.dumpPicture.summary.capacity, used: h.mUsed[k], total_free: h.mFree[k], largest_hole: h.mLargest[k],
      hole_count: h.mHoles[k], allocation_count: h.mCount[k],
      fragmentation: h.mFree[k] > 0 ? 1 - h.mLargest[k] / h.mFree[k] : 0,
      peak_used: m.dumpPicture.summary.peak_used, failures_total: m.dumpPicture.summary.failures_total,
    };
    m.top_holes = topHoles(m, 100);
    m.top_allocations = topAllocations(m, 100);
    // Pending requests and reservations are known at the dump's moment only;
    // failures are those before this moment, without the dump's blockers.
    m.pending = []; m.reservations = [];
    m.failures = m.dumpPicture.failures.filter((f) => f.sequence < seq).map((f) => ({ ...f, blockers: null, cause: 'see the dump\'s moment' }));
    h.moment = k;
    return performance.now() - t;
  }

  // The holes of the current arrays, as analysis.h's FindHoles walks them
  // (zero-byte allocations occupy nothing, overlaps cover their union,
  // clipped to the capacity or, unknown, to the highest end), largest first.
  function topHoles(m, k) {
    if (m.addressed) return [];
    let extent = m.capacity_known ? m.capacity : 0;
    if (!m.capacity_known) for (let i = 0; i < m.count; i++) if (m.size[i] > 0) extent = Math.max(extent, m.off[i] + m.size[i]);
    const holes = [];
    let cursor = 0;
    for (let i = 0; i < m.count && cursor < extent; i++) {
      if (m.size[i] <= 0) continue;
      if (m.off[i] > cursor) holes.push([cursor, Math.min(m.off[i], extent) - cursor]);
      cursor = Math.max(cursor, m.off[i] + m.size[i]);
    }
    if (cursor < extent) holes.push([cursor, extent - cursor]);
    holes.sort((a, b) => (b[1] - a[1]) || (a[0] - b[0]));
    return holes.slice(0, k);
  }
  function topAllocations(m, k) {
    const idx = [];
    for (let i = 0; i < m.count; i++) idx.push(i);
    idx.sort((a, b) => (m.size[b] - m.size[a]) || (m.off[a] - m.off[b]));
    return idx.slice(0, k);
  }

  // x of shown moment k, and the shown moment nearest an x.
  function stripX(m, g, k) {
    const h = m.history;
    return g.left + h.shownAt[k] / h.buckets * g.width;
  }
  function momentAtX(m, g, x) {
    const h = m.history;
    const j = Math.round(Math.max(0, Math.min(1, (x - g.left) / g.width)) * h.buckets);
    let k = Math.round(j / h.stride);
    return Math.max(0, Math.min(h.shown - 1, k));
  }
  function inStrip(mi, y) {
    const g = rowGeometry(mi), m = mems()[mi];
    return !!(m && m.history && m.history.buckets && y >= g.stripTop && y < g.stripTop + g.stripHeight);
  }
  function momentText(m, k) {
    const h = m.history;
    if (k == null) return 'the dump\'s own moment (' + m.dumpPicture.count + ' allocations, event ' + m.sequence + ')';
    const j = h.shownAt[k], seq = h.boundary[j];
    return 'after event ' + seq + ' of ' + h.end + ' (' + (h.timeNs[j] / 1e9).toFixed(6) + ' s, ' + h.clock + ')' +
      (h.stride > 1 ? '; moments every ' + h.stride + ' buckets' : '');
  }

  function drawStrip(m, mi, g) {
    const h = m.history, y0 = g.stripTop + 2, sh = g.stripHeight - 8;
    ctx.fillStyle = '#f5f7fa';
    ctx.fillRect(g.left, g.stripTop, g.width, g.stripHeight - 4);
    ctx.font = '10px system-ui, "DejaVu Sans", sans-serif';
    if (!h || !h.buckets) {
      ctx.fillStyle = '#5b6673';
      ctx.fillText(h ? 'history: no event in the window' : 'no history in this dump', g.left + 4, y0 + 12);
      return;
    }
    const cap = Math.max(1, m.dumpPicture ? m.dumpPicture.summary.capacity || m.cap : m.summary.capacity || m.cap);
    const yOf = (v) => y0 + sh - Math.min(1, v / cap) * sh;
    const W = Math.max(1, Math.floor(g.width)), B = h.buckets;
    for (let c = 0; c < W; c++) {
      const b0 = Math.floor(c * B / W), b1 = Math.max(b0 + 1, Math.floor((c + 1) * B / W));
      let uMin = Infinity, uMax = -Infinity, hMin = Infinity, hMax = -Infinity, fails = 0;
      for (let b = b0; b < b1 && b < B; b++) {
        uMin = Math.min(uMin, h.usedMin[b]); uMax = Math.max(uMax, h.usedMax[b]);
        hMin = Math.min(hMin, h.holeMin[b]); hMax = Math.max(hMax, h.holeMax[b]);
        fails += h.failures[b];
      }
      if (uMax < 0) continue;
      const x = g.left + c;
      ctx.fillStyle = 'rgba(59,130,196,0.35)';  // used: the area up to its max
      ctx.fillRect(x, yOf(uMax), 1, y0 + sh - yOf(uMax));
      ctx.fillStyle = '#1d5fa0';                 // and its range in the bucket
      ctx.fillRect(x, yOf(uMax), 1, Math.max(1, yOf(uMin) - yOf(uMax) + 1));
      ctx.fillStyle = '#15803d';                 // largest hole, min to max
      ctx.fillRect(x, yOf(hMax), 1, Math.max(1.5, yOf(hMin) - yOf(hMax) + 1));
      if (fails) { ctx.fillStyle = C.fail; ctx.fillRect(x - 1, y0 - 2, 3, sh + 4); }
    }
    const legend = 'used (blue) and largest hole (green), 0 to ' + human(cap) + ', events ' + h.first + ' to ' + h.end +
      (h.failures.some((f) => f) ? '; failures in red' : '');
    ctx.fillStyle = 'rgba(245,247,250,0.85)';
    ctx.fillRect(g.left + 2, y0 - 1, ctx.measureText(legend).width + 6, 12);
    ctx.fillStyle = '#334155';
    ctx.fillText(legend, g.left + 5, y0 + 9);
    const k = h.moment;
    const x = k == null ? g.left + g.width : stripX(m, g, k);
    ctx.fillStyle = '#111827';
    ctx.fillRect(Math.min(x, g.left + g.width - 2), g.stripTop, 2, g.stripHeight - 4);
    ctx.textAlign = 'right';
    ctx.fillStyle = '#334155';
    ctx.fillText(k == null ? 'drag to move the map in time' : momentText(m, k), g.left + g.width - 4, y0 + 9);
    ctx.textAlign = 'left';
  }

  // Moves memory mi to shown moment k (null: back to the dump's picture).
  function scrub(mi, k) {
    const m = mems()[mi];
    if (!m || !m.history || !m.history.buckets) return null;
    const ms = showMoment(m, k);
    timing.scrubs.push(ms);
    if (timing.scrubs.length > 500) timing.scrubs.shift();
    if (st.failure && st.failure.mi === mi) st.failure = null;
    if (st.pinned && st.pinned.mi === mi) { st.pinned = null; showTooltip(null); }
    if (st.whatIf && st.whatIf.mi === mi) st.whatIf = null;
    st.hits = null;
    if (st.focus !== mi) st.focus = mi;
    renderSide();
    requestDraw();
    return ms;
  }
