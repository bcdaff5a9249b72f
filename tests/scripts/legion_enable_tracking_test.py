#!/usr/bin/env python3
"""scripts/legion-enable-tracking on small synthetic Legion-shaped trees.

The trees are written here, not copied from Legion: each file holds only
the identifiers and statement shapes the tool anchors on (a function's
qualified name and parameters, `allocated[tag] = idx;`, a CMake command),
in the three shapes Legion has had: 25.03 (no reuse_storage_immediate),
25.06, and master (MemoryImpl constructors take a RuntimeImpl), with or
without Realm's CUDA module (runtime/realm/cuda/).

usage: legion_enable_tracking_test.py PATH/TO/legion-enable-tracking
"""
import hashlib
import os
import re
import shutil
import subprocess
import sys
import tempfile
import unittest

TOOL = None

MEM_IMPL_H = """\
// synthetic stand-in for runtime/realm/mem_impl.h
#ifndef SYNTH_MEM_IMPL_H
#define SYNTH_MEM_IMPL_H

#include "realm/memory.h"
#include <vector>

namespace Realm {

  template <typename RT, typename TT>
  class BasicRangeAllocator {
  public:
    struct Range { RT first, last; };
    std::map<TT, unsigned> allocated;
    std::vector<Range> ranges;

    void swap(BasicRangeAllocator<RT, TT>& swap_with);
  };

}; // namespace Realm

#include "realm/mem_impl.inl"
#endif
"""

MEM_IMPL_INL = """\
// synthetic stand-in for runtime/realm/mem_impl.inl
namespace Realm {

  template <typename RT, typename TT>
  inline void BasicRangeAllocator<RT,TT>::swap(BasicRangeAllocator<RT, TT>& swap_with)
  {
    allocated.swap(swap_with.allocated);
    ranges.swap(swap_with.ranges);
  }

  template <typename RT, typename TT>
  inline size_t BasicRangeAllocator<RT, TT>::split_range(
      TT old_tag, const std::vector<TT> &new_tags, const std::vector<RT> &sizes,
      const std::vector<RT> &alignments, std::vector<RT> &allocs_first, bool missing_ok)
  {
    if(new_tags.empty()) {
      return 0;
    }
    return new_tags.size();
  }

  template <typename RT, typename TT>
  inline bool BasicRangeAllocator<RT,TT>::allocate(TT tag, RT size, RT alignment, RT& alloc_first)
  {
    if(size == 0) {
      allocated[tag] = SENTINEL;
      return true;
    }
    unsigned idx = 1;
    {
\talloc_first = 0;
\tallocated[tag] = idx;

\treturn true;
    }
  }

  template <typename RT, typename TT>
  inline void BasicRangeAllocator<RT, TT>::deallocate(unsigned del_idx)
  {
    if(del_idx == SENTINEL)
      return;
  }

  template <typename RT, typename TT>
  inline void BasicRangeAllocator<RT, TT>::deallocate(TT tag, bool missing_ok /*= false*/)
  {
    typename std::map<TT, unsigned>::iterator it = allocated.find(tag);
    unsigned del_idx = it->second;
    allocated.erase(it);

    deallocate(del_idx);
  }

}; // namespace Realm
"""

CTOR_2506 = """\
    LocalManagedMemory::LocalManagedMemory(Memory _me, size_t _size,
					   MemoryKind _kind, size_t _alignment,
					   Memory::Kind _lowlevel_kind,
					   NetworkSegment *_segment)
      : MemoryImpl(_me, _size, _kind, _lowlevel_kind, _segment)
      , alignment(_alignment)
    {
      current_allocator.add_range(0, _size);
    }
"""

CTOR_MASTER = """\
  LocalManagedMemory::LocalManagedMemory(RuntimeImpl *_runtime_impl, Memory _me,
                                         size_t _size, MemoryKind _kind,
                                         size_t _alignment, Memory::Kind _lowlevel_kind,
                                         NetworkSegment *_segment)
    : MemoryImpl(_runtime_impl, _me, _size, _kind, _lowlevel_kind, _segment)
    , alignment(_alignment)
  {
    current_allocator.add_range(0, _size);
  }
"""

REUSE_IMMEDIATE = """\
  MemoryImpl::AllocationResult LocalManagedMemory::reuse_storage_immediate(
      RegionInstanceImpl *old_inst, std::vector<RegionInstanceImpl *> &new_insts,
      bool poisoned, TimeLimit work_until)
  {
    // external instances first
    return ALLOC_INSTANT_SUCCESS;
  }
"""

