// AMX tiles (Intel Sapphire Rapids and later): whether this process may use them, and
// the tile configuration of the matmul kernels.
//
// Using the tiles takes three things: the CPU reports AMX-TILE and AMX-BF16 (cpuid
// leaf 7), the operating system saves the tile state (XCR0 bits 17 and 18), and, on
// Linux, the process has asked for the tile data's 8 KiB of signal-frame space once
// (arch_prctl(ARCH_REQ_XCOMP_PERM, XFEATURE_XTILEDATA)); without that request the
// first tile instruction faults. amx_usable() checks all three, asking once per
// process; when any is missing, the callers fall back to the next-fastest kernel.
#pragma once

#include <cstddef>

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__)) && defined(__linux__)
#define SOFTFLOAT_HAVE_AMX 1
#include <immintrin.h>
// Functions using the tile instructions are compiled for them alone, so that the rest
// of the library runs on any x86-64; callers check amx_usable() first.
#define SOFTFLOAT_AMX_TARGET __attribute__((target("amx-tile,amx-bf16,amx-int8")))
#else
#define SOFTFLOAT_HAVE_AMX 0
#endif

namespace softfloat::matmul_detail {

// The CPU has the tiles, the system saves them, and the permission was granted.
bool amx_usable();

// amx_usable() and the CPU also has AMX-INT8 (TDPBSSD and its kin).
bool amx_int8_usable();

// For tests of the fallback: while a ScopedAmxRefusal lives, amx_usable() answers
// false, as on a CPU or system without the tiles. Not for concurrent use with calls
// that might take the tile kernel.
class ScopedAmxRefusal {
 public:
  ScopedAmxRefusal();
  ~ScopedAmxRefusal();
  ScopedAmxRefusal(const ScopedAmxRefusal&) = delete;
  ScopedAmxRefusal& operator=(const ScopedAmxRefusal&) = delete;
};

// How a kernel shapes the eight tiles.
enum class TileLayout {
  // Every tile 16 rows of 64 bytes (16 fp32 sums, 32 bf16 or 64 int8 values a row):
  // the bf16 GEMM (gemm_amx.cpp).
  full,
  // The MX block kernel (mx_matmul_amx.cpp): tiles 0-3 hold 16 x 16 int32 sums (16
  // rows of 64 bytes); tiles 4-5 hold 16 rows of A's one block (32 int8, 32 bytes);
  // tiles 6-7 hold 16 columns of B's block as 8 rows of 16 x 4 int8 (64 bytes), so
  // that TDPBSSD sums exactly one 32-value block, never two.
  mx_block,
};

// The tiles configured on the calling thread in `layout` for the object's lifetime and
// released after (TILERELEASE returns the tile state to its initial one, so the kernel
// stops saving 8 KiB on each context switch).
class TileSession {
 public:
  explicit TileSession(TileLayout layout);
  ~TileSession();
  TileSession(const TileSession&) = delete;
  TileSession& operator=(const TileSession&) = delete;
};

inline constexpr std::size_t kTileRows = 16;
inline constexpr std::size_t kTileRowBytes = 64;

}  // namespace softfloat::matmul_detail
