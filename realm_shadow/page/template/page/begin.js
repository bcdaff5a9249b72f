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
// Data: see realm_shadow/page/html_page.h.  Read-only test hooks are on
// window.__realmShadow.
//
// This is part 1 of the page script (page/begin.js): it opens the page's
// scope and holds its constants.  The parts are one script, concatenated in
// the order page/CMakeLists.txt lists them and sharing this scope; each
// holds one concern (decode, format, view, colour, draw, strip, ui, whatif,
// replay), and only
// end.js runs the page.
(function () {
  'use strict';
  const T0 = performance.now();
  const DETAIL_LIMIT_PER_PX = 3;   // individual drawing up to 3 per pixel
  const MIN_SPAN = 32;             // bytes: the deepest zoom
  // A row, top to bottom: the memory's name, its figures, the time strip
  // (strip: its height when a memory has a history, which view.js sets once
  // the data are read, else 0), the ruler, the bar, a band for the labels
  // of what is outlined on the bar (so that they never cover the blocks
  // they mark), the lane of pending requests and reservations.
  const ROW = { title: 16, stats: 16, strip: 0, ruler: 16, bar: 44, note: 14, lane: 16, gap: 12 };
  const STRIP_H = 46;
  let ROW_H = ROW.title + ROW.stats + ROW.ruler + ROW.bar + ROW.note + ROW.lane + ROW.gap;
  const NODE_H = 22;               // the band naming a node above its rows
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

