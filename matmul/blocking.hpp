// Cache blocking of the fp32-accumulating GEMMs: the block sizes of their loop nest
// (loop_nest.hpp), panels of kPanelColumns columns ("nc"), depth blocks of kDepth
// ("kc"; kPairDepth for the pairs kernel) and blocks of kBlockRows rows ("mc").
// The sizes aim the packed pieces at the cache levels of a current x86 core (32-48 KiB
// L1, 1-2 MiB L2): one B sliver, kDepth x NR floats (64 KiB for NR = 32, 32 KiB for
// AVX2's 16), stays in L1 or L2 while the micro-kernel sweeps the A block; the packed A
// block, kBlockRows x kDepth floats (288 KiB), stays in L2; the packed B panel (up to
// 8 MiB) lives in L3. Nothing but speed depends on them, since the running sums travel
// through C between depth blocks and the summation order stays k order.
// kDepth 512 rather than 256: C travels to memory and back half as often. On the
// model-207 Xeon (one thread, E4M3 x E4M3 in order, bench_matmul) 2048^3 went from
// 129-131 to 116-119 ms (OpenBLAS sgemm 104-110), 1024^3 from 15.1 to 13.5-15.3 ms
// (sgemm 13.7-14.3); under SOFTFLOAT_MAX_ISA=avx2, 2048^3 from 262-268 to 235-263 ms
// (sgemm 205-208). 768 and 1024 measured no better than 512.
#pragma once

#include <cstddef>

namespace softfloat::matmul_detail {

inline constexpr std::size_t kDepth = 512;
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
