// The oracle's minimal programs (scripts/legion-oracle, docs/oracle.md):
// Realm logs that scripts/trial/realm_random.cc wrote, each reduced to the
// few operations that showed a defect of the log's rebuild or of `at`, with
// what Realm itself held at the checkpoint.  For each: the log cut at the
// checkpoint states only what the truth holds (and marks what the log
// cannot tell), and the whole log's history at that moment (at --event,
// at --time) gives the cut's picture, markings included.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>

#include "tests/ingest/oracle_log.h"

namespace realm_shadow {
namespace {

using namespace oracle_log;  // NOLINT: the programs' vocabulary

// Each log after the prologue as the program wrote it (the instance and
// event lines, its own "OP" lines), the program in the comment above it.
// create S i9 1287168 align=32 / redistrict i9 i12:907634:32 / checkpoint
const char kRedistricted[] = R"(
[0 - 1] 0.662613 {3}{random}: OP create S i9 1287168 align=32
[0 - 1] 0.662639 {2}{inst}: creating new local instance: 4000000000000001
[0 - 1] 0.662647 {1}{inst}: instance layout: inst=4000000000000001 layout=Layout(bytes=1287168, align=32, fields={0=0+0}, lists=[[<0>..<1287167>->affine(<1>+0)]])
[0 - 1] 0.662659 {1}{inst}: allocation completed: inst=4000000000000001 offset=0
[0 - 1] 0.662662 {2}{inst}: instance created: inst=4000000000000001 bytes=1287168 ready=0
[0 - 1] 0.662666 {3}{random}: OP redistrict i9 i12:907634:32
[0 - 1] 0.662672 {2}{inst}: creating new local instance: 4000000000000002
[0 - 1] 0.662687 {1}{inst}: deallocation completed: inst=4000000000000001
[0 - 1] 0.662699 {1}{inst}: allocation completed: inst=4000000000000002 offset=0
[0 - 1] 0.820838 {3}{random}: CHECKPOINT 1
)";

// event E2 / create S i5 fill align=32 after=E2 / redistrict i5 i6:286833:32 i7:0:4096 i8:696727:32 / checkpoint
const char kWaitingRedistrict[] = R"(
[0 - 1] 0.963961 {3}{random}: OP event E2
[0 - 1] 0.963968 {2}{event}: user event created: event=8000001000000002
[0 - 1] 0.963973 {3}{random}: OP create S i5 fill align=32 after=E2
[0 - 1] 0.963988 {2}{inst}: creating new local instance: 4000000000000001
[0 - 1] 0.963995 {1}{inst}: instance layout: inst=4000000000000001 layout=Layout(bytes=4194304, align=32, fields={0=0+0}, lists=[[<0>..<4194303>->affine(<1>+0)]])
[0 - 1] 0.964004 {2}{inst}: instance created: inst=4000000000000001 bytes=4194304 ready=8000001000100001
[0 - 1] 0.964007 {3}{random}: OP redistrict i5 i6:286833:32 i7:0:4096 i8:696727:32
[0 - 1] 0.964016 {2}{inst}: creating new local instance: 4000000000000002
[0 - 1] 0.964020 {2}{inst}: creating new local instance: 4000000000000003
[0 - 1] 0.964023 {2}{inst}: creating new local instance: 4000000000000004
[0 - 1] 1.090042 {3}{random}: CHECKPOINT 1
)";

// event E4 / create S i10 fill align=4096 after=E4 / redistrict i10 i12:65301:256 / poison E4 / create S i19 fill align=256 / checkpoint / destroy i19 after=E7
const char kCancelledRedistrict[] = R"(
[0 - 1] 0.406525 {3}{random}: OP event E4
[0 - 1] 0.406530 {2}{event}: user event created: event=8000001000000002
[0 - 1] 0.406533 {3}{random}: OP create S i10 fill align=4096 after=E4
[0 - 1] 0.406544 {2}{inst}: creating new local instance: 4000000000000001
[0 - 1] 0.406549 {1}{inst}: instance layout: inst=4000000000000001 layout=Layout(bytes=4194304, align=4096, fields={0=0+0}, lists=[[<0>..<4194303>->affine(<1>+0)]])
[0 - 1] 0.406555 {2}{inst}: instance created: inst=4000000000000001 bytes=4194304 ready=8000001000100001
[0 - 1] 0.406558 {3}{random}: OP redistrict i10 i12:65301:256
[0 - 1] 0.406563 {2}{inst}: creating new local instance: 4000000000000002
[0 - 1] 0.406568 {3}{random}: OP poison E4
[0 - 1] 0.406571 {2}{event}: user event trigger: event=8000001000000002 wait_on=8000001000000001 (poisoned)
[0 - 1] 0.406578 {2}{inst}: allocation failed: inst=4000000000000001
[0 - 1] 0.428635 {3}{random}: OP create S i19 fill align=256
[0 - 1] 0.428707 {2}{inst}: creating new local instance: 4000000000000003
[0 - 1] 0.428717 {1}{inst}: instance layout: inst=4000000000000003 layout=Layout(bytes=4194304, align=256, fields={0=0+0}, lists=[[<0>..<4194303>->affine(<1>+0)]])
[0 - 1] 0.428735 {1}{inst}: allocation completed: inst=4000000000000003 offset=0
[0 - 1] 0.428762 {2}{inst}: instance created: inst=4000000000000003 bytes=4194304 ready=0
[0 - 1] 0.431661 {2}{inst}: allocation failed: inst=4000000000000002
[0 - 1] 0.568627 {3}{random}: CHECKPOINT 1
[0 - 1] 0.616669 {3}{random}: OP destroy i19 after=E7
[0 - 1] 0.616709 {2}{inst}: instance destroyed: inst=4000000000000003 wait_on=0
[0 - 1] 0.616725 {1}{inst}: deallocation completed: inst=4000000000000003
)";