MEM_IMPL_CC = """\
// synthetic stand-in for runtime/realm/mem_impl.cc
#include "realm/mem_impl.h"

namespace Realm {

{ctor}
    MemoryImpl::AllocationResult LocalManagedMemory::allocate_storage_deferrable(RegionInstanceImpl *inst,
										 bool need_alloc_result,
										 Event precondition)
    {
      // all requests are handled by the owner
      return ALLOC_DEFERRED;
    }

    void LocalManagedMemory::release_storage_deferrable(RegionInstanceImpl *inst,
							Event precondition)
    {
      NodeID target = 0;
    }

    MemoryImpl::AllocationResult LocalManagedMemory::reuse_storage_deferrable(
        RegionInstanceImpl *old_inst, std::vector<RegionInstanceImpl *> &new_insts,
        Event precondition)
    {
      return ALLOC_DEFERRED;
    }

{reuse}
  // should only be called by RegionInstance::DeferredDestroy
  void LocalManagedMemory::release_storage_immediate(RegionInstanceImpl *inst,
                                                     bool poisoned, TimeLimit work_until)
  {
    if(inst->metadata.ext_resource != 0) {
      return;
    }
  }

}; // namespace Realm
"""

INST_IMPL_CC = """\
// synthetic stand-in for runtime/realm/inst_impl.cc
#include "realm/inst_impl.h"
#include "realm/mem_impl.h"

namespace Realm {

    void RegionInstanceImpl::notify_allocation(MemoryImpl::AllocationResult result,
					       size_t offset, TimeLimit work_until)
    {
      // forward to the creator node if needed
      NodeID creator_node = 0;
    }

}; // namespace Realm
"""

LEGION_INSTANCES_CC = """\
// synthetic stand-in for runtime/legion/legion_instances.cc
#include "legion.h"
#include "legion/runtime.h"

namespace Legion {
  namespace Internal {

    void PhysicalManager::notify_valid(bool need_check)
    {
#ifdef DEBUG_LEGION
      assert(gc_state != VALID_GC_STATE);
#else
      if (gc_state == COLLECTED_GC_STATE)
        REPORT_LEGION_FATAL(LEGION_FATAL_GARBAGE_COLLECTION_RACE,
                "a race")
#endif
      gc_state = VALID_GC_STATE;
      add_base_gc_ref(INTERNAL_VALID_REF);
    }

    bool PhysicalManager::notify_invalid(AutoLock &i_lock)
    {
      {
        gc_state = COLLECTABLE_GC_STATE;
      }
      if (--pending_changes == 0)
        gc_state = COLLECTABLE_GC_STATE;
      return false;
    }

    PhysicalManager* InstanceBuilder::create_physical_instance(
        RegionTreeForest *forest, LayoutConstraintKind *unsat_kind,
        unsigned *unsat_index, size_t *footprint, RtEvent precondition,
        PhysicalInstance hole, LgEvent hole_unique)
    //--------------------------------------------------------------------------
    {
      PhysicalManager *result = NULL;
      if (!allocated)
        return NULL;
      if (field_sizes.empty())
      {
        return result;
      }
      result = new PhysicalManager();
      return result;
    }

  }; // namespace Internal
}; // namespace Legion
"""

