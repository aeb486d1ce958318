// softfloat::mx_matmul's AVX512-VNNI kernel for the int8 kinds (E2M1, E2M3, MXINT8;
// mx_integers.hpp): raw intrinsics in functions compiled for AVX512F / BW / VNNI only,
// called after mx_vnni_supported() has checked the CPU, so the rest of the library runs
// on any x86-64 and other builds keep only the exact scalar loop.
//
// vpdpbusd multiplies unsigned bytes by signed bytes, four products per int32 lane,
// summed exactly (products <= 255 * 128, four of them far from 2^31). A's integers a
// are stored as a + 128 (0 .. 255) and B's as themselves, so each lane receives, from
// zero, D' = sum (a + 128) b = D + 128 sum b over the block, D the block's exact dot
// product; 128 * sum b is a property of B's block, computed when B is packed.
//
// Scaling. Each row of A and column of B gets a factor per block, 2^(code - 127 - shift)
// (NaN for the NaN scale 0xFF). When both codes lie within 54 of 127, everything below
// is exact in fp32: D' and 128 sum b (below 2^21 in magnitude) convert exactly, so
// fma(D', factor_b, -128 sum b * factor_b) = D * factor_b with no rounding, and
// D * factor_b * factor_a lies in [2^-120, 2^128) with at most 20 significant bits
// (factors within [2^-60, 2^54]); the second fused multiply-add
// s = fl(D * factor_b * factor_a + s) is then exactly softfloat/mx_matmul.hpp's
// fl(s + x_t). A block whose elements are all zero has D = 0 whatever its scale, so its
// factor is 1 unless its scale is NaN. A tile with any other block (a nonzero block
// whose scale is outside that range) is computed by the exact scalar loop instead.
//
// Layout. A is packed in slivers of kRows rows: for each group g of four values, the
// kRows rows' four bytes one after the other (each broadcast to a vector). B is packed
// per panel of 32 columns: for each group g, 32 columns of four bytes (two vectors).
// The 6 x 32 tile of fp32 sums stays in 12 registers for the whole depth, with the 12
// int32 block sums beside it.
#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <vector>

#include "block_formats/mx_integers.hpp"
#include "hwy/aligned_allocator.h"
#include "matmul/column_parts.hpp"
#include "runtime/cpu_features.hpp"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define SOFTFLOAT_HAVE_MX_VNNI 1
#include <immintrin.h>
#define SOFTFLOAT_MX_VNNI_TARGET __attribute__((target("avx512f,avx512bw,avx512vnni")))
#else
#define SOFTFLOAT_HAVE_MX_VNNI 0
#endif

