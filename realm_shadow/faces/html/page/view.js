  // page/view.js: the state, the sorted arrays' searches, geometry and views.
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
    lastTexts: [],     // per row, the text lines and labels drawn: {text, x, y, w, h}
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
    const rulerTop = top + ROW.title + ROW.stats, barTop = rulerTop + ROW.ruler;
    const noteTop = barTop + ROW.bar;
    return { top, left: MARGIN_L, width: barWidth(), statsTop: top + ROW.title,
             rulerTop, barTop, barHeight: ROW.bar, noteTop, noteHeight: ROW.note,
             laneTop: noteTop + ROW.note, laneHeight: ROW.lane, height: ROW_H };
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

