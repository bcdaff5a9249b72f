  // page/format.js: numbers and text as a person reads them.
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

