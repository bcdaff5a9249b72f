#!/usr/bin/python3
"""Static memory map of a realm-shadow dump, as PNG or SVG.

One row per memory: the address axis from 0 to capacity, allocations as
blocks colored by kind (release-pending ones hatched, pinned ones with a dark
foot), holes left empty, the largest holes annotated with their size,
pending requests and range reservations in a lane under the row, and the
most recent failure written under it with its blocker window outlined.

Reads the JSON of docs/json-schema.md, either by running
`realm-shadow json DUMP` or from a file given with --json.  Needs only
Debian's python3-matplotlib (hence /usr/bin/python3).

  scripts/plot_memory.py DUMP -o map.png
  scripts/plot_memory.py --json dump.json -o map.svg
"""
import argparse
import json
import subprocess
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
from matplotlib.collections import PolyCollection  # noqa: E402
from matplotlib.patches import Patch, Rectangle  # noqa: E402

KIND_COLORS = {
    "unknown": "#9aa5b1", "region_instance": "#3b82c4",
    "deferred_buffer": "#14a38b", "deferred_value": "#8bc34a",
    "future": "#e0a526", "pool_backing": "#8e6cc2",
    "pool_suballocation": "#c26cb0", "external": "#a0522d",
}
UNITS = ["B", "KiB", "MiB", "GiB", "TiB", "PiB"]


def human(n):
    if n is None:
        return "unknown"
    v, u = float(n), 0
    while abs(v) >= 1024 and u < len(UNITS) - 1:
        v /= 1024
        u += 1
    return "%d B" % v if u == 0 else "%.3g %s" % (v, UNITS[u])


def as_int(v):
    """Offsets and ids may be numbers or hex strings."""
    if v is None:
        return None
    if isinstance(v, str):
        return int(v, 0)
    return int(v)


def load(args):
    if args.json:
        with open(args.json, encoding="utf-8") as f:
            return json.load(f)
    if not args.dump:
        sys.exit("plot_memory.py: give a dump file, or --json FILE")
    try:
        out = subprocess.run([args.realm_shadow, "json", args.dump],
                             check=True, capture_output=True, text=True)
    except FileNotFoundError:
        sys.exit("plot_memory.py: cannot run %s (use --realm-shadow PATH)"
                 % args.realm_shadow)
    except subprocess.CalledProcessError as e:
        sys.exit("plot_memory.py: realm-shadow json failed: %s"
                 % e.stderr.strip())
    return json.loads(out.stdout)


def memories_of(doc):
    if isinstance(doc, dict) and "memories" in doc:
        return doc["memories"]
    if isinstance(doc, dict) and "dumps" in doc:  # several files in one
        return [m for d in doc["dumps"] for m in d.get("memories", [])]
    sys.exit("plot_memory.py: no 'memories' in the JSON")


def extent_of(mem):
    cap = mem.get("capacity")
    end = max([as_int(a["offset"]) + as_int(a["size"])
               for a in mem.get("allocations", [])] or [0])
    return max(as_int(cap) or 0, end, 1)


