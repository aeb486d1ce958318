// The rule of bf16_dot.hpp: which operands the pairs-of-products paths sum exactly as
// the in-order chain does, up to the order within each pair.
#include <bit>
#include <cmath>
#include <cstdint>
#include <vector>

#include "matmul/bf16_dot.hpp"

namespace softfloat::matmul_detail {

void Bf16Fit::add(const float* values, std::size_t count) {
  for (std::size_t i = 0; i < count; ++i) {
    const std::uint32_t bits = std::bit_cast<std::uint32_t>(values[i]);
    const std::uint32_t exponent_field = (bits >> 23) & 0xFF;
    if (exponent_field == 0xFF) continue;  // infinities and NaNs: outside the rule
    if ((bits & 0x7FFFFFFF) == 0) continue;
    // A subnormal fp32 value, or one with more than 8 significant bits, is not read
    // exactly by the instruction.
    if (exponent_field == 0 || (bits & 0xFFFF) != 0) {
      bf16_values = false;
      continue;
    }
    const int exponent = int(exponent_field) - 127;
    if (exponent - 7 < smallest_quantum) smallest_quantum = exponent - 7;
    if (exponent > largest_exponent) largest_exponent = exponent;
  }
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
