// amx_usable() and the tile configuration (amx_tiles.hpp).
#include "matmul/amx_tiles.hpp"

#include <atomic>
#include <cstdint>

#include "runtime/cpu_features.hpp"

namespace softfloat::matmul_detail {

namespace {

std::atomic<int> refusals{0};

#if SOFTFLOAT_HAVE_AMX
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

// The CPU's tiles, XCR0's tile state and the kernel's permission: cpu_features() asks
// for all three once per process.
bool amx_usable() {
#if SOFTFLOAT_HAVE_AMX
  return detail::cpu_features().amx_bf16 && refusals.load() == 0;
#else
  return false;
#endif
}

bool amx_int8_usable() {
#if SOFTFLOAT_HAVE_AMX
  return detail::cpu_features().amx_int8 && amx_usable();
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
