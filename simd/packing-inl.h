// The per-target packing of 6-bit codes (simd/packed.cpp): four codes in three bytes,
// a little-endian bit stream, sixteen codes a 128-bit vector. The codes of a group of
// four, read as one 32-bit lane x = c0 | c1 << 8 | c2 << 16 | c3 << 24 (codes below
// 2^6), become
//   v = (x & 0x3F) | ((x >> 2) & 0xFC0) | ((x >> 4) & 0x3F000) | ((x >> 6) & 0xFC0000)
// = c0 | c1 << 6 | c2 << 12 | c3 << 18, whose low three bytes are the group's bytes; a
// byte shuffle then drops every fourth byte (12 bytes of 16). Unpacking spreads each
// three bytes into a lane and undoes the shifts. Each vector step reads or writes 16
// bytes of which 12 belong to its group, so the vector loops stop where fewer than 16
// further codes follow, and the rest goes one group at a time.

#if defined(SOFTFLOAT_SIMD_PACKING_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef SOFTFLOAT_SIMD_PACKING_INL_H_
#undef SOFTFLOAT_SIMD_PACKING_INL_H_
#else
#define SOFTFLOAT_SIMD_PACKING_INL_H_
#endif

#include <cstddef>
#include <cstdint>

#include "hwy/highway.h"

HWY_BEFORE_NAMESPACE();
namespace softfloat::simd::detail {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// One group of four codes <-> three bytes, for what the vector loops leave.
HWY_INLINE void PackGroup6(const std::uint8_t* codes, std::uint8_t* out) {
  const std::uint32_t v = std::uint32_t(codes[0]) | std::uint32_t(codes[1]) << 6 | std::uint32_t(codes[2]) << 12 |
                          std::uint32_t(codes[3]) << 18;
  out[0] = std::uint8_t(v);
  out[1] = std::uint8_t(v >> 8);
  out[2] = std::uint8_t(v >> 16);
}
HWY_INLINE void UnpackGroup6(const std::uint8_t* in, std::uint8_t* codes) {
  const std::uint32_t v = std::uint32_t(in[0]) | std::uint32_t(in[1]) << 8 | std::uint32_t(in[2]) << 16;
  codes[0] = v & 0x3F;
  codes[1] = (v >> 6) & 0x3F;
  codes[2] = (v >> 12) & 0x3F;
  codes[3] = std::uint8_t(v >> 18);
}

// codes[0, count) -> out[0, 3 * count / 4); count is a multiple of 4.
HWY_NOINLINE void PackCodes6(const std::uint8_t* HWY_RESTRICT codes, std::size_t count,
                             std::uint8_t* HWY_RESTRICT out) {
  std::size_t i = 0;
#if HWY_TARGET != HWY_SCALAR
  const hn::Full128<std::uint8_t> d8;
  const hn::Full128<std::uint32_t> d32;
  alignas(16) static constexpr std::uint8_t kKeep[16] = {0, 1, 2, 4, 5, 6, 8, 9, 10, 12, 13, 14, 0, 0, 0, 0};
  const auto keep = hn::Load(d8, kKeep);
  // 16 codes a step; the last 4 bytes stored belong to the next step's group.
  for (; i + 32 <= count; i += 16) {
    const auto x = hn::BitCast(d32, hn::LoadU(d8, codes + i));
    auto v = hn::And(x, hn::Set(d32, 0x3Fu));
    v = hn::Or(v, hn::And(hn::ShiftRight<2>(x), hn::Set(d32, 0xFC0u)));
    v = hn::Or(v, hn::And(hn::ShiftRight<4>(x), hn::Set(d32, 0x3F000u)));
    v = hn::Or(v, hn::And(hn::ShiftRight<6>(x), hn::Set(d32, 0xFC0000u)));
    hn::StoreU(hn::TableLookupBytes(hn::BitCast(d8, v), keep), d8, out + i / 4 * 3);
  }
#endif
  for (; i < count; i += 4) PackGroup6(codes + i, out + i / 4 * 3);
}

// in[0, 3 * count / 4) -> codes[0, count); count is a multiple of 4.
HWY_NOINLINE void UnpackCodes6(const std::uint8_t* HWY_RESTRICT in, std::size_t count,
                               std::uint8_t* HWY_RESTRICT codes) {
  std::size_t i = 0;
#if HWY_TARGET != HWY_SCALAR
  const hn::Full128<std::uint8_t> d8;
  const hn::Full128<std::uint32_t> d32;
  alignas(16) static constexpr std::uint8_t kSpread[16] = {0, 1, 2, 2, 3, 4, 5, 5, 6, 7, 8, 8, 9, 10, 11, 11};
  const auto spread = hn::Load(d8, kSpread);
  // 16 codes a step from 16 bytes read, of which the last 4 belong to the next group.
  for (; i + 32 <= count; i += 16) {
    const auto bytes = hn::TableLookupBytes(hn::LoadU(d8, in + i / 4 * 3), spread);
    const auto v = hn::And(hn::BitCast(d32, bytes), hn::Set(d32, 0xFFFFFFu));
    auto x = hn::And(v, hn::Set(d32, 0x3Fu));
    x = hn::Or(x, hn::And(hn::ShiftLeft<2>(v), hn::Set(d32, 0x3F00u)));
    x = hn::Or(x, hn::And(hn::ShiftLeft<4>(v), hn::Set(d32, 0x3F0000u)));
    x = hn::Or(x, hn::And(hn::ShiftLeft<6>(v), hn::Set(d32, 0x3F000000u)));
    hn::StoreU(hn::BitCast(d8, x), d8, codes + i);
  }
#endif
  for (; i < count; i += 4) UnpackGroup6(in + i / 4 * 3, codes + i);
}

}  // namespace HWY_NAMESPACE
}  // namespace softfloat::simd::detail
HWY_AFTER_NAMESPACE();

#endif  // include guard