// event E2 / create S i2 1139255 align=32 after=E2 / event E3 / create S i6 fill align=32 after=E1+E3 / destroy i2 after=r:i4 / redistrict i6 i7:174239:32 i8:315444:32 i9:245117:32 / trigger E2 / checkpoint / create S i22 fill align=65536
const char kDestroyedWhileWaiting[] = R"(
[0 - 1] 0.380030 {3}{random}: OP event E2
[0 - 1] 0.380036 {2}{event}: user event created: event=8000001000000002
[0 - 1] 0.380041 {3}{random}: OP create S i2 1139255 align=32 after=E2
[0 - 1] 0.380055 {2}{inst}: creating new local instance: 4000000000000001
[0 - 1] 0.380061 {1}{inst}: instance layout: inst=4000000000000001 layout=Layout(bytes=1139255, align=32, fields={0=0+0}, lists=[[<0>..<1139254>->affine(<1>+0)]])
[0 - 1] 0.380071 {2}{inst}: instance created: inst=4000000000000001 bytes=1139255 ready=8000001000100001
[0 - 1] 0.380074 {3}{random}: OP event E3
[0 - 1] 0.380077 {2}{event}: user event created: event=8000001000200001
[0 - 1] 0.380080 {3}{random}: OP create S i6 fill align=32 after=E1+E3
[0 - 1] 0.380085 {2}{inst}: creating new local instance: 4000000000000002
[0 - 1] 0.380089 {1}{inst}: instance layout: inst=4000000000000002 layout=Layout(bytes=4194304, align=32, fields={0=0+0}, lists=[[<0>..<4194303>->affine(<1>+0)]])
[0 - 1] 0.380093 {2}{inst}: instance created: inst=4000000000000002 bytes=4194304 ready=8000001000300001
[0 - 1] 0.380095 {3}{random}: OP destroy i2 after=r:i4
[0 - 1] 0.380100 {2}{inst}: instance destroyed: inst=4000000000000001 wait_on=8000001000100001
[0 - 1] 0.380105 {3}{random}: OP redistrict i6 i7:174239:32 i8:315444:32 i9:245117:32
[0 - 1] 0.380122 {2}{inst}: creating new local instance: 4000000000000003
[0 - 1] 0.380126 {2}{inst}: creating new local instance: 4000000000000004
[0 - 1] 0.380130 {2}{inst}: creating new local instance: 4000000000000005
[0 - 1] 0.380137 {3}{random}: OP trigger E2
[0 - 1] 0.380141 {2}{event}: user event trigger: event=8000001000000002 wait_on=0
[0 - 1] 0.380146 {1}{inst}: allocation completed: inst=4000000000000001 offset=0
[0 - 1] 0.380157 {1}{inst}: deallocation completed: inst=4000000000000001
[0 - 1] 0.501053 {3}{random}: CHECKPOINT 1
[0 - 1] 0.514250 {3}{random}: OP create S i22 fill align=65536
[0 - 1] 0.514281 {2}{inst}: reusing local instance: 4000000000000001
[0 - 1] 0.514290 {1}{inst}: instance layout: inst=4000000000000001 layout=Layout(bytes=4194304, align=65536, fields={0=0+0}, lists=[[<0>..<4194303>->affine(<1>+0)]])
[0 - 1] 0.514306 {1}{inst}: allocation completed: inst=4000000000000001 offset=0
[0 - 1] 0.514311 {2}{inst}: instance created: inst=4000000000000001 bytes=4194304 ready=0
)";

// external X i2 63712 / checkpoint
const char kExternalX[] = R"(
[0 - 1] 1.079974 {3}{random}: OP external X i2 63712
[0 - 1] 1.080012 {2}{inst}: creating new local instance: 4000000000400001
[0 - 1] 1.080018 {1}{inst}: instance layout: inst=4000000000400001 layout=Layout(bytes=63712, align=32, fields={0=0+0}, lists=[[<0>..<63711>->affine(<1>+0)]])
[0 - 1] 1.080024 {1}{inst}: allocation completed: inst=4000000000400001 offset=140484797308928
[0 - 1] 1.080027 {2}{inst}: instance created: inst=4000000000400001 external=memory(base=7fc52a70a000, size=63712) ready=0
[0 - 1] 1.236859 {3}{random}: CHECKPOINT 1
)";

// external S i10 53582 / checkpoint / create S i14 1246859 align=64
const char kExternalS[] = R"(
[0 - 1] 1.363689 {3}{random}: OP external S i10 53582
[0 - 1] 1.363707 {2}{inst}: creating new local instance: 4000000000000001
[0 - 1] 1.363713 {1}{inst}: instance layout: inst=4000000000000001 layout=Layout(bytes=53582, align=32, fields={0=0+0}, lists=[[<0>..<53581>->affine(<1>+0)]])
[0 - 1] 1.363717 {1}{inst}: allocation completed: inst=4000000000000001 offset=18446744073384644608
[0 - 1] 1.363719 {2}{inst}: instance created: inst=4000000000000001 external=memory(base=7f30a670a000, size=53582) ready=0
[0 - 1] 1.477138 {3}{random}: CHECKPOINT 1
[0 - 1] 1.523571 {3}{random}: OP create S i14 1246859 align=64
[0 - 1] 1.523595 {2}{inst}: creating new local instance: 4000000000000002
[0 - 1] 1.523603 {1}{inst}: instance layout: inst=4000000000000002 layout=Layout(bytes=1246859, align=64, fields={0=0+0}, lists=[[<0>..<1246858>->affine(<1>+0)]])
[0 - 1] 1.523616 {1}{inst}: allocation completed: inst=4000000000000002 offset=0
[0 - 1] 1.523620 {2}{inst}: instance created: inst=4000000000000002 bytes=1246859 ready=0
)";

// event E5 / create R i19 54272 align=32 after=E5 / cancel E5 / checkpoint
const char kCancelledRequest[] = R"(
[0 - 1] 0.729703 {3}{random}: OP event E5
[0 - 1] 0.729708 {2}{event}: user event created: event=8000001000000002
[0 - 1] 0.729711 {3}{random}: OP create R i19 54272 align=32 after=E5
[0 - 1] 0.729720 {2}{inst}: creating new local instance: 4000000000800001
[0 - 1] 0.729724 {1}{inst}: instance layout: inst=4000000000800001 layout=Layout(bytes=54272, align=32, fields={0=0+0}, lists=[[<0>..<54271>->affine(<1>+0)]])
[0 - 1] 0.729731 {2}{inst}: instance created: inst=4000000000800001 bytes=54272 ready=8000001000100001
[0 - 1] 0.729733 {3}{random}: OP cancel E5
[0 - 1] 0.729735 {2}{event}: user event cancelled: event=8000001000000002
[0 - 1] 0.729741 {2}{inst}: allocation failed: inst=4000000000800001
[0 - 1] 0.870478 {3}{random}: CHECKPOINT 1
)";

