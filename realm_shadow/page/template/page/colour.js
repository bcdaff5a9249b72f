  // page/colour.js: what colours the blocks.  By default the allocation
  // kind; or an identity attribute (task, store, regions, fields, creator,
  // ...): the groups holding the most bytes in the dump get a colour each,
  // the rest share "other", allocations without the attribute "unknown", so
  // that one store or one task stands out in the map.  Every allocation's
  // colour is an index into st.palette (m.color), computed once per choice:
  // O(n) with a typed-array lookup from identity id to group.
  // ---- colour by ------------------------------------------------------
  const GROUP_COLORS = ['#3b82c4', '#e0a526', '#14a38b', '#c2416c', '#8e6cc2',
                        '#6aa84f', '#e07b39', '#2bb1c9', '#a0522d', '#d46fb5',
                        '#5b7f2a', '#7a86d8'];
  const OTHER_COLOR = '#aab3bd', UNKNOWN_COLOR = '#dde2e8';
  // Attribute keys that describe the record, not the user object.
  const NOT_GROUPS = new Set(['why', 'size', 'requested']);

  // The attribute keys the dump's identities carry, most used first.
  function attributeKeys(d) {
    const count = new Map();
    for (const ident of Object.values(d.identities))
      for (const [k] of ident.attributes) if (!NOT_GROUPS.has(k)) count.set(k, (count.get(k) || 0) + 1);
    return [...count.entries()].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1)).map((e) => e[0]);
  }
  function attributeOf(ident, key) {
    if (!ident) return null;
    for (const [k, v] of ident.attributes) if (k === key) return v;
    return null;
  }
  // The colour of an allocation (identity id, packed bits) under the
  // current choice; applyColoring sets it, the time strip uses it for the
  // allocations a moment brings (strip.js).
  let colorOf = (ident, bits) => bits & 7;
  let coloring = 0;  // counts the choices: what a kept colour array is of
  function recolor(m) {
    if (!m.color || m.color.length !== m.count) m.color = new Uint8Array(m.count);
    for (let i = 0; i < m.count; i++) m.color[i] = colorOf(m.ident[i], m.bits[i]);
  }
  function applyColoring() {
    const d = dump(), key = st.colorBy;
    coloring++;
    if (key === 'kind') {
      st.palette = KIND_COLORS;
      st.groups = null;
      colorOf = (ident, bits) => bits & 7;
      for (const m of d.memories) recolor(m);
      return;
    }
    // identity id -> value, then bytes per value over the whole dump
    let maxId = 0;
    for (const id of Object.keys(d.identities)) maxId = Math.max(maxId, +id);
    const values = [], valueIndex = new Map();
    const lut = new Int32Array(maxId + 1).fill(-1);
    for (const [id, ident] of Object.entries(d.identities)) {
      const v = attributeOf(ident, key);
      if (v == null) continue;
      if (!valueIndex.has(v)) { valueIndex.set(v, values.length); values.push(v); }
      lut[+id] = valueIndex.get(v);
    }
    const bytes = new Float64Array(values.length), count = new Float64Array(values.length);
    for (const m of d.memories)
      for (let i = 0; i < m.count; i++) {
        const id = m.ident[i], v = id && id <= maxId ? lut[id] : -1;
        if (v >= 0) { bytes[v] += m.size[i]; count[v]++; }
      }
    const order = values.map((_, k) => k).sort((a, b) => bytes[b] - bytes[a] || (values[a] < values[b] ? -1 : 1));
    const top = Math.min(GROUP_COLORS.length, order.length);
    const OTHER = GROUP_COLORS.length, UNKNOWN = OTHER + 1;
    const groupOf = new Uint8Array(values.length).fill(OTHER);
    for (let r = 0; r < top; r++) groupOf[order[r]] = r;
    st.palette = GROUP_COLORS.concat([OTHER_COLOR, UNKNOWN_COLOR]);
    st.groups = order.slice(0, top).map((v, r) => ({ value: values[v], bytes: bytes[v], count: count[v], color: GROUP_COLORS[r] }));
    let otherBytes = 0, otherCount = 0;
    for (let r = top; r < order.length; r++) { otherBytes += bytes[order[r]]; otherCount += count[order[r]]; }
    st.groups.other = { groups: order.length - top, bytes: otherBytes, count: otherCount };
    colorOf = (id) => {
      const v = id && id <= maxId ? lut[id] : -1;
      return v >= 0 ? groupOf[v] : UNKNOWN;
    };
    for (const m of d.memories) recolor(m);
  }
  function colorBy(key) {
    st.colorBy = key === 'kind' || attributeKeys(dump()).includes(key) ? key : 'kind';
    const sel = $('colorBy');
    if (sel) sel.value = st.colorBy;
    applyColoring();
    renderLegend();
    renderSide();
    requestDraw();
    return st.colorBy;
  }
