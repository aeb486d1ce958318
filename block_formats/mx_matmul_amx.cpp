// softfloat::mx_matmul's AMX kernel for the int8 kinds (E2M1, E2M3, MXINT8;
// mx_integers.hpp): TDPBSSD on tiles of exactly one MX block along k, so each block's
// dot product D is summed exactly in int32 (|D| <= 32 * 128 * 128 = 2^19) and blocks
// never mix; then, per block, the four 16 x 16 int32 tiles are stored, converted to
// fp32 and scaled into fp32 sums with AVX-512 as the VNNI kernel scales them:
// s = fma(D * factor_b, factor_a, s), which is softfloat/mx_matmul.hpp's fl(s + x_t)
// when both scales lie within kMxScaleReach of 1 (mx_block_factor). A tile of C with
// any block outside that reach is computed by the exact scalar loop instead, so the
// kernel gives the definition's bits.
//
// Why k = 32 tiles: one TDPBSSD sums 64 int8 along k per row, two MX blocks with
// different scales; a 32-byte A tile (16 rows) and an 8-row B tile (16 columns of 4
// int8 a row) make it sum one (amx_tiles.hpp, TileLayout::mx_block). The rescale runs
// once per block and output, inside the loop.
//
// Layout. A is packed once in slivers of 32 rows: for each block, two 512-byte tiles
// (rows 0-15, 16-31; 32 int8 a row). B is packed per panel of 32 columns: for each
// block, two 512-byte tiles (columns 0-15, 16-31; 8 rows of 16 columns x 4 int8, the
// VNNI order TDPBSSD reads). Rows and columns past C's edges are zeros with factor 1.
// The 32 x 32 fp32 sums live in a 4 KiB buffer in the first-level cache.
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <vector>

#include "block_formats/mx_integers.hpp"
#include "hwy/aligned_allocator.h"
#include "matmul/amx_tiles.hpp"
#include "matmul/column_parts.hpp"

