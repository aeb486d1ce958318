// Included first by the matmul files whose kernels keep vectors in arrays and struct
// members (the register tile of gemm-inl.h, the row groups of matvec-inl.h, the row
// sums of accumulate-inl.h): SVE's
// vector types are sizeless, and C++ allows neither. Those files compile no SVE target
// on aarch64; Highway's dispatch in them picks the best target they did compile (NEON
// on an SVE CPU: HWY_CHOSEN_TARGET_MASK_TARGETS is per translation unit), so results
// do not change, only the vector width. HWY_BROKEN_TARGETS, not HWY_DISABLED_TARGETS,
// so that a build's own HWY_DISABLED_TARGETS still applies (Highway lists no broken
// aarch64 target for GCC >= 10 or Clang >= 11, the compilers the project supports).
#pragma once

#if defined(__aarch64__) && !defined(HWY_BROKEN_TARGETS)
// HWY_SVE2_128 | HWY_SVE_256 | HWY_SVE2 | HWY_SVE (hwy/detect_targets.h), which this
// header cannot name: it must come before Highway's headers to take effect.
#define HWY_BROKEN_TARGETS ((1LL << 24) | (1LL << 25) | (1LL << 26) | (1LL << 27))
#endif
