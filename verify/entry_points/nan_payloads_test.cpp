// NaN payloads through every path, against docs/formats.md's rules ("Conventions where the
// formats leave a choice"), written out here from the rules themselves:
//   - a format with several NaN codes (IEEE style) keeps the sign, sets the quiet bit
//     and keeps the top payload bits that fit: code = sign | exponent all ones | quiet |
//     payload >> (23 - M) (from float; 52 - M from double);
//   - fn formats keep only the sign (E4M3: +NaN 0x7F, -NaN 0xFF); fnuz and P3109 have
//     the single NaN 0x80; E8M0's NaN is 0xFF;
//   - a format without NaN (E2M1, E2M3, E3M2, :finite) gives +0;
//   - MX and NVFP4 blocks holding a NaN get the NaN scale (0xFF, E4M3 0x7F) and zero
//     elements, and decode to the quiet NaN 0x7FC00000 whatever the payload;
//   - matmul: a NaN operand makes its row (of C) NaN.
// The array paths run on every Highway target compiled in and supported by this CPU;
// the compiled targets this CPU lacks are printed as skipped.
#include <gtest/gtest.h>
#include <hwy/targets.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "softfloat/format_spec.hpp"
#include "softfloat/matmul.hpp"
#include "softfloat/mx.hpp"
#include "softfloat/named_formats.hpp"
#include "softfloat/nvfp4.hpp"
#include "softfloat/simd.hpp"
#include "verify/common/rounding_modes.hpp"
#include "verify/simd/every_target.hpp"

