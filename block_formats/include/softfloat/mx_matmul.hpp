// Matrix multiply of MX-quantized operands (softfloat/mx.hpp) with exact block products:
// C = A * B, A m x k and B k x n, both stored as softfloat::mx::quantize stores them, in
// blocks of 32 values along k. A is given row by row (m rows of k values); B is given as
// its transpose (n rows of k values, row j holding column j of B), because mx::quantize
// blocks contiguous values and the blocks must run along k for both.
//
//   std::vector<float> a(m * k), bt(n * k);             // A, and B transposed
//   std::vector<std::uint8_t> ae(mx::element_bytes(E, m * k)), as(m * k / 32);
//   std::vector<std::uint8_t> be(mx::element_bytes(E, n * k)), bs(n * k / 32);
//   mx::quantize(a.data(), m * k, ae.data(), ae.size(), as.data(), as.size(), E);
//   mx::quantize(bt.data(), n * k, be.data(), be.size(), bs.data(), bs.size(), E);
//   std::vector<float> c(m * n);
//   softfloat::mx_matmul({ae.data(), ae.size(), as.data(), as.size(), E},
//                        {be.data(), be.size(), bs.data(), bs.size(), E}, c.data(), m, n, k);
//
// (With k a multiple of 32, quantizing the whole m x k matrix as one array gives each
// row its own k / 32 blocks: row i's elements start at i * element_bytes(E, k) and its
// scales at i * k / 32. k must be a multiple of 32; pad A's and B's rows with zeros.)
//
// Element kinds. Each kind's values times a fixed power of two are small integers:
//   MXFP4 E2M1   value * 2   in [-12, 12]
//   MXFP6 E2M3   value * 8   in [-60, 60]
//   MXFP6 E3M2   value * 16  in [-448, 448]
//   MXINT8       value * 64  in [-128, 127] (the code itself, two's complement)
// so the dot product of two blocks, D = sum of 32 products of such integers, is an exact
// int32 (|D| <= 32 * 448 * 448 < 2^23). A and B may be of different kinds among these.
// The MXFP8 kinds (E4M3, E5M2) are refused with std::invalid_argument: their integer
// products need 36 (E4M3) and 64 (E5M2) bits, and they have NaN elements; dequantize
// them (mx::dequantize) and call softfloat::matmul instead.
//
// What is computed, for each element C[i][j]. Let blocks t = 0 .. k/32 - 1, D_t the
// exact integer dot product of block t of A's row i and B's row j (each value times its
// kind's power of two above), and sa_t, sb_t the two E8M0 scale codes. Block t's value
// is the exact real number
//   v_t = D_t * 2^(sa_t - 127) * 2^(sb_t - 127) / (2^shift_a * 2^shift_b)
// (shift 1 for E2M1, 3 for E2M3, 4 for E3M2, 6 for MXINT8), converted to fp32 once,
// rounding to nearest even: x_t = fl(v_t). Then
//   s = +0;  s = fl(s + x_t) for t = 0, 1, ..., k/32 - 1 (blocks in k order);  C[i][j] = s
// one fp32 addition, rounded to nearest even, per block.
//   - x_t = v_t exactly whenever |v_t| lies in fp32's normal range [2^-126, 2^128) or is
//     0: D_t has at most 23 significant bits, and multiplying by powers of two is exact
//     until the range ends. v_t leaves the range only for extreme scales: with both
//     scales within 2^+-54 of 1 it never does. Beyond 2^128 it becomes +-infinity;
//     below 2^-126 it is rounded to a multiple of 2^-149 (fp32's subnormals).
//   - A NaN scale (0xFF) in either block makes x_t NaN, so C[i][j] is NaN (the
//     specification reads every element of a NaN-scale block as NaN). Infinite x_t or
//     an overflowing sum follow IEEE addition (inf - inf is NaN).
//   - Error: C[i][j] is the exact sum of the v_t up to the k/32 - 1 additions' roundings
//     (plus each x_t's when v_t leaves fp32's normal range): with u = 2^-24 and
//     b = k/32 blocks, |C[i][j] - sum v_t| <= (b - 1) u / (1 - (b - 1) u) * sum |v_t|.
//     Within a block nothing is rounded.
// The result does not depend on the kernel, the CPU or the thread count: every kernel
// computes this definition bit for bit (a NaN's payload aside). Results never depend on
// the caller's rounding mode or flush-to-zero settings.
//
// Kernels (mx_matmul_path names the one a call takes: avx512_vnni where it applies,
// else amx_int8 where it applies, else exact_scalar):
//   amx_int8: where the CPU has AMX-INT8 tiles the process may use (Linux grants the
//     tile state on first use) and both kinds are E2M1, E2M3 or MXINT8: the elements
//     are decoded to int8 once, each block's 32 products summed exactly in int32 by
//     TDPBSSD on tiles one block deep (16 rows x 32 int8 of A, 16 columns of B), so
//     blocks never mix, then each block's sums stored, converted to fp32, multiplied by
//     B's scale and A's scale and added to s in one fused multiply-add, as in
//     avx512_vnni below (same scale range; tiles with blocks outside it take the exact
//     loop). Named explicitly: a TDPBSSD one block deep does half its 64-deep work, and
//     storing and rescaling the sums after every block costs as much again, so on the
//     CPUs measured (docs/design/block-formats.md) it runs about as fast as avx512_vnni, which is preferred.
//   avx512_vnni: where the CPU has AVX512-VNNI (vpdpbusd) and both kinds are E2M1, E2M3
//     or MXINT8: the elements are decoded to int8 once, each block's 32 products summed
//     by 8 vpdpbusd per 16 outputs (A's int8 offset by 128 to be unsigned), then the
//     block's int32 converted to fp32 and scaled by B's scale, the offset's 128 * sum of
//     B's block taken off, in one fused multiply-add that is exact, and multiplied by
//     A's scale and added to s in a second, which equals fl(s + v_t) because its
//     product is exact when the scales are within 2^+-54 of 1; tiles with blocks
//     outside that range take the exact scalar loop below.
//   exact_scalar: everywhere else (other CPUs and other builds, E3M2): the definition
//     above in plain C++, integers summed in int32 and scaled in fp64 before the one
//     conversion to fp32.
// The columns of C are split among softfloat::num_threads() threads (each element is
// computed by one thread as above) when the product is large enough to gain from it.
//
// Bad arguments throw std::invalid_argument with a message: null pointers for operands
// with elements, buffers shorter than the rows need (m * element_bytes(kind, k) element
// bytes and m * k / 32 scales for A; the same with n for B), k not a multiple of 32, an
// MXFP8 or unknown kind, sizes whose product overflows. Sizes of zero are allowed (k = 0
// gives C = 0). C is dense (row i at c + i * n) and must not overlap A or B (refused).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

