#!/usr/bin/env python3
"""Checks a Chrome / Perfetto trace-event JSON file against the format's rules.

usage: check_trace.py TRACE.json [--span-us LO HI] [--lives N] [--failures N]

The rules (Trace Event Format, the JSON object form that ui.perfetto.dev and
chrome://tracing read):
  - the file is an object with a "traceEvents" array;
  - every event has a non-empty "name", a known "ph", integer "pid" and
    "tid", and, except metadata ("M"), a numeric "ts" >= 0 in microseconds
    (at most three decimals: nanosecond resolution);
  - "C" (counter) events have an "args" object of finite numbers;
  - async events "b", "n", "e" have a "cat" and an "id"; with (pid, cat,
    name, id) as the key, a "b" opens a slice that is not open, "n" and "e"
    fall inside an open one, an "e" is not earlier than its "b", and no
    slice is left open at the end;
  - "i" (instant) events have a scope "s" of g, p or t;
  - "M" events are process_name / thread_name (args.name, a string) or
    process_sort_index / thread_sort_index (args.sort_index, an integer),
    and every pid used has a process_name, every (pid, tid) a thread_name.
--span-us checks that the times span between LO and HI microseconds (the
unit is microseconds, not ns or s); --lives and --failures check how many
slices and failure instants there are.  Prints one line; exits 1 on the
first broken rule.  Python 3 standard library only.
"""
import json
import math
import sys

PHASES = {"B", "E", "X", "i", "I", "C", "b", "n", "e", "M", "s", "t", "f"}


def fail(message):
    print("trace check failed: " + message)
    sys.exit(1)


def main(argv):
    if len(argv) < 2:
        fail("usage: check_trace.py TRACE.json [--span-us LO HI] "
             "[--lives N] [--failures N]")
    path = argv[1]
    span = None
    want_lives = want_failures = None
    i = 2
    while i < len(argv):
        if argv[i] == "--span-us":
            span = (float(argv[i + 1]), float(argv[i + 2]))
            i += 3
        elif argv[i] == "--lives":
            want_lives = int(argv[i + 1])
            i += 2
        elif argv[i] == "--failures":
            want_failures = int(argv[i + 1])
            i += 2
        else:
            fail("unknown option " + argv[i])
    with open(path, encoding="utf-8") as f:
        trace = json.load(f)
    if not isinstance(trace, dict) or not isinstance(trace.get("traceEvents"), list):
        fail("not an object with a traceEvents array")
    events = trace["traceEvents"]
    open_slices = {}
    process_names, thread_names = set(), set()
    used_pids, used_threads = set(), set()
    lives = failures = 0
    lo = hi = None
    for k, e in enumerate(events):
        where = "event %d (%s)" % (k, json.dumps(e)[:160])
        if not isinstance(e, dict):
            fail(where + ": not an object")
        ph = e.get("ph")
        if ph not in PHASES:
            fail(where + ": unknown ph %r" % (ph,))
        if not isinstance(e.get("name"), str) or not e["name"]:
            fail(where + ": no name")
        for key in ("pid", "tid"):
            if not isinstance(e.get(key), int) or isinstance(e.get(key), bool):
                fail(where + ": %s is not an integer" % key)
        if ph == "M":
            args = e.get("args")
            if not isinstance(args, dict):
                fail(where + ": metadata without args")
            if e["name"] in ("process_name", "thread_name"):
                if not isinstance(args.get("name"), str):
                    fail(where + ": args.name is not a string")
                if e["name"] == "process_name":
                    process_names.add(e["pid"])
                else:
                    thread_names.add((e["pid"], e["tid"]))
            elif e["name"] in ("process_sort_index", "thread_sort_index"):
                if not isinstance(args.get("sort_index"), int):
                    fail(where + ": args.sort_index is not an integer")
            else:
                fail(where + ": unknown metadata " + e["name"])
            continue
        ts = e.get("ts")
        if not isinstance(ts, (int, float)) or isinstance(ts, bool) or ts < 0 \
                or not math.isfinite(ts):
            fail(where + ": ts is not a number >= 0")
        if abs(round(ts * 1000) - ts * 1000) > 1e-3 * max(1.0, ts):
            fail(where + ": ts has more than three decimals (not microseconds)")
        lo = ts if lo is None else min(lo, ts)
        hi = ts if hi is None else max(hi, ts)
        used_pids.add(e["pid"])
        used_threads.add((e["pid"], e["tid"]))
        if ph == "C":
            args = e.get("args")
            if not isinstance(args, dict) or not args:
                fail(where + ": counter without args")
            for name, value in args.items():
                if not isinstance(value, (int, float)) or isinstance(value, bool) \
                        or not math.isfinite(value):
                    fail(where + ": counter %s is not a finite number" % name)
        elif ph in ("b", "n", "e"):
            if not isinstance(e.get("cat"), str) or "id" not in e:
                fail(where + ": async event without cat or id")
            key = (e["pid"], e["cat"], e["name"], str(e["id"]))
            if ph == "b":
                if key in open_slices:
                    fail(where + ": slice %r opened twice" % (key,))
                open_slices[key] = ts
                lives += 1
            elif key not in open_slices:
                fail(where + ": %s of slice %r that is not open" % (ph, key))
            elif ts < open_slices[key]:
                fail(where + ": %s at %s before its b at %s" % (ph, ts, open_slices[key]))
            elif ph == "e":
                del open_slices[key]
        elif ph in ("i", "I"):
            if e.get("s", "t") not in ("g", "p", "t"):
                fail(where + ": instant scope %r" % (e.get("s"),))
            if e.get("cat") == "failure":
                failures += 1
    if open_slices:
        fail("%d slice(s) never end, e.g. %r" % (len(open_slices), next(iter(open_slices))))
    missing = used_pids - process_names
    if missing:
        fail("pid(s) %s have no process_name" % sorted(missing))
    missing = {t for t in used_threads if t not in thread_names}
    if missing:
        fail("thread(s) %s have no thread_name" % sorted(missing))
    if span is not None:
        got = (hi - lo) if lo is not None else 0.0
        if not span[0] <= got <= span[1]:
            fail("times span %.3f us, expected %s to %s us" % (got, span[0], span[1]))
    if want_lives is not None and lives != want_lives:
        fail("%d slices, expected %d" % (lives, want_lives))
    if want_failures is not None and failures != want_failures:
        fail("%d failure instants, expected %d" % (failures, want_failures))
    print("trace ok: %d events, %d slices, %d failure(s), span %.3f us" %
          (len(events), lives, failures, (hi - lo) if lo is not None else 0.0))


if __name__ == "__main__":
    main(sys.argv)
