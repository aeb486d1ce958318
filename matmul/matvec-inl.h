// The per-target part of the matrix-vector product (m = 1, the decode step of LLM
// inference), compiled for every Highway target by matvec.cpp: y = x * B for a row x of
// k values and B of k x n codes. The product is bound by the bytes of B, so B is
// decoded inside the loop that consumes it and never written out as fp32: one-byte
// codes are decoded in registers by the shift-and-scale rule of byte_decode.hpp (a
// few integer operations and one multiply per vector), so a one-byte format reads a
// quarter of fp32's bytes. Formats the rule does not fit are looked up in their
// 256-entry table with a gather, which is correct but several times slower.
//
// Summation order: y[j] = +0, then y[j] = MulAdd(x[p], B[p][j], y[j]) for p = 0 .. k-1
// in order, the same chain as the GEMM (gemm-inl.h). The loops go over blocks of
// columns (whose sums stay in cache) and eight rows of B at a time; the columns past
// the last whole vector use one-lane vectors, so that every step is the same MulAdd.

#if defined(SOFTFLOAT_MATMUL_MATVEC_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef SOFTFLOAT_MATMUL_MATVEC_INL_H_
#undef SOFTFLOAT_MATMUL_MATVEC_INL_H_
#else
#define SOFTFLOAT_MATMUL_MATVEC_INL_H_
#endif

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>

#include "hwy/highway.h"
#include "matmul/byte_decode.hpp"
#include "matmul/float_vectors-inl.h"

HWY_BEFORE_NAMESPACE();
namespace softfloat::matmul_detail {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

using DU = hn::RebindToUnsigned<DF>;
using VU = hn::Vec<DU>;
using D1 = hn::CappedTag<float, 1>;

// Rows of one-byte codes, decoded by table lookup.
struct TableRows {
  const std::uint8_t* codes;
  std::size_t ld;
  const float* table;

  const std::uint8_t* row(std::size_t p) const { return codes + p * ld; }
  VF Load(const std::uint8_t* HWY_RESTRICT row, std::size_t j) const {
    const DF df;
    const hn::RebindToSigned<DF> di;
    const hn::Rebind<std::uint8_t, decltype(di)> d8;
    return hn::GatherIndex(df, table, hn::PromoteTo(di, hn::LoadU(d8, row + j)));
  }
  float One(const std::uint8_t* HWY_RESTRICT row, std::size_t j) const { return table[row[j]]; }
};

// Rows of one-byte codes, decoded by the shift-and-scale rule; lanes holding one of
// the rule's exceptions take the table's value instead.
struct ScaledByteRows {
  const std::uint8_t* codes;
  std::size_t ld;
  const float* table;
  VU magnitude_mask, sign_bit, exception_code, exception_from;
  VF scale;
  int mantissa_shift, sign_shift;

  ScaledByteRows(const std::uint8_t* codes_in, std::size_t ld_in, const float* table_in, const ByteDecode& d)
      : codes(codes_in),
        ld(ld_in),
        table(table_in),
        magnitude_mask(hn::Set(DU(), d.magnitude_mask)),
        sign_bit(hn::Set(DU(), d.sign_bit)),
        exception_code(hn::Set(DU(), d.exception_code)),
        exception_from(hn::Set(DU(), d.exception_from)),
        scale(hn::Set(DF(), d.scale)),
        mantissa_shift(int(d.mantissa_shift)),
        sign_shift(int(d.sign_shift)) {}

  const std::uint8_t* row(std::size_t p) const { return codes + p * ld; }
  VF Load(const std::uint8_t* HWY_RESTRICT row, std::size_t j) const {
    const DF df;
    const DU du;
    const hn::Rebind<std::uint8_t, DU> d8;
    const VU code = hn::PromoteTo(du, hn::LoadU(d8, row + j));
    const VU magnitude = hn::And(code, magnitude_mask);
    const VF value = hn::Mul(hn::BitCast(df, hn::ShiftLeftSame(magnitude, mantissa_shift)), scale);
    const VF signed_value = hn::Or(value, hn::BitCast(df, hn::ShiftLeftSame(hn::And(code, sign_bit), sign_shift)));
    const auto exceptional = hn::Or(hn::Eq(code, exception_code), hn::Not(hn::Lt(magnitude, exception_from)));
    if (HWY_LIKELY(hn::AllFalse(du, exceptional))) return signed_value;
    const VF looked_up = hn::GatherIndex(df, table, hn::BitCast(hn::RebindToSigned<DF>(), code));
    return hn::IfThenElse(hn::RebindMask(df, exceptional), looked_up, signed_value);
  }
  float One(const std::uint8_t* HWY_RESTRICT row, std::size_t j) const { return table[row[j]]; }
};

// Rows of bf16 codes: fp32's top half, so a shift decodes every code exactly
// (subnormals, infinities and NaNs included) and B is read at two bytes per value.
struct Bf16Rows {
  const std::uint16_t* codes;
  std::size_t ld;

  const std::uint16_t* row(std::size_t p) const { return codes + p * ld; }
  VF Load(const std::uint16_t* HWY_RESTRICT row, std::size_t j) const {
    const DU du;
    const hn::Rebind<std::uint16_t, DU> d16;
    return hn::BitCast(DF(), hn::ShiftLeft<16>(hn::PromoteTo(du, hn::LoadU(d16, row + j))));
  }
  float One(const std::uint16_t* HWY_RESTRICT row, std::size_t j) const {
    const std::uint32_t bits = std::uint32_t(row[j]) << 16;
    float value;
    std::memcpy(&value, &bits, sizeof(value));
    return value;
  }
};

// Rows already decoded to fp32.
struct FloatRows {
  const float* values;
  std::size_t ld;

