#!/usr/bin/env python3
"""scripts/legion-build-cuda's CUDA 13 work-arounds, on a synthetic Legion
checkout and a synthetic toolkit (no CUDA, no Legion needed).

The checkout's files hold only what the script reads: cuda_internal.h's
`#include <nvml.h>` and its CUDA_DRIVER_APIS lists, a PFN_ name used
elsewhere, and typedefs of PFN_ names under `#if CUDA_VERSION < N` as 25.06
and master have them.  The toolkit is bin/nvcc (never run), cuda.h and
cudaTypedefs.h in the shapes CUDA 12 and 13 have.

usage: legion_build_cuda_test.py PATH/TO/legion-build-cuda
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile
import unittest
from importlib.machinery import SourceFileLoader

TOOL = None

CUDA_INTERNAL_H = """\
// synthetic stand-in for runtime/realm/cuda/cuda_internal.h
#include <memory>
#if !defined(CUDA_ENABLE_DEPRECATED)
#define CUDA_ENABLE_DEPRECATED 1
#endif
#include <cuda.h>
#include <nvml.h>

#if CUDA_VERSION < 12050
    CUresult cuCtxRecordEvent(CUcontext hctx, CUevent event);
    typedef decltype(&cuCtxRecordEvent) PFN_cuCtxRecordEvent;
#endif

#define CUDA_DRIVER_APIS_BASE(__op__)                                  \\
  __op__(cuModuleGetFunction, CUDA_VERSION);                           \\
  __op__(cuMemAlloc, CUDA_VERSION);                                    \\
  __op__(cuMemFree, CUDA_VERSION);

#define CUDA_DRIVER_APIS_12050(__op__) __op__(cuCtxRecordEvent, 12050);
#define DECL_FNPTR_EXTERN(name, ver) extern PFN_##name name##_fnptr;
"""

CUDA_MODULE_CC = """\
// synthetic stand-in for runtime/realm/cuda/cuda_module.cc
#if CUDA_VERSION < 11030
typedef CUresult CUDAAPI (*PFN_cuGetProcAddress)(const char *, void **, int, int);
#endif
    typedef void (*PFN_cuhook_start_task)(CUstream current_task_stream);
    PFN_cuGetProcAddress cuGetProcAddress_fnptr = nullptr;
"""

CUDA_HOOK_CC = """\
    typedef CUresult(CUDAAPI *PFN_cuMemAlloc_v3020)(CUdeviceptr *dptr, size_t bytesize);
"""

CUDA_H = """\
#pragma once
#define CUDA_VERSION %(version)d
#define CUDAAPI
typedef int CUresult;
typedef unsigned long long CUdeviceptr;
typedef struct CUctx_st *CUcontext;
typedef struct CUevent_st *CUevent;
typedef struct CUfunc_st *CUfunction;
typedef struct CUmod_st *CUmodule;
#define cuMemAlloc cuMemAlloc_v2
#define cuMemFree cuMemFree_v2
#define cuGetProcAddress cuGetProcAddress_v2
CUresult CUDAAPI cuModuleGetFunction(CUfunction *f, CUmodule m, const char *n);
CUresult CUDAAPI cuMemAlloc_v2(CUdeviceptr *p, unsigned long n);
CUresult CUDAAPI cuMemFree_v2(CUdeviceptr p);
CUresult CUDAAPI cuGetProcAddress_v2(const char *s, void **p, int v,
                                     unsigned long long f, int *r);
