"""legion_glue/sites.py - every line realm-shadow inserts into Legion, as one table.

A site is one line inserted into a Legion checkout (Realm's allocator, Legion's
runtime, the CMake build), ending in the marker "realm-shadow:<marker>".  Each
row of SITES below is one site: the file, the marker, the anchor that finds
the place (a function's qualified name and parameters, a statement's exact
shape, a CMake command), and the line, whose {placeholders} are the names the
checkout gives those parameters.  Everything else reads this table:

  scripts/legion-enable-tracking   plans its edits from these rows, nothing else
  legion_glue/INTEGRATION.md       its table of edits is generated from them:
                                   python3 legion_glue/sites.py --update
  tests/scripts/sites_table_test.py  checks that the rows, that document and
                                   the helpers the lines call agree: every
                                   site is in the document, and every helper
                                   is declared in realm_shadow/realm_sites.h
                                   (heap_observer.h) or legion_glue/
                                   legion_sites.h, compiled-out form included

Why a Python module and not a data file (JSON, TOML, YAML): the anchors are
regular expressions, which a raw string keeps as written where JSON would
double every backslash; rows want comments giving their reasons; the tool
runs on the standard library alone, and Python before 3.11 reads no TOML and
no Python reads YAML without a package; and its only readers are Python.  The
rows are plain data: how a placement is carried out (masking comments,
matching braces, refusing a brace-less if) stays in the tool.
"""

from dataclasses import dataclass, field
import re
import sys

# ---------------------------------------------------------------------------
# What a row says.

# How a row's line is placed.  Every one of them finds exactly the place it
# names or refuses (a missing or doubled anchor stops the whole plan).
PLACES = {
    # '#include' line before the file's first top-level namespace, at the
    # preprocessor depth of its first #include.
    "include": "before its first top-level `namespace`",
    # After the one member statement `statement` inside class `container`.
    "member": "`{container}`, after `{statement}`",
    # First statement of `function`'s body.
    "first": "`{function}`, first statement",
    # Last statement of `function`'s body (a void function: no return last).
    "last": "`{function}`, last statement",
    # After / before the one statement of `function` matching `statement`.
    "after": "`{function}`, after `{statement}`",
    "before": "`{function}`, before `{statement}`",
    # Before the last of the statements of `function` matching `statement`.
    "before-last": "`{function}`, before its last `{statement}`",
    # After every statement of the file matching `statement` (at least one);
    # when it is the body of a brace-less if without else, after the if.
    "after-each": "after each `{statement}`",
    # Before / after the one CMake line matching `statement`.
    "cmake-before": "before `{statement}`",
    "cmake-after": "after `{statement}`",
    # Nothing inserted: the class `container` (a regex up to its '{') must
    # exist, and no line of its body may match `statement` (what would take
    # it off the path the other sites observe).
    "derives": "`{container}` must derive from `LocalManagedMemory` and "
               "override none of `{statement}`",
}

# A {placeholder} in a line, statement or name: a parameter of the row, or
# {prefix} (realm-shadow's install prefix).  Lower case only, so that a
# regex's ${REALM_SRC} or {2} is never taken for one.
PLACEHOLDER = re.compile(r"\{([a-z_][a-z_0-9]*)\}")


