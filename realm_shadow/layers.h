// realm_shadow/layers.h - the layers of the library, and the check that keeps
// each one from reaching up.
//
// From the bottom up; each layer may use the ones below it, never above:
//   1. hooks.h, realm_sites.h, heap_observer.h: what an allocator (Realm)
//      includes.  Target realm_shadow_hooks (header-only).
//   2. recorder/: the hook bodies, the registry of memories, the per-memory
//      journal, the drainer, the identity table.  The only code on the
//      allocation path.  Target realm_shadow_recorder.
//   3. analysis/: the shadow map that applies a journal, snapshots, holes,
//      blockers, diffs.  Target realm_shadow_analysis.
//   4. dump/: the dump file's writer and reader, JSON, dump on failure.
//      Target realm_shadow_dump.
//   5. faces/: the Realm-log reader, reports, the page.  Target
//      realm_shadow_faces (the realm-shadow command, in tools/, links it).
// Beside them: legion_glue/ (uses 1-4), model/ and gpu/ (use 1 only),
// replay/ (what-if replay: uses 1-5 and runs the model memory, whose
// deferral rules are Realm's, under other placements; so the faces, which
// must not depend on the model, take its results as plain data, e.g. the
// page's PageReplay), demo/, tools/, bench/, tests/.
//
// The recorder never calls the shadow map by name: the analysis layer
// installs itself as the journals' consumer (recorder.h, JournalConsumer),
// so the recorder target links and runs alone (tests/layers).
//
// Each layer's target is compiled with REALM_SHADOW_LAYER=<n>, and each
// header of layer k states REALM_SHADOW_HEADER_OF_LAYER(k): a lower layer
// that includes it stops the build with the message below.  Code outside the
// library (tests, tools, Realm itself) defines nothing and may include any
// header.
#ifndef REALM_SHADOW_LAYERS_H_
#define REALM_SHADOW_LAYERS_H_

#ifndef REALM_SHADOW_LAYER
#define REALM_SHADOW_LAYER 99
#endif

#define REALM_SHADOW_HEADER_OF_LAYER(n)                                    \
  static_assert(REALM_SHADOW_LAYER >= (n),                                 \
                "realm-shadow layering: a header of layer " #n             \
                " is included from a lower layer (realm_shadow/layers.h)")

#endif  // REALM_SHADOW_LAYERS_H_
