  // page/draw.js: drawing the rows on the canvas.
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
    mems().forEach((m, mi) => { drawNodeBand(mi); drawRow(m, mi); });
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

  // With several nodes: above a node's first row, a band naming it and
  // summing its memories.
  function drawNodeBand(mi) {
    const ms = mems(), m = ms[mi];
    if (!st.multiNode || (mi > 0 && ms[mi - 1].node === m.node)) return;
    let used = 0, cap = 0, rows = 0, failures = 0;
    for (const o of ms) if (o.node === m.node) { used += o.summary.used; cap += o.cap || 0; rows++; failures += o.summary.failures_total; }
    const y = rowTop(mi) - NODE_H;
    ctx.fillStyle = '#e8edf3';
    ctx.fillRect(0, y + 2, cssW, NODE_H - 4);
    ctx.fillStyle = '#0b3d91';
    ctx.font = '600 12px system-ui, "DejaVu Sans", sans-serif';
    ctx.textBaseline = 'top';
    ctx.fillText('node ' + m.node + '  \u00b7  ' + rows + ' memor' + (rows === 1 ? 'y' : 'ies') + ', used ' + human(used) +
      (cap ? ' of ' + human(cap) : '') + (failures ? '  \u00b7  ' + failures + ' failure' + (failures === 1 ? '' : 's') : ''), MARGIN_L, y + 6);
  }

  function drawRow(m, mi) {
    const g = rowGeometry(mi);
    const W = g.width, X0 = g.left;
    const [v0, v1] = m.view;
    const bpp = (v1 - v0) / W;
    // title and figures, each on a line of its own, shortened with an
    // ellipsis rather than cut by the edge (the side panel has them whole)
    const texts = st.lastTexts[mi] = [];
    const s = m.summary;
    ctx.textBaseline = 'top';
    ctx.font = '600 12px system-ui, "DejaVu Sans", sans-serif';
    ctx.fillStyle = mi === st.focus ? '#0b3d91' : '#1d2733';
    fitText((st.multiNode ? 'node ' + m.node + ' \u00b7 ' : '') + (m.name || 'memory') + '  [' + m.kind + ' ' + m.id + ']', X0, g.top + 2, W, texts);
    ctx.font = '12px system-ui, "DejaVu Sans", sans-serif';
    ctx.fillStyle = '#334155';
    const capText = m.capacity_known ? 'capacity ' + human(m.capacity) : 'capacity unknown (axis to ' + human(m.extent) + ')';
    const pct = m.cap ? (100 * s.used / m.cap).toFixed(1) + '%' : '';
    // A replay's map (replay.js) has no figures of its own: say what it is.
    const shown = m.replayShown == null ? null : m.replay.rows[m.replayShown];
    fitText(shown ? 'replay under ' + shown.policy + ', ' + shown.moment + '  |  ' + m.count + ' allocations' :
      capText + '  |  used ' + human(s.used) + ' ' + pct + '  |  ' + m.count + ' allocations  |  ' +
      (m.addressed ? 'addressed (no holes)' : s.hole_count + ' holes, largest ' + human(s.largest_hole) +
      ', fragmentation ' + (s.fragmentation == null ? 'n/a' : s.fragmentation.toFixed(2))) +
      (m.pending.length ? '  |  ' + m.pending.length + ' pending' : '') +
      (m.failures.length ? '  |  ' + m.failures.length + (m.failures.length === 1 ? ' failure' : ' failures') : '') +
      (m.history && m.history.moment != null ? '  |  after event ' + m.history.boundary[m.history.shownAt[m.history.moment]] : ''), X0, g.statsTop + 1, W, texts);

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
    if (ROW.strip) drawStrip(m, mi, g);
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
      const bits = m.bits[i], kind = bits & 7, state = (bits >> 3) & 3, flags = bits >> 5, color = m.color[i];
      const x0 = xOf(m, m.off[i]), x1 = xOf(m, m.off[i] + sz);
      if (record.blocks.length < 20000) record.blocks.push({ index: i, x0, x1, kind, state });
      if (x1 - x0 >= 2) {
        const a = Math.max(X0 - 2, x0), b = Math.min(X0 + W + 2, x1);
        ctx.fillStyle = st.palette[color];
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
        if (sz > colBest[c]) { colBest[c] = sz; colKind[c] = color; }
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
      ctx.fillStyle = st.palette[colKind[c] < 0 ? 0 : colKind[c]];
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
    const kindBytes = new Float64Array(st.palette.length);
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
        // dominant colour among up to 7 sampled blocks, weighted by size
        kindBytes.fill(0);
        const n = i1 - i0, stride = Math.max(1, Math.floor(n / 7));
        for (let k = i0; k < i1; k += stride) kindBytes[m.color[k]] += m.size[k];
        let best = 0;
        for (let k = 1; k < kindBytes.length; k++) if (kindBytes[k] > kindBytes[best]) best = k;
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

  // Draws `text` at (x, y) in at most `width` pixels, shortened with an
  // ellipsis when it is longer, and records it in `texts`.
  function fitText(text, x, y, width, texts) {
    let t = text;
    if (ctx.measureText(t).width > width) {
      let lo = 0, hi = t.length;  // the longest prefix that fits with '…'
      while (lo < hi) {
        const mid = (lo + hi + 1) >> 1;
        if (ctx.measureText(text.slice(0, mid) + '…').width <= width) lo = mid; else hi = mid - 1;
      }
      t = text.slice(0, lo) + '…';
    }
    ctx.fillText(t, x, y);
    const w = ctx.measureText(t).width;
    if (texts) texts.push({ text: t, x, y, w, h: 12 });
    return w;
  }

  // Outlines [a, b) on the bar; its label goes in the band under the bar,
  // from the range's start but inside the row.
  function outlineRange(m, mi, g, a, b, color, width, label) {
    const x0 = xOf(m, a), x1 = Math.max(x0 + 2, xOf(m, b));
    ctx.strokeStyle = color; ctx.lineWidth = width;
    ctx.strokeRect(x0 + width / 2, g.barTop + width / 2, x1 - x0 - width, g.barHeight - width);
    ctx.lineWidth = 1;
    if (label) {
      ctx.fillStyle = color;
      ctx.font = '600 10px system-ui, "DejaVu Sans", sans-serif';
      ctx.textBaseline = 'top';
      const w = Math.min(ctx.measureText(label).width, g.width - 4);
      const x = Math.max(g.left + 2, Math.min(x0 + 2, g.left + g.width - w - 2));
      fitText(label, x, g.noteTop + 2, g.width - 4, st.lastTexts[mi]);
    }
  }

  function drawOverlays(m, mi, g) {
    // the selected failure: blocker window, and the request at its placement
    const showWindow = (w, size, color, label) => {
      if (!w || !w.found || w.fits_already) return;
      const x0 = xOf(m, w.window_offset), x1 = xOf(m, w.window_end);
      ctx.fillStyle = 'rgba(214,40,40,0.18)';
      ctx.fillRect(x0, g.barTop, x1 - x0, g.barHeight);
      outlineRange(m, mi, g, w.window_offset, w.window_end, color, 2, label);
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
        outlineRange(m, mi, g, r.offset, r.offset + st.whatIf.size, C.fit, 2, 'fits: ' + human(st.whatIf.size));
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
      outlineRange(m, mi, g, m.off[sel.index], m.off[sel.index] + m.size[sel.index], '#111827', 2);
    } else if (sel && sel.mi === mi && sel.what === 'hole') {
      outlineRange(m, mi, g, sel.offset, sel.offset + sel.size, '#6b7280', 1);
    }
  }

