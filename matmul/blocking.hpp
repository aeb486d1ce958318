// Cache blocking of the fp32-accumulating GEMMs: the block sizes of their loop nest
// (loop_nest.hpp), panels of kPanelColumns columns ("nc"), depth blocks of kDepth
// ("kc"; kPairDepth for the pairs kernel) and blocks of kBlockRows rows ("mc").
// The sizes aim the packed pieces at the cache levels of a current x86 core (32-48 KiB
// L1, 1-2 MiB L2): one B sliver, kDepth x NR floats (32 KiB for NR = 32), stays in L1
// while the micro-kernel sweeps the A block; the packed A block, kBlockRows x kDepth
// floats (144 KiB), stays in L2; the packed B panel (up to 4 MiB) lives in L3. They
// are first values, to be tuned: nothing but speed depends on them, since the running
// sums travel through C between depth blocks and the summation order stays k order.
#pragma once

#include <cstddef>

namespace softfloat::matmul_detail {

inline constexpr std::size_t kDepth = 256;
// The pairs-of-products GEMM's depth block (gemm_bf16_dot.cpp): 192 pairs, so that a B
// sliver of bf16 pairs (192 x 32 words, 24 KiB) stays in a 32 KiB L1.
inline constexpr std::size_t kPairDepth = 384;
// Its register tile.
inline constexpr std::size_t kPairTileRows = 12;
inline constexpr std::size_t kPairTileColumns = 32;
// A multiple of every target's MR (6 and 12).
inline constexpr std::size_t kBlockRows = 144;
// A multiple of every target's NR (2, 8, 16, 32).
inline constexpr std::size_t kPanelColumns = 4096;

}  // namespace softfloat::matmul_detail
