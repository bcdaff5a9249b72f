#!/usr/bin/env python3
"""Checks DumpToJson's output (on stdin) against docs/json-schema.md with
Python's own strict parser: every memory and record has its fields, with
the types the schema gives."""
import json
import sys

doc = json.load(sys.stdin, parse_constant=lambda c: sys.exit(f"bad constant {c}"))
assert doc["format"] == "realm-shadow", doc["format"]
assert doc["version"] == 2

assert isinstance(doc["node"], int) and isinstance(doc["notes"], list)
assert doc["notes"][1] == 'second "note"\n'

def hexid(v):
    assert isinstance(v, str) and v.startswith("0x"), v
    return int(v, 16)

# Integers past 2^53 are strings of their exact digits (a double would round
# 1732890000123456789 to ...768).
assert doc["created_unix_ns"] == "1732890000123456789", doc["created_unix_ns"]
pools = doc["pools"]
assert len(pools) == 1 and hexid(pools[0]["memory"]) == 0x1e00000000000000, pools
assert [s["size"] for s in pools[0]["suballocations"]] == [1024, 512], pools
assert pools[0]["suballocations"][1]["identity"] is None

def uint_or_null(v):
    assert v is None or (isinstance(v, int) and v >= 0), v

memories = doc["memories"]
assert [hexid(m["id"]) for m in memories] == [
    0x1e00000000000000, 0x1e00000000000001, 0x1e00000000000007]
fb = memories[0]
assert fb["name"] == 'GPU0 FB "main" \u03bb-\u20ac', fb["name"]
for m in memories:
    for key in ("kind", "name", "node", "capacity", "addressed", "sequence",
                "exact", "allocations", "holes", "pending", "reservations",
                "failures", "stats", "usage_by_kind", "counters", "anomalies"):
        assert key in m, key
    uint_or_null(m["capacity"])
    for a in m["allocations"]:
        hexid(a["instance"])
        assert a["state"] in ("live", "release_pending", "release_ready")
        assert isinstance(a["pinned"], bool) and isinstance(a["flags"], list)
        assert a["identity"] is None or isinstance(a["identity"], dict)
    for h in m["holes"]:
        assert h["size"] > 0
    for p in m["pending"]:
        uint_or_null(p["planned_offset"])
    for f in m["failures"]:
        assert f["cause"] in (None, "fits", "fragmentation", "exhaustion")
        assert f["blockers"] is None or isinstance(f["blockers"]["allocations"], list)
    stats = m["stats"]
    assert len(stats["hole_histogram"]) == 64
    assert sum(stats["hole_histogram"]) == stats["hole_count"] == len(m["holes"])
    assert stats["total_free"] == sum(h["size"] for h in m["holes"]) or m["addressed"]
    assert 0 <= stats["fragmentation"] <= 1

assert memories[1]["capacity"] is None
assert fb["allocations"][0]["identity"]["regions"] == "lr[0] \U0001F600"
assert fb["allocations"][2]["identity"]["creator"] == "task \x01\x7f bad \ufffd\ufffd utf8"
assert fb["failures"][0]["cause"] == "fragmentation"
blockers = fb["failures"][0]["blockers"]
assert blockers["found"] and blockers["bytes_to_free"] == 16384, blockers
assert [hexid(b["instance"]) for b in blockers["allocations"]] == [0x4000000000000003]
print(f"ok: {len(memories)} memories, {sum(len(m['allocations']) for m in memories)} allocations")
