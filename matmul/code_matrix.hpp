// A row-major matrix of format codes as the matmul paths see it: where row i starts,
// and how to decode a run of its codes to fp32. The decoding is simd::dequantize's
// (prepared once per matrix: packing decodes short runs, and the public function
// would check its arguments and rebuild its constants on each), so every path reads
// the same fp32 values, and the kernels that consume them never learn which format
// they came from.
#pragma once

#include <cstddef>
#include <cstdint>

#include "simd/prepared_conversions.hpp"
#include "softfloat/format.hpp"
#include "softfloat/matmul.hpp"

namespace softfloat::matmul_detail {

class CodeMatrix {
 public:
  explicit CodeMatrix(const detail::MatmulOperand& operand) : operand_(operand), decoding_(operand.format) {}

  const Format& format() const { return operand_.format; }
  std::size_t code_bytes() const { return operand_.code_bytes; }
  std::size_t ld() const { return operand_.ld; }
  // The first code of row `row`, as raw bytes.
  const std::uint8_t* row_codes(std::size_t row) const {
    return static_cast<const std::uint8_t*>(operand_.codes) + row * operand_.ld * operand_.code_bytes;
  }

  // The same matrix from column `column` on (a part of the columns for one thread).
  CodeMatrix from_column(std::size_t column) const {
    detail::MatmulOperand part = operand_;
    part.codes = row_codes(0) + column * operand_.code_bytes;
    return CodeMatrix(part, decoding_);
  }

  // out[0, count) = the values of codes (row, column .. column + count - 1).
  void decode_row(std::size_t row, std::size_t column, std::size_t count, float* out) const;
  // The values of all 256 byte codes, table[c] = float(F::from_bits(c)): the decoding
  // of a one-byte matrix as a lookup table. Only for code_bytes() == 1.
  void decode_table(float table[256]) const;

 private:
  CodeMatrix(const detail::MatmulOperand& operand, const simd::detail::PreparedDequantize& decoding)
      : operand_(operand), decoding_(decoding) {}
  detail::MatmulOperand operand_;
  simd::detail::PreparedDequantize decoding_;
};

}  // namespace softfloat::matmul_detail
