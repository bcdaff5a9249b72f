// realm-shadow memory map: draws each memory of the embedded dump(s) as a
// zoomable address axis on one canvas.
//
// Level of detail: a row's visible allocations are found by binary search
// over the sorted offsets, so only the visible range is touched.  When at
// most DETAIL_LIMIT of them are visible each is drawn (sub-pixel ones
// merged per pixel column); beyond that every pixel column is aggregated
// from prefix sums of sizes (occupancy = covered bytes / bytes per pixel)
// and colored by the dominant kind among a few sampled allocations.  Either
// way a frame costs O(width x log n), whatever n is.
//
// Data: see realm_shadow/faces/html_page.h.  Read-only test hooks are on
// window.__realmShadow.
(function () {
  'use strict';
  const T0 = performance.now();
  const DETAIL_LIMIT_PER_PX = 3;   // individual drawing up to 3 per pixel
  const MIN_SPAN = 32;             // bytes: the deepest zoom
  const ROW = { title: 18, ruler: 16, bar: 44, lane: 16, gap: 14 };
  const ROW_H = ROW.title + ROW.ruler + ROW.bar + ROW.lane + ROW.gap;
  const MARGIN_L = 10, MARGIN_R = 14;
  const KIND_COLORS = ['#9aa5b1', '#3b82c4', '#14a38b', '#8bc34a',
                       '#e0a526', '#8e6cc2', '#c26cb0', '#a0522d'];
  const STATE_NAMES = ['live', 'release pending', 'release ready'];
  const C = {
    free: '#ffffff', track: '#c3ccd6', ruler: '#5b6673', pending: '#f08c00',
    reservation: '#6b46c1', fail: '#d62828', fit: '#15803d',
    added: '#16a34a', moved: '#2563eb', removed: '#dc2626', hit: '#facc15',
  };

  const $ = (id) => document.getElementById(id);
  const errors = [];

  // ---- decoding -------------------------------------------------------
  function b64bytes(s) {
    if (!s) return new Uint8Array(0);
    if (typeof Uint8Array.fromBase64 === 'function') return Uint8Array.fromBase64(s);
    const bin = atob(s);
    const out = new Uint8Array(bin.length);
    for (let i = 0; i < bin.length; i++) out[i] = bin.charCodeAt(i);
    return out;
  }
  // Typed arrays are little-endian on every platform a browser runs on;
  // the page checks rather than assumes.
  const LITTLE = new Uint8Array(new Uint32Array([1]).buffer)[0] === 1;

  function decodeMemory(m) {
    const n = m.count;
    const bytes = b64bytes(m.allocations);
    delete m.allocations;
    if (!LITTLE) throw new Error('big-endian browser: cannot read the data');
    if (bytes.length !== n * 29) throw new Error('memory ' + m.id + ': data length ' + bytes.length + ' != ' + n * 29);
    const buf = bytes.buffer, base = bytes.byteOffset;
    m.off = new Float64Array(buf, base, n);
    m.size = new Float64Array(buf, base + 8 * n, n);
    m.inst = new Uint32Array(buf, base + 16 * n, 2 * n);
    m.ident = new Uint32Array(buf, base + 24 * n, n);
    m.bits = new Uint8Array(buf, base + 28 * n, n);
    // prefix sums: bytes (exact below 2^53) and allocations not live
    m.pre = new Float64Array(n + 1);
    m.preRel = new Uint32Array(n + 1);
    let s = 0, r = 0;
    for (let i = 0; i < n; i++) {
      s += m.size[i];
      if ((m.bits[i] >> 3) & 3) r++;
      m.pre[i + 1] = s;
      m.preRel[i + 1] = r;
    }
    m.cap = m.capacity_known && m.capacity ? m.capacity : m.extent;
    if (m.diff) {
      m.diffStatus = b64bytes(m.diff.status);
      const rb = b64bytes(m.diff.removed_list);
      const k = m.diff.removed_drawn;
      m.rmOff = new Float64Array(rb.buffer, rb.byteOffset, k);
      m.rmSize = new Float64Array(rb.buffer, rb.byteOffset + 8 * k, k);
      m.rmInst = new Uint32Array(rb.buffer, rb.byteOffset + 16 * k, 2 * k);
    }
    m.view = [0, m.extent];
  }

  // ---- formatting -----------------------------------------------------
  const UNITS = ['B', 'KiB', 'MiB', 'GiB', 'TiB', 'PiB'];
  function human(b) {
    if (b == null) return 'unknown';
    let u = 0, v = b;
    while (Math.abs(v) >= 1024 && u < UNITS.length - 1) { v /= 1024; u++; }
    if (u === 0) return v.toFixed(0) + ' B';
    const digits = v >= 100 ? 0 : v >= 10 ? 1 : 2;
    return (+v.toFixed(digits)) + ' ' + UNITS[u];
  }
  function hex(v) { return v == null ? 'none' : '0x' + Math.round(v).toString(16); }
  function instHex(lo, hi) {
    return '0x' + (hi ? hi.toString(16) + lo.toString(16).padStart(8, '0') : lo.toString(16));
  }
  function esc(s) {
    return String(s).replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' }[c]));
  }
  // "1.5 GiB", "300MB", "4096", "0x1000", "64k": K/M/G and KiB/MiB/GiB are
  // powers of 1024, kB/MB/GB powers of 1000.
  function parseBytes(text) {
    const t = String(text).trim();
    if (!t) return null;
    if (/^0x[0-9a-f]+$/i.test(t)) return parseInt(t, 16);
    const m = /^([0-9]*\.?[0-9]+(?:e[0-9]+)?)\s*([a-z]*)$/i.exec(t);
    if (!m) return null;
    const v = parseFloat(m[1]);
    const u = m[2];
    const bin = { '': 1, b: 1, k: 1024, kib: 1024, m: 1048576, mib: 1048576,
                  g: 1073741824, gib: 1073741824, t: 1099511627776, tib: 1099511627776 };
    const dec = { kb: 1e3, mb: 1e6, gb: 1e9, tb: 1e12 };
    const key = u.toLowerCase();
    if (key in bin) return Math.round(v * bin[key]);
    if (key in dec) return Math.round(v * dec[key]);
    return null;
  }
  function alignUp(v, a) { return a <= 1 ? v : Math.ceil(v / a) * a; }

  // ---- searching the sorted arrays ------------------------------------
  // first index with off[i] >= x
  function lowerBound(arr, n, x) {
    let lo = 0, hi = n;
    while (lo < hi) { const mid = (lo + hi) >>> 1; if (arr[mid] < x) lo = mid + 1; else hi = mid; }
    return lo;
  }
  // first allocation that ends after x (sorted, non-overlapping in the
  // normal case; an overlap only makes an earlier block draw late)
  function firstEndingAfter(m, x) {
    let i = lowerBound(m.off, m.count, x);
    if (i > 0 && m.off[i - 1] + m.size[i - 1] > x) i--;
    return i;
  }
  function allocationAt(m, addr) {
    const i = lowerBound(m.off, m.count, addr + 1e-9) - 1;
    if (i >= 0 && addr >= m.off[i] && addr < m.off[i] + m.size[i]) return i;
    return -1;
  }

  // ---- the state ------------------------------------------------------
  let data;
  try {
    data = JSON.parse($('rs-data').textContent);
    for (const d of data.dumps) for (const m of d.memories) decodeMemory(m);
  } catch (e) {
    errors.push(String(e));
    document.body.insertAdjacentHTML('afterbegin', '<p class="bad">cannot read the embedded data: ' + esc(e) + '</p>');
    throw e;
  }
  const decodeMs = performance.now() - T0;
  const kindNames = data.dumps[0].memories.length
    ? data.dumps[0].memories[0].usage.map((u) => u.kind)
    : ['unknown', 'region_instance', 'deferred_buffer', 'deferred_value', 'future', 'pool_backing', 'pool_sub_allocation', 'external'];

  const st = {
    dump: data.dumps.length - 1,  // the after picture when there are two
    diff: data.dumps.length > 1,
    focus: 0,
    hover: null,       // {mi, what, ...}
    pinned: null,
    failure: null,     // {mi, fi}
    whatIf: null,      // {mi, size, align, result}
    hits: null,        // {mi: [indices]}
    lastBlocks: [],    // per row, what the last draw drew
  };
  const timing = { scriptStartMs: T0, decodeMs, firstRenderMs: null, frames: [] };
  function dump() { return data.dumps[st.dump]; }
  function mems() { return dump().memories; }

  // ---- geometry -------------------------------------------------------
  const canvas = $('map');
  const ctx = canvas.getContext('2d');
  let cssW = 800, cssH = 400, dpr = 1;
  function barWidth() { return Math.max(50, cssW - MARGIN_L - MARGIN_R); }
  function rowTop(mi) { return mi * ROW_H; }
  function rowGeometry(mi) {
    const top = rowTop(mi);
    return { top, left: MARGIN_L, width: barWidth(),
             rulerTop: top + ROW.title, barTop: top + ROW.title + ROW.ruler,
             barHeight: ROW.bar, laneTop: top + ROW.title + ROW.ruler + ROW.bar,
             laneHeight: ROW.lane, height: ROW_H };
  }
  function xOf(m, addr) { return MARGIN_L + (addr - m.view[0]) / (m.view[1] - m.view[0]) * barWidth(); }
  function addrOf(m, x) { return m.view[0] + (x - MARGIN_L) / barWidth() * (m.view[1] - m.view[0]); }
  function rowAt(y) {
    const mi = Math.floor(y / ROW_H);
    return mi >= 0 && mi < mems().length ? mi : -1;
  }
  function resize() {
    const pane = $('mapPane');
    dpr = window.devicePixelRatio || 1;
    cssW = Math.max(200, pane.clientWidth);
    cssH = Math.max(ROW_H, mems().length * ROW_H);
    canvas.style.width = cssW + 'px';
    canvas.style.height = cssH + 'px';
    canvas.width = Math.round(cssW * dpr);
    canvas.height = Math.round(cssH * dpr);
    requestDraw();
  }

  // ---- views ----------------------------------------------------------
  function setView(m, a, b) {
    let span = Math.max(MIN_SPAN, b - a);
    span = Math.min(span, m.extent);
    let v0 = (a + b) / 2 - span / 2;
    if (b - a >= MIN_SPAN) v0 = a;
    v0 = Math.max(0, Math.min(v0, m.extent - span));
    m.view = [v0, v0 + span];
    requestDraw();
  }
  function zoomAround(m, addr, factor) {
    const [a, b] = m.view;
    const span = Math.max(MIN_SPAN, Math.min(m.extent, (b - a) * factor));
    const t = (addr - a) / (b - a);
    setView(m, addr - t * span, addr - t * span + span);
  }
  function zoomToRange(mi, a, b, margin) {
    const m = mems()[mi];
    const pad = (b - a) * (margin == null ? 0.15 : margin);
    setView(m, a - pad, b + pad);
    setFocus(mi);
  }

  // ---- patterns -------------------------------------------------------
  function hatch(color, dense) {
    const p = document.createElement('canvas');
    p.width = p.height = dense ? 5 : 8;
    const g = p.getContext('2d');
    g.strokeStyle = color; g.lineWidth = 1.5;
    g.beginPath(); g.moveTo(0, p.height); g.lineTo(p.width, 0);
    g.moveTo(-2, 2); g.lineTo(2, -2); g.moveTo(p.width - 2, p.height + 2); g.lineTo(p.width + 2, p.height - 2);
    g.stroke();
    return ctx.createPattern(p, 'repeat');
  }
  const PAT = {
    releasePending: hatch('rgba(255,255,255,0.85)', false),
    releaseReady: hatch('rgba(255,255,255,0.95)', true),
    pending: hatch(C.pending, false),
    reservation: hatch(C.reservation, true),
    removed: hatch(C.removed, false),
  };

  // ---- drawing --------------------------------------------------------
  let drawQueued = false;
  function requestDraw() {
    if (drawQueued) return;
    drawQueued = true;
    requestAnimationFrame(() => { drawQueued = false; draw(); });
  }
  function draw() {
    const t = performance.now();
    ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
    ctx.clearRect(0, 0, cssW, cssH);
    st.lastBlocks = [];
    mems().forEach((m, mi) => drawRow(m, mi));
    const ms = performance.now() - t;
    timing.frames.push(ms);
    if (timing.frames.length > 500) timing.frames.shift();
    if (timing.firstRenderMs == null) timing.firstRenderMs = performance.now() - T0;
    return ms;
  }

  function niceStep(span, px) {
    const raw = span / Math.max(1, px / 110);
    let step = 1;
    while (step < raw) step *= 2;
    return step;
  }

  function drawRow(m, mi) {
    const g = rowGeometry(mi);
    const W = g.width, X0 = g.left;
    const [v0, v1] = m.view;
    const bpp = (v1 - v0) / W;
    // title
    ctx.fillStyle = mi === st.focus ? '#0b3d91' : '#1d2733';
    ctx.font = '600 12px system-ui, "DejaVu Sans", sans-serif';
    ctx.textBaseline = 'top';
    const s = m.summary;
    const title = (m.name || 'memory') + '  [' + m.kind + ' ' + m.id + ']';
    ctx.fillText(title, X0, g.top + 3);
    const tw = ctx.measureText(title).width;
    ctx.font = '12px system-ui, "DejaVu Sans", sans-serif';
    ctx.fillStyle = '#334155';
    const capText = m.capacity_known ? 'capacity ' + human(m.capacity) : 'capacity unknown (axis to ' + human(m.extent) + ')';
    const pct = m.cap ? (100 * s.used / m.cap).toFixed(1) + '%' : '';
    ctx.fillText(capText + '  |  used ' + human(s.used) + ' ' + pct + '  |  ' + m.count + ' allocations  |  ' +
      (m.addressed ? 'addressed (no holes)' : s.hole_count + ' holes, largest ' + human(s.largest_hole) +
      ', fragmentation ' + s.fragmentation.toFixed(2)) +
      (m.pending.length ? '  |  ' + m.pending.length + ' pending' : '') +
      (m.failures.length ? '  |  ' + m.failures.length + ' failures' : ''), X0 + tw + 12, g.top + 3);

    // ruler
    const step = niceStep(v1 - v0, W);
    ctx.strokeStyle = C.ruler; ctx.fillStyle = C.ruler; ctx.lineWidth = 1;
    ctx.font = '10px system-ui, "DejaVu Sans", sans-serif';
    ctx.beginPath();
    ctx.moveTo(X0, g.barTop - 0.5); ctx.lineTo(X0 + W, g.barTop - 0.5);
    for (let a = Math.ceil(v0 / step) * step; a <= v1; a += step) {
      const x = Math.round(xOf(m, a)) + 0.5;
      ctx.moveTo(x, g.barTop - 5); ctx.lineTo(x, g.barTop);
      if (x < X0 + W - 150) ctx.fillText(human(a), x + 2, g.rulerTop + 2);
    }
    ctx.stroke();
    ctx.textAlign = 'right';
    ctx.fillText('view ' + human(v1 - v0) + ' (' + human(bpp) + '/px)', X0 + W, g.rulerTop + 2);
    ctx.textAlign = 'left';

    // free track: holes are what stays white
    const xe = Math.min(X0 + W, xOf(m, m.cap));
    const xs = Math.max(X0, xOf(m, 0));
    ctx.fillStyle = C.free;
    ctx.fillRect(xs, g.barTop, xe - xs, g.barHeight);
    ctx.strokeStyle = C.track;
    ctx.strokeRect(xs + 0.5, g.barTop + 0.5, xe - xs - 1, g.barHeight - 1);
    if (xe < X0 + W) {  // beyond capacity (anomalies, unknown capacity)
      ctx.fillStyle = '#eceff3';
      ctx.fillRect(xe, g.barTop, X0 + W - xe, g.barHeight);
    }

    ctx.save();
    ctx.beginPath(); ctx.rect(X0, g.top, W, g.height); ctx.clip();
    const lo = firstEndingAfter(m, v0);
    const hi = lowerBound(m.off, m.count, v1);
    const visible = Math.max(0, hi - lo);
    const record = { mode: visible <= DETAIL_LIMIT_PER_PX * W ? 'detail' : 'aggregate', first: lo, end: hi, blocks: [] };
    st.lastBlocks[mi] = record;
    const diffOn = st.diff && m.diff;
    if (record.mode === 'detail') drawDetail(m, g, lo, hi, bpp, record, diffOn);
    else drawAggregate(m, g, lo, bpp, diffOn);

    if (diffOn && m.rmOff) drawRemoved(m, g);
    drawLane(m, mi, g);
    drawOverlays(m, mi, g);
    ctx.restore();
  }

  function drawDetail(m, g, lo, hi, bpp, record, diffOn) {
    const W = g.width, X0 = g.left, y = g.barTop + 1, h = g.barHeight - 2;
    const colBytes = new Float64Array(W + 1), colKind = new Int8Array(W + 1).fill(-1), colBest = new Float64Array(W + 1);
    const colRel = new Uint8Array(W + 1), colDiff = new Uint8Array(W + 1);
    for (let i = lo; i < hi; i++) {
      const sz = m.size[i];
      if (sz <= 0) continue;
      const bits = m.bits[i], kind = bits & 7, state = (bits >> 3) & 3, flags = bits >> 5;
      const x0 = xOf(m, m.off[i]), x1 = xOf(m, m.off[i] + sz);
      if (record.blocks.length < 20000) record.blocks.push({ index: i, x0, x1, kind, state });
      if (x1 - x0 >= 2) {
        const a = Math.max(X0 - 2, x0), b = Math.min(X0 + W + 2, x1);
        ctx.fillStyle = KIND_COLORS[kind];
        ctx.fillRect(a, y, b - a, h);
        if (state) { ctx.fillStyle = state === 1 ? PAT.releasePending : PAT.releaseReady; ctx.fillRect(a, y, b - a, h); }
        if (flags & 1) { ctx.fillStyle = 'rgba(0,0,0,0.55)'; ctx.fillRect(a, y + h - 4, b - a, 4); }
        if (b - a >= 5) {  // a darker edge keeps neighbours apart
          ctx.fillStyle = 'rgba(0,0,0,0.35)';
          ctx.fillRect(a, y, 1, h);
        }
        if (diffOn && m.diffStatus[i]) {
          ctx.fillStyle = m.diffStatus[i] === 1 ? C.added : C.moved;
          ctx.fillRect(a, y, b - a, 5);
        }
        if (b - a > 60) {
          ctx.fillStyle = 'rgba(255,255,255,0.95)';
          ctx.font = '10px system-ui, "DejaVu Sans", sans-serif';
          const label = instHex(m.inst[2 * i], m.inst[2 * i + 1]) + '  ' + human(sz);
          if (ctx.measureText(label).width < b - a - 8) ctx.fillText(label, Math.max(a, X0) + 4, y + 14);
        }
      } else {
        const c = Math.max(0, Math.min(W, Math.floor(x0 - X0)));
        colBytes[c] += sz;
        if (sz > colBest[c]) { colBest[c] = sz; colKind[c] = kind; }
        if (state) colRel[c] = 1;
        if (diffOn && m.diffStatus[i]) colDiff[c] = m.diffStatus[i];
      }
    }
    drawColumns(g, colBytes, colKind, colRel, colDiff, bpp);
  }

  function drawColumns(g, colBytes, colKind, colRel, colDiff, bpp) {
    const X0 = g.left, y = g.barTop + 1, h = g.barHeight - 2;
    for (let c = 0; c < colBytes.length; c++) {
      if (colBytes[c] <= 0) continue;
      const occ = Math.min(1, colBytes[c] / bpp);
      ctx.globalAlpha = 0.3 + 0.7 * occ;
      ctx.fillStyle = KIND_COLORS[colKind[c] < 0 ? 0 : colKind[c]];
      ctx.fillRect(X0 + c, y, 1, h);
      ctx.globalAlpha = 1;
      if (colRel[c]) { ctx.fillStyle = C.pending; ctx.fillRect(X0 + c, y, 1, 4); }
      if (colDiff[c]) { ctx.fillStyle = colDiff[c] === 1 ? C.added : C.moved; ctx.fillRect(X0 + c, y, 1, 5); }
    }
    ctx.globalAlpha = 1;
  }

  function drawAggregate(m, g, lo, bpp, diffOn) {
    const W = g.width;
    const colBytes = new Float64Array(W), colKind = new Int8Array(W).fill(-1);
    const colRel = new Uint8Array(W), colDiff = new Uint8Array(W);
    const kindBytes = new Float64Array(8);
    let i0 = lo;
    for (let c = 0; c < W; c++) {
      const a = m.view[0] + c * bpp, b = a + bpp;
      const i1 = lowerBound(m.off, m.count, b);
      if (i1 > i0) {
        let covered = m.pre[i1] - m.pre[i0];
        // clip the first block to [a, b) and the last one too
        if (m.off[i0] < a) covered -= Math.min(m.size[i0], a - m.off[i0]);
        const lastEnd = m.off[i1 - 1] + m.size[i1 - 1];
        if (lastEnd > b) covered -= Math.min(m.size[i1 - 1], lastEnd - b);
        colBytes[c] = covered;
        // dominant kind among up to 7 sampled blocks, weighted by size
        kindBytes.fill(0);
        const n = i1 - i0, stride = Math.max(1, Math.floor(n / 7));
        for (let k = i0; k < i1; k += stride) kindBytes[m.bits[k] & 7] += m.size[k];
        let best = 0;
        for (let k = 1; k < 8; k++) if (kindBytes[k] > kindBytes[best]) best = k;
        colKind[c] = best;
        if (m.preRel[i1] - m.preRel[i0] > 0) colRel[c] = 1;
        if (diffOn) for (let k = i0; k < i1; k += stride) if (m.diffStatus[k]) { colDiff[c] = m.diffStatus[k]; break; }
      }
      // a block that runs past b is counted again in the next column
      i0 = i1;
      if (i0 > 0 && m.off[i0 - 1] + m.size[i0 - 1] > b) i0--;
    }
    drawColumns(g, colBytes, colKind, colRel, colDiff, bpp);
  }

  function drawRemoved(m, g) {
    const [v0, v1] = m.view;
    const n = m.rmOff.length;
    let i = lowerBound(m.rmOff, n, v0);
    if (i > 0) i--;
    const y = g.barTop + g.barHeight - 12;
    let lastX = -1;
    for (; i < n && m.rmOff[i] < v1; i++) {
      const x0 = xOf(m, m.rmOff[i]), x1 = Math.max(x0 + 1, xOf(m, m.rmOff[i] + m.rmSize[i]));
      if (x1 < lastX) continue;  // one mark per pixel is enough
      ctx.fillStyle = PAT.removed;
      ctx.fillRect(x0, y, x1 - x0, 10);
      ctx.strokeStyle = C.removed;
      ctx.strokeRect(x0 + 0.5, y + 0.5, x1 - x0 - 1, 9);
      lastX = x1;
    }
  }

  function drawLane(m, mi, g) {
    const y = g.laneTop + 2, h = g.laneHeight - 4;
    for (const r of m.reservations) {
      if (r.offset == null) continue;
      const x0 = xOf(m, r.offset), x1 = Math.max(x0 + 2, xOf(m, r.offset + r.size));
      ctx.fillStyle = PAT.reservation; ctx.fillRect(x0, y, x1 - x0, h / 2);
      ctx.strokeStyle = C.reservation; ctx.strokeRect(x0 + 0.5, y + 0.5, x1 - x0 - 1, h / 2 - 1);
    }
    for (const p of m.pending) {
      if (p.planned_offset == null) continue;
      const x0 = xOf(m, p.planned_offset), x1 = Math.max(x0 + 2, xOf(m, p.planned_offset + p.size));
      ctx.fillStyle = PAT.pending; ctx.fillRect(x0, y + h / 2, x1 - x0, h / 2);
      ctx.setLineDash([3, 2]);
      ctx.strokeStyle = C.pending; ctx.strokeRect(x0 + 0.5, y + h / 2 + 0.5, x1 - x0 - 1, h / 2 - 1);
      ctx.setLineDash([]);
    }
  }

  function outlineRange(m, g, a, b, color, width, label) {
    const x0 = xOf(m, a), x1 = Math.max(x0 + 2, xOf(m, b));
    ctx.strokeStyle = color; ctx.lineWidth = width;
    ctx.strokeRect(x0 + width / 2, g.barTop + width / 2, x1 - x0 - width, g.barHeight - width);
    ctx.lineWidth = 1;
    if (label) {
      ctx.fillStyle = color;
      ctx.font = '600 10px system-ui, "DejaVu Sans", sans-serif';
      ctx.fillText(label, Math.max(g.left + 2, Math.min(x0 + 2, g.left + g.width - 200)), g.barTop + g.barHeight - 12);
    }
  }

  function drawOverlays(m, mi, g) {
    // the selected failure: blocker window, and the request at its placement
    const showWindow = (w, size, color, label) => {
      if (!w || !w.found || w.fits_already) return;
      const x0 = xOf(m, w.window_offset), x1 = xOf(m, w.window_end);
      ctx.fillStyle = 'rgba(214,40,40,0.18)';
      ctx.fillRect(x0, g.barTop, x1 - x0, g.barHeight);
      outlineRange(m, g, w.window_offset, w.window_end, color, 2, label);
      const px0 = xOf(m, w.placement), px1 = Math.max(px0 + 2, xOf(m, w.placement + size));
      ctx.fillStyle = color; ctx.fillRect(px0, g.laneTop + 1, px1 - px0, 4);
    };
    if (st.failure && st.failure.mi === mi) {
      const f = m.failures[st.failure.fi];
      if (f && f.blockers) {
        showWindow(f.blockers, f.size, C.fail, 'request ' + human(f.size) + ': release ' + f.blockers.count + ' (' + human(f.blockers.bytes_to_free) + ')');
      }
    }
    if (st.whatIf && st.whatIf.mi === mi) {
      const r = st.whatIf.result;
      if (r.fits) {
        const x0 = xOf(m, r.offset), x1 = Math.max(x0 + 2, xOf(m, r.offset + st.whatIf.size));
        ctx.fillStyle = 'rgba(21,128,61,0.25)';
        ctx.fillRect(x0, g.barTop, x1 - x0, g.barHeight);
        outlineRange(m, g, r.offset, r.offset + st.whatIf.size, C.fit, 2, 'fits: ' + human(st.whatIf.size));
      } else if (r.window) {
        showWindow(r.window, st.whatIf.size, C.fail, 'what-if ' + human(st.whatIf.size) + ': release ' + r.window.count);
      }
    }
    // search hits: a marker above each (one per pixel)
    if (st.hits && st.hits.mi === mi) {
      ctx.fillStyle = C.hit; ctx.strokeStyle = '#7c5e00';
      let last = -10;
      for (const i of st.hits.indices) {
        const x = xOf(m, m.off[i] + m.size[i] / 2);
        if (x < g.left || x > g.left + g.width || x - last < 3) continue;
        last = x;
        ctx.beginPath(); ctx.moveTo(x - 4, g.barTop - 6); ctx.lineTo(x + 4, g.barTop - 6); ctx.lineTo(x, g.barTop + 2); ctx.closePath();
        ctx.fill(); ctx.stroke();
      }
    }
    // hovered or pinned allocation
    const sel = st.pinned || st.hover;
    if (sel && sel.mi === mi && sel.what === 'allocation') {
      outlineRange(m, g, m.off[sel.index], m.off[sel.index] + m.size[sel.index], '#111827', 2);
    } else if (sel && sel.mi === mi && sel.what === 'hole') {
      outlineRange(m, g, sel.offset, sel.offset + sel.size, '#6b7280', 1);
    }
  }

  // ---- hit testing and the tooltip ------------------------------------
  function holeAround(m, addr) {
    // the free range containing addr: from the end of the block before to
    // the start of the block after
    const i = lowerBound(m.off, m.count, addr + 1e-9);
    let start = 0;
    for (let k = i - 1, seen = 0; k >= 0 && seen < 64; k--, seen++) start = Math.max(start, m.off[k] + m.size[k]);
    const end = i < m.count ? m.off[i] : m.cap;
    if (addr < start || addr >= end) return null;
    return { offset: start, size: end - start };
  }
  function hitTest(x, y) {
    const mi = rowAt(y);
    if (mi < 0) return null;
    const m = mems()[mi], g = rowGeometry(mi);
    if (x < g.left || x > g.left + g.width) return null;
    const addr = addrOf(m, x);
    if (y >= g.laneTop && y < g.laneTop + g.laneHeight) {
      for (let k = 0; k < m.pending.length; k++) {
        const p = m.pending[k];
        if (p.planned_offset != null && addr >= p.planned_offset - 2 * bppOf(m) && addr < p.planned_offset + p.size + 2 * bppOf(m)) return { mi, what: 'pending', index: k };
      }
      for (let k = 0; k < m.reservations.length; k++) {
        const r = m.reservations[k];
        if (r.offset != null && addr >= r.offset && addr < r.offset + r.size) return { mi, what: 'reservation', index: k };
      }
      return null;
    }
    if (y < g.barTop || y >= g.barTop + g.barHeight) return null;
    let i = allocationAt(m, addr);
    if (i < 0) {
      // zoomed out: take the largest block under this pixel
      const bpp = bppOf(m);
      const lo = firstEndingAfter(m, addr - bpp / 2), hi = lowerBound(m.off, m.count, addr + bpp / 2);
      let best = -1;
      for (let k = lo; k < hi && k < lo + 4096; k++) if (best < 0 || m.size[k] > m.size[best]) best = k;
      i = best;
    }
    if (i >= 0) return { mi, what: 'allocation', index: i };
    if (addr >= m.cap) return null;
    const h = holeAround(m, addr);
    return h ? { mi, what: 'hole', offset: h.offset, size: h.size } : null;
  }
  function bppOf(m) { return (m.view[1] - m.view[0]) / barWidth(); }

  function identityRows(id) {
    if (!id) return '';
    const ident = dump().identities[id];
    if (!ident) return '<tr><td>identity</td><td>#' + id + ' (not in the dump)</td></tr>';
    return ident.attributes.map(([k, v]) => '<tr><td>' + esc(k) + '</td><td>' + esc(v) + '</td></tr>').join('');
  }
  function describe(sel) {
    const m = mems()[sel.mi];
    const rows = [];
    const row = (k, v) => rows.push('<tr><td>' + esc(k) + '</td><td>' + v + '</td></tr>');
    let head = '';
    if (sel.what === 'allocation') {
      const i = sel.index, bits = m.bits[i], flags = bits >> 5;
      head = 'instance ' + instHex(m.inst[2 * i], m.inst[2 * i + 1]);
      row('offset', hex(m.off[i]) + ' (' + human(m.off[i]) + ')');
      row('size', human(m.size[i]) + ' (' + m.size[i] + ' B)');
      row('end', hex(m.off[i] + m.size[i]));
      row('kind', esc(kindNames[bits & 7]));
      row('state', esc(STATE_NAMES[(bits >> 3) & 3] || '?'));
      row('pinned', flags & 1 ? 'yes (valid: the collector may not release it)' : 'no');
      if (flags & 2) row('from', 'redistricted range');
      if (flags & 4) row('placed', 'after a deferral');
      if (st.diff && m.diffStatus) row('diff', ['unchanged', '<span class="good">added</span>', '<b>moved or resized</b>'][m.diffStatus[i]]);
      rows.push(identityRows(m.ident[i]));
    } else if (sel.what === 'hole') {
      head = 'hole (free)';
      row('offset', hex(sel.offset) + ' (' + human(sel.offset) + ')');
      row('size', human(sel.size) + ' (' + sel.size + ' B)');
      row('end', hex(sel.offset + sel.size));
    } else if (sel.what === 'pending') {
      const p = m.pending[sel.index];
      head = 'pending request ' + p.instance + ' (deferred)';
      row('planned offset', hex(p.planned_offset));
      row('size', human(p.size));
      row('alignment', human(p.alignment));
      rows.push(identityRows(p.identity));
    } else if (sel.what === 'reservation') {
      const r = m.reservations[sel.index];
      head = 'reservation ' + r.id;
      row('offset', hex(r.offset));
      row('size', human(r.size));
    }
    row('memory', esc((m.name || '') + ' ' + m.id));
    return '<div class="head">' + esc(head) + '</div><table>' + rows.join('') + '</table>' +
      (st.pinned ? '<div class="note">pinned: click elsewhere or Esc to unpin</div>' : '<div class="note">click to pin</div>');
  }
  function showTooltip(sel, x, y) {
    const tip = $('tooltip');
    if (!sel) { tip.hidden = true; return; }
    tip.innerHTML = describe(sel);
    tip.hidden = false;
    tip.classList.toggle('pinned', !!st.pinned);
    const pane = $('mapPane');
    const left = Math.min(x + 14, pane.clientWidth - tip.offsetWidth - 4);
    tip.style.left = Math.max(0, left) + 'px';
    tip.style.top = (y + 16) + 'px';
  }

  // ---- pointer and wheel ----------------------------------------------
  let drag = null;
  const touches = new Map();
  function local(e) {
    const r = canvas.getBoundingClientRect();
    return [e.clientX - r.left, e.clientY - r.top];
  }
  canvas.addEventListener('pointerdown', (e) => {
    const [x, y] = local(e);
    if (e.pointerType === 'touch') touches.set(e.pointerId, [x, y]);
    const mi = rowAt(y);
    if (mi < 0) return;
    canvas.setPointerCapture(e.pointerId);
    drag = { mi, x, y, x0: x, moved: false, box: e.shiftKey, view: mems()[mi].view.slice() };
    if (!drag.box) canvas.classList.add('panning');
  });
  canvas.addEventListener('pointermove', (e) => {
    const [x, y] = local(e);
    if (e.pointerType === 'touch' && touches.has(e.pointerId)) {
      const prev = touches.get(e.pointerId);
      touches.set(e.pointerId, [x, y]);
      if (touches.size === 2 && drag) {  // pinch: zoom by the change in spread
        const pts = [...touches.values()];
        const other = pts[0] === touches.get(e.pointerId) ? pts[1] : pts[0];
        const before = Math.abs(prev[0] - other[0]), after = Math.abs(x - other[0]);
        if (before > 5 && after > 5) {
          const m = mems()[drag.mi];
          zoomAround(m, addrOf(m, (x + other[0]) / 2), before / after);
        }
        drag.moved = true;
        return;
      }
    }
    if (drag) {
      if (Math.abs(x - drag.x0) > 3) drag.moved = true;
      const m = mems()[drag.mi];
      if (drag.box) {
        const b = $('boxSel'), g = rowGeometry(drag.mi);
        b.hidden = false;
        b.style.left = Math.min(x, drag.x0) + 'px';
        b.style.width = Math.abs(x - drag.x0) + 'px';
        b.style.top = g.barTop + 'px';
        b.style.height = g.barHeight + 'px';
      } else if (drag.moved) {
        const span = drag.view[1] - drag.view[0];
        const da = (x - drag.x0) / barWidth() * span;
        setView(m, drag.view[0] - da, drag.view[1] - da);
      }
      return;
    }
    if (st.pinned) return;
    const sel = hitTest(x, y);
    const changed = JSON.stringify(sel) !== JSON.stringify(st.hover);
    st.hover = sel;
    showTooltip(sel, x, y);
    if (changed) requestDraw();
  });
  function endDrag(e) {
    if (e.pointerType === 'touch') touches.delete(e.pointerId);
    if (!drag) return;
    const [x, y] = local(e);
    canvas.classList.remove('panning');
    const d = drag;
    drag = null;
    $('boxSel').hidden = true;
    const m = mems()[d.mi];
    if (d.box && Math.abs(x - d.x0) > 3) {
      const a = addrOf(m, Math.min(x, d.x0)), b = addrOf(m, Math.max(x, d.x0));
      setView(m, a, b);
      setFocus(d.mi);
      return;
    }
    if (!d.moved && e.type === 'pointerup') {  // a click: pin or unpin
      setFocus(d.mi);
      const sel = hitTest(x, y);
      st.pinned = st.pinned ? null : sel;
      st.hover = sel;
      showTooltip(sel, x, y);
      requestDraw();
    }
  }
  canvas.addEventListener('pointerup', endDrag);
  canvas.addEventListener('pointercancel', endDrag);
  canvas.addEventListener('pointerleave', () => { if (!st.pinned && !drag) { st.hover = null; showTooltip(null); requestDraw(); } });
  canvas.addEventListener('wheel', (e) => {
    const [x, y] = local(e);
    const mi = rowAt(y);
    if (mi < 0) return;
    e.preventDefault();
    const m = mems()[mi];
    const dy = e.deltaMode === 1 ? e.deltaY * 16 : e.deltaY;
    // ctrl+wheel is how browsers report a trackpad pinch: finer steps
    zoomAround(m, addrOf(m, Math.max(MARGIN_L, Math.min(x, MARGIN_L + barWidth()))), Math.exp(dy * (e.ctrlKey ? 0.01 : 0.002)));
    if (Math.abs(e.deltaX) > Math.abs(e.deltaY)) {
      const span = m.view[1] - m.view[0];
      setView(m, m.view[0] + e.deltaX / barWidth() * span, m.view[1] + e.deltaX / barWidth() * span);
    }
  }, { passive: false });
  document.addEventListener('keydown', (e) => {
    if (e.key === 'Escape') { st.pinned = null; showTooltip(null); requestDraw(); }
  });
  $('reset').addEventListener('click', () => { for (const m of mems()) setView(m, 0, m.extent); });
  window.addEventListener('resize', resize);

  // ---- side panel -----------------------------------------------------
  function setFocus(mi) {
    if (mi === st.focus) return;
    st.focus = mi;
    renderSide();
    requestDraw();
  }
  function table(el, head, rows, onClick) {
    el.innerHTML = '<thead><tr>' + head.map((h) => '<th>' + h + '</th>').join('') + '</tr></thead><tbody>' +
      rows.map((r) => '<tr>' + r.map((c, k) => '<td' + (k > 0 ? ' class="num"' : '') + '>' + c + '</td>').join('') + '</tr>').join('') + '</tbody>';
    if (onClick) el.querySelectorAll('tbody tr').forEach((tr, k) => tr.addEventListener('click', () => onClick(k)));
  }
  function renderSide() {
    const mi = st.focus, m = mems()[mi];
    if (!m) { $('memTitle').textContent = 'no memories in this dump'; return; }
    const s = m.summary;
    $('memTitle').textContent = (m.name || 'memory') + ' (' + m.kind + ', ' + m.id + ')';
    const kv = [
      ['capacity', m.capacity_known ? human(m.capacity) + ' (' + m.capacity + ' B)' : 'unknown'],
      ['used', human(s.used) + (m.cap ? ' (' + (100 * s.used / m.cap).toFixed(1) + '%)' : '')],
      ['peak used', human(s.peak_used)],
      ['free', human(s.total_free)],
      ['largest hole', human(s.largest_hole)],
      ['holes', String(s.hole_count)],
      ['fragmentation', s.fragmentation.toFixed(3) + ' (1 - largest hole / free)'],
      ['allocations', String(m.count)],
      ['pending requests', String(m.pending.length)],
      ['reservations', String(m.reservations.length)],
      ['failures (recent / total)', m.failures.length + ' / ' + s.failures_total],
      ['events applied', String(m.sequence) + (m.exact ? '' : ' (not exact: tracking was off for a while)')],
    ];
    const anomalies = Object.entries(m.anomalies);
    if (anomalies.length) kv.push(['anomalies', anomalies.map(([k, v]) => k + ' ' + v).join(', ')]);
    $('stats').innerHTML = kv.map(([k, v]) => '<tr><td>' + esc(k) + '</td><td>' + esc(v) + '</td></tr>').join('');

    table($('usage'), ['kind', 'bytes', 'count'], m.usage.filter((u) => u.count).map((u, k) =>
      ['<span class="sw" style="display:inline-block;width:10px;height:10px;background:' + KIND_COLORS[m.usage.indexOf(u)] + '"></span> ' + esc(u.kind),
       human(u.bytes), String(u.count)]));
    table($('holes'), ['offset', 'size', ''], m.top_holes.slice(0, 30).map(([o, z]) => [hex(o) + ' <span class="note">' + human(o) + '</span>', human(z), 'zoom']),
      (k) => { const [o, z] = m.top_holes[k]; zoomToRange(mi, o, o + z, 0.25); });
    table($('allocs'), ['instance', 'size', 'offset'], m.top_allocations.slice(0, 30).map((i) =>
      [instHex(m.inst[2 * i], m.inst[2 * i + 1]) + ' <span class="note">' + esc(kindNames[m.bits[i] & 7]) + '</span>', human(m.size[i]), human(m.off[i])]),
      (k) => { const i = m.top_allocations[k]; zoomToRange(mi, m.off[i], m.off[i] + m.size[i], 0.25); });

    const fl = $('failures');
    $('failureSection').hidden = !m.failures.length;
    fl.innerHTML = m.failures.map((f, k) => {
      const b = f.blockers;
      let what = '';
      if (b && b.fits_already) what = 'fits now';
      else if (b && b.found) what = 'blocked: release ' + b.count + ' allocation' + (b.count === 1 ? '' : 's') + ' (' + human(b.bytes_to_free) + ') in ' + hex(b.window_offset) + '..' + hex(b.window_end);
      else if (b) what = 'no window of collectable allocations is large enough';
      return '<div class="pick' + (st.failure && st.failure.mi === mi && st.failure.fi === k ? ' selected' : '') + '" data-k="' + k + '">' +
        '<span class="bad">' + esc(f.instance) + '</span> ' + human(f.size) + ' align ' + human(f.alignment) +
        (f.eventual ? ' (deferred, failed later)' : '') + ' <b>' + esc(f.cause) + '</b><br><span class="note">' + esc(what) + '</span>' +
        (f.identity ? '<br><span class="note">' + esc(identityText(f.identity)) + '</span>' : '') + '</div>';
    }).join('');
    fl.querySelectorAll('.pick').forEach((el) => el.addEventListener('click', () => selectFailure(mi, +el.dataset.k, true)));

    const pend = m.pending.map((p) => '<div class="pick">pending ' + esc(p.instance) + ' ' + human(p.size) + (p.planned_offset == null ? ' (no planned place)' : ' at ' + hex(p.planned_offset)) + '</div>')
      .concat(m.reservations.map((r) => '<div class="pick">reservation ' + esc(r.id) + ' ' + human(r.size) + (r.offset == null ? ' (an amount, no range)' : ' at ' + hex(r.offset)) + '</div>'));
    $('pending').innerHTML = pend.length ? pend.join('') : '<span class="note">none</span>';

    $('diffSection').hidden = !(m.diff && st.diff);
    if (m.diff) {
      $('diff').innerHTML = '<span style="color:' + C.added + '">added ' + m.diff.added + '</span>, <span style="color:' + C.moved + '">moved or resized ' + m.diff.moved +
        '</span>, <span style="color:' + C.removed + '">removed ' + m.diff.removed + '</span>, unchanged ' + m.diff.unchanged;
    }
    const d = dump();
    $('dumpInfo').innerHTML = esc(d.label + ': source ' + (d.source || '?') + ', node ' + d.node +
      (d.created_ms ? ', taken ' + new Date(d.created_ms).toISOString() : '')) +
      d.notes.map((n) => '<div class="note">' + esc(n) + '</div>').join('');
  }
  function identityText(id) {
    const ident = dump().identities[id];
    return ident ? ident.attributes.map(([k, v]) => k + '=' + v).join(' ') : '';
  }
  function selectFailure(mi, fi, zoom) {
    st.failure = { mi, fi };
    const f = mems()[mi].failures[fi];
    if (zoom && f.blockers && f.blockers.found) zoomToRange(mi, f.blockers.window_offset, f.blockers.window_end, 0.5);
    renderSide();
    requestDraw();
  }

  // ---- what-if --------------------------------------------------------
  // Realm's first fit over the holes, and when nothing fits the cheapest
  // window of collectable allocations (fewest bytes), as analysis.h's
  // FirstFit and FindBlockers compute them.  Linear in the allocations.
  function occupants(m) {
    if (m.occ) return m.occ;
    let k = 0;
    for (let i = 0; i < m.count; i++) if (m.size[i] > 0) k++;
    const occ = new Uint32Array(k);
    k = 0;
    for (let i = 0; i < m.count; i++) if (m.size[i] > 0) occ[k++] = i;
    const maxEnd = new Float64Array(occ.length);
    let e = 0;
    for (let j = 0; j < occ.length; j++) { e = Math.max(e, m.off[occ[j]] + m.size[occ[j]]); maxEnd[j] = e; }
    m.occ = occ; m.maxEnd = maxEnd;
    return occ;
  }
  function firstFit(m, size, align) {
    if (size === 0) return { fits: true, offset: 0 };
    const occ = occupants(m);
    let start = 0;
    for (let j = 0; j <= occ.length; j++) {
      const end = j < occ.length ? m.off[occ[j]] : m.cap;
      const at = alignUp(start, align);
      if (end > start && at + size <= end) return { fits: true, offset: at };
      if (j < occ.length) start = Math.max(start, m.maxEnd[j]);
    }
    return { fits: false };
  }
  function findBlockers(m, size, align) {
    const occ = occupants(m), n = occ.length;
    const pinned = (j) => (m.bits[occ[j]] >> 5) & 1;
    const startOf = (i) => (i === 0 ? 0 : m.maxEnd[i - 1]);
    const endOf = (j) => (j + 1 < n ? m.off[occ[j + 1]] : m.cap);
    const fits = (i, j) => alignUp(startOf(i), align) + size <= endOf(j);
    let best = null, j = -1, bytes = 0;  // bytes = sizes of occ[i..j]
    for (let i = 0; i < n; i++) {
      if (j >= i) bytes -= m.size[occ[i - 1]] || 0;
      if (pinned(i)) { j = i; bytes = 0; continue; }
      if (j < i) { j = i; bytes = m.size[occ[i]]; }
      while (!fits(i, j) && j + 1 < n && !pinned(j + 1)) { j++; bytes += m.size[occ[j]]; }
      if (fits(i, j) && (!best || bytes < best.bytes_to_free)) {
        best = { found: true, first: i, last: j, bytes_to_free: bytes, count: j - i + 1,
                 window_offset: startOf(i), window_end: endOf(j), placement: alignUp(startOf(i), align) };
      }
    }
    return best;
  }
  function whatIf(sizeText, alignText) {
    const mi = st.focus, m = mems()[mi];
    const size = parseBytes(sizeText), align = parseBytes(alignText || '1') || 1;
    const out = $('wiResult');
    if (size == null || !(size >= 0) || !(align >= 1) || align & (align - 1)) { st.whatIf = null; requestDraw(); }
    if (size == null || !(size >= 0)) { out.innerHTML = '<span class="bad">cannot read the size "' + esc(sizeText) + '"</span>'; return null; }
    if (align & (align - 1)) { out.innerHTML = '<span class="bad">alignment must be a power of two</span>'; return null; }
    let result;
    if (m.addressed) {
      result = { fits: m.summary.used + size <= m.cap, offset: null };
      out.innerHTML = result.fits ? '<span class="good">fits</span> under the cap (addressed memory: no offsets)' : '<span class="bad">over the cap</span>';
    } else {
      result = firstFit(m, size, align);
      if (result.fits) {
        out.innerHTML = '<span class="good">fits</span>: first fit places ' + human(size) + ' at ' + hex(result.offset) + ' (' + human(result.offset) + ')';
        zoomToRange(mi, result.offset, result.offset + size, 1.5);
      } else {
        const w = findBlockers(m, size, align);
        result.window = w;
        const cause = m.summary.total_free >= size ? 'fragmentation' : 'exhaustion';
        out.innerHTML = '<span class="bad">does not fit</span> (' + cause + ': free ' + human(m.summary.total_free) + ', largest hole ' + human(m.summary.largest_hole) + ')<br>' +
          (w ? 'cheapest window ' + hex(w.window_offset) + '..' + hex(w.window_end) + ': release ' + w.count + ' allocation' + (w.count === 1 ? '' : 's') + ' (' + human(w.bytes_to_free) + ')' +
               (w.count <= 5 ? ': ' + Array.from({ length: w.count }, (_, k) => { const i = occ(m, w.first + k); return instHex(m.inst[2 * i], m.inst[2 * i + 1]); }).join(', ') : '')
             : 'no window of unpinned allocations is large enough');
        if (w) zoomToRange(mi, w.window_offset, w.window_end, 0.5);
      }
    }
    st.whatIf = { mi, size, align, result };
    requestDraw();
    return { size, align, fits: result.fits, offset: result.offset, window: result.window || null };
  }
  function occ(m, j) { return occupants(m)[j]; }
  $('whatIf').addEventListener('submit', (e) => { e.preventDefault(); whatIf($('wiSize').value, $('wiAlign').value); });

  // ---- search ---------------------------------------------------------
  function search(q) {
    q = q.trim();
    st.hits = null;
    const box = $('results');
    $('resultSection').hidden = !q;
    if (!q) { requestDraw(); return 0; }
    const found = [];  // [mi, index]
    const ms = mems();
    const asHex = /^(0x)?[0-9a-f]+$/i.test(q) ? BigInt(q.startsWith('0x') || q.startsWith('0X') ? q : '0x' + q) : null;
    if (asHex != null) {
      const lo = Number(asHex & 0xffffffffn), hi = Number((asHex >> 32n) & 0xffffffffn);
      ms.forEach((m, mi) => { for (let i = 0; i < m.count; i++) if (m.inst[2 * i] === lo && m.inst[2 * i + 1] === hi) found.push([mi, i]); });
    }
    const needle = q.toLowerCase();
    const ids = new Set();
    for (const [id, ident] of Object.entries(dump().identities)) {
      if (ident.kind.toLowerCase().includes(needle) || ident.attributes.some(([k, v]) => (k + '=' + v).toLowerCase().includes(needle))) ids.add(+id);
    }
    if (ids.size) ms.forEach((m, mi) => { for (let i = 0; i < m.count && found.length < 100000; i++) if (m.ident[i] && ids.has(m.ident[i])) found.push([mi, i]); });
    const mi = found.length ? found[0][0] : st.focus;
    st.hits = { mi, indices: found.filter((f) => f[0] === mi).map((f) => f[1]) };
    box.innerHTML = found.length ? found.slice(0, 200).map(([k, i]) => {
      const m = ms[k];
      return '<div class="pick" data-m="' + k + '" data-i="' + i + '">' + instHex(m.inst[2 * i], m.inst[2 * i + 1]) + ' ' + human(m.size[i]) + ' at ' + hex(m.off[i]) +
        ' <span class="note">' + esc((m.name || m.id) + ' ' + identityText(m.ident[i]).slice(0, 80)) + '</span></div>';
    }).join('') + (found.length > 200 ? '<div class="note">' + found.length + ' matches; the first 200 shown</div>' : '')
      : '<span class="note">no match</span>';
    box.querySelectorAll('.pick').forEach((el) => el.addEventListener('click', () => {
      const k = +el.dataset.m, i = +el.dataset.i, m = ms[k];
      st.hits = { mi: k, indices: found.filter((f) => f[0] === k).map((f) => f[1]) };
      zoomToRange(k, m.off[i], m.off[i] + Math.max(1, m.size[i]), 2);
      st.pinned = { mi: k, what: 'allocation', index: i };
      const g = rowGeometry(k);
      showTooltip(st.pinned, xOf(m, m.off[i] + m.size[i] / 2), g.barTop + g.barHeight / 2);
    }));
    requestDraw();
    return found.length;
  }
  let searchTimer = 0;
  $('search').addEventListener('input', (e) => { clearTimeout(searchTimer); searchTimer = setTimeout(() => search(e.target.value), 250); });
  $('search').addEventListener('keydown', (e) => { if (e.key === 'Enter') { clearTimeout(searchTimer); search(e.target.value); } });

  // ---- dumps and diff -------------------------------------------------
  if (data.dumps.length > 1) {
    $('dumpPick').hidden = false; $('diffPick').hidden = false;
    const sel = $('dumpSelect');
    sel.innerHTML = data.dumps.map((d, k) => '<option value="' + k + '"' + (k === st.dump ? ' selected' : '') + '>' + esc(d.label) + '</option>').join('');
    sel.addEventListener('change', () => { st.dump = +sel.value; st.diff = st.dump === 1 && $('diffToggle').checked; resetSelection(); });
    $('diffToggle').addEventListener('change', (e) => { st.diff = e.target.checked && st.dump === 1; renderSide(); requestDraw(); });
  }
  function resetSelection() {
    st.pinned = st.hover = st.failure = st.whatIf = st.hits = null;
    showTooltip(null);
    st.focus = Math.min(st.focus, Math.max(0, mems().length - 1));
    resize();
    renderSide();
  }

  // ---- legend ---------------------------------------------------------
  const present = new Set();
  for (const d of data.dumps) for (const m of d.memories) m.usage.forEach((u, k) => { if (u.count) present.add(k); });
  $('legend').innerHTML = [...present].sort().map((k) => '<span><span class="sw" style="background:' + KIND_COLORS[k] + '"></span>' + esc(kindNames[k]) + '</span>').join('') +
    '<span><span class="sw" style="background:repeating-linear-gradient(135deg,#3b82c4 0 3px,#fff 3px 5px)"></span>release pending</span>' +
    '<span><span class="sw" style="background:#fff"></span>hole</span>' +
    '<span><span class="sw" style="background:repeating-linear-gradient(135deg,' + C.pending + ' 0 2px,#fff 2px 5px);border:1px dashed ' + C.pending + '"></span>pending request</span>' +
    '<span><span class="sw" style="background:repeating-linear-gradient(135deg,' + C.reservation + ' 0 2px,#fff 2px 4px)"></span>reservation</span>' +
    '<span><span class="sw" style="background:rgba(0,0,0,.55)"></span>pinned (bottom bar)</span>' +
    '<span><span class="sw" style="background:rgba(214,40,40,.3);border:2px solid ' + C.fail + '"></span>blocker window</span>' +
    (data.dumps.length > 1 ? '<span><span class="sw" style="background:' + C.added + '"></span>added</span><span><span class="sw" style="background:' + C.moved + '"></span>moved</span><span><span class="sw" style="background:' + C.removed + '"></span>removed</span>' : '');

  // ---- start ----------------------------------------------------------
  // focus the memory with the most recent failure, else the fullest one
  (function initialFocus() {
    const ms = mems();
    let best = 0;
    ms.forEach((m, k) => { if (m.count > ms[best].count) best = k; });
    const failed = ms.findIndex((m) => m.failures.length);
    st.focus = failed >= 0 ? failed : best;
    if (failed >= 0) st.failure = { mi: failed, fi: ms[failed].failures.length - 1 };
  })();
  resize();
  renderSide();
  draw();

  // Read-only hooks for tests and for measuring.
  window.__realmShadow = {
    ready: true,
    errors,
    timing,
    state() {
      return {
        dump: st.dump, diff: st.diff, focus: st.focus,
        memories: mems().map((m) => ({ id: m.id, name: m.name, kind: m.kind, count: m.count, extent: m.extent, capacity: m.capacity, view: m.view.slice(), summary: m.summary })),
        hover: st.hover, pinned: st.pinned, failure: st.failure,
        whatIf: st.whatIf && { size: st.whatIf.size, align: st.whatIf.align, fits: st.whatIf.result.fits, offset: st.whatIf.result.offset },
        hits: st.hits ? st.hits.indices.length : 0,
      };
    },
    rowGeometry,
    xOf(mi, addr) { return xOf(mems()[mi], addr); },
    allocation(mi, i) {
      const m = mems()[mi];
      return { offset: m.off[i], size: m.size[i], instance: instHex(m.inst[2 * i], m.inst[2 * i + 1]), kind: kindNames[m.bits[i] & 7], state: STATE_NAMES[(m.bits[i] >> 3) & 3], identity: identityText(m.ident[i]) };
    },
    findInstance(mi, hexId) {
      const m = mems()[mi], v = BigInt(hexId);
      const lo = Number(v & 0xffffffffn), hi = Number(v >> 32n);
      for (let i = 0; i < m.count; i++) if (m.inst[2 * i] === lo && m.inst[2 * i + 1] === hi) return i;
      return -1;
    },
    visibleBlocks(mi) {
      const r = st.lastBlocks[mi];
      return r ? { mode: r.mode, first: r.first, end: r.end, blocks: r.blocks.map((b) => ({ ...b, instance: instHex(mems()[mi].inst[2 * b.index], mems()[mi].inst[2 * b.index + 1]) })) } : null;
    },
    pixel(x, y) {
      const p = ctx.getImageData(Math.round(x * dpr), Math.round(y * dpr), 1, 1).data;
      return [p[0], p[1], p[2], p[3]];
    },
    kindColor(k) { return KIND_COLORS[k]; },
    zoomTo(mi, a, b) { setView(mems()[mi], a, b); return draw(); },
    reset() { for (const m of mems()) m.view = [0, m.extent]; return draw(); },
    redrawNow() { return draw(); },
    whatIf,
    search,
    findBlockers(mi, size, align) { const w = findBlockers(mems()[mi], size, align); return w && { ...w }; },
    firstFit(mi, size, align) { return firstFit(mems()[mi], size, align); },
    parseBytes,
  };
})();
