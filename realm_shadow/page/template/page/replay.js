  // page/replay.js: the what-if replay table of a memory (computed when the
  // page was written: realm-shadow replay), and each policy's map at the
  // moment the table names, drawn in place of the dump's on a click.
  // ---- replay ---------------------------------------------------------
  // The dump's arrays while a replay map is shown.
  const ARRAYS = ['off', 'size', 'inst', 'ident', 'bits', 'pre', 'preRel', 'count'];
  function renderReplay(mi) {
    const m = mems()[mi], r = m && m.replay;
    $('replaySection').hidden = !r;
    if (!r) return;
    $('replaySummary').innerHTML = esc(r.summary).replace(/\n/g, '<br>') +
      '<br><span class="note">a click on a policy draws the map as it would have been ' + esc(r.moment) + '</span>';
    const rows = r.rows.map((row, k) => [
      (m.replayShown === k ? '&#9656; ' : '') + esc(row.policy),
      row.fails ? '<span class="bad">yes</span>' : '<span class="good">no</span>',
      '<span class="note">' + esc(row.first_failure) + '</span>',
      esc(row.min_capacity || '-')]);
    rows.push([(m.replayShown == null ? '&#9656; ' : '') + 'the dump', '', '<span class="note">the map as recorded</span>', '']);
    table($('replay'), ['policy', 'fails?', 'first failure', 'min capacity'], rows,
      (k) => (k < r.rows.length ? showReplayMap(mi, k) : showDumpMap(mi)));
    $('replayShowing').innerHTML = m.replayShown == null ? '' :
      '<span class="note">showing ' + esc(r.rows[m.replayShown].policy) + ' ' + esc(r.rows[m.replayShown].moment) +
      ' (' + r.rows[m.replayShown].count + ' allocations); the figures above are the dump&rsquo;s</span>';
  }
  function showReplayMap(mi, k) {
    const m = mems()[mi], row = m.replay.rows[k];
    if (!row.off) decodeAllocations(row, m.id + ' replay ' + row.policy);
    if (!m.dumpArrays) m.dumpArrays = Object.fromEntries(ARRAYS.map((a) => [a, m[a]]));
    for (const a of ARRAYS) m[a] = row[a];
    m.replayShown = k;
    mapChanged(mi);
  }
  function showDumpMap(mi) {
    const m = mems()[mi];
    if (m.dumpArrays) for (const a of ARRAYS) m[a] = m.dumpArrays[a];
    m.replayShown = null;
    mapChanged(mi);
  }
  function mapChanged(mi) {
    const m = mems()[mi];
    m.occ = m.maxEnd = null;  // first fit's cache (whatif.js)
    // selections index the arrays shown before
    st.pinned = st.hover = st.hits = st.whatIf = null;
    if (st.failure && st.failure.mi === mi) st.failure = null;
    showTooltip(null);
    renderSide();
    requestDraw();
  }
