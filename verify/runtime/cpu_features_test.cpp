// What the CPU can do, read once (runtime/cpu_features.hpp):
//   - SOFTFLOAT_MAX_ISA's values, and the message for any other;
//   - capped() and highway_targets_above() over synthetic capability sets, every level;
//   - the capability queries (cpuid, xgetbv, arch_prctl, getenv) counted across 10^4
//     conversions of every kind: none after the first;
//   - under a ceiling (the ctests cpu_ceiling_<level> set SOFTFLOAT_MAX_ISA), what runs is
//     what a CPU of that level runs: Highway's targets, the shortcuts, matmul's kernels.
#include "runtime/cpu_features.hpp"

#include <gtest/gtest.h>
#include <hwy/targets.h>

#include <cstdio>
#include <stdexcept>
#include <string>
#include <vector>

#include "matmul/amx_tiles.hpp"
#include "matmul/bf16_dot.hpp"
#include "simd/hardware_shortcuts.hpp"
#include "softfloat/matmul.hpp"
#include "softfloat/matmul_summation.hpp"
#include "softfloat/mx.hpp"
#include "softfloat/nvfp4.hpp"
#include "softfloat/simd.hpp"

namespace softfloat::detail {
namespace {

// Sapphire Rapids as cpuid describes it: every capability the library reads.
CpuFeatures sapphire_rapids() {
  CpuFeatures f;
  f.vendor = "GenuineIntel";
  f.family = 6;
  f.model = 143;
  f.avx2 = f.f16c = f.avx512 = f.avx512_vnni = f.avx512_vbmi = f.avx512_bf16 = f.avx512_fp16 = true;
  f.amx_bf16 = f.amx_int8 = true;
  return f;
}

std::string flags(const CpuFeatures& f) {
  std::string s;
  const std::pair<const char*, bool> each[] = {
      {"avx2", f.avx2},           {"f16c", f.f16c},         {"avx512", f.avx512},
      {"vnni", f.avx512_vnni},    {"vbmi", f.avx512_vbmi},  {"bf16", f.avx512_bf16},
      {"fp16", f.avx512_fp16},    {"amx_bf16", f.amx_bf16}, {"amx_int8", f.amx_int8}};
  for (const auto& [name, on] : each)
    if (on) (s += s.empty() ? "" : " ") += name;
  return s;
}

TEST(IsaCeiling, ParsesEachLevel) {
  EXPECT_EQ(parse_isa_ceiling(""), std::nullopt);
  EXPECT_EQ(parse_isa_ceiling("sse4"), IsaCeiling::sse4);
  EXPECT_EQ(parse_isa_ceiling("avx2"), IsaCeiling::avx2);
  EXPECT_EQ(parse_isa_ceiling("avx512"), IsaCeiling::avx512);
  EXPECT_EQ(parse_isa_ceiling("avx512_bf16"), IsaCeiling::avx512_bf16);
  EXPECT_EQ(parse_isa_ceiling("amx"), IsaCeiling::amx);
}

TEST(IsaCeiling, RefusesAnythingElseNamingTheLevels) {
  for (const std::string bad : {"AVX2", "avx-2", "avx3", " avx2", "avx2\n"}) {
    try {
      parse_isa_ceiling(bad);
      ADD_FAILURE() << "accepted '" << bad << "'";
    } catch (const std::invalid_argument& error) {
      const std::string shown = bad == "avx2\n" ? "avx2\\n" : bad;
      EXPECT_EQ(std::string(error.what()), "SOFTFLOAT_MAX_ISA='" + shown +
                                               "' is not a ceiling; expected one of sse4, avx2, avx512, "
                                               "avx512_bf16, amx (or unset)");
    }
  }
}

TEST(IsaCeiling, CappedTurnsOffEverythingAboveTheLevel) {
  const CpuFeatures full = sapphire_rapids();
  EXPECT_EQ(flags(capped(full, IsaCeiling::amx)), "avx2 f16c avx512 vnni vbmi bf16 fp16 amx_bf16 amx_int8");
  EXPECT_EQ(flags(capped(full, IsaCeiling::avx512_bf16)), "avx2 f16c avx512 vnni vbmi bf16");
  EXPECT_EQ(flags(capped(full, IsaCeiling::avx512)), "avx2 f16c avx512");
  EXPECT_EQ(flags(capped(full, IsaCeiling::avx2)), "avx2 f16c");
  EXPECT_EQ(flags(capped(full, IsaCeiling::sse4)), "");
  // A ceiling never adds what the CPU lacks: Zen 3 under amx stays Zen 3.
  CpuFeatures zen3;
  zen3.vendor = "AuthenticAMD";
  zen3.avx2 = zen3.f16c = true;
  EXPECT_EQ(flags(capped(zen3, IsaCeiling::amx)), "avx2 f16c");
  // The identity is kept for the reports.
  EXPECT_EQ(capped(full, IsaCeiling::sse4).vendor, "GenuineIntel");
  EXPECT_EQ(capped(full, IsaCeiling::sse4).model, 143u);
}

TEST(IsaCeiling, HighwayTargetsAboveEachLevel) {
  std::int64_t above_avx2 = HWY_AVX3 | HWY_AVX3_DL;
#if defined(HWY_AVX3_ZEN4)
  above_avx2 |= HWY_AVX3_ZEN4;
#endif
#if defined(HWY_AVX3_SPR)
  above_avx2 |= HWY_AVX3_SPR;
  EXPECT_EQ(highway_targets_above(IsaCeiling::avx512_bf16), HWY_AVX3_SPR);
#else
  EXPECT_EQ(highway_targets_above(IsaCeiling::avx512_bf16), 0);
#endif
  EXPECT_EQ(highway_targets_above(IsaCeiling::amx), 0);
  EXPECT_EQ(highway_targets_above(IsaCeiling::avx2), above_avx2);
  EXPECT_EQ(highway_targets_above(IsaCeiling::sse4), above_avx2 | HWY_AVX2);
  EXPECT_EQ(highway_targets_above(IsaCeiling::avx512) & (HWY_AVX3 | HWY_AVX2), 0);
  EXPECT_NE(highway_targets_above(IsaCeiling::avx512) & HWY_AVX3_DL, 0);
}

// 10^4 calls of every kind, small arrays so that the calls, not the data, dominate.
void every_kind_of_call(std::size_t calls) {
  constexpr std::size_t n = 64;
  std::vector<float> in(n), out(n);
  std::vector<double> doubles(n);
  for (std::size_t i = 0; i < n; ++i) in[i] = doubles[i] = (static_cast<float>(i) - 31.5f) * 0.37f;
  std::vector<std::uint8_t> codes8(n), elements(n), scales(n);
  std::vector<std::uint16_t> codes16(n);
  std::vector<float> c(16 * 16);
  const Format formats16[] = {FP16::format, BF16::format};
  for (std::size_t call = 0; call < calls; ++call) {
    const RandomStream random{call, 0};
    for (const Format& format : formats16) {
      simd::quantize(in.data(), n, codes16.data(), format);
      simd::quantize(doubles.data(), n, codes16.data(), format);
      simd::dequantize(codes16.data(), n, out.data(), format);
      simd::round_trip(in.data(), n, out.data(), format);
      simd::round_trip(in.data(), n, out.data(), format, Rounding::stochastic, Overflow::standard, random);
    }
    simd::quantize(in.data(), n, codes8.data(), E4M3::format);
    simd::round_trip(in.data(), n, out.data(), E5M2::format, Rounding::stochastic, Overflow::standard, random);
    simd::dequantize(codes8.data(), n, out.data(), E4M3::format);
    simd::quantize_packed(in.data(), n, codes8.data(), codes8.size(), E2M1::format);
    simd::dequantize_packed(codes8.data(), codes8.size(), n, out.data(), E2M1::format);
    mx::quantize(in.data(), n, elements.data(), elements.size(), scales.data(), scales.size(), mx::Element::fp8_e4m3);
    mx::round_trip(in.data(), n, out.data(), mx::Element::fp4_e2m1);
    float amax = 0;
    nvfp4::quantize(in.data(), n, elements.data(), elements.size(), scales.data(), scales.size(), &amax);
    matmul(codes8.data(), E4M3::format, codes8.data(), E4M3::format, c.data(), 4, 4, 4);
    matmul(codes8.data(), E4M3::format, codes8.data(), E4M3::format, c.data(), 1, 16, 4);
  }
}

TEST(CapabilityQueries, NoneAfterTheFirstCall) {
  every_kind_of_call(1);  // the first call of each kind, whatever it reads
  const std::uint64_t after_first = capability_queries();
  EXPECT_GT(after_first, 0u);  // the hook counts: cpuid was asked at least once
  every_kind_of_call(10'000);
  EXPECT_EQ(capability_queries(), after_first);
}

// Under SOFTFLOAT_MAX_ISA (the ctests cpu_ceiling_*): exactly what a CPU of that level runs.
TEST(CpuCeiling, WhatRunsIsWhatTheLevelRuns) {
  const std::string_view level = isa_ceiling_name();
  if (level.empty()) GTEST_SKIP() << "no SOFTFLOAT_MAX_ISA here: the ctests cpu_ceiling_<level> set one";
  const std::optional<IsaCeiling> ceiling = parse_isa_ceiling(level);
  ASSERT_TRUE(ceiling.has_value());
  const CpuFeatures& cpu = cpu_features();
  const std::int64_t targets = hwy::SupportedTargets();
  // The best target has the lowest bit (detect_targets.h orders them so).
  std::printf("SOFTFLOAT_MAX_ISA=%s: %s; Highway's best target %s\n", std::string(level).c_str(),
              flags(cpu).c_str(), hwy::TargetName(targets & -targets));
  EXPECT_EQ(hwy::SupportedTargets() & highway_targets_above(*ceiling), 0);
  EXPECT_EQ(flags(capped(cpu, *ceiling)), flags(cpu));  // nothing above the level is on
  EXPECT_EQ(simd::detail::f16c_usable(), cpu.avx2 && cpu.f16c);
  EXPECT_EQ(simd::detail::avx512bf16_usable(), cpu.avx512_bf16);
  EXPECT_EQ(matmul_detail::bf16_dot_supported(), cpu.avx512_bf16 && cpu.avx512_vbmi);
  EXPECT_EQ(matmul_detail::amx_usable(), cpu.amx_bf16);
  if (*ceiling <= IsaCeiling::avx512) {
    EXPECT_FALSE(simd::detail::avx512bf16_usable());
    EXPECT_EQ((matmul_path<E4M3, E4M3>(1024, 1024, 1024, MatmulSummation::fastest)), MatmulKernel::fma_gemm);
    EXPECT_EQ((matmul_path<E4M3, E4M3>(1, 8192, 8192, MatmulSummation::fastest)), MatmulKernel::fma_matvec);
    EXPECT_EQ((matmul_path<E4M3, E4M3>(64, 64, 64, MatmulSummation::tiles)), MatmulKernel::fma_gemm);
  }
  if (*ceiling <= IsaCeiling::avx2) {
    EXPECT_FALSE(cpu.avx512);
  }
  if (*ceiling == IsaCeiling::sse4) {
    EXPECT_FALSE(simd::detail::f16c_usable());
    EXPECT_EQ(hwy::SupportedTargets() & (HWY_AVX2 | HWY_AVX3), 0);
  }
}

}  // namespace
}  // namespace softfloat::detail
