  // page/format.js: numbers and text as a person reads them, by the rules
  // the command prints and reads them with (one table of test vectors,
  // tests/common/size_vectors.tsv, checks both sides):
  //  - sizes as FormatHumanSize (realm_shadow/core/text.h): below
  //    1 KiB "N B"; else binary units with at most three decimals, rounded
  //    half to even from the exact byte count, trailing zeros dropped
  //    ("7.875 MiB", "717.91 KiB"), never "1024 MiB";
  //  - offsets as plain decimal byte counts ("8257536"), as the report's
  //    ranges; instance and memory ids in hex;
  //  - typed sizes by the grammar of realm_shadow/core/text.h.
  // ---- formatting -----------------------------------------------------
  const UNITS = ['B', 'KiB', 'MiB', 'GiB', 'TiB', 'PiB', 'EiB'];
  // x / d rounded half to even, in BigInt.
  function divRoundEven(x, d) {
    const q = x / d, r = x % d;
    return 2n * r > d || (2n * r === d && q % 2n === 1n) ? q + 1n : q;
  }
  function humanExact(bytes) {  // bytes: a BigInt
    if (bytes < 1024n) return bytes + ' B';
    let unit = 0, scale = 1n;
    while (unit < UNITS.length - 1 && bytes >= scale * 1024n) { scale *= 1024n; unit++; }
    let thousandths = divRoundEven(bytes * 1000n, scale);
    if (thousandths === 1024000n && unit < UNITS.length - 1) {  // "1 GiB", not "1024 MiB"
      scale *= 1024n; unit++;
      thousandths = divRoundEven(bytes * 1000n, scale);
    }
    const whole = thousandths / 1000n, frac = String(thousandths % 1000n).padStart(3, '0').replace(/0+$/, '');
    return whole + (frac ? '.' + frac : '') + ' ' + UNITS[unit];
  }
  function human(b) {
    if (b == null) return 'unknown';
    if (typeof b === 'string') return humanExact(BigInt(b));  // an exact count past 2^53
    if (b < 0) return '-' + humanExact(BigInt(Math.round(-b)));
    return humanExact(BigInt(Math.round(b)));
  }
  // An offset or address: the decimal byte count, as the command prints.
  function offs(v) { return v == null ? 'none' : String(typeof v === 'string' ? v : Math.round(v)); }
  function instHex(lo, hi) {
    return '0x' + (hi ? hi.toString(16) + lo.toString(16).padStart(8, '0') : lo.toString(16));
  }
  function esc(s) {
    return String(s).replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' }[c]));
  }
  // The size grammar of core/text.h: "4096", "64K" (= 64 KiB), "1.5GiB",
  // "4 GB" (10^9), "0x1000".  Returns {bytes: BigInt} or {error: text}.
  function parseBytesExact(text) {
    const t = String(text).trim();
    const hex = /^0x([0-9a-f]*)$/i.exec(t);
    if (hex) {
      if (!hex[1]) return { error: 'not a size (hex bytes take no unit: 0x1000)' };
      const v = BigInt(t.toLowerCase());
      return v >= 1n << 64n ? { error: 'larger than 2^64 - 1 bytes' } : { bytes: v };
    }
    const m = /^([0-9]*)(?:\.([0-9]*))?\s*([a-z]*)$/i.exec(t);
    if (!m || !m[1]) return { error: 'not a size' };
    const whole = m[1], fraction = m[2];
    if (fraction === '') return { error: 'a point must have digits after it' };
    const unit = m[3].toLowerCase();
    let scale = 0n;
    if (unit === '' || unit === 'b') scale = 1n;
    else {
      const power = 'kmgtpe'.indexOf(unit[0]), rest = unit.slice(1);
      const base = rest === '' || rest === 'i' || rest === 'ib' ? 1024n : rest === 'b' ? 1000n : 0n;
      if (power >= 0 && base) scale = base ** BigInt(power + 1);
    }
    if (!scale) return { error: "unknown unit '" + m[3] + "'" };
    const digits = fraction || '';
    if (digits.length > 18) return { error: 'more than 18 digits after the point' };
    const den = 10n ** BigInt(digits.length), num = BigInt(digits || '0') * scale;
    if (num % den) return { error: 'not a whole number of bytes' };
    const bytes = BigInt(whole) * scale + num / den;
    return bytes >= 1n << 64n ? { error: 'larger than 2^64 - 1 bytes' } : { bytes };
  }
  // The page computes with doubles: a size past 2^53 is refused here.
  function parseBytes(text) {
    const r = parseBytesExact(text);
    return r.error || r.bytes > 1n << 53n ? null : Number(r.bytes);
  }
  function alignUp(v, a) { return a <= 1 ? v : Math.ceil(v / a) * a; }

