// realm_shadow/layers.h - the layers of the project, what each may use, and
// the check that keeps each one from reaching past them.
//
// The library (realm_shadow/), from the allocation path out:
//   hooks     hooks.h, log_sink.h, memory_kinds.h (C), realm_sites.h,
//             heap_observer.h: what an allocator (Realm) includes, with the
//             one table of Realm memory kinds.  Header-only.
//   core      core/: values every other layer speaks in: events, memory
//             kinds (the table's names and numbers), identities and their
//             attribute keys, snapshots, histories, how sizes, ids and
//             names print.
//   recorder  recorder/: the hook bodies, the registry of memories, the
//             per-memory journal, the drainer, the identity table.  The only
//             code on the allocation path.
//   analysis  analysis/: the shadow map that applies events, holes,
//             blockers, diffs, the history cursor and walk.  Knows no
//             recorder: the same code serves the live tracker and the log.
//   format    format/: the dump file (reader, writer), its JSON, the JSON
//             writer and the atomic file, the dump marker line's grammar.
//   render    render/: texts from snapshots and histories: the report, the
//             failure report, the timeline, the trace.
//   live      live/: what runs in the tracked program off the allocation
//             path: live snapshots (it installs the shadow map as the
//             journals' consumer), dumps on request, on failure and
//             periodic, the log marker sink.
//   ingest    ingest/: offline sources: Realm's log, Legion Spy, Legate's
//             out-of-memory report, and compare (a dump against the log).
//   page      page/: the memory map page.
// Beside the library:
//   model        model/: a memory that plays Realm's allocator (uses hooks).
//   gpu          gpu/: CUDA framebuffer, zero-copy, dynamic framebuffer.
//   whatif       whatif/: a run's requests through the model under another
//                placement policy or capacity.
//   legion_glue  legion_glue/: identity, Legion sites, mapper dumps, pools.
//   testing      testing/: the demo's and the tests' workload drivers.
//   tools        tools/: the realm-shadow command: offline only (no
//                recorder, no live side, no load-time initialiser).
// tests/ and bench/ may use everything.
//
// Two checks keep the table true:
//  - at compile time: each library target is compiled with
//    REALM_SHADOW_LAYER=<its layer>, and each header states
//    REALM_SHADOW_HEADER_OF_LAYER(<its layer>); a header of a layer that the
//    includer may not use stops the build with the message below.  Code
//    outside the project (Realm itself) defines nothing and may include any
//    header.
//  - in CI: tests/layers/check_layers.py reads this table and checks every
//    include edge of the tree, every header's declaration, and that no file
//    includes another layer's internal/ headers.
#ifndef REALM_SHADOW_LAYERS_H_
#define REALM_SHADOW_LAYERS_H_

#define REALM_SHADOW_LAYER_ID_hooks 0
#define REALM_SHADOW_LAYER_ID_core 1
#define REALM_SHADOW_LAYER_ID_recorder 2
#define REALM_SHADOW_LAYER_ID_analysis 3
#define REALM_SHADOW_LAYER_ID_format 4
#define REALM_SHADOW_LAYER_ID_render 5
#define REALM_SHADOW_LAYER_ID_live 6
#define REALM_SHADOW_LAYER_ID_ingest 7
#define REALM_SHADOW_LAYER_ID_page 8
#define REALM_SHADOW_LAYER_ID_model 9
#define REALM_SHADOW_LAYER_ID_gpu 10
#define REALM_SHADOW_LAYER_ID_whatif 11
#define REALM_SHADOW_LAYER_ID_legion_glue 12
#define REALM_SHADOW_LAYER_ID_testing 13
#define REALM_SHADOW_LAYER_ID_tools 14

#define REALM_SHADOW_BIT(layer) (1u << REALM_SHADOW_LAYER_ID_##layer)

// What each layer may use, itself included (one line each: the CI check
// parses them).
#define REALM_SHADOW_USES_hooks (REALM_SHADOW_BIT(hooks))
#define REALM_SHADOW_USES_core (REALM_SHADOW_USES_hooks | REALM_SHADOW_BIT(core))
#define REALM_SHADOW_USES_recorder (REALM_SHADOW_USES_core | REALM_SHADOW_BIT(recorder))
#define REALM_SHADOW_USES_analysis (REALM_SHADOW_USES_core | REALM_SHADOW_BIT(analysis))
#define REALM_SHADOW_USES_format (REALM_SHADOW_USES_analysis | REALM_SHADOW_BIT(format))
#define REALM_SHADOW_USES_render (REALM_SHADOW_USES_format | REALM_SHADOW_BIT(render))
#define REALM_SHADOW_USES_live (REALM_SHADOW_USES_render | REALM_SHADOW_USES_recorder | REALM_SHADOW_BIT(live))
#define REALM_SHADOW_USES_ingest (REALM_SHADOW_USES_format | REALM_SHADOW_BIT(ingest))
#define REALM_SHADOW_USES_page (REALM_SHADOW_USES_render | REALM_SHADOW_BIT(page))
#define REALM_SHADOW_USES_model (REALM_SHADOW_USES_hooks | REALM_SHADOW_BIT(model))
#define REALM_SHADOW_USES_gpu (REALM_SHADOW_USES_model | REALM_SHADOW_BIT(gpu))
#define REALM_SHADOW_USES_whatif (REALM_SHADOW_USES_page | REALM_SHADOW_USES_model | REALM_SHADOW_BIT(whatif))
#define REALM_SHADOW_USES_legion_glue (REALM_SHADOW_USES_live | REALM_SHADOW_BIT(legion_glue))
#define REALM_SHADOW_USES_testing (REALM_SHADOW_USES_core | REALM_SHADOW_USES_model | REALM_SHADOW_BIT(testing))
#define REALM_SHADOW_USES_tools (REALM_SHADOW_USES_ingest | REALM_SHADOW_USES_whatif | REALM_SHADOW_BIT(tools))
// Code outside the layers (Realm, tests, benchmarks) may use every one.
#define REALM_SHADOW_USES_any (~0u)

#ifndef REALM_SHADOW_LAYER
#define REALM_SHADOW_LAYER any
#endif

#define REALM_SHADOW_USES_OF(layer) REALM_SHADOW_USES_OF_I(layer)
#define REALM_SHADOW_USES_OF_I(layer) REALM_SHADOW_USES_##layer
#define REALM_SHADOW_NAME_OF(layer) REALM_SHADOW_NAME_OF_I(layer)
#define REALM_SHADOW_NAME_OF_I(layer) #layer

// `layer` is pasted, never expanded: a build that renames a namespace by a
// macro (bench/CMakeLists.txt compiles the model a second time with
// -Dmodel=model_untracked) keeps its layer.
#define REALM_SHADOW_HEADER_OF_LAYER(layer)                                  \
  static_assert(((REALM_SHADOW_USES_OF(REALM_SHADOW_LAYER) >>                \
                  REALM_SHADOW_LAYER_ID_##layer) & 1u) != 0,                 \
                "realm-shadow layering: a header of layer " #layer           \
                " is included from a layer that may not use it "             \
                "(realm_shadow/layers.h)")

#endif  // REALM_SHADOW_LAYERS_H_
