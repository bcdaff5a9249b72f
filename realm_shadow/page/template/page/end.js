  // page/end.js: the start, and the read-only hooks for tests.
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
  if (data.color_by && (data.color_by === 'kind' || attributeKeys(dump()).includes(data.color_by))) st.colorBy = data.color_by;
  renderColorChoice();
  applyColoring();
  renderLegend();
  resize();
  renderSide();
  draw();
  // The spans of the time strips, read once the document is parsed.
  if (mems().some((m) => m.history && m.history.buckets)) readHistory();

  // Read-only hooks for tests and for measuring.
  window.__realmShadow = {
    ready: true,
    errors,
    timing,
    state() {
      return {
        dump: st.dump, diff: st.diff, focus: st.focus, colorBy: st.colorBy, multiNode: st.multiNode,
        memories: mems().map((m) => ({ id: m.id, name: m.name, kind: m.kind, count: m.count, extent: m.extent, capacity: m.capacity, view: m.view.slice(), summary: m.summary })),
        hover: st.hover, pinned: st.pinned, failure: st.failure,
        whatIf: st.whatIf && { size: st.whatIf.size, align: st.whatIf.align, fits: st.whatIf.result.fits, offset: st.whatIf.result.offset },
        hits: st.hits ? st.hits.indices.length : 0,
        replayShown: mems().map((m) => (m.replayShown == null ? null : m.replay.rows[m.replayShown].policy)),
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
    texts(mi) { return (st.lastTexts[mi] || []).map((t) => ({ ...t })); },
    human,
    pixel(x, y) {
      const p = ctx.getImageData(Math.round(x * dpr), Math.round(y * dpr), 1, 1).data;
      return [p[0], p[1], p[2], p[3]];
    },
    kindColor(k) { return KIND_COLORS[k]; },
    colorBy,
    colorKeys() { return attributeKeys(dump()); },
    groups() { return st.groups ? st.groups.map((g) => ({ ...g })) : null; },
    allocationColor(mi, i) { return st.palette[mems()[mi].color[i]]; },
    nodeBands() { return mems().map((m, k) => ({ node: m.node, top: rowTop(k) })); },
    zoomTo(mi, a, b) { setView(mems()[mi], a, b); return draw(); },
    reset() { for (const m of mems()) m.view = [0, m.extent]; return draw(); },
    redrawNow() { return draw(); },
    whatIf,
    search,
    findBlockers(mi, size, align) { const w = findBlockers(mems()[mi], size, align); return w && { ...w }; },
    firstFit(mi, size, align) { return firstFit(mems()[mi], size, align); },
    parseBytes,
    showReplay(mi, k) { if (k == null) showDumpMap(mi); else showReplayMap(mi, k); return draw(); },
    // The time strip: move memory mi to shown moment k (null: the dump's
    // picture), once the spans are read; resolves to the ms the move took
    // (draw not included).  momentOf says where it is; historyRead resolves
    // once the spans are read.
    async scrub(mi, k) { if (k != null) await readHistory(); const ms = scrub(mi, k); draw(); return ms; },
    // Resolves once the side tables of a scrub (strip.js) are filled.
    tablesDone() { return new Promise((r) => setTimeout(r, 0)); },
    historyRead() { return readHistory().then(() => timing.historyReadMs); },
    // null, or how the moment shown differs from it rebuilt from every span.
    shownMismatch(mi) { return shownMismatch(mems()[mi]); },
    momentOf(mi) {
      const h = mems()[mi].history;
      if (!h) return null;
      const k = h.moment;
      return { shown: h.shown, buckets: h.buckets, stride: h.stride, spans: h.spans, index: k, sequence: k == null ? null : h.boundary[h.shownAt[k]], first: h.first, end: h.end };
    },
    allocations(mi) {
      const m = mems()[mi], out = [];
      for (let i = 0; i < m.count; i++) out.push({ offset: m.off[i], size: m.size[i], instance: instHex(m.inst[2 * i], m.inst[2 * i + 1]), kind: kindNames[m.bits[i] & 7], state: STATE_NAMES[(m.bits[i] >> 3) & 3], identity: m.ident[i] });
      return out;
    },
    stripGeometry(mi) { const g = rowGeometry(mi); return { left: g.left, width: g.width, top: g.stripTop, height: g.stripHeight }; },
  };
})();
