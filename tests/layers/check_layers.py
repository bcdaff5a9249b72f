#!/usr/bin/env python3
"""check_layers.py ROOT: every include edge of the tree against the layer
table of realm_shadow/layers.h.

usage: check_layers.py ROOT            check the tree; exit 1 naming each
                                       violation
       check_layers.py --self-test ROOT   the checker on a small tree with one
                                       bad edge of each kind: each must be found

A file's layer is its directory's: realm_shadow/<layer>/... (a header at
the top of realm_shadow/ is the hooks layer), and beside the library
model/, gpu/, whatif/, legion_glue/, testing/, tools/.  tests/, bench/,
demo/ and scripts/ may use every layer.  Checked:
  1. an #include "..." of a project file from a layer may only name a file
     of a layer it may use (REALM_SHADOW_USES_<layer> in layers.h, read
     from there: the table has one home);
  2. a file under <dir>/internal/ may only be included from <dir>/ itself
     (and from tests/ and bench/, which test and measure internals);
  3. every header of a layer declares it: REALM_SHADOW_HEADER_OF_LAYER(<its
     layer>) (the C headers of the hooks layer, which cannot, say "Layer
     hooks" in their opening comment);
  4. every directory under realm_shadow/ is a layer of the table.
"""

import os
import re
import shutil
import subprocess
import sys
import tempfile

BESIDE = ("model", "gpu", "whatif", "legion_glue", "testing", "tools")
FREE = ("tests", "bench", "demo", "scripts")
C_HEADERS = ("realm_shadow/hooks.h", "realm_shadow/log_sink.h")
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)
USES_LINE = re.compile(r"^#define REALM_SHADOW_USES_(\w+) \((.*)\)\s*$", re.M)


def read_table(root):
    """{layer: set of layers it may use}, from layers.h."""
    text = open(os.path.join(root, "realm_shadow", "layers.h")).read()
    raw = {}
    for name, expr in USES_LINE.findall(text):
        if name == "any":
            continue
        raw[name] = expr
    table = {}

    def uses(name, seen=()):
        if name in table:
            return table[name]
        if name in seen or name not in raw:
            raise SystemExit("layers.h: cannot resolve REALM_SHADOW_USES_%s" % name)
        out = set()
        for term in raw[name].split("|"):
            term = term.strip()
            m = re.fullmatch(r"REALM_SHADOW_BIT\((\w+)\)", term)
            if m:
                out.add(m.group(1))
                continue
            m = re.fullmatch(r"REALM_SHADOW_USES_(\w+)", term)
            if not m:
                raise SystemExit("layers.h: cannot read term %r of %s" % (term, name))
            out |= uses(m.group(1), seen + (name,))
        table[name] = out
        return out

    for name in raw:
        uses(name)
    return table


def layer_of(rel):
    parts = rel.split("/")
    if parts[0] == "realm_shadow":
        return "hooks" if len(parts) == 2 else parts[1]
    if parts[0] in BESIDE:
        return parts[0]
    return None  # free


def project_files(root):
    try:
        out = subprocess.run(
            ["git", "-C", root, "ls-files", "--cached", "--others",
             "--exclude-standard"], stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL, universal_newlines=True, check=True).stdout
        files = [f for f in out.split("\n") if f]
    except (OSError, subprocess.CalledProcessError):
        files = []
        for d, _, names in os.walk(root):
            for n in names:
                files.append(os.path.relpath(os.path.join(d, n), root))
    return sorted(f for f in files if os.path.isfile(os.path.join(root, f)))