namespace softfloat {
namespace {

using test_targets::for_each_target;

// Payloads (the 23 mantissa bits) of quiet and signalling NaNs, with bits at the top, at
// the bottom and between, so that truncation to any width shows.
constexpr std::uint32_t kPayloads[] = {0x400000, 0x000001, 0x7FFFFF, 0x200000, 0x3FFFFF, 0x555555,
                                       0x2AAAAA, 0x000100, 0x7F0000, 0x400001, 0x100000, 0x00FF00};

// Every payload with both signs, between ordinary values, long enough for whole
// vectors and a tail: position i holds a NaN when i % 3 == 1.
std::vector<float> nan_inputs() {
  std::vector<float> x;
  for (int repeat = 0; repeat < 4; ++repeat)
    for (std::uint32_t sign : {0u, 0x80000000u})
      for (std::uint32_t payload : kPayloads) {
        x.push_back(1.0f);
        x.push_back(std::bit_cast<float>(sign | 0x7F800000u | payload));
        x.push_back(-0.25f);
      }
  x.resize(x.size() - 1);  // an odd length: the tail path too
  return x;
}

// docs/formats.md's rule for one NaN (sign, 23-bit payload) into `format`, or +0 / the one NaN code.
std::uint64_t expected_nan_code(bool negative, std::uint64_t payload, int payload_bits, const Format& f) {
  switch (f.specials) {
    case Specials::ieee: {
      const int m = f.mantissa_bits;
      const std::uint64_t quiet = std::uint64_t{1} << (m - 1);
      return f.sign_bits(negative) | (((std::uint64_t{1} << f.exponent_bits) - 1) << m) | quiet |
             (payload >> (payload_bits - m));
    }
    case Specials::fn: return f.sign_bits(negative) | f.magnitude_mask();
    case Specials::fnuz:
    case Specials::p3109: return f.sign_bit();
    case Specials::finite: return 0;
  }
  return 0;
}

struct Spec {
  const char* name;
  int code_bytes;
};
constexpr Spec kFormats[] = {{"fp32", 4}, {"tf32", 4}, {"bf16", 2}, {"fp16", 2},     {"e5m2", 1},
                             {"e4m3", 1}, {"e4m3fnuz", 1}, {"e5m2fnuz", 1}, {"p3109_8p3", 1}, {"e8m0", 1},
                             {"e3m2", 1}, {"e2m3", 1}, {"e2m1", 1}, {"e4m3:finite", 1}, {"e6m9", 2}};

template <class Code>
std::vector<std::uint64_t> quantized(const float* x, std::size_t n, const Format& f, Rounding mode, Overflow policy) {
  std::vector<Code> codes(n);
  simd::quantize(x, n, codes.data(), f, mode, policy, RandomStream{5, 0});
  return {codes.begin(), codes.end()};
}
std::vector<std::uint64_t> quantized(const float* x, std::size_t n, const Format& f, int bytes, Rounding mode,
                                     Overflow policy) {
  if (bytes == 1) return quantized<std::uint8_t>(x, n, f, mode, policy);
  if (bytes == 2) return quantized<std::uint16_t>(x, n, f, mode, policy);
  return quantized<std::uint32_t>(x, n, f, mode, policy);
}

TEST(NanPayloads, ArrayQuantizeOnEveryTarget) {
  const std::vector<float> x = nan_inputs();
  const std::vector<std::string> run = for_each_target([&](const std::string&) {
    for (const Spec& spec : kFormats) {
      const Format f = parse_format(spec.name);
      for (Rounding mode : {Rounding::nearest_even, Rounding::toward_zero, Rounding::odd, Rounding::stochastic})
        for (Overflow policy : test_support::kOverflowPolicies) {
          const auto codes = quantized(x.data(), x.size(), f, spec.code_bytes, mode, policy);
          for (std::size_t i = 1; i < x.size(); i += 3) {
            const std::uint32_t bits = std::bit_cast<std::uint32_t>(x[i]);
            const std::uint64_t expected = expected_nan_code(bits >> 31, bits & 0x7FFFFF, 23, f);
            ASSERT_EQ(codes[i], expected) << spec.name << " " << rounding_name(mode) << " input 0x" << std::hex
                                          << bits;
          }
        }
    }
  });
  // Compiled targets this CPU cannot run (AVX-512 ones on an AVX2 machine) are not
  // checked here: say so instead of counting them as passed.
  std::string skipped;
  for (std::int64_t bits = HWY_TARGETS; bits != 0; bits &= bits - 1) {
    const std::int64_t target = bits & -bits;
    if ((hwy::SupportedTargets() & target) == 0) skipped += std::string(hwy::TargetName(target)) + " ";
  }
  std::string ran;
  for (const std::string& name : run) ran += name + " ";
  std::printf("targets run: %s\ntargets compiled but skipped (not supported by this CPU): %s\n", ran.c_str(),
              skipped.empty() ? "none" : skipped.c_str());
  EXPECT_FALSE(run.empty());
}

TEST(NanPayloads, DoubleInputKeepsTheTopOfItsOwnPayload) {
  std::vector<double> x;
  for (std::uint64_t sign : {0ull, 1ull << 63})
    for (std::uint64_t payload : {0x8000000000000ull, 0x0000000000001ull, 0xFFFFFFFFFFFFFull, 0x0000020000000ull,
                                  0x4000000000001ull, 0x2AAAAAAAAAAAAull})
      x.push_back(std::bit_cast<double>(sign | 0x7FF0000000000000ull | payload));
  for_each_target([&](const std::string&) {
    for (const char* name : {"fp32", "bf16", "fp16", "e5m2", "e4m3", "e2m1"}) {
      const Format f = parse_format(name);
      std::vector<std::uint32_t> codes(x.size());
      simd::quantize(x.data(), x.size(), codes.data(), f);
      for (std::size_t i = 0; i < x.size(); ++i) {
        const std::uint64_t bits = std::bit_cast<std::uint64_t>(x[i]);
        EXPECT_EQ(codes[i], expected_nan_code(bits >> 63, bits & 0xFFFFFFFFFFFFFull, 52, f)) << name << " " << i;
      }
    }
  });
}

// Decoding: an IEEE NaN code's payload goes to the top of fp32's mantissa, quiet; the
// other NaN codes decode to a NaN of their sign (fn) or a NaN.
TEST(NanPayloads, DequantizeAndRoundTripOnEveryTarget) {
  const std::vector<float> x = nan_inputs();
  for_each_target([&](const std::string&) {
    for (const Spec& spec : kFormats) {
      const Format f = parse_format(spec.name);
      std::vector<float> back(x.size());
      simd::round_trip(x.data(), x.size(), back.data(), f);
      const auto codes = quantized(x.data(), x.size(), f, 4, Rounding::nearest_even, Overflow::standard);
      std::vector<std::uint32_t> codes32(codes.begin(), codes.end());
      std::vector<float> decoded(x.size());
      simd::dequantize(codes32.data(), codes32.size(), decoded.data(), f);
      for (std::size_t i = 1; i < x.size(); i += 3) {
        const std::uint32_t in = std::bit_cast<std::uint32_t>(x[i]);
        const std::uint32_t out = std::bit_cast<std::uint32_t>(back[i]);
        ASSERT_EQ(out, std::bit_cast<std::uint32_t>(decoded[i])) << spec.name;
        if (!f.has_nan()) {
          ASSERT_EQ(out, 0u) << spec.name << ": NaN into a format without NaN gives +0";
        } else if (f.specials == Specials::ieee) {
          const int m = f.mantissa_bits;
          const std::uint32_t kept = (in & 0x7FFFFF) >> (23 - m) << (23 - m);
          ASSERT_EQ(out, (in & 0x80000000u) | 0x7FC00000u | kept) << spec.name << " 0x" << std::hex << in;
        } else {
          ASSERT_TRUE(std::isnan(back[i])) << spec.name;
          if (f.specials == Specials::fn && f.is_signed) {
            ASSERT_EQ(out >> 31, in >> 31) << spec.name << ": fn formats keep the sign";
          }
        }
      }
    }
  });
}

TEST(NanPayloads, ScalarConversions) {
  for (std::uint32_t sign : {0u, 0x80000000u})
    for (std::uint32_t payload : kPayloads) {
      const std::uint32_t in = sign | 0x7F800000u | payload;
      const float x = std::bit_cast<float>(in);
      EXPECT_EQ(FP16(x).bits(), expected_nan_code(sign != 0, payload, 23, FP16::format));
      EXPECT_EQ(BF16(x).bits(), expected_nan_code(sign != 0, payload, 23, BF16::format));
      EXPECT_EQ(E5M2(x).bits(), expected_nan_code(sign != 0, payload, 23, E5M2::format));
      EXPECT_EQ(E4M3(x).bits(), sign ? 0xFF : 0x7F);
      EXPECT_EQ(E4M3FNUZ(x).bits(), 0x80);
      EXPECT_EQ(E2M1(x).bits(), 0);
      EXPECT_EQ(E8M0(x).bits(), 0xFF);
      EXPECT_EQ(std::bit_cast<std::uint32_t>(float(FP16(x))),
                sign | 0x7FC00000u | ((payload >> 13) << 13));
    }
}

TEST(NanPayloads, PackedOnEveryTarget) {
  const std::vector<float> x = nan_inputs();
  for_each_target([&](const std::string&) {
    for (const char* name : {"e2m1", "e2m3", "e3m2"}) {
      const Format f = parse_format(name);
      std::vector<std::uint8_t> packed(simd::packed_size(f, x.size()));
      simd::quantize_packed(x.data(), x.size(), packed.data(), packed.size(), f);
      std::vector<float> back(x.size());
      simd::dequantize_packed(packed.data(), packed.size(), x.size(), back.data(), f);
      for (std::size_t i = 1; i < x.size(); i += 3) ASSERT_EQ(std::bit_cast<std::uint32_t>(back[i]), 0u) << name;
    }
  });
}

// One NaN per block of 32 in the first three blocks, whatever its payload and sign; the
// fourth block is ordinary and keeps its own scale.
TEST(NanPayloads, MxBlocksOnEveryTarget) {
  std::vector<float> x(128, 0.75f);
  x[5] = std::bit_cast<float>(0x7F800001u);   // signalling, payload 1
  x[40] = std::bit_cast<float>(0xFFC12345u);  // negative quiet
  x[95] = std::bit_cast<float>(0x7FBFFFFFu);  // signalling, full payload
  for_each_target([&](const std::string&) {
    for (mx::Element element : mx::kAllElements) {
      SCOPED_TRACE(mx::element_name(element));
      const std::size_t bytes = mx::element_bytes(element, x.size());
      std::vector<std::uint8_t> elements(bytes), scales(4), scalar_elements(bytes), scalar_scales(4);
      mx::quantize(x.data(), x.size(), elements.data(), bytes, scales.data(), 4, element);
      mx::scalar_quantize(x.data(), x.size(), scalar_elements.data(), bytes, scalar_scales.data(), 4, element);
      EXPECT_EQ(elements, scalar_elements);
      EXPECT_EQ(scales, scalar_scales);
      for (int b = 0; b < 3; ++b) EXPECT_EQ(scales[b], 0xFF) << "block " << b;
      EXPECT_NE(scales[3], 0xFF);
      for (std::size_t i = 0; i < mx::element_bytes(element, 96); ++i) ASSERT_EQ(elements[i], 0) << i;
      std::vector<float> back(x.size()), fused(x.size());
      mx::dequantize(elements.data(), bytes, scales.data(), 4, x.size(), back.data(), element);
      mx::round_trip(x.data(), x.size(), fused.data(), element);
      for (std::size_t i = 0; i < 96; ++i) {
        ASSERT_EQ(std::bit_cast<std::uint32_t>(back[i]), 0x7FC00000u) << i;
        ASSERT_EQ(std::bit_cast<std::uint32_t>(fused[i]), 0x7FC00000u) << i;
      }
      for (std::size_t i = 96; i < 128; ++i) ASSERT_EQ(back[i], 0.75f) << i;  // 0.75 is on every element grid
    }
  });
}

TEST(NanPayloads, Nvfp4BlocksOnEveryTarget) {
  std::vector<float> x(48, 3.0f);
  x[3] = std::bit_cast<float>(0xFF800007u);   // negative signalling NaN in block 0
  x[20] = std::bit_cast<float>(0x7FFFFFFFu);  // block 1
  x[47] = -1.5f;
  for_each_target([&](const std::string&) {
    std::vector<std::uint8_t> elements(24), scales(3);
    float amax = 0;
    nvfp4::quantize(x.data(), x.size(), elements.data(), 24, scales.data(), 3, &amax);
    EXPECT_EQ(scales[0], 0x7F);
    EXPECT_EQ(scales[1], 0x7F);
    EXPECT_EQ(amax, 3.0f) << "NaN blocks do not count towards amax";
    for (std::size_t i = 0; i < 16; ++i) ASSERT_EQ(elements[i], 0) << i;
    std::vector<float> back(x.size());
    nvfp4::dequantize(elements.data(), 24, scales.data(), 3, amax, x.size(), back.data());
    for (std::size_t i = 0; i < 32; ++i) ASSERT_EQ(std::bit_cast<std::uint32_t>(back[i]), 0x7FC00000u) << i;
    // The ordinary block: the value-by-value definition's bits.
    std::vector<std::uint8_t> scalar_elements(24), scalar_scales(3);
    float scalar_amax = 0;
    nvfp4::scalar_quantize(x.data(), x.size(), scalar_elements.data(), 24, scalar_scales.data(), 3, &scalar_amax);
    EXPECT_EQ(elements, scalar_elements);
    EXPECT_EQ(scales, scalar_scales);
    std::vector<float> scalar_back(x.size());
    nvfp4::scalar_dequantize(elements.data(), 24, scales.data(), 3, amax, x.size(), scalar_back.data());
    for (std::size_t i = 32; i < 48; ++i)
      EXPECT_EQ(std::bit_cast<std::uint32_t>(back[i]), std::bit_cast<std::uint32_t>(scalar_back[i])) << i;
  });
}

// A NaN code of A (any payload) makes its row of C NaN; the other row is the exact sum.
TEST(NanPayloads, MatmulOnEveryTarget) {
  const std::size_t m = 2, n = 3, k = 5;
  for (std::uint16_t nan_code : {std::uint16_t(0x7C01), std::uint16_t(0xFE00), std::uint16_t(0x7FFF)}) {
    std::vector<std::uint16_t> a(m * k, 0x3C00);  // fp16 1.0
    a[2] = nan_code;                              // row 0
    const std::vector<std::uint16_t> b(k * n, 0x4000);  // fp16 2.0
    for_each_target([&](const std::string&) {
      std::vector<float> c(m * n);
      matmul<FP16, FP16>(a.data(), b.data(), c.data(), m, n, k);
      for (std::size_t j = 0; j < n; ++j) {
        EXPECT_TRUE(std::isnan(c[j])) << std::hex << nan_code;
        EXPECT_EQ(c[n + j], 10.0f);  // five products 1 * 2
      }
    });
  }
}

}  // namespace
}  // namespace softfloat
