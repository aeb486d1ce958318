// What this CPU can do, read once per process, and the ceiling SOFTFLOAT_MAX_ISA puts on it.
//
// Every kernel choice of the library reads cpu_features(): Highway's targets, the F16C and
// AVX512-BF16 conversion shortcuts, the vdpbf16ps pairs kernels, AVX512-VNNI and the AMX
// tiles. The first call queries the CPU (cpuid, xgetbv, the kernel's AMX permission via
// arch_prctl) and the environment (SOFTFLOAT_MAX_ISA); no later call queries anything, so a
// conversion of 16 values pays no VM exit under a hypervisor (a cpuid there costs about
// 13 us). The queries are counted (capability_queries()), so that a test can show none
// happen on a per-call path.
//
// SOFTFLOAT_MAX_ISA, like oneDNN's ONEDNN_MAX_CPU_ISA, caps what is used, for users and for
// tests: with SOFTFLOAT_MAX_ISA=avx2 any x86 machine runs exactly what an AVX2-only machine
// runs (Highway's AVX-512 targets are disabled as well as the raw-intrinsic kernels).
//   sse4         SSE4 only: Highway's SSE4 target and the scalar kernels
//   avx2         + AVX2, FMA and F16C (Haswell, Zen 3)
//   avx512       + AVX-512 F/BW/DQ/VL/CD (Skylake-SP): Highway's AVX3
//   avx512_bf16  + AVX512-BF16, VBMI and VNNI (Cooper Lake, Zen 4): AVX3_DL, AVX3_ZEN4
//   amx          + AMX tiles and AVX512-FP16 (Sapphire Rapids): everything, AVX3_SPR
//                included; the same as leaving it unset
// An unknown value stops the process at load (exit status 2) with a message naming the
// accepted ones: a misspelt ceiling must not silently test the wrong kernels.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace softfloat::detail {

struct CpuFeatures {
  // cpuid's identity: reported (matmul_path, the benchmarks), never a kernel key alone.
  std::string vendor;  // "GenuineIntel", "AuthenticAMD"; "" off x86
  unsigned family = 0;  // base family, plus the extended family when the base is 0xF
  unsigned model = 0;   // base model, plus the extended model << 4 for families 6 and >= 0xF

  // Each usable: the CPU has it and the OS saves its registers (XCR0).
  bool avx2 = false;         // AVX2 and FMA (Highway's AVX2 target)
  bool f16c = false;         // vcvtps2ph / vcvtph2ps
  bool avx512 = false;       // F, BW, DQ, VL and CD (Highway's AVX3)
  bool avx512_vnni = false;  // vpdpbusd
  bool avx512_vbmi = false;  // vpermb (the pairs kernels' byte tables)
  bool avx512_bf16 = false;  // vdpbf16ps, vcvtneps2bf16
  bool avx512_fp16 = false;  // not used by a kernel yet; part of the amx level
  bool amx_bf16 = false;     // TDPBF16PS: the CPU, XCR0's tile state and the kernel's permission
  bool amx_int8 = false;     // TDPBSSD, with amx_bf16's conditions
  bool neon = false;         // aarch64's baseline
};

enum class IsaCeiling { sse4, avx2, avx512, avx512_bf16, amx };

// SOFTFLOAT_MAX_ISA's value: nullopt for "" (no ceiling); throws std::invalid_argument
// naming the accepted values for anything else.
std::optional<IsaCeiling> parse_isa_ceiling(std::string_view text);

// `features` with everything above `ceiling` turned off (pure: the unit tests give it
// synthetic capability sets).
CpuFeatures capped(CpuFeatures features, IsaCeiling ceiling);

// Highway's targets above `ceiling` (a mask of HWY_* bits of the targets compiled here),
// which hwy::DisableTargets turns off.
std::int64_t highway_targets_above(IsaCeiling ceiling);

// This process's features under SOFTFLOAT_MAX_ISA: the first call queries, every later call
// returns the same object. Applies the ceiling to Highway's dispatch too.
const CpuFeatures& cpu_features();

// The ceiling in force ("" when none), as SOFTFLOAT_MAX_ISA gave it.
std::string_view isa_ceiling_name();

// How many times the library has queried the CPU or the environment for its capabilities:
// one per cpuid leaf, xgetbv, arch_prctl and getenv. A test counts them across many calls.
std::uint64_t capability_queries();

}  // namespace softfloat::detail
