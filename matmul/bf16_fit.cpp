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

#include "matmul/bf16_dot.hpp"

namespace softfloat::matmul_detail {

HWY_EXPORT(ScanFit);

void Bf16Fit::add(const float* values, std::size_t count) {
  const FitFields fields = HWY_DYNAMIC_DISPATCH(ScanFit)(values, count);
  if (fields.not_bf16 != 0) bf16_values = false;
  if (fields.lowest_field == 0xFF) return;  // no finite nonzero value
  smallest_quantum = std::min(smallest_quantum, int(fields.lowest_field) - 127 - 7);
  largest_exponent = std::max(largest_exponent, int(fields.highest_field) - 127);
}

Bf16Fit operand_fit(const CodeMatrix& x, std::size_t rows, std::size_t columns) {
  Bf16Fit fit;
  if (x.code_bytes() == 1) {
    float table[256];
    x.decode_table(table);
    fit.add(table, 256);
    return fit;
  }
  // Values that cannot be bf16 values need no scan.
  if (x.format().mantissa_bits > 7) {
    fit.bf16_values = false;
    return fit;
  }
  std::vector<float> row(columns);
  for (std::size_t i = 0; i < rows && fit.bf16_values; ++i) {
    x.decode_row(i, 0, columns, row.data());
    fit.add(row.data(), columns);
  }
  return fit;
}

bool pairs_are_exact(const Bf16Fit& a, const Bf16Fit& b, std::size_t k) {
  if (!a.bf16_values || !b.bf16_values) return false;
  // An operand with no nonzero finite value adds only exact zeros (or non-finite values).
  if (a.largest_exponent == INT_MIN || b.largest_exponent == INT_MIN) return true;
  if (a.smallest_quantum + b.smallest_quantum < -126) return false;
  const int k_exponent = int(std::ceil(std::log2(double(k))));
  return a.largest_exponent + 1 + b.largest_exponent + 1 + k_exponent <= 127;
}

}  // namespace softfloat::matmul_detail
#endif  // HWY_ONCE
