// The ring all-reduce (softfloat/cost/all_reduce.hpp): the simulation moves chunks
// between devices and every device ends with the exact sum, computed here directly, for
// 1 to 9 devices and sizes that N does and does not divide; each device sends
// 2 (N - 1) / N times the array (12 numbers of 8 on 4 devices); 14e9 bytes over 8
// devices take 49 ms at 500 GB/s and 490 ms at 50 GB/s; bad arguments throw.
#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <numeric>
#include <stdexcept>
#include <vector>

#include "softfloat/cost/all_reduce.hpp"

namespace softfloat::cost {
namespace {

// Device d's array: values of both signs, different on every device and position.
std::vector<std::vector<std::int64_t>> inputs(std::size_t devices, std::size_t size) {
  std::vector<std::vector<std::int64_t>> data(devices, std::vector<std::int64_t>(size));
  std::uint64_t state = 0x9E3779B97F4A7C15u;
  for (auto& device : data)
    for (auto& value : device) {
      state = state * 6364136223846793005u + 1442695040888963407u;
      value = std::int64_t(state >> 40) - (std::int64_t{1} << 23);
    }
  return data;
}

std::vector<std::int64_t> direct_sum(const std::vector<std::vector<std::int64_t>>& data) {
  std::vector<std::int64_t> sum(data.front().size(), 0);
  for (const auto& device : data)
    for (std::size_t j = 0; j < sum.size(); ++j) sum[j] += device[j];
  return sum;
}

TEST(RingAllReduce, FourDevicesOfEightNumbers) {
  const std::vector<std::vector<std::int64_t>> data{
      {1, 2, 3, 4, 5, 6, 7, 8}, {10, 20, 30, 40, 50, 60, 70, 80}, {100, 200, 300, 400, 500, 600, 700, 800},
      {-1, -2, -3, -4, -5, -6, -7, -8}};
  const RingAllReduce r = simulate_ring_all_reduce(data);
  const std::vector<std::int64_t> sum{110, 220, 330, 440, 550, 660, 770, 880};
  ASSERT_EQ(r.devices.size(), 4u);
  for (const auto& device : r.devices) EXPECT_EQ(device, sum);
  EXPECT_TRUE(r.every_device_has_exact_sum);
  EXPECT_EQ(r.steps, 6u);  // 3 reduce-scatter + 3 all-gather
  for (std::size_t d = 0; d < 4; ++d) {
    EXPECT_EQ(r.numbers_sent[d], 12u);  // 2 * 3 chunks of 2 = 2 (N - 1) / N * 8
    EXPECT_EQ(r.numbers_received[d], 12u);
  }
  EXPECT_EQ(double(r.numbers_sent[0]), ring_all_reduce_bytes_sent_per_device(8, 4));
}

TEST(RingAllReduce, ExactSumForManyRingsAndSizes) {
  for (std::size_t n = 1; n <= 9; ++n)
    for (const std::size_t size : {0, 1, 2, 3, 7, 8, 13, 24, 64, 100}) {
      SCOPED_TRACE("N = " + std::to_string(n) + ", size = " + std::to_string(size));
      const auto data = inputs(n, size);
      const RingAllReduce r = simulate_ring_all_reduce(data);
      const std::vector<std::int64_t> sum = direct_sum(data);
      for (const auto& device : r.devices) EXPECT_EQ(device, sum);
      EXPECT_TRUE(r.every_device_has_exact_sum);
      EXPECT_EQ(r.steps, 2 * (n - 1));
      // All the traffic: each phase moves every chunk but one from every device, N - 1
      // arrays' worth, so 2 (N - 1) arrays in all; what is sent is received.
      const std::uint64_t sent = std::accumulate(r.numbers_sent.begin(), r.numbers_sent.end(), std::uint64_t{0});
      const std::uint64_t received =
          std::accumulate(r.numbers_received.begin(), r.numbers_received.end(), std::uint64_t{0});
      EXPECT_EQ(sent, 2 * (n - 1) * size);
      EXPECT_EQ(received, sent);
      // Per device: 2 (N - 1) chunks, each of floor(size / N) or ceil(size / N) numbers;
      // exactly 2 (N - 1) / N * size when N divides the size.
      const std::uint64_t small = size / n, large = (size + n - 1) / n;
      for (std::size_t d = 0; d < n; ++d) {
        EXPECT_GE(r.numbers_sent[d], 2 * (n - 1) * small);
        EXPECT_LE(r.numbers_sent[d], 2 * (n - 1) * large);
        if (size % n == 0) {
          EXPECT_EQ(r.numbers_sent[d], 2 * (n - 1) * size / n);
          EXPECT_EQ(double(r.numbers_sent[d]), ring_all_reduce_bytes_sent_per_device(double(size), n));
        }
      }
    }
}

// 7 numbers on 3 devices: chunks [0, 2), [2, 4), [4, 7) of 2, 2 and 3. Device i sends
// every chunk but (i + 1) mod 3 in the reduce-scatter and every chunk but (i + 2) mod 3
// in the all-gather: 14 - 2 - 3 = 9, 14 - 3 - 2 = 9 and 14 - 2 - 2 = 10.
TEST(RingAllReduce, UnevenChunksByHand) {
  const RingAllReduce r = simulate_ring_all_reduce(inputs(3, 7));
  EXPECT_EQ(r.numbers_sent, (std::vector<std::uint64_t>{9, 9, 10}));
  EXPECT_TRUE(r.every_device_has_exact_sum);
}

TEST(AllReduceTime, GradientsOfSevenBillionParameters) {
  // 14e9 bytes over 8 devices: 2 * 7 / 8 = 1.75 times, 24.5e9 bytes from each.
  EXPECT_EQ(ring_all_reduce_bytes_sent_per_device(14e9, 8), 24.5e9);
  EXPECT_NEAR(all_reduce_seconds(14e9, 8, 500e9), 0.049, 1e-12);
  EXPECT_NEAR(all_reduce_seconds(14e9, 8, 50e9), 0.49, 1e-12);
  EXPECT_EQ(all_reduce_seconds(14e9, 1, 50e9), 0.0);  // nothing to exchange
  EXPECT_EQ(ring_all_reduce_bytes_sent_per_device(14e9, 2), 14e9);
}

TEST(AllReduceErrors, BadArguments) {
  EXPECT_THROW(simulate_ring_all_reduce({}), std::invalid_argument);
  EXPECT_THROW(simulate_ring_all_reduce({{1, 2, 3}, {1, 2}}), std::invalid_argument);
  const std::int64_t most = std::numeric_limits<std::int64_t>::max();
  EXPECT_THROW(simulate_ring_all_reduce({{most}, {1}}), std::invalid_argument);
  EXPECT_THROW(simulate_ring_all_reduce({{-most}, {-2}}), std::invalid_argument);
  EXPECT_THROW(all_reduce_seconds(14e9, 0, 500e9), std::invalid_argument);
  EXPECT_THROW(all_reduce_seconds(14e9, 8, 0), std::invalid_argument);
  EXPECT_THROW(all_reduce_seconds(14e9, 8, -500e9), std::invalid_argument);
  EXPECT_THROW(all_reduce_seconds(-1, 8, 500e9), std::invalid_argument);
  EXPECT_THROW(ring_all_reduce_bytes_sent_per_device(14e9, 0), std::invalid_argument);
  try {
    simulate_ring_all_reduce({{1, 2, 3}, {1, 2}});
    FAIL() << "arrays of different lengths accepted";
  } catch (const std::invalid_argument& error) {
    EXPECT_STREQ(error.what(), "softfloat::cost::simulate_ring_all_reduce: device 1 holds 2 numbers, device 0 3; "
                               "every device needs the same length");
  }
}

}  // namespace
}  // namespace softfloat::cost
