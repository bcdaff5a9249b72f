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
  // A reader of the varint columns html_page.cc writes (Columns there):
  // LEB128, low 7 bits first, exact below 2^53; one column after another.
  // Each column is one loop with the varint read inline and the position
  // in a local: 6M varints in about 40 ms (a shared read function with the
  // position in a closure took ten times that).
  function columns(b, what) {
    let at = 0;
    return {
      unsigned(out) {
        let p = at;
        for (let i = 0; i < out.length; i++) {
          let x = b[p++], v = x & 127;
          for (let mul = 128; x >= 128; mul *= 128) { x = b[p++]; v += (x & 127) * mul; }
          out[i] = v;
        }
        at = p;
        return out;
      },
      // Zigzag deltas from the previous value, summed: sorted offsets.
      deltas(out) {
        let p = at, sum = 0;
        for (let i = 0; i < out.length; i++) {
          let x = b[p++], v = x & 127;
          for (let mul = 128; x >= 128; mul *= 128) { x = b[p++]; v += (x & 127) * mul; }
          sum += v % 2 === 1 ? -(v + 1) / 2 : v / 2;
          out[i] = sum;
        }
        at = p;
        return out;
      },
      // Zigzag 32-bit deltas, summed modulo 2^32, into every 2nd slot.
      halves(out, half) {
        let p = at, sum = 0;
        for (let i = half; i < out.length; i += 2) {
          let x = b[p++], v = x & 127;
          for (let mul = 128; x >= 128; mul *= 128) { x = b[p++]; v += (x & 127) * mul; }
          sum = (sum + ((v >>> 1) ^ -(v & 1))) >>> 0;
          out[i] = sum;
        }
        at = p;
      },
      bytes(out) { out.set(b.subarray(at, at + out.length)); at += out.length; return out; },
      // Every column read, and nothing past the end.
      done() { if (at !== b.length) throw new Error(what + ': data length ' + b.length + ', columns end at ' + at); },
    };
  }
  // The columns of n ranges into o.off, o.size, o.inst (AppendRanges).
  function readRanges(c, o, n) {
    o.off = c.deltas(new Float64Array(n));
    o.size = c.unsigned(new Float64Array(n));
    o.inst = new Uint32Array(2 * n);
    c.halves(o.inst, 0);
    c.halves(o.inst, 1);
  }
  // ... then identity and bits (AppendAllocations).
  function readAllocations(c, o, n) {
    readRanges(c, o, n);
    o.ident = c.unsigned(new Uint32Array(n));
    o.bits = c.bytes(new Uint8Array(n));
  }

  function decodeMemory(m) {
    decodeAllocations(m, m.id);
    m.cap = m.capacity_known && m.capacity ? m.capacity : m.extent;
    if (m.diff) {
      m.diffStatus = b64bytes(m.diff.status);
      const c = columns(b64bytes(m.diff.removed_list), 'memory ' + m.id + ' removed'), rm = {};
      readRanges(c, rm, m.diff.removed_drawn);
      c.done();
      m.rmOff = rm.off; m.rmSize = rm.size; m.rmInst = rm.inst;
    }
    m.view = [0, m.extent];
    if (m.history) decodeHistory(m);
  }

  // Typed arrays are little-endian on every platform a browser runs on;
  // the page checks rather than assumes (the strip's arrays are fixed-width).
  const LITTLE = new Uint8Array(new Uint32Array([1]).buffer)[0] === 1;
  // The time strip's arrays (html_page.cc, WriteHistory); the spans of its
  // moments wait in #rs-history, after the script, read once the document
  // is parsed (strip.js).
  function decodeHistory(m) {
    const h = m.history, b = h.buckets, n = h.shown;
    if (!LITTLE) throw new Error('big-endian browser: cannot read the time strip');
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
    const c = columns(b64bytes(o.allocations), 'memory ' + what);
    delete o.allocations;
    readAllocations(c, o, n);
    c.done();
    prefixSums(o, 0);
  }
  // Prefix sums from index `from` on (those before it kept): bytes (exact
  // below 2^53) and allocations not live.  o.pre and o.preRel hold n + 1
  // (allocated here when missing).
  function prefixSums(o, from) {
    const n = o.count;
    if (!o.pre) { o.pre = new Float64Array(n + 1); o.preRel = new Uint32Array(n + 1); }
    const pre = o.pre, preRel = o.preRel, size = o.size, bits = o.bits;
    let s = pre[from], r = preRel[from];
    for (let i = from; i < n; i++) {
      s += size[i];
      if ((bits[i] >> 3) & 3) r++;
      pre[i + 1] = s;
      preRel[i + 1] = r;
    }
  }
