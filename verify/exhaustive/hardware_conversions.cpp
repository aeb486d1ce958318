// The x86 conversion instructions (see hardware_conversions.hpp). Each function
// carries its own target attribute, so the file builds without -march flags and the
// instructions run only after the CPU check. Elsewhere than x86-64 (aarch64) none is
// available and the sweeps say so.
#include "verify/exhaustive/hardware_conversions.hpp"

#include "simd/hardware_shortcuts.hpp"  // SOFTFLOAT_X86_SHORTCUTS: x86-64 with GCC or Clang

#if SOFTFLOAT_X86_SHORTCUTS
#include <immintrin.h>

#include <cstring>

namespace softfloat::verify {

bool f16c_available() { return __builtin_cpu_supports("f16c"); }
bool avx512bf16_available() {
  return __builtin_cpu_supports("avx512bf16") && __builtin_cpu_supports("avx512vl") &&
         __builtin_cpu_supports("avx512f");
}

__attribute__((target("avx,f16c"))) void fp16_from_float_f16c(const float* in, std::size_t n, std::uint16_t* out) {
  constexpr int nearest_even = _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC;
  std::size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    const __m128i halves = _mm256_cvtps_ph(_mm256_loadu_ps(in + i), nearest_even);
    _mm_storeu_si128(reinterpret_cast<__m128i*>(out + i), halves);
  }
  if (i < n) {  // the tail through a padded buffer, so nothing beyond out[n) is written
    float tail_in[8] = {};
    std::uint16_t tail_out[8];
    std::memcpy(tail_in, in + i, (n - i) * sizeof(float));
    _mm_storeu_si128(reinterpret_cast<__m128i*>(tail_out), _mm256_cvtps_ph(_mm256_loadu_ps(tail_in), nearest_even));
    std::memcpy(out + i, tail_out, (n - i) * sizeof(std::uint16_t));
  }
}

__attribute__((target("avx,f16c"))) void float_from_fp16_f16c(const std::uint16_t* in, std::size_t n, float* out) {
  std::size_t i = 0;
  for (; i + 8 <= n; i += 8)
    _mm256_storeu_ps(out + i, _mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i*>(in + i))));
  if (i < n) {
    std::uint16_t tail_in[8] = {};
    float tail_out[8];
    std::memcpy(tail_in, in + i, (n - i) * sizeof(std::uint16_t));
    _mm256_storeu_ps(tail_out, _mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i*>(tail_in))));
    std::memcpy(out + i, tail_out, (n - i) * sizeof(float));
  }
}

__attribute__((target("avx512bf16,avx512vl,avx512f"))) void bf16_from_float_avx512bf16(const float* in, std::size_t n,
                                                                                       std::uint16_t* out) {
  std::size_t i = 0;
  for (; i + 16 <= n; i += 16) {
    const __m256bh halves = _mm512_cvtneps_pbh(_mm512_loadu_ps(in + i));
    std::memcpy(out + i, &halves, sizeof halves);
  }
  if (i < n) {
    float tail_in[16] = {};
    std::memcpy(tail_in, in + i, (n - i) * sizeof(float));
    const __m256bh halves = _mm512_cvtneps_pbh(_mm512_loadu_ps(tail_in));
    std::memcpy(out + i, &halves, (n - i) * sizeof(std::uint16_t));
  }
}

}  // namespace softfloat::verify

#else  // not x86

#include <stdexcept>
#include <string>

namespace softfloat::verify {

namespace {
[[noreturn]] void not_on_this_architecture(const char* function) {
  throw std::logic_error(std::string("softfloat::verify::") + function +
                         ": an x86 instruction this architecture lacks (check its *_available() first)");
}
}  // namespace

bool f16c_available() { return false; }
bool avx512bf16_available() { return false; }
void fp16_from_float_f16c(const float*, std::size_t, std::uint16_t*) { not_on_this_architecture("fp16_from_float_f16c"); }
void float_from_fp16_f16c(const std::uint16_t*, std::size_t, float*) { not_on_this_architecture("float_from_fp16_f16c"); }
void bf16_from_float_avx512bf16(const float*, std::size_t, std::uint16_t*) {
  not_on_this_architecture("bf16_from_float_avx512bf16");
}

}  // namespace softfloat::verify

#endif  // SOFTFLOAT_X86_SHORTCUTS