// event E1 / create S i2 2149 align=128 after=E1 / redistrict i2 i7:975:32 i8:301:32 i9:260:32 after=E5 / create S i16 288768 align=32 after=E7 / redistrict i16 i23:114868:32 / create S i28 1099776 align=4096 after=r:i27 / checkpoint
const char kRedistrictBesideAWaitingOne[] = R"(
[0 - 1] 0.838830 {3}{random}: OP event E1
[0 - 1] 0.838835 {2}{event}: user event created: event=8000001000000002
[0 - 1] 0.838837 {3}{random}: OP create S i2 2149 align=128 after=E1
[0 - 1] 0.838847 {2}{inst}: creating new local instance: 4000000000000001
[0 - 1] 0.838852 {1}{inst}: instance layout: inst=4000000000000001 layout=Layout(bytes=2149, align=128, fields={0=0+0}, lists=[[<0>..<2148>->affine(<1>+0)]])
[0 - 1] 0.838858 {2}{inst}: instance created: inst=4000000000000001 bytes=2149 ready=8000001000100001
[0 - 1] 0.838861 {3}{random}: OP redistrict i2 i7:975:32 i8:301:32 i9:260:32 after=E5
[0 - 1] 0.838867 {2}{inst}: creating new local instance: 4000000000000002
[0 - 1] 0.838870 {2}{inst}: creating new local instance: 4000000000000003
[0 - 1] 0.838872 {2}{inst}: creating new local instance: 4000000000000004
[0 - 1] 0.838884 {3}{random}: OP create S i16 288768 align=32 after=E7
[0 - 1] 0.838888 {2}{inst}: creating new local instance: 4000000000000005
[0 - 1] 0.838890 {1}{inst}: instance layout: inst=4000000000000005 layout=Layout(bytes=288768, align=32, fields={0=0+0}, lists=[[<0>..<288767>->affine(<1>+0)]])
[0 - 1] 0.838893 {1}{inst}: allocation completed: inst=4000000000000005 offset=0
[0 - 1] 0.838895 {2}{inst}: instance created: inst=4000000000000005 bytes=288768 ready=0
[0 - 1] 0.838903 {3}{random}: OP redistrict i16 i23:114868:32
[0 - 1] 0.838906 {2}{inst}: creating new local instance: 4000000000000006
[0 - 1] 0.838913 {1}{inst}: deallocation completed: inst=4000000000000005
[0 - 1] 0.838920 {1}{inst}: allocation completed: inst=4000000000000006 offset=0
[0 - 1] 0.838929 {3}{random}: OP create S i28 1099776 align=4096 after=r:i27
[0 - 1] 0.838932 {2}{inst}: reusing local instance: 4000000000000005
[0 - 1] 0.838934 {1}{inst}: instance layout: inst=4000000000000005 layout=Layout(bytes=1099776, align=4096, fields={0=0+0}, lists=[[<0>..<1099775>->affine(<1>+0)]])
[0 - 1] 0.838937 {1}{inst}: allocation completed: inst=4000000000000005 offset=118784
[0 - 1] 0.838938 {2}{inst}: instance created: inst=4000000000000005 bytes=1099776 ready=0
[0 - 1] 0.961215 {3}{random}: CHECKPOINT 1
)";

// event E1 / create S i1 5120 align=256 after=E1 / redistrict i1 i2:909:32 after=r:i2 / create S i7 fill align=32 / redistrict i7 i9:289013:32 i10:244421:32 i11:17401:32 / destroy i10 / create S i23 903168 align=64 / checkpoint
const char kReusedIdAfterRedistricts[] = R"(
[0 - 1] 0.392323 {3}{random}: OP event E1
[0 - 1] 0.392329 {2}{event}: user event created: event=8000001000000002
[0 - 1] 0.392333 {3}{random}: OP create S i1 5120 align=256 after=E1
[0 - 1] 0.392346 {2}{inst}: creating new local instance: 4000000000000001
[0 - 1] 0.392351 {1}{inst}: instance layout: inst=4000000000000001 layout=Layout(bytes=5120, align=256, fields={0=0+0}, lists=[[<0>..<5119>->affine(<1>+0)]])
[0 - 1] 0.392358 {2}{inst}: instance created: inst=4000000000000001 bytes=5120 ready=8000001000100001
[0 - 1] 0.392361 {3}{random}: OP redistrict i1 i2:909:32 after=r:i2
[0 - 1] 0.392365 {2}{inst}: creating new local instance: 4000000000000002
[0 - 1] 0.392371 {3}{random}: OP create S i7 fill align=32
[0 - 1] 0.392375 {2}{inst}: creating new local instance: 4000000000000003
[0 - 1] 0.392377 {1}{inst}: instance layout: inst=4000000000000003 layout=Layout(bytes=4194304, align=32, fields={0=0+0}, lists=[[<0>..<4194303>->affine(<1>+0)]])
[0 - 1] 0.392380 {1}{inst}: allocation completed: inst=4000000000000003 offset=0
[0 - 1] 0.392382 {2}{inst}: instance created: inst=4000000000000003 bytes=4194304 ready=0
[0 - 1] 0.392384 {3}{random}: OP redistrict i7 i9:289013:32 i10:244421:32 i11:17401:32
[0 - 1] 0.392389 {2}{inst}: creating new local instance: 4000000000000004
[0 - 1] 0.392404 {2}{inst}: creating new local instance: 4000000000000005
[0 - 1] 0.392406 {2}{inst}: creating new local instance: 4000000000000006
[0 - 1] 0.392417 {1}{inst}: deallocation completed: inst=4000000000000003
[0 - 1] 0.392424 {1}{inst}: allocation completed: inst=4000000000000004 offset=0
[0 - 1] 0.392426 {1}{inst}: allocation completed: inst=4000000000000005 offset=289024
[0 - 1] 0.392427 {1}{inst}: allocation completed: inst=4000000000000006 offset=533472
[0 - 1] 0.392430 {3}{random}: OP destroy i10
[0 - 1] 0.392433 {2}{inst}: instance destroyed: inst=4000000000000005 wait_on=0
[0 - 1] 0.392436 {1}{inst}: deallocation completed: inst=4000000000000005
[0 - 1] 0.392440 {3}{random}: OP create S i23 903168 align=64
[0 - 1] 0.392443 {2}{inst}: reusing local instance: 4000000000000005
[0 - 1] 0.392445 {1}{inst}: instance layout: inst=4000000000000005 layout=Layout(bytes=903168, align=64, fields={0=0+0}, lists=[[<0>..<903167>->affine(<1>+0)]])
[0 - 1] 0.392447 {1}{inst}: allocation completed: inst=4000000000000005 offset=550912
[0 - 1] 0.392449 {2}{inst}: instance created: inst=4000000000000005 bytes=903168 ready=0
[0 - 1] 0.513545 {3}{random}: CHECKPOINT 1
)";


