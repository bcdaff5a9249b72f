// Compiled as a file of the recorder (REALM_SHADOW_LAYER=recorder) and of
// the analysis layer including a header of the analysis layer
// (analysis/shadow_map.h).  tests/layers builds it both ways: as analysis,
// it compiles; as recorder, which may not use the analysis layer, the
// layering check must stop it with its message.  Nothing runs.
#include "realm_shadow/analysis/shadow_map.h"

int main() { return 0; }