namespace softfloat::block_formats_detail {

bool mx_vnni_supported() {
#if SOFTFLOAT_HAVE_MX_VNNI
  return detail::cpu_features().avx512_vnni;
#else
  return false;
#endif
}

#if SOFTFLOAT_HAVE_MX_VNNI
using matmul_detail::for_column_parts;  // matmul/'s split of the columns over the pool

namespace {

constexpr std::size_t kRows = 6;      // rows of A per tile
constexpr std::size_t kColumns = 32;  // columns of B per panel: two vectors of 16 lanes
constexpr std::size_t kGroups = 8;    // groups of four values in a block of 32
// C of at least this many values (1 MiB) is written by non-temporal stores where its
// rows allow: it leaves the cache anyway, and the stores then skip reading each line.
constexpr std::size_t kStreamFrom = std::size_t{1} << 18;
// The conversions are masked with every lane on (the same instruction): GCC 12 warns
// that the unmasked intrinsic's undefined pass-through register may be uninitialized.
constexpr __mmask16 kAllLanes = 0xFFFF;

// A, decoded once for every thread: slivers of kRows rows (rows past m are zeros).
struct PackedA {
  hwy::AlignedFreeUniquePtr<std::uint8_t[]> bytes;  // sliver s, group g, row r: 4 bytes
  std::vector<float> factors;                       // sliver s, block t, row r
  std::vector<bool> sliver_exact;                   // the kernel applies to every block of the sliver
};

PackedA pack_a(const MxRows& a, std::size_t m, std::size_t k) {
  const std::size_t slivers = (m + kRows - 1) / kRows, blocks = a.blocks;
  PackedA packed{hwy::AllocateAligned<std::uint8_t>(std::max<std::size_t>(slivers * kRows * k, 1)),
                 std::vector<float>(slivers * blocks * kRows, 1.0f), std::vector<bool>(slivers, true)};
  std::fill(packed.bytes.get(), packed.bytes.get() + slivers * kRows * k, std::uint8_t{128});
  std::vector<std::int8_t> integers(k);
  const int shift = mx_integer_shift(a.element);
  for (std::size_t i = 0; i < m; ++i) {
    const std::size_t s = i / kRows, r = i % kRows;
    decode_mx_int8(a.elements + i * a.row_bytes, a.element, k, integers.data());
    std::uint8_t* sliver = packed.bytes.get() + s * kRows * k + r * 4;
    for (std::size_t g = 0; g < k / 4; ++g) {
      std::uint32_t four;
      std::memcpy(&four, integers.data() + 4 * g, 4);
      four ^= 0x80808080u;  // each int8 v as the unsigned byte v + 128
      std::memcpy(sliver + g * kRows * 4, &four, 4);
    }
    for (std::size_t t = 0; t < blocks; ++t) {
      float& factor = packed.factors[(s * blocks + t) * kRows + r];
      if (!mx_block_factor(a.scales[i * blocks + t], integers.data() + t * 32, shift, factor))
        packed.sliver_exact[s] = false;
    }
  }
  return packed;
}

// One panel of B: up to 32 columns starting at `first`, zeros beyond them.
struct PackedPanel {
  hwy::AlignedFreeUniquePtr<std::int8_t[]> bytes;         // group g, column j: 4 bytes
  hwy::AlignedFreeUniquePtr<float[]> corrections;  // block t, column j: -128 * sum of the block * factor
  hwy::AlignedFreeUniquePtr<float[]> factors;             // block t, column j
  bool exact = true;
};

PackedPanel allocate_panel(std::size_t k) {
  const std::size_t blocks = k / 32;
  return {hwy::AllocateAligned<std::int8_t>(std::max<std::size_t>(kColumns * k, 1)),
          hwy::AllocateAligned<float>(std::max<std::size_t>(blocks * kColumns, 1)),
          hwy::AllocateAligned<float>(std::max<std::size_t>(blocks * kColumns, 1)), true};
}

void pack_panel(const MxRows& b, std::size_t first, std::size_t columns, std::size_t k, std::int8_t* integers,
                PackedPanel& panel) {
  const std::size_t blocks = b.blocks;
  const int shift = mx_integer_shift(b.element);
  panel.exact = true;
  if (columns < kColumns) {
    std::fill(panel.bytes.get(), panel.bytes.get() + kColumns * k, std::int8_t{0});
    std::fill(panel.corrections.get(), panel.corrections.get() + blocks * kColumns, 0.0f);
    std::fill(panel.factors.get(), panel.factors.get() + blocks * kColumns, 1.0f);
  }
  for (std::size_t j = 0; j < columns; ++j) {
    decode_mx_int8(b.elements + (first + j) * b.row_bytes, b.element, k, integers);
    for (std::size_t g = 0; g < k / 4; ++g) std::memcpy(panel.bytes.get() + g * kColumns * 4 + j * 4, integers + 4 * g, 4);
    for (std::size_t t = 0; t < blocks; ++t) {
      std::int32_t sum = 0;
      for (std::size_t p = 0; p < 32; ++p) sum += integers[t * 32 + p];
      float& factor = panel.factors[t * kColumns + j];
      if (!mx_block_factor(b.scales[(first + j) * blocks + t], integers + t * 32, shift, factor)) panel.exact = false;
      panel.corrections[t * kColumns + j] = float(-128 * sum) * factor;  // exact: |128 sum| < 2^19
    }
  }
}

// The kRows x 32 tile of sums into `out` (row stride ldo), over every block. `stream`:
// every row of out starts on a 64-byte boundary, and the rows go to memory by
// non-temporal stores (C is written once; a normal store would first read each line).
SOFTFLOAT_MX_VNNI_TARGET void tile_kernel(std::size_t blocks, const std::uint8_t* __restrict a,
                                          const float* __restrict a_factors, const std::int8_t* __restrict b,
                                          const float* __restrict corrections,
                                          const float* __restrict b_factors, float* __restrict out,
                                          std::size_t ldo, bool stream) {
  __m512 left[kRows], right[kRows];
  for (std::size_t r = 0; r < kRows; ++r) left[r] = right[r] = _mm512_setzero_ps();
  for (std::size_t t = 0; t < blocks; ++t) {
    __m512i dot_left[kRows], dot_right[kRows];
#pragma GCC unroll 6
    for (std::size_t r = 0; r < kRows; ++r) dot_left[r] = dot_right[r] = _mm512_setzero_si512();
#pragma GCC unroll 8
    for (std::size_t g = 0; g < kGroups; ++g) {
      const __m512i b_left = _mm512_load_si512(b);
      const __m512i b_right = _mm512_load_si512(b + 64);
#pragma GCC unroll 6
      for (std::size_t r = 0; r < kRows; ++r) {
        std::int32_t four;
        std::memcpy(&four, a + r * 4, 4);
        const __m512i a_four = _mm512_set1_epi32(four);
        dot_left[r] = _mm512_dpbusd_epi32(dot_left[r], a_four, b_left);
        dot_right[r] = _mm512_dpbusd_epi32(dot_right[r], a_four, b_right);
      }
      a += kRows * 4;
      b += kColumns * 4;
    }
    const __m512 factor_left = _mm512_load_ps(b_factors + t * kColumns);
    const __m512 factor_right = _mm512_load_ps(b_factors + t * kColumns + 16);
    const __m512 correction_left = _mm512_load_ps(corrections + t * kColumns);
    const __m512 correction_right = _mm512_load_ps(corrections + t * kColumns + 16);
#pragma GCC unroll 6
    for (std::size_t r = 0; r < kRows; ++r) {
      // The offset sum and the correction are exact in fp32 (below 2^21 in magnitude),
      // so the first fused multiply-add gives D * factor_b exactly, the second
      // fl(s + D * factor_b * factor_a) (head of the file).
      const __m512 factor_a = _mm512_set1_ps(a_factors[t * kRows + r]);
      const __m512 scaled_left =
          _mm512_fmadd_ps(_mm512_maskz_cvtepi32_ps(kAllLanes, dot_left[r]), factor_left, correction_left);
      const __m512 scaled_right =
          _mm512_fmadd_ps(_mm512_maskz_cvtepi32_ps(kAllLanes, dot_right[r]), factor_right, correction_right);
      left[r] = _mm512_fmadd_ps(scaled_left, factor_a, left[r]);
      right[r] = _mm512_fmadd_ps(scaled_right, factor_a, right[r]);
    }
  }
  if (stream) {
    for (std::size_t r = 0; r < kRows; ++r) {
      _mm512_stream_ps(out + r * ldo, left[r]);
      _mm512_stream_ps(out + r * ldo + 16, right[r]);
    }
    return;
  }
  for (std::size_t r = 0; r < kRows; ++r) {
    _mm512_storeu_ps(out + r * ldo, left[r]);
    _mm512_storeu_ps(out + r * ldo + 16, right[r]);
  }
}

// Orders the non-temporal stores before whatever the thread does next (the end of the
// call, whose caller may read C).
SOFTFLOAT_MX_VNNI_TARGET void finish_streaming() { _mm_sfence(); }

}  // namespace

void mx_matmul_vnni(const MxRows& a, const MxRows& b, float* c, std::size_t m, std::size_t n, std::size_t k) {
  const PackedA packed_a = pack_a(a, m, k);
  const std::size_t blocks = a.blocks, slivers = (m + kRows - 1) / kRows;
  for_column_parts(n, kColumns, double(m) * double(n) * double(k), [&](std::size_t begin, std::size_t end) {
    PackedPanel panel = allocate_panel(k);
    std::vector<std::int8_t> integers(k);
    alignas(64) float tile[kRows * kColumns];
    for (std::size_t first = begin; first < end; first += kColumns) {
      const std::size_t columns = std::min(kColumns, end - first);
      pack_panel(b, first, columns, k, integers.data(), panel);
      for (std::size_t s = 0; s < slivers; ++s) {
        const std::size_t row = s * kRows, rows = std::min(kRows, m - row);
        if (!panel.exact || !packed_a.sliver_exact[s]) {
          mx_matmul_exact_scalar(a, b, c, n, row, row + rows, first, first + columns);
          continue;
        }
        const std::uint8_t* a_sliver = packed_a.bytes.get() + s * kRows * k;
        const float* a_factors = packed_a.factors.data() + s * blocks * kRows;
        if (rows == kRows && columns == kColumns) {
          float* out = c + row * n + first;
          const bool stream = m * n >= kStreamFrom && n % 16 == 0 && reinterpret_cast<std::uintptr_t>(out) % 64 == 0;
          tile_kernel(blocks, a_sliver, a_factors, panel.bytes.get(), panel.corrections.get(), panel.factors.get(),
                      out, n, stream);
          continue;
        }
        tile_kernel(blocks, a_sliver, a_factors, panel.bytes.get(), panel.corrections.get(), panel.factors.get(),
                    tile, kColumns, false);
        for (std::size_t r = 0; r < rows; ++r)
          std::memcpy(c + (row + r) * n + first, tile + r * kColumns, columns * sizeof(float));
      }
    }
    finish_streaming();
  });
}

#else  // no x86-64 GCC / Clang: mx_vnni_supported() is false and this is never called

void mx_matmul_vnni(const MxRows&, const MxRows&, float*, std::size_t, std::size_t, std::size_t) {}

#endif

}  // namespace softfloat::block_formats_detail
