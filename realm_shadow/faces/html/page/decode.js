  // page/decode.js: the embedded dump data into typed arrays.
  // ---- decoding -------------------------------------------------------
  function b64bytes(s) {
    if (!s) return new Uint8Array(0);
    if (typeof Uint8Array.fromBase64 === 'function') return Uint8Array.fromBase64(s);
    const bin = atob(s);
    const out = new Uint8Array(bin.length);
    for (let i = 0; i < bin.length; i++) out[i] = bin.charCodeAt(i);
    return out;
  }
  // Typed arrays are little-endian on every platform a browser runs on;
  // the page checks rather than assumes.
  const LITTLE = new Uint8Array(new Uint32Array([1]).buffer)[0] === 1;

  function decodeMemory(m) {
    decodeAllocations(m, m.id);
    m.cap = m.capacity_known && m.capacity ? m.capacity : m.extent;
    if (m.diff) {
      m.diffStatus = b64bytes(m.diff.status);
      const rb = b64bytes(m.diff.removed_list);
      const k = m.diff.removed_drawn;
      m.rmOff = new Float64Array(rb.buffer, rb.byteOffset, k);
      m.rmSize = new Float64Array(rb.buffer, rb.byteOffset + 8 * k, k);
      m.rmInst = new Uint32Array(rb.buffer, rb.byteOffset + 16 * k, 2 * k);
    }
    m.view = [0, m.extent];
    if (m.history) decodeHistory(m);
  }

  // The time strip's arrays (html_page.cc, AppendHistory); the spans of its
  // moments wait in #rs-history until the strip is first used (strip.js).
  function decodeHistory(m) {
    const h = m.history, b = h.buckets, n = h.shown;
    const bytes = b64bytes(h.strip);
    delete h.strip;
    if (bytes.length !== 8 * (4 * b + 2 * (b + 1)) + 4 * b) throw new Error('memory ' + m.id + ': strip length ' + bytes.length);
    const f64 = (k, len) => new Float64Array(bytes.buffer, bytes.byteOffset + 8 * k, len);
    h.usedMin = f64(0, b); h.usedMax = f64(b, b); h.holeMin = f64(2 * b, b); h.holeMax = f64(3 * b, b);
    h.boundary = f64(4 * b, b + 1); h.timeNs = f64(5 * b + 1, b + 1);
    h.failures = new Uint32Array(bytes.buffer, bytes.byteOffset + 8 * (6 * b + 2), b);
    const mb = b64bytes(h.moments);
    delete h.moments;
    if (mb.length !== 4 * n + 40 * n) throw new Error('memory ' + m.id + ': moments length ' + mb.length);
    // The u32 indices first, so the f64 arrays start at 4n: copy them out
    // to an aligned buffer.
    h.shownAt = new Uint32Array(mb.buffer.slice(mb.byteOffset, mb.byteOffset + 4 * n));
    const figs = new Float64Array(mb.buffer.slice(mb.byteOffset + 4 * n, mb.byteOffset + 44 * n));
    h.mUsed = figs.subarray(0, n); h.mFree = figs.subarray(n, 2 * n); h.mLargest = figs.subarray(2 * n, 3 * n);
    h.mHoles = figs.subarray(3 * n, 4 * n); h.mCount = figs.subarray(4 * n, 5 * n);
    h.moment = null;  // null: the dump's own picture
  }

  // o.allocations (base64, o.count of them) into o.off, o.size, o.inst,
  // o.ident, o.bits and the prefix sums: a memory's, or a replay map's.
  function decodeAllocations(o, what) {
    const n = o.count;
    const bytes = b64bytes(o.allocations);
    delete o.allocations;
    if (!LITTLE) throw new Error('big-endian browser: cannot read the data');
    if (bytes.length !== n * 29) throw new Error('memory ' + what + ': data length ' + bytes.length + ' != ' + n * 29);
    const m = o;
    const buf = bytes.buffer, base = bytes.byteOffset;
    m.off = new Float64Array(buf, base, n);
    m.size = new Float64Array(buf, base + 8 * n, n);
    m.inst = new Uint32Array(buf, base + 16 * n, 2 * n);
    m.ident = new Uint32Array(buf, base + 24 * n, n);
    m.bits = new Uint8Array(buf, base + 28 * n, n);
    // prefix sums: bytes (exact below 2^53) and allocations not live
    m.pre = new Float64Array(n + 1);
    m.preRel = new Uint32Array(n + 1);
    let s = 0, r = 0;
    for (let i = 0; i < n; i++) {
      s += m.size[i];
      if ((m.bits[i] >> 3) & 3) r++;
      m.pre[i + 1] = s;
      m.preRel[i + 1] = r;
    }
  }