// create S i15 1200183 align=32 after=E6 / event E8 / event E9 / destroy i15 after=E8+E9 / cancel E8 / checkpoint
const char kDestroyOnAMergedEvent[] = R"(
[0 - 1] 0.291716 {3}{random}: OP create S i15 1200183 align=32 after=E6
[0 - 1] 0.291745 {2}{inst}: creating new local instance: 4000000000000001
[0 - 1] 0.291752 {1}{inst}: instance layout: inst=4000000000000001 layout=Layout(bytes=1200183, align=32, fields={0=0+0}, lists=[[<0>..<1200182>->affine(<1>+0)]])
[0 - 1] 0.291761 {1}{inst}: allocation completed: inst=4000000000000001 offset=0
[0 - 1] 0.291764 {2}{inst}: instance created: inst=4000000000000001 bytes=1200183 ready=0
[0 - 1] 0.291767 {3}{random}: OP event E8
[0 - 1] 0.291771 {2}{event}: user event created: event=8000001000000002
[0 - 1] 0.291774 {3}{random}: OP event E9
[0 - 1] 0.291777 {2}{event}: user event created: event=8000001000100001
[0 - 1] 0.291780 {3}{random}: OP destroy i15 after=E8+E9
[0 - 1] 0.291786 {2}{event}: event merging: event=8000001000200001 wait_on=8000001000000002
[0 - 1] 0.291789 {2}{event}: event merging: event=8000001000200001 wait_on=8000001000100001
[0 - 1] 0.291793 {2}{inst}: instance destroyed: inst=4000000000000001 wait_on=8000001000200001
[0 - 1] 0.291798 {3}{random}: OP cancel E8
[0 - 1] 0.291802 {2}{event}: user event cancelled: event=8000001000000002
[0 - 1] 0.413409 {3}{random}: CHECKPOINT 1
)";

// create S i1 518679 align=65536 / event E1 / redistrict i1 i3:239036:32 / destroy i3 after=E1 / create S i7 1012736 align=4096 / checkpoint
const char kPieceWithAPendingDestroy[] = R"(
[0 - 1] 0.455281 {3}{random}: OP create S i1 518679 align=65536
[0 - 1] 0.455294 {2}{inst}: creating new local instance: 4000000000000001
[0 - 1] 0.455298 {1}{inst}: instance layout: inst=4000000000000001 layout=Layout(bytes=518679, align=65536, fields={0=0+0}, lists=[[<0>..<518678>->affine(<1>+0)]])
[0 - 1] 0.455303 {1}{inst}: allocation completed: inst=4000000000000001 offset=0
[0 - 1] 0.455305 {2}{inst}: instance created: inst=4000000000000001 bytes=518679 ready=0
[0 - 1] 0.455307 {3}{random}: OP event E1
[0 - 1] 0.455309 {2}{event}: user event created: event=8000001000000002
[0 - 1] 0.455311 {3}{random}: OP redistrict i1 i3:239036:32
[0 - 1] 0.455315 {2}{inst}: creating new local instance: 4000000000000002
[0 - 1] 0.455325 {1}{inst}: deallocation completed: inst=4000000000000001
[0 - 1] 0.455332 {1}{inst}: allocation completed: inst=4000000000000002 offset=0
[0 - 1] 0.455334 {3}{random}: OP destroy i3 after=E1
[0 - 1] 0.455338 {2}{inst}: instance destroyed: inst=4000000000000002 wait_on=8000001000000002
[0 - 1] 0.455341 {3}{random}: OP create S i7 1012736 align=4096
[0 - 1] 0.455344 {2}{inst}: reusing local instance: 4000000000000001
[0 - 1] 0.455354 {1}{inst}: instance layout: inst=4000000000000001 layout=Layout(bytes=1012736, align=4096, fields={0=0+0}, lists=[[<0>..<1012735>->affine(<1>+0)]])
[0 - 1] 0.455357 {1}{inst}: allocation completed: inst=4000000000000001 offset=241664
[0 - 1] 0.455359 {2}{inst}: instance created: inst=4000000000000001 bytes=1012736 ready=0
[0 - 1] 0.567930 {3}{random}: CHECKPOINT 1
)";

// create S i6 fill align=32 after=E4 / redistrict i6 i7:286833:32 i8:0:4096 i9:696727:32 / checkpoint
const char kZeroBytePiece[] = R"(
[0 - 1] 1.054382 {3}{random}: OP create S i6 fill align=32 after=E4
[0 - 1] 1.054408 {2}{inst}: creating new local instance: 4000000000000001
[0 - 1] 1.054417 {1}{inst}: instance layout: inst=4000000000000001 layout=Layout(bytes=4194304, align=32, fields={0=0+0}, lists=[[<0>..<4194303>->affine(<1>+0)]])
[0 - 1] 1.054425 {1}{inst}: allocation completed: inst=4000000000000001 offset=0
[0 - 1] 1.054429 {2}{inst}: instance created: inst=4000000000000001 bytes=4194304 ready=0
[0 - 1] 1.054433 {3}{random}: OP redistrict i6 i7:286833:32 i8:0:4096 i9:696727:32
[0 - 1] 1.054442 {2}{inst}: creating new local instance: 4000000000000002
[0 - 1] 1.054447 {2}{inst}: creating new local instance: 4000000000000003
[0 - 1] 1.054452 {2}{inst}: creating new local instance: 4000000000000004
[0 - 1] 1.054478 {1}{inst}: deallocation completed: inst=4000000000000001
[0 - 1] 1.054491 {1}{inst}: allocation completed: inst=4000000000000002 offset=0
[0 - 1] 1.054493 {1}{inst}: allocation completed: inst=4000000000000003 offset=0
[0 - 1] 1.054496 {1}{inst}: allocation completed: inst=4000000000000004 offset=286848
[0 - 1] 1.167775 {3}{random}: CHECKPOINT 1
)";

