#!/bin/sh
# tests/plot/check_plot.sh SCRIPT JSON OUTDIR - runs plot_memory.py on a
# small hand-written JSON and checks that a valid PNG (signature and IHDR
# chunk, non-trivial size) and an SVG come out.  Exit 77 (skipped) when
# /usr/bin/python3 has no matplotlib.
set -u
script=$1 json=$2 out=$3
if ! /usr/bin/python3 -c 'import matplotlib' 2>/dev/null; then
  echo "plot_memory skipped: /usr/bin/python3 has no matplotlib (apt-get install python3-matplotlib)"
  exit 77
fi
mkdir -p "$out"
rm -f "$out/plot.png" "$out/plot.svg"
"$script" --json "$json" -o "$out/plot.png" || exit 1
"$script" --json "$json" -o "$out/plot.svg" || exit 1
/usr/bin/python3 - "$out/plot.png" "$out/plot.svg" <<'PY' || exit 1
import struct, sys
png = open(sys.argv[1], "rb").read()
assert png[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG signature"
length, kind = struct.unpack(">I4s", png[8:16])
assert kind == b"IHDR" and length == 13, "no IHDR chunk"
w, h = struct.unpack(">II", png[16:24])
assert w >= 800 and h >= 200, "image too small: %dx%d" % (w, h)
assert png[-8:-4] == b"IEND", "no IEND chunk"
svg = open(sys.argv[2], encoding="utf-8").read()
assert "<svg" in svg and "GPU 0 framebuffer" in svg, "SVG lacks the memory title"
assert "fragmentation" in svg, "SVG lacks the failure cause"
print("png %dx%d, %d bytes; svg %d bytes" % (w, h, len(png), len(svg)))
PY
