// `softfloat cost`, run as a user runs it: the fit of the Llama-3-70B shape (30517 and
// 61035 tokens), the weights and decode times, the transfer table, the roofline and the
// all-reduce with their units; bad arguments exit with status 2 and one line; --help.
#include <algorithm>
#include <sstream>
#include <string>
#include <vector>

#include "verify/cli/cli_test_support.hpp"

namespace softfloat::cli_test {
namespace {

const std::string kFit = "cost fit --params 70e9 --layers 80 --kv-heads 8 --head-dim 128 --memory 80e9";

TEST(CostCli, FitOfTheIssue) {
  const CommandResult r = run_cli(kFit + " --weights e4m3 --cache bf16");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.err, "");
  EXPECT_NE(r.out.find("one device of 80 GB: 70e9 parameters, 80 layers, 8 KV heads of 128"), std::string::npos)
      << r.out;
  EXPECT_EQ(row(r.out, "e4m3"),
            (std::vector<std::string>{"e4m3", "8", "70 GB", "bf16", "16", "327680 B", "10 GB", "30517"}))
      << r.out;
}

TEST(CostCli, FitOfEveryPair) {
  const CommandResult r = run_cli(kFit + " --weights bf16,e4m3 --cache bf16,e4m3");
  ASSERT_EQ(r.status, 0) << r.err;
  // One row per pair of weight and cache formats, in that order.
  std::vector<std::vector<std::string>> rows;
  std::istringstream lines(r.out);
  for (std::string line; std::getline(lines, line);)
    for (const char* weights : {"bf16", "e4m3"})
      if (auto cells = row(line, weights); cells.size() == 8) rows.push_back(cells);
  ASSERT_EQ(rows.size(), 4u) << r.out;
  EXPECT_EQ(rows[0], (std::vector<std::string>{"bf16", "16", "140 GB", "bf16", "16", "327680 B", "-60 GB",
                                               "weights do not fit"}));
  EXPECT_EQ(rows[1][3], "e4m3");
  EXPECT_EQ(rows[1].back(), "weights do not fit");
  EXPECT_EQ(rows[2].back(), "30517");
  EXPECT_EQ(rows[3], (std::vector<std::string>{"e4m3", "8", "70 GB", "e4m3", "8", "163840 B", "10 GB", "61035"}));
  // The defaults are the issue's example.
  const CommandResult defaults = run_cli("cost fit");
  ASSERT_EQ(defaults.status, 0) << defaults.err;
  EXPECT_EQ(row(defaults.out, "e4m3").back(), "30517") << defaults.out;
}

TEST(CostCli, WeightsAndDecodeTime) {
  const CommandResult r = run_cli("cost weights --params 70e9 --formats bf16,e4m3,e2m1,mxfp4 --bandwidth 3.35e12");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(row(r.out, "bf16"), (std::vector<std::string>{"bf16", "16", "140 GB", "41.79 ms"})) << r.out;
  EXPECT_EQ(row(r.out, "e4m3"), (std::vector<std::string>{"e4m3", "8", "70 GB", "20.9 ms"})) << r.out;
  EXPECT_EQ(row(r.out, "e2m1"), (std::vector<std::string>{"e2m1", "4", "35 GB", "10.45 ms"})) << r.out;
  EXPECT_EQ(row(r.out, "mxfp4_e2m1"), (std::vector<std::string>{"mxfp4_e2m1", "4.25", "37.19 GB", "11.1 ms"}))
      << r.out;
}

TEST(CostCli, TransferIsLabelledIllustrative) {
  const CommandResult r = run_cli("cost transfer --bytes 16e9");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("ILLUSTRATIVE"), std::string::npos) << r.out;
  EXPECT_EQ(row(r.out, "HBM"), (std::vector<std::string>{"HBM", "80 GB", "3.35 TB/s", "4.776 ms"})) << r.out;
  EXPECT_EQ(row(r.out, "host memory"), (std::vector<std::string>{"host memory", "1 TB", "50 GB/s", "320 ms"}))
      << r.out;
  EXPECT_NE(r.out.find("67x slower than HBM"), std::string::npos) << r.out;
}

TEST(CostCli, Roofline) {
  const CommandResult r = run_cli("cost roofline --peak 1e15 --bandwidth 3.35e12 --formats bf16 --intensity 500");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("ridge point 298.5 FLOPs/byte"), std::string::npos) << r.out;
  EXPECT_EQ(row(r.out, "matmul 4096^3, tiles of 128, bf16"),
            (std::vector<std::string>{"matmul 4096^3, tiles of 128, bf16", "63.02", "memory-bound", "211.1 TFLOP/s",
                                      "21.1%"}))
      << r.out;
  EXPECT_EQ(row(r.out, "given"), (std::vector<std::string>{"given", "500", "compute-bound", "1 PFLOP/s", "100%"}))
      << r.out;
}