// create S i1 1496064 align=16 / redistrict i1 i2:0:32 i3:2002920:32 / event E3 / destroy i2 after=E3+E4 / create S i25 150519 align=32 after=E12 / cancel E3 / checkpoint
const char kZeroBytePieceAtAnAllocation[] = R"(
[0 - 1] 0.997755 {3}{random}: OP create S i1 1496064 align=16
[0 - 1] 0.997767 {2}{inst}: creating new local instance: 4000000000000001
[0 - 1] 0.997771 {1}{inst}: instance layout: inst=4000000000000001 layout=Layout(bytes=1496064, align=16, fields={0=0+0}, lists=[[<0>..<1496063>->affine(<1>+0)]])
[0 - 1] 0.997776 {1}{inst}: allocation completed: inst=4000000000000001 offset=0
[0 - 1] 0.997778 {2}{inst}: instance created: inst=4000000000000001 bytes=1496064 ready=0
[0 - 1] 0.997780 {3}{random}: OP redistrict i1 i2:0:32 i3:2002920:32
[0 - 1] 0.997785 {2}{inst}: creating new local instance: 4000000000000002
[0 - 1] 0.997788 {2}{inst}: creating new local instance: 4000000000000003
[0 - 1] 0.997797 {1}{inst}: deallocation completed: inst=4000000000000001
[0 - 1] 0.997805 {1}{inst}: allocation completed: inst=4000000000000002 offset=0
[0 - 1] 0.997810 {2}{inst}: allocation failed: inst=4000000000000003
[0 - 1] 0.997814 {3}{random}: OP event E3
[0 - 1] 0.997816 {2}{event}: user event created: event=8000001000000002
[0 - 1] 0.997818 {3}{random}: OP destroy i2 after=E3+E4
[0 - 1] 0.997821 {2}{inst}: instance destroyed: inst=4000000000000002 wait_on=8000001000000002
[0 - 1] 0.997831 {3}{random}: OP create S i25 150519 align=32 after=E12
[0 - 1] 0.997834 {2}{inst}: reusing local instance: 4000000000000001
[0 - 1] 0.997836 {1}{inst}: instance layout: inst=4000000000000001 layout=Layout(bytes=150519, align=32, fields={0=0+0}, lists=[[<0>..<150518>->affine(<1>+0)]])
[0 - 1] 0.997839 {1}{inst}: allocation completed: inst=4000000000000001 offset=0
[0 - 1] 0.997841 {2}{inst}: instance created: inst=4000000000000001 bytes=150519 ready=0
[0 - 1] 0.997842 {3}{random}: OP cancel E3
[0 - 1] 0.997845 {2}{event}: user event cancelled: event=8000001000000002
[0 - 1] 1.130947 {3}{random}: CHECKPOINT 1
)";

