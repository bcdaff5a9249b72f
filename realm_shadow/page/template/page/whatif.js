  // page/whatif.js: first fit and blockers of a request typed in the page.
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
        out.innerHTML = '<span class="good">fits</span>: first fit places ' + human(size) + ' at ' + offs(result.offset) + ' (' + human(result.offset) + ')';
        zoomToRange(mi, result.offset, result.offset + size, 1.5);
      } else {
        const w = findBlockers(m, size, align);
        result.window = w;
        const cause = m.summary.total_free >= size ? 'fragmentation' : 'exhaustion';
        out.innerHTML = '<span class="bad">does not fit</span> (' + cause + ': free ' + human(m.summary.total_free) + ', largest hole ' + human(m.summary.largest_hole) + ')<br>' +
          (w ? 'cheapest window [' + offs(w.window_offset) + ', ' + offs(w.window_end) + '): release ' + w.count + ' allocation' + (w.count === 1 ? '' : 's') + ' (' + human(w.bytes_to_free) + ')' +
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

