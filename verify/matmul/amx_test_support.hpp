// Shared by the AMX tile GEMM tests (amx_tiles_test.cpp, amx_split_test.cpp): the skip
// where the tiles cannot run, and the tile order written out in plain fp32 arithmetic,
// over the bf16 pieces of a split operand (matmul/amx_gemm.hpp) or over whole values.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "matmul/amx_tiles.hpp"
#include "softfloat/softfloat.hpp"
#include "verify/matmul/matmul_test_support.hpp"

namespace softfloat::matmul_test {

#define SKIP_WITHOUT_AMX()                                                                              \
  if (!matmul_detail::amx_usable())                                                                     \
  GTEST_SKIP() << "AMX tiles unavailable here (the CPU lacks AMX-TILE / AMX-BF16, the system does not " \
                  "save the tile state, or it refused the tile-data permission)"

// The pieces of v, most significant first: each the leading 8 significant bits of what
// is left, cut toward zero. Worked value: 1 + 2^-9 + 2^-20 -> 1, 2^-9, 2^-20.
inline std::vector<double> pieces_of(double v, int count) {
  std::vector<double> pieces(std::size_t(count), 0.0);
  for (int j = 0; j < count && v != 0.0 && std::isfinite(v); ++j) {
    const double quantum = std::ldexp(1.0, std::ilogb(v) - 7);
    pieces[std::size_t(j)] = std::trunc(v / quantum) * quantum;
    v -= pieces[std::size_t(j)];
  }
  return pieces;
}

// S in the tile order over the pieces: per block of 32 depth steps and per piece, the
// even steps' products and the odd steps' products each summed from +0 in k order in
// fp32, their sum added to the running value. At least one of a_pieces, b_pieces is 1
// (both: TDPBF16PS's own order on whole bf16 values).
template <class FA, class FB>
std::vector<float> tile_order_of_pieces(const Codes<FA>& a, const Codes<FB>& b, std::size_t m, std::size_t n,
                                        std::size_t k, int a_pieces, int b_pieces) {
  const int pieces = std::max(a_pieces, b_pieces);
  // piece_values(x, count)[q][i]: piece q of value i (the value itself when not split).
  const auto piece_values = [&](const auto& values, int count) {
    std::vector<std::vector<double>> out(std::size_t(pieces), std::vector<double>(values.size()));
    for (std::size_t i = 0; i < values.size(); ++i) {
      const std::vector<double> cut = pieces_of(values[i], count);
      for (int q = 0; q < pieces; ++q) out[std::size_t(q)][i] = count > 1 ? cut[std::size_t(q)] : values[i];
    }
    return out;
  };
  const auto a_values = piece_values(values_of<FA>(a), a_pieces);
  const auto b_values = piece_values(values_of<FB>(b), b_pieces);
  std::vector<float> c(m * n);
  for (std::size_t i = 0; i < m; ++i)
    for (std::size_t j = 0; j < n; ++j) {
      float sum = 0.0f;
      for (std::size_t block = 0; block < k; block += 32)
        for (int piece = 0; piece < pieces; ++piece) {
          float even = 0.0f, odd = 0.0f;
          for (std::size_t p = block; p < std::min(k, block + 32); ++p) {
            const double x = a_values[std::size_t(piece)][i * k + p], y = b_values[std::size_t(piece)][p * n + j];
            const float product = float(x * y);  // 8 by 8 significant bits: exact
            if ((p - block) % 2 == 0) {
              even = even + product;
            } else {
              odd = odd + product;
            }
          }
          const float pair_sums = even + odd;
          sum = sum + pair_sums;
        }
      c[i * n + j] = sum;
    }
  return c;
}

inline std::string describe(const Format& fa, const Format& fb, const Shape& s) {
  return format_name(fa) + " x " + format_name(fb) + ", " + std::to_string(s.m) + "x" + std::to_string(s.n) + "x" +
         std::to_string(s.k);
}

// Random codes (random_codes) through MatmulSummation::tiles: matmul_path names the
// tiles, the result is the tile order over the pieces bit for bit and within the
// k-term bound against fp64.
template <class FA, class FB>
void check_tile_order(const Shape& s, std::uint64_t seed, int a_pieces = 1, int b_pieces = 1) {
  std::mt19937_64 rng(seed);
  const Codes<FA> a = random_codes<FA>(s.m * s.k, rng);
  const Codes<FB> b = random_codes<FB>(s.k * s.n, rng);
  const std::string what = describe(FA::format, FB::format, s);
  ASSERT_EQ((matmul_path<FA, FB>(s.m, s.n, s.k, MatmulSummation::tiles)), MatmulKernel::tiles_gemm) << what;
  std::vector<float> c(s.m * s.n, -1.0f);
  matmul<FA, FB>(a.data(), b.data(), c.data(), s.m, s.n, s.k, MatmulSummation::tiles);
  const std::vector<float> expected = tile_order_of_pieces<FA, FB>(a, b, s.m, s.n, s.k, a_pieces, b_pieces);
  EXPECT_EQ(count_differences(c, expected, "tile order, " + what), 0u);
  EXPECT_EQ((count_outside_bound<FA, FB>(a, b, c, all_rows(s.m), s.n, s.k, 0x1p-24, what)), 0u) << what;
}

}  // namespace softfloat::matmul_test