def check(root):
    table = read_table(root)
    files = project_files(root)
    known = set(files)
    problems = []
    edges = 0
    for d in sorted({f.split("/")[1] for f in files
                     if f.startswith("realm_shadow/") and f.count("/") >= 2}):
        if d not in table:
            problems.append("realm_shadow/%s/: not a layer of layers.h" % d)
    for rel in files:
        if not rel.endswith((".h", ".cc", ".cu", ".c")):
            continue
        if rel.split("/")[0] not in ("realm_shadow",) + BESIDE + FREE:
            continue
        text = open(os.path.join(root, rel), encoding="utf-8", errors="replace").read()
        layer = layer_of(rel)
        if rel.endswith(".h") and layer is not None:
            if rel in C_HEADERS:
                if not re.search(r"Layer hooks", text[:4000]):
                    problems.append("%s: a C header of the hooks layer must say "
                                    "'Layer hooks' in its opening comment" % rel)
            else:
                declared = re.findall(r"REALM_SHADOW_HEADER_OF_LAYER\((\w+)\);", text)
                if rel == "realm_shadow/layers.h":
                    pass
                elif not declared:
                    problems.append("%s: declares no layer (REALM_SHADOW_HEADER_OF_LAYER(%s))"
                                    % (rel, layer))
                elif any(d != layer for d in declared):
                    problems.append("%s: declares layer %s, but it lives in layer %s"
                                    % (rel, ",".join(declared), layer))
        for target in INCLUDE.findall(text):
            if target not in known:
                continue  # a system or third-party header (absl, gtest, realm/)
            edges += 1
            tlayer = layer_of(target)
            if layer is not None and tlayer is not None and tlayer not in table.get(layer, ()):
                problems.append("%s (layer %s) includes %s (layer %s), which it may not use"
                                % (rel, layer, target, tlayer))
            if "/internal/" in target and rel.split("/")[0] not in ("tests", "bench"):
                owner = target[:target.index("/internal/")]
                if not (rel.startswith(owner + "/")):
                    problems.append("%s includes %s: internal to %s/" % (rel, target, owner))
    return problems, edges


def self_test(root):
    """Each kind of bad edge, alone in a copy of the table, must be found."""
    cases = {
        "reach past the table": (
            {"realm_shadow/recorder/bad.cc": '#include "realm_shadow/analysis/a.h"\n'},
            "may not use"),
        "another layer's internal": (
            {"realm_shadow/render/bad.cc": '#include "realm_shadow/format/internal/i.h"\n'},
            "internal to realm_shadow/format"),
        "no declaration": (
            {"realm_shadow/core/bad.h": "// nothing declared\n"},
            "declares no layer"),
        "wrong declaration": (
            {"realm_shadow/core/bad.h": "REALM_SHADOW_HEADER_OF_LAYER(render);\n"},
            "declares layer render"),
        "the command reaching the live side": (
            {"tools/bad.cc": '#include "realm_shadow/live/l.h"\n'},
            "tools/bad.cc (layer tools) includes realm_shadow/live/l.h"),
        "a directory not in the table": (
            {"realm_shadow/elsewhere/x.h": "REALM_SHADOW_HEADER_OF_LAYER(elsewhere);\n"},
            "not a layer of layers.h"),
    }
    base = {
        "realm_shadow/analysis/a.h": "REALM_SHADOW_HEADER_OF_LAYER(analysis);\n",
        "realm_shadow/format/internal/i.h": "REALM_SHADOW_HEADER_OF_LAYER(format);\n",
        "realm_shadow/live/l.h": "REALM_SHADOW_HEADER_OF_LAYER(live);\n",
        "realm_shadow/hooks.h": "/* Layer hooks */\n",
        "realm_shadow/log_sink.h": "/* Layer hooks */\n",
        "realm_shadow/core/ok.h": ('REALM_SHADOW_HEADER_OF_LAYER(core);\n'
                                   '#include "realm_shadow/hooks.h"\n'),
        "tests/t.cc": '#include "realm_shadow/format/internal/i.h"\n',
    }
    failures = 0
    for name, (extra, expect) in [("clean tree", ({}, None))] + list(cases.items()):
        with tempfile.TemporaryDirectory() as tmp:
            os.makedirs(os.path.join(tmp, "realm_shadow"))
            shutil.copy(os.path.join(root, "realm_shadow", "layers.h"),
                        os.path.join(tmp, "realm_shadow", "layers.h"))
            for rel, text in list(base.items()) + list(extra.items()):
                path = os.path.join(tmp, rel)
                os.makedirs(os.path.dirname(path), exist_ok=True)
                with open(path, "w") as f:
                    f.write(text)
            problems, _ = check(tmp)
            if expect is None:
                ok = not problems
            else:
                ok = len(problems) == 1 and expect in problems[0]
            print("%-40s %s%s" % (name, "found" if expect and ok else
                                  ("clean" if ok else "MISSED"),
                                  "" if ok else ": " + "; ".join(problems)))
            failures += not ok
    return 1 if failures else 0


def main(argv):
    if len(argv) == 3 and argv[1] == "--self-test":
        return self_test(os.path.abspath(argv[2]))
    if len(argv) != 2:
        print(__doc__.split("\n\n")[1], file=sys.stderr)
        return 2
    problems, edges = check(os.path.abspath(argv[1]))
    for p in problems:
        print(p)
    print("check_layers: %d include edges of project files, %d violation(s)"
          % (edges, len(problems)))
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
