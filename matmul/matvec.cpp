// The matrix-vector path (m = 1, fp32 accumulation): runtime dispatch of matvec-inl.h.
// One-byte codes are decoded inside the kernel: by byte_decode.hpp's half rule (fp16
// fields, then F16C) where it fits the format, else by its fp32 rule, else by table
// lookup; bf16 and fp16 codes are decoded inside the kernel too (a shift; F16C). Other
// fp32 codes are read as floats; other wider codes are decoded a few rows at a time into a buffer that stays in cache, then
// accumulated the same way.

// Highway compiles this file once per target, re-including matvec-inl.h each time.
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "matmul/matvec-inl.h"
#include <hwy/foreach_target.h>  // IWYU pragma: keep
#include <hwy/highway.h>

#include "matmul/matvec-inl.h"

#if HWY_ONCE
#include <algorithm>
#include <iterator>
#include <vector>

#include "matmul/bf16_dot.hpp"
#include "matmul/byte_decode.hpp"
#include "matmul/kernel_rule.hpp"
#include "matmul/kernels.hpp"
#include "softfloat/simd.hpp"

namespace softfloat::matmul_detail {

HWY_EXPORT(MatVecTable8);
HWY_EXPORT(MatVecScaledBytes);
HWY_EXPORT(MatVecFloats);
HWY_EXPORT(MatVecBf16);
HWY_EXPORT(MatVecHalfBytes);
HWY_EXPORT(MatVecHalf);

namespace {
// The bf16 format: fp32's exponent and bias, the top 7 bits of its mantissa, IEEE
// specials, so that a code shifted left by 16 is the float of its value.
constexpr Format bfloat16_layout{8, 7, 127};
constexpr Format binary16_layout{5, 10, 15};
// The fp16 codes whose conversion MatVecHalf checks on its target before each call:
// zeros, the smallest and largest subnormals, normals, the largest finite value,
// infinities, signalling and quiet NaNs with payloads, both signs.
constexpr std::uint16_t kHalfCheckCodes[] = {0x0000, 0x8000, 0x0001, 0x8001, 0x03FF, 0x83FF, 0x0400, 0x3C00,
                                             0x7BFF, 0xFBFF, 0x7C00, 0xFC00, 0x7C01, 0xFC01, 0x7DFF, 0x7E00,
                                             0xFE00, 0x7E01, 0x7FFF, 0xFFFF};
// Decoded rows of wider codes per pass: about 64 KiB of fp32, at least one row.
constexpr std::size_t kBufferFloats = std::size_t{1} << 14;
}  // namespace

namespace {
// y continued over B's one-byte codes by `rule` alone; false (y untouched) when the rule
// does not apply to the format or, checked on this target, differs from the table.
bool matvec_bytes(const float* x, const CodeMatrix& b, const ByteCodeRules& rules, float* y, std::size_t n,
                  std::size_t k, ByteRule rule, std::size_t short_rows) {
  switch (rule) {
    case ByteRule::half:
      return rules.half_applies && HWY_DYNAMIC_DISPATCH(MatVecHalfBytes)(x, b.row_codes(0), b.ld(), k, n, rules.table,
                                                                         rules.half, short_rows, nullptr, y);
    case ByteRule::fp32:
      return rules.fp32_applies &&
             HWY_DYNAMIC_DISPATCH(MatVecScaledBytes)(x, b.row_codes(0), b.ld(), k, n, rules.table, rules.fp32, y);
    case ByteRule::table:
      HWY_DYNAMIC_DISPATCH(MatVecTable8)(x, b.row_codes(0), b.ld(), k, n, rules.table, y);
      return true;
  }
  return false;
}
// The rows per pass of the short decodings: the caller's, or this CPU's rule.
std::size_t short_rows_or_rule(std::size_t short_rows) {
  return short_rows != 0 ? short_rows : matvec_rows_per_pass(detail::cpu_features());
}
}  // namespace

void matvec_fp32(const CodeMatrix& a, const CodeMatrix& b, float* s, std::size_t n, std::size_t k, bool pairs,
                 std::size_t short_rows_asked) {
  std::fill(s, s + n, 0.0f);  // the chain starts from +0
  if (k == 0) return;
  const std::size_t short_rows = short_rows_or_rule(short_rows_asked);
  std::vector<float> x(k);
  a.decode_row(0, 0, k, x.data());
  if (b.code_bytes() == 1) {
    const ByteCodeRules& rules = byte_code_rules(b.format());
    if (pairs && matvec_bf16_dot(x.data(), b, s, n, k)) return;
    for (ByteRule rule : {ByteRule::half, ByteRule::fp32, ByteRule::table})
      if (matvec_bytes(x.data(), b, rules, s, n, k, rule, short_rows)) return;
    return;
  }
  if (b.code_bytes() == 4 && b.format() == binary32_format) {  // fp32 codes are their own values
    HWY_DYNAMIC_DISPATCH(MatVecFloats)(x.data(), reinterpret_cast<const float*>(b.row_codes(0)), b.ld(), k, n, s);
    return;
  }
  if (b.code_bytes() == 2 && b.format() == bfloat16_layout) {
    HWY_DYNAMIC_DISPATCH(MatVecBf16)(x.data(), reinterpret_cast<const std::uint16_t*>(b.row_codes(0)), b.ld(), k, n,
                                     short_rows, s);
    return;
  }
  if (b.code_bytes() == 2 && b.format() == binary16_layout) {
    constexpr std::size_t count = std::size(kHalfCheckCodes);
    float expected[count];
    simd::dequantize(kHalfCheckCodes, count, expected, b.format());
    if (HWY_DYNAMIC_DISPATCH(MatVecHalf)(x.data(), reinterpret_cast<const std::uint16_t*>(b.row_codes(0)), b.ld(), k,
                                         n, kHalfCheckCodes, expected, count, short_rows, s))
      return;
  }
  const std::size_t rows_per_pass = std::clamp<std::size_t>(kBufferFloats / n, 1, k);
  std::vector<float> rows(rows_per_pass * n);
  for (std::size_t p0 = 0; p0 < k; p0 += rows_per_pass) {
    const std::size_t count = std::min(rows_per_pass, k - p0);
    for (std::size_t r = 0; r < count; ++r) b.decode_row(p0 + r, 0, n, rows.data() + r * n);
    HWY_DYNAMIC_DISPATCH(MatVecFloats)(x.data() + p0, rows.data(), n, count, n, s);
  }
}

void matvec_rows_fp32(const float* x, const float* rows, std::size_t ld, std::size_t count, std::size_t n, float* y) {
  HWY_DYNAMIC_DISPATCH(MatVecFloats)(x, rows, ld, count, n, y);
}

bool matvec_column_scaled_bytes(const float* x, const std::uint8_t* codes, std::size_t ld, std::size_t count,
                                std::size_t n, const float table[256], const HalfByteDecode& half,
                                const float* column_scale, float* y) {
  return HWY_DYNAMIC_DISPATCH(MatVecHalfBytes)(x, codes, ld, count, n, table, half, short_rows_or_rule(0),
                                               column_scale, y);
}

bool matvec_fp32_by_rule(const CodeMatrix& a, const CodeMatrix& b, float* s, std::size_t n, std::size_t k,
                        ByteRule rule) {
  std::fill(s, s + n, 0.0f);
  if (k == 0) return true;
  std::vector<float> x(k);
  a.decode_row(0, 0, k, x.data());
  return matvec_bytes(x.data(), b, byte_code_rules(b.format()), s, n, k, rule, short_rows_or_rule(0));
}

}  // namespace softfloat::matmul_detail
#endif  // HWY_ONCE
