// Weights: the bytes of a model's parameters in a format, and the least time a decode
// step can take when it must read every weight once per token.
//
//   weight_bytes(params, format) = params * bits per value / 8
//       7e10 parameters: 140e9 bytes in bf16, 70e9 in e4m3, 35e9 in e2m1 (packed) and
//       7e10 * 4.25 / 8 = 37.1875e9 in MXFP4.
//   decode_seconds_per_token(params, format, bytes_per_second) = weight bytes / bandwidth
//       Generating one token at batch size 1 multiplies every weight matrix by a vector:
//       about 2 FLOPs per weight against one read of it, far below any ridge point
//       (roofline.hpp), so the bytes set the time. 7e10 parameters at 3.35e12 B/s: 41.8 ms
//       (bf16), 20.9 ms (e4m3) and 10.4 ms (e2m1) per token, at best.
#pragma once

#include "softfloat/cost/arguments.hpp"
#include "softfloat/cost/format_bytes.hpp"
#include "softfloat/cost/memory_hierarchy.hpp"

namespace softfloat::cost {

// Bytes of `params` values in `format`: the average rate of a long array
// (StorageFormat::storage_bytes counts an array of a given length exactly).
inline double weight_bytes(double params, const StorageFormat& format) {
  detail::require_non_negative(params, "weight_bytes", "the parameter count");
  return params * format.bytes_per_value();
}

// Lower bound on the seconds per generated token when every weight is read once per
// token from memory of `bytes_per_second`: weight_bytes / bandwidth. Ignores the KV
// cache's reads, which add cache bytes per token times the context length.
inline double decode_seconds_per_token(double params, const StorageFormat& format, double bytes_per_second) {
  detail::require_positive(bytes_per_second, "decode_seconds_per_token", "the bandwidth in bytes per second");
  return transfer_seconds(weight_bytes(params, format), bytes_per_second);
}

}  // namespace softfloat::cost