@dataclass
class Site:
    file: str          # relative to the Legion checkout
    marker: str        # the line ends in "realm-shadow:<marker>"
    place: str         # a key of PLACES
    line: str          # the inserted text, before the marker comment
    # The function whose body holds the place: a regex of its qualified name
    # (a definition, never a declaration or a call; exactly one), and how
    # messages and INTEGRATION.md name it.
    function: str = None
    function_name: str = None
    # The statement the place is next to: a regex matched against a whole
    # line of code (comments and strings blanked, stripped), and its name.
    statement: str = None
    statement_name: str = None
    # "member": the class, as a regex up to its '{', and its name.
    container: str = None
    container_name: str = None
    # {placeholder: type regex}: each parameter of `function` the line or
    # statement uses, found by its name, else as the only parameter whose
    # declared type matches the regex (None: by name only).
    params: dict = field(default_factory=dict)
    # Identifiers that must appear in the function's body (the line uses
    # them) and in the file, with the name a refusal gives for the latter.
    body_needs: tuple = ()
    file_needs: tuple = ()   # ((identifier, name), ...)
    # "after-each": marker and statement name per value of the statement's
    # (?P<state>...) group, lower-cased into the marker.
    markers: tuple = ()
    # The row applies only where the checkout's profile has this key true
    # (scripts/legion-enable-tracking detect_profile).
    when: str = None
    # What the group of files is for: counts and INTEGRATION.md.
    part: str = "Realm"
    # An optional group: a checkout without every one of its files gets none
    # of its rows (and is told so); with some of them only, it is refused.
    optional: str = None
    note: str = None   # said in INTEGRATION.md after the place

    def all_markers(self):
        return self.markers or (self.marker,)

    def comment(self):
        return "#" if self.place.startswith("cmake") else "//"


# Types of Realm's parameters, for parameters found by type.
INST = r"RegionInstanceImpl\s*\*$"
INSTS = r"std::vector\s*<\s*RegionInstanceImpl\s*\*\s*>"
EVENT = r"^Event$"
BOOL = r"^bool$"
SIZE = r"^size_t$"
UID = r"UniqueID"

# BasicRangeAllocator<RT, TT>:: as mem_impl.inl spells its definitions.
HEAP = r"BasicRangeAllocator\s*<[^<>;{]*>\s*::\s*"


def _function(name):
    """The anchor of a row in the one definition of function `name`, a
    qualified name that reads the same as a regex (no template, no
    operator): named as it is matched."""
    return dict(function=name, function_name=name)


def _heap_member(method, name=None):
    """The anchor of a row in the heap's member function `method` (a regex
    after HEAP), named BasicRangeAllocator<RT,TT>::`name` (`method` if
    None)."""
    return dict(function=HEAP + method,
                function_name="BasicRangeAllocator<RT,TT>::" + (name or method))


def _entry(name, helper, marker, params, **extra):
    """First statement of LocalManagedMemory::name: helper(
    current_allocator.shadow_observer, <params>)."""
    return Site(
        "runtime/realm/mem_impl.cc", marker, "first",
        "realm_shadow::site::%s(current_allocator.shadow_observer, %s);"
        % (helper, ", ".join("{%s}" % p for p in params)),
        function=r"LocalManagedMemory::" + name,
        function_name="LocalManagedMemory::" + name, params=params, **extra)


# The rows of Realm's optional CUDA module.
CUDA = dict(part="Realm CUDA", optional="the CUDA module")


def _managed(cls, marker):
    """Realm's CUDA memory `cls` must stay a LocalManagedMemory that leaves
    its allocation functions alone (nothing inserted)."""
    return Site(
        "runtime/realm/cuda/cuda_internal.h", marker, "derives", None,
        container=r"class\s+%s\s*:\s*public\s+LocalManagedMemory\s*\{" % cls,
        container_name=cls,
        statement=r".*\b(?:allocate|release|reuse)_storage_(?:deferrable|"
                  r"immediate)\s*\(.*",
        statement_name="allocate/release/reuse_storage_deferrable/immediate",
        **CUDA)


def _cmake_link(target, marker):
    """Realm's library `target` links realm-shadow, after the add_library
    that builds it from ${REALM_SRC}."""
    return Site(
        "runtime/CMakeLists.txt", marker, "cmake-after",
        "target_link_libraries(%s PUBLIC RealmShadow::realm_shadow "
        "RealmShadow::legion_glue)" % target,
        statement=r"add_library\s*\(\s*%s\b[^)]*\$\{REALM_SRC\}\s*\)"
                  r"\s*(#.*)?" % target,
        statement_name="add_library(%s ... ${REALM_SRC})" % target,
        part="CMake")


# ---------------------------------------------------------------------------
# The table.  Rows are planned in this order, file by file; two lines
# inserted at the same place keep it.

