#!/usr/bin/env python3
"""scripts/gpu-pack and the pack's run script, without CUDA or a GPU.

A pack of what this build has (the realm-shadow command, and gpu_test and
gpu_bench when CUDA was found): the manifest against the files, the size
limit, the libraries (no glibc, no driver, everything else there and
stripped programs still running from the pack), the refusal without
--allow-partial, and the run script's refusals: without a GPU (exit 3,
nothing run) and with a file of the manifest missing or changed (exit 2).

usage: gpu_pack_test.py REPO BUILD_DIR
"""
import hashlib
import os
import re
import shutil
import subprocess
import sys
import tempfile
import unittest

REPO = BUILD = None
LIMIT = 60 * 1024 * 1024


def run(cmd, env=None):
    return subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                          universal_newlines=True, env=env)


def has_gpu():
    if shutil.which("nvidia-smi"):
        return "GPU " in run(["nvidia-smi", "-L"]).stdout
    return os.path.exists("/dev/nvidia0")


class GpuPackTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(prefix="gpu-pack-test-")
        cls.pack = os.path.join(cls.tmp, "pack")
        cls.made = run([os.path.join(REPO, "scripts", "gpu-pack"), BUILD,
                        "-o", cls.pack, "--allow-partial"])

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def manifest(self, pack=None):
        with open(os.path.join(pack or self.pack, "MANIFEST.tsv")) as f:
            lines = f.read().splitlines()
        self.assertEqual(lines[0].split("\t"),
                         ["role", "path", "bytes", "sha256", "source", "note"])
        return [l.split("\t") for l in lines[1:]]

    def copy_pack(self, name):
        dst = os.path.join(self.tmp, name)
        shutil.rmtree(dst, ignore_errors=True)
        shutil.copytree(self.pack, dst, symlinks=True)
        return dst

    def stand_in_device_env(self):
        """The environment of a run on a stand-in device: an nvidia-smi on
        PATH that lists one GPU, and no $OUT."""
        fake_bin = os.path.join(self.tmp, "stand-in-bin")
        os.makedirs(fake_bin, exist_ok=True)
        with open(os.path.join(fake_bin, "nvidia-smi"), "w") as f:
            f.write("#!/bin/sh\necho 'GPU 0: stand-in H200 (UUID: GPU-0)'\n")
        os.chmod(os.path.join(fake_bin, "nvidia-smi"), 0o755)
        env = dict(os.environ, PATH=fake_bin + os.pathsep + os.environ["PATH"])
        env.pop("OUT", None)
        return env

    def test_pack_is_made_and_within_the_limit(self):
        self.assertEqual(self.made.returncode, 0, self.made.stdout)
        total = sum(os.path.getsize(os.path.join(d, f))
                    for d, _, fs in os.walk(self.pack) for f in fs
                    if f != "MANIFEST.tsv")
        self.assertLessEqual(total, LIMIT)
        self.assertRegex(self.made.stdout, r"pack in .*: \d+ program\(s\)")
        self.assertFalse(os.path.exists(self.pack + ".tmp"))

    def test_manifest_lists_exactly_the_files_with_their_sizes_and_hashes(self):
        rows = self.manifest()
        listed = {r[1] for r in rows}
        on_disk = {os.path.relpath(os.path.join(d, f), self.pack)
                   for d, _, fs in os.walk(self.pack) for f in fs} - {
                       "MANIFEST.tsv"}
        self.assertEqual(listed, on_disk)
        for role, path, size, digest, source, _ in rows:
            full = os.path.join(self.pack, path)
            self.assertEqual(os.path.getsize(full), int(size), path)
            with open(full, "rb") as f:
                self.assertEqual(hashlib.sha256(f.read()).hexdigest(), digest,
                                 path)
            self.assertIn(role, ("program", "library", "script"))
            self.assertTrue(os.path.isabs(source), source)
        roles = {r[1]: r[0] for r in rows}
        self.assertEqual(roles.get("bin/realm-shadow"), "program")
        self.assertEqual(roles.get("run"), "script")
        self.assertEqual(roles.get("gpu-check"), "script")

    def test_libraries_are_all_there_and_no_system_or_driver_library(self):
        libs = os.listdir(os.path.join(self.pack, "lib"))
        for lib in libs:
            self.assertNotRegex(lib, r"^(libc|libm|libpthread|libdl|librt|"
                                r"ld-linux.*|libcuda)\.so", lib)
        env = dict(os.environ, LD_LIBRARY_PATH=os.path.join(self.pack, "lib"))
        for program in os.listdir(os.path.join(self.pack, "bin")):
            out = run(["ldd", os.path.join(self.pack, "bin", program)],
                      env=env).stdout
            for line in out.splitlines():
                if "not found" in line:
                    self.assertRegex(line.strip(), r"^libcuda\.so", program)
                m = re.match(r"\s*(\S+) => (/\S+)", line)
                # Everything but glibc and the driver loads from the pack.
                if m and not re.match(r"(libc|libm|libmvec|libpthread|libdl|"
                                      r"librt|ld-linux[-\w.]*)\.so",
                                      m.group(1)):
                    self.assertTrue(m.group(2).startswith(self.pack + "/lib/"),
                                    "%s loads %s" % (program, line.strip()))

    def test_programs_are_stripped_and_still_run(self):
        cli = os.path.join(self.pack, "bin", "realm-shadow")
        sections = run(["readelf", "-S", "-W", cli]).stdout
        self.assertNotIn(".symtab", sections)
        self.assertNotIn(".debug_info", sections)
        env = dict(os.environ, LD_LIBRARY_PATH=os.path.join(self.pack, "lib"))
        p = run([cli, "--help"], env=env)
        self.assertEqual(p.returncode, 0, p.stdout)
        self.assertIn("ingest-realm-log", p.stdout)

    def test_without_allow_partial_the_missing_programs_are_named(self):
        out = os.path.join(self.tmp, "whole")
        p = run([os.path.join(REPO, "scripts", "gpu-pack"), BUILD, "-o", out])
        self.assertEqual(p.returncode, 1, p.stdout)
        self.assertRegex(p.stdout, r"not found under .*circuit.*realm_gpu_trial")
        self.assertFalse(os.path.exists(out))

    def test_over_the_limit_nothing_is_left(self):
        out = os.path.join(self.tmp, "small")
        p = run([os.path.join(REPO, "scripts", "gpu-pack"), BUILD, "-o", out,
                 "--allow-partial", "--limit-mib", "0.25"])
        self.assertEqual(p.returncode, 1, p.stdout)
        self.assertIn("over the 0.25 MiB limit", p.stdout)
        self.assertRegex(p.stdout, r"largest: (bin|lib)/\S+ \d+\.\d MiB")
        self.assertFalse(os.path.exists(out))
        self.assertFalse(os.path.exists(out + ".tmp"))

    def test_run_refuses_without_a_gpu(self):
        if has_gpu():
            self.skipTest("a GPU is here: the refusal cannot be seen")
        results = os.path.join(self.tmp, "results-nogpu")
        p = run([os.path.join(self.pack, "run"), "-o", results])
        self.assertEqual(p.returncode, 3, p.stdout)
        self.assertIn("no CUDA device here", p.stdout)
        self.assertIn("nothing was run", p.stdout)
        self.assertFalse(os.path.exists(results))

    def test_run_refuses_a_pack_with_a_missing_or_changed_file(self):
        pack = self.copy_pack("broken")
        os.remove(os.path.join(pack, "bin", "realm-shadow"))
        results = os.path.join(self.tmp, "results-broken")
        p = run([os.path.join(pack, "run"), "-o", results])
        self.assertEqual(p.returncode, 2, p.stdout)
        self.assertIn("missing bin/realm-shadow (listed in MANIFEST.tsv)",
                      p.stdout)
        self.assertFalse(os.path.exists(results))

        pack = self.copy_pack("changed")
        lib = sorted(os.listdir(os.path.join(pack, "lib")) or ["none"])[0]
        target = os.path.join(pack, "lib", lib) if lib != "none" else \
            os.path.join(pack, "gpu-check")
        with open(target, "ab") as f:
            f.write(b"\0")
        p = run([os.path.join(pack, "run"), "-o", results])
        self.assertEqual(p.returncode, 2, p.stdout)
        self.assertIn("MANIFEST.tsv says", p.stdout)

    def test_run_on_a_stand_in_device_cuts_compares_and_tabulates(self):
        """The device half end to end with a stand-in GPU (an nvidia-smi
        that lists one) and a stand-in realm_gpu_trial (a script that writes
        a log in Realm's formats, a dump of its first part, the dump's marker
        lines, and more instance lines after them): every dump is cut at its
        marker, compared, and put in one table; a pack without circuit and
        gpu_test ends FAIL naming them."""
        pack = self.copy_pack("stand-in")
        keep = [r for r in self.manifest(pack)
                if r[1] not in ("bin/gpu_test", "bin/gpu_bench")]
        for rel in ("bin/gpu_test", "bin/gpu_bench"):
            if os.path.exists(os.path.join(pack, rel)):
                os.remove(os.path.join(pack, rel))
        trial = os.path.join(pack, "bin", "realm_gpu_trial")
        with open(trial, "w") as f:
            f.write(STAND_IN_TRIAL)
        os.chmod(trial, 0o755)
        keep.append(["program", "bin/realm_gpu_trial",
                     str(os.path.getsize(trial)), "-", trial, "stand-in"])
        with open(os.path.join(pack, "MANIFEST.tsv"), "w") as f:
            f.write("role\tpath\tbytes\tsha256\tsource\tnote\n")
            f.writelines("\t".join(r) + "\n" for r in keep)
        results = os.path.join(self.tmp, "results-stand-in")
        env = self.stand_in_device_env()
        p = run([os.path.join(pack, "run"), "-o", results], env=env)
        self.assertEqual(p.returncode, 1, p.stdout)
        self.assertIn("device: GPU 0: stand-in H200", p.stdout)
        self.assertIn("gpu-trial: exit 0", p.stdout)
        # One row per memory of the one dump, each equal to the cut log
        # (the placement after the marker is not in the cut).
        with open(os.path.join(results, "agreement.tsv")) as f:
            rows = [l.split("\t") for l in f.read().splitlines()[1:]]
        self.assertEqual(len(rows), 4, p.stdout)
        for row in rows:
            self.assertEqual(row[0], "gpu-trial")
            self.assertEqual(row[1], "realm-gpu-trial-01-framebuffer")
            self.assertEqual(row[9], "agree", row)
        self.assertIn("4 dump-memory row(s): 4 agree", p.stdout)
        self.assertIn("problem: circuit is not in this pack", p.stdout)
        self.assertIn("problem: gpu_test is not in this pack", p.stdout)
        self.assertTrue(p.stdout.rstrip().endswith("run: FAIL"), p.stdout)
        for name in ("console.txt", "exit-status", "run_0.log"):
            self.assertTrue(os.path.isfile(
                os.path.join(results, "gpu-trial", name)), name)

        # As the device tool runs it: $OUT and no -o.  What comes back is
        # at most 8 files of at most 16 MiB, none deeper than $OUT/a/b/.
        out = os.path.join(self.tmp, "device-out")
        q = run([os.path.join(pack, "run")], env=dict(env, OUT=out))
        self.assertEqual(q.returncode, 1, q.stdout)
        files = [os.path.relpath(os.path.join(d, f), out)
                 for d, _, fs in os.walk(out) for f in fs]
        self.assertEqual(sorted(files), ["agreement.tsv", "agreement.txt",
                                         "dumps.tar.xz", "results.tar.xz",
                                         "run.txt"])
        for f in files:
            self.assertLessEqual(os.path.getsize(os.path.join(out, f)),
                                 16 << 20, f)
        with open(os.path.join(out, "run.txt")) as f:
            self.assertIn("4 dump-memory row(s): 4 agree", f.read())
        listed = run(["tar", "-tJf", os.path.join(out, "dumps.tar.xz")]).stdout
        self.assertIn("gpu-trial/dumps/realm-gpu-trial-01-framebuffer.rsd",
                      listed)
        listed = run(["tar", "-tJf", os.path.join(out, "results.tar.xz")]).stdout
        self.assertIn("gpu-trial/run_0.log", listed)
        self.assertIn("gpu-trial/compare-realm-gpu-trial-01-framebuffer.err",
                      listed)

    def test_run_hands_gpu_check_its_timeouts_and_its_exit_status(self):
        """gpu-check --prebuilt inside the run, on a stand-in device: the
        pack's gpu_test finds no usable device, gpu-check says so (exit 3),
        and the run names that as a problem.  A build without a CUDA
        compiler has no gpu_test: then the run must say gpu-check was not
        run, and fail."""
        with_gpu_test = os.path.exists(os.path.join(self.pack, "bin",
                                                    "gpu_test"))
        if has_gpu():
            self.skipTest("a GPU is here: gpu_test would find it")
        results = os.path.join(self.tmp, "results-gpu-check")
        env = self.stand_in_device_env()
        p = run([os.path.join(self.pack, "run"), "-o", results], env=env)
        self.assertEqual(p.returncode, 1, p.stdout)
        if not with_gpu_test:
            self.assertIn("problem: gpu_test is not in this pack: gpu-check "
                          "not run", p.stdout)
            return
        self.assertIn("gpu-check: running gpu_test", p.stdout)
        self.assertIn("problem: gpu-check --prebuilt: exit 3", p.stdout)
        with open(os.path.join(results, "gpu-check.txt")) as f:
            self.assertIn("no usable CUDA device", f.read())
        self.assertTrue(os.path.isfile(os.path.join(
            results, "gpu-check-logs", "gpu_test.json")))


