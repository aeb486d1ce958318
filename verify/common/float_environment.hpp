// A caller's floating-point environment for the tests that show the library ignores it:
// a rounding direction and, where there is an MXCSR, flush-to-zero and
// denormals-are-zero. The whole environment is saved on construction and restored on
// destruction, so a failing assertion cannot leak a setting into later tests.
#pragma once

#include <cfenv>

#if defined(__SSE__) || defined(__x86_64__)
#include <xmmintrin.h>
#define SOFTFLOAT_TEST_HAS_MXCSR 1
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

  // Sets the rounding direction (FE_*) and, where there is an MXCSR, FTZ and DAZ on or
  // off; returns false if the rounding direction was refused.
  bool set(int rounding, bool flush) {
    const bool rounding_set = std::fesetround(rounding) == 0;
#ifdef SOFTFLOAT_TEST_HAS_MXCSR
    const unsigned csr = _mm_getcsr();
    _mm_setcsr(flush ? csr | kFlushToZeroAndDenormalsAreZero : csr & ~kFlushToZeroAndDenormalsAreZero);
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