// create S i2 7645 align=4096 / create S i8 2149 align=128 after=E3 / event E8 / destroy i8 after=E8 / event E9 / create S i15 2106 align=32 after=E9 / create S i16 hole+1056 align=64 / destroy i2 / trigger E9 / redistrict i15 i19:619:4096 i20:701:32 i21:209:32 after=E1 / redistrict i20 i22:127:32 i23:213:32 / trigger E8 / checkpoint
const char kTwoRedistrictsOneAfterTheOther[] = R"(
[0 - 1] 0.847150 {3}{random}: OP create S i2 7645 align=4096
[0 - 1] 0.847167 {2}{inst}: creating new local instance: 4000000000000001
[0 - 1] 0.847174 {1}{inst}: instance layout: inst=4000000000000001 layout=Layout(bytes=7645, align=4096, fields={0=0+0}, lists=[[<0>..<7644>->affine(<1>+0)]])
[0 - 1] 0.847181 {1}{inst}: allocation completed: inst=4000000000000001 offset=0
[0 - 1] 0.847184 {2}{inst}: instance created: inst=4000000000000001 bytes=7645 ready=0
[0 - 1] 0.847187 {3}{random}: OP create S i8 2149 align=128 after=E3
[0 - 1] 0.847191 {2}{inst}: creating new local instance: 4000000000000002
[0 - 1] 0.847194 {1}{inst}: instance layout: inst=4000000000000002 layout=Layout(bytes=2149, align=128, fields={0=0+0}, lists=[[<0>..<2148>->affine(<1>+0)]])
[0 - 1] 0.847198 {1}{inst}: allocation completed: inst=4000000000000002 offset=7680
[0 - 1] 0.847200 {2}{inst}: instance created: inst=4000000000000002 bytes=2149 ready=0
[0 - 1] 0.847202 {3}{random}: OP event E8
[0 - 1] 0.847205 {2}{event}: user event created: event=8000001000000002
[0 - 1] 0.847208 {3}{random}: OP destroy i8 after=E8
[0 - 1] 0.847212 {2}{inst}: instance destroyed: inst=4000000000000002 wait_on=8000001000000002
[0 - 1] 0.847218 {3}{random}: OP event E9
[0 - 1] 0.847229 {2}{event}: user event created: event=8000001000100001
[0 - 1] 0.847232 {3}{random}: OP create S i15 2106 align=32 after=E9
[0 - 1] 0.847237 {2}{inst}: creating new local instance: 4000000000000003
[0 - 1] 0.847240 {1}{inst}: instance layout: inst=4000000000000003 layout=Layout(bytes=2106, align=32, fields={0=0+0}, lists=[[<0>..<2105>->affine(<1>+0)]])
[0 - 1] 0.847245 {2}{inst}: instance created: inst=4000000000000003 bytes=2106 ready=8000001000200001
[0 - 1] 0.847248 {3}{random}: OP create S i16 hole+1056 align=64
[0 - 1] 0.847253 {2}{inst}: creating new local instance: 4000000000000004
[0 - 1] 0.847256 {1}{inst}: instance layout: inst=4000000000000004 layout=Layout(bytes=4185531, align=64, fields={0=0+0}, lists=[[<0>..<4185530>->affine(<1>+0)]])
[0 - 1] 0.847264 {2}{inst}: instance created: inst=4000000000000004 bytes=4185531 ready=8000001000300001
[0 - 1] 0.847266 {3}{random}: OP destroy i2
[0 - 1] 0.847269 {2}{inst}: instance destroyed: inst=4000000000000001 wait_on=0
[0 - 1] 0.847273 {1}{inst}: deallocation completed: inst=4000000000000001
[0 - 1] 0.847282 {3}{random}: OP trigger E9
[0 - 1] 0.847286 {2}{event}: user event trigger: event=8000001000100001 wait_on=0
[0 - 1] 0.867502 {3}{random}: OP redistrict i15 i19:619:4096 i20:701:32 i21:209:32 after=E1
[0 - 1] 0.867564 {2}{inst}: reusing local instance: 4000000000000001
[0 - 1] 0.867580 {2}{inst}: creating new local instance: 4000000000000005
[0 - 1] 0.867600 {2}{inst}: creating new local instance: 4000000000000006
[0 - 1] 0.867632 {3}{random}: OP redistrict i20 i22:127:32 i23:213:32
[0 - 1] 0.867638 {2}{inst}: creating new local instance: 4000000000000007
[0 - 1] 0.867649 {2}{inst}: creating new local instance: 4000000000000008
[0 - 1] 0.867656 {3}{random}: OP trigger E8
[0 - 1] 0.867661 {2}{event}: user event trigger: event=8000001000000002 wait_on=0
[0 - 1] 0.867672 {1}{inst}: allocation completed: inst=4000000000000004 offset=7680
[0 - 1] 0.867680 {1}{inst}: allocation completed: inst=4000000000000003 offset=0
[0 - 1] 0.867684 {1}{inst}: deallocation completed: inst=4000000000000002
[0 - 1] 0.867787 {1}{inst}: deallocation completed: inst=4000000000000003
[0 - 1] 0.867804 {1}{inst}: allocation completed: inst=4000000000000001 offset=0
[0 - 1] 0.867806 {1}{inst}: allocation completed: inst=4000000000000005 offset=640
[0 - 1] 0.867808 {1}{inst}: allocation completed: inst=4000000000000006 offset=1344
[0 - 1] 0.867811 {1}{inst}: deallocation completed: inst=4000000000000005
[0 - 1] 0.867815 {1}{inst}: allocation completed: inst=4000000000000007 offset=640
[0 - 1] 0.867817 {1}{inst}: allocation completed: inst=4000000000000008 offset=768
[0 - 1] 0.991697 {3}{random}: CHECKPOINT 1
)";
// The requests of `log` cancelled in `memory`: neither failed nor waiting,
// in the cut and in `at`.
void ExpectCancelledNotFailed(const std::string& log, uint64_t memory) {
  const Rebuilt r = Rebuild(log);
  const Snapshot* cut = Memory(r.cut, memory);
  ASSERT_NE(cut, nullptr);
  EXPECT_TRUE(cut->failures.empty()) << Picture(*cut);
  EXPECT_TRUE(cut->pending.empty()) << Picture(*cut);
  ExpectAtGivesTheCut(r, memory);
}

// `instance` of S live in the cut where Realm held it, its size a fact.
void ExpectLiveAsRealmHoldsIt(const std::string& log, uint64_t instance,
                              uint64_t offset, uint64_t size) {
  const Rebuilt r = Rebuild(log);
  const Allocation* a = LiveInCut(r, instance);
  ASSERT_NE(a, nullptr);
  EXPECT_EQ(a->offset, offset);
  EXPECT_EQ(a->size, size);
  EXPECT_EQ(CutSizeMark(r, *a), "");
  ExpectAtGivesTheCut(r, kS);
}

// at.*.marking: the cut marks i12's size an upper bound (the log never
// gives a piece's size); at showed the same range unmarked, a size stated
// as known.
TEST(OraclePrograms, AtMarksARedistrictedPiecesSizeAsTheCutDoes) {
  const Rebuilt r = Rebuild(kRedistricted);
  const Allocation* piece = LiveInCut(r, 0x4000000000000002ull);
  ASSERT_NE(piece, nullptr);
  EXPECT_EQ(CutSizeMark(r, *piece), kSizeUpperBound);
  ExpectAtGivesTheCut(r, kS);
}

// at.*.pending: a redistrict waiting on its precondition logs only its
// pieces' announces; the cut lists them as waiting (size unknown), at did
// not list them.
TEST(OraclePrograms, AtHoldsThePiecesOfAWaitingRedistrict) {
  const Rebuilt r = Rebuild(kWaitingRedistrict);
  const Snapshot* cut = Memory(r.cut, kS);
  ASSERT_NE(cut, nullptr);
  int unknown = 0;
  for (const PendingRequest& p : cut->pending)
    unknown += SizeMark(*cut, p.identity) == kSizeUnknown;
  EXPECT_EQ(unknown, 3);
  ExpectAtGivesTheCut(r, kS);
}

// at.numbering, at.time.failures, log.cancelled-as-failure: i10 waits on E4
// (it fits: the allocator did not defer it), its redistrict waits on i10;
// E4 is poisoned: Realm cancels both without asking its allocator, and logs
// "allocation failed" for each.  Neither is a failure; the cut showed both
// (i12 with no size), the whole history i10 only and one event fewer.
TEST(OraclePrograms, RequestsCancelledByAPoisonedPreconditionAreNoFailures) {
  ExpectCancelledNotFailed(kCancelledRedistrict, kS);
}

// log.cancelled-as-failure: the same for a plain create on E5, cancelled.
TEST(OraclePrograms, ACancelledCreateIsNoFailure) {
  ExpectCancelledNotFailed(kCancelledRequest, kR);
}

