// amx_usable() and the tile configuration (amx_tiles.hpp).
#include "matmul/amx_tiles.hpp"

#include <atomic>
#include <cstdint>

#if SOFTFLOAT_HAVE_AMX
#include <cpuid.h>
#include <sys/syscall.h>
#include <unistd.h>
#endif

namespace softfloat::matmul_detail {

namespace {

std::atomic<int> refusals{0};

#if SOFTFLOAT_HAVE_AMX
// Linux's arch_prctl codes (asm/prctl.h) and the tile data's XSAVE feature number.
constexpr long kArchGetXcompPerm = 0x1022;
constexpr long kArchReqXcompPerm = 0x1023;
constexpr long kXfeatureTileData = 18;

// cpuid leaf 7's EDX, where the AMX bits are (22 AMX-BF16, 24 AMX-TILE, 25
// AMX-INT8); 0 where the leaf is missing.
unsigned leaf7_edx() {
  unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;
  return __get_cpuid_count(7, 0, &eax, &ebx, &ecx, &edx) != 0 ? edx : 0;
}

bool cpu_has_tiles() {
  const unsigned features = leaf7_edx();
  const bool amx_bf16 = (features >> 22) & 1, amx_tile = (features >> 24) & 1;
  if (!amx_bf16 || !amx_tile) return false;
  // OSXSAVE, then the system's XCR0: tile configuration (bit 17) and data (bit 18).
  unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;
  if (__get_cpuid(1, &eax, &ebx, &ecx, &edx) == 0 || !((ecx >> 27) & 1)) return false;
  std::uint32_t xcr0_low = 0, xcr0_high = 0;
  __asm__ volatile("xgetbv" : "=a"(xcr0_low), "=d"(xcr0_high) : "c"(0));
  return (xcr0_low & (3u << 17)) == (3u << 17);
}

bool permission_granted() {
  if (syscall(SYS_arch_prctl, kArchReqXcompPerm, kXfeatureTileData) != 0) return false;
  unsigned long features = 0;
  return syscall(SYS_arch_prctl, kArchGetXcompPerm, &features) == 0 && ((features >> kXfeatureTileData) & 1);
}

// The 64-byte operand of LDTILECFG: palette 1, then each tile's bytes per row and rows.
struct alignas(64) TileConfiguration {
  std::uint8_t palette = 1;
  std::uint8_t start_row = 0;
  std::uint8_t reserved[14] = {};
  std::uint16_t bytes_per_row[16] = {};
  std::uint8_t rows[16] = {};
};

TileConfiguration full_tiles() {
  TileConfiguration configuration;
  for (int tile = 0; tile < 8; ++tile) {
    configuration.bytes_per_row[tile] = kTileRowBytes;
    configuration.rows[tile] = kTileRows;
  }
  return configuration;
}

TileConfiguration mx_block_tiles() {
  TileConfiguration configuration;
  for (int tile = 0; tile < 8; ++tile) {
    configuration.bytes_per_row[tile] = tile < 4 ? kTileRowBytes : tile < 6 ? 32 : kTileRowBytes;
    configuration.rows[tile] = tile < 6 ? kTileRows : 8;
  }
  return configuration;
}

SOFTFLOAT_AMX_TARGET void load_configuration(TileLayout layout) {
  static const TileConfiguration full = full_tiles(), mx_block = mx_block_tiles();
  _tile_loadconfig(layout == TileLayout::full ? &full : &mx_block);
}
SOFTFLOAT_AMX_TARGET void release_tiles() { _tile_release(); }
#endif

}  // namespace

bool amx_usable() {
#if SOFTFLOAT_HAVE_AMX
  static const bool usable = cpu_has_tiles() && permission_granted();
  return usable && refusals.load() == 0;
#else
  return false;
#endif
}

bool amx_int8_usable() {
#if SOFTFLOAT_HAVE_AMX
  static const bool int8 = (leaf7_edx() >> 25) & 1;
  return int8 && amx_usable();
#else
  return false;
#endif
}

ScopedAmxRefusal::ScopedAmxRefusal() { refusals.fetch_add(1); }
ScopedAmxRefusal::~ScopedAmxRefusal() { refusals.fetch_sub(1); }

#if SOFTFLOAT_HAVE_AMX
TileSession::TileSession(TileLayout layout) { load_configuration(layout); }
TileSession::~TileSession() { release_tiles(); }
#else
TileSession::TileSession(TileLayout) {}
TileSession::~TileSession() {}
#endif

}  // namespace softfloat::matmul_detail
