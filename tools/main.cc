// realm-shadow: what sits in each memory of a Legion/Realm program, where,
// and why a new allocation does not fit, read from dump files (or rebuilt
// from Realm's own log).  The subcommands are the table of
// tools/commands.cc; docs/cli.md describes them.
#include "tools/commands.h"

int main(int argc, char** argv) {
  return realm_shadow::tools::RunRealmShadow(argc, argv);
}