def plot(memories, out, top_holes, width):
    rows = len(memories)
    fig, axes = plt.subplots(rows, 1, figsize=(width, 1.55 * rows + 0.9),
                             squeeze=False)
    kinds_seen = set()
    for ax, mem in zip(axes[:, 0], memories):
        extent = extent_of(mem)
        cap = mem.get("capacity")
        ax.set_xlim(0, extent)
        ax.set_ylim(-0.55, 1.05)
        ax.set_yticks([])
        for side in ("top", "right", "left"):
            ax.spines[side].set_visible(False)
        ax.add_patch(Rectangle((0, 0), as_int(cap) or extent, 1,
                               facecolor="white", edgecolor="#c3ccd6"))
        # Blocks as one PolyCollection per kind: tens of thousands of
        # rectangles draw in a second or two, one Rectangle each would not.
        polys, hatched, pinned = {}, [], []
        for a in mem.get("allocations", []):
            o, s = as_int(a["offset"]), as_int(a["size"])
            if s <= 0:
                continue
            kind = a.get("kind", "unknown")
            kinds_seen.add(kind)
            polys.setdefault(kind, []).append(
                [(o, 0), (o + s, 0), (o + s, 1), (o, 1)])
            if a.get("state", "live") != "live":
                hatched.append((o, s))
            if a.get("pinned"):
                pinned.append((o, s))
        for kind, p in polys.items():
            ax.add_collection(PolyCollection(
                p, facecolors=KIND_COLORS.get(kind, "#9aa5b1"),
                edgecolors="none"))
        for o, s in hatched:
            ax.add_patch(Rectangle((o, 0), s, 1, fill=False, hatch="////",
                                   edgecolor="white", linewidth=0))
        for o, s in pinned:
            ax.add_patch(Rectangle((o, 0), s, 0.1, color="#333333"))
        # largest holes, annotated
        holes = sorted(mem.get("holes", []),
                       key=lambda h: (-as_int(h["size"]), as_int(h["offset"])))
        for h in holes[:top_holes]:
            o, s = as_int(h["offset"]), as_int(h["size"])
            ax.annotate(human(s), (o + s / 2, 0.5), ha="center", va="center",
                        fontsize=7, color="#334155")
        # lane: pending requests and reservations
        for p in mem.get("pending", []):
            o = as_int(p.get("planned_offset"))
            if o is not None and o < 2 ** 63:
                ax.add_patch(Rectangle((o, -0.22), as_int(p["size"]), 0.18,
                                       facecolor="none", edgecolor="#f08c00",
                                       hatch="////", linestyle="--"))
        for r in mem.get("reservations", []):
            o = as_int(r.get("offset"))
            if o is not None and o < 2 ** 63:
                ax.add_patch(Rectangle((o, -0.42), as_int(r["size"]), 0.18,
                                       facecolor="none", edgecolor="#6b46c1",
                                       hatch="xxxx"))
        stats = mem.get("stats", {})
        title = "%s  %s %s  capacity %s  used %s  largest hole %s  " \
                "fragmentation %.2f" % (
                    mem.get("name", ""), mem.get("kind", ""), mem.get("id", ""),
                    human(as_int(cap)), human(stats.get("used")),
                    human(stats.get("largest_hole")),
                    float(stats.get("fragmentation") or 0))
        ax.set_title(title, fontsize=9, loc="left")
        failures = mem.get("failures", [])
        if failures:
            f = failures[-1]
            text = "failed: %s of %s (align %s), %s" % (
                f.get("instance"), human(as_int(f.get("size"))),
                human(as_int(f.get("alignment"))), f.get("cause", "?"))
            b = f.get("blockers") or {}
            if b.get("found") and not b.get("fits_already"):
                w0, w1 = as_int(b["window_offset"]), as_int(b["window_end"])
                ax.add_patch(Rectangle((w0, 0), w1 - w0, 1, fill=False,
                                       edgecolor="#d62828", linewidth=2))
                text += "; release %s in [%s, %s)" % (
                    human(as_int(b.get("bytes_to_free"))), hex(w0), hex(w1))
            ax.text(0, -0.52, text, fontsize=8, color="#d62828", va="bottom")
        # binary ticks: a power-of-two step giving at most 8 intervals
        step = 1
        while step * 8 < extent:
            step *= 2
        ticks = list(range(0, extent + 1, step))
        ax.set_xticks(ticks)
        ax.set_xticklabels([human(t) for t in ticks], fontsize=7)
    handles = [Patch(color=KIND_COLORS.get(k, "#9aa5b1"), label=k)
               for k in sorted(kinds_seen)]
    handles += [Patch(facecolor="white", edgecolor="#c3ccd6", label="hole"),
                Patch(facecolor="none", edgecolor="#f08c00", hatch="////",
                      label="pending request"),
                Patch(facecolor="none", edgecolor="#6b46c1", hatch="xxxx",
                      label="reservation")]
    fig.legend(handles=handles, loc="lower center", ncol=min(8, len(handles)),
               fontsize=7, frameon=False)
    fig.tight_layout(rect=(0, 0.06, 1, 1))
    fig.savefig(out, dpi=130)
    plt.close(fig)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("dump", nargs="?", help="a realm-shadow dump file")
    ap.add_argument("--json", help="read this JSON instead of running "
                    "realm-shadow json")
    ap.add_argument("--realm-shadow", default="build/bin/realm-shadow",
                    help="the realm-shadow binary (default %(default)s)")
    ap.add_argument("-o", "--output", default="memory_map.png",
                    help="PNG or SVG, by extension (default %(default)s)")
    ap.add_argument("--top-holes", type=int, default=3,
                    help="annotate this many largest holes per memory")
    ap.add_argument("--width", type=float, default=12, help="inches")
    args = ap.parse_args()
    memories = memories_of(load(args))
    if not memories:
        sys.exit("plot_memory.py: the dump has no memories")
    plot(memories, args.output, args.top_holes, args.width)
    print(args.output)


if __name__ == "__main__":
    main()
