// The line grammar alone: each kind of line Realm, Legion Spy and Legate
// print (the strings of their sources: Realm's inst_impl.cc / mem_impl.cc,
// Legion's legion_spy.h, Legate's BaseMapper::report_failed_mapping_), and
// lines that must not be trusted in part.
#include "realm_shadow/ingest/line_grammar.h"

#include <gtest/gtest.h>

#include <deque>
#include <string>

#include "realm_shadow/core/memory_kind.h"  // RealmMemoryKindName

namespace realm_shadow {
namespace realm_log {
namespace {

// A record's strings are views into its line: the lines are kept for the
// test's whole run (a deque never moves what it holds).
LogLine Parse(std::string line) {
  static std::deque<std::string> kept;
  kept.push_back(std::move(line));
  return ParseLogLine(kept.back());
}

TEST(LineGrammar, PrefixNodeTimeLevelLogger) {
  const LogLine l = Parse(
      "[3 - 7fa27ca7ac40]    5.903834 {3}{legion_spy}: Legion Spy Logging\r");
  EXPECT_TRUE(l.prefixed);
  EXPECT_EQ(l.node, 3u);
  EXPECT_EQ(l.level, 3);
  EXPECT_EQ(LineTimeMicros(l), 5903834u);
  EXPECT_EQ(LineTimeMicros(Parse("[3 - 7f] 12.5 {3}{app}: x")), 12500000u);
  EXPECT_EQ(LineTimeMicros(Parse("[3 - 7f] {3}{app}: x")), 0u);
  EXPECT_EQ(l.logger, "legion_spy");
  EXPECT_EQ(l.message, "Legion Spy Logging");
  EXPECT_EQ(l.kind, LineKind::kSpyKnown);
  EXPECT_EQ(Parse("[x - 1] {{{").kind, LineKind::kUnprefixed);
  EXPECT_EQ(Parse("   ").kind, LineKind::kEmpty);
  EXPECT_EQ(Parse("[0 - 1] 0.1 {2}{threads}: hello").kind,
            LineKind::kOtherLogger);
}

TEST(LineGrammar, RealmInstanceLines) {
  LogLine l = Parse(
      "[0 - 7f] 0.1 {1}{inst}: instance layout: inst=4000000000000005 "
      "layout=Layout(bytes=49152, align=64, fields={0=1+16384})");
  ASSERT_EQ(l.kind, LineKind::kLayout);
  EXPECT_EQ(l.instance, 0x4000000000000005u);
  EXPECT_EQ(l.bytes, 49152u);
  EXPECT_EQ(l.alignment, 64u);
  EXPECT_EQ(l.text, "Layout(bytes=49152, align=64, fields={0=1+16384})");
  l = Parse("[0 - 7f] 0.1 {1}{inst}: allocation completed: "
            "inst=4000000000000005 offset=245760");
  ASSERT_EQ(l.kind, LineKind::kAllocated);
  EXPECT_EQ(l.offset, 245760u);
  l = Parse("[0 - 7f] 0.1 {2}{inst}: instance created: inst=4000000000000005 "
            "bytes=49152 ready=8000000000000007");
  ASSERT_EQ(l.kind, LineKind::kCreated);
  EXPECT_EQ(l.event, 0x8000000000000007u);
  EXPECT_EQ(Parse("[0 - 7f] 0.1 {2}{inst}: reusing local instance: "
                  "4000000000000005").ids[0],
            1u);
  EXPECT_EQ(Parse("[1 - 7f] 0.1 {2}{inst}: creating proxy for "
                  "remotely-created instance: 4000000000000005")
                .kind,
            LineKind::kRemoteProxy);
  l = Parse("[0 - 7f] 0.1 {6}{inst}: instance allocation failed - out of "
            "memory in mem 1e00000000000000");
  ASSERT_EQ(l.kind, LineKind::kOutOfMemory);
  EXPECT_EQ(l.memory, 0x1e00000000000000u);
  // A number is a whole token or nothing.
  EXPECT_EQ(Parse("[0 - 7f] 0.1 {1}{inst}: allocation completed: "
                  "inst=4000000000000005 offset=12x")
                .kind,
            LineKind::kMalformed);
  EXPECT_EQ(Parse("[0 - 7f] 0.1 {1}{inst}: instance layout: inst=4 "
                  "layout=Layout(bytes=99999999999999999999999, align=1)")
                .kind,
            LineKind::kMalformed);
  EXPECT_EQ(Parse("[0 - 7f] 0.1 {2}{inst}: something new").kind,
            LineKind::kInstOther);
}

TEST(LineGrammar, MachineDump) {
  LogLine l = Parse("Memory:1e00010000000000, SYSTEM_MEM, capacity: 8388608");
  ASSERT_EQ(l.kind, LineKind::kMachineMemory);
  EXPECT_EQ(l.memory, 0x1e00010000000000u);
  EXPECT_EQ(l.bytes, 8388608u);
  EXPECT_EQ(l.text, "SYSTEM_MEM");
  EXPECT_EQ(Parse("IB Memory:1a00000000000000, REGDMA_MEM, capacity: 1").kind,
            LineKind::kUnprefixed);
  l = Parse("[0 - 7f]    0.028738 {1}{machine}: Node 1:");
  ASSERT_EQ(l.kind, LineKind::kMachineNode);
  EXPECT_EQ(l.ids[0], 1u);
}

TEST(LineGrammar, LegionSpyInstanceLines) {
  const std::string p = "[0 - 7f] 5.9 {3}{legion_spy}: ";
  LogLine l = Parse(p + "Physical Instance 8000002002100002 4000000000000000 "
                        "1e00000000000000 3 6 2 7");
  ASSERT_EQ(l.kind, LineKind::kSpyInstance);
  EXPECT_EQ(l.event, 0x8000002002100002u);
  EXPECT_EQ(l.instance, 0x4000000000000000u);
  EXPECT_EQ(l.memory, 0x1e00000000000000u);
  EXPECT_EQ(l.ids[0], 3u);  // redop
  EXPECT_EQ(l.ids[2], 2u);  // field space
  EXPECT_EQ(l.ids[3], 7u);  // tree
  l = Parse(p + "Physical Instance Field 8000002002100002 4");
  ASSERT_EQ(l.kind, LineKind::kSpyInstanceField);
  EXPECT_EQ(l.ids[0], 4u);
  l = Parse(p + "Physical Instance Creator 8000002002100002 26 1d00000000000001");
  ASSERT_EQ(l.kind, LineKind::kSpyInstanceCreator);
  EXPECT_EQ(l.ids[0], 26u);
  EXPECT_EQ(l.ids[1], 0x1d00000000000001u);
  l = Parse(p + "Physical Instance Creation Region 8000002002100002 14 2 2");
  ASSERT_EQ(l.kind, LineKind::kSpyCreationRegion);
  EXPECT_EQ(l.ids[0], 14u);  // decimal here (%d), hex in names (IDFMT)
  l = Parse(p + "Memory 1e00010000000000 268435456 2");
  ASSERT_EQ(l.kind, LineKind::kSpyMemory);
  EXPECT_EQ(l.bytes, 268435456u);
  EXPECT_STREQ(RealmMemoryKindName(l.ids[0]), "SYSTEM_MEM");
  EXPECT_EQ(Parse(p + "Physical Instance zz 4 1e 0 0 0 0").kind,
            LineKind::kMalformed);
}

TEST(LineGrammar, LegionSpyNamesAndOperations) {
  const std::string p = "[0 - 7f] 5.9 {3}{legion_spy}: ";
  LogLine l = Parse(p + "Task ID Name 5 Initialize Nodes");
  ASSERT_EQ(l.kind, LineKind::kSpyTaskName);
  EXPECT_EQ(l.text, "Initialize Nodes");
  l = Parse(p + "Index Task 6 5 12 Initialize Nodes");
  ASSERT_EQ(l.kind, LineKind::kSpyTask);
  EXPECT_EQ(l.ids[0], 6u);
  EXPECT_EQ(l.ids[1], 5u);
  EXPECT_EQ(l.ids[2], 12u);
  EXPECT_EQ(l.event, 1u);
  l = Parse(p + "Top Task 0 2 4 top_level");
  ASSERT_EQ(l.kind, LineKind::kSpyTask);
  EXPECT_EQ(l.ids[0], 2u);  // context
  EXPECT_EQ(l.ids[1], 0u);  // task id
  EXPECT_EQ(l.ids[2], 4u);  // uid
  l = Parse(p + "Slice Point 24 26 1 0 0 0");
  ASSERT_EQ(l.kind, LineKind::kSpySliceOf);
  EXPECT_EQ(l.ids[0], 24u);
  EXPECT_EQ(l.ids[1], 26u);
  l = Parse(p + "Replicate Shard 6 0 7");
  ASSERT_EQ(l.kind, LineKind::kSpyShard);
  EXPECT_EQ(l.ids[0], 6u);
  EXPECT_EQ(l.ids[1], 7u);
  l = Parse(p + "Close Operation 6 78 1");
  ASSERT_EQ(l.kind, LineKind::kSpyOperation);
  EXPECT_EQ(l.text, "Close");
  EXPECT_EQ(l.ids[1], 78u);
  // The kind is a view into the line, as every view of the record is (the
  // fuzz target checks it on arbitrary lines; a line the name table's own
  // view once escaped it on: "[0 - ] .{}{legion_spy}Copy Operation").
  {
    const std::string line = p + "Copy Operation 6 79";
    l = ParseLogLine(line);
    ASSERT_EQ(l.kind, LineKind::kSpyOperation);
    EXPECT_EQ(l.text, "Copy");
    EXPECT_GE(l.text.data(), line.data());
    EXPECT_LE(l.text.data() + l.text.size(), line.data() + line.size());
  }
  l = Parse(p + "Field Name 2 0 node capacitance");
  ASSERT_EQ(l.kind, LineKind::kSpyFieldName);
  EXPECT_EQ(l.text, "node capacitance");
  l = Parse(p + "Index Space Name c private nodes");  // IDFMT: hex
  ASSERT_EQ(l.kind, LineKind::kSpyIndexSpaceName);
  EXPECT_EQ(l.ids[0], 12u);
  l = Parse(p + "Logical Region Name 2 4 4 node_locator");
  ASSERT_EQ(l.kind, LineKind::kSpyRegionName);
  EXPECT_EQ(l.text, "node_locator");
  l = Parse(p + "Index Subspace 2 a 0 2 3 -1 0");
  ASSERT_EQ(l.kind, LineKind::kSpySubspace);
  EXPECT_EQ(l.ids[1], 10u);
  EXPECT_EQ(l.text, "3 -1");
  l = Parse(p + "Operation Provenance 26 app.py:12");
  ASSERT_EQ(l.kind, LineKind::kSpyProvenance);
  EXPECT_EQ(l.text, "app.py:12");
  // The longest name wins: these are not "Index Space" lines.
  EXPECT_EQ(Parse(p + "Index Space Point 2 1 5").kind,
            LineKind::kSpyIndexSpacePoint);
  EXPECT_EQ(Parse(p + "Index Space Rect 2 1 0 9").kind,
            LineKind::kSpyIndexSpaceRect);
  EXPECT_EQ(Parse(p + "Index Space 2 0 ").kind, LineKind::kSpyKnown);
  EXPECT_EQ(Parse(p + "Brand New Thing 1 2").kind, LineKind::kSpyUnknown);
}

// The lines that give the shapes of regions and the fields operations ask
// for, as legion_spy.h prints them with LEGION_MAX_DIM 3 (the fixtures').
TEST(LineGrammar, LegionSpyShapeLines) {
  const std::string p = "[0 - 7f] 5.1 {3}{legion_spy}: ";
  LogLine l = Parse(p + "Field Creation 2 1 8 ");
  ASSERT_EQ(l.kind, LineKind::kSpyFieldCreation);
  EXPECT_EQ(l.ids[0], 2u);
  EXPECT_EQ(l.ids[1], 1u);
  EXPECT_EQ(l.bytes, 8u);
  EXPECT_EQ(Parse(p + "Field Creation 2 1 8 app.py:3").kind,
            LineKind::kSpyFieldCreation);
  EXPECT_EQ(Parse(p + "Field Creation 2 1 -8 ").kind, LineKind::kMalformed);

  l = Parse(p + "Index Space Rect 1a 1 1022 1537 0 0 0 0");
  ASSERT_EQ(l.kind, LineKind::kSpyIndexSpaceRect);
  EXPECT_EQ(l.ids[0], 0x1au);
  EXPECT_EQ(l.ids[1], 1u);
  int64_t c[18];
  ASSERT_EQ(ReadIntegers(l.text, c, 18), 6);
  EXPECT_EQ(c[0], 1022);
  EXPECT_EQ(c[1], 1537);
  l = Parse(p + "Index Space Rect 7 2 -4 5 0 9 0 0");
  ASSERT_EQ(l.kind, LineKind::kSpyIndexSpaceRect);
  ASSERT_EQ(ReadIntegers(l.text, c, 18), 6);
  EXPECT_EQ(c[0], -4);
  // Fewer coordinates than 2 x DIM, or one that is not a number.
  EXPECT_EQ(Parse(p + "Index Space Rect 7 2 0 5 0").kind, LineKind::kMalformed);
  EXPECT_EQ(Parse(p + "Index Space Rect 7 1 0 x 0 0 0 0").kind,
            LineKind::kMalformed);
  EXPECT_EQ(Parse(p + "Index Space Rect 7 0 0 0").kind, LineKind::kMalformed);
  l = Parse(p + "Index Space Point 45 1 8 0 0");
  ASSERT_EQ(l.kind, LineKind::kSpyIndexSpacePoint);
  EXPECT_EQ(l.ids[0], 0x45u);
  ASSERT_EQ(ReadIntegers(l.text, c, 18), 3);
  EXPECT_EQ(c[0], 8);
  l = Parse(p + "Empty Index Space 3f");
  ASSERT_EQ(l.kind, LineKind::kSpyEmptyIndexSpace);
  EXPECT_EQ(l.ids[0], 0x3fu);

  l = Parse(p + "Index Space Expression 98 407");
  ASSERT_EQ(l.kind, LineKind::kSpyExpression);
  EXPECT_EQ(l.ids[0], 0x98u);
  EXPECT_EQ(l.ids[1], 407u);
  // The intersection's first source has two spaces before it.
  l = Parse(p + "Index Space Intersection 38 2  22 24");
  ASSERT_EQ(l.kind, LineKind::kSpyExpressionOp);
  EXPECT_EQ(l.ids[0], 38u);
  EXPECT_EQ(l.ids[1], static_cast<uint64_t>('I'));
  EXPECT_EQ(l.ids[2], 2u);
  ASSERT_EQ(ReadIntegers(l.text, c, 18), 2);
  EXPECT_EQ(c[1], 24);
  l = Parse(p + "Index Space Union 90 3 10 12 14");
  ASSERT_EQ(l.kind, LineKind::kSpyExpressionOp);
  EXPECT_EQ(l.ids[1], static_cast<uint64_t>('U'));
  EXPECT_EQ(l.ids[2], 3u);
  l = Parse(p + "Index Space Difference 52 24 38");
  ASSERT_EQ(l.kind, LineKind::kSpyExpressionOp);
  EXPECT_EQ(l.ids[1], static_cast<uint64_t>('D'));
  EXPECT_EQ(l.text, "24 38");
  // A count that is not the number of sources is not trusted.
  EXPECT_EQ(Parse(p + "Index Space Union 90 3 10 12").kind,
            LineKind::kMalformed);
  EXPECT_EQ(Parse(p + "Index Space Union 90 1 10 12").kind,
            LineKind::kMalformed);
  EXPECT_EQ(Parse(p + "Index Space Difference 52 24").kind,
            LineKind::kMalformed);

  l = Parse(p + "Logical Requirement 38 0 1 6 2 2 268435463 0 0 2");
  ASSERT_EQ(l.kind, LineKind::kSpyRequirement);
  EXPECT_EQ(l.ids[0], 38u);
  EXPECT_EQ(l.ids[1], 0u);
  EXPECT_EQ(l.ids[2], 1u);
  EXPECT_EQ(l.ids[3], 6u);
  EXPECT_EQ(l.ids[4], 2u);
  EXPECT_EQ(l.ids[5], 2u);
  EXPECT_EQ(Parse(p + "Logical Requirement 42 0 1 a 2 2 7 0 0 2").ids[3], 10u);
  l = Parse(p + "Logical Requirement Field 12 1 1");
  ASSERT_EQ(l.kind, LineKind::kSpyRequirementField);
  EXPECT_EQ(l.ids[0], 12u);
  EXPECT_EQ(l.ids[1], 1u);
  EXPECT_EQ(l.ids[2], 1u);
  EXPECT_EQ(Parse(p + "Logical Requirement Projection 10 0 0").kind,
            LineKind::kSpyKnown);
}

TEST(LineGrammar, ReadIntegers) {
  int64_t v[3];
  EXPECT_EQ(ReadIntegers("", v, 3), 0);
  EXPECT_EQ(ReadIntegers(" 1  -2 3 ", v, 3), 3);
  EXPECT_EQ(v[1], -2);
  EXPECT_EQ(ReadIntegers("1 2 3 4", v, 3), -1);  // more than max
  EXPECT_EQ(ReadIntegers("1 +2", v, 3), -1);
  EXPECT_EQ(ReadIntegers("-9223372036854775808", v, 3), 1);
  EXPECT_EQ(v[0], INT64_MIN);
  EXPECT_EQ(ReadIntegers("9223372036854775808", v, 3), -1);
}

// Lines built from the format strings of Legate's BaseMapper
// (report_failed_mapping_); no real Legate run is available here.
TEST(LineGrammar, LegateOutOfMemoryReport) {
  const std::string p = "[0 - 7f3c] 12.5 {5}{legate.mapper}: ";
  LogLine l = Parse(p + "Failed to allocate 8,388,608 bytes on memory "
                        "1e00000000000000 (of kind SYSTEM_MEM) for region "
                        "requirement(s) {1} of Task "
                        "cupynumeric::BinaryOpTask[oom.py:16] (UID 8)");
  ASSERT_EQ(l.kind, LineKind::kLegateFailed);
  EXPECT_EQ(l.bytes, 8388608u);
  EXPECT_EQ(l.memory, 0x1e00000000000000u);
  EXPECT_EQ(l.ids[0], 8u);
  EXPECT_EQ(l.text, "Task cupynumeric::BinaryOpTask[oom.py:16]");
  l = Parse(p + "  corresponding to a LogicalStore allocated at oom.py:16");
  ASSERT_EQ(l.kind, LineKind::kLegateRequestStore);
  EXPECT_EQ(l.text, "oom.py:16");
  l = Parse(p + "LogicalStore allocated at oom.py:13:");
  ASSERT_EQ(l.kind, LineKind::kLegateStore);
  EXPECT_EQ(l.text, "oom.py:13");
  l = Parse(p + "  Instance 4000000000000003 at address 7f5a00000000 of size "
                "8,388,608 covering elements <0>..<1048575> ");
  ASSERT_EQ(l.kind, LineKind::kLegateInstance);
  EXPECT_EQ(l.instance, 0x4000000000000003u);
  EXPECT_EQ(l.offset, 0x7f5a00000000u);
  EXPECT_EQ(l.bytes, 8388608u);
  EXPECT_EQ(l.text, "<0>..<1048575>");
  EXPECT_EQ(l.ids[0], 0u);
  // Without the address (Legate before 2025-11), with several stores.
  l = Parse(p + "  Instance 4000000000000001 of size 8388592 covering elements "
                "<1>..<1048574> of multiple stores");
  ASSERT_EQ(l.kind, LineKind::kLegateInstance);
  EXPECT_EQ(l.offset, kNoAddress);
  EXPECT_EQ(l.bytes, 8388592u);
  EXPECT_EQ(l.text, "<1>..<1048574>");
  EXPECT_EQ(l.ids[0], 1u);
  l = Parse(p + "    created for an operation launched at oom.py:10");
  ASSERT_EQ(l.kind, LineKind::kLegateCreatedFor);
  EXPECT_EQ(l.text, "oom.py:10");
  EXPECT_EQ(Parse(p + "There is not enough space because Legate is reserving "
                      "33,554,400 of the available 41,943,040 bytes for the "
                      "following LogicalStores:")
                .kind,
            LineKind::kLegateOther);
  EXPECT_EQ(Parse(p + "  Instance 40000000000000zz of size 8 covering "
                      "elements <0>..<0>")
                .kind,
            LineKind::kMalformed);
}

TEST(LineGrammar, InstanceIdBits) {
  const uint64_t inst = (uint64_t{1} << 62) | (uint64_t{3} << 46) |
                        (uint64_t{3} << 30) | (uint64_t{2} << 22) | 5;
  EXPECT_EQ(InstanceOwnerNode(inst), 3u);
  EXPECT_EQ(MemoryOfInstance(inst), 0x1e00030000000002u);
  EXPECT_EQ(MemoryOwnerNode(0x1e00030000000002u), 3u);
}

}  // namespace
}  // namespace realm_log
}  // namespace realm_shadow
