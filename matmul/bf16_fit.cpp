// The rule of bf16_dot.hpp: which operands the pairs-of-products paths sum exactly as
// the in-order chain does, up to the order within each pair.
// Highway compiles this file once per target, re-including bf16_fit-inl.h each time.
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "matmul/bf16_fit-inl.h"
#include <hwy/foreach_target.h>  // IWYU pragma: keep
#include <hwy/highway.h>

#include "matmul/bf16_fit-inl.h"

#if HWY_ONCE
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

#include "matmul/amx_gemm.hpp"
#include "matmul/bf16_dot.hpp"
#include "matmul/byte_decode.hpp"
#include "runtime/remembered.hpp"

namespace softfloat::matmul_detail {

HWY_EXPORT(ScanFit);

void Bf16Fit::add(const float* values, std::size_t count) {
  const FitFields fields = HWY_DYNAMIC_DISPATCH(ScanFit)(values, count);
  if (fields.subnormal != 0) subnormal = true;
  if (fields.infinities != 0) infinities = true;
  pieces_needed = std::max(pieces_needed, fields.beyond_16_bits != 0 ? 3 : fields.beyond_8_bits != 0 ? 2 : 1);
  if (fields.lowest_field == 0xFF) return;  // no finite nonzero value
  smallest_exponent = std::min(smallest_exponent, int(fields.lowest_field) - 127);
  largest_exponent = std::max(largest_exponent, int(fields.highest_field) - 127);
}

Bf16Fit operand_fit(const CodeMatrix& x, std::size_t rows, std::size_t columns, int most_pieces) {
  Bf16Fit fit;
  if (x.code_bytes() == 1) {  // judged by the format's 256 values, once per thread and format
    thread_local detail::Remembered<Format, Bf16Fit, 4> remembered;
    return remembered.get(x.format(), [&] {
      fit.add(byte_code_rules(x.format()).table, 256);
      return fit;
    });
  }
  std::vector<float> row(columns);
  for (std::size_t i = 0; i < rows && !fit.subnormal && fit.pieces() <= most_pieces; ++i) {
    x.decode_row(i, 0, columns, row.data());
    fit.add(row.data(), columns);
  }
  return fit;
}

namespace {

// The pairs rule's bounds on the exponents (bf16_dot.hpp), for sums of the products of
// the pieces of a's and b's values.
bool sums_stay_normal(const Bf16Fit& a, const Bf16Fit& b, std::size_t k) {
  if (a.subnormal || b.subnormal) return false;
  // An operand with no nonzero finite value adds only exact zeros (or non-finite values).
  if (a.largest_exponent == INT_MIN || b.largest_exponent == INT_MIN) return true;
  if (a.smallest_quantum() + b.smallest_quantum() < -126) return false;
  const int k_exponent = int(std::ceil(std::log2(double(k))));
  return a.largest_exponent + 1 + b.largest_exponent + 1 + k_exponent <= 127;
}

}  // namespace

bool pairs_are_exact(const Bf16Fit& a, const Bf16Fit& b, std::size_t k) {
  return a.pieces() == 1 && b.pieces() == 1 && sums_stay_normal(a, b, k);
}

bool tiles_are_exact(const Bf16Fit& a, const Bf16Fit& b, std::size_t k) {
  if (a.pieces() == 1 && b.pieces() == 1) return pairs_are_exact(a, b, k);
  if (a.pieces() > 1 && b.pieces() > 1) return false;  // 4 to 9 products of pieces: slower than the chain
  const Bf16Fit& split = a.pieces() > 1 ? a : b;
  const Bf16Fit& whole = a.pieces() > 1 ? b : a;
  // An infinity times a zero piece would be a NaN where the chain has an infinity.
  if (whole.infinities) return false;
  // Each piece must be a bf16 normal, which the instructions read exactly.
  if (split.largest_exponent != INT_MIN && split.smallest_quantum() < -126) return false;
  return k >= kSplitMinimumDepth && sums_stay_normal(a, b, k);
}

}  // namespace softfloat::matmul_detail
#endif  // HWY_ONCE