RUNTIME_CC = """\
// synthetic stand-in for runtime/legion/runtime.cc
#include "legion.h"
#ifdef LEGION_USE_CUDA
#include <cuda.h>
#endif

#define REPORT_DUMMY(message) \\
  report(message)

namespace Legion {
  namespace Internal {

    PhysicalInstance ConcretePool::allocate_instance(UniqueID creator_uid,
        LgEvent unique_event, const Realm::InstanceLayoutGeneric *layout,
        RtEvent &use_event)
    {
      if (layout->bytes_used == 0)
      {
        PhysicalInstance instance;
        allocated[instance] = SENTINEL;
        return instance;
      }
      unsigned range_index = allocate(layout->bytes_used);
      if (range_index != SENTINEL)
      {
        const size_t offset = 0;
        const Range &range = ranges[range_index];
        PhysicalInstance instance;
        allocated[instance] = range_index;
        return instance;
      }
      else
        return PhysicalInstance::NO_INST;
    }

    void ConcretePool::free_instance(PhysicalInstance instance,
                                     RtEvent precondition, LgEvent unique_event)
    //--------------------------------------------------------------------------
    {
#ifdef DEBUG_LEGION
      assert(instance.exists());
#endif
      allocated.erase(instance);
    }

    void ConcretePool::release_pool(UniqueID creator)
    {
      backing_instances.clear();
    }

    MemoryPool* MemoryManager::create_memory_pool(UniqueID creator_uid,
                     TaskTreeCoordinates &coordinates, const PoolBounds &bounds,
                     RtEvent *safe_for_unbounded_pools)
    {
      if (bounds.size == 0)
        return new ConcretePool(PhysicalInstance::NO_INST, bounds.size);
      PhysicalInstance instance = make();
      if (!instance.exists())
        return NULL;
      return new ConcretePool(instance, bounds.size, bounds.alignment,
                              use_event, unique_event, this);
    }

    PhysicalInstance MemoryManager::create_task_local_instance(
        UniqueID creator_uid, const TaskTreeCoordinates &coordinates,
        LgEvent unique_event, const Realm::InstanceLayoutGeneric *layout,
        RtEvent &use_event, RtEvent *safe_for_unbounded_pools)
    {
      PhysicalInstance instance = PhysicalInstance::NO_INST;
      if (safe_for_unbounded_pools != NULL)
        return instance;
      return instance;
    }

    FutureInstance* MemoryManager::create_future_instance(UniqueID creator_uid,
                            const TaskTreeCoordinates &coordinates, size_t size,
                            RtEvent *safe_for_unbounded_pools)
    {
      PhysicalInstance instance = make();
      if (!instance.exists())
        return NULL;
      return new FutureInstance(NULL/*data*/, size,
              false/*external*/, true/*own allocation*/);
    }

  }; // namespace Internal
}; // namespace Legion
"""

TOP_CMAKE = """\
cmake_minimum_required(VERSION 3.22 FATAL_ERROR)
project(Legion)
#------------------------------------------------------------------------------#
# Runtime library targets
#------------------------------------------------------------------------------#
add_subdirectory(runtime)
add_subdirectory(examples)
"""

RUNTIME_CMAKE = """\
find_package(Threads REQUIRED)
add_library(RealmRuntime ${REALM_SRC})
add_library(RealmStatic STATIC EXCLUDE_FROM_ALL ${REALM_SRC}) # static library for realm unit test
target_link_libraries(RealmRuntime PRIVATE ${CMAKE_DL_LIBS})
"""

CONFIG_IN = """\
set(Legion_NETWORKS @Legion_NETWORKS@)

include(${CMAKE_CURRENT_LIST_DIR}/LegionTargets.cmake)
"""

# Realm's CUDA module (runtime/realm/cuda/): the framebuffer and zero-copy
# memories derive from LocalManagedMemory; the dynamic framebuffer is a
# MemoryImpl with a mutex, a cap and a map of device pointers.
CUDA_INTERNAL_H = """\
// synthetic stand-in for runtime/realm/cuda/cuda_internal.h
#ifndef SYNTH_CUDA_INTERNAL_H
#define SYNTH_CUDA_INTERNAL_H

#include "realm/mem_impl.h"

namespace Realm {
  namespace Cuda {
    class GPUFBMemory;
    class GPUDynamicFBMemory;

    class GPUFBMemory : public LocalManagedMemory {
    public:
      virtual void *get_direct_ptr(off_t offset, size_t size);
      CUdeviceptr base;
    };

    class GPUDynamicFBMemory : public MemoryImpl {
    public:
      virtual AllocationResult allocate_storage_immediate(RegionInstanceImpl *inst,
                                                          bool need_alloc_result,
                                                          bool poisoned,
                                                          TimeLimit work_until);
      Mutex mutex;
      size_t cur_size;
      std::map<RegionInstance, std::pair<CUdeviceptr, size_t> > alloc_bases;
      NetworkSegment local_segment;
    };

    class GPUZCMemory : public LocalManagedMemory {
    public:
      virtual void *get_direct_ptr(off_t offset, size_t size);
      char *cpu_base;
    };
  }; // namespace Cuda
}; // namespace Realm
#endif
"""

DYNFB_CTOR_2506 = """\
    GPUDynamicFBMemory::GPUDynamicFBMemory(Memory _me, GPU *_gpu,
                                           size_t _max_size)
      : MemoryImpl(_me, _max_size, MKIND_GPUFB, Memory::GPU_DYNAMIC_MEM, 0)
      , gpu(_gpu)
      , cur_size(0)
    {
      segment = &local_segment;
    }
"""

