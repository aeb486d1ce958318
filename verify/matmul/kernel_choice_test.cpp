// Which kernel a matmul call takes (softfloat/matmul_path.hpp):
//   - the table behind MatmulSummation::fastest, row by row, on made-up CPU identities;
//   - this CPU's decision: the AMX tile GEMM on a Sapphire / Emerald Rapids Xeon that
//     can run it, else the FMA GEMM on an Intel with AVX512-BF16 (vdpbf16ps is no
//     faster than FMA there), the pairs GEMM on AMD Zen 4 / Zen 5, printed elsewhere;
//   - matmul_path() for each kind of call (accumulator, shape, summation, formats that
//     the pairs rule refuses), its names, and its errors;
//   - matmul_path() names the kernel that actually runs: matmul's result equals that
//     kernel's, called directly, in every summation.
// No timing anywhere: the table is a lookup.
#include <gtest/gtest.h>

#include <cstdio>
#include <random>
#include <string>
#include <vector>

#include "matmul/amx_gemm.hpp"
#include "matmul/amx_tiles.hpp"
#include "matmul/bf16_dot.hpp"
#include "matmul/code_matrix.hpp"
#include "matmul/kernel_table.hpp"
#include "matmul/paths.hpp"
#include "softfloat/softfloat.hpp"
#include "verify/matmul/matmul_test_support.hpp"

namespace softfloat::matmul_test {
namespace {

using matmul_detail::CpuIdentity;
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

TEST(KernelTable, RowsByCpuIdentity) {
  const auto check = [](const CpuIdentity& cpu, bool gemm, bool matvec, bool tiles = false) {
    const auto kernels = fastest_kernels(cpu);
    EXPECT_EQ(kernels.pairs_gemm, gemm) << cpu.vendor << " family " << cpu.family << " model " << cpu.model;
    EXPECT_EQ(kernels.pairs_matvec, matvec) << cpu.vendor << " family " << cpu.family << " model " << cpu.model;
    EXPECT_EQ(kernels.tiles_gemm, tiles) << cpu.vendor << " family " << cpu.family << " model " << cpu.model;
  };
  // Sapphire Rapids (143) and Emerald Rapids (207): the tile GEMM where AMX runs, else
  // the FMA GEMM; pairs matrix-vector.
  check({"GenuineIntel", 6, 143, true, true}, false, true, true);
  check({"GenuineIntel", 6, 207, true, true}, false, true, true);
  check({"GenuineIntel", 6, 143, true, false}, false, true, false);
  check({"GenuineIntel", 6, 207, false, true}, false, false, true);
  // Another Intel with AVX512-BF16 (Cooper Lake, 85): not measured, FMA throughout.
  check({"GenuineIntel", 6, 85, true}, false, false);
  // Zen 4 (family 0x19, e.g. EPYC Genoa model 0x11) and Zen 5 (0x1A): pairs throughout.
  check({"AuthenticAMD", 0x19, 0x11, true}, true, true);
  check({"AuthenticAMD", 0x19, 0x61, true}, true, true);
  check({"AuthenticAMD", 0x1A, 0x02, true}, true, true);
  // Zen 2 (0x17), an unknown vendor: FMA.
  check({"AuthenticAMD", 0x17, 0x31, true}, false, false);
  check({"HygonGenuine", 0x18, 0, true}, false, false);
  // Without the instructions no row applies (Zen 3 is family 0x19 too); AMX alone
  // does not make a CPU the table does not name take the tiles.
  check({"AuthenticAMD", 0x19, 0x01, false}, false, false);
  check({"GenuineIntel", 6, 143, false}, false, false);
  check({"GenuineIntel", 6, 85, true, true}, false, false, false);
}

TEST(KernelTable, ThisCpusDecision) {
  const CpuIdentity& cpu = matmul_detail::this_cpu();
  const MatmulKernel gemm = matmul_path<E4M3, E4M3>(1024, 1024, 1024, MatmulSummation::fastest);
  const MatmulKernel matvec = matmul_path<E4M3, E4M3>(1, 8192, 8192, MatmulSummation::fastest);
  std::printf(
      "this CPU: %s family %u (0x%X) model %u, vdpbf16ps kernels %s, AMX tiles %s; fastest takes %s and %s\n",
      cpu.vendor.c_str(), cpu.family, cpu.family, cpu.model, cpu.bf16_dot ? "available" : "unavailable",
      cpu.amx ? "available" : "unavailable", std::string(matmul_kernel_name(gemm)).c_str(),
      std::string(matmul_kernel_name(matvec)).c_str());
  EXPECT_EQ(cpu.bf16_dot, matmul_detail::bf16_dot_supported());
  EXPECT_EQ(cpu.amx, matmul_detail::amx_usable());
  const bool rapids = cpu.vendor == "GenuineIntel" && cpu.family == 6 && (cpu.model == 143 || cpu.model == 207);
  if (rapids && cpu.amx) {
    EXPECT_EQ(gemm, MatmulKernel::tiles_gemm);
    EXPECT_EQ((matmul_path<BF16, BF16>(1024, 1024, 1024, MatmulSummation::fastest)), MatmulKernel::tiles_gemm);
  } else if (!cpu.bf16_dot) {
    EXPECT_EQ(gemm, MatmulKernel::fma_gemm);
    EXPECT_EQ(matvec, MatmulKernel::fma_matvec);
  } else if (cpu.vendor == "GenuineIntel") {
    EXPECT_EQ(gemm, MatmulKernel::fma_gemm);
    EXPECT_EQ((matmul_path<BF16, BF16>(1024, 1024, 1024, MatmulSummation::fastest)), MatmulKernel::fma_gemm);
  } else if (cpu.vendor == "AuthenticAMD" && (cpu.family == 0x19 || cpu.family == 0x1A)) {
    EXPECT_EQ(gemm, MatmulKernel::pairs_gemm);
    EXPECT_EQ(matvec, MatmulKernel::pairs_matvec);
  } else {
    std::printf("this CPU has no row of its own in the table: the FMA kernels\n");
    EXPECT_EQ(gemm, MatmulKernel::fma_gemm);
  }
  // fastest is the table's row, whatever the CPU.
  const auto row = fastest_kernels(cpu);
  EXPECT_EQ(gemm, row.tiles_gemm   ? MatmulKernel::tiles_gemm
                  : row.pairs_gemm ? MatmulKernel::pairs_gemm
                                   : MatmulKernel::fma_gemm);
  EXPECT_EQ(matvec, row.pairs_matvec ? MatmulKernel::pairs_matvec : MatmulKernel::fma_matvec);
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
    case MatmulKernel::tiles_gemm: matmul_detail::gemm_amx(am, bm, c.data(), s.n, s.m, s.n, s.k); break;
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
}

}  // namespace
}  // namespace softfloat::matmul_test
