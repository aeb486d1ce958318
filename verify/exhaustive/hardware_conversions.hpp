// The x86 conversion instructions as candidates for the sweeps: F16C's vcvtps2ph
// (float -> fp16) and vcvtph2ps (fp16 -> float), and AVX512-BF16's vcvtneps2bf16
// (float -> bf16). Each function may only be called when its *_available() says so;
// the sweeps print which of them ran on the machine.
#pragma once

#include <cstddef>
#include <cstdint>

namespace softfloat::verify {

bool f16c_available();
bool avx512bf16_available();

// vcvtps2ph with round-to-nearest-even from the immediate (not MXCSR).
void fp16_from_float_f16c(const float* in, std::size_t n, std::uint16_t* out);
// vcvtph2ps.
void float_from_fp16_f16c(const std::uint16_t* in, std::size_t n, float* out);
// vcvtneps2bf16: round to nearest even, but subnormal inputs become zero and NaN
// payloads are not promised, so callers exclude those inputs from comparison.
void bf16_from_float_avx512bf16(const float* in, std::size_t n, std::uint16_t* out);

}  // namespace softfloat::verify