DYNFB_CTOR_MASTER = """\
    GPUDynamicFBMemory::GPUDynamicFBMemory(RuntimeImpl *_runtime_impl, Memory _me,
                                           GPU *_gpu, size_t _max_size)
      : MemoryImpl(_runtime_impl, _me, _max_size, MKIND_GPUFB, Memory::GPU_DYNAMIC_MEM, 0)
      , gpu(_gpu)
      , cur_size(0)
    {
      segment = &local_segment;
    }
"""

CUDA_MODULE_CC = """\
// synthetic stand-in for runtime/realm/cuda/cuda_module.cc
#include "realm/cuda/cuda_internal.h"

namespace Realm {
  namespace Cuda {

{ctor}
    GPUDynamicFBMemory::~GPUDynamicFBMemory(void)
    {
      cleanup();
    }

    MemoryImpl::AllocationResult GPUDynamicFBMemory::allocate_storage_immediate(RegionInstanceImpl *inst,
                                                                                bool need_alloc_result,
                                                                                bool poisoned,
                                                                                TimeLimit work_until)
    {
      size_t bytes = inst->metadata.layout->bytes_used;
      CUdeviceptr base = 0;
      if(bytes > size) {
        inst->notify_allocation(ALLOC_INSTANT_FAILURE, 0, work_until);
        return ALLOC_INSTANT_FAILURE;
      }
      {
        AutoLock<> al(mutex);
        alloc_bases[inst->me] = std::make_pair(base, bytes);
      }

      inst->notify_allocation(ALLOC_INSTANT_SUCCESS, base, work_until);
      return ALLOC_INSTANT_SUCCESS;
    }

    void GPUDynamicFBMemory::release_storage_immediate(RegionInstanceImpl *inst,
                                                       bool poisoned,
                                                       TimeLimit work_until)
    {
      CUdeviceptr base;
      {
        AutoLock<> al(mutex);
        std::map<RegionInstance, std::pair<CUdeviceptr, size_t> >::iterator it = alloc_bases.find(inst->me);
        base = it->second.first;
        cur_size -= it->second.second;
        alloc_bases.erase(it);
      }

      inst->notify_deallocation();
    }

  }; // namespace Cuda
}; // namespace Realm
"""

PROFILES = {
    "25.03": ("legion-25.03.0", CTOR_2506, ""),
    "25.06": ("legion-25.06.0", CTOR_2506, REUSE_IMMEDIATE),
    "master": ("legion-25.03.0", CTOR_MASTER, REUSE_IMMEDIATE),
}

# Marked lines each profile gets (25.03 lacks reuse_storage_immediate).
EXPECTED_LINES = {"25.03": 29, "25.06": 30, "master": 30}


# Lines the CUDA module adds: the dynamic framebuffer's member, constructor,
# allocation and release.
CUDA_LINES = 4


def write_tree(root, profile, cuda=False):
    version, ctor, reuse = PROFILES[profile]
    files = {
        "VERSION": version + "\n",
        "CMakeLists.txt": TOP_CMAKE,
        "runtime/CMakeLists.txt": RUNTIME_CMAKE,
        "cmake/LegionConfigCommon.cmake.in": CONFIG_IN,
        "runtime/realm/mem_impl.h": MEM_IMPL_H,
        "runtime/realm/mem_impl.inl": MEM_IMPL_INL,
        "runtime/realm/mem_impl.cc": MEM_IMPL_CC.replace("{ctor}", ctor)
                                                .replace("{reuse}", reuse),
        "runtime/realm/inst_impl.cc": INST_IMPL_CC,
        "runtime/legion/legion_instances.cc": LEGION_INSTANCES_CC,
        "runtime/legion/runtime.cc": RUNTIME_CC,
    }
    if cuda:
        files["runtime/realm/cuda/cuda_internal.h"] = CUDA_INTERNAL_H
        files["runtime/realm/cuda/cuda_module.cc"] = CUDA_MODULE_CC.replace(
            "{ctor}", DYNFB_CTOR_MASTER if profile == "master"
            else DYNFB_CTOR_2506)
    for rel, text in files.items():
        path = os.path.join(root, rel)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w", newline="") as f:
            f.write(text)


def digest(root):
    out = {}
    for dp, _, fs in os.walk(root):
        for f in fs:
            p = os.path.join(dp, f)
            with open(p, "rb") as h:
                out[os.path.relpath(p, root)] = hashlib.sha256(h.read()).hexdigest()
    return out


def run(root, *args):
    p = subprocess.run([sys.executable, TOOL, root, "--no-build",
                        "--prefix", "/opt/realm-shadow-test"] + list(args),
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                       universal_newlines=True)
    return p.returncode, p.stdout


def read(root, rel):
    with open(os.path.join(root, rel), newline="") as f:
        return f.read()


