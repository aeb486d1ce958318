// The floating-point environment that the array conversions assume, set for the
// duration of a call and the caller's restored after: round to nearest and, on x86,
// denormals-are-zero and flush-to-zero clear. The F16C shortcut needs it (vcvtps2ph
// reads subnormal inputs as zero under DAZ), the generic quantizer's middle path
// rounds subnormal lanes with one float addition, and the MX scaling multiplies by
// powers of two down to 2^-149 (fp32 subnormals, read as zero under DAZ) and may make
// fp32 subnormal products (flushed under FTZ). The environment is per thread, so each
// thread's share sets it up.
#pragma once

#include <cfenv>

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#endif

namespace softfloat::detail {

class ScopedDefaultFloatEnvironment {
 public:
#if defined(__x86_64__) || defined(__i386__)
  ScopedDefaultFloatEnvironment() : saved_(_mm_getcsr()) {
    if (saved_ & kChanged) _mm_setcsr(saved_ & ~kChanged);
  }
  ~ScopedDefaultFloatEnvironment() {
    if (saved_ & kChanged) _mm_setcsr(saved_);
  }

 private:
  static constexpr unsigned kChanged = 0x8040u /* FTZ, DAZ */ | 0x6000u /* rounding control */;
  unsigned saved_;
#else
  ScopedDefaultFloatEnvironment() {
    std::fegetenv(&saved_);
    std::fesetenv(FE_DFL_ENV);
  }
  ~ScopedDefaultFloatEnvironment() { std::fesetenv(&saved_); }

 private:
  std::fenv_t saved_;
#endif
  ScopedDefaultFloatEnvironment(const ScopedDefaultFloatEnvironment&) = delete;
  ScopedDefaultFloatEnvironment& operator=(const ScopedDefaultFloatEnvironment&) = delete;
};

}  // namespace softfloat::detail
