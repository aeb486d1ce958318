// softfloat.round_trip / quantize / dequantize over NumPy arrays, the packing helpers,
// and the scalar reference path. The arrays' memory goes to the buffer conversions of
// buffer_conversions.hpp, which the torch layer shares: float32 through the library's
// vectorised array functions, float64 rounded once straight from the double, formats
// wider than 32 bits value by value (scalar_conversions.hpp).
#include <algorithm>
#include <string>
#include <vector>

#include "python/_src/array_access.hpp"
#include "python/_src/bindings.hpp"
#include "python/_src/buffer_conversions.hpp"
#include "python/_src/code_packing.hpp"
#include "python/_src/conversion_options.hpp"
#include "python/_src/scalar_conversions.hpp"
#include "softfloat/format_spec.hpp"
#include "softfloat/simd.hpp"

namespace softfloat::python {

namespace {

// Calls `body` with a null pointer of the code type that holds `bits` bits.
template <class Body>
void with_code_type(int bits, Body&& body) {
  if (bits <= 8) body(static_cast<std::uint8_t*>(nullptr));
  else if (bits <= 16) body(static_cast<std::uint16_t*>(nullptr));
  else if (bits <= 32) body(static_cast<std::uint32_t*>(nullptr));
  else body(static_cast<std::uint64_t*>(nullptr));
}

int packed_width(const Format& format, const char* function) {
  const int bits = format.total_bits();
  if (bits != 4 && bits != 6)
    throw py::value_error(std::string("softfloat.") + function + ": packed=True needs a 4- or 6-bit format; " +
                          format_name(format) + " has " + std::to_string(bits) + " bits");
  return bits;
}

FloatType float_type_of(const FloatInput& input) { return input.is_double ? FloatType::float64 : FloatType::float32; }

py::array round_trip(const py::object& array, const std::string& format, const std::string& rounding, bool saturate,
                     const py::object& seed, const py::object& offset) {
  const ConversionOptions options = read_conversion_options("round_trip", format, rounding, saturate, seed, offset);
  const FloatInput input = read_float_input(array, "round_trip");
  const FloatType type = float_type_of(input);
  py::array out = input.is_double ? py::array(new_array<double>(input.shape)) : py::array(new_array<float>(input.shape));
  void* result = out.mutable_data();
  run_without_gil(input.size, [&] { round_trip_values(input.data(), type, input.size, result, type, options); });
  return out;
}

py::array quantize(const py::object& array, const std::string& format, const std::string& rounding, bool saturate,
                   const py::object& seed, const py::object& offset, bool packed) {
  const ConversionOptions options = read_conversion_options("quantize", format, rounding, saturate, seed, offset);
  const FloatInput input = read_float_input(array, "quantize");
  const std::size_t n = input.size;
  const int bits = options.format.total_bits();
  if (packed) {
    const int width = packed_width(options.format, "quantize");
    const std::size_t bytes = simd::packed_size(options.format, n);
    auto out = new_array<std::uint8_t>(Shape{py::ssize_t(bytes)});
    std::uint8_t* result = mutable_data(out);
    run_without_gil(n, [&] {
      if (!input.is_double) {
        simd::quantize_packed(static_cast<const float*>(input.data()), n, result, bytes, options.format, options.mode,
                              options.policy, options.random);
        return;
      }
      // The library packs while rounding from float only: round from the double first.
      std::vector<std::uint8_t> codes(n);
      simd::quantize(static_cast<const double*>(input.data()), n, codes.data(), options.format, options.mode,
                     options.policy, options.random);
      pack_codes(codes.data(), n, width, result, bytes);
    });
    return out;
  }
  py::array result_array;
  with_code_type(bits, [&]<class Code>(Code*) {
    auto out = new_array<Code>(input.shape);
    Code* result = mutable_data(out);
    run_without_gil(n, [&] {
      quantize_values(input.data(), float_type_of(input), n, result, int(sizeof(Code)), options);
    });
    result_array = std::move(out);
  });
  return result_array;
}

// The shape argument of the packed functions: None (default_count values), an int or a
// sequence of ints, none negative.
Shape read_shape(const py::object& shape_argument, std::size_t default_count, const char* function) {
  if (shape_argument.is_none()) return Shape{py::ssize_t(default_count)};
  Shape shape;
  try {
    if (py::isinstance<py::int_>(shape_argument)) shape = Shape{shape_argument.cast<py::ssize_t>()};
    else shape = shape_argument.cast<Shape>();
  } catch (const py::cast_error&) {
    throw py::type_error(std::string("softfloat.") + function + ": shape must be an int or a tuple of ints, not " +
                         std::string(py::repr(shape_argument)));
  }
  for (py::ssize_t extent : shape)
    if (extent < 0) throw py::value_error(std::string("softfloat.") + function + ": the shape has a negative extent");
  return shape;
}

// Densely packed codes as dequantize and unpack_codes read them: a uint8 array holding
// at least the bytes that the shape's count of width-bit codes takes (shape None: as
// many codes as the bytes hold).
struct PackedInput {
  const std::uint8_t* data;
  std::size_t bytes;
  Shape shape;
  std::size_t count;
  py::array owner;  // keeps data alive
};

PackedInput read_packed_input(const py::handle& object, int width, const py::object& shape_argument,
                              const char* function) {
  const CodeInput input = read_code_input(object, function, false);
  if (input.code_bytes != 1)
    throw py::type_error(std::string("softfloat.") + function + ": packed codes are bytes (uint8), got " +
                         dtype_name(input.array));
  const std::size_t bytes = input.size;
  Shape shape = read_shape(shape_argument, bytes * 8 / std::size_t(width), function);
  const std::size_t n = element_count(shape);
  const std::size_t need = packed_bytes(width, n);
  if (need > bytes)
    throw py::value_error(std::string("softfloat.") + function + ": " + std::to_string(n) + " packed " +
                          std::to_string(width) + "-bit codes take " + std::to_string(need) +
                          " bytes; the array has " + std::to_string(bytes));
  return {static_cast<const std::uint8_t*>(input.data()), bytes, std::move(shape), n, input.array};
}

py::array dequantize_packed(const py::handle& codes, const Format& format, const py::object& shape_argument,
                            bool to_double) {
  const int width = packed_width(format, "dequantize");
  const PackedInput packed = read_packed_input(codes, width, shape_argument, "dequantize");
  const std::uint8_t* in = packed.data;
  const std::size_t bytes = packed.bytes, n = packed.count;
  const Shape& shape = packed.shape;
  if (!to_double) {
    auto out = new_array<float>(shape);
    float* result = mutable_data(out);
    run_without_gil(n, [&] { simd::dequantize_packed(in, bytes, n, result, format); });
    return out;
  }
  auto out = new_array<double>(shape);
  double* result = mutable_data(out);
  run_without_gil(n, [&] {
    std::vector<std::uint8_t> unpacked(n);
    unpack_codes(in, bytes, n, width, unpacked.data());
    dequantize_codes(unpacked.data(), 1, n, result, FloatType::float64, format);
  });
  return out;
}

py::array dequantize(const py::object& codes, const std::string& format_spec, bool packed, const py::object& shape,
                     const py::object& dtype) {
  const Format format = read_format(format_spec, "dequantize");
  const bool to_double = read_float_dtype(dtype, "dequantize");
  if (packed) return dequantize_packed(codes, format, shape, to_double);
  if (!shape.is_none())
    throw py::value_error("softfloat.dequantize: shape= is for packed codes; unpacked codes keep their array's shape");
  const CodeInput input = read_code_input(codes, "dequantize", true);
  const int bits = format.total_bits();
  if (8 * input.code_bytes < bits)
    throw py::value_error("softfloat.dequantize: " + format_name(format) + " codes have " + std::to_string(bits) +
                          " bits and do not fit the array's " + dtype_name(input.array));
  check_codes_fit(input.data(), input.code_bytes, input.size, format, "dequantize");
  const FloatType type = to_double ? FloatType::float64 : FloatType::float32;
  py::array out = to_double ? py::array(new_array<double>(input.shape)) : py::array(new_array<float>(input.shape));
  void* result = out.mutable_data();
  run_without_gil(input.size, [&] { dequantize_codes(input.data(), input.code_bytes, input.size, result, type, format); });
  return out;
}

int read_width(int bits, const char* function) {
  if (bits != 4 && bits != 6)
    throw py::value_error(std::string("softfloat.") + function + ": bits must be 4 or 6, not " + std::to_string(bits));
  return bits;
}

py::array pack(const py::object& codes, int bits) {
  const int width = read_width(bits, "pack_codes");
  const CodeInput input = read_code_input(codes, "pack_codes", false);
  if (input.code_bytes != 1)
    throw py::type_error("softfloat.pack_codes: expected uint8 codes, got " + dtype_name(input.array));
  check_code_width(input.data(), 1, 1, input.size, input.size, width, "the", "pack_codes");
  const std::size_t n = input.size;
  const std::size_t bytes = packed_bytes(width, n);
  auto out = new_array<std::uint8_t>(Shape{py::ssize_t(bytes)});
  std::uint8_t* result = mutable_data(out);
  const auto* in = static_cast<const std::uint8_t*>(input.data());
  run_without_gil(n, [&] { pack_codes(in, n, width, result, bytes); });
  return out;
}

py::array unpack(const py::object& packed, int bits, const py::object& shape_argument) {
  const int width = read_width(bits, "unpack_codes");
  const PackedInput input = read_packed_input(packed, width, shape_argument, "unpack_codes");
  const std::uint8_t* in = input.data;
  const std::size_t bytes = input.bytes, n = input.count;
  auto out = new_array<std::uint8_t>(input.shape);
  std::uint8_t* result = mutable_data(out);
  run_without_gil(n, [&] { unpack_codes(in, bytes, n, width, result); });
  return out;
}

py::array scalar_quantize_array(const py::object& array, const std::string& format, const std::string& rounding,
                                bool saturate, const py::object& seed, const py::object& offset) {
  const ConversionOptions options =
      read_conversion_options("_scalar_quantize", format, rounding, saturate, seed, offset);
  const FloatInput input = read_float_input(array, "_scalar_quantize");
  py::array result_array;
  with_code_type(options.format.total_bits(), [&]<class Code>(Code*) {
    auto out = new_array<Code>(input.shape);
    Code* result = mutable_data(out);
    run_without_gil(input.size, [&] {
      if (input.is_double) scalar_quantize(static_cast<const double*>(input.data()), input.size, result, options);
      else scalar_quantize(static_cast<const float*>(input.data()), input.size, result, options);
    });
    result_array = std::move(out);
  });
  return result_array;
}

py::array scalar_dequantize_array(const py::object& codes, const std::string& format_spec, const py::object& dtype) {
  const Format format = read_format(format_spec, "_scalar_dequantize");
  const bool to_double = read_float_dtype(dtype, "_scalar_dequantize");
  const CodeInput input = read_code_input(codes, "_scalar_dequantize", true);
  check_codes_fit(input.data(), input.code_bytes, input.size, format, "_scalar_dequantize");
  py::array result_array;
  with_code_type(8 * input.code_bytes, [&]<class Code>(Code*) {
    const Code* in = static_cast<const Code*>(input.data());
    if (to_double) {
      auto out = new_array<double>(input.shape);
      double* result = mutable_data(out);
      run_without_gil(input.size, [&] { scalar_dequantize(in, input.size, result, format); });
      result_array = std::move(out);
    } else {
      auto out = new_array<float>(input.shape);
      float* result = mutable_data(out);
      run_without_gil(input.size, [&] { scalar_dequantize(in, input.size, result, format); });
      result_array = std::move(out);
    }
  });
  return result_array;
}

}  // namespace

void register_arrays(py::module_& module) {
  using namespace pybind11::literals;
  const py::object float32 = py::module_::import("numpy").attr("float32");

  module.def("round_trip", &round_trip, "array"_a, "format"_a, "rounding"_a = "nearest_even", "saturate"_a = false,
             "seed"_a = py::none(), py::kw_only(), "offset"_a = 0,
             R"(Fake quantization: every element replaced by the nearest value of `format`.

Returns a new array of the input's shape and dtype: float32 stays float32, float64
stays float64 and is rounded once, straight from the double (never through float32).
A float64 result is exact; a float32 result is exact wherever float32 holds the value
(every format of at most 24 significant bits and float32's range).

format    a format spec: "fp32", "bf16", "fp16", "tf32", "e5m2", "e4m3", "e3m2", "e2m3",
          "e2m1", "e8m0", "e4m3fnuz", "e5m2fnuz", "p3109_8p3", or "eXmY" with options
          (":fn", ":finite", ":fnuz", ":unsigned", ":nozero", ":bias=N").
rounding  nearest_even, nearest_away, nearest_zero, toward_zero, away_from_zero, up,
          down, odd, stochastic, stochastic_equal.
saturate  overflow to +-max (OCP "SAT") instead of the format's infinity or NaN.
seed      stochastic modes only: element i uses softfloat's random_bits(seed, offset + i),
          so a seed reproduces the result exactly. None draws a fresh seed from
          os.urandom(8) on every call. The other modes ignore it.
offset    the counter of the first element (continue a stream across calls).)");

  module.def("quantize", &quantize, "array"_a, "format"_a, "rounding"_a = "nearest_even", "saturate"_a = false,
             "seed"_a = py::none(), py::kw_only(), "offset"_a = 0, "packed"_a = false,
             R"(The codes of the nearest values of `format`, same shape as the input.

Codes are uint8, uint16 or uint32 by the format's width (uint64 above 32 bits). Sub-byte
formats sit in the low bits of a uint8. packed=True (4- and 6-bit formats) returns a
1-D uint8 array in the library's dense layout instead, the input read in C order:
4 bits two codes a byte, element 0 in the low nibble (E2M1 [1.0, -0.5] -> 0x92);
6 bits a little-endian bit stream, four codes in three bytes. float64 input is rounded
straight from the double. The options are round_trip's.)");

  module.def("dequantize", &dequantize, "codes"_a, "format"_a, py::kw_only(), "packed"_a = false,
             "shape"_a = py::none(), "dtype"_a = float32,
             R"(The values of codes of `format`, as float32 (default) or float64.

Codes must fit the format's width: a code with bits set above it raises ValueError
(its index and value named), never a silently truncated value. A float32 result is exact wherever float32
holds the value (else rounded to nearest even); float64 is exact for every format of up
to 53 significant bits. packed=True reads quantize(..., packed=True) bytes; shape (an
int or a tuple) says how many values they hold, by default as many as fit.)");

  module.def("pack_codes", &pack, "codes"_a, "bits"_a,
             R"(Packs 4- or 6-bit codes (uint8, low bits) into the dense layout of quantize(..., packed=True).)");
  module.def("unpack_codes", &unpack, "packed"_a, "bits"_a, "shape"_a = py::none(),
             R"(The uint8 codes held by packed bytes (the inverse of pack_codes); shape as in dequantize.)");

  module.def("_scalar_quantize", &scalar_quantize_array, "array"_a, "format"_a, "rounding"_a = "nearest_even",
             "saturate"_a = false, "seed"_a = py::none(), py::kw_only(), "offset"_a = 0,
             R"(quantize's value-by-value definition: round_to_format(decode(x), ...) per element, no packing.

For tests: the array functions must give the same codes bit for bit.)");
  module.def("_scalar_dequantize", &scalar_dequantize_array, "codes"_a, "format"_a, "dtype"_a = float32,
             R"(dequantize's value-by-value definition (decode, then round to float32 or float64).)");
}

}  // namespace softfloat::python
