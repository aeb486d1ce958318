// The buffer conversions of buffer_conversions.hpp. float32 goes straight through the
// library's vectorised array functions (softfloat/simd.hpp); float16 and bfloat16 are
// widened to float32 exactly (simd::dequantize with FP16 / BF16, F16C and AVX512-BF16
// where the CPU has them) in pieces that stay in cache, and written back by
// simd::quantize to nearest even; float64 is rounded straight from the double. Formats
// wider than 32 bits, and results whose values the vector path would round through
// float32 first, take the value-by-value definition (scalar_conversions.hpp).
#include "python/_src/buffer_conversions.hpp"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <vector>

#include <pybind11/pybind11.h>

#include "python/_src/scalar_conversions.hpp"
#include "softfloat/escape.hpp"
#include "softfloat/format_spec.hpp"
#include "softfloat/named_formats.hpp"
#include "softfloat/random_bits.hpp"
#include "softfloat/simd.hpp"

namespace softfloat::python {

namespace py = pybind11;

namespace {

// Temporary pieces of 2^14 values (64 KiB of float32): in L2 between the passes, and
// long enough for the library to split among its threads.
constexpr std::size_t kPiece = std::size_t{1} << 14;

ConversionOptions advanced(ConversionOptions options, std::size_t count) {
  options.random = advanced(options.random, count);
  return options;
}

// The format each float type stores, for the value-by-value path and the half types.
Format storage_format(FloatType type) {
  switch (type) {
    case FloatType::float32: return binary32_format;
    case FloatType::float64: return binary64_format;
    case FloatType::float16: return FP16::format;
    case FloatType::bfloat16: return BF16::format;
  }
  return binary32_format;
}

bool is_half(FloatType type) { return type == FloatType::float16 || type == FloatType::bfloat16; }

template <class Body>
void with_code_bytes(int bytes, Body&& body) {
  switch (bytes) {
    case 1: body(static_cast<std::uint8_t*>(nullptr)); break;
    case 2: body(static_cast<std::uint16_t*>(nullptr)); break;
    case 4: body(static_cast<std::uint32_t*>(nullptr)); break;
    case 8: body(static_cast<std::uint64_t*>(nullptr)); break;
    default: throw std::logic_error("buffer_conversions: codes of " + std::to_string(bytes) + " bytes");
  }
}

// Element `begin` of a buffer of `type`.
const void* at(const void* data, FloatType type, std::size_t begin) {
  return static_cast<const char*>(data) + begin * float_type_bytes(type);
}
void* at(void* data, FloatType type, std::size_t begin) {
  return static_cast<char*>(data) + begin * float_type_bytes(type);
}

// float16 / bfloat16 bit patterns -> float32, exact.
void widen_half(const void* in, FloatType type, std::size_t count, float* out) {
  simd::dequantize(static_cast<const std::uint16_t*>(in), count, out, storage_format(type));
}

// float32 values -> a buffer of `type` (nearest even for the half types).
void store_floats(const float* values, std::size_t count, void* out, FloatType type) {
  switch (type) {
    case FloatType::float32: std::memcpy(out, values, count * sizeof(float)); break;
    case FloatType::float64: std::copy(values, values + count, static_cast<double*>(out)); break;
    case FloatType::float16:
    case FloatType::bfloat16:
      simd::quantize(values, count, static_cast<std::uint16_t*>(out), storage_format(type), Rounding::nearest_even,
                     Overflow::standard);
      break;
  }
}

// The exact value of `code` rounded once to `type`, stored at out[i].
void store_scalar(std::uint64_t code, const Format& format, void* out, FloatType type, std::size_t i) {
  const ExactValue value = decode(code & (format.sign_bit() | format.magnitude_mask()), format);
  const std::uint64_t bits = round_to_format(value, storage_format(type));
  switch (type) {
    case FloatType::float32: static_cast<std::uint32_t*>(out)[i] = std::uint32_t(bits); break;
    case FloatType::float64: static_cast<std::uint64_t*>(out)[i] = bits; break;
    case FloatType::float16:
    case FloatType::bfloat16: static_cast<std::uint16_t*>(out)[i] = std::uint16_t(bits); break;
  }
}

}  // namespace

FloatType read_float_type(const std::string& name, const char* function) {
  if (name == "float32") return FloatType::float32;
  if (name == "float64") return FloatType::float64;
  if (name == "float16") return FloatType::float16;
  if (name == "bfloat16") return FloatType::bfloat16;
  throw py::value_error(std::string("softfloat.") + function + ": unknown value type '" + escape_unprintable(name) +
                        "' (accepted: float32, float64, float16, bfloat16)");
}

const char* float_type_name(FloatType type) {
  switch (type) {
    case FloatType::float32: return "float32";
    case FloatType::float64: return "float64";
    case FloatType::float16: return "float16";
    case FloatType::bfloat16: return "bfloat16";
  }
  return "?";
}

std::size_t float_type_bytes(FloatType type) {
  switch (type) {
    case FloatType::float32: return 4;
    case FloatType::float64: return 8;
    case FloatType::float16:
    case FloatType::bfloat16: return 2;
  }
  return 4;
}

bool values_fit_float(const Format& format) {
  return format.mantissa_bits <= 23 && format.max_exponent() <= 127 &&
         format.min_normal_exponent() - format.mantissa_bits >= -149;
}

void quantize_values(const void* in, FloatType in_type, std::size_t n, void* codes, int code_bytes,
                     const ConversionOptions& options) {
  with_code_bytes(code_bytes, [&]<class Code>(Code*) {
    Code* out = static_cast<Code*>(codes);
    constexpr bool vector = sizeof(Code) <= 4;
    if (in_type == FloatType::float32 || in_type == FloatType::float64) {
      auto convert = [&](const auto* values) {
        if constexpr (vector) simd::quantize(values, n, out, options.format, options.mode, options.policy, options.random);
        else scalar_quantize(values, n, out, options);
      };
      if (in_type == FloatType::float32) convert(static_cast<const float*>(in));
      else convert(static_cast<const double*>(in));
      return;
    }
    std::vector<float> values(std::min(n, kPiece));
    for (std::size_t i = 0; i < n; i += kPiece) {
      const std::size_t count = std::min(kPiece, n - i);
      widen_half(at(in, in_type, i), in_type, count, values.data());
      const ConversionOptions piece = advanced(options, i);
      if constexpr (vector)
        simd::quantize(values.data(), count, out + i, piece.format, piece.mode, piece.policy, piece.random);
      else scalar_quantize(values.data(), count, out + i, piece);
    }
  });
}

void dequantize_codes(const void* codes, int code_bytes, std::size_t n, void* out, FloatType out_type,
                      const Format& format) {
  with_code_bytes(code_bytes, [&]<class Code>(Code*) {
    const Code* in = static_cast<const Code*>(codes);
    if constexpr (sizeof(Code) <= 4) {
      if (format.total_bits() <= 32) {
        if (out_type == FloatType::float32) {
          simd::dequantize(in, n, static_cast<float*>(out), format);
          return;
        }
        if (values_fit_float(format)) {  // float32 holds the value: one exact widening, or one rounding
          std::vector<float> values(std::min(n, kPiece));
          for (std::size_t i = 0; i < n; i += kPiece) {
            const std::size_t count = std::min(kPiece, n - i);
            simd::dequantize(in + i, count, values.data(), format);
            store_floats(values.data(), count, at(out, out_type, i), out_type);
          }
          return;
        }
      }
    }
    for (std::size_t i = 0; i < n; ++i) store_scalar(in[i], format, out, out_type, i);
  });
}

void round_trip_values(const void* in, FloatType in_type, std::size_t n, void* out, FloatType out_type,
                       const ConversionOptions& options) {
  const Format& format = options.format;
  const bool fits_32 = format.total_bits() <= 32;
  if (fits_32 && in_type == FloatType::float32 && out_type == FloatType::float32) {
    simd::round_trip(static_cast<const float*>(in), n, static_cast<float*>(out), format, options.mode,
                     options.policy, options.random);
    return;
  }
  if (fits_32 && values_fit_float(format) && in_type != FloatType::float64 && out_type != FloatType::float64) {
    // Half types in and out: widen a piece, round trip it in float32, narrow it.
    std::vector<float> values(std::min(n, kPiece));
    for (std::size_t i = 0; i < n; i += kPiece) {
      const std::size_t count = std::min(kPiece, n - i);
      const float* piece_in = static_cast<const float*>(at(in, in_type, i));
      if (is_half(in_type)) {
        widen_half(piece_in, in_type, count, values.data());
        piece_in = values.data();
      }
      simd::round_trip(piece_in, count, values.data(), format, options.mode, options.policy,
                       advanced(options.random, i));
      store_floats(values.data(), count, at(out, out_type, i), out_type);
    }
    return;
  }
  if (!fits_32) {
    // Value by value: decode exactly (half types widened to float32 first, exactly),
    // round once into the format, then once into the output type.
    std::vector<float> values(std::min(n, kPiece));
    for (std::size_t i = 0; i < n; i += kPiece) {
      const std::size_t count = std::min(kPiece, n - i);
      for (std::size_t j = 0; j < count; ++j) {
        std::uint64_t code = 0;
        switch (in_type) {
          case FloatType::float32: code = scalar_code(static_cast<const float*>(in)[i + j], options, i + j); break;
          case FloatType::float64: code = scalar_code(static_cast<const double*>(in)[i + j], options, i + j); break;
          case FloatType::float16:
          case FloatType::bfloat16:
            if (j == 0) widen_half(at(in, in_type, i), in_type, count, values.data());
            code = scalar_code(values[j], options, i + j);
            break;
        }
        store_scalar(code, format, out, out_type, i + j);
      }
    }
    return;
  }
  // Through codes: float64 on either side, or values float32 cannot hold.
  std::vector<std::uint32_t> codes(std::min(n, kPiece));
  for (std::size_t i = 0; i < n; i += kPiece) {
    const std::size_t count = std::min(kPiece, n - i);
    quantize_values(at(in, in_type, i), in_type, count, codes.data(), 4, advanced(options, i));
    dequantize_codes(codes.data(), 4, count, at(out, out_type, i), out_type, format);
  }
}

void check_codes_fit(const void* codes, int code_bytes, std::size_t n, const Format& format, const char* function) {
  check_code_width(codes, code_bytes, 1, n, n, format.total_bits(), format_name(format) + "'s", function);
}

void check_code_width(const void* codes, int code_bytes, std::size_t rows, std::size_t columns,
                      std::size_t leading_dimension, int bits, const std::string& what, const char* function) {
  if (bits >= 8 * code_bytes) return;
  with_code_bytes(code_bytes, [&]<class Code>(Code*) {
    const Code* in = static_cast<const Code*>(codes);
    const Code outside = Code(~((std::uint64_t{1} << bits) - 1));
    Code seen = 0;
    for (std::size_t r = 0; r < rows; ++r)  // one pass, vectorised; the search only on failure
      for (std::size_t c = 0; c < columns; ++c) seen |= in[r * leading_dimension + c];
    if ((seen & outside) == 0) return;
    std::size_t i = 0;
    while ((in[i / columns * leading_dimension + i % columns] & outside) == 0) ++i;
    const std::uint64_t code = in[i / columns * leading_dimension + i % columns];
    throw py::value_error(std::string("softfloat.") + function + ": code " + std::to_string(code) +
                          " at flat index " + std::to_string(i) + " does not fit " + what + " " +
                          std::to_string(bits) + " bits (codes lie in [0, 2**" + std::to_string(bits) + "))");
  });
}

}  // namespace softfloat::python