// The other side of the line drawn above: a request waiting on its
// precondition that no longer fits when the precondition fires is refused
// by the allocator: a failure (Realm's truth says "failed").
TEST(OraclePrograms, ARequestThatNoLongerFitsWhenItsPreconditionFiresFails) {
  const Rebuilt r = Rebuild(R"(
[0 - 1] 0.100000 {3}{random}: OP create R i15 54272 align=32 after=E3
[0 - 1] 0.100010 {2}{inst}: creating new local instance: 4000000000800001
[0 - 1] 0.100020 {1}{inst}: instance layout: inst=4000000000800001 layout=Layout(bytes=54272, align=32, fields={0=0+0}, lists=[[<0>..<54271>->affine(<1>+0)]])
[0 - 1] 0.100030 {2}{inst}: instance created: inst=4000000000800001 bytes=54272 ready=8000001000b00001
[0 - 1] 0.100040 {3}{random}: OP create R i19 fill align=65536
[0 - 1] 0.100050 {2}{inst}: creating new local instance: 4000000000800002
[0 - 1] 0.100060 {1}{inst}: instance layout: inst=4000000000800002 layout=Layout(bytes=2097152, align=65536, fields={0=0+0}, lists=[[<0>..<2097151>->affine(<1>+0)]])
[0 - 1] 0.100070 {1}{inst}: allocation completed: inst=4000000000800002 offset=0
[0 - 1] 0.100080 {2}{inst}: instance created: inst=4000000000800002 bytes=2097152 ready=0
[0 - 1] 0.100090 {3}{random}: OP trigger E3
[0 - 1] 0.100100 {2}{event}: user event trigger: event=8000001000500001 wait_on=0
[0 - 1] 0.100110 {2}{inst}: allocation failed: inst=4000000000800001
[0 - 1] 0.200000 {3}{random}: CHECKPOINT 1
)");
  const Snapshot* cut = Memory(r.cut, kR);
  ASSERT_NE(cut, nullptr);
  ASSERT_EQ(cut->failures.size(), 1u) << Picture(*cut);
  EXPECT_EQ(cut->failures[0].instance, 0x4000000000800001ull);
  EXPECT_EQ(cut->failures[0].size, 54272u);
  ExpectAtGivesTheCut(r, kR);
}

// at.time.allocations: i2 waits on E2 and is destroyed while it waits; E2
// fires: Realm places it and releases it at once.  The placement cleared the
// requested destroy, so the release read as the old instance of i6's
// waiting redistrict: i2 stayed live in the whole history, and the cut
// (which settles the open group) released it with four events more.
TEST(OraclePrograms, AnInstanceDestroyedWhileItWaitedIsReleasedNotRedistricted) {
  const Rebuilt r = Rebuild(kDestroyedWhileWaiting);
  const Snapshot* cut = Memory(r.cut, kS);
  ASSERT_NE(cut, nullptr);
  EXPECT_EQ(Live(*cut, 0x4000000000000001ull), nullptr) << Picture(*cut);
  ExpectAtGivesTheCut(r, kS);
}

// log.external: Realm logs an external instance's address as its
// "allocation completed" offset (here ~1.4e14 in X, of capacity 0).  Its
// allocator holds none of it: no allocation, no anomaly; a note names it.
TEST(OraclePrograms, AnExternalInstanceHoldsNoRange) {
  const Rebuilt r = Rebuild(kExternalX);
  const Snapshot* x = Memory(r.whole, kX);
  ASSERT_NE(x, nullptr);
  EXPECT_EQ(Live(*x, 0x4000000000400001ull), nullptr) << Picture(*x);
  EXPECT_TRUE(x->anomalies.empty());
  EXPECT_TRUE(AnyNote(r.whole, "external instances")) << "no note";
  // Nothing happened to X's allocator: no event, no history.
  EXPECT_EQ(History(r.whole, kX), nullptr);
}

// The same in S: the address minus S's base underflows to ~1.8e19.
TEST(OraclePrograms, AnExternalInstanceInAnAllocatorsMemoryHoldsNoRange) {
  const Rebuilt r = Rebuild(kExternalS);
  const Snapshot* s = Memory(r.cut, kS);
  ASSERT_NE(s, nullptr);
  EXPECT_EQ(Live(*s, 0x4000000000000001ull), nullptr) << Picture(*s);
  EXPECT_TRUE(s->anomalies.empty());
  ExpectAtGivesTheCut(r, kS);
}

// log.missing-live: i16's redistrict runs at once while i2's waits; the
// release of i16 took every waiting piece (i2's three and i23) as its own,
// the group never completed, and i28 (i16's id reused) was lost.
TEST(OraclePrograms, ARedistrictTakesOnlyThePiecesAnnouncedWithIt) {
  ExpectLiveAsRealmHoldsIt(kRedistrictBesideAWaitingOne, 0x4000000000000005ull,
                           118784, 1099776);
}

// log.placement: i1's redistrict waits (on i2's ready event) while i7's
// runs; a later create reuses i10's id.  Truth: i23 at 550912.
TEST(OraclePrograms, AReusedIdIsPlacedWhereTheLogSays) {
  ExpectLiveAsRealmHoldsIt(kReusedIdAfterRedistricts, 0x4000000000000005ull,
                           550912, 903168);
}

// log.state-live-shown-release_pending: i15's destroy waits on E8+E9 and
// E8 is cancelled: Realm poisons the merged event, the destroy never
// happens, i15 is live.  Only a destroy waiting on exactly E8 was seen.
TEST(OraclePrograms, ADestroyWaitingOnAMergeOfACancelledEventIsCancelled) {
  const Rebuilt r = Rebuild(kDestroyOnAMergedEvent);
  const Allocation* i15 = LiveInCut(r, 0x4000000000000001ull);
  ASSERT_NE(i15, nullptr);
  EXPECT_EQ(i15->state, AllocationState::kLive);
  ExpectAtGivesTheCut(r, kS);
}

// log.missing-release_pending-piece: i3, i1's only piece, is bounded by
// i1's end and its destroy waits on E1; i7 lands inside that bound.  The
// release was taken as early (a reordering) and i3 dropped; the bound
// must narrow instead: i3 stays, release pending, ending where i7 begins.
TEST(OraclePrograms, AnAllocationInsideAPieceWithAPendingDestroyNarrowsIt) {
  const Rebuilt r = Rebuild(kPieceWithAPendingDestroy);
  const Allocation* i3 = LiveInCut(r, 0x4000000000000002ull);
  ASSERT_NE(i3, nullptr);
  EXPECT_EQ(i3->state, AllocationState::kReleasePending);
  EXPECT_EQ(i3->size, 241664u);  // the truth, 239036, lies within
  EXPECT_EQ(CutSizeMark(r, *i3), kSizeUpperBound);
  ExpectAtGivesTheCut(r, kS);
}

