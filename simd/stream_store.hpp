// When the float outputs of the array conversions take non-temporal ("streaming")
// stores (simd/stream-inl.h), and a streaming copy for MX dequantize. A normal store to
// a line that is not cached first reads the line (read for ownership), so writing n
// floats beyond cache moves 8n bytes over the memory bus; a streaming store writes the
// line without reading it. On a Sapphire Rapids class Xeon, filling 2^26 floats from
// byte codes took about 1.0 ns per value with normal stores and 0.46 with streaming
// ones (memcpy of the same data: 0.8; a one-off loop, not part of the benchmarks), and
// MX dequantize of the byte kinds went from about 1.6 to 1.3-1.5 times memcpy's time.
// The same scheme made MX's 4- and 6-bit kinds slower (MX, NVFP4 and
// dequantize_packed: about 2.0 to 2.4 times memcpy, also when the decoded values were
// streamed 512 at a time), for a reason not pinned down, so they keep normal stores.
// Streamed lines are not left in cache, so small outputs, which the caller is likely to
// read next, keep the normal stores too.
#pragma once

#include <cstddef>

namespace softfloat::simd::detail {

// Outputs of at least this many bytes are streamed (simd::round_trip and dequantize, MX
// dequantize of the byte kinds): eight times a Sapphire Rapids core's 2 MiB L2, so
// that only outputs far beyond the core's own caches are (the benchmarks measure 64 KiB
// and 256 MiB; sizes in between were not tuned).
inline constexpr std::size_t kStreamMinBytes = std::size_t{16} << 20;
inline bool stream_output(std::size_t bytes) { return bytes >= kStreamMinBytes; }

}  // namespace softfloat::simd::detail
