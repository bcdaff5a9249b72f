/* realm_shadow/log_sink.h - where a dump announces itself: one line
 * in the host runtime's own log, so that a dump can be lined up with the
 * log written around it.
 *
 * Layer hooks (what Realm includes, next to hooks.h): C-compatible, <stdint.h>
 * and hooks.h (the compile-time switch REALM_SHADOW_ENABLED) only;
 * realm_sites.h includes it inside Realm.  Declared here, implemented
 * by the live layer (live/log_sink.cc), which writes the lines; the library
 * itself knows nothing of Realm.
 *
 * What it is for: Realm's log (-level inst=1) says what happened to every
 * instance; a dump says what sat in a memory at one moment.  To compare the
 * two, the log must say where in its stream the dump was taken.  Each time
 * the library takes a memory's snapshot for a dump file (dump_memory_state,
 * dump_all_memories, a failure dump, a periodic dump) it hands the sink one
 * line, right after the snapshot and before the file is written,
 *
 *   dump memory=0x1e00000000000000 sequence=812 node=0 reason=request file=/abs/path.rsd
 *
 * and, right before the snapshot, "dump begin memory=... node=0
 * reason=request file=...": what the host logs between the two lines may or
 * may not be in the snapshot (it was in flight while the snapshot was
 * taken; other threads go on allocating).
 *
 * `sequence` is the memory's event sequence number in the dump (Snapshot
 * ::sequence), `reason` is request | failure | periodic, and `file` (last,
 * to the end of the line: a path may hold spaces) is the dump's absolute
 * path.  A dump of several memories gives one line per memory, each right
 * after that memory's snapshot.  If the file then cannot be written, a second
 * line "dump not written file=..." follows.  `realm-shadow ingest-realm-log
 * LOG --cut-at-dump FILE.rsd` replays the log up to these lines.
 *
 * Inside Realm, realm_sites.h installs a sink that writes through a Realm
 * Logger named "realm_shadow" at info level (shown with -level
 * realm_shadow=2).  With no sink installed the line goes nowhere.
 *
 * Guarantees and cost: nothing on the allocation path.  The sink is called
 * on the thread that takes the dump, with no lock of the library held.  The
 * sink must not call back into the dump functions.  Installing is one
 * atomic store; the first installation also registers an atexit handler
 * that stops the periodic dumper and clears the sink before the objects the
 * sink uses (installed after them) are destroyed.
 */
#ifndef REALM_SHADOW_LOG_SINK_H_
#define REALM_SHADOW_LOG_SINK_H_

#include <stdint.h>

#include "realm_shadow/hooks.h"

#ifdef __cplusplus
extern "C" {
#endif

/* One line, without a newline, NUL-terminated; valid during the call. */
typedef void (*realm_shadow_log_sink)(const char *line);

#if REALM_SHADOW_ENABLED
/* Installs `sink` (NULL: none) for the whole process; the last call wins. */
void realm_shadow_set_log_sink(realm_shadow_log_sink sink);
#else
static inline void realm_shadow_set_log_sink(realm_shadow_log_sink sink) {
  (void)sink;
}
#endif

#ifdef __cplusplus
}
#endif

#endif /* REALM_SHADOW_LOG_SINK_H_ */
