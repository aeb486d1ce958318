// cpu_features(): the CPU's capabilities, read once, under SOFTFLOAT_MAX_ISA (cpu_features.hpp).
#include "runtime/cpu_features.hpp"

#include <hwy/targets.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <stdexcept>

#include "softfloat/escape.hpp"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define SOFTFLOAT_READ_X86_FEATURES 1
#include <cpuid.h>
#if defined(__linux__)
#include <sys/syscall.h>
#include <unistd.h>
#endif
#else
#define SOFTFLOAT_READ_X86_FEATURES 0
#endif

namespace softfloat::detail {

namespace {

std::atomic<std::uint64_t> queries{0};

struct CeilingName {
  const char* name;
  IsaCeiling ceiling;
};
constexpr CeilingName kCeilingNames[] = {{"sse4", IsaCeiling::sse4},
                                         {"avx2", IsaCeiling::avx2},
                                         {"avx512", IsaCeiling::avx512},
                                         {"avx512_bf16", IsaCeiling::avx512_bf16},
                                         {"amx", IsaCeiling::amx}};

#if SOFTFLOAT_READ_X86_FEATURES
struct CpuidLeaf {
  unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;
};

CpuidLeaf cpuid(unsigned leaf, unsigned subleaf) {
  queries.fetch_add(1, std::memory_order_relaxed);
  CpuidLeaf r;
  if (__get_cpuid_count(leaf, subleaf, &r.eax, &r.ebx, &r.ecx, &r.edx) == 0) return {};
  return r;
}

bool bit(unsigned word, int position) { return ((word >> position) & 1) != 0; }

// XCR0: which register states the OS saves on a context switch (SSE 1, AVX 2, the AVX-512
// opmask and upper halves 5-7, AMX's tile configuration and data 17-18).
std::uint64_t xcr0() {
  queries.fetch_add(1, std::memory_order_relaxed);
  std::uint32_t low = 0, high = 0;
  __asm__ volatile("xgetbv" : "=a"(low), "=d"(high) : "c"(0));
  return (static_cast<std::uint64_t>(high) << 32) | low;
}

// Linux grants AMX's tile data (XSAVE feature 18) to a process only on request.
bool amx_permission_granted() {
#if defined(__linux__)
  constexpr long kArchGetXcompPerm = 0x1022, kArchReqXcompPerm = 0x1023, kXfeatureTileData = 18;
  queries.fetch_add(2, std::memory_order_relaxed);
  if (syscall(SYS_arch_prctl, kArchReqXcompPerm, kXfeatureTileData) != 0) return false;
  unsigned long granted = 0;
  return syscall(SYS_arch_prctl, kArchGetXcompPerm, &granted) == 0 && ((granted >> kXfeatureTileData) & 1);
#else
  return false;
#endif
}

CpuFeatures read_cpu() {
  CpuFeatures f;
  const CpuidLeaf leaf0 = cpuid(0, 0);
  char vendor[13] = {};
  std::memcpy(vendor, &leaf0.ebx, 4);
  std::memcpy(vendor + 4, &leaf0.edx, 4);
  std::memcpy(vendor + 8, &leaf0.ecx, 4);
  f.vendor = vendor;
  const CpuidLeaf leaf1 = cpuid(1, 0);
  const unsigned base_family = (leaf1.eax >> 8) & 0xF, base_model = (leaf1.eax >> 4) & 0xF;
  f.family = base_family == 0xF ? base_family + ((leaf1.eax >> 20) & 0xFF) : base_family;
  f.model = base_family == 6 || base_family == 0xF ? base_model + (((leaf1.eax >> 16) & 0xF) << 4) : base_model;
  if (!bit(leaf1.ecx, 27) || leaf0.eax < 7) return f;  // no OSXSAVE, or no leaf 7: SSE only
  const std::uint64_t saved = xcr0();
  const bool avx_state = (saved & 0b110) == 0b110, avx512_state = (saved & 0b1110'0000) == 0b1110'0000;
  const bool tile_state = (saved & (3u << 17)) == (3u << 17);
  const CpuidLeaf leaf7 = cpuid(7, 0), leaf7_1 = cpuid(7, 1);
  // Leaf 1 ECX: 12 FMA, 28 AVX, 29 F16C. Leaf 7 EBX: 5 AVX2, 16 AVX512F, 17 DQ, 28 CD,
  // 30 BW, 31 VL; ECX: 1 VBMI, 11 VNNI; EDX: 22 AMX-BF16, 23 AVX512-FP16, 24 AMX-TILE,
  // 25 AMX-INT8. Leaf 7 subleaf 1 EAX: 5 AVX512-BF16.
  f.avx2 = avx_state && bit(leaf1.ecx, 28) && bit(leaf1.ecx, 12) && bit(leaf7.ebx, 5);
  f.f16c = avx_state && bit(leaf1.ecx, 29);
  f.avx512 = f.avx2 && avx512_state && bit(leaf7.ebx, 16) && bit(leaf7.ebx, 17) && bit(leaf7.ebx, 28) &&
             bit(leaf7.ebx, 30) && bit(leaf7.ebx, 31);
  f.avx512_vnni = f.avx512 && bit(leaf7.ecx, 11);
  f.avx512_vbmi = f.avx512 && bit(leaf7.ecx, 1);
  f.avx512_bf16 = f.avx512 && bit(leaf7_1.eax, 5);
  f.avx512_fp16 = f.avx512 && bit(leaf7.edx, 23);
  if (tile_state && bit(leaf7.edx, 24) && bit(leaf7.edx, 22) && amx_permission_granted()) {
    f.amx_bf16 = true;
    f.amx_int8 = bit(leaf7.edx, 25);
  }
  return f;
}
#else
CpuFeatures read_cpu() {
  CpuFeatures f;
#if defined(__aarch64__)
  f.neon = true;  // aarch64's baseline
#endif
  return f;
}
#endif

std::optional<IsaCeiling> read_ceiling() {
  queries.fetch_add(1, std::memory_order_relaxed);
  const char* value = std::getenv("SOFTFLOAT_MAX_ISA");
  return parse_isa_ceiling(value ? value : "");
}

struct ProcessFeatures {
  CpuFeatures features;
  std::string_view ceiling_name;
};

ProcessFeatures read_process_features() {
  const std::optional<IsaCeiling> ceiling = read_ceiling();
  CpuFeatures features = read_cpu();
  if (!ceiling) return {features, ""};
  // Highway's own dispatch obeys the same ceiling. A target the CPU lacks is never chosen
  // anyway, so disabling it changes nothing there.
  if (const std::int64_t above = highway_targets_above(*ceiling); above != 0) hwy::DisableTargets(above);
  for (const CeilingName& each : kCeilingNames)
    if (each.ceiling == *ceiling) return {capped(features, *ceiling), each.name};
  return {capped(features, *ceiling), ""};
}

const ProcessFeatures& process_features() {
  static const ProcessFeatures features = read_process_features();
  return features;
}

// Read at load, so that the ceiling holds before the first Highway dispatch of any
// translation unit (HWY_DYNAMIC_DISPATCH reads the chosen target on every call, and
// DisableTargets updates it). A bad SOFTFLOAT_MAX_ISA cannot be reported to a caller this
// early: the process stops, with the message and exit status 2 (a usage error), instead
// of running other kernels than asked.
const bool read_at_load = [] {
  try {
    process_features();
  } catch (const std::exception& error) {
    std::fprintf(stderr, "softfloat: %s\n", error.what());
    std::_Exit(2);
  }
  return true;
}();

}  // namespace

std::optional<IsaCeiling> parse_isa_ceiling(std::string_view text) {
  if (text.empty()) return std::nullopt;
  std::string accepted;
  for (const CeilingName& each : kCeilingNames) {
    if (text == each.name) return each.ceiling;
    (accepted += accepted.empty() ? "" : ", ") += each.name;
  }
  throw std::invalid_argument("SOFTFLOAT_MAX_ISA='" + escape_unprintable(text) + "' is not a ceiling; expected one of " + accepted +
                              " (or unset)");
}

CpuFeatures capped(CpuFeatures f, IsaCeiling ceiling) {
  if (ceiling < IsaCeiling::amx) f.amx_bf16 = f.amx_int8 = f.avx512_fp16 = false;
  if (ceiling < IsaCeiling::avx512_bf16) f.avx512_bf16 = f.avx512_vbmi = f.avx512_vnni = false;
  if (ceiling < IsaCeiling::avx512) f.avx512 = false;
  if (ceiling < IsaCeiling::avx2) f.avx2 = f.f16c = false;
  return f;
}

std::int64_t highway_targets_above(IsaCeiling ceiling) {
  std::int64_t above = 0;
#if defined(HWY_AVX3_SPR)
  if (ceiling < IsaCeiling::amx) above |= HWY_AVX3_SPR;
#endif
#if defined(HWY_AVX3_ZEN4)
  if (ceiling < IsaCeiling::avx512_bf16) above |= HWY_AVX3_ZEN4;
#endif
  if (ceiling < IsaCeiling::avx512_bf16) above |= HWY_AVX3_DL;
  if (ceiling < IsaCeiling::avx512) above |= HWY_AVX3;
  if (ceiling < IsaCeiling::avx2) above |= HWY_AVX2;
  return above;
}

const CpuFeatures& cpu_features() { return process_features().features; }

std::string_view isa_ceiling_name() { return process_features().ceiling_name; }

std::uint64_t capability_queries() { return queries.load(std::memory_order_relaxed); }

}  // namespace softfloat::detail
