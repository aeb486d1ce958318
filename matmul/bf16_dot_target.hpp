// Compiling the pairs-of-products kernels: raw AVX512-BF16 / AVX512-VBMI intrinsics in
// functions marked SOFTFLOAT_BF16_DOT_TARGET, so that only those functions use the
// instructions and the rest of the library runs on any x86-64; callers check the CPU
// first (bf16_dot_supported()). Elsewhere SOFTFLOAT_HAVE_BF16_DOT is 0 and the paths
// report that they do not apply.
#pragma once

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define SOFTFLOAT_HAVE_BF16_DOT 1
#include <immintrin.h>
#define SOFTFLOAT_BF16_DOT_TARGET __attribute__((target("avx512f,avx512bw,avx512bf16,avx512vbmi")))
#else
#define SOFTFLOAT_HAVE_BF16_DOT 0
#endif
