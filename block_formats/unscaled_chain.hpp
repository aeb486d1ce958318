// When an MX block's scale may leave the in-order fp32 chain of the block-scaled
// matrix-vector product (block_scaled_matvec-inl.h) without changing a bit of it.
//
// The chain is y <- fma(x[p], w[p] * s, y) for the 32 rows of a block, where w is an
// E2M1 value and s = 2^e the column's E8M0 scale. Since s is a power of two, the
// same bits come from z = y / s, z <- fma(x[p], w[p], z) and y = z * s, which skip
// one multiply a weight, provided that scaling by s commutes with every rounding:
//   (1) no exact intermediate value lies below 2^-126 (the subnormal range, whose
//       fixed quantum does not scale) unless it is exactly representable there;
//   (2) nothing overflows in either form;
//   (3) the conversions z = y / s and y = z * s are exact.
// For (1): x[p] is a multiple of 2^(E - 23), E the smallest exponent of a nonzero x,
// and w of 2^-1, so every product x w s is a multiple of 2^(E - 24 + e) and x w of
// 2^(E - 24). When both are multiples of 2^-149 (E >= -125 and e >= -125 - E), every
// exact sum is a multiple of 2^-149 in its form, so a sum in the subnormal range is
// exactly representable; its other form has the same significant bits, so it is exact
// too, and sums in the normal range round alike in both forms.
// For (2): |y| and |z| at most 2^125 where a pass starts (the kernel checks), and the
// products of a pass add at most 6 * sum|x| * s to |y| and 6 * sum|x| to |z|, which
// 6 * sum|x| <= 2^(g - 1) with g <= 125 and e <= 125 - g keep at most 2^124: no sum
// reaches 2^127.
// For (3): the kernel checks z * s == y lane by lane (a z rounded below 2^-126 fails
// it); y = z * s at the end is the chain's own fp32 value, so the product is exact.
// A lane whose scale lies outside [2^(code_lo - 127), 2^(code_hi - 127)], or that fails
// a check, keeps the scaled chain: both give the same bits, so the choice is speed only.
//
// Worked value: x = {0.75, 1e-3, -2.5}: E = ilogb(1e-3) = -10, sum|x| = 3.251, g =
// ceil(log2(19.506)) + 1 = 6 (one binade over the bound, for the rounding of the sum),
// so code_lo = max(2 - E, 1) = 12 (scales from 2^-115) and code_hi = 252 - g = 246
// (scales up to 2^119).
#pragma once

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstddef>
#include <cstdint>

namespace softfloat::block_formats_detail {

// E8M0 codes [code_lo, code_hi] of the scales that may take the unscaled chain for one
// row x; empty (code_lo > code_hi) where none may: x holds an infinity, a NaN, a
// nonzero value below 2^-125, or sums too large.
struct UnscaledChainWindow {
  std::uint32_t code_lo = 1, code_hi = 0;
  bool empty() const { return code_lo > code_hi; }
};

inline UnscaledChainWindow unscaled_chain_window(const float* x, std::size_t k) {
  // E by the exponent field: E = field - 127 for normal x; a subnormal x's field is 0.
  std::uint32_t smallest_field = 255;
  double sum = 0.0;
  for (std::size_t p = 0; p < k; ++p) {
    const std::uint32_t magnitude = std::bit_cast<std::uint32_t>(x[p]) & 0x7FFFFFFFu;
    if (magnitude >= 0x7F800000u) return {};  // an infinity or a NaN
    if (magnitude == 0) continue;
    smallest_field = std::min(smallest_field, magnitude >> 23);
    sum += double(std::bit_cast<float>(magnitude));
  }
  const int smallest_exponent = int(smallest_field) - 127;
  if (smallest_exponent < -125) return {};
  // g of the header's bound; one binade of margin covers the rounding of `sum`.
  const int growth = sum == 0.0 ? -200 : int(std::ceil(std::log2(6.0 * sum))) + 1;
  if (growth > 125) return {};
  const int lo = std::max(2 - smallest_exponent, 1);
  const int hi = std::min(252 - growth, 253);
  if (hi < lo) return {};
  return {std::uint32_t(lo), std::uint32_t(hi)};
}

}  // namespace softfloat::block_formats_detail
