  // page/view.js: the state, the sorted arrays' searches, geometry and views.
  // ---- searching the sorted arrays ------------------------------------
  // first index in [from, n) with arr[i] >= x (n when none), given that
  // none before `from` is
  function lowerBound(arr, n, x, from = 0) {
    let lo = from, hi = n;
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
    for (const d of data.dumps) {
      for (const m of d.memories) decodeMemory(m);
      // node by node (a dump of several nodes may list them interleaved)
      d.memories = d.memories.map((m, k) => [m, k]).sort((a, b) => a[0].node - b[0].node || a[1] - b[1]).map((e) => e[0]);
    }
  } catch (e) {
    errors.push(String(e));
    document.body.insertAdjacentHTML('afterbegin', '<p class="bad">cannot read the embedded data: ' + esc(e) + '</p>');
    throw e;
  }
  const decodeMs = performance.now() - T0;
  // Rows make room for a time strip when any memory has a history.
  if (data.dumps.some((d) => d.memories.some((m) => m.history))) {
    ROW.strip = STRIP_H;
    ROW_H += STRIP_H;
  }
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
    colorBy: 'kind',   // 'kind' or an identity attribute (colour.js)
    palette: KIND_COLORS,
    groups: null,      // the attribute's top groups, for the legend
    tops: [],          // per row, its top (rows grouped by node)
    height: 0,
    multiNode: false,
  };
  const timing = { scriptStartMs: T0, decodeMs, firstRenderMs: null, historyReadMs: null, frames: [], scrubs: [], tables: [],
    moves: { forward: 0, backward: 0, rebuilt: 0 } };  // how the time strip moved the map (strip.js)
  function dump() { return data.dumps[st.dump]; }
  function mems() { return dump().memories; }

  // ---- geometry -------------------------------------------------------
  const canvas = $('map');
  const ctx = canvas.getContext('2d');
  let cssW = 800, cssH = 400, dpr = 1;
  function barWidth() { return Math.max(50, cssW - MARGIN_L - MARGIN_R); }
  // Rows in node order; with several nodes each node's rows sit under a
  // band that names the node.
  function layoutRows() {
    const ms = mems();
    st.multiNode = new Set(ms.map((m) => m.node)).size > 1;
    st.tops = [];
    let y = 0;
    ms.forEach((m, k) => {
      if (st.multiNode && (k === 0 || ms[k - 1].node !== m.node)) y += NODE_H;
      st.tops.push(y);
      y += ROW_H;
    });
    st.height = y;
  }
  function rowTop(mi) { return st.tops[mi]; }
  function rowGeometry(mi) {
    const top = rowTop(mi);
    const strip = top + ROW.title + ROW.stats, rulerTop = strip + ROW.strip;
    const barTop = rulerTop + ROW.ruler, noteTop = barTop + ROW.bar;
    return { top, left: MARGIN_L, width: barWidth(), statsTop: top + ROW.title,
             stripTop: strip, stripHeight: ROW.strip,
             rulerTop, barTop, barHeight: ROW.bar, noteTop, noteHeight: ROW.note,
             laneTop: noteTop + ROW.note, laneHeight: ROW.lane, height: ROW_H };
  }
  function xOf(m, addr) { return MARGIN_L + (addr - m.view[0]) / (m.view[1] - m.view[0]) * barWidth(); }
  function addrOf(m, x) { return m.view[0] + (x - MARGIN_L) / barWidth() * (m.view[1] - m.view[0]); }
  function rowAt(y) {
    let lo = 0, hi = st.tops.length;  // the last row starting at or above y
    while (lo < hi) { const mid = (lo + hi) >>> 1; if (st.tops[mid] <= y) lo = mid + 1; else hi = mid; }
    const mi = lo - 1;
    return mi >= 0 && y < st.tops[mi] + ROW_H ? mi : -1;
  }
  function resize() {
    const pane = $('mapPane');
    dpr = window.devicePixelRatio || 1;
    cssW = Math.max(200, pane.clientWidth);
    layoutRows();
    cssH = Math.max(ROW_H, st.height);
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