#include "softfloat/mx.hpp"

namespace softfloat {

// One operand: `rows` rows of k values, each row MX-quantized along k in blocks of 32
// (element and scale buffers as mx::quantize writes them; the sizes are the buffers').
struct MxOperand {
  const std::uint8_t* elements = nullptr;
  std::size_t element_bytes = 0;
  const std::uint8_t* scales = nullptr;
  std::size_t scale_count = 0;
  mx::Element element = mx::Element::fp4_e2m1;
};

// The MX block size mx_matmul multiplies (the specification's).
inline constexpr std::size_t kMxMatmulBlock = 32;

enum class MxMatmulKernel {
  none,          // m or n is 0: nothing is computed
  exact_scalar,  // the definition in plain C++
  avx512_vnni,   // int8 blocks by vpdpbusd (AVX512-VNNI)
  amx_int8,      // int8 blocks by TDPBSSD on AMX tiles one block deep
};
// "none", "exact scalar", "avx512-vnni vpdpbusd", "amx int8 tiles".
std::string_view mx_matmul_kernel_name(MxMatmulKernel kernel);

// Whether this CPU and build can run `kernel` (none and exact_scalar: always).
bool mx_matmul_kernel_supported(MxMatmulKernel kernel);

// The kernel mx_matmul takes for these kinds and shape on this CPU. Throws
// std::invalid_argument for a kind mx_matmul refuses.
MxMatmulKernel mx_matmul_path(mx::Element a, mx::Element b, std::size_t m, std::size_t n, std::size_t k);

// C (m x n, dense, row-major) = A * B as defined above; `b_transposed` holds B's n
// columns as rows of k values.
void mx_matmul(const MxOperand& a, const MxOperand& b_transposed, float* c, std::size_t m, std::size_t n,
               std::size_t k);

// The same with the kernel named: exact_scalar on any CPU, avx512_vnni or amx_int8
// where mx_matmul_kernel_supported() says so and both kinds are int8 kinds (else
// std::invalid_argument). Every kernel gives the same bits; this is for tests and
// benchmarks that compare them.
void mx_matmul(const MxOperand& a, const MxOperand& b_transposed, float* c, std::size_t m, std::size_t n,
               std::size_t k, MxMatmulKernel kernel);

}  // namespace softfloat
