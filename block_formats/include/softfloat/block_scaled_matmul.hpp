// Matrix multiply with block-scaled weights and fp32 activations: C = A * W, A m x k
// (fp32, row-major), W k x n held as narrow element codes with one scale per block of
// rows along k and per column, C m x n. This is the decode step of LLM inference (m = 1)
// with weights stored as MXFP4, NVFP4, plain E2M1, MXFP6 or MXFP8: the weights stream
// from memory at their own width and are decoded inside the loop that consumes them.
//
//   std::vector<float> w(k * n), x(k), y(n);                     // W row-major, k x n
//   const auto q = softfloat::quantize_weights(w.data(), k, n, softfloat::mx::Element::fp4_e2m1,
//                                             softfloat::WeightScaling::nvfp4);
//   softfloat::matmul(x.data(), q.view(), y.data(), 1);          // y = x * W
//
// Layout of BlockScaledWeights (one byte stream per row, so that every row starts on a
// byte boundary whatever n is):
//   elements  k rows of n element codes; row p starts at byte p * row_bytes(), with
//             row_bytes() = mx::element_bytes(element, n), packed as mx's element arrays
//             (E2M1 two a byte, column 2i in the low nibble; E3M2 / E2M3 four in three
//             bytes, a little-endian bit stream; E4M3 / E5M2 one a byte).
//   scales    ceil(k / block_rows()) rows of n codes: scale row t, column j scales the
//             weights W[p][j] for p in [t * block_rows(), (t + 1) * block_rows()).
//             WeightScaling::mx: E8M0 codes, 32 rows per block (2^(code - 127); 0xFF NaN);
//             WeightScaling::nvfp4: E4M3 codes, 16 rows per block, with tensor_amax, the
//             tensor's largest magnitude (NVIDIA's recipe, softfloat/nvfp4.hpp);
//             WeightScaling::none: no scales (plain element codes).
//   This is the transpose of the layout torch's nn.Linear keeps (out x in, blocks along
//   in), which quantize_weights takes care of: blocks run along k in both.
//
// What is computed, for every C[i][j] (the in-order chain of softfloat/matmul.hpp):
//   w[p][j] = element value * scale                       exact in fp32 (see below)
//   s = +0;  s = fl(A[i][p] * w[p][j] + s) for p = 0, 1, ..., k - 1   (one fused
//             multiply-add per step, rounded to nearest even: every product is exact)
//   C[i][j] = s                                            (none, mx)
//   C[i][j] = fl(s * g),  g = fl(tensor_amax * fl(1 / 2688))         (nvfp4)
// The element times its block scale is exact: an element has at most 4 significant bits
// and an E8M0 scale is a power of two (an E4M3 scale has 4 bits, E2M1 2: 6 in all), so
// the product only leaves fp32 where the scale is extreme (beyond 2^127 it is infinite;
// E2M1 times 2^-127 is still an fp32 subnormal, exactly). With MX scales this w[p][j] is
// exactly mx::dequantize's value, so C is the in-order matmul of the dequantized
// weights, bit for bit. NVFP4 applies its tensor scale once, to the sum, as block-scaled
// GEMM hardware does (cuBLAS's alpha), rather than in each weight as
// nvfp4::dequantize's fl(e * fl(fl(scale * amax) / 2688)) does; the two differ by those
// roundings. A NaN scale (E8M0 0xFF, E4M3 0x7F / 0xFF) makes its block's weights NaN,
// so every C[i][j] whose chain meets one is NaN; NaN and infinite activations follow
// IEEE arithmetic. The result does not depend on the CPU, the Highway target (among
// those with FMA: AVX2, AVX-512, NEON) or the caller's rounding mode. Targets without
// FMA (SSSE3, SSE4, the scalar fallback) round each product to fp32 before the sum, as
// softfloat/matmul.hpp describes: the same bits whenever fp32 holds every product
// A[i][p] * w[p][j] exactly, which activations of at most 18 significant bits ensure
// (bf16 or fp16 values, for example).
//
// Error bound, with u = 2^-24 and gamma_k = k u / (1 - k u): for none and mx,
//   |C[i][j] - sum_p A[i][p] w[p][j]| <= gamma_k * sum_p |A[i][p] w[p][j]|
// (one rounding per step, Higham's bound for recursive summation of exact products);
// for nvfp4, against the exact sum_p A[i][p] w[p][j] * tensor_amax / 2688, gamma_(k+3)
// in place of gamma_k (the chain, g's two roundings and the last product), as long as
// nothing overflows or underflows.
//
// Kernels: E2M1 elements (plain, MXFP4, NVFP4) are decoded in registers by a table
// lookup within one vector (vpermps: a 16-entry table on AVX-512, indexed by each 32-bit
// lane's nibbles in turn, eight columns a lane; vpshufb on AVX2: the two top bytes of
// each value's fp32 bits, 32 nibbles a lookup, then byte unpacks; a gather on narrower
// targets), multiplied by the
// block's scales (decoded once per block of rows by integer operations, no table), and
// accumulated by FMA in eight independent chains, reading each byte of W once. Where an
// MX scale s = 2^e allows (block_formats/unscaled_chain.hpp: e within bounds that the
// activations' smallest exponent and sum set, and checks on each running sum), the
// block's steps take the bare elements on y / s and multiply by s at the end: the same
// bits, one multiply a weight fewer. One-byte
// elements (MXFP8 E4M3 / E5M2, MX-scaled or plain) are decoded in registers by matmul's
// half rule (fp16 fields, then F16C) and multiplied by their column's scale, where the
// target converts fp16 and no weight times its scale leaves fp32's range, else a block
// of rows is decoded into fp32 in cache and accumulated by the same FMA chain. 6-bit
// elements (MXFP6 E2M3 / E3M2) are unpacked in registers, four codes from three bytes by
// a byte shuffle and a shift per lane, and decoded by vpermt2ps on the 32 magnitudes
// (AVX-512) or by their fields (block_formats/six_bit_matvec-inl.h). Every
// MatmulSummation gives the in-order chain here;
// `summation` is accepted so that calls read like the other matmul forms.
//
// Bad arguments (null pointers with a nonzero size, spans shorter than the layout needs,
// MXINT8 elements, NVFP4 scaling of elements other than E2M1, a non-finite or negative
// tensor_amax) throw std::invalid_argument naming the function.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "softfloat/matmul_summation.hpp"
#include "softfloat/mx.hpp"
#include "softfloat/rounding.hpp"