  const float* row(std::size_t p) const { return values + p * ld; }
  VF Load(const float* HWY_RESTRICT row, std::size_t j) const { return hn::LoadU(DF(), row + j); }
  float One(const float* HWY_RESTRICT row, std::size_t j) const { return row[j]; }
};

// y[j] = MulAdd(x[p + r], row p + r [j], y[j]) for r = 0 .. R-1 in order, j in [j0, end):
// R rows per pass over a block of y, so that each running sum is loaded and stored
// once per R steps.
template <std::size_t R, class Rows>
HWY_INLINE void AccumulateRowGroup(const Rows& rows, const float* HWY_RESTRICT x, std::size_t p, std::size_t j0,
                                   std::size_t end, float* HWY_RESTRICT y) {
  const DF df;
  const D1 d1;
  const std::size_t lanes = hn::Lanes(df);
  const std::size_t vector_end = j0 + (end - j0) / lanes * lanes;
  decltype(rows.row(0)) row[R];
  VF weight[R];
  HWY_UNROLL(8)
  for (std::size_t r = 0; r < R; ++r) {
    row[r] = rows.row(p + r);
    weight[r] = hn::Set(df, x[p + r]);
  }
  for (std::size_t j = j0; j < vector_end; j += lanes) {
    VF sum = hn::LoadU(df, y + j);
    HWY_UNROLL(8)
    for (std::size_t r = 0; r < R; ++r) sum = hn::MulAdd(weight[r], rows.Load(row[r], j), sum);
    hn::StoreU(sum, df, y + j);
  }
  for (std::size_t j = vector_end; j < end; ++j) {
    auto sum = hn::LoadU(d1, y + j);
    for (std::size_t r = 0; r < R; ++r) sum = hn::MulAdd(hn::Set(d1, x[p + r]), hn::Set(d1, rows.One(row[r], j)), sum);
    hn::StoreU(sum, d1, y + j);
  }
}

// y[j] = MulAdd(x[p], row p [j], y[j]) for p = 0 .. count-1 in order, j < n: blocks of
// columns whose sums stay in L1 / L2 (32 KiB), eight rows of B at a time. Whole rows
// of up to 8192 codes keep each row's reads sequential, which the prefetchers follow;
// shorter column blocks (1024) were 1.5 times slower at 8192 x 8192.
template <class Rows>
HWY_INLINE void AccumulateRows(const Rows& rows, const float* HWY_RESTRICT x, std::size_t count, std::size_t n,
                               float* HWY_RESTRICT y) {
  constexpr std::size_t kColumnBlock = 8192;
  constexpr std::size_t kRowsPerPass = 8;
  for (std::size_t j0 = 0; j0 < n; j0 += kColumnBlock) {
    const std::size_t end = std::min(n, j0 + kColumnBlock);
    std::size_t p = 0;
    for (; p + kRowsPerPass <= count; p += kRowsPerPass) AccumulateRowGroup<kRowsPerPass>(rows, x, p, j0, end, y);
    for (; p < count; ++p) AccumulateRowGroup<1>(rows, x, p, j0, end, y);
  }
}

// y (n values, holding the running sums) continued over k rows of one-byte codes.
HWY_NOINLINE void MatVecTable8(const float* x, const std::uint8_t* codes, std::size_t ld, std::size_t k,
                               std::size_t n, const float* table, float* y) {
  AccumulateRows(TableRows{codes, ld, table}, x, k, n, y);
}
// The same with the shift-and-scale decoding, after checking it on all 256 codes
// against the table on this target; false (and y untouched) if any code differs.
HWY_NOINLINE bool MatVecScaledBytes(const float* x, const std::uint8_t* codes, std::size_t ld, std::size_t k,
                                    std::size_t n, const float* table, const ByteDecode& decode, float* y) {
  const ScaledByteRows rows(codes, ld, table, decode);
  const DF df;
  const DU du;
  const std::size_t lanes = hn::Lanes(df);
  HWY_ALIGN std::uint8_t every_code[256];
  for (std::size_t c = 0; c < 256; ++c) every_code[c] = std::uint8_t(c);
  for (std::size_t c = 0; c < 256; c += lanes) {
    const VU got = hn::BitCast(du, rows.Load(every_code, c));
    if (!hn::AllTrue(du, hn::Eq(got, hn::BitCast(du, hn::LoadU(df, table + c))))) return false;
  }
  AccumulateRows(rows, x, k, n, y);
  return true;
}
// y continued over k rows of bf16 codes.
HWY_NOINLINE void MatVecBf16(const float* x, const std::uint16_t* codes, std::size_t ld, std::size_t k,
                             std::size_t n, float* y) {
  AccumulateRows(Bf16Rows{codes, ld}, x, k, n, y);
}
// y continued over `count` rows of fp32 values.
HWY_NOINLINE void MatVecFloats(const float* x, const float* values, std::size_t ld, std::size_t count, std::size_t n,
                               float* y) {
  AccumulateRows(FloatRows{values, ld}, x, count, n, y);
}

// NOLINTNEXTLINE(google-readability-namespace-comments)
}  // namespace HWY_NAMESPACE
}  // namespace softfloat::matmul_detail
HWY_AFTER_NAMESPACE();

#endif  // SOFTFLOAT_MATMUL_MATVEC_INL_H_ toggle
