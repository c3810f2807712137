// Form fields checked as the loader reads them (field_check.h), and the node-kind table the loader and the editor
// share (node_kinds.h).
#include "core/scenario/field_check.h"
#include "core/scenario/node_kinds.h"
#include "scenario_test_util.h"

#include <gtest/gtest.h>

#include <cmath>

using namespace coh::core;
using coh::test::problemAt;
using coh::test::readFixtureJson;
using nlohmann::json;

namespace {

std::string check(const std::string& pointer, std::string_view text)
{
    const json scenario = readFixtureJson("minimal.json");
    const std::optional<json> value = fieldValueFromText(text);
    EXPECT_TRUE(value.has_value()) << text;
    return checkFieldValue(scenario, pointer, value.value_or(json()));
}

} // namespace

TEST(FieldValueFromText, NumbersAsJsonWouldReadThemElseText)
{
    EXPECT_EQ(fieldValueFromText("42"), json(42));
    EXPECT_TRUE(fieldValueFromText("42")->is_number_integer());
    EXPECT_EQ(fieldValueFromText(" 2.5 "), json(2.5));
    EXPECT_EQ(fieldValueFromText("1e3"), json(1000.0));
    EXPECT_EQ(fieldValueFromText("-3"), json(-3));
    EXPECT_EQ(fieldValueFromText("18446744073709551615"), json(UINT64_MAX));
    EXPECT_TRUE(std::isinf(fieldValueFromText("1e400")->get<double>()));
    // Not JSON numbers: kept as typed, for the loader to read as a quantity or refuse.
    EXPECT_EQ(fieldValueFromText("450 GB/s"), json("450 GB/s"));
    EXPECT_EQ(fieldValueFromText("+3"), json("+3"));
    EXPECT_EQ(fieldValueFromText("0x10"), json("0x10"));
    EXPECT_EQ(fieldValueFromText("fast"), json("fast"));
    EXPECT_FALSE(fieldValueFromText("   ").has_value());
}

TEST(FieldCheck, RefusesWhatTheLoaderRefusesInFormWords)
{
    // A bandwidth that is not one: the unit parser's reason, then what to enter, with no JSON quoting.
    EXPECT_EQ(check("/topology/links/1/bandwidth", "fast"),
              "'fast' does not start with a number. Enter a bandwidth such as 64 GB/s");
    EXPECT_EQ(check("/topology/links/1/bandwidth", "450 GB"),
              "'450 GB' is a size, not a bandwidth (add /s). Enter a bandwidth such as 64 GB/s");
    EXPECT_EQ(check("/topology/links/1/bandwidth", "-50 GB/s"), "Enter a bandwidth above zero, such as 64 GB/s");
    EXPECT_EQ(check("/topology/links/1/bandwidth", "1e400"), "Enter a realistic bandwidth such as 64 GB/s");
    // Counts: whole numbers in range (requests: at most the input limit of 10 million), worded for a form.
    EXPECT_EQ(check("/workload/requests", "-3"), "Enter a whole number from 1 to 10000000");
    EXPECT_EQ(check("/workload/requests", "2.5"), "Enter a whole number such as 1");
    EXPECT_EQ(check("/workload/requests", "1e400"), "Enter a whole number from 1 to 10000000");
    EXPECT_EQ(check("/serving/block_tokens", "-3"), "Enter a whole number from 1 to 4294967295");
    EXPECT_EQ(check("/workload/arrival/rate", "many"), "Enter a number such as 4.0");
    EXPECT_EQ(check("/workload/arrival/rate", "-2"), "Enter a number above 0, such as 4.0");
    EXPECT_EQ(check("/workload/arrival/rate", "1e400"), "Enter a smaller number");
    EXPECT_EQ(check("/serving/kv_memory_fraction", "1.5"), "Enter a fraction above 0 and at most 1, such as 0.8");
    EXPECT_EQ(check("/slo/ttft", "-1 s"), "Enter a time above zero, such as 1.5 us");
    // No words about JSON anywhere in what a form shows.
    for (const char* text : {"fast", "-3", "2.5"}) {
        const std::string message = check("/workload/requests", text);
        EXPECT_EQ(message.find("quote"), std::string::npos) << message;
        EXPECT_EQ(message.find("integer"), std::string::npos) << message;
        EXPECT_EQ(message.find('"'), std::string::npos) << message;
    }
}

