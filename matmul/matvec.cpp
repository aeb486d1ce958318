// The matrix-vector path (m = 1, fp32 accumulation): runtime dispatch of matvec-inl.h.
// One-byte codes are decoded inside the kernel (by shift and scale where
// byte_decode.hpp's rule fits the format, else by table lookup); wider codes are decoded a few
// rows at a time into a buffer that stays in cache, then accumulated the same way,
// except bf16 codes, which a shift decodes inside the kernel.

// Highway compiles this file once per target, re-including matvec-inl.h each time.
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "matmul/matvec-inl.h"
#include <hwy/foreach_target.h>  // IWYU pragma: keep
#include <hwy/highway.h>

#include "matmul/matvec-inl.h"

#if HWY_ONCE
#include <algorithm>
#include <vector>

#include "matmul/bf16_dot.hpp"
#include "matmul/byte_decode.hpp"
#include "matmul/paths.hpp"

namespace softfloat::matmul_detail {

HWY_EXPORT(MatVecTable8);
HWY_EXPORT(MatVecScaledBytes);
HWY_EXPORT(MatVecFloats);
HWY_EXPORT(MatVecBf16);

namespace {
// The bf16 format: fp32's exponent and bias, the top 7 bits of its mantissa, IEEE
// specials, so that a code shifted left by 16 is the float of its value.
constexpr Format bfloat16_layout{8, 7, 127};
// Decoded rows of wider codes per pass: about 64 KiB of fp32, at least one row.
constexpr std::size_t kBufferFloats = std::size_t{1} << 14;
}  // namespace

void matvec_fp32(const CodeMatrix& a, const CodeMatrix& b, float* s, std::size_t n, std::size_t k, bool pairs) {
  std::fill(s, s + n, 0.0f);  // the chain starts from +0
  if (k == 0) return;
  std::vector<float> x(k);
  a.decode_row(0, 0, k, x.data());
  if (b.code_bytes() == 1) {
    HWY_ALIGN float table[256];
    b.decode_table(table);
    if (pairs && matvec_bf16_dot(x.data(), b, table, s, n, k)) return;
    ByteDecode decode;
    if (byte_decode_for(b.format(), table, decode) &&
        HWY_DYNAMIC_DISPATCH(MatVecScaledBytes)(x.data(), b.row_codes(0), b.ld(), k, n, table, decode, s))
      return;
    HWY_DYNAMIC_DISPATCH(MatVecTable8)(x.data(), b.row_codes(0), b.ld(), k, n, table, s);
    return;
  }
  if (b.code_bytes() == 2 && b.format() == bfloat16_layout) {
    HWY_DYNAMIC_DISPATCH(MatVecBf16)(x.data(), reinterpret_cast<const std::uint16_t*>(b.row_codes(0)), b.ld(), k, n,
                                     s);
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

}  // namespace softfloat::matmul_detail
#endif  // HWY_ONCE
