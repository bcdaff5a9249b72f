#!/usr/bin/env python3
"""The oracle catches what it should: on a kept run, an altered truth (an
offset moved, a waiting request dropped, a failure added) makes the checks
that compare the log's rebuild with it fail, and the run as kept passes the
same checks where nothing was altered.

usage: oracle_selftest.py LEGION_ORACLE KEPT_DIR REALM_SHADOW WORK_DIR
"""
import gzip
import os
import re
import shutil
import sys
import tempfile
from importlib.machinery import SourceFileLoader


def main(argv):
    oracle_path, kept, cli, work = argv[1:5]
    oracle = SourceFileLoader("legion_oracle", oracle_path).load_module()
    tools = oracle.Tools(os.path.abspath(cli))
    seeds = sorted(int(n.split(".")[0]) for n in os.listdir(kept)
                   if n.endswith(".truth.txt.gz"))
    tmp = tempfile.mkdtemp(prefix="oracle-selftest-", dir=work)
    failures = []
    try:
        truth_text = log_text = None
        # a kept run with a checkpoint holding a plain (not redistricted)
        # allocation of some size, and a waiting request
        for seed in seeds:
            with gzip.open(os.path.join(kept, "%d.truth.txt.gz" % seed),
                           "rt") as fh:
                truth_text = fh.read()
            if re.search(r"^WAIT .* why=precondition", truth_text, re.M):
                with gzip.open(os.path.join(kept, "%d.run.log.gz" % seed),
                               "rt") as fh:
                    log_text = fh.read()
                break
        if log_text is None:
            print("no kept run with a waiting request")
            return 1
        print("self-test on kept seed %d" % seed)

        def findings(truth):
            rdir = tempfile.mkdtemp(dir=tmp)
            with open(os.path.join(rdir, "truth.txt"), "w") as fh:
                fh.write(truth)
            with open(os.path.join(rdir, "run.log"), "w") as fh:
                fh.write(log_text)
            f = oracle.Findings()
            oracle.check_seed(tools, rdir, False, f, only="log")
            shutil.rmtree(rdir, ignore_errors=True)
            return f

        base = findings(truth_text)
        base_set = {(c, k, a) for c, k, a, _ in base.items}

        def new_checks(f):
            return sorted({c for c, k, a, _ in f.items
                           if (c, k, a) not in base_set})

        lines = truth_text.splitlines(True)

        def first(pattern, also=lambda line: True):
            """The index of the first line of the truth matching `pattern`
            (and `also`), or None."""
            return next((i for i, line in enumerate(lines)
                         if re.match(pattern, line) and also(line)), None)

        def expect_caught(what, altered, check):
            """The checks on an altered truth: `check` must fail."""
            got = new_checks(findings("".join(altered)))
            print("%s: %s" % (what, got))
            if check not in got:
                failures.append("%s was not caught" % what)

        # 1. an allocation moved by 64 bytes
        placed = r"INST .* offset=(\d+) size=(\d+) "
        i = first(placed, lambda line: int(re.match(placed, line).group(2)) > 0
                  and "from=redistrict" not in line and "name=zero" not in line)
        if i is not None:
            offset = re.match(placed, lines[i]).group(1)
            moved = list(lines)
            moved[i] = lines[i].replace("offset=%s " % offset,
                                        "offset=%d " % (int(offset) + 64))
            expect_caught("an offset moved", moved, "log.placement")
        # 2. a waiting request taken out of the truth
        i = first(r"WAIT .*why=precondition")
        if i is not None:
            expect_caught("a waiting request dropped", lines[:i] + lines[i + 1:],
                          "log.pending")
        # 3. a failure that did not happen
        i = first(r"SUMMARY ")
        if i is not None:
            mem = re.search(r"mem=(\w+)", lines[i]).group(1)
            cp = re.search(r"checkpoint=(\d+)", lines[i]).group(1)
            added = list(lines)
            added.insert(i, "FAILED checkpoint=%s mem=%s inst=4000000000ffffff "
                            "size=4096 align=32 cause=failed name=x\n"
                         % (cp, mem))
            expect_caught("a failure added", added, "log.failures")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    for f in failures:
        print("FAIL: " + f)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
