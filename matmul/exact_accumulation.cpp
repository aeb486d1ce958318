// The general accumulator path: any Acc format, one running sum per element of C in k
// order, each step a fused multiply-add rounded to Acc by the one rounding routine.
// The product of two decoded inputs and its sum with the running value are exact
// (softfloat/wide_value.hpp, as in runtime::fma); round_to_format() then rounds once.
// Scalar: it models the accumulator register, it is not a fast path.
#include <algorithm>
#include <bit>
#include <cstdint>
#include <vector>

#include "matmul/paths.hpp"
#include "softfloat/arithmetic.hpp"
#include "softfloat/exact_value.hpp"
#include "softfloat/round_to_format.hpp"

namespace softfloat::matmul_detail {

namespace {
// Columns of B decoded at a time: k x 512 floats.
constexpr std::size_t kColumnBlock = 512;
}  // namespace

void accumulate_exact(const CodeMatrix& a, const CodeMatrix& b, float* s, std::size_t lds, std::size_t m,
                      std::size_t n, std::size_t k, const Format& accumulator) {
  const std::size_t block = std::min(n, kColumnBlock);
  std::vector<float> a_row(k), b_block(k * block);
  std::vector<ExactValue> sums(block);
  for (std::size_t j0 = 0; j0 < n; j0 += block) {
    const std::size_t width = std::min(block, n - j0);
    for (std::size_t p = 0; p < k; ++p) b.decode_row(p, j0, width, b_block.data() + p * width);
    for (std::size_t i = 0; i < m; ++i) {
      a.decode_row(i, 0, k, a_row.data());
      std::fill(sums.begin(), sums.end(), ExactValue{});  // +0
      for (std::size_t p = 0; p < k; ++p) {
        const ExactValue x = decode(a_row[p]);
        const float* b_row = b_block.data() + p * width;
        for (std::size_t j = 0; j < width; ++j) {
          const ExactValue step = detail::exact_fma(x, decode(b_row[j]), sums[j], Rounding::nearest_even);
          sums[j] = decode(round_to_format(step, accumulator), accumulator);
        }
      }
      float* out = s + i * lds + j0;
      for (std::size_t j = 0; j < width; ++j)
        out[j] = std::bit_cast<float>(std::uint32_t(round_to_format(sums[j], binary32_format)));
    }
  }
}

}  // namespace softfloat::matmul_detail