def line_after(text, anchor):
    lines = text.splitlines()
    for i, l in enumerate(lines):
        if l.strip() == anchor:
            return lines[i + 1]
    raise AssertionError("no line %r" % anchor)


class Tree(unittest.TestCase):
    """A synthetic tree per test, and the tool run on it."""

    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="legion-enable-tracking-")

    def tearDown(self):
        shutil.rmtree(self.tmp, ignore_errors=True)

    def tree(self, profile="25.06", cuda=False):
        root = os.path.join(self.tmp, profile + ("-cuda" if cuda else ""))
        shutil.rmtree(root, ignore_errors=True)
        write_tree(root, profile, cuda)
        return root

    def refused(self, root, needle):
        before = digest(root)
        rc, out = run(root)
        self.assertEqual(rc, 1, out)
        self.assertIn("anchor not found", out)
        self.assertIn(needle, out)
        self.assertIn("nothing was changed", out)
        self.assertEqual(digest(root), before)

    def mutate(self, root, rel, old, new):
        text = read(root, rel)
        self.assertIn(old, text)
        with open(os.path.join(root, rel), "w", newline="") as f:
            f.write(text.replace(old, new))

    def refuses_edit(self, profile, rel, old, new, *needles, cuda=False):
        """A fresh tree of `profile` with `old` replaced by `new` in `rel`
        is refused, the output naming each of `needles`."""
        root = self.tree(profile, cuda)
        self.mutate(root, rel, old, new)
        for needle in needles:
            self.refused(root, needle)


