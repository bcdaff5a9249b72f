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
  // read), forward or backward, in place in the one buffer shown: a step
  // costs a look at each span it crosses (a bit set per span that changes,
  // read back in index order, which is the allocations' order: no sort),
  // a galloping search per change from the one before, a move of the slots
  // between the changes (a copyWithin per column for a long run, a loop
  // for a short one; none for the tail when as many come as leave), the
  // added spans' columns gathered, and the prefix sums from the first
  // change on.  No object per run or per span.  A jump that would cross
  // more than a quarter of all spans rebuilds the moment from every span
  // instead (one pass; stepping costs as much there).  Both give the spans
  // alive at the moment, sorted as the dump's allocations are (offset,
  // instance): exact either way (history_test.mjs holds every step against
  // the moment rebuilt, and the rebuilt moments against `realm-shadow at`).
  // At 10M events and 1M live (docs/benchmarks.md) a step takes a median
  // 12-15 ms of the renderer's CPU with its draw (p95 18-20 ms), a far
  // jump (rebuilt) 26-38 ms.
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
    // One buffer: a step changes it in place.
    sp.buffer = shownBuffer(most);
    sp.most = most;
    sp.noDiff = new Uint8Array(most);
    h.sp = sp;
    return sp;
  }

  // The arrays a moment is shown from, for at most `most` spans alive (span
  // has a slot more: aliveAt writes each span into the slot after the last
  // alive one).
  function shownBuffer(most) {
    return {
      span: new Uint32Array(most + 1), off: new Float64Array(most), size: new Float64Array(most),
      inst: new Uint32Array(2 * most), ident: new Uint32Array(most), bits: new Uint8Array(most), color: new Uint8Array(most),
      pre: new Float64Array(most + 1), preRel: new Uint32Array(most + 1), usage: new Float64Array(16), count: 0, moment: null, coloring: -1,
    };
  }

  // What the page shows at the dump's own moment, kept to come back to.
  function keepDumpPicture(m) {
    if (m.dumpPicture) return;
    m.dumpPicture = { off: m.off, size: m.size, inst: m.inst, ident: m.ident, bits: m.bits, color: m.color, pre: m.pre, preRel: m.preRel,
      count: m.count, summary: m.summary, top_holes: m.top_holes, top_allocations: m.top_allocations, usage: m.usage,
      pending: m.pending, reservations: m.reservations, failures: m.failures, diffStatus: m.diffStatus };
  }

  // Slots [lo, hi) of buffer B := the spans their B.span names (one loop
  // over the columns: a loop per column would leave the later loops
  // without type feedback when the first one is optimized on the stack,
  // and deoptimize).
  function gatherSlots(sp, B, lo, hi) {
    const span = B.span, off = B.off, size = B.size, inst = B.inst, ident = B.ident, bits = B.bits, color = B.color;
    const sOff = sp.off, sSize = sp.size, sInst = sp.inst, sIdent = sp.ident, sBits = sp.bits;
    for (let x = lo; x < hi; x++) {
      const i = span[x];
      off[x] = sOff[i]; size[x] = sSize[i]; inst[2 * x] = sInst[2 * i]; inst[2 * x + 1] = sInst[2 * i + 1];
      const id = sIdent[i], b = sBits[i];
      ident[x] = id; bits[x] = b; color[x] = colorOf(id, b);
    }
  }
  // Use by kind (bytes, then count, per kind) of spans of[0..count) added
  // (sign 1) or removed (-1).
  function addUsage(sp, usage, of, count, sign) {
    const size = sp.size, bits = sp.bits;
    for (let q = 0; q < count; q++) { const i = of[q], kind = bits[i] & 7; usage[kind] += sign * size[i]; usage[8 + kind] += sign; }
  }

  // B.usage += the use by kind of B's slots [0, count).
  function shownUsage(B, count) {
    const usage = B.usage, size = B.size, bits = B.bits;
    for (let x = 0; x < count; x++) { const kind = bits[x] & 7; usage[kind] += size[x]; usage[8 + kind]++; }
  }

  // Buffer B := the spans alive at moment k, every span looked at.
  function rebuild(sp, n, B, k) {
    const span = B.span, j = aliveAt(sp.first, sp.last, n, k, span);
    gatherSlots(sp, B, 0, j);
    B.count = j;
    B.moment = k;
    B.coloring = coloring;
    prefixSums(B, 0);
    B.usage.fill(0);
    shownUsage(B, j);
  }

  // out := the spans of [0, n) alive at moment k, in index order; their count.
  function aliveAt(first, last, n, k, out) {
    let j = 0;
    for (let i = 0; i < n; i++) { out[j] = i; j += (first[i] <= k) & (k <= last[i]); }  // no branch to mispredict
    return j;
  }

  // What a step needs besides the shown arrays, made at the first step: a
  // bit per span (the crossed spans sorted by setting their bits and
  // reading them back in index order, which is the allocations' order),
  // the spans found, and the edits they make (grown as needed: at most as
  // many as the spans found, mostly far fewer, since neighbours merge).
  function stepScratch(sp, n, most) {
    if (!sp.step) {
      sp.step = { marks: new Uint32Array((n + 31) >>> 5),
        removed: new Uint32Array(most), added: new Uint32Array(most), editAt: new Uint32Array(1024), editBy: new Int32Array(1024) };
    }
    return sp.step;
  }
  // The bit of each span list[q0..q1) alive at moment `at`, set in `bits`.
  function markAlive(list, q0, q1, at, first, last, bits) {
    for (let q = q0; q < q1; q++) {
      const i = list[q];
      if (first[i] <= at && at <= last[i]) bits[i >>> 5] |= 1 << (i & 31);
    }
  }
  // The set bits of `bits` (cleared on the way) into out, in increasing
  // order (a pass over n / 32 words: 0.1 ms for 2.6M spans); their count.
  function takeBits(bits, out) {
    let r = 0;
    for (let w = 0; w < bits.length; w++) {
      let x = bits[w];
      if (x === 0) continue;
      bits[w] = 0;
      while (x !== 0) { const t = x & -x; out[r++] = (w << 5) + 31 - Math.clz32(t); x ^= t; }
    }
    return r;
  }

  // The spans alive at moment `from` but not at `to` (removed) and alive at
  // `to` but not at `from` (added), each sorted (views of sp.step, valid
  // until the next call); null when that would look at more than
  // spans / FULL_REBUILD of them.
  function crossed(sp, n, most, from, to) {
    // Forward, those that die in [from, to) leave and those born in
    // (from, to] come; backward, those born in (to, from] leave and those
    // that die in [to, from) come.
    const fwd = from < to, lo = Math.min(from, to), hi = Math.max(from, to);
    const leave = fwd ? sp.died : sp.born, leaveAt = fwd ? sp.diedAt : sp.bornAt;
    const come = fwd ? sp.born : sp.died, comeAt = fwd ? sp.bornAt : sp.diedAt;
    const l0 = leaveAt[fwd ? lo : lo + 1], l1 = leaveAt[fwd ? hi : hi + 1];
    const c0 = comeAt[fwd ? lo + 1 : lo], c1 = comeAt[fwd ? hi + 1 : hi];
    if ((l1 - l0) + (c1 - c0) > n / FULL_REBUILD) return null;
    const s = stepScratch(sp, n, most), first = sp.first, last = sp.last;
    markAlive(leave, l0, l1, from, first, last, s.marks);
    const r = takeBits(s.marks, s.removed);
    markAlive(come, c0, c1, to, first, last, s.marks);
    const a = takeBits(s.marks, s.added);
    return { removed: s.removed.subarray(0, r), added: s.added.subarray(0, a) };
  }

  // The first index in [lo, hi) of sorted `arr` whose value is >= x, given
  // that none before lo is: a galloping search from lo, so that finding
  // each of a sorted list of values costs the log of the distance from the
  // one before.
  function gallop(arr, lo, hi, x) {
    if (lo >= hi || arr[lo] >= x) return lo;
    let below = lo, step = 1;  // arr[below] < x
    while (below + step < hi && arr[below + step] < x) { below += step; step *= 2; }
    return lowerBound(arr, Math.min(below + step, hi), x, below + 1);
  }

  // Slots [s, e) of buffer B moved by `by` slots (into slots that hold
  // nothing still to be read: applyCrossed's order): a copyWithin per column,
  // or for a few slots one loop over them, in the direction that reads each
  // slot before it is written.
  const FEW = 16;
  function moveSlots(B, s, e, by) {
    if (e <= s || by === 0) return;
    const span = B.span, off = B.off, size = B.size, inst = B.inst, ident = B.ident, bits = B.bits, color = B.color;
    if (e - s > FEW) {
      const t = s + by;
      span.copyWithin(t, s, e); off.copyWithin(t, s, e); size.copyWithin(t, s, e); inst.copyWithin(2 * t, 2 * s, 2 * e);
      ident.copyWithin(t, s, e); bits.copyWithin(t, s, e); color.copyWithin(t, s, e);
      return;
    }
    const one = (x) => {
      const y = x + by;
      span[y] = span[x]; off[y] = off[x]; size[y] = size[x]; inst[2 * y] = inst[2 * x]; inst[2 * y + 1] = inst[2 * x + 1];
      ident[y] = ident[x]; bits[y] = bits[x]; color[y] = color[x];
    };
    if (by < 0) for (let x = s; x < e; x++) one(x);
    else for (let x = e - 1; x >= s; x--) one(x);
  }

  // Buffer B, in place, := B less `removed` plus `added` (sorted span
  // indices, as B.span is), at moment `to`: the changes become edits in
  // slot order (findEdits), the slots between edits move (moveRuns), the
  // added spans go into their slots (placeAdded), then the prefix sums
  // from the first edit on.  (Each long loop is a function of its own that
  // ends in its return: code after a loop optimized on the stack has no
  // type feedback yet, and deoptimized on every step when it was there.)
  function applyCrossed(sp, B, removed, added, to) {
    const s = sp.step, nr = removed.length, na = added.length, c = B.count;
    B.moment = null;  // until done: a throw leaves it to be rebuilt
    if (s.editAt.length < nr + na) {
      const room = Math.max(nr + na, 2 * s.editAt.length);
      s.editAt = new Uint32Array(room); s.editBy = new Int32Array(room);
    }
    const edits = findEdits(B.span, c, removed, added, s.editAt, s.editBy);
    const net = moveRuns(B, c, s.editAt, s.editBy, edits);
    placeAdded(sp, B, added, s.editAt, s.editBy, edits);
    B.count = c + net;
    B.moment = to;
    // B.coloring stays: the slots kept have the colours they had
    addUsage(sp, B.usage, removed, nr, -1);
    addUsage(sp, B.usage, added, na, 1);
    prefixSums(B, edits > 0 ? s.editAt[0] : B.count);
  }
  // The edits that take the c shown spans span[0..c) to those less
  // `removed` plus `added`, in slot order: by[e] > 0, that many added
  // before slot at[e] (before the shown span whose slot an added one
  // takes); by[e] < 0, the -by[e] shown from slot at[e] on leave.  Each
  // change is found by a search from the one before, and joins the last
  // edit when next to it.  Their count.
  function findEdits(span, c, removed, added, at, by) {
    const nr = removed.length, na = added.length;
    let ne = 0, ri = 0, ai = 0, rp = -1, ap = -1, rFrom = 0, aFrom = 0;
    while (ri < nr || ai < na) {
      if (ri < nr && rp < 0) {
        const x = removed[ri];
        rp = rFrom < c && span[rFrom] < x ? gallop(span, rFrom, c, x) : rFrom;
        if (rp >= c || span[rp] !== x) throw new Error('the time strip: span ' + x + ' leaves but is not shown');
      }
      if (ai < na && ap < 0) { const x = added[ai]; ap = aFrom < c && span[aFrom] < x ? gallop(span, aFrom, c, x) : aFrom; }
      if (ai < na && (ri >= nr || ap <= rp)) {
        if (ne > 0 && by[ne - 1] > 0 && at[ne - 1] === ap) by[ne - 1]++;
        else { at[ne] = ap; by[ne++] = 1; }
        aFrom = ap; ap = -1; ai++;
      } else {
        if (ne > 0 && by[ne - 1] < 0 && at[ne - 1] - by[ne - 1] === rp) by[ne - 1]--;
        else { at[ne] = rp; by[ne++] = -1; }
        rFrom = rp + 1; rp = -1; ri++;
      }
    }
    return ne;
  }
  // The runs of slots between two edits moved by the edits before them:
  // those moving down in a pass from the front, those moving up in a pass
  // from the back (a run's new slots overlap only the old slots of runs
  // that move the same way and sit on the side the pass comes from, so
  // every slot is read before it is written), a run that stays (the tail,
  // when as many come as leave before it) not at all.  The net shift.
  function moveRuns(B, c, at, by, ne) {
    let src = 0, shift = 0;
    for (let e = 0; e < ne; e++) {
      const p = at[e], d = by[e];
      if (shift < 0) moveSlots(B, src, p, shift);
      src = p + (d < 0 ? -d : 0);
      shift += d;
    }
    if (shift < 0) moveSlots(B, src, c, shift);
    const net = shift;
    let end = c;
    for (let e = ne - 1; e >= 0; e--) {
      const p = at[e], d = by[e];
      if (shift > 0) moveSlots(B, p + (d < 0 ? -d : 0), end, shift);
      shift -= d;
      end = p;
    }
    return net;
  }
  // The added spans into the slots their edits leave free, their columns
  // gathered over stretches of slots (one for edits a few slots apart: the
  // slots kept between them get what they hold already).
  function placeAdded(sp, B, added, at, by, ne) {
    const span = B.span;
    let lo = 0, hi = 0, shift = 0;
    for (let e = 0, q = 0; e < ne; e++) {
      const d = by[e];
      if (d > 0) {
        const x = at[e] + shift;
        for (let t = 0; t < d; t++) span[x + t] = added[q++];
        if (x > hi + FEW) { gatherSlots(sp, B, lo, hi); lo = x; }
        hi = x + d;
      }
      shift += d;
    }
    gatherSlots(sp, B, lo, hi);
  }

  // For the tests: how the arrays memory m shows differ from its moment
  // rebuilt from every span (the first slot of the first column that
  // differs), or null (the same, or no moment shown).
  function shownMismatch(m) {
    const h = m.history, sp = h && h.sp;
    if (!sp || h.moment == null) return null;
    const B = sp.buffer, R = shownBuffer(sp.most);
    rebuild(sp, h.spans, R, h.moment);
    if (B.count !== R.count) return { column: 'count', shown: B.count, rebuilt: R.count };
    const c = B.count, slots = { span: c, off: c, size: c, inst: 2 * c, ident: c, bits: c, color: c, pre: c + 1, preRel: c + 1, usage: 16 };
    for (const [column, n] of Object.entries(slots)) {
      for (let x = 0; x < n; x++) if (B[column][x] !== R[column][x]) return { column, slot: x, shown: B[column][x], rebuilt: R[column][x] };
    }
    return null;
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
    const sp = h.sp, B = sp.buffer;
    if (B.moment !== k) {
      const from = B.moment, change = from == null ? null : crossed(sp, h.spans, sp.most, from, k);
      if (change) applyCrossed(sp, B, change.removed, change.added, k);
      else rebuild(sp, h.spans, B, k);
      timing.moves[change ? (k > from ? 'forward' : 'backward') : 'rebuilt']++;
    }
    showBuffer(m, sp, B);
    if (B.coloring !== coloring) { recolor(m); B.coloring = coloring; }
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

  // The window's events, numbered as the timeline and `at --event` number
  // them: event n takes the memory to moment n, so a window of moments
  // first..end holds events first + 1 to end.
  function eventsText(h) {
    return h.end > h.first ? 'events ' + (h.first + 1) + ' to ' + h.end : 'no event';
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
    if (k == null) return 'the dump\'s own moment (' + m.dumpPicture.count + ' allocations, after event ' + m.sequence + ')';
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
    const legend = 'used (blue) and largest hole (green), 0 to ' + human(cap) + ', ' + eventsText(h) +
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