TEST(FieldCheck, AcceptsGoodValuesAndLeavesContextToValidation)
{
    EXPECT_EQ(check("/topology/links/1/bandwidth", "450 GB/s"), "");
    EXPECT_EQ(check("/topology/links/1/bandwidth", "400 Gb/s"), "");
    EXPECT_EQ(check("/workload/requests", "1e3"), ""); // whole, written with an exponent
    EXPECT_EQ(check("/slo/tpot", "80 ms"), "");        // a section the scenario does not have yet
    // A link end naming no node is a problem of the topology, not of the text: the field takes it.
    EXPECT_EQ(check("/topology/links/0/a", "gpu9"), "");
    const json scenario = readFixtureJson("minimal.json");
    EXPECT_EQ(checkFieldValue(scenario, "/topology/links/0/a", json("gpu9")), "");
    // No place for the value (a parent of another type): not the field's to judge.
    EXPECT_EQ(checkFieldValue(scenario, "/name/x", json(1)), "");
}

TEST(NodeKinds, TableSaysWhichKindsComputeAndHoldMemory)
{
    EXPECT_TRUE(nodeKindHas(NodeKind::Gpu, NodePart::Compute));
    EXPECT_TRUE(nodeKindHas(NodeKind::Accelerator, NodePart::Compute));
    EXPECT_TRUE(nodeKindHas(NodeKind::CpuSocket, NodePart::Compute));
    EXPECT_FALSE(nodeKindHas(NodeKind::CxlMemory, NodePart::Compute));
    EXPECT_FALSE(nodeKindHas(NodeKind::Switch, NodePart::Compute));
    EXPECT_FALSE(nodeKindHas(NodeKind::Storage, NodePart::Compute));
    EXPECT_TRUE(nodeKindHas(NodeKind::CxlMemory, NodePart::Memory));
    EXPECT_TRUE(nodeKindHas(NodeKind::Storage, NodePart::Memory));
    EXPECT_FALSE(nodeKindHas(NodeKind::Switch, NodePart::Memory));
    EXPECT_EQ(kindsWith(NodePart::Compute), "cpu_socket, gpu, accelerator");
    EXPECT_STREQ(nodePartKey(NodePart::Compute), "compute");
}

TEST(NodeKinds, LoaderRefusesPartsAKindDoesNotHave)
{
    json root = readFixtureJson("minimal.json");
    root["topology"]["nodes"][2]["compute"] = {{"peak_flops", "1 TFLOP/s"}};
    root["topology"]["nodes"][2]["memory"] = json::array();
    const auto problems = coh::test::problemsOf(root);
    EXPECT_EQ(problemAt(problems, "/topology/nodes/2/compute").message,
              "'compute' is not part of a switch node (only cpu_socket, gpu, accelerator nodes have it)");
    EXPECT_EQ(problemAt(problems, "/topology/nodes/2/memory").message,
              "'memory' is not part of a switch node (only cpu_socket, gpu, accelerator, cxl_memory, storage nodes "
              "have it)");

    // A serving role on a kind that does not compute names the kind, not a missing "compute".
    json cxl = readFixtureJson("minimal.json");
    cxl["topology"]["nodes"][1]["kind"] = "cxl_memory";
    cxl["topology"]["nodes"][1].erase("compute");
    const auto cxlProblems = coh::test::problemsOf(cxl);
    EXPECT_EQ(problemAt(cxlProblems, "/topology/nodes/1/role").message,
              "node 'gpu1' has role 'decode', but a cxl_memory node does not compute");
    for (const InputProblem& p : cxlProblems)
        EXPECT_NE(p.field, "/topology/nodes/1/memory") << p.toString();
}
