// Which kernel a matmul call takes (softfloat/matmul_summation.hpp):
//   - the rule behind MatmulSummation::fastest, every branch, on synthetic capability
//     sets (and under each SOFTFLOAT_MAX_ISA ceiling);
//   - this CPU's decision, printed, equal to the rule's answer for its capabilities;
//   - matmul_path() for each kind of call (accumulator, shape, summation, formats that
//     the pairs rule refuses), its names, and its errors;
//   - matmul_path() names the kernel that actually runs: matmul's result equals that
//     kernel's, called directly, in every summation.
// No timing anywhere: the rule reads capabilities only.
#include <gtest/gtest.h>

#include <cstdio>
#include <random>
#include <string>
#include <vector>

#include "matmul/amx_gemm.hpp"
#include "matmul/amx_tiles.hpp"
#include "matmul/bf16_dot.hpp"
#include "matmul/code_matrix.hpp"
#include "matmul/kernel_rule.hpp"
#include "matmul/kernels.hpp"
#include "softfloat/softfloat.hpp"
#include "verify/matmul/matmul_test_support.hpp"

namespace softfloat::matmul_test {
namespace {

using matmul_detail::fastest_kernels;

constexpr MatmulSummation kSummations[] = {MatmulSummation::fastest, MatmulSummation::in_order,
                                           MatmulSummation::pairs, MatmulSummation::tiles};

std::string name_of(MatmulSummation summation) {
  switch (summation) {
    case MatmulSummation::fastest: return "fastest";
    case MatmulSummation::in_order: return "in_order";
    case MatmulSummation::tiles: return "tiles";
    default: return "pairs";
  }
}

// A capability set as cpuid and the OS would describe it; identity only where the rule
// reads it (the vendor).
detail::CpuFeatures cpu(const char* vendor, bool bf16_and_vbmi, bool amx = false) {
  detail::CpuFeatures f;
  f.vendor = vendor;
  f.avx2 = f.f16c = f.avx512 = true;
  f.avx512_bf16 = f.avx512_vbmi = bf16_and_vbmi;
  f.amx_bf16 = amx;
  return f;
}

TEST(KernelRule, EveryBranchOverSyntheticCapabilities) {
  const auto check = [](const detail::CpuFeatures& f, bool gemm, bool matvec, bool tiles, const char* what) {
    const auto kernels = fastest_kernels(f);
    EXPECT_EQ(kernels.pairs_gemm, gemm) << what;
    EXPECT_EQ(kernels.pairs_matvec, matvec) << what;
    EXPECT_EQ(kernels.tiles_gemm, tiles) << what;
  };
  // AMX (Sapphire / Emerald Rapids, whatever model number a hypervisor reports): tiles for
  // the GEMM, pairs for the matrix-vector product.
  check(cpu("GenuineIntel", true, true), false, true, true, "Intel, AVX512-BF16, AMX");
  // Intel with AVX512-BF16 and no AMX (Cooper Lake, or AMX refused by the OS): the FMA
  // GEMM, pairs matrix-vector.
  check(cpu("GenuineIntel", true), false, true, false, "Intel, AVX512-BF16");
  // AMD with AVX512-BF16 (Zen 4, Zen 5): pairs for both.
  check(cpu("AuthenticAMD", true), true, true, false, "AMD, AVX512-BF16");
  // Another vendor with the instructions: the vendor rule is AMD's measurement only.
  check(cpu("HygonGenuine", true), false, true, false, "another vendor, AVX512-BF16");
  // AVX-512 without BF16 (Skylake-SP, Ice Lake), AVX2 only (Zen 3), nothing (aarch64): FMA.
  check(cpu("GenuineIntel", false), false, false, false, "AVX-512 without BF16");
  check(cpu("AuthenticAMD", false), false, false, false, "AMD without BF16 (Zen 3)");
  check(detail::CpuFeatures{}, false, false, false, "no x86 capability");
  // The pairs kernels need VBMI's vpermb beside vdpbf16ps.
  detail::CpuFeatures no_vbmi = cpu("AuthenticAMD", true);
  no_vbmi.avx512_vbmi = false;
  check(no_vbmi, false, false, false, "AVX512-BF16 without VBMI");
  // AMX alone takes the tiles (the tile GEMM needs no vdpbf16ps).
  check(cpu("GenuineIntel", false, true), false, false, true, "AMX without AVX512-BF16");
  // No model number enters: Sapphire Rapids as 143, 207 or a hypervisor's 167.
  for (const unsigned model : {143u, 207u, 167u}) {
    detail::CpuFeatures f = cpu("GenuineIntel", true, true);
    f.family = 6;
    f.model = model;
    check(f, false, true, true, "Intel, any model");
  }
  // Every ceiling of SOFTFLOAT_MAX_ISA applied to Sapphire Rapids.
  const detail::CpuFeatures rapids = cpu("GenuineIntel", true, true);
  check(detail::capped(rapids, detail::IsaCeiling::avx512_bf16), false, true, false, "capped at avx512_bf16");
  check(detail::capped(rapids, detail::IsaCeiling::avx512), false, false, false, "capped at avx512");
  check(detail::capped(rapids, detail::IsaCeiling::avx2), false, false, false, "capped at avx2");
}

// The rows the FMA matrix-vector loop streams at once where its decoding is short: a
// measured vendor rule, 8 on AMD, 16 elsewhere; whatever the ceiling or model number.
TEST(KernelRule, MatvecRowsPerPassByVendor) {
  EXPECT_EQ(matmul_detail::matvec_rows_per_pass(cpu("AuthenticAMD", true)), 8u);
  EXPECT_EQ(matmul_detail::matvec_rows_per_pass(cpu("AuthenticAMD", false)), 8u);
  EXPECT_EQ(matmul_detail::matvec_rows_per_pass(detail::capped(cpu("AuthenticAMD", true), detail::IsaCeiling::avx2)),
            8u);
  EXPECT_EQ(matmul_detail::matvec_rows_per_pass(cpu("GenuineIntel", true, true)), 16u);
  EXPECT_EQ(matmul_detail::matvec_rows_per_pass(cpu("GenuineIntel", false)), 16u);
  EXPECT_EQ(matmul_detail::matvec_rows_per_pass(cpu("HygonGenuine", true)), 16u);
  EXPECT_EQ(matmul_detail::matvec_rows_per_pass(detail::CpuFeatures{}), 16u);
}

// The pairs matrix-vector loop's software prefetch: off on AMD, on elsewhere.
TEST(KernelRule, MatvecPairsPrefetchByVendor) {
  EXPECT_FALSE(matmul_detail::matvec_pairs_prefetch(cpu("AuthenticAMD", true)));
  EXPECT_TRUE(matmul_detail::matvec_pairs_prefetch(cpu("GenuineIntel", true, true)));
  EXPECT_TRUE(matmul_detail::matvec_pairs_prefetch(cpu("HygonGenuine", true)));
}

TEST(KernelRule, ThisCpusDecision) {
  const detail::CpuFeatures& f = detail::cpu_features();
  const MatmulKernel gemm = matmul_path<E4M3, E4M3>(1024, 1024, 1024, MatmulSummation::fastest);
  const MatmulKernel matvec = matmul_path<E4M3, E4M3>(1, 8192, 8192, MatmulSummation::fastest);
  std::printf("this CPU: %s family %u (0x%X) model %u%s%s, vdpbf16ps kernels %s, AMX tiles %s; fastest takes %s and %s\n",
              f.vendor.c_str(), f.family, f.family, f.model,
              detail::isa_ceiling_name().empty() ? "" : ", SOFTFLOAT_MAX_ISA=",
              std::string(detail::isa_ceiling_name()).c_str(),
              matmul_detail::pairs_kernels_can_run(f) ? "available" : "unavailable",
              f.amx_bf16 ? "available" : "unavailable", std::string(matmul_kernel_name(gemm)).c_str(),
              std::string(matmul_kernel_name(matvec)).c_str());
  EXPECT_EQ(matmul_detail::pairs_kernels_can_run(f), matmul_detail::bf16_dot_supported());
  EXPECT_EQ(f.amx_bf16, matmul_detail::amx_usable());
  // fastest is the rule's answer for this CPU's capabilities.
  const auto row = fastest_kernels(f);
  EXPECT_EQ(gemm, row.tiles_gemm   ? MatmulKernel::tiles_gemm
                  : row.pairs_gemm ? MatmulKernel::pairs_gemm
                                   : MatmulKernel::fma_gemm);
  EXPECT_EQ(matvec, row.pairs_matvec ? MatmulKernel::pairs_matvec : MatmulKernel::fma_matvec);
  if (f.amx_bf16) {
    EXPECT_EQ((matmul_path<BF16, BF16>(1024, 1024, 1024, MatmulSummation::fastest)), MatmulKernel::tiles_gemm);
  }
}

TEST(MatmulPath, EachKindOfCall) {
  const bool vdpbf16ps = matmul_detail::bf16_dot_supported();
  const MatmulKernel pairs_gemm = vdpbf16ps ? MatmulKernel::pairs_gemm : MatmulKernel::fma_gemm;
  const MatmulKernel tiles_gemm = matmul_detail::amx_usable() ? MatmulKernel::tiles_gemm : MatmulKernel::fma_gemm;
  const MatmulKernel pairs_matvec = vdpbf16ps ? MatmulKernel::pairs_matvec : MatmulKernel::fma_matvec;
  for (const MatmulSummation s : kSummations) {
    EXPECT_EQ((matmul_path<E4M3, E4M3, BF16>(64, 64, 64, s)), MatmulKernel::scalar_accumulator);
    EXPECT_EQ((matmul_path<E4M3, E4M3>(0, 64, 64, s)), MatmulKernel::none);
    EXPECT_EQ((matmul_path<E4M3, E4M3>(64, 0, 64, s)), MatmulKernel::none);
    // FP16 values have 11 significant bits: never pairs.
    EXPECT_EQ((matmul_path<FP16, FP16>(64, 64, 64, s)), MatmulKernel::fma_gemm);
    EXPECT_EQ((matmul_path<E4M3, FP16>(1, 64, 64, s)), MatmulKernel::fma_matvec);
    // An empty sum is +0 by the FMA kernels.
    EXPECT_EQ((matmul_path<E4M3, E4M3>(64, 64, 0, s)), MatmulKernel::fma_gemm);
  }
  EXPECT_EQ((matmul_path<E4M3, E4M3>(2, 64, 64, MatmulSummation::in_order)), MatmulKernel::fma_gemm);
  EXPECT_EQ((matmul_path<E4M3, E4M3>(1, 64, 64, MatmulSummation::in_order)), MatmulKernel::fma_matvec);
  EXPECT_EQ((matmul_path<E4M3, E4M3>(2, 64, 64, MatmulSummation::pairs)), pairs_gemm);
  EXPECT_EQ((matmul_path<E5M2, E2M1>(1, 64, 63, MatmulSummation::pairs)), pairs_matvec);
  // BF16 qualifies by its values, which matmul_path does not see: it answers for values
  // that fit. The matrix-vector pairs loop reads one-byte codes of B only.
  EXPECT_EQ((matmul_path<BF16, BF16>(2, 64, 64, MatmulSummation::pairs)), pairs_gemm);
  EXPECT_EQ((matmul_path<E4M3, BF16>(1, 64, 64, MatmulSummation::pairs)), MatmulKernel::fma_matvec);
  // E4M3FNUZ's 0x80 is NaN, not -0: bit 7 is no sign, so the byte tables do not apply.
  EXPECT_EQ((matmul_path<E4M3, E4M3FNUZ>(1, 64, 64, MatmulSummation::pairs)), MatmulKernel::fma_matvec);
  EXPECT_EQ((matmul_path<E4M3, E4M3FNUZ>(2, 64, 64, MatmulSummation::pairs)), pairs_gemm);
  // Tiles: GEMM shapes of formats the pairs rule admits; the matrix-vector shape keeps
  // the in-order chain.
  EXPECT_EQ((matmul_path<E4M3, E4M3>(2, 64, 64, MatmulSummation::tiles)), tiles_gemm);
  EXPECT_EQ((matmul_path<BF16, E2M1>(64, 3, 7, MatmulSummation::tiles)), tiles_gemm);
  EXPECT_EQ((matmul_path<E4M3, E4M3>(1, 64, 64, MatmulSummation::tiles)), MatmulKernel::fma_matvec);
  // The tiles split one operand of up to 24 significant bits into bf16 pieces, for k >=
  // 32 and an other operand without infinities (E5M2 has them); never both operands,
  // and the pairs kernels never.
  EXPECT_EQ((matmul_path<FP32, E4M3>(64, 64, 64, MatmulSummation::tiles)), tiles_gemm);
  EXPECT_EQ((matmul_path<E2M1, FP32>(64, 64, 32, MatmulSummation::tiles)), tiles_gemm);
  EXPECT_EQ((matmul_path<FP16, E4M3>(64, 64, 64, MatmulSummation::tiles)), tiles_gemm);
  EXPECT_EQ((matmul_path<FP32, E4M3>(64, 64, 31, MatmulSummation::tiles)), MatmulKernel::fma_gemm);
  EXPECT_EQ((matmul_path<FP32, E5M2>(64, 64, 64, MatmulSummation::tiles)), MatmulKernel::fma_gemm);
  EXPECT_EQ((matmul_path<FP32, FP32>(64, 64, 64, MatmulSummation::tiles)), MatmulKernel::fma_gemm);
  EXPECT_EQ((matmul_path<FP32, FP16>(64, 64, 64, MatmulSummation::tiles)), MatmulKernel::fma_gemm);
  EXPECT_EQ((matmul_path<FP32, E4M3>(64, 64, 64, MatmulSummation::pairs)), MatmulKernel::fma_gemm);
  // The default summation is the process-wide setting.
  {
    const ScopedSummation in_order(MatmulSummation::in_order);
    EXPECT_EQ((matmul_path<E4M3, E4M3>(2, 64, 64)), MatmulKernel::fma_gemm);
    EXPECT_EQ(matmul_path(E4M3::format, E4M3::format, 2, 64, 64), MatmulKernel::fma_gemm);
  }
  {
    const ScopedSummation pairs(MatmulSummation::pairs);
    EXPECT_EQ((matmul_path<E4M3, E4M3>(2, 64, 64)), pairs_gemm);
  }
}

TEST(MatmulPath, NamesAndErrors) {
  EXPECT_EQ(matmul_kernel_name(MatmulKernel::none), "none");
  EXPECT_EQ(matmul_kernel_name(MatmulKernel::fma_gemm), "fma gemm");
  EXPECT_EQ(matmul_kernel_name(MatmulKernel::pairs_gemm), "vdpbf16ps pairs gemm");
  EXPECT_EQ(matmul_kernel_name(MatmulKernel::fma_matvec), "fma matvec");
  EXPECT_EQ(matmul_kernel_name(MatmulKernel::pairs_matvec), "vdpbf16ps pairs matvec");
  EXPECT_EQ(matmul_kernel_name(MatmulKernel::tiles_gemm), "amx tiles gemm");
  EXPECT_EQ(matmul_kernel_name(MatmulKernel::scalar_accumulator), "scalar accumulator");
  EXPECT_THROW(matmul_kernel_name(static_cast<MatmulKernel>(99)), std::invalid_argument);
  const Format invalid{0, 3, 1};
  EXPECT_THROW(matmul_path(invalid, E4M3::format, 2, 2, 2), std::invalid_argument);
  EXPECT_THROW(matmul_path(E4M3::format, E4M3::format, 2, 2, 2, invalid), std::invalid_argument);
  EXPECT_THROW(matmul_path(Format{11, 52, 1023}, E4M3::format, 2, 2, 2), std::invalid_argument);  // 64-bit codes
  EXPECT_THROW(matmul_path(E4M3::format, E4M3::format, 2, 2, 2, binary32_format, static_cast<MatmulSummation>(5)),
               std::invalid_argument);
  EXPECT_THROW(set_matmul_summation(static_cast<MatmulSummation>(7)), std::invalid_argument);
}

template <class F>
detail::MatmulOperand operand(const Codes<F>& codes, std::size_t ld) {
  return detail::MatmulOperand{codes.data(), sizeof(typename F::storage_type), F::format, ld};
}

// The kernel matmul_path names, called directly on the same operands.
template <class FA, class FB>
std::vector<float> run_kernel(MatmulKernel kernel, const Codes<FA>& a, const Codes<FB>& b, const Shape& s) {
  const matmul_detail::CodeMatrix am(operand<FA>(a, s.k)), bm(operand<FB>(b, s.n));
  std::vector<float> c(s.m * s.n, -1.0f);
  switch (kernel) {
    case MatmulKernel::pairs_gemm: matmul_detail::gemm_bf16_dot(am, bm, c.data(), s.n, s.m, s.n, s.k); break;
    case MatmulKernel::fma_gemm: matmul_detail::gemm_fp32(am, bm, c.data(), s.n, s.m, s.n, s.k); break;
    case MatmulKernel::tiles_gemm: {
      // Formats of more than 8 significant bits are split into bf16 pieces (amx_gemm.hpp).
      const auto pieces = [](const Format& f, std::size_t bytes) { return bytes == 1 ? 1 : (f.mantissa_bits + 8) / 8; };
      matmul_detail::gemm_amx(am, bm, c.data(), s.n, s.m, s.n, s.k, pieces(FA::format, sizeof(a[0])),
                              pieces(FB::format, sizeof(b[0])));
      break;
    }
    case MatmulKernel::fma_matvec:
    case MatmulKernel::pairs_matvec:
      matmul_detail::matvec_fp32(am, bm, c.data(), s.n, s.k, kernel == MatmulKernel::pairs_matvec);
      break;
    default: ADD_FAILURE() << "unexpected kernel " << matmul_kernel_name(kernel);
  }
  return c;
}

template <class FA, class FB>
void check_named_kernel_runs(const Shape& s, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  const Codes<FA> a = random_codes<FA>(s.m * s.k, rng);
  const Codes<FB> b = random_codes<FB>(s.k * s.n, rng);
  for (const MatmulSummation summation : kSummations) {
    const MatmulKernel kernel = matmul_path<FA, FB>(s.m, s.n, s.k, summation);
    const std::string what = format_name(FA::format) + " x " + format_name(FB::format) + " " +
                             std::to_string(s.m) + "x" + std::to_string(s.n) + "x" + std::to_string(s.k) + ", " +
                             name_of(summation) + ": " + std::string(matmul_kernel_name(kernel));
    std::printf("%s\n", what.c_str());
    std::vector<float> c(s.m * s.n, -1.0f);
    matmul<FA, FB>(a.data(), b.data(), c.data(), s.m, s.n, s.k, summation);
    EXPECT_EQ(count_differences(c, run_kernel<FA, FB>(kernel, a, b, s), what), 0u) << what;
  }
}

TEST(MatmulPath, NamesTheKernelThatRuns) {
  check_named_kernel_runs<E4M3, E4M3>({48, 80, 700}, 1);
  check_named_kernel_runs<BF16, BF16>({30, 70, 500}, 2);
  check_named_kernel_runs<E4M3, E4M3>({1, 300, 999}, 3);
  check_named_kernel_runs<E5M2, FP16>({20, 40, 60}, 4);
  // The tiles split FP32 (three pieces) or FP16 (two) against a one-byte operand.
  check_named_kernel_runs<FP32, E4M3>({40, 70, 300}, 5);
  check_named_kernel_runs<E4M3, FP16>({40, 50, 200}, 6);
}

}  // namespace
}  // namespace softfloat::matmul_test