// log.bound: i8, a zero-byte piece, is placed at i7's offset; i7's bound
// became 0 B (the next piece's offset), below its 286833 B.  Pieces at one
// offset bound nothing of each other: both end at or before i9.
TEST(OraclePrograms, AZeroBytePieceDoesNotBoundThePieceBesideIt) {
  const Rebuilt r = Rebuild(kZeroBytePiece);
  const Allocation* i7 = LiveInCut(r, 0x4000000000000002ull);
  ASSERT_NE(i7, nullptr);
  EXPECT_EQ(i7->size, 286848u);  // the truth, 286833, lies within
  EXPECT_EQ(CutSizeMark(r, *i7), kSizeUpperBound);
  ExpectAtGivesTheCut(r, kS);
}

// log.missing-live-piece: i2, a zero-byte piece at 0 bounded by i1's end,
// has its destroy waiting on E3+E4; i25 is placed at 0.  The destroy was
// taken as early (a reordering) and i2 dropped; then E3 is cancelled and
// Realm holds i2 live.  A piece at the new allocation's offset narrows to
// 0 B instead.
TEST(OraclePrograms, AnAllocationAtAPiecesOffsetNarrowsItToZero) {
  const Rebuilt r = Rebuild(kZeroBytePieceAtAnAllocation);
  const Allocation* i2 = LiveInCut(r, 0x4000000000000002ull);
  ASSERT_NE(i2, nullptr);
  EXPECT_EQ(i2->size, 0u);
  EXPECT_EQ(i2->state, AllocationState::kLive);
  ExpectAtGivesTheCut(r, kS);
}

// log.extra: i15's redistrict (pieces i19 i20 i21) and i20's (i22 i23) wait
// and run when E8 fires.  Their announces had only the program's lines
// between them and made one run: the first redistrict took all five
// pieces, never completed, and i20 (whose redistrict ran) stayed live.
TEST(OraclePrograms, TwoRedistrictsCalledInTurnKeepTheirOwnPieces) {
  const Rebuilt r = Rebuild(kTwoRedistrictsOneAfterTheOther);
  const Snapshot* cut = Memory(r.cut, kS);
  ASSERT_NE(cut, nullptr);
  EXPECT_EQ(Live(*cut, 0x4000000000000005ull), nullptr) << Picture(*cut);
  for (uint64_t piece : {0x4000000000000001ull, 0x4000000000000006ull,
                         0x4000000000000007ull, 0x4000000000000008ull}) {
    const Allocation* a = LiveInCut(r, piece);
    ASSERT_NE(a, nullptr);
    EXPECT_EQ(CutSizeMark(r, *a), kSizeUpperBound);
  }
  ExpectAtGivesTheCut(r, kS);
}

// A redistrict of a piece of a waiting redistrict, both on E5 (seed 173 of
// the oracle's run): when E5 fires, i5's release is logged after the
// program's own "trigger" line, so i5's pieces are not the run announced
// last (i11's): the first outcome decides.  Taking the last run placed i8
// and i9 outside any group, as allocations of a size stated as 0 B.
const char kRedistrictOfAWaitingPiece[] = R"(
[0 - 1] 0.100000 {3}{random}: OP create R i5 32000 align=32
[0 - 1] 0.100010 {2}{inst}: creating new local instance: 4000000000800001
[0 - 1] 0.100020 {1}{inst}: instance layout: inst=4000000000800001 layout=Layout(bytes=32000, align=32, fields={0=0+0}, lists=[[<0>..<31999>->affine(<1>+0)]])
[0 - 1] 0.100030 {1}{inst}: allocation completed: inst=4000000000800001 offset=0
[0 - 1] 0.100040 {2}{inst}: instance created: inst=4000000000800001 bytes=32000 ready=0
[0 - 1] 0.100050 {3}{random}: OP redistrict i5 i8:23219:32 i9:225:32 i10:8494:32 after=E5
[0 - 1] 0.100060 {2}{inst}: reusing local instance: 4000000000800002
[0 - 1] 0.100070 {2}{inst}: creating new local instance: 4000000000800003
[0 - 1] 0.100080 {2}{inst}: creating new local instance: 4000000000800004
[0 - 1] 0.100090 {3}{random}: OP redistrict i10 i11:9987:32 after=E5
[0 - 1] 0.100100 {2}{inst}: creating new local instance: 4000000000800005
[0 - 1] 0.100110 {3}{random}: OP trigger E5
[0 - 1] 0.100120 {2}{event}: user event trigger: event=8000001000100006 wait_on=0
[0 - 1] 0.100130 {1}{inst}: deallocation completed: inst=4000000000800001
[0 - 1] 0.100140 {1}{inst}: allocation completed: inst=4000000000800002 offset=0
[0 - 1] 0.100150 {1}{inst}: allocation completed: inst=4000000000800003 offset=23232
[0 - 1] 0.100160 {1}{inst}: allocation completed: inst=4000000000800004 offset=23488
[0 - 1] 0.100170 {1}{inst}: deallocation completed: inst=4000000000800004
[0 - 1] 0.100180 {2}{inst}: allocation failed: inst=4000000000800005
[0 - 1] 0.200000 {3}{random}: CHECKPOINT 1
)";

TEST(OraclePrograms, APiecesOwnRedistrictDoesNotTakeItsParentsPieces) {
  const Rebuilt r = Rebuild(kRedistrictOfAWaitingPiece);
  const Snapshot* cut = Memory(r.cut, kR);
  ASSERT_NE(cut, nullptr);
  for (const auto& [piece, bound] :
       {std::pair{0x4000000000800002ull, 23232u}, {0x4000000000800003ull, 256u}}) {
    const Allocation* a = Live(*cut, piece);
    ASSERT_NE(a, nullptr) << std::hex << piece << "\n" << Picture(*cut);
    EXPECT_EQ(a->size, bound);  // Realm's 23219 and 225 lie within
    EXPECT_EQ(SizeMark(*cut, a->identity), kSizeUpperBound);
  }
  EXPECT_EQ(Live(*cut, 0x4000000000800004ull), nullptr) << Picture(*cut);
  ExpectAtGivesTheCut(r, kR);
}

}  // namespace
}  // namespace realm_shadow