class Tool(Tree):
    def test_each_profile_gets_every_site(self):
        for profile in PROFILES:
            with self.subTest(profile=profile):
                root = self.tree(profile)
                rc, out = run(root)
                self.assertEqual(rc, 0, out)
                self.assertIn("Legion " + profile, out)
                marked = sum(len(re.findall(r"(//|#) realm-shadow:[a-z0-9-]+\n",
                                            read(root, rel)))
                             for rel in digest(root))
                self.assertEqual(marked, EXPECTED_LINES[profile], out)
                cc = read(root, "runtime/realm/mem_impl.cc")
                self.assertEqual("reuse-fired" in cc, profile != "25.03")
                self.assertIn("realm_shadow::site::ObserveManagedMemory(me, "
                              "_lowlevel_kind, _size, current_allocator, "
                              "future_allocator);", cc)

    def test_edits_sit_at_their_anchors_with_the_anchors_indentation(self):
        root = self.tree()
        rc, out = run(root)
        self.assertEqual(rc, 0, out)
        inl = read(root, "runtime/realm/mem_impl.inl")
        self.assertEqual(line_after(inl, "allocated[tag] = idx;"),
                         "\tshadow_observer.Placed(tag, alloc_first, size, "
                         "alignment);  // realm-shadow:heap-placed")
        self.assertEqual(line_after(inl, "allocated[tag] = SENTINEL;"),
                         "      shadow_observer.Placed(tag, 0, 0, alignment);"
                         "  // realm-shadow:heap-placed-empty")
        self.assertEqual(line_after(inl, "allocated.erase(it);").strip(),
                         "shadow_observer.Removed(tag);  // realm-shadow:heap-removed")
        self.assertIn("  {\n    auto shadow_split = realm_shadow::HeapSplit(*this, "
                      "old_tag, new_tags, sizes, alignments);", inl)
        self.assertIn("    ranges.swap(swap_with.ranges);\n    realm_shadow::"
                      "HeapSwapped(*this, swap_with);  // realm-shadow:heap-swapped\n  }",
                      inl)
        h = read(root, "runtime/realm/mem_impl.h")
        self.assertEqual(line_after(h, "std::vector<Range> ranges;").strip(),
                         "realm_shadow::HeapObserver shadow_observer;  "
                         "// realm-shadow:heap-observer")
        self.assertIn('#include <vector>\n\n#include "realm_shadow/realm_sites.h"'
                      '  // realm-shadow:include\nnamespace Realm {', h)
        # runtime.cc: the include goes after the #ifdef block, before the
        # namespace, never inside the conditional.
        rt = read(root, "runtime/legion/runtime.cc")
        self.assertIn('#endif\n\n#define REPORT_DUMMY', rt)
        self.assertIn('  report(message)\n\n#include "legion_glue/legion_sites.h"',
                      rt)
        # Only the last return of create_physical_instance gets the site.
        li = read(root, "runtime/legion/legion_instances.cc")
        self.assertEqual(li.count("realm-shadow:region-instance"), 1)
        self.assertIn("RegionInstanceCreated(memory_manager->memory, instance, "
                      "regions, constraints, field_space_node, creator_id, "
                      "implicit_mapper_call);  // realm-shadow:region-instance\n"
                      "      return result;\n    }", li)
        # After the brace-less "if (...) gc_state = ...;": outside the if.
        self.assertIn("      if (--pending_changes == 0)\n"
                      "        gc_state = COLLECTABLE_GC_STATE;\n"
                      "      realm_shadow::legion::site::GcStateChanged(", li)
        self.assertEqual(li.count("realm-shadow:gc-"), 3)
        # A first statement below an #ifdef takes the code's indentation.
        self.assertIn("    {\n      realm_shadow::legion::site::"
                      "PoolSubAllocationFreed(instance);", rt)
        top = read(root, "CMakeLists.txt")
        self.assertIn('find_package(RealmShadow 0.1 CONFIG REQUIRED HINTS '
                      '"/opt/realm-shadow-test")  # realm-shadow:cmake-find\n'
                      'add_subdirectory(runtime)', top)
        cm = read(root, "runtime/CMakeLists.txt")
        self.assertIn("target_link_libraries(RealmStatic PUBLIC "
                      "RealmShadow::realm_shadow RealmShadow::legion_glue)", cm)
        cfg = read(root, "cmake/LegionConfigCommon.cmake.in")
        self.assertIn('HINTS "@RealmShadow_DIR@" "/opt/realm-shadow-test")  '
                      '# realm-shadow:cmake-config\ninclude(', cfg)

    def test_second_run_changes_nothing_and_undo_restores_bytes(self):
        root = self.tree()
        before = digest(root)
        rc, out = run(root, "--check")
        self.assertEqual(rc, 3, out)
        self.assertEqual(digest(root), before)
        self.assertEqual(run(root)[0], 0)
        edited = digest(root)
        self.assertNotEqual(edited, before)
        rc, out = run(root)
        self.assertEqual(rc, 0, out)
        self.assertIn("nothing to change", out)
        self.assertEqual(digest(root), edited)
        rc, out = run(root, "--check")
        self.assertEqual(rc, 0, out)
        rc, out = run(root, "--undo")
        self.assertEqual(rc, 0, out)
        self.assertEqual(digest(root), before)
        rc, out = run(root, "--undo")  # nothing left to undo
        self.assertEqual(rc, 0, out)
        self.assertEqual(digest(root), before)

    def test_a_stale_edit_is_redone(self):
        root = self.tree()
        run(root)
        path = os.path.join(root, "runtime/realm/inst_impl.cc")
        text = read(root, "runtime/realm/inst_impl.cc")
        with open(path, "w", newline="") as f:
            f.write(text.replace("int(result)", "int(result) + 0"))
        rc, out = run(root, "--check")
        self.assertEqual(rc, 3, out)
        self.assertIn("stale", out)
        self.assertEqual(run(root)[0], 0)
        self.assertIn("AllocationOutcome(*this, int(result));",
                      read(root, "runtime/realm/inst_impl.cc"))
        self.assertNotIn("+ 0", read(root, "runtime/realm/inst_impl.cc"))

    def test_a_missing_anchor_stops_with_its_name_and_changes_nothing(self):
        self.refuses_edit("25.06", "runtime/realm/mem_impl.inl",
                          "    allocated.erase(it);\n", "    allocated.erase(tag);\n",
                          "allocated.erase(it);")
        self.refuses_edit("master", "runtime/legion/runtime.cc",
                          "ConcretePool::release_pool", "ConcretePool::drop_pool",
                          "ConcretePool::release_pool")
        self.refuses_edit("25.03", "runtime/CMakeLists.txt",
                          "add_library(RealmStatic", "add_library(RealmOther",
                          "add_library(RealmStatic")
        # A renamed parameter is found by its type, and used...
        root = self.tree("25.06")
        self.mutate(root, "runtime/realm/mem_impl.cc",
                    "Event precondition)\n    {\n      NodeID",
                    "Event pre)\n    {\n      NodeID")
        self.assertEqual(run(root)[0], 0)
        self.assertIn("ReleaseRequested(current_allocator.shadow_observer, "
                      "inst, pre);", read(root, "runtime/realm/mem_impl.cc"))
        # ...but neither name nor type: refused.
        self.refuses_edit("25.06", "runtime/realm/mem_impl.cc",
                          "Event precondition)\n    {\n      NodeID",
                          "GenEvent pre)\n    {\n      NodeID",
                          "has no parameter 'precondition'")

    def test_an_unknown_version_is_refused(self):
        self.refuses_edit("25.06", "runtime/realm/mem_impl.cc", REUSE_IMMEDIATE, "",
                          "reuse_storage_immediate")

    def test_a_braceless_body_is_never_edited(self):
        self.refuses_edit("25.06", "runtime/realm/mem_impl.inl",
                          "\talloc_first = 0;\n\tallocated[tag] = idx;",
                          "\tif(alloc_first == 0)\n\tallocated[tag] = idx;",
                          "brace-less 'if'")
        self.refuses_edit("master", "runtime/legion/legion_instances.cc",
                          "        gc_state = COLLECTABLE_GC_STATE;\n      return false;",
                          "        gc_state = COLLECTABLE_GC_STATE;\n      else\n"
                          "        gc_state = VALID_GC_STATE;\n      return false;",
                          "if with an else")

    def test_a_declaration_is_not_a_definition_and_duplicates_are_refused(self):
        root = self.tree()
        self.mutate(root, "runtime/realm/inst_impl.cc", "namespace Realm {\n",
                    "namespace Realm {\n  void RegionInstanceImpl::"
                    "notify_allocation(MemoryImpl::AllocationResult result);\n")
        self.assertEqual(run(root)[0], 0)
        self.refuses_edit("25.03", "runtime/realm/inst_impl.cc", "}; // namespace Realm",
                          "    void RegionInstanceImpl::notify_allocation("
                          "int result)\n    {\n    }\n}; // namespace Realm",
                          "defined 2 times")

    def test_not_a_legion_checkout(self):
        root = os.path.join(self.tmp, "realm")
        os.makedirs(os.path.join(root, "src", "realm"))
        open(os.path.join(root, "src", "realm", "mem_impl.cc"), "w").close()
        rc, out = run(root)
        self.assertEqual(rc, 1, out)
        self.assertIn("standalone Realm", out)
        rc, out = run(os.path.join(self.tmp, "nothing-here"))
        self.assertEqual(rc, 1, out)
        rc, out = run(self.tmp)
        self.assertEqual(rc, 1, out)
        self.assertIn("Legion checkout", out)

    def test_comments_and_strings_do_not_count_as_code(self):
        root = self.tree()
        # A commented-out copy of an anchor must not make it appear twice.
        self.mutate(root, "runtime/realm/mem_impl.inl",
                    "\talloc_first = 0;\n",
                    "\talloc_first = 0;\n\t// allocated[tag] = idx;\n"
                    "\tconst char *s = \"allocated[tag] = idx; {\";\n")
        rc, out = run(root)
        self.assertEqual(rc, 0, out)
        self.assertEqual(read(root, "runtime/realm/mem_impl.inl")
                         .count("realm-shadow:heap-placed\n"), 1)


