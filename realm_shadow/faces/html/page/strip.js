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
  //
  // The spans (a life of an allocation between two changes, alive over
  // shown moments first..last) wait in #rs-history, after the script, so
  // that the first frame does not wait for them; they are read once the
  // document is parsed.  The map then moves from moment to moment by the
  // spans that begin and end between the two (indexed by moment once, when
  // read), forward or backward: a step costs the spans it crosses, a
  // binary search for each change in the shown arrays and a copy of the
  // runs between the changes (typed-array set, a memmove), plus the prefix
  // sums from the first change on.  A jump that would cross more than a
  // quarter of all spans rebuilds the moment from every span instead (one
  // pass).  Both give the spans alive at the moment, sorted as the dump's
  // allocations are (offset, instance): exact either way.
  let spanBlock = null;  // the parsed #rs-history element, while read
  const FULL_REBUILD = 4;  // rebuild when the crossed spans pass spans / 4
  // Resolves once every memory's spans are read (the document parsed, then
  // one pass per memory); a scrub asked for before waits for it.
  let historyRead = null;
  function readHistory() {
    if (historyRead) return historyRead;
    historyRead = new Promise((resolve) => {
      const go = () => setTimeout(() => {
        try {
          for (const d of data.dumps) for (const m of d.memories) if (m.history && m.history.buckets) spansOf(m);
        } catch (e) {
          errors.push(String(e));
        }
        spanBlock = null;
        timing.historyReadMs = performance.now() - T0;
        resolve();
      }, 0);
      if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', go);
      else go();
    });
    return historyRead;
  }
  function spansOf(m) {
    const h = m.history;
    if (h.sp) return h.sp;
    if (!spanBlock) spanBlock = JSON.parse($('rs-history').textContent);
    const n = h.spans, S = h.shown;
    const c = columns(b64bytes(spanBlock[h.key]), 'memory ' + m.id + ' spans');
    delete spanBlock[h.key];
    const sp = {};
    readAllocations(c, sp, n);
    sp.first = c.unsigned(new Uint32Array(n));
    sp.last = c.unsigned(new Uint32Array(n));
    c.done();
    // Spans by the moment they begin (born) and end (died), in span order:
    // those of moment k are born[bornAt[k] .. bornAt[k + 1]).
    const bornAt = new Uint32Array(S + 1), diedAt = new Uint32Array(S + 1);
    for (let i = 0; i < n; i++) {
      sp.last[i] += sp.first[i];
      if (sp.last[i] >= S) throw new Error('memory ' + m.id + ': span ' + i + ' ends past the last moment');
      bornAt[sp.first[i] + 1]++;
      diedAt[sp.last[i] + 1]++;
    }
    for (let k = 0; k < S; k++) { bornAt[k + 1] += bornAt[k]; diedAt[k + 1] += diedAt[k]; }
    sp.born = new Uint32Array(n); sp.died = new Uint32Array(n);
    const b = bornAt.slice(0, S), d = diedAt.slice(0, S);
    for (let i = 0; i < n; i++) { sp.born[b[sp.first[i]]++] = i; sp.died[d[sp.last[i]]++] = i; }
    sp.bornAt = bornAt; sp.diedAt = diedAt;
    // The most alive at any moment: what the shown arrays must hold.
    let most = 0;
    for (let k = 0; k < S; k++) most = Math.max(most, bornAt[k + 1] - diedAt[k]);
    const buffer = () => ({
      span: new Uint32Array(most), off: new Float64Array(most), size: new Float64Array(most),
      inst: new Uint32Array(2 * most), ident: new Uint32Array(most), bits: new Uint8Array(most), color: new Uint8Array(most),
      pre: new Float64Array(most + 1), preRel: new Uint32Array(most + 1), count: 0, moment: null,
    });
    // Two buffers: a step writes the one not shown from the one shown.
    sp.buffers = [buffer(), buffer()];
    sp.shown = 0;
    sp.noDiff = new Uint8Array(most);
    h.sp = sp;
    return sp;
  }

  // What the page shows at the dump's own moment, kept to come back to.
  function keepDumpPicture(m) {
    if (m.dumpPicture) return;
    m.dumpPicture = { off: m.off, size: m.size, inst: m.inst, ident: m.ident, bits: m.bits, color: m.color, pre: m.pre, preRel: m.preRel,
      count: m.count, summary: m.summary, top_holes: m.top_holes, top_allocations: m.top_allocations, usage: m.usage,
      pending: m.pending, reservations: m.reservations, failures: m.failures, diffStatus: m.diffStatus };
  }

  // Slot j of buffer B := span i.
  function putSpan(sp, B, j, i) {
    B.span[j] = i; B.off[j] = sp.off[i]; B.size[j] = sp.size[i];
    B.inst[2 * j] = sp.inst[2 * i]; B.inst[2 * j + 1] = sp.inst[2 * i + 1];
    B.ident[j] = sp.ident[i]; B.bits[j] = sp.bits[i]; B.color[j] = colorOf(sp.ident[i], sp.bits[i]);
  }

  // Buffer B := the spans alive at moment k, every span looked at.
  function rebuild(sp, n, B, k) {
    const first = sp.first, last = sp.last;
    let j = 0;
    for (let i = 0; i < n; i++) if (first[i] <= k && k <= last[i]) putSpan(sp, B, j++, i);
    B.count = j;
    B.moment = k;
    B.coloring = coloring;
    prefixSums(B, 0);
    B.usage = new Float64Array(16);  // bytes, then count, per kind
    for (let i = 0; i < j; i++) { const kind = B.bits[i] & 7; B.usage[kind] += B.size[i]; B.usage[8 + kind]++; }
  }

  // The spans alive at moment `from` but not at `to` (removed) and alive at
  // `to` but not at `from` (added), each sorted; null when that would cross
  // more than spans / FULL_REBUILD of them.
  function crossed(sp, n, from, to) {
    // Forward, those that die in [from, to) leave and those born in
    // (from, to] come; backward, those born in (to, from] leave and those
    // that die in [to, from) come.
    const fwd = from < to, lo = Math.min(from, to), hi = Math.max(from, to);
    const leave = fwd ? sp.died : sp.born, leaveAt = fwd ? sp.diedAt : sp.bornAt;
    const come = fwd ? sp.born : sp.died, comeAt = fwd ? sp.bornAt : sp.diedAt;
    const l0 = leaveAt[fwd ? lo : lo + 1], l1 = leaveAt[fwd ? hi : hi + 1];
    const c0 = comeAt[fwd ? lo + 1 : lo], c1 = comeAt[fwd ? hi + 1 : hi];
    if ((l1 - l0) + (c1 - c0) > n / FULL_REBUILD) return null;
    const removed = new Uint32Array(l1 - l0), added = new Uint32Array(c1 - c0);
    let r = 0, a = 0;
    for (let q = l0; q < l1; q++) {
      const i = leave[q];
      if (sp.first[i] <= from && from <= sp.last[i]) removed[r++] = i;
    }
    for (let q = c0; q < c1; q++) {
      const i = come[q];
      if (sp.first[i] <= to && to <= sp.last[i]) added[a++] = i;
    }
    return { removed: removed.subarray(0, r).sort(), added: added.subarray(0, a).sort() };
  }

  // Buffer B := buffer P less `removed` plus `added` (sorted span indices,
  // as P.span is), at moment `to`.
  function applyCrossed(sp, P, B, removed, added, to) {
    const RUN = ['span', 'off', 'size', 'ident', 'bits', 'color'];
    const run = (s, e, dst) => {  // P[s, e) to B at dst
      if (e <= s) return;
      for (const x of RUN) B[x].set(P[x].subarray(s, e), dst);
      B.inst.set(P.inst.subarray(2 * s, 2 * e), 2 * dst);
    };
    let src = 0, dst = 0, ri = 0, ai = 0, first = -1;
    while (ri < removed.length || ai < added.length) {
      const rp = ri < removed.length ? lowerBound(P.span, P.count, removed[ri]) : Infinity;
      const ap = ai < added.length ? lowerBound(P.span, P.count, added[ai]) : Infinity;
      const p = Math.min(rp, ap);
      run(src, p, dst);
      dst += p - src;
      src = p;
      if (first < 0) first = dst;
      if (ap <= rp) putSpan(sp, B, dst++, added[ai++]);  // sorts before P.span[p]
      else { src++; ri++; }  // P.span[p] leaves
    }
    run(src, P.count, dst);
    dst += P.count - src;
    B.count = dst;
    B.moment = to;
    B.coloring = P.coloring;  // the runs' colours are P's
    if (first < 0) first = dst;
    B.usage = P.usage.slice();
    for (const i of removed) { B.usage[sp.bits[i] & 7] -= sp.size[i]; B.usage[8 + (sp.bits[i] & 7)]--; }
    for (const i of added) { B.usage[sp.bits[i] & 7] += sp.size[i]; B.usage[8 + (sp.bits[i] & 7)]++; }
    B.pre.set(P.pre.subarray(0, first + 1));
    B.preRel.set(P.preRel.subarray(0, first + 1));
    prefixSums(B, first);
  }

  // Memory m shows buffer B: its arrays (views), and its use by kind (kept
  // per buffer, moved by the spans crossed: exact below 2^53 bytes).
  function showBuffer(m, sp, B) {
    const c = B.count;
    Object.assign(m, {
      off: B.off.subarray(0, c), size: B.size.subarray(0, c), inst: B.inst.subarray(0, 2 * c),
      ident: B.ident.subarray(0, c), bits: B.bits.subarray(0, c), color: B.color.subarray(0, c),
      pre: B.pre.subarray(0, c + 1), preRel: B.preRel.subarray(0, c + 1), count: c, diffStatus: sp.noDiff.subarray(0, c),
    });
    m.usage = m.usage.map((u, kind) => ({ kind: u.kind, bytes: B.usage[kind], count: B.usage[8 + kind] }));
  }

  // The map of memory m at shown moment k (null: the dump's own picture);
  // the ms it took, or null while the spans are not read yet.
  function showMoment(m, k) {
    const h = m.history;
    if (k != null && !h.sp) return null;
    const t = performance.now();
    keepDumpPicture(m);
    m.occ = m.maxEnd = null;  // what-if's cache of the arrays
    if (k == null) {
      Object.assign(m, m.dumpPicture);
      recolor(m);  // the colouring may have changed meanwhile
      h.moment = null;
      return performance.now() - t;
    }
    k = Math.max(0, Math.min(h.shown - 1, k));
    const sp = h.sp, P = sp.buffers[sp.shown], B = sp.buffers[1 - sp.shown];
    if (P.moment !== k) {
      const change = P.moment == null ? null : crossed(sp, h.spans, P.moment, k);
      if (change) applyCrossed(sp, P, B, change.removed, change.added, k);
      else rebuild(sp, h.spans, B, k);
      timing.moves[change ? (k > P.moment ? 'forward' : 'backward') : 'rebuilt']++;
      sp.shown = 1 - sp.shown;
    }
    const S = sp.buffers[sp.shown];
    showBuffer(m, sp, S);
    if (S.coloring !== coloring) { recolor(m); S.coloring = coloring; }
    const seq = h.boundary[h.shownAt[k]];
    m.summary = {
      capacity: m.dumpPicture.summary.capacity, used: h.mUsed[k], total_free: h.mFree[k], largest_hole: h.mLargest[k],
      hole_count: h.mHoles[k], allocation_count: h.mCount[k],
      fragmentation: h.mFree[k] > 0 ? 1 - h.mLargest[k] / h.mFree[k] : 0,
      peak_used: m.dumpPicture.summary.peak_used, failures_total: m.dumpPicture.summary.failures_total,
    };
    // The side panel's largest holes and allocations (a pass over every
    // allocation each) follow in a task of their own, so that a drag over
    // the strip moves the map at once; timing.tables says what they cost.
    m.top_holes = []; m.top_allocations = [];
    clearTimeout(h.tables);
    h.tables = setTimeout(() => {
      const t0 = performance.now();
      m.top_holes = topHoles(m, 100);
      m.top_allocations = topAllocations(m, 100);
      timing.tables.push(performance.now() - t0);
      if (timing.tables.length > 500) timing.tables.shift();
      if (mems()[st.focus] === m) renderSide();
    }, 0);
    // Pending requests and reservations are known at the dump's moment only;
    // failures are those before this moment, without the dump's blockers.
    m.pending = []; m.reservations = [];
    m.failures = m.dumpPicture.failures.filter((f) => f.sequence < seq).map((f) => ({ ...f, blockers: null, cause: 'see the dump\'s moment' }));
    h.moment = k;
    return performance.now() - t;
  }

  // The k items of largest key among those offered, largest first; they
  // come in increasing offset, so a key equal to one kept goes after it (as
  // analysis.h's TopHoles breaks ties).  Most offers cost one comparison
  // with the k-th key, so a pass over a million costs about the pass, where
  // sorting them all (and an array per hole) took most of a scrub.
  function topK(k) {
    const key = [], item = [];
    let worst = -Infinity;  // the k-th key once k are kept
    return {
      item, key,
      offer(z, x) {
        if (z <= worst) return;
        let i = Math.min(key.length, k - 1);
        while (i > 0 && key[i - 1] < z) { key[i] = key[i - 1]; item[i] = item[i - 1]; i--; }
        key[i] = z; item[i] = x;
        if (key.length === k) worst = key[k - 1];
      },
    };
  }
  // The holes of the current arrays, as analysis.h's FindHoles walks them
  // (zero-byte allocations occupy nothing, overlaps cover their union,
  // clipped to the capacity or, unknown, to the highest end), largest first.
  function topHoles(m, k) {
    if (m.addressed) return [];
    const off = m.off, size = m.size, n = m.count;
    let extent = m.capacity_known ? m.capacity : 0;
    if (!m.capacity_known) for (let i = 0; i < n; i++) if (size[i] > 0) extent = Math.max(extent, off[i] + size[i]);
    const top = topK(k);
    let cursor = 0;
    for (let i = 0; i < n && cursor < extent; i++) {
      if (size[i] <= 0) continue;
      if (off[i] > cursor) top.offer(Math.min(off[i], extent) - cursor, cursor);
      cursor = Math.max(cursor, off[i] + size[i]);
    }
    if (cursor < extent) top.offer(extent - cursor, cursor);
    return top.item.map((o, j) => [o, top.key[j]]);
  }
  function topAllocations(m, k) {
    const size = m.size, top = topK(k);
    for (let i = 0; i < m.count; i++) top.offer(size[i], i);
    return top.item;
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


  // Moves memory mi to shown moment k (null: back to the dump's picture);
  // the ms it took, or null when the spans are not read yet: then the
  // moment asked for last is shown once they are.
  function scrub(mi, k) {
    const m = mems()[mi];
    if (!m || !m.history || !m.history.buckets) return null;
    if (k != null && !m.history.sp) {
      const h = m.history, first = !('waiting' in h);
      h.waiting = k;
      if (first) readHistory().then(() => { const w = h.waiting; delete h.waiting; if (h.sp) scrub(mi, w); });
      return null;
    }
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
