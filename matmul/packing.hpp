// Decoding and packing of the GEMM's operand blocks into the layouts its micro-kernels
// stream through (the packers of loop_nest.hpp): contiguous slivers, each read front to
// back exactly once per use. The codes are decoded here, a row at a time through the
// operand's conversion prepared once per matrix (code_matrix.hpp), so that each block
// is decoded once however many micro-kernel calls then use it.
#pragma once

#include <bit>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "matmul/code_matrix.hpp"
#include "matmul/loop_nest.hpp"

namespace softfloat::matmul_detail {

// How packed words hold depth steps. A word holds `values` consecutive depth steps of
// one element of A or B; word(v, stride) builds it from the values v[0], v[stride], ...
struct Fp32Words {  // one fp32 value per word, for the FMA micro-kernel (gemm-inl.h)
  using Word = float;
  static constexpr std::size_t values = 1;
  static float word(const float* v, std::size_t) { return v[0]; }
};
// Two bf16 values per word, for the vdpbf16ps micro-kernel (gemm_bf16_dot.cpp): depth
// step 2t in the low half, 2t + 1 in the high half, which is how vdpbf16ps pairs its
// operands. Every value must be a bf16 value (bf16_dot.hpp's rule): its fp32 bits end
// in 16 zeros and the top 16 are its bf16 code.
struct Bf16PairWords {
  using Word = std::uint32_t;
  static constexpr std::size_t values = 2;
  static std::uint32_t word(const float* v, std::size_t stride) {
    return (std::bit_cast<std::uint32_t>(v[0]) >> 16) | (std::bit_cast<std::uint32_t>(v[stride]) & 0xFFFF0000u);
  }
};

// The packer of loop_nest.hpp for slivers of such words; with w = the shape's
// packed_depth(depth) words per row (zeros pad the depth to w * values steps):
//   A block: sliver s is w x MR words, the MR rows of word t one after the other,
//   A's word t of row row0 + s*MR + r at packed[s*MR*w + t*MR + r].
//   B block: sliver s is w x NR words, B's word t of column column0 + s*NR + c at
//   packed[s*NR*w + t*NR + c].
// Rows and columns beyond the block (the last sliver's padding) are zero.
template <class Words>
class SliverPacker {
 public:
  using Word = typename Words::Word;
  SliverPacker(const CodeMatrix& a, const CodeMatrix& b, const LoopNestShape& shape, std::size_t n, std::size_t k);
  void pack_a(const NestBlock& block, Word* packed);
  void pack_b(const NestBlock& block, Word* packed);

 private:
  const CodeMatrix& a_;
  const CodeMatrix& b_;
  LoopNestShape shape_;         // its packed_depth() must count words of `values` steps
  std::size_t panel_columns_;   // the widest B block
  std::vector<float> scratch_;  // a decoded row of A, or `values` decoded rows of B
};

using Fp32Packer = SliverPacker<Fp32Words>;
using Bf16PairPacker = SliverPacker<Bf16PairWords>;

}  // namespace softfloat::matmul_detail