SITES = [
    # ---- Realm: the heaps (mem_impl.h, mem_impl.inl) -----------------------
    Site("runtime/realm/mem_impl.h", "include", "include",
         '#include "realm_shadow/realm_sites.h"'),
    Site("runtime/realm/mem_impl.h", "heap-observer", "member",
         "realm_shadow::HeapObserver shadow_observer;",
         container=r"class\s+BasicRangeAllocator\b[^;{]*\{",
         container_name="BasicRangeAllocator",
         statement=r"std::vector\s*<\s*Range\s*>\s*ranges\s*;",
         statement_name="std::vector<Range> ranges;"),
    # Zero-byte allocations: Realm maps them to SENTINEL, at offset 0.
    Site("runtime/realm/mem_impl.inl", "heap-placed-empty", "after",
         "shadow_observer.Placed({tag}, 0, 0, {alignment});",
         **_heap_member(r"allocate"),
         statement=r"allocated\s*\[\s*{tag}\s*\]\s*=\s*SENTINEL\s*;",
         statement_name="allocated[{tag}] = SENTINEL;",
         params={"tag": None, "alignment": None}),
    Site("runtime/realm/mem_impl.inl", "heap-placed", "after",
         "shadow_observer.Placed({tag}, {alloc_first}, {size}, {alignment});",
         **_heap_member(r"allocate"),
         statement=r"allocated\s*\[\s*{tag}\s*\]\s*=\s*idx\s*;",
         statement_name="allocated[{tag}] = idx;",
         params={"tag": None, "alignment": None, "size": None,
                 "alloc_first": r"&"}),
    # The overload taking a tag (the other takes a range index).
    Site("runtime/realm/mem_impl.inl", "heap-removed", "after",
         "shadow_observer.Removed({tag});",
         **_heap_member(r"deallocate(?=\s*\(\s*TT\b)",
                        "deallocate(TT, bool)"),
         statement=r"allocated\s*\.\s*erase\s*\(\s*it\s*\)\s*;",
         statement_name="allocated.erase(it);", params={"tag": None}),
    # An RAII scope: it reads the pieces back from the heap on every return.
    Site("runtime/realm/mem_impl.inl", "heap-split", "first",
         "auto shadow_split = realm_shadow::HeapSplit(*this, {old_tag}, "
         "{new_tags}, {sizes}, {alignments});",
         **_heap_member(r"split_range"),
         params={"old_tag": None, "new_tags": None, "sizes": None,
                 "alignments": None}),
    Site("runtime/realm/mem_impl.inl", "heap-swapped", "last",
         "realm_shadow::HeapSwapped(*this, {swap_with});",
         **_heap_member(r"swap"),
         params={"swap_with": r"BasicRangeAllocator"}),

    # ---- Realm: the managed memory (mem_impl.cc, inst_impl.cc) ---------------
    # Every LocalManagedMemory: system, regdma, socket, disk, GASNet/MPI
    # global, and the CUDA and HIP framebuffer, zero-copy and managed
    # memories, each with its own Memory::Kind.
    Site("runtime/realm/mem_impl.cc", "observe-memory", "after",
         "realm_shadow::site::ObserveManagedMemory(me, {_lowlevel_kind}, "
         "{_size}, current_allocator, future_allocator);",
         **_function("LocalManagedMemory::LocalManagedMemory"),
         statement=r"current_allocator\s*\.\s*add_range\s*\(\s*0\s*,\s*"
                   r"{_size}\s*\)\s*;",
         statement_name="current_allocator.add_range(0, {_size});",
         params={"_size": SIZE, "_lowlevel_kind": r"Memory::Kind"}),
    _entry("allocate_storage_deferrable", "AllocationRequested",
           "allocation-requested", {"inst": INST, "precondition": EVENT}),
    _entry("release_storage_deferrable", "ReleaseRequested",
           "release-requested", {"inst": INST, "precondition": EVENT}),
    _entry("reuse_storage_deferrable", "RedistrictRequested",
           "redistrict-requested",
           {"old_inst": INST, "new_insts": INSTS, "precondition": EVENT}),
    _entry("release_storage_immediate", "ReleaseFired", "release-fired",
           {"inst": INST, "poisoned": BOOL}),
    # 25.03 has no reuse_storage_immediate: its deferred redistricts go
    # through release_storage_immediate.
    _entry("reuse_storage_immediate", "ReleaseFired", "reuse-fired",
           {"old_inst": INST, "poisoned": BOOL}, when="reuse_storage_immediate",
           note="not in 25.03, where deferred redistricts go through "
                "`release_storage_immediate`"),
    # Every allocation outcome of every memory passes here: failures with the
    # layout's size, cancellations.
    Site("runtime/realm/inst_impl.cc", "allocation-outcome", "first",
         "realm_shadow::site::AllocationOutcome(*this, int({result}));",
         **_function("RegionInstanceImpl::notify_allocation"),
         params={"result": r"AllocationResult"}),

    # ---- Realm's CUDA module (cuda/cuda_internal.h, cuda/cuda_module.cc) -------
    # The framebuffer and the zero-copy and managed memories are
    # LocalManagedMemory subclasses that leave its allocation functions
    # alone: observe-memory registers them with their kinds and the heap
    # sites above see their placements.  Nothing is inserted for them; these
    # two rows refuse a Realm where that stopped being true.
    _managed("GPUFBMemory", "framebuffer-is-managed"),
    _managed("GPUZCMemory", "zero-copy-is-managed"),
    # The dynamic framebuffer: one cuMemAlloc per instance, its own sites
    # (realm_sites.h says why these three, and why no failure site).
    Site("runtime/realm/cuda/cuda_internal.h", "dynamic-fb-member", "member",
         "realm_shadow::site::DynamicFramebufferShadow shadow_memory;",
         container=r"class\s+GPUDynamicFBMemory\b[^;{]*\{",
         container_name="GPUDynamicFBMemory",
         statement=r"std::map\s*<.*>\s*alloc_bases\s*;",
         statement_name="std::map<...> alloc_bases;",
         **CUDA),
    Site("runtime/realm/cuda/cuda_module.cc", "dynamic-fb-observe", "last",
         "realm_shadow::site::ObserveDynamicFramebuffer(shadow_memory, me, "
         "{_max_size});",
         **_function("GPUDynamicFBMemory::GPUDynamicFBMemory"),
         params={"_max_size": SIZE}, **CUDA),
    Site("runtime/realm/cuda/cuda_module.cc", "dynamic-fb-allocated", "after",
         "realm_shadow::site::DynamicFramebufferAllocated(shadow_memory, "
         "{inst}, base, bytes);",
         **_function("GPUDynamicFBMemory::allocate_storage_immediate"),
         statement=r"alloc_bases\s*\[\s*{inst}\s*->\s*me\s*\]\s*=\s*"
                   r"std::make_pair\s*\(\s*base\s*,\s*bytes\s*\)\s*;",
         statement_name="alloc_bases[{inst}->me] = std::make_pair(base, bytes);",
         params={"inst": INST}, **CUDA,
         note="under the memory's mutex, after cuMemAlloc; its failures are "
              "`allocation-outcome`'s"),
    Site("runtime/realm/cuda/cuda_module.cc", "dynamic-fb-released", "after",
         "realm_shadow::site::DynamicFramebufferReleased(shadow_memory, "
         "{inst});",
         **_function("GPUDynamicFBMemory::release_storage_immediate"),
         statement=r"alloc_bases\s*\.\s*erase\s*\(\s*it\s*\)\s*;",
         statement_name="alloc_bases.erase(it);",
         params={"inst": INST}, **CUDA,
         note="under the memory's mutex, before cuMemFree"),

    # ---- Legion: what each allocation is (legion_sites.h) --------------------
    Site("runtime/legion/legion_instances.cc", "include", "include",
         '#include "legion_glue/legion_sites.h"', part="Legion"),
    Site("runtime/legion/legion_instances.cc", "region-instance", "before-last",
         "realm_shadow::legion::site::RegionInstanceCreated("
         "memory_manager->memory, instance, regions, constraints, "
         "field_space_node, creator_id, implicit_mapper_call);",
         **_function("InstanceBuilder::create_physical_instance"),
         statement=r"return\s+result\s*;", statement_name="return result;",
         part="Legion"),
    # Every change of a PhysicalManager between valid and collectable.  The
    # call reads the state back (gc_state == VALID_GC_STATE) so that it may
    # also stand after a brace-less "if (...) gc_state = ...;".
    Site("runtime/legion/legion_instances.cc", "gc-{state}", "after-each",
         "realm_shadow::legion::site::GcStateChanged(memory_manager->memory, "
         "instance, gc_state == VALID_GC_STATE);",
         statement=r"gc_state\s*=\s*(?P<state>VALID|COLLECTABLE)_GC_STATE\s*;",
         statement_name="gc_state = VALID_GC_STATE;` / "
                        "`gc_state = COLLECTABLE_GC_STATE;",
         markers=("gc-valid", "gc-collectable"), part="Legion",
         note="in `PhysicalManager`: `notify_valid`, `notify_invalid`, the "
              "collection race, GC_NEVER priority"),
    Site("runtime/legion/runtime.cc", "include", "include",
         '#include "legion_glue/legion_sites.h"', part="Legion"),
    Site("runtime/legion/runtime.cc", "task-local-instance", "before-last",
         "realm_shadow::legion::site::TaskLocalInstanceCreated(memory, "
         "instance, {creator_uid}, implicit_context);",
         **_function("MemoryManager::create_task_local_instance"),
         statement=r"return\s+instance\s*;", statement_name="return instance;",
         params={"creator_uid": UID}, part="Legion"),
    Site("runtime/legion/runtime.cc", "future-instance", "before",
         "realm_shadow::legion::site::FutureInstanceCreated(memory, instance, "
         "{creator_uid}, implicit_context);",
         **_function("MemoryManager::create_future_instance"),
         statement=r"return\s+new\s+FutureInstance\s*\(\s*NULL\b.*",
         statement_name="return new FutureInstance(NULL...",
         params={"creator_uid": UID}, part="Legion"),
    Site("runtime/legion/runtime.cc", "pool-created", "before",
         "realm_shadow::legion::site::PoolCreated(memory, instance, "
         "{bounds}.size, {creator_uid}, implicit_context);",
         **_function("MemoryManager::create_memory_pool"),
         statement=r"return\s+new\s+ConcretePool\s*\(\s*instance\s*,"
                   r"\s*{bounds}\s*\.\s*size\b.*",
         statement_name="return new ConcretePool(instance, {bounds}.size, ...",
         params={"bounds": r"PoolBounds", "creator_uid": UID}, part="Legion"),
    Site("runtime/legion/runtime.cc", "pool-suballocated", "after",
         "realm_shadow::legion::site::PoolSubAllocated(range.instance, "
         "instance, offset, layout->bytes_used, {creator_uid}, "
         "implicit_context);",
         **_function("ConcretePool::allocate_instance"),
         statement=r"allocated\s*\[\s*instance\s*\]\s*=\s*range_index\s*;",
         statement_name="allocated[instance] = range_index;",
         params={"creator_uid": UID}, body_needs=("range", "offset", "layout"),
         part="Legion"),
    Site("runtime/legion/runtime.cc", "pool-freed", "first",
         "realm_shadow::legion::site::PoolSubAllocationFreed({instance});",
         **_function("ConcretePool::free_instance"),
         params={"instance": r"PhysicalInstance"}, part="Legion"),
    Site("runtime/legion/runtime.cc", "pool-released", "first",
         "realm_shadow::legion::site::PoolReleased(backing_instances);",
         **_function("ConcretePool::release_pool"),
         file_needs=(("backing_instances", "ConcretePool::backing_instances"),),
         part="Legion"),

    # ---- CMake: find the package, link it to Realm, find it again ------------
    Site("CMakeLists.txt", "cmake-find", "cmake-before",
         'find_package(RealmShadow 0.1 CONFIG REQUIRED HINTS "{prefix}")',
         statement=r"add_subdirectory\s*\(\s*runtime\s*\)",
         statement_name="add_subdirectory(runtime)", part="CMake"),
    _cmake_link("RealmRuntime", "cmake-link"),
    # Realm's unit-test library.
    _cmake_link("RealmStatic", "cmake-link-static"),
    Site("cmake/LegionConfigCommon.cmake.in", "cmake-config", "cmake-before",
         'find_package(RealmShadow 0.1 CONFIG REQUIRED HINTS '
         '"@RealmShadow_DIR@" "{prefix}")',
         statement=r"include\s*\(\s*\$\{CMAKE_CURRENT_LIST_DIR\}/"
                   r"LegionTargets\.cmake\s*\)",
         statement_name="include(${CMAKE_CURRENT_LIST_DIR}/LegionTargets.cmake)",
         part="CMake"),
]


