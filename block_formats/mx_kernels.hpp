// Per-target kernels of block_formats/mx-inl.h that other files call (through Highway's runtime
// dispatch, in block_formats/mx.cpp): used by the MX quantize loops of block_formats/mx.cpp and the
// two-level NVFP4 scaling in block_formats/nvfp4.cpp.
// Arguments are not checked here.
#pragma once

#include <cstddef>
#include <cstdint>

namespace softfloat::block_formats_detail {

// The largest |x| of in[0, n) as float bits, sign cleared (NaN bits lie above
// infinity's 0x7F800000): one reduction at the end, not one per block.
std::uint32_t mx_max_magnitude_bits(const float* in, std::size_t n);

// maxima[b] = largest |x| of block b of in[0, n) as float bits, sign cleared (NaN bits
// lie above infinity's 0x7F800000); the last block may be shorter.
void mx_block_maxima(const float* in, std::size_t n, std::size_t block_size, std::uint32_t* maxima);

// out[i] = in[i] * factors[i / block_size], one IEEE multiplication each (the caller sets
// the default floating-point environment).
void mx_multiply_blocks(const float* in, std::size_t n, std::size_t block_size, const float* factors, float* out);

// out[0, n) = in[0, n), out written with streaming stores where it is aligned to the
// vector size (normal stores for the unaligned head and the tail), and a store fence at
// the end, so that the values are visible to other threads as after normal stores (MX
// dequantize of a large output).
void stream_floats(const float* in, std::size_t n, float* out);

}  // namespace softfloat::block_formats_detail
