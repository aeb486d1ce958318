// Two-level block scaling as in NVIDIA's NVFP4: E2M1 elements (packed two a byte,
// element 0 in the low nibble), one E4M3 scale per block of 16 values, and one fp32
// value per tensor, its largest finite magnitude (amax), from which the tensor-wide
// scale follows. The steps are those of NVIDIA TransformerEngine's reference recipe
// (cast/nvfp4/core_nvfp4.cuh and dequantize_nvfp4.cuh), each an fp32 operation rounded
// to nearest even, so that results can be compared with it bit for bit:
//
//   S_enc   = min(2688 / amax, FLT_MAX), or 1 when amax is 0       2688 = 448 * 6
//   S_dec   = 1 / S_enc
//   block:  scale   = E4M3(block_amax * (S_enc * float(1/6)))     nearest even, saturating at 448
//           factor  = min(1 / (float(scale) * S_dec), FLT_MAX)     (scale 0: FLT_MAX)
//           element = E2M1(x * factor)                             nearest even, saturating at 6
//   decode: x'      = e * ((float(scale) * amax) * float(1/2688))
//
// where every product and quotient is rounded to fp32, as the CUDA code does. Special
// values (left open by that recipe) follow softfloat::mx: a block holding a NaN or an
// infinity gets the E4M3 NaN scale 0x7F and zero elements, decodes to the quiet NaN
// 0x7FC00000, and does not count towards amax (amax is the largest magnitude of the
// blocks without one). A decoded value whose product is NaN (0 times an infinite block
// factor, beyond fp32's range) is 0x7FC00000 as well; E4M3 NaN scale codes (0x7F, 0xFF)
// decode to it.
//
// quantize/dequantize are vectorised (Highway, runtime dispatch; one thread);
// scalar_quantize/scalar_dequantize go through round_to_format() and the library's
// correctly rounded fp32 arithmetic value by value and give the same bits. Bad arguments
// (null pointers with n > 0, buffers too short, buffers that overlap) throw
// std::invalid_argument naming the function.
#pragma once

#include <cstddef>
#include <cstdint>

#include "softfloat/random_bits.hpp"
#include "softfloat/rounding.hpp"

namespace softfloat::nvfp4 {

inline constexpr std::size_t kBlockSize = 16;

// Bytes of the element array for n values, ceil(n / 2), and scales, ceil(n / 16).
std::size_t element_bytes(std::size_t n);
std::size_t scale_count(std::size_t n);

// Writes the elements, the block scales and the tensor's amax. `rounding` is the
// elements' (E2M1 of x * factor; the scales stay nearest even, as the recipe has
// them): any direction, stochastic ones with element i drawing random_bits(seed,
// offset + i), as the array conversions do.
void quantize(const float* in, std::size_t n, std::uint8_t* elements, std::size_t element_bytes,
              std::uint8_t* scales, std::size_t scale_count, float* tensor_amax,
              Rounding rounding = Rounding::nearest_even, RandomStream random = {});
void dequantize(const std::uint8_t* elements, std::size_t element_bytes, const std::uint8_t* scales,
                std::size_t scale_count, float tensor_amax, std::size_t n, float* out);

void scalar_quantize(const float* in, std::size_t n, std::uint8_t* elements, std::size_t element_bytes,
                     std::uint8_t* scales, std::size_t scale_count, float* tensor_amax,
                     Rounding rounding = Rounding::nearest_even, RandomStream random = {});
void scalar_dequantize(const std::uint8_t* elements, std::size_t element_bytes, const std::uint8_t* scales,
                       std::size_t scale_count, float tensor_amax, std::size_t n, float* out);

}  // namespace softfloat::nvfp4