namespace softfloat::block_formats_detail {

// matmul/'s AMX tile set-up and column split, shared with the fp32 tile GEMM.
using matmul_detail::amx_int8_usable;
using matmul_detail::for_column_parts;
using matmul_detail::TileLayout;
using matmul_detail::TileSession;

bool mx_amx_int8_supported() { return amx_int8_usable(); }

#if SOFTFLOAT_HAVE_AMX
namespace {

constexpr std::size_t kSide = 32;                // rows of A per sliver, columns of B per panel
constexpr std::size_t kBlockBytes = kSide * 32;  // one block of a sliver or a panel: two tiles
constexpr std::size_t kHalf = kBlockBytes / 2;   // one tile
// The conversions are masked with every lane on (the same instruction): GCC 12 warns
// that the unmasked intrinsic's undefined pass-through register may be uninitialized.
constexpr __mmask16 kAllLanes = 0xFFFF;

// A, decoded once for every thread.
struct PackedA {
  hwy::AlignedFreeUniquePtr<std::int8_t[]> bytes;  // sliver s, block t: two tiles
  std::vector<float> factors;                      // sliver s, block t, row r
  std::vector<bool> sliver_exact;                  // the kernel applies to every block of the sliver
};

PackedA pack_a(const MxRows& a, std::size_t m, std::size_t k) {
  const std::size_t slivers = (m + kSide - 1) / kSide, blocks = a.blocks;
  PackedA packed{hwy::AllocateAligned<std::int8_t>(std::max<std::size_t>(slivers * blocks * kBlockBytes, 1)),
                 std::vector<float>(slivers * blocks * kSide, 1.0f), std::vector<bool>(slivers, true)};
  std::fill(packed.bytes.get(), packed.bytes.get() + slivers * blocks * kBlockBytes, std::int8_t{0});
  std::vector<std::int8_t> integers(k);
  const int shift = mx_integer_shift(a.element);
  for (std::size_t i = 0; i < m; ++i) {
    const std::size_t s = i / kSide, r = i % kSide;
    decode_mx_int8(a.elements + i * a.row_bytes, a.element, k, integers.data());
    for (std::size_t t = 0; t < blocks; ++t) {
      std::memcpy(packed.bytes.get() + (s * blocks + t) * kBlockBytes + r * 32, integers.data() + t * 32, 32);
      float& factor = packed.factors[(s * blocks + t) * kSide + r];
      if (!mx_block_factor(a.scales[i * blocks + t], integers.data() + t * 32, shift, factor))
        packed.sliver_exact[s] = false;
    }
  }
  return packed;
}

// One panel of B: up to 32 columns starting at `first`, zeros beyond them.
struct PackedPanel {
  hwy::AlignedFreeUniquePtr<std::int8_t[]> bytes;  // block t: two tiles
  hwy::AlignedFreeUniquePtr<float[]> factors;      // block t, column j
  bool exact = true;
};

PackedPanel allocate_panel(std::size_t k) {
  const std::size_t blocks = k / 32;
  return {hwy::AllocateAligned<std::int8_t>(std::max<std::size_t>(blocks * kBlockBytes, 1)),
          hwy::AllocateAligned<float>(std::max<std::size_t>(blocks * kSide, 1)), true};
}

void pack_panel(const MxRows& b, std::size_t first, std::size_t columns, std::size_t k, std::int8_t* integers,
                PackedPanel& panel) {
  const std::size_t blocks = b.blocks;
  const int shift = mx_integer_shift(b.element);
  panel.exact = true;
  if (columns < kSide) {
    std::fill(panel.bytes.get(), panel.bytes.get() + blocks * kBlockBytes, std::int8_t{0});
    std::fill(panel.factors.get(), panel.factors.get() + blocks * kSide, 1.0f);
  }
  for (std::size_t j = 0; j < columns; ++j) {
    decode_mx_int8(b.elements + (first + j) * b.row_bytes, b.element, k, integers);
    const std::size_t half = j / 16, column = j % 16;
    for (std::size_t t = 0; t < blocks; ++t) {
      std::int8_t* tile = panel.bytes.get() + t * kBlockBytes + half * kHalf;
      for (std::size_t q = 0; q < 8; ++q) std::memcpy(tile + q * 64 + column * 4, integers + t * 32 + q * 4, 4);
      if (!mx_block_factor(b.scales[(first + j) * blocks + t], integers + t * 32, shift,
                           panel.factors[t * kSide + j]))
        panel.exact = false;
    }
  }
}

// Block t's int32 sums (32 x 32 at `dots`) scaled and added into the fp32 sums: D
// converts exactly and D * factor_b is exact; the fused multiply-add rounds once (head
// of the file).
__attribute__((target("avx512f"))) inline void add_block(const std::int32_t* __restrict dots,
                                                           const float* __restrict a_factors,
                                                           const float* __restrict b_factors, float* __restrict sums) {
  const __m512 factor_left = _mm512_load_ps(b_factors);
  const __m512 factor_right = _mm512_load_ps(b_factors + 16);
#pragma GCC unroll 4
  for (std::size_t r = 0; r < kSide; ++r) {
    const __m512 factor_a = _mm512_set1_ps(a_factors[r]);
    float* row = sums + r * kSide;
    const __m512 left = _mm512_mul_ps(_mm512_maskz_cvtepi32_ps(kAllLanes, _mm512_load_si512(dots + r * kSide)), factor_left);
    const __m512 right =
        _mm512_mul_ps(_mm512_maskz_cvtepi32_ps(kAllLanes, _mm512_load_si512(dots + r * kSide + 16)), factor_right);
    _mm512_store_ps(row, _mm512_fmadd_ps(left, factor_a, _mm512_load_ps(row)));
    _mm512_store_ps(row + 16, _mm512_fmadd_ps(right, factor_a, _mm512_load_ps(row + 16)));
  }
}

// The 32 x 32 tile of C into `out` (row stride ldo; rows x columns of it written). The
// tiles' sums of block t go to one of two buffers while block t - 1's, stored the step
// before, are scaled: the vector loads then find the tile stores done.
__attribute__((target("amx-tile,amx-int8,avx512f"))) void tile_kernel(
    std::size_t blocks, const std::int8_t* __restrict a, const float* __restrict a_factors,
    const std::int8_t* __restrict b, const float* __restrict b_factors, float* __restrict out, std::size_t ldo,
    std::size_t rows, std::size_t columns) {
  alignas(64) std::int32_t dots[2][kSide * kSide];
  alignas(64) float sums[kSide * kSide];
  for (std::size_t p = 0; p < kSide * kSide; p += 16) _mm512_store_ps(sums + p, _mm512_setzero_ps());
  for (std::size_t t = 0; t < blocks; ++t) {
    std::int32_t* const stored = dots[t & 1];
    _tile_zero(0);
    _tile_zero(1);
    _tile_zero(2);
    _tile_zero(3);
    _tile_loadd(4, a, 32);
    _tile_loadd(5, a + kHalf, 32);
    _tile_loadd(6, b, 64);
    _tile_loadd(7, b + kHalf, 64);
    _tile_dpbssd(0, 4, 6);
    _tile_dpbssd(1, 4, 7);
    _tile_dpbssd(2, 5, 6);
    _tile_dpbssd(3, 5, 7);
    _tile_stored(0, stored, kSide * 4);
    _tile_stored(1, stored + 16, kSide * 4);
    _tile_stored(2, stored + 16 * kSide, kSide * 4);
    _tile_stored(3, stored + 16 * kSide + 16, kSide * 4);
    a += kBlockBytes;
    b += kBlockBytes;
    if (t > 0) add_block(dots[(t - 1) & 1], a_factors + (t - 1) * kSide, b_factors + (t - 1) * kSide, sums);
  }
  if (blocks > 0) add_block(dots[(blocks - 1) & 1], a_factors + (blocks - 1) * kSide, b_factors + (blocks - 1) * kSide, sums);
  for (std::size_t r = 0; r < rows; ++r) std::memcpy(out + r * ldo, sums + r * kSide, columns * sizeof(float));
}

}  // namespace

void mx_matmul_amx_int8(const MxRows& a, const MxRows& b, float* c, std::size_t m, std::size_t n, std::size_t k) {
  const PackedA packed_a = pack_a(a, m, k);
  const std::size_t blocks = a.blocks, slivers = (m + kSide - 1) / kSide;
  for_column_parts(n, kSide, double(m) * double(n) * double(k), [&](std::size_t begin, std::size_t end) {
    const TileSession session(TileLayout::mx_block);
    PackedPanel panel = allocate_panel(k);
    std::vector<std::int8_t> integers(k);
    for (std::size_t first = begin; first < end; first += kSide) {
      const std::size_t columns = std::min(kSide, end - first);
      pack_panel(b, first, columns, k, integers.data(), panel);
      for (std::size_t s = 0; s < slivers; ++s) {
        const std::size_t row = s * kSide, rows = std::min(kSide, m - row);
        if (!panel.exact || !packed_a.sliver_exact[s]) {
          mx_matmul_exact_scalar(a, b, c, n, row, row + rows, first, first + columns);
          continue;
        }
        tile_kernel(blocks, packed_a.bytes.get() + s * blocks * kBlockBytes,
                    packed_a.factors.data() + s * blocks * kSide, panel.bytes.get(), panel.factors.get(),
                    c + row * n + first, n, rows, columns);
      }
    }
  });
}

#else  // no AMX build: mx_amx_int8_supported() is false and this is never called

void mx_matmul_amx_int8(const MxRows&, const MxRows&, float*, std::size_t, std::size_t, std::size_t) {}

#endif

}  // namespace softfloat::block_formats_detail
