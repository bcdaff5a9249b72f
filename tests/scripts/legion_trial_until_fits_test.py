#!/usr/bin/env python3
"""scripts/legion-trial --until-fits on a stand-in program and command (no
Legion needed): the program fails below -ll:csize 12, leaving a failure
dump; the stand-in `realm-shadow explain --json` gives a capacity remedy two
MiB above the run's.  The loop must follow 8 -> 10 -> 12, stop when the
program completes, rerun at 11 and say that it failed there; a program that
fails without a failure dump stops the loop with exit status 1.

usage: legion_trial_until_fits_test.py SCRIPTS/legion-trial"""

import os
import stat
import subprocess
import sys
import tempfile

PROGRAM = r'''#!/usr/bin/env python3
import os, sys
args = sys.argv[1:]
csize = int(args[args.index("-ll:csize") + 1]) if "-ll:csize" in args else 8
if csize >= 12:
    sys.exit(0)
if os.environ.get("NO_DUMP"):
    sys.exit(2)
with open(os.path.join(os.environ["REALM_SHADOW_DUMP_DIR"],
                       "realm-shadow-node0-mem1e00000000000000-1.rsd"), "w") as f:
    f.write(str(csize))
sys.exit(1)
'''

CLI = r'''#!/usr/bin/env python3
import json, sys
assert sys.argv[1] == "explain" and "--json" in sys.argv, sys.argv
csize = int(open(sys.argv[2]).read())
print(json.dumps([{
    "node": 0, "memory": "0x1e00000000000000", "kind": "system",
    "failures": [{"instance": "0x4000000000000030", "size": 735252,
                  "eventual": False, "event": 100 + csize, "identity": None,
                  "remedies": [{"kind": "capacity", "verdict": "fits",
                                "checked": True, "flag": "-ll:csize",
                                "flag_value": csize + 2, "text": "..."}]}]}]))
'''


def executable(path, text):
    with open(path, "w") as f:
        f.write(text)
    os.chmod(path, os.stat(path).st_mode | stat.S_IXUSR)
    return path


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    trial = sys.argv[1]
    failures = []

    def check(ok, what, text):
        if not ok:
            failures.append(what + "\n" + text)

    with tempfile.TemporaryDirectory() as tmp:
        program = executable(os.path.join(tmp, "program"), PROGRAM)
        cli = executable(os.path.join(tmp, "realm-shadow"), CLI)
        p = subprocess.run([trial, "--until-fits", program + " -ll:csize 8 -x 1",
                            "--cli", cli, "--out", os.path.join(tmp, "out")],
                           capture_output=True, text=True)
        out = p.stdout + p.stderr
        check(p.returncode == 0, "exit status %d, expected 0" % p.returncode, out)
        for line in [
                "run 1: -ll:csize 8 -> exit 1: system 0x1e00000000000000: "
                "instant request of 735252 B for 0x4000000000000030 at event 108",
                "capacity remedy: -ll:csize 10 (checked by a replay at it)",
                "run 2: -ll:csize 10 -> exit 1:",
                "run 3: -ll:csize 12 -> exit 0: completed",
                "one unit below: -ll:csize 11 -> exit 1: failed: system "
                "0x1e00000000000000: instant request of 735252 B",
                "until-fits: completed with -ll:csize 12"]:
            check(line in out, "missing: " + line, out)
        check(" -ll:csize 12 -x 1 -level " in out,
              "the flag's value replaced in place, the other arguments kept", out)

        env = dict(os.environ, NO_DUMP="1")
        p = subprocess.run([trial, "--until-fits", program, "--cli", cli,
                            "--out", os.path.join(tmp, "out2")],
                           capture_output=True, text=True, env=env)
        out = p.stdout + p.stderr
        check(p.returncode == 1, "no dump: exit status %d, expected 1"
              % p.returncode, out)
        check("failed with no allocation failure dump" in out,
              "no dump: not said", out)
        check("the program did not complete" in out, "no dump: not said", out)
    for f in failures:
        print("FAIL:", f)
    print("%d failure(s)" % len(failures))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
