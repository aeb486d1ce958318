// A caller's floating-point environment for the tests that show the library ignores it:
// a rounding direction and flush-to-zero: where there is an MXCSR (x86) its FTZ and
// DAZ bits, on aarch64 FPCR's FZ bit (which flushes subnormal inputs and results
// both). The whole environment is saved on construction and restored on destruction
// (on aarch64 fenv_t holds FPCR), so a failing assertion cannot leak a setting into
// later tests.
#pragma once

#include <cfenv>
#include <cstdint>

#if defined(__SSE__) || defined(__x86_64__)
#include <xmmintrin.h>
#define SOFTFLOAT_TEST_HAS_MXCSR 1
#elif defined(__aarch64__) && (defined(__GNUC__) || defined(__clang__))
#define SOFTFLOAT_TEST_HAS_FPCR 1
#endif

namespace softfloat::verify {

// MXCSR bit 15 is flush-to-zero, bit 6 denormals-are-zero.
inline constexpr unsigned kFlushToZeroAndDenormalsAreZero = 0x8040u;

class ScopedFloatEnvironment {
 public:
  ScopedFloatEnvironment() {
    std::fegetenv(&saved_);
#ifdef SOFTFLOAT_TEST_HAS_MXCSR
    saved_mxcsr_ = _mm_getcsr();
#endif
  }
  ScopedFloatEnvironment(int rounding, bool flush) : ScopedFloatEnvironment() { set(rounding, flush); }
  ~ScopedFloatEnvironment() {
#ifdef SOFTFLOAT_TEST_HAS_MXCSR
    _mm_setcsr(saved_mxcsr_);
#endif
    std::fesetenv(&saved_);
  }
  ScopedFloatEnvironment(const ScopedFloatEnvironment&) = delete;
  ScopedFloatEnvironment& operator=(const ScopedFloatEnvironment&) = delete;

  // Sets the rounding direction (FE_*) and flush-to-zero (MXCSR's FTZ and DAZ, FPCR's
  // FZ) on or off; returns false if the rounding direction was refused.
  bool set(int rounding, bool flush) {
    const bool rounding_set = std::fesetround(rounding) == 0;
#ifdef SOFTFLOAT_TEST_HAS_MXCSR
    const unsigned csr = _mm_getcsr();
    _mm_setcsr(flush ? csr | kFlushToZeroAndDenormalsAreZero : csr & ~kFlushToZeroAndDenormalsAreZero);
#elif defined(SOFTFLOAT_TEST_HAS_FPCR)
    constexpr std::uint64_t flush_to_zero = std::uint64_t{1} << 24;  // FPCR.FZ
    std::uint64_t fpcr = 0;
    asm volatile("mrs %0, fpcr" : "=r"(fpcr));
    fpcr = flush ? fpcr | flush_to_zero : fpcr & ~flush_to_zero;
    asm volatile("msr fpcr, %0" : : "r"(fpcr));
#else
    (void)flush;
#endif
    return rounding_set;
  }

 private:
  std::fenv_t saved_;
#ifdef SOFTFLOAT_TEST_HAS_MXCSR
  unsigned saved_mxcsr_ = 0;
#endif
};

}  // namespace softfloat::verify
