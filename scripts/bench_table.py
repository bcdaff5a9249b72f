#!/usr/bin/env python3
"""Turns realm_shadow_bench's Google Benchmark JSON into the figures table.

Usage: bench_table.py BENCH_JSON [--instructions FILE] [--json OUT]
                      [--markdown OUT]

Reads the median aggregates (scripts/bench runs with --benchmark_repetitions
and --benchmark_report_aggregates_only), computes every figure and ratio of
docs/benchmarks.md, checks them against the performance targets (the list at
the end of main: hot path, snapshots, ingest, history, replay; the README's
table and docs/benchmarks.md show them), and prints one markdown table.
Standard library only.
"""
import argparse
import json
import sys

UNIT_NS = {"ns": 1.0, "us": 1e3, "ms": 1e6, "s": 1e9}


def load_medians(path):
    with open(path) as f:
        data = json.load(f)
    medians = {}
    for b in data.get("benchmarks", []):
        if b.get("run_type") == "aggregate" and b.get("aggregate_name") != "median":
            continue
        name = b.get("run_name", b["name"])
        for suffix in ("/manual_time", "/real_time"):
            name = name.replace(suffix, "")
        name = name.replace("/iterations:1", "")
        b["real_ns"] = b["real_time"] * UNIT_NS[b.get("time_unit", "ns")]
        medians[name] = b
    return data.get("context", {}), medians


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("bench_json")
    ap.add_argument("--instructions")
    ap.add_argument("--json")
    ap.add_argument("--markdown")
    args = ap.parse_args()
    context, m = load_medians(args.bench_json)

    rows = []      # (section, figure, value text)
    figures = {}   # key -> number
    missing = []

    def get(name):
        b = m.get(name)
        if b is None:
            missing.append(name)
        return b

    def per_item_ns(name, per_writer=False):
        b = get(name)
        if b is None or not b.get("items_per_second"):
            return None
        ns = 1e9 / b["items_per_second"]
        if per_writer:
            ns *= b.get("writers", 1)
        return ns

    def add(section, key, label, value, fmt):
        figures[key] = value
        rows.append((section, label, "n/a" if value is None else fmt.format(value)))

    def ratio(a, b):
        return None if a is None or b is None or b == 0 else a / b

    # 1. allocator overhead (ns per Create+Destroy step, 3 events a step)
    for live, tag in ((1000, "1k"), (100000, "100k")):
        out = per_item_ns(f"BM_Model_CompiledOut/{live}")
        off = per_item_ns(f"BM_Model_SwitchedOff/{live}")
        on = per_item_ns(f"BM_Model_Tracked/{live}")
        s = "1. model allocator"
        add(s, f"model_{tag}_compiled_out_ns", f"create+destroy, {tag} live, tracking compiled out (ns/step)", out, "{:.0f}")
        add(s, f"model_{tag}_switched_off_ns", f"  compiled in, switched off (ns/step)", off, "{:.0f}")
        add(s, f"model_{tag}_tracked_ns", f"  tracked (ns/step)", on, "{:.0f}")
        add(s, f"model_{tag}_off_ratio", f"  switched off / compiled out", ratio(off, out), "{:.3f}x")
        add(s, f"model_{tag}_tracked_ratio", f"  tracked / compiled out", ratio(on, out), "{:.3f}x")
        add(s, f"model_{tag}_added_ns_per_event", f"  ns added per event (3 events/step)",
            None if on is None or out is None else (on - out) / 3, "{:+.1f}")
        b = m.get(f"BM_Model_Tracked/{live}")
        if b is not None:
            add(s, f"model_{tag}_journal_overflows", "  journal overflows (writer drained)", b.get("journal_overflows"), "{:.0f}")
        # The paired figure (batches alternating back to back) is the one
        # the target reads: separate benchmarks drift with the machine.
        for mode, key, what in ((0, "paired_ratio", "decision hooks, serialized"),
                                (1, "paired_concurrent_ratio", "decision hooks, concurrent"),
                                (2, "paired_heap_ratio", "heap observed, concurrent (Realm's registration)")):
            p = get(f"BM_Model_Paired/{live}/{mode}/min_time:0.500")
            add(s, f"model_{tag}_{key}",
                f"  paired, {what}: tracked / compiled out, median of {p.get('pairs', 0):.0f} pairs" if p else f"  paired, {what}: tracked / compiled out",
                None if p is None else p.get("tracked_over_compiled_out"), "{:.3f}x")

    # 2. record cost
    s = "2. record cost"
    ser1k = per_item_ns("BM_Hook_Serialized/1000")
    ser = per_item_ns("BM_Hook_Serialized/100000")
    add(s, "hook_serialized_ns", "hook, caller-serialized (ns/event, 100k live)", ser, "{:.2f}")
    add(s, "hook_serialized_1k_ns", "hook, caller-serialized (ns/event, 1k live)", ser1k, "{:.2f}")
    b = m.get("BM_Hook_Serialized/100000")
    add(s, "hook_serialized_overflows", "  journal overflows during the run", None if b is None else b.get("journal_overflows"), "{:.0f}")
    add(s, "hook_switched_off_ns", "hook, switched off (ns/event)", per_item_ns("BM_Hook_SwitchedOff/100000"), "{:.2f}")
    add(s, "harness_ns", "  loop + event generation alone (ns/event, included above)", per_item_ns("BM_Harness"), "{:.2f}")
    conc = per_item_ns("BM_Hook_Concurrent/100000/threads:2", per_writer=True)
    add(s, "hook_concurrent_ns", "hook, 2 unserialized writers on one memory (ns/event per writer)", conc, "{:.2f}")
    add(s, "hook_concurrent_aggregate_ns", "  both writers together (ns/event, wall)", per_item_ns("BM_Hook_Concurrent/100000/threads:2"), "{:.2f}")
    instr = None
    if args.instructions:
        try:
            with open(args.instructions) as f:
                for line in f:
                    # "instructions per event (hooks, serialized): 26.53 (bound 30)"
                    if line.startswith("instructions per event") and "hooks," in line or line.startswith("instructions per event:"):
                        instr = float(line.split(":")[1].split()[0])
        except OSError:
            pass
    add(s, "hook_instructions", "instructions per event, caller-serialized (callgrind)", instr, "{:.2f}")

    # 3. baselines
    s = "3. baselines"
    for live, tag in ((1000, "1k"), (100000, "100k")):
        ours = per_item_ns(f"BM_Hook_Serialized/{live}")
        smap = per_item_ns(f"BM_Baseline_SharedMutexStdMap/{live}")
        btree = per_item_ns(f"BM_Baseline_MutexAbslBtree/{live}")
        add(s, f"baseline_shared_mutex_map_{tag}_ns", f"shared_mutex + std::map, {tag} live (ns/event)", smap, "{:.1f}")
        add(s, f"baseline_mutex_btree_{tag}_ns", f"mutex + absl::btree_map, {tag} live (ns/event)", btree, "{:.1f}")
        add(s, f"cheaper_than_map_{tag}", f"  ours is cheaper than shared_mutex+std::map by", ratio(smap, ours), "{:.0f}x")
        add(s, f"cheaper_than_btree_{tag}", f"  ours is cheaper than mutex+btree_map by", ratio(btree, ours), "{:.0f}x")

    # 4. snapshot and dump
    s = "4. snapshot / dump"
    for live, tag in ((1000, "1k"), (10000, "10k"), (100000, "100k"), (1000000, "1M")):
        snap = get(f"BM_Snapshot/{live}")
        cpy = get(f"BM_Memcpy/{live}")
        dump = get(f"BM_DumpMemoryState/{live}")
        sn = snap["real_ns"] / 1e3 if snap else None
        cp = cpy["real_ns"] / 1e3 if cpy else None
        fresh = get(f"BM_SnapshotFresh/{live}")
        add(s, f"snapshot_{tag}_us", f"snapshot, {tag} live, into a reused Snapshot (us)", sn, "{:.1f}")
        add(s, f"snapshot_fresh_{tag}_us", f"  into a new Snapshot (us)", None if fresh is None else fresh["real_ns"] / 1e3, "{:.1f}")
        add(s, f"memcpy_{tag}_us", f"  memcpy of {live * 32} B (us)", cp, "{:.1f}")
        add(s, f"snapshot_memcpy_ratio_{tag}", f"  snapshot / memcpy", ratio(sn, cp), "{:.2f}x")
        add(s, f"dump_{tag}_us", f"  DumpMemoryState to a file (us)", None if dump is None else dump["real_ns"] / 1e3, "{:.0f}")
    for live, tag in ((1000, "1k"), (100000, "100k"), (1000000, "1M")):
        add(s, f"drain_{tag}_ns", f"drain (apply journal), {tag} live (ns/event, consumer side)", per_item_ns(f"BM_Drain/{live}"), "{:.0f}")
    b = m.get("BM_SerializeDump/100000")
    add(s, "serialize_100k_us", "serialize a dump of 100k in memory (us)", None if b is None else b["real_ns"] / 1e3, "{:.0f}")

    # 5. latency
    s = "5. writer latency"
    lat = {}
    for arg, tag in ((0, "alone"), (1, "snapshots")):
        b = get(f"BM_WriterLatency/snapshots:{arg}")
        lat[tag] = b
        for q in ("p50", "p99", "p999"):
            add(s, f"latency_{tag}_{q}_ns", f"hook latency {q.replace('p999', 'p99.9')}, {'with a thread snapshotting in a loop' if arg else 'alone'} (ns)",
                None if b is None else b.get(f"{q}_ns"), "{:.0f}")
        if b is not None:
            add(s, f"latency_{tag}_overflows", "  journal overflows", b.get("journal_overflows"), "{:.0f}")
    if lat.get("snapshots") is not None:
        add(s, "latency_snapshots_taken", "  snapshots of 100k taken during the 200k events", lat["snapshots"].get("snapshots"), "{:.0f}")
    if lat.get("alone") is not None:
        add(s, "clock_overhead_ns", "  clock (lfence; rdtsc; lfence pair) overhead, included (ns)", lat["alone"].get("clock_overhead_ns"), "{:.0f}")
    p999_ratio = None
    if lat.get("alone") and lat.get("snapshots"):
        p999_ratio = ratio(lat["snapshots"].get("p999_ns"), lat["alone"].get("p999_ns"))
    add(s, "latency_p999_ratio", "  p99.9 with snapshots / alone", p999_ratio, "{:.2f}x")

    # 6. analysis
    s = "6. analysis, 1M live"
    for name, key, label in (("BM_FindHoles", "find_holes_ms", "FindHoles (ms)"),
                             ("BM_TopHoles", "top_holes_ms", "TopHoles k=16 of the holes (ms)"),
                             ("BM_Summarize", "summarize_ms", "Summarize (ms)"),
                             ("BM_FindBlockers/fewest_allocations:0", "find_blockers_bytes_ms", "FindBlockers 64 KiB, fewest bytes (ms)"),
                             ("BM_FindBlockers/fewest_allocations:1", "find_blockers_count_ms", "FindBlockers 64 KiB, fewest allocations (ms)")):
        b = get(name)
        add(s, key, label, None if b is None else b["real_ns"] / 1e6, "{:.2f}")

    # 7. end to end
    s = "7. end to end"
    b = m.get("BM_DumpMemoryState/100000")
    add(s, "dump_file_100k_ms", "write a dump file of 100k allocations (ms)", None if b is None else b["real_ns"] / 1e6, "{:.2f}")
    b = m.get("BM_IngestRealmLog")
    add(s, "ingest_lines_per_s", "ingest-realm-log reader (lines/s)", None if b is None else b.get("items_per_second"), "{:,.0f}")
    add(s, "ingest_mb_per_s", "  (MB/s)", None if b is None else b.get("bytes_per_second", 0) / 1e6, "{:.0f}")
    for threads, label in (("0", "in parallel"), ("1", "one after the other")):
        b = m.get("BM_IngestRankLogs/threads:" + threads)
        add(s, "ingest_ranks_lines_per_s_t" + threads,
            "ingest-realm-log, 4 rank logs with Legion Spy lines to a dump, " + label + " (lines/s)",
            None if b is None else b.get("items_per_second"), "{:,.0f}")
    # On a loaded machine the wall clock shows the share of the cores left;
    # one thread's CPU time is the work itself.
    b = m.get("BM_IngestRankLogs/threads:1")
    cpu_s = None if b is None else b["cpu_time"] * UNIT_NS[b.get("time_unit", "ns")] / 1e9
    add(s, "ingest_ranks_lines_per_cpu_s_t1", "  one after the other, per second of one core's CPU time (lines/s)",
        None if not cpu_s else b.get("lines", 0) / cpu_s, "{:,.0f}")

    # 8. history: what keeping it adds to the consumer, its
    # bytes, and `at` / `trace` on large histories.  The page's figures
    # (first render, scrub step) come from tests/browser/map_perf.mjs.
    s = "8. history"
    for live, tag in ((1000, "1k"), (100000, "100k"), (1000000, "1M")):
        off = per_item_ns(f"BM_Drain/{live}")
        on = per_item_ns(f"BM_DrainWithHistory/{live}")
        add(s, f"drain_history_{tag}_ns", f"drain with the default history, {tag} live (ns/event)", on, "{:.0f}")
        add(s, f"history_added_{tag}_pct", f"  added to the drain without history", None if on is None or off is None or off == 0 else (on / off - 1) * 100, "{:+.1f}%")
        b = m.get(f"BM_DrainWithHistory/{live}")
        add(s, f"history_bytes_per_event_{tag}", f"  history bytes per event kept, checkpoints included ({tag} live)",
            None if b is None else b.get("history_bytes_per_event"), "{:.1f}")
    for live, tag in ((10000, "10k"), (100000, "100k")):
        b = get(f"BM_AtOf10MEvents/{live}/iterations:5")
        add(s, f"at_10m_{tag}_s", f"at on a history of 10M events, {tag} live (s, whole command)", None if b is None else b["real_ns"] / 1e9, "{:.2f}")
        add(s, f"at_10m_{tag}_cpu_s", f"  CPU (s)", None if b is None else b["cpu_time"] * UNIT_NS[b.get("time_unit", "ns")] / 1e9, "{:.2f}")
        add(s, f"at_10m_{tag}_dump_mb", f"  dump (MB; at reads one segment of it)", None if b is None else b.get("dump_MB"), "{:.0f}")
    b = get("BM_TraceOf1MLives/iterations:3")
    add(s, "trace_1m_s", "trace of 1M allocation lives (s)", None if b is None else b["real_ns"] / 1e9, "{:.2f}")
    add(s, "trace_1m_cpu_s", "  CPU (s)", None if b is None else b["cpu_time"] * UNIT_NS[b.get("time_unit", "ns")] / 1e9, "{:.2f}")
    add(s, "trace_1m_mb", "  trace file (MB)", None if b is None else b.get("trace_MB"), "{:.0f}")

    # 8. what-if replay (bench/replay_benchmark.cc): events/s in the
    # thread's CPU time, 100k live; the capacity search's seconds (CPU).
    s = "8. replay, 100k live"
    for arg, name in ((0, "realm"), (1, "best_fit")):
        b = m.get(f"BM_Replay/{arg}")
        add(s, f"replay_{name}_events_per_s", f"replay under {name.replace('_', '-')} (M events/s, CPU)",
            None if b is None else b.get("events_per_s", 0) / 1e6, "{:.2f}")
    for arg, name in ((0, "realm"), (1, "best_fit")):
        b = m.get(f"BM_MinCapacity/{arg}")
        cpu_s = None if b is None else b["cpu_time"] * UNIT_NS[b.get("time_unit", "ns")] / 1e9
        add(s, f"min_capacity_{name}_s", f"--min-capacity, 1M events, {name.replace('_', '-')} (s CPU)", cpu_s, "{:.1f}")

    # targets
    def target(label, value, bound, fmt, ok):
        met = None if value is None else ok(value, bound)
        return {"target": label, "value": value, "bound": bound,
                "met": met, "text": "n/a" if value is None else fmt.format(value)}

    le = lambda v, b: v <= b
    ge = lambda v, b: v >= b
    targets = [
        target("added cost on model create+destroy at 100k live <= 5%",
               None if figures.get("model_100k_paired_ratio") is None else (figures["model_100k_paired_ratio"] - 1) * 100,
               5.0, "{:+.2f}%", le),
        target("record <= 5 ns per event, caller-serialized", figures.get("hook_serialized_ns"), 5.0, "{:.2f} ns", le),
        target("record <= 30 instructions per event, caller-serialized", figures.get("hook_instructions"), 30.0, "{:.1f}", le),
        target(">= 20x cheaper than shared_mutex + std::map (100k live)", figures.get("cheaper_than_map_100k"), 20.0, "{:.0f}x", ge),
        target("snapshot of 100k live <= 2x memcpy of the same bytes", figures.get("snapshot_memcpy_ratio_100k"), 2.0, "{:.2f}x", le),
        target("writer p99.9 during snapshots <= 2x without", figures.get("latency_p999_ratio"), 2.0, "{:.2f}x", le),
        target("ingest with Legion Spy lines, several rank logs in parallel >= 2M lines/s",
               figures.get("ingest_ranks_lines_per_s_t0"), 2e6, "{:,.0f} lines/s", ge),
        target("history on adds <= 10% to the consumer per event (100k live)", figures.get("history_added_100k_pct"), 10.0, "{:+.1f}%", le),
        target("at on a history of 10M events <= 0.5 s (100k live)", figures.get("at_10m_100k_s"), 0.5, "{:.2f} s", le),
        target("trace of 1M instances <= 2 s", figures.get("trace_1m_s"), 2.0, "{:.2f} s", le),
        target("replay >= 5M events/s under realm, 100k live", figures.get("replay_realm_events_per_s"), 5.0, "{:.2f}M", ge),
        target("replay >= 5M events/s under best-fit, 100k live", figures.get("replay_best_fit_events_per_s"), 5.0, "{:.2f}M", ge),
        target("--min-capacity on 1M events <= 10 s (realm)", figures.get("min_capacity_realm_s"), 10.0, "{:.1f} s", le),
    ]

    lines = []
    lines.append("| section | figure | value |")
    lines.append("| --- | --- | --- |")
    last = None
    for section, label, value in rows:
        lines.append(f"| {section if section != last else ''} | {label} | {value} |")
        last = section
    lines.append("")
    lines.append("| target | measured | met |")
    lines.append("| --- | --- | --- |")
    for t in targets:
        met = "n/a" if t["met"] is None else ("yes" if t["met"] else "**no**")
        lines.append(f"| {t['target']} | {t['text']} | {met} |")
    table = "\n".join(lines) + "\n"
    print(table)
    if missing:
        print("not in this run: " + ", ".join(sorted(set(missing))), file=sys.stderr)

    if args.markdown:
        with open(args.markdown, "w") as f:
            f.write(table)
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"context": context, "figures": figures, "targets": targets,
                       "missing": sorted(set(missing))}, f, indent=2)
    return 0


if __name__ == "__main__":
    sys.exit(main())
