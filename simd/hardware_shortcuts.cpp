// F16C and AVX512-BF16 conversions (see hardware_shortcuts.hpp). vcvtps2ph takes its
// rounding from the immediate, and the caller (array_conversions.cpp) runs it with
// MXCSR's DAZ cleared, so subnormal inputs round correctly; its NaN result is quiet with the sign
// and top payload bits kept, which is round_to_format()'s NaN rule. vcvtneps2bf16
// always flushes subnormal inputs to zero and promises nothing of NaN payloads, so a
// block holding such a lane is converted by the generic algorithm instead: no rounding
// or special-value rule is restated here. On other architectures (aarch64) the
// *_usable() checks say no and the array paths take the generic algorithm.
#include "simd/hardware_shortcuts.hpp"

#if SOFTFLOAT_X86_SHORTCUTS
#include <immintrin.h>

#include <cstring>

#include "runtime/cpu_features.hpp"
#include "simd/prefetch.hpp"

// GCC 12's AVX-512 intrinsic headers start some results from _mm512_undefined_*(),
// which -Wmaybe-uninitialized reports inside the headers themselves. (Clang, which the
// fuzz build uses, has no such warning and would reject the pragma.)
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif

namespace softfloat::simd::detail {

// Read once per process (cpu_features()), never per call: under a hypervisor each cpuid
// is a VM exit of about 13 us, which a conversion of 16 values would pay many times over.
bool f16c_usable() {
  const softfloat::detail::CpuFeatures& cpu = softfloat::detail::cpu_features();
  return cpu.avx2 && cpu.f16c;
}
bool avx512bf16_usable() { return softfloat::detail::cpu_features().avx512_bf16; }

namespace {

__attribute__((target("avx2,f16c"))) inline void fp16_block(const float* in, std::uint16_t* out) {
  const __m256 v = _mm256_loadu_ps(in);
  _mm_storeu_si128(reinterpret_cast<__m128i*>(out), _mm256_cvtps_ph(v, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC));
}
__attribute__((target("avx2,f16c"))) inline void float_block(const std::uint16_t* in, float* out) {
  _mm256_storeu_ps(out, _mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i*>(in))));
}

// 16 floats -> bf16 by the instruction, or false, with nothing written, when a lane is
// one it gets wrong: a nonzero fp32 subnormal (flushed) or a NaN.
__attribute__((target("avx512f,avx512bw,avx512vl,avx512bf16"))) inline bool bf16_block(const float* in,
                                                                                     std::uint16_t* out) {
  const __m512 v = _mm512_loadu_ps(in);
  const __m512i a = _mm512_and_si512(_mm512_castps_si512(v), _mm512_set1_epi32(0x7FFFFFFF));
  const __mmask16 subnormal = _mm512_mask_cmplt_epu32_mask(_mm512_test_epi32_mask(a, a), a, _mm512_set1_epi32(0x00800000));
  const __mmask16 nan = _mm512_cmpgt_epu32_mask(a, _mm512_set1_epi32(0x7F800000));
  if ((subnormal | nan) != 0) return false;
  _mm256_storeu_si256(reinterpret_cast<__m256i*>(out), reinterpret_cast<__m256i>(_mm512_cvtneps_pbh(v)));
  return true;
}

}  // namespace

// Whole blocks, then the tail through a padded buffer (nothing outside out[0, n) is
// written). Each loop carries its block's target so that the block inlines.
#define SOFTFLOAT_BLOCK_LOOP(width, In, Out, block)               \
  std::size_t i = 0;                                              \
  for (; i + (width) <= n; i += (width)) {                       \
    PrefetchAhead(in + i);                                        \
    block(in + i, out + i);                                       \
  }                                                               \
  if (i == n) return;                                             \
  In padded_in[width] = {};                                       \
  Out padded_out[width] = {};                                     \
  std::memcpy(padded_in, in + i, (n - i) * sizeof(In));          \
  block(padded_in, padded_out);                                   \
  std::memcpy(out + i, padded_out, (n - i) * sizeof(Out))

__attribute__((target("avx2,f16c"))) void fp16_from_float_f16c(const float* in, std::size_t n, std::uint16_t* out) {
  SOFTFLOAT_BLOCK_LOOP(8, float, std::uint16_t, fp16_block);
}
__attribute__((target("avx2,f16c"))) void float_from_fp16_f16c(const std::uint16_t* in, std::size_t n, float* out) {
  SOFTFLOAT_BLOCK_LOOP(8, std::uint16_t, float, float_block);
}
#undef SOFTFLOAT_BLOCK_LOOP

// Blocks of 16 by the instruction; those it would get wrong are gathered, up to 64 at
// a time, and converted by the generic algorithm in one call (one call per block would
// cost several times the block's own work), which gives every lane round_to_format()'s
// bits. The tail (fewer than 16 values) goes to the generic algorithm as it stands.
__attribute__((target("avx512f,avx512bw,avx512vl,avx512bf16"))) void bf16_from_float_avx512bf16(const float* in,
                                                                                               std::size_t n,
                                                                                               std::uint16_t* out) {
  constexpr std::size_t width = 16, gathered_blocks = 64;
  float redo_in[gathered_blocks * width];
  std::uint16_t redo_out[gathered_blocks * width];
  std::size_t redo_at[gathered_blocks];
  std::size_t redo_count = 0;
  const auto redo = [&] {
    bf16_from_float_generic(redo_in, redo_count * width, redo_out);
    for (std::size_t k = 0; k < redo_count; ++k)
      std::memcpy(out + redo_at[k], redo_out + k * width, width * sizeof(std::uint16_t));
    redo_count = 0;
  };
  std::size_t i = 0;
  for (; i + width <= n; i += width) {
    PrefetchAhead(in + i);
    if (bf16_block(in + i, out + i)) continue;
    std::memcpy(redo_in + redo_count * width, in + i, width * sizeof(float));
    redo_at[redo_count++] = i;
    if (redo_count == gathered_blocks) redo();
  }
  if (redo_count > 0) redo();
  if (i < n) bf16_from_float_generic(in + i, n - i, out + i);
}

}  // namespace softfloat::simd::detail

#else  // not x86: no such instructions, so never usable, and calling one is a caller's bug.

#include <stdexcept>
#include <string>

namespace softfloat::simd::detail {

namespace {
[[noreturn]] void not_on_this_architecture(const char* function) {
  throw std::logic_error(std::string("softfloat::simd::detail::") + function +
                         ": an x86 instruction this architecture lacks (check its *_usable() first)");
}
}  // namespace

bool f16c_usable() { return false; }
bool avx512bf16_usable() { return false; }
void fp16_from_float_f16c(const float*, std::size_t, std::uint16_t*) { not_on_this_architecture("fp16_from_float_f16c"); }
void float_from_fp16_f16c(const std::uint16_t*, std::size_t, float*) { not_on_this_architecture("float_from_fp16_f16c"); }
void bf16_from_float_avx512bf16(const float*, std::size_t, std::uint16_t*) {
  not_on_this_architecture("bf16_from_float_avx512bf16");
}

}  // namespace softfloat::simd::detail

#endif  // SOFTFLOAT_X86_SHORTCUTS
