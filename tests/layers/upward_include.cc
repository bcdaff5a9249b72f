// Compiled as a file of layer LAYER_OF_THIS_FILE including a header of
// layer 3 (analysis/snapshot.h).  tests/layers builds it twice: as layer 3,
// it compiles; as layer 2, the layering check must stop it with its
// message.  Nothing runs.
#include "realm_shadow/analysis/snapshot.h"

int main() { return 0; }