# ---------------------------------------------------------------------------
# Reading the table.

def files():
    """The files, in the order of their first row."""
    out = []
    for s in SITES:
        if s.file not in out:
            out.append(s.file)
    return out


def rows_of(path):
    return [s for s in SITES if s.file == path]


def optional_groups():
    """{group: [its files]} for the optional groups of rows."""
    out = {}
    for s in SITES:
        if s.optional and s.file not in out.setdefault(s.optional, []):
            out[s.optional].append(s.file)
    return out


def fill(text, values):
    """text with each {placeholder} that `values` names replaced."""
    if text is None:
        return None
    return PLACEHOLDER.sub(
        lambda m: values.get(m.group(1), m.group(0)), text)


def shown(site, text):
    """text as INTEGRATION.md shows it: parameters by their usual names."""
    if text is None:
        return None
    values = {p: p for p in site.params}
    values["prefix"] = "<prefix>"
    return fill(text, values)


def where(site):
    """Where the line goes, in a few words (INTEGRATION.md)."""
    text = PLACES[site.place].format(
        function=site.function_name or "",
        container=site.container_name or "",
        statement=shown(site, site.statement_name) or "")
    if site.note:
        text += " (" + site.note + ")"
    return text


def markdown():
    """The table of edits in INTEGRATION.md."""
    out = ["| file | site | where | inserted |", "| --- | --- | --- | --- |"]
    last = None
    for s in SITES:
        markers = ", ".join("`%s`" % m for m in s.all_markers())
        line = shown(s, s.line)
        out.append("| %s | %s | %s | %s |" % (
            "`%s`" % s.file if s.file != last else "", markers,
            where(s).replace("|", "\\|"),
            "`%s`" % line if line is not None else "nothing (checked only)"))
        last = s.file
    return "\n".join(out) + "\n"


