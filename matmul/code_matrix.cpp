// Decoding of code matrices through the array conversions (softfloat/simd.hpp's, prepared
// once per matrix), which are bit for bit the scalar float(Float::from_bits(code)) on
// every target.
#include "matmul/code_matrix.hpp"


namespace softfloat::matmul_detail {

void CodeMatrix::decode_row(std::size_t row, std::size_t column, std::size_t count, float* out) const {
  const std::uint8_t* first = row_codes(row) + column * code_bytes();
  switch (code_bytes()) {
    case 1: return decoding_(first, count, out);
    case 2: return decoding_(reinterpret_cast<const std::uint16_t*>(first), count, out);
    default: return decoding_(reinterpret_cast<const std::uint32_t*>(first), count, out);
  }
}

void CodeMatrix::decode_table(float table[256]) const {
  std::uint8_t codes[256];
  for (int c = 0; c < 256; ++c) codes[c] = std::uint8_t(c);
  decoding_(codes, 256, table);
}

}  // namespace softfloat::matmul_detail