%(record_event)s
"""

# CUDA 12: every unversioned PFN_ name is an alias of a versioned type.
TYPEDEFS_12 = """\
#pragma once
#include <cuda.h>
typedef CUresult (CUDAAPI *PFN_cuModuleGetFunction_v2000)(CUfunction *, CUmodule, const char *);
typedef CUresult (CUDAAPI *PFN_cuMemAlloc_v3020)(CUdeviceptr *, unsigned long);
typedef CUresult (CUDAAPI *PFN_cuMemFree_v3020)(CUdeviceptr);
typedef CUresult (CUDAAPI *PFN_cuGetProcAddress_v12000)(const char *, void **, int, unsigned long long, int *);
typedef CUresult (CUDAAPI *PFN_cuCtxRecordEvent_v12050)(CUcontext, CUevent);
#define PFN_cuCtxRecordEvent PFN_cuCtxRecordEvent_v12050
#define PFN_cuModuleGetFunction PFN_cuModuleGetFunction_v2000
#define PFN_cuMemAlloc PFN_cuMemAlloc_v3020
#define PFN_cuMemFree PFN_cuMemFree_v3020
#define PFN_cuGetProcAddress PFN_cuGetProcAddress_v12000
"""
# CUDA 13: only the versioned types.
TYPEDEFS_13 = "\n".join(l for l in TYPEDEFS_12.splitlines()
                        if not l.startswith("#define")) + "\n"


def write(path, text):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        f.write(text)


class LegionBuildCudaTest(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="legion-build-cuda-test-")
        self.legion = os.path.join(self.tmp, "legion")
        cuda = os.path.join(self.legion, "runtime", "realm", "cuda")
        write(os.path.join(cuda, "cuda_internal.h"), CUDA_INTERNAL_H)
        write(os.path.join(cuda, "cuda_module.cc"), CUDA_MODULE_CC)
        write(os.path.join(cuda, "cuda_hook.cc"), CUDA_HOOK_CC)
        self.tool = SourceFileLoader("legion_build_cuda", TOOL).load_module()

    def tearDown(self):
        shutil.rmtree(self.tmp, ignore_errors=True)

    def toolkit(self, version, typedefs, nvml=False):
        root = os.path.join(self.tmp, "cuda-%d" % version)
        record = ("CUresult CUDAAPI cuCtxRecordEvent(CUcontext c, CUevent e);"
                  if version >= 12050 else "")
        write(os.path.join(root, "include", "cuda.h"),
              CUDA_H % {"version": version, "record_event": record})
        write(os.path.join(root, "include", "cudaTypedefs.h"), typedefs)
        if nvml:
            write(os.path.join(root, "include", "nvml.h"), "#pragma once\n")
        write(os.path.join(root, "bin", "nvcc"), "#!/bin/sh\nexit 1\n")
        os.chmod(os.path.join(root, "bin", "nvcc"), 0o755)
        return root

    def generate(self, version, typedefs):
        include = os.path.join(self.toolkit(version, typedefs), "include")
        out = os.path.join(self.tmp, "compat-%d" % version)
        return self.tool.write_pfn_compat(self.legion, include, version, out,
                                          shutil.which("g++") or "c++")

    def defines(self, header):
        with open(header) as f:
            return [l.split()[1] for l in f if l.startswith("#define PFN_")]

    def test_cuda13_gets_every_name_the_checkout_uses(self):
        header = self.generate(13000, TYPEDEFS_13)
        # The CUDA_DRIVER_APIS names, and PFN_cuGetProcAddress from
        # cuda_module.cc (its own typedef is compiled out for CUDA >= 11.3);
        # not the versioned PFN_cuMemAlloc_v3020 or the cuhook types.
        self.assertEqual(self.defines(header),
                         ["PFN_cuModuleGetFunction", "PFN_cuMemAlloc",
                          "PFN_cuMemFree", "PFN_cuCtxRecordEvent",
                          "PFN_cuGetProcAddress"])
        with open(header) as f:
            self.assertIn("#define PFN_cuMemAlloc decltype(&cuMemAlloc)\n",
                          f.read())

    def test_cuda12_needs_no_header(self):
        self.assertIsNone(self.generate(12080, TYPEDEFS_12))

    def test_a_typedef_the_checkout_compiles_is_left_alone(self):
        # Below 12.5 the checkout typedefs PFN_cuCtxRecordEvent itself (and
        # cuda.h has no cuCtxRecordEvent): a macro would break it.
        header = self.generate(12040, TYPEDEFS_13)
        self.assertNotIn("PFN_cuCtxRecordEvent", self.defines(header))
        self.assertIn("PFN_cuMemAlloc", self.defines(header))

    def test_a_name_cuda_h_lacks_fails_the_compile_check(self):
        # A header whose name cuda.h does not declare must not be passed to
        # Legion's build: the script checks it compiles and stops.
        with open(os.path.join(self.legion, "runtime", "realm", "cuda",
                               "cuda_module.cc"), "a") as f:
            f.write("PFN_cuNoSuchFunction p;\n")
        root = self.toolkit(13000, TYPEDEFS_13)
        with open(os.path.join(root, "include", "cuda.h"), "a") as f:
            f.write("#define cuNoSuchFunction cuNoSuchFunction_v9\n")
        with self.assertRaises(SystemExit) as e:
            self.tool.write_pfn_compat(
                self.legion, os.path.join(root, "include"), 13000,
                os.path.join(self.tmp, "bad"), shutil.which("g++") or "c++")
        self.assertEqual(e.exception.code, 1)

    def run_tool(self, root, *args):
        env = dict(os.environ, PATH=os.path.join(root, "bin") + os.pathsep +
                   os.environ["PATH"])
        return subprocess.run([sys.executable, TOOL, self.legion, "--build",
                               os.path.join(self.tmp, "build")] + list(args),
                              stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                              universal_newlines=True, env=env)

    def test_without_nvml_it_refuses_naming_the_line(self):
        root = self.toolkit(13000, TYPEDEFS_13)
        p = self.run_tool(root)
        self.assertEqual(p.returncode, 2, p.stdout)
        self.assertIn("runtime/realm/cuda/cuda_internal.h:7 includes <nvml.h>",
                      p.stdout)
        self.assertIn("--nvml-include DIR", p.stdout)
        p = self.run_tool(root, "--nvml-include", self.tmp)
        self.assertEqual(p.returncode, 2, p.stdout)
        self.assertIn("no nvml.h there", p.stdout)
        # Nothing was configured or edited.
        self.assertFalse(os.path.exists(os.path.join(self.tmp, "build",
                                                     "CMakeCache.txt")))

    def test_a_toolkit_with_nvml_needs_no_option(self):
        # The refusal is only for a toolkit without nvml.h; this one gets
        # past it and stops at tracking, which the synthetic tree lacks.
        root = self.toolkit(12080, TYPEDEFS_12, nvml=True)
        p = self.run_tool(root, "--no-enable")
        self.assertNotIn("nvml", p.stdout)
        self.assertIn("tracking is not on", p.stdout)
        self.assertEqual(p.returncode, 1, p.stdout)

    def configure(self, *args):
        """main() with every command it would run recorded instead (each
        answered 0): the commands, and what main returned."""
        root = self.toolkit(13000, TYPEDEFS_13, nvml=True)
        commands = []
        self.tool.run = lambda cmd, log, env=None, cwd=None: (
            commands.append(cmd) or (0, 1.0))
        path = os.environ["PATH"]
        os.environ["PATH"] = os.path.join(root, "bin") + os.pathsep + path
        try:
            status = self.tool.main([self.legion, "--build",
                                     os.path.join(self.tmp, "build"),
                                     "--no-enable"] + list(args))
        finally:
            os.environ["PATH"] = path
        return commands, status

    def test_configure_is_for_the_device_and_each_stage_is_built(self):
        commands, status = self.configure("--stages", "realm,legion")
        self.assertEqual(status, 0)
        check, configure, realm, legion = commands
        self.assertIn("--check", check)
        for flag in ("-DLegion_USE_CUDA=ON", "-DCMAKE_CUDA_ARCHITECTURES=90",
                     "-DLegion_OUTPUT_LEVEL=DEBUG",
                     # not Legion's -march=native: this machine's AVX-512
                     # would stop the device's run with SIGILL
                     "-DBUILD_MARCH=x86-64-v3"):
            self.assertIn(flag, configure)
        cxx_flags = [a for a in configure if a.startswith("-DCMAKE_CXX_FLAGS=")]
        self.assertEqual(len(cxx_flags), 1)
        self.assertRegex(cxx_flags[0], r"-include \S+/realm_pfn_compat\.h")
        self.assertEqual(realm[-1], "RealmRuntime")
        self.assertEqual(legion[-2:], ["LegionRuntime", "circuit"])
        with open(os.path.join(self.tmp, "build",
                               "realm-shadow-cuda-build.json")) as f:
            table = json.load(f)
        self.assertEqual([r["stage"] for r in table],
                         ["configure", "realm", "legion"])
        commands, _ = self.configure("--stages", "realm", "--march", "native")
        self.assertIn("-DBUILD_MARCH=native", commands[1])


if __name__ == "__main__":
    TOOL = os.path.abspath(sys.argv[1])
    unittest.main(argv=sys.argv[:1], verbosity=2)