TEST(CostCli, AllReduce) {
  const CommandResult r = run_cli("cost allreduce --bytes 14e9 --devices 8 --bandwidth 500e9,50e9");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("over 8 devices: each sends 24.5 GB (2 (N - 1) / N = 1.75 times the array)"),
            std::string::npos)
      << r.out;
  EXPECT_EQ(row(r.out, "500 GB/s"), (std::vector<std::string>{"500 GB/s", "49 ms"})) << r.out;
  EXPECT_EQ(row(r.out, "50 GB/s"), (std::vector<std::string>{"50 GB/s", "490 ms"})) << r.out;
  // From parameters: 7e9 bf16 gradients are 14e9 bytes, beside a 0.69 s step.
  const CommandResult params = run_cli("cost allreduce --params 7e9 --format bf16 --tokens 16384 --peak 1e15");
  ASSERT_EQ(params.status, 0) << params.err;
  EXPECT_NE(params.out.find("Ring all-reduce of 14 GB (7e9 bf16 gradients) over 8 devices"), std::string::npos)
      << params.out;
  EXPECT_NE(params.out.find("6 P D / peak = 688.1 ms at 1 PFLOP/s"), std::string::npos) << params.out;
  EXPECT_EQ(params.out.find("--sent"), std::string::npos) << params.out;  // no comparison unless asked
}

TEST(CostCli, AllReduceBesideMeasuredBytes) {
  // 4e6 fp32 bytes over 2 devices: the ring sends 2 (2 - 1) / 2 x 4e6 = 4e6 bytes, 4 ms at
  // 1e9 B/s; the measured 1e6 bytes take 1 ms, 3 ms and 4x less.
  const CommandResult r = run_cli("cost allreduce --bytes 4e6 --devices 2 --bandwidth 1e9 --sent 1e6");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.err, "");
  EXPECT_EQ(row(r.out, "link bandwidth"),
            (std::vector<std::string>{"link bandwidth", "time", "time of --sent bytes", "saved"}))
      << r.out;
  EXPECT_EQ(row(r.out, "1 GB/s"), (std::vector<std::string>{"1 GB/s", "4 ms", "1 ms", "3 ms (4x less)"})) << r.out;
  EXPECT_NE(r.out.find("time of --sent bytes = the 1 MB measured on one device / bandwidth, compared with the ring "
                       "of the --bytes/--params array (2 (N - 1) / N of it: 4 MB)."),
            std::string::npos)
      << r.out;
  // More than the ring sends: a negative saving, and the same bytes ratio in every row.
  const CommandResult more = run_cli("cost allreduce --bytes 4e6 --devices 2 --bandwidth 1e9,1e8 --sent 6e6");
  ASSERT_EQ(more.status, 0) << more.err;
  EXPECT_EQ(row(more.out, "1 GB/s"), (std::vector<std::string>{"1 GB/s", "4 ms", "6 ms", "-2 ms (1.5x more)"}))
      << more.out;
  EXPECT_EQ(row(more.out, "100 MB/s"), (std::vector<std::string>{"100 MB/s", "40 ms", "60 ms", "-20 ms (1.5x more)"}))
      << more.out;
}

// One of each kind (each command runs a process, slow under the sanitizers); the
// library's own checks are tested in full beside it.
TEST(CostCli, BadArguments) {
  expect_one_line_error("cost", "name a calculation: fit, weights, transfer, roofline, allreduce");
  expect_one_line_error("cost bogus", "unknown calculation 'bogus'");
  expect_one_line_error(kFit + " --weights fp17", "--weights: invalid format spec 'fp17'");
  expect_one_line_error(kFit + " --kv-heads 0", "--kv-heads: expected a whole number from 1");
  expect_one_line_error("cost fit --memory -80e9", "--memory: expected a finite number > 0; got '-80e9'");
  expect_one_line_error("cost allreduce --devices 8.5", "--devices: expected a whole number from 1");
  expect_one_line_error("cost fit --params abc", "--params: expected a finite number > 0; got 'abc'");
  expect_one_line_error("cost allreduce --bytes 14e9 --params 7e9", "--bytes excludes --params");
  expect_one_line_error("cost allreduce --sent -1", "--sent: expected a finite number >= 0; got '-1'");
}

TEST(CostCli, Help) {
  for (const char* command : {"cost", "cost fit", "cost allreduce"}) {
    SCOPED_TRACE(command);
    const CommandResult r = run_cli(std::string(command) + " --help");
    EXPECT_EQ(r.status, 0);
    EXPECT_NE(r.out.find("Usage:"), std::string::npos) << r.out;
    EXPECT_EQ(r.err, "");
  }
}

}  // namespace
}  // namespace softfloat::cli_test