# A stand-in for realm_gpu_trial: Realm's machine dump and inst lines for
# the framebuffer, zero-copy and dynamic framebuffer of one GPU, a dump of
# that state made with the pack's own realm-shadow, its marker line for each
# memory, then one more framebuffer placement the cut must leave out.
STAND_IN_TRIAL = r"""#!/usr/bin/env bash
set -eu
log=""
while [ $# -gt 0 ]; do
  case "$1" in -logfile) log="$2"; shift 2 ;; *) shift ;; esac
done
log="${log//%/0}"
dump="$REALM_SHADOW_TRIAL_DIR/realm-gpu-trial-01-framebuffer.rsd"
first="$(mktemp)"
l() { echo "[0 - 7f0000000002]    0.2 {$1}{$2}: $3"; }
{
  echo "[0 - 7f0000000001]    0.1 {1}{machine}: Node 0:"
  echo "Memory:1e00000000000000, SYSTEM_MEM, capacity: 536870912"
  echo "Memory:1e00000000000001, GPU_FB_MEM, capacity: 67108864"
  echo "Memory:1e00000000000002, GPU_DYNAMIC_MEM, capacity: 67108864"
  echo "Memory:1e00000000000003, Z_COPY_MEM, capacity: 16777216"
  for i in 0 1; do
    inst=400000000040000$i
    l 2 inst "creating new local instance: $inst"
    l 1 inst "instance layout: inst=$inst layout=Layout(bytes=12582912, align=128, fields={0=0+0}, lists=[])"
    l 1 inst "allocation completed: inst=$inst offset=$((i * 12582912))"
  done
  inst=4000000000800000
  l 2 inst "creating new local instance: $inst"
  l 1 inst "instance layout: inst=$inst layout=Layout(bytes=8388608, align=128, fields={0=0+0}, lists=[])"
  l 1 inst "allocation completed: inst=$inst offset=139788429180928"
  inst=4000000000c00000
  l 2 inst "creating new local instance: $inst"
  l 1 inst "instance layout: inst=$inst layout=Layout(bytes=3145728, align=128, fields={0=0+0}, lists=[])"
  l 1 inst "allocation completed: inst=$inst offset=0"
} >"$first"
"$(dirname "$0")/realm-shadow" ingest-realm-log "$first" -o "$dump" >/dev/null
{
  cat "$first"
  for m in 0 1 2 3; do
    l 2 realm_shadow "dump memory=0x1e0000000000000$m sequence=1 node=0 reason=request file=$dump"
  done
  inst=4000000000400002
  l 2 inst "creating new local instance: $inst"
  l 1 inst "instance layout: inst=$inst layout=Layout(bytes=12582912, align=128, fields={0=0+0}, lists=[])"
  l 1 inst "allocation completed: inst=$inst offset=25165824"
} >"$log"
rm -f "$first"
echo "stand-in realm_gpu_trial: done"
"""


if __name__ == "__main__":
    REPO, BUILD = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
    unittest.main(argv=sys.argv[:1], verbosity=2)
