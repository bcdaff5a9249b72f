  // page/ui.js: pointer, wheel, tooltip, side panel, search, dumps, legend.
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
      row('offset', offs(m.off[i]) + ' (' + human(m.off[i]) + ')');
      row('size', human(m.size[i]) + ' (' + m.size[i] + ' B)');
      row('end', offs(m.off[i] + m.size[i]));
      row('kind', esc(kindNames[bits & 7]));
      row('state', esc(STATE_NAMES[(bits >> 3) & 3] || '?'));
      row('pinned', flags & 1 ? 'yes (valid: the collector may not release it)' : 'no');
      if (flags & 2) row('from', 'redistricted range');
      if (flags & 4) row('placed', 'after a deferral');
      if (st.diff && m.diffStatus) row('diff', ['unchanged', '<span class="good">added</span>', '<b>moved or resized</b>'][m.diffStatus[i]]);
      rows.push(identityRows(m.ident[i]));
    } else if (sel.what === 'hole') {
      head = 'hole (free)';
      row('offset', offs(sel.offset) + ' (' + human(sel.offset) + ')');
      row('size', human(sel.size) + ' (' + sel.size + ' B)');
      row('end', offs(sel.offset + sel.size));
    } else if (sel.what === 'pending') {
      const p = m.pending[sel.index];
      head = 'pending request ' + p.instance + ' (deferred)';
      row('planned offset', offs(p.planned_offset));
      row('size', human(p.size));
      row('alignment', human(p.alignment));
      rows.push(identityRows(p.identity));
    } else if (sel.what === 'reservation') {
      const r = m.reservations[sel.index];
      head = 'reservation ' + r.id;
      row('offset', offs(r.offset));
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
    if (inStrip(mi, y)) {  // the time strip: the map follows the pointer
      drag = { mi, x, y, x0: x, strip: true, moved: true };
      scrub(mi, momentAtX(mems()[mi], rowGeometry(mi), x));
      return;
    }
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
    if (drag && drag.strip) {
      const m = mems()[drag.mi], k = momentAtX(m, rowGeometry(drag.mi), x);
      if (k !== m.history.moment) scrub(drag.mi, k);
      return;
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
    if (d.strip) return;
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
    const m = mems()[st.focus];
    if ((e.key === 'ArrowLeft' || e.key === 'ArrowRight') && m && m.history && m.history.buckets && e.target.tagName !== 'INPUT') {
      const k = m.history.moment == null ? m.history.shown - 1 : m.history.moment;
      scrub(st.focus, k + (e.key === 'ArrowLeft' ? -1 : 1));
      e.preventDefault();
    }
  });
  $('timeSlider').addEventListener('input', (e) => scrub(st.focus, +e.target.value));
  $('timeReset').addEventListener('click', () => scrub(st.focus, null));
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
      ['events applied', (m.history && m.history.moment != null ? String(m.history.boundary[m.history.shownAt[m.history.moment]]) + ' (a moment of the history; the dump is at ' + m.sequence + ')'
        : String(m.sequence)) + (m.exact ? '' : ' (not exact: tracking was off for a while)')],
    ];
    const anomalies = Object.entries(m.anomalies);
    if (anomalies.length) kv.push(['anomalies', anomalies.map(([k, v]) => k + ' ' + v).join(', ')]);
    $('stats').innerHTML = kv.map(([k, v]) => '<tr><td>' + esc(k) + '</td><td>' + esc(v) + '</td></tr>').join('');
    const h = m.history;
    $('timeSection').hidden = !(h && h.buckets);
    if (h && h.buckets) {
      if (!m.dumpPicture) keepDumpPicture(m);
      const slider = $('timeSlider');
      slider.max = String(h.shown - 1);
      slider.value = String(h.moment == null ? h.shown - 1 : h.moment);
      $('timeInfo').textContent = 'showing ' + momentText(m, h.moment) + '; history: ' + eventsText(h) +
        (h.first > 0 ? ' (older ones dropped)' : ' (the whole run)') + '; ' + h.clock_text +
        (h.moment != null ? '. Pending requests and reservations are known at the dump\'s moment only.' : '');
    }

    const swatch = (color) => '<span class="sw" style="display:inline-block;width:10px;height:10px;background:' + color + '"></span> ';
    $('usageTitle').textContent = 'Use by ' + st.colorBy;
    if (st.colorBy === 'kind') {
      table($('usage'), ['kind', 'bytes', 'count'], m.usage.filter((u) => u.count).map((u) =>
        [swatch(KIND_COLORS[m.usage.indexOf(u)]) + esc(u.kind), human(u.bytes), String(u.count)]));
    } else {
      // this memory's allocations by the colouring's groups
      const bytes = new Float64Array(st.palette.length), count = new Float64Array(st.palette.length);
      for (let i = 0; i < m.count; i++) { bytes[m.color[i]] += m.size[i]; count[m.color[i]]++; }
      const label = (k) => k < st.groups.length ? st.groups[k].value : k === GROUP_COLORS.length ? 'other' : 'unknown';
      const rows = [];
      for (let k = 0; k < st.palette.length; k++) if (count[k]) rows.push(k);
      rows.sort((a, b) => bytes[b] - bytes[a]);
      table($('usage'), [esc(st.colorBy), 'bytes', 'count'], rows.map((k) => [swatch(st.palette[k]) + esc(label(k)), human(bytes[k]), String(count[k])]));
    }
    table($('holes'), ['offset', 'size', ''], m.top_holes.slice(0, 30).map(([o, z]) => [offs(o) + ' <span class="note">' + human(o) + '</span>', human(z), 'zoom']),
      (k) => { const [o, z] = m.top_holes[k]; zoomToRange(mi, o, o + z, 0.25); });
    // The dump's allocations, also while a replay map is drawn (replay.js).
    const A = m.dumpArrays || m;
    table($('allocs'), ['instance', 'size', 'offset'], m.top_allocations.slice(0, 30).map((i) =>
      [instHex(A.inst[2 * i], A.inst[2 * i + 1]) + ' <span class="note">' + esc(kindNames[A.bits[i] & 7]) + '</span>', human(A.size[i]), human(A.off[i])]),
      (k) => { const i = m.top_allocations[k]; zoomToRange(mi, A.off[i], A.off[i] + A.size[i], 0.25); });

    renderReplay(mi);
    const fl = $('failures');
    $('failureSection').hidden = !m.failures.length;
    fl.innerHTML = m.failures.map((f, k) => {
      const b = f.blockers;
      let what = '';
      if (b && b.fits_already) what = 'fits now';
      else if (b && b.found) what = 'blocked: release ' + b.count + ' allocation' + (b.count === 1 ? '' : 's') + ' (' + human(b.bytes_to_free) + ') in [' + offs(b.window_offset) + ', ' + offs(b.window_end) + ')';
      else if (b) what = 'no window of collectable allocations is large enough';
      // A stock log's rebuild cannot tell which instances Legion keeps.
      if (b && b.found && m.gc_state_known === false) what += '; GC state unknown: a stock log cannot tell which of these are collectable';
      const selected = st.failure && st.failure.mi === mi && st.failure.fi === k;
      return '<div class="pick' + (selected ? ' selected' : '') + '" data-k="' + k + '">' +
        '<span class="bad">' + esc(f.instance) + '</span> ' + human(f.size) + ' align ' + human(f.alignment) +
        (f.eventual ? ' (deferred, failed later)' : '') + ' <b>' + esc(f.cause) + '</b><br><span class="note">' + esc(what) + '</span>' +
        // The log's rebuild marks what it cannot tell (core/snapshot.h kMaybeCancelledText).
        (f.maybe_cancelled ? '<br><span class="note">refused by the allocator, or cancelled by a poisoned precondition: the log cannot tell</span>' : '') +
        (f.identity ? '<br><span class="note">' + esc(identityText(f.identity)) + '</span>' : '') +
        (selected ? remediesHtml(m, f) : '') + '</div>';
    }).join('');
    fl.querySelectorAll('.pick').forEach((el) => el.addEventListener('click', () => selectFailure(mi, +el.dataset.k, true)));

    const pend = m.pending.map((p) => '<div class="pick">pending ' + esc(p.instance) + ' ' + human(p.size) + (p.planned_offset == null ? ' (no planned place)' : ' at ' + offs(p.planned_offset)) + '</div>')
      .concat(m.reservations.map((r) => '<div class="pick">reservation ' + esc(r.id) + ' ' + human(r.size) + (r.offset == null ? ' (an amount, no range)' : ' at ' + offs(r.offset)) + '</div>'));
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
  // The remedies of failure f (realm-shadow explain's, written with the
  // page), beside it when it is selected: those that fit numbered first.
  function remediesHtml(m, f) {
    const r = (m.remedies || []).find((x) => x.instance === f.instance && x.sequence === f.sequence);
    if (!r) return '';
    let rank = 0;
    return '<div class="remedies"><b>remedies</b> <span class="note">' + esc(r.judged) + '; ' + esc(r.cause) + '</span>' +
      r.lines.map((l) => '<div class="remedy' + (l.fits ? ' fits' : '') + '">' + (l.fits ? ++rank + '. ' : '&ndash; ') +
        '<b>' + esc(l.kind) + '</b> ' + esc(l.text) + '</div>').join('') + '</div>';
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
      return '<div class="pick" data-m="' + k + '" data-i="' + i + '">' + instHex(m.inst[2 * i], m.inst[2 * i + 1]) + ' ' + human(m.size[i]) + ' at ' + offs(m.off[i]) +
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
    sel.addEventListener('change', () => { st.dump = +sel.value; st.diff = st.dump === 1 && $('diffToggle').checked; renderColorChoice(); colorBy(st.colorBy); resetSelection(); });
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
  // Colours by kind, or the top groups of the chosen attribute with their
  // bytes in this dump; then the marks every map has.
  function renderLegend() {
    const sw = (color) => '<span class="sw" style="background:' + color + '"></span>';
    let colours;
    if (!st.groups) {
      const present = new Set();
      for (const m of mems()) m.usage.forEach((u, k) => { if (u.count) present.add(k); });
      colours = [...present].sort().map((k) => '<span>' + sw(KIND_COLORS[k]) + esc(kindNames[k]) + '</span>').join('');
    } else {
      const cut = (v) => v.length > 48 ? v.slice(0, 46) + '\u2026' : v;
      colours = st.groups.map((g) => '<span title="' + esc(g.value) + '">' + sw(g.color) + esc(cut(g.value)) + ' <span class="note">' + human(g.bytes) + '</span></span>').join('') +
        (st.groups.other.groups ? '<span>' + sw(OTHER_COLOR) + st.groups.other.groups + ' other ' + esc(st.colorBy) + ' <span class="note">' + human(st.groups.other.bytes) + '</span></span>' : '') +
        '<span>' + sw(UNKNOWN_COLOR) + esc(st.colorBy) + ' unknown</span>';
    }
    $('legend').innerHTML = colours +
      '<span><span class="sw" style="background:repeating-linear-gradient(135deg,#3b82c4 0 3px,#fff 3px 5px)"></span>release pending</span>' +
      '<span><span class="sw" style="background:#fff"></span>hole</span>' +
      '<span><span class="sw" style="background:repeating-linear-gradient(135deg,' + C.pending + ' 0 2px,#fff 2px 5px);border:1px dashed ' + C.pending + '"></span>pending request</span>' +
      '<span><span class="sw" style="background:repeating-linear-gradient(135deg,' + C.reservation + ' 0 2px,#fff 2px 4px)"></span>reservation</span>' +
      '<span><span class="sw" style="background:rgba(0,0,0,.55)"></span>pinned (bottom bar)</span>' +
      '<span><span class="sw" style="background:rgba(214,40,40,.3);border:2px solid ' + C.fail + '"></span>blocker window</span>' +
      (data.dumps.length > 1 ? '<span><span class="sw" style="background:' + C.added + '"></span>added</span><span><span class="sw" style="background:' + C.moved + '"></span>moved</span><span><span class="sw" style="background:' + C.removed + '"></span>removed</span>' : '');
  }
  // The choice of colouring: kind, or any attribute the dump's identities carry.
  function renderColorChoice() {
    const keys = attributeKeys(dump());
    const sel = $('colorBy');
    sel.innerHTML = ['kind'].concat(keys).map((k) => '<option value="' + esc(k) + '"' + (k === st.colorBy ? ' selected' : '') + '>' + esc(k) + '</option>').join('');
    $('colorPick').hidden = keys.length === 0;
  }
  $('colorBy').addEventListener('change', (e) => colorBy(e.target.value));