class CudaModule(Tree):
    """Realm's CUDA module: the dynamic framebuffer's sites, and the check
    that the framebuffer and zero-copy memories stay LocalManagedMemory."""

    def marked(self, root):
        return sum(len(re.findall(r"(//|#) realm-shadow:[a-z0-9-]+\n",
                                  read(root, rel))) for rel in digest(root))

    def test_each_profile_gets_the_dynamic_framebuffer_sites(self):
        for profile in PROFILES:
            with self.subTest(profile=profile):
                root = self.tree(profile, cuda=True)
                rc, out = run(root)
                self.assertEqual(rc, 0, out)
                self.assertNotIn("is not in this checkout", out)
                self.assertEqual(self.marked(root),
                                 EXPECTED_LINES[profile] + CUDA_LINES, out)
                cc = read(root, "runtime/realm/cuda/cuda_module.cc")
                self.assertIn(
                    "      segment = &local_segment;\n      realm_shadow::site::"
                    "ObserveDynamicFramebuffer(shadow_memory, me, _max_size);  "
                    "// realm-shadow:dynamic-fb-observe\n    }\n", cc)
                # Under the mutex: inside the AutoLock's block.
                self.assertIn(
                    "        alloc_bases[inst->me] = std::make_pair(base, bytes);\n"
                    "        realm_shadow::site::DynamicFramebufferAllocated("
                    "shadow_memory, inst, base, bytes);  // realm-shadow:"
                    "dynamic-fb-allocated\n      }\n", cc)
                self.assertIn(
                    "        alloc_bases.erase(it);\n        realm_shadow::site::"
                    "DynamicFramebufferReleased(shadow_memory, inst);  // "
                    "realm-shadow:dynamic-fb-released\n      }\n", cc)
                # No failure site: notify_allocation's site records them.
                self.assertEqual(cc.count("realm-shadow:"), 3)
                h = read(root, "runtime/realm/cuda/cuda_internal.h")
                self.assertIn(
                    "std::pair<CUdeviceptr, size_t> > alloc_bases;\n      "
                    "realm_shadow::site::DynamicFramebufferShadow shadow_memory;"
                    "  // realm-shadow:dynamic-fb-member\n      NetworkSegment",
                    h)
                self.assertEqual(h.count("realm-shadow:"), 1)

    def test_without_the_module_its_sites_are_skipped_and_said_so(self):
        rc, out = run(self.tree())
        self.assertEqual(rc, 0, out)
        self.assertIn("the CUDA module is not in this checkout", out)
        self.assertIn("runtime/realm/cuda/cuda_module.cc", out)

    def test_second_run_changes_nothing_and_undo_restores_bytes(self):
        for profile in ("25.06", "master"):
            with self.subTest(profile=profile):
                root = self.tree(profile, cuda=True)
                before = digest(root)
                self.assertEqual(run(root, "--check")[0], 3)
                self.assertEqual(digest(root), before)
                self.assertEqual(run(root)[0], 0)
                edited = digest(root)
                rc, out = run(root)
                self.assertEqual(rc, 0, out)
                self.assertIn("nothing to change", out)
                self.assertEqual(digest(root), edited)
                self.assertEqual(run(root, "--check")[0], 0)
                rc, out = run(root, "--undo")
                self.assertEqual(rc, 0, out)
                self.assertIn("%d marked line(s) removed"
                              % (EXPECTED_LINES[profile] + CUDA_LINES), out)
                self.assertEqual(digest(root), before)

    def test_a_missing_cuda_anchor_stops_with_its_name(self):
        cc, h = ("runtime/realm/cuda/cuda_module.cc",
                 "runtime/realm/cuda/cuda_internal.h")
        self.refuses_edit("25.06", cc, "        alloc_bases.erase(it);\n",
                          "        alloc_bases.erase(inst->me);\n",
                          "alloc_bases.erase(it);", cuda=True)
        self.refuses_edit("master", cc,
                          "alloc_bases[inst->me] = std::make_pair(base, bytes);",
                          "alloc_bases.insert(std::make_pair(inst->me, base));",
                          "alloc_bases[inst->me] = std::make_pair(base, bytes);",
                          cuda=True)
        self.refuses_edit("25.06", h, "      std::map<RegionInstance, std::pair<CUdeviceptr,"
                          " size_t> > alloc_bases;\n", "",
                          "alloc_bases;' of GPUDynamicFBMemory", cuda=True)
        self.refuses_edit("master", cc, "GPUDynamicFBMemory::GPUDynamicFBMemory(",
                          "GPUDynamicFBMemory::Make(",
                          "GPUDynamicFBMemory::GPUDynamicFBMemory", cuda=True)
        # Half a module: refused, naming the missing file.
        root = self.tree("25.06", cuda=True)
        os.remove(os.path.join(root, cc))
        self.refused(root, "file " + cc)

    def test_a_framebuffer_off_the_observed_heaps_is_refused(self):
        h = "runtime/realm/cuda/cuda_internal.h"
        self.refuses_edit("25.06", h, "class GPUFBMemory : public LocalManagedMemory {",
                          "class GPUFBMemory : public MemoryImpl {",
                          "class GPUFBMemory : public LocalManagedMemory", cuda=True)
        self.refuses_edit("master", h, "      char *cpu_base;\n",
                          "      char *cpu_base;\n      virtual AllocationResult "
                          "allocate_storage_immediate(RegionInstanceImpl *inst,\n",
                          "GPUZCMemory", "overrides LocalManagedMemory's", cuda=True)

    def test_a_renamed_cap_parameter_is_found_by_its_type(self):
        root = self.tree("25.06", cuda=True)
        cc = "runtime/realm/cuda/cuda_module.cc"
        self.mutate(root, cc, "size_t _max_size)\n      : MemoryImpl(_me, _max_size,",
                    "size_t max_bytes)\n      : MemoryImpl(_me, max_bytes,")
        rc, out = run(root)
        self.assertEqual(rc, 0, out)
        self.assertIn("ObserveDynamicFramebuffer(shadow_memory, me, max_bytes);",
                      read(root, cc))


if __name__ == "__main__":
    TOOL = sys.argv.pop(1)
    unittest.main(verbosity=2)
