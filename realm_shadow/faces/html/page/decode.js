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

