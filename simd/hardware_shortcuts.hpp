// x86 conversion instructions used where they are bit-identical to round_to_format():
// F16C for float <-> fp16 (round to nearest even, standard overflow) and AVX512-BF16
// for float -> bf16, whose blocks with flushed subnormal inputs or NaN lanes take the
// generic algorithm (bf16_from_float_generic). Each
// function may be called only when its *_usable() says so. They are compiled with
// per-function target attributes, so the library itself needs no -m flags. They exist
// on x86-64 with GCC or Clang only (SOFTFLOAT_X86_SHORTCUTS); elsewhere every *_usable()
// is false.
#pragma once

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define SOFTFLOAT_X86_SHORTCUTS 1
#else
#define SOFTFLOAT_X86_SHORTCUTS 0
#endif

#include <cstddef>
#include <cstdint>

namespace softfloat::simd::detail {

bool f16c_usable();
bool avx512bf16_usable();

void fp16_from_float_f16c(const float* in, std::size_t n, std::uint16_t* out);
void float_from_fp16_f16c(const std::uint16_t* in, std::size_t n, float* out);
void bf16_from_float_avx512bf16(const float* in, std::size_t n, std::uint16_t* out);

// float -> bf16 (nearest even, standard overflow) by the dispatched generic algorithm,
// under the default float environment whatever the caller's (defined in
// array_conversions.cpp).
void bf16_from_float_generic(const float* in, std::size_t n, std::uint16_t* out);

}  // namespace softfloat::simd::detail