namespace softfloat {

enum class WeightScaling : std::uint8_t {
  none,   // plain element codes
  mx,     // E8M0 per 32 rows along k and column (OCP MX v1.0)
  nvfp4,  // E4M3 per 16 rows along k and column, and the tensor's amax (E2M1 elements only)
};

// A view of block-scaled weights in the layout above; nothing is owned.
struct BlockScaledWeights {
  mx::Element element = mx::Element::fp4_e2m1;
  WeightScaling scaling = WeightScaling::none;
  std::size_t k = 0, n = 0;
  std::span<const std::uint8_t> elements;
  std::span<const std::uint8_t> scales;
  float tensor_amax = 0.0f;  // nvfp4 only

  // Bytes per row of element codes: mx::element_bytes(element, n).
  std::size_t row_bytes() const { return mx::element_bytes(element, n); }
  // Rows of W per scale: 32 (mx), 16 (nvfp4), k (none).
  std::size_t block_rows() const;
  // Scale codes the layout needs: ceil(k / block_rows()) * n, 0 for none.
  std::size_t scale_count() const;
};

// Owning storage of quantize_weights' result.
struct BlockScaledMatrix {
  mx::Element element = mx::Element::fp4_e2m1;
  WeightScaling scaling = WeightScaling::none;
  std::size_t k = 0, n = 0;
  std::vector<std::uint8_t> elements, scales;
  float tensor_amax = 0.0f;

  BlockScaledWeights view() const { return {element, scaling, k, n, elements, scales, tensor_amax}; }
};

// W (k x n fp32, row-major, row stride n) quantized into the layout above, blocks along
// k: column j's k values are quantized as one array by mx::quantize (blocks of 32, the
// given scale rule and rounding; the last block may be shorter) or, for nvfp4, the n
// columns as one array of n * k values by nvfp4::quantize (blocks of 16, one amax for
// the tensor; k must be a multiple of 16). The element codes are bit for bit those
// functions' codes for W's transpose, laid out again along rows. none rounds each value
// to the element format (nearest even, saturating at its largest finite value, as MX
// elements are).
BlockScaledMatrix quantize_weights(const float* w, std::size_t k, std::size_t n, mx::Element element,
                                   WeightScaling scaling, mx::ScaleRule rule = mx::ScaleRule::floor);

// C = A * W as defined above: A m x k fp32 (row stride k), C m x n (row stride n).
void matmul(const float* A, const BlockScaledWeights& W, float* C, std::size_t m,
            MatmulSummation summation = matmul_summation());

}  // namespace softfloat
