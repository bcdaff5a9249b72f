#!/bin/sh
# command_is_offline.sh NM BINARY: the realm-shadow command holds nothing of
# the live side: no load-time tracker initialiser (the anchors and static
# initialisers of live/snapshots.cc and live/on_failure.cc, which install
# the shadow map as the journals' consumer and dump on failure), no live
# snapshot, no live dump, no periodic writer.  (It does hold the recorder's
# hook bodies: the what-if replay runs the model memory, which reports
# through the hooks to no memory; they install nothing.)
nm=$1
binary=$2
[ -x "$binary" ] || { echo "no binary: $binary"; exit 1; }
defined=$("$nm" -C --defined-only "$binary") || { echo "$nm failed on $binary"; exit 1; }
bad=$(printf '%s\n' "$defined" | grep -E \
  'realm_shadow_live_|_GLOBAL__sub_I_(snapshots|on_failure|periodic|live_dump|log_sink)\.cc|realm_shadow::(TakeSnapshot|TakeHistory|DumpMemoryState|DumpAllMemories|DumpMemories|InstallDumpOnFailure|StartPeriodicDumps|AnnounceDump|ShadowMapConsumer)\(|realm_shadow_dump_(memory_state|all_memories)|realm_shadow_set_log_sink')
if [ -n "$bad" ]; then
  echo "the offline command holds the live side:"
  printf '%s\n' "$bad" | head -20
  exit 1
fi
count=$(printf '%s\n' "$defined" | grep -c 'realm_shadow::')
echo "realm-shadow: $count realm_shadow symbols, none of the live side"
[ "$count" -gt 0 ]
