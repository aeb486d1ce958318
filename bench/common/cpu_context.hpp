// What a benchmark's JSON says about the machine, so that a table made from it
// (scripts/bench_report.py, docs/performance/) names the CPU it was measured on: the
// model string as /proc/cpuinfo has it, cpuid's vendor, family and model, the
// capabilities the library uses there (runtime/cpu_features.hpp) and SOFTFLOAT_MAX_ISA.
// Google Benchmark adds these to its "context"; a benchmark includes this header once,
// and the static registration below runs before main().
#pragma once

#include <benchmark/benchmark.h>

#include <fstream>
#include <string>

#include "runtime/cpu_features.hpp"

namespace softfloat::bench_support {

inline std::string cpu_model_string() {
  std::ifstream cpuinfo("/proc/cpuinfo");
  for (std::string line; std::getline(cpuinfo, line);)
    if (line.rfind("model name", 0) == 0 && line.find(':') != std::string::npos)
      return line.substr(line.find(':') + 2);
  return "unknown";
}

inline std::string capability_list(const detail::CpuFeatures& f) {
  std::string list;
  const std::pair<const char*, bool> each[] = {
      {"avx2", f.avx2},       {"f16c", f.f16c},         {"avx512", f.avx512},         {"avx512_vnni", f.avx512_vnni},
      {"avx512_vbmi", f.avx512_vbmi}, {"avx512_bf16", f.avx512_bf16}, {"avx512_fp16", f.avx512_fp16},
      {"amx_bf16", f.amx_bf16}, {"amx_int8", f.amx_int8}, {"neon", f.neon}};
  for (const auto& [name, on] : each)
    if (on) (list += list.empty() ? "" : " ") += name;
  return list.empty() ? "none" : list;
}

inline bool add_cpu_context() {
  const detail::CpuFeatures& f = detail::cpu_features();
  benchmark::AddCustomContext("cpu_model", cpu_model_string());
  benchmark::AddCustomContext("cpuid_vendor", f.vendor.empty() ? "none" : f.vendor);
  benchmark::AddCustomContext("cpuid_family", std::to_string(f.family));
  benchmark::AddCustomContext("cpuid_model", std::to_string(f.model));
  benchmark::AddCustomContext("capabilities", capability_list(f));
  const std::string ceiling(detail::isa_ceiling_name());
  benchmark::AddCustomContext("softfloat_max_isa", ceiling.empty() ? "unset" : ceiling);
  return true;
}

inline const bool cpu_context_added = add_cpu_context();

}  // namespace softfloat::bench_support