# INTEGRATION.md holds markdown() between these two lines.
BEGIN = ("<!-- the table of edits: generated from legion_glue/sites.py "
         "(python3 legion_glue/sites.py --update), checked by "
         "tests/scripts/sites_table_test.py -->")
END = "<!-- end of the table of edits -->"


def document_block(text):
    """The generated part of INTEGRATION.md's text, or None."""
    if BEGIN not in text or END not in text:
        return None
    return text[text.index(BEGIN) + len(BEGIN):text.index(END)].strip("\n") + "\n"


def update(path):
    with open(path, encoding="utf-8") as f:
        text = f.read()
    if document_block(text) is None:
        raise SystemExit("%s: no lines %r and %r around the table"
                         % (path, BEGIN, END))
    new = (text[:text.index(BEGIN) + len(BEGIN)] + "\n" + markdown() +
           text[text.index(END):])
    if new != text:
        with open(path, "w", encoding="utf-8") as f:
            f.write(new)
    return new != text


if __name__ == "__main__":
    import os
    if sys.argv[1:] == ["--markdown"]:
        sys.stdout.write(markdown())
    elif sys.argv[1:] == ["--update"]:
        doc = os.path.join(os.path.dirname(os.path.abspath(__file__)),
                           "INTEGRATION.md")
        print("%s: %s" % (doc, "table rewritten" if update(doc)
                          else "up to date"))
    else:
        print("usage: %s --markdown | --update   (print the table of edits, "
              "or rewrite it in legion_glue/INTEGRATION.md)" % sys.argv[0],
              file=sys.stderr)
        sys.exit(2)
