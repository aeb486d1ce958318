// softfloat.mx_quantize / mx_dequantize / mx_round_trip (OCP MX block scaling,
// softfloat/mx.hpp) along any axis, in rows along that axis as block_rows.hpp describes;
// the torch layer's MX entry points by address; and the lists of element kinds and scale
// rules. NVFP4, whose blocks and tensor-wide scale follow other rules, is nvfp4.cpp.
#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "python/_src/array_access.hpp"
#include "python/_src/bindings.hpp"
#include "python/_src/block_rows.hpp"
#include "python/_src/conversion_options.hpp"
#include "softfloat/mx.hpp"

namespace softfloat::python {

namespace {

mx::Element read_element(const std::string& name, const char* function) {
  try {
    return mx::parse_element(name);
  } catch (const std::invalid_argument& error) {
    throw py::value_error(where(function) + error.what());
  }
}

// block_size arrives signed, so that a negative one is a ValueError naming it rather than
// pybind11's TypeError about the signature.
mx::Options read_options(std::int64_t block_size, const std::string& scale_rule, const char* function) {
  if (block_size < 1)
    throw py::value_error(where(function) + "block_size must be a positive number of values, not " +
                          std::to_string(block_size));
  mx::Options options;
  options.block_size = std::size_t(block_size);
  try {
    options.rule = mx::parse_scale_rule(scale_rule);
  } catch (const std::invalid_argument& error) {
    throw py::value_error(where(function) + error.what());
  }
  return options;
}

// The block size (whole bytes per block for the packed kinds) and the element rounding,
// checked by the library's own rule (mx.hpp) before any work, so that the error names
// the Python function.
void check_options(mx::Element element, const mx::Options& options, const char* function) {
  try {
    mx::detail::check_round_trip_arguments("round_trip", nullptr, 0, nullptr, element, options);
  } catch (const std::invalid_argument& error) {
    const std::string message = error.what();  // "softfloat::mx::round_trip: ...": keep what follows
    throw py::value_error(where(function) + message.substr(message.find(": ") + 2));
  }
}

// The element rounding and its stream, checked.
void read_element_rounding(mx::Options& options, mx::Element element, const std::string& rounding,
                           const py::object& seed, const py::object& offset, const char* function) {
  options.rounding = read_rounding(rounding, function);
  options.random = read_random_stream(function, options.rounding, seed, offset);
  check_options(element, options, function);
}

// The element kind and options of a quantizing call, checked.
struct MxCall {
  mx::Element element;
  mx::Options options;
};
MxCall read_mx_call(const char* function, const std::string& element_name, std::int64_t block_size,
                    const std::string& scale_rule, const std::string& rounding, const py::object& seed,
                    const py::object& offset) {
  MxCall call{read_element(element_name, function), read_options(block_size, scale_rule, function)};
  read_element_rounding(call.options, call.element, rounding, seed, offset, function);
  return call;
}

// Calls body(first value, row count, options) for runs of whole rows that the library
// may treat as one array: all rows at once when they hold whole blocks, else each row
// alone, its stochastic stream advanced to its first value.
template <class Body>
void for_each_run(const Rows& rows, const mx::Options& options, Body&& body) {
  if (rows.row_length % options.block_size == 0) return body(std::size_t{0}, rows.rows, options);
  for (std::size_t r = 0; r < rows.rows; ++r) {
    mx::Options row = options;
    row.random.offset += r * rows.row_length;
    body(r * rows.row_length, std::size_t{1}, row);
  }
}

py::tuple mx_quantize(const py::object& array, const std::string& element_name, std::int64_t block_size,
                      const std::string& scale_rule, int axis, const std::string& rounding, const py::object& seed,
                      const py::object& offset) {
  const char* function = "mx_quantize";
  const MxCall call = read_mx_call(function, element_name, block_size, scale_rule, rounding, seed, offset);
  const mx::Element element = call.element;
  const mx::Options& options = call.options;
  const FloatInput input = float32_input(array, axis, function);
  const Rows rows = rows_of(input.shape);
  const std::size_t row_bytes = mx::element_bytes(element, rows.row_length);
  const std::size_t row_scales = mx::scale_count(rows.row_length, options);
  auto elements = new_array<std::uint8_t>(with_last(input.shape, row_bytes));
  auto scales = new_array<std::uint8_t>(with_last(input.shape, row_scales));
  const float* in = static_cast<const float*>(input.data());
  std::uint8_t* element_out = mutable_data(elements);
  std::uint8_t* scale_out = mutable_data(scales);
  run_without_gil(input.size, [&] {
    for_each_run(rows, options, [&](std::size_t first, std::size_t count, const mx::Options& run) {
      const std::size_t r = first / std::max<std::size_t>(rows.row_length, 1);
      mx::quantize(in + first, count * rows.row_length, element_out + r * row_bytes, count * row_bytes,
                   scale_out + r * row_scales, count * row_scales, element, run);
    });
  });
  const int last = int(input.shape.size()) - 1;
  if (axis == last) return py::make_tuple(std::move(elements), std::move(scales));
  return py::make_tuple(moved(elements, last, axis), moved(scales, last, axis));
}

py::object mx_round_trip(const py::object& array, const std::string& element_name, std::int64_t block_size,
                         const std::string& scale_rule, int axis, const std::string& rounding, const py::object& seed,
                         const py::object& offset) {
  const char* function = "mx_round_trip";
  const MxCall call = read_mx_call(function, element_name, block_size, scale_rule, rounding, seed, offset);
  const mx::Element element = call.element;
  const mx::Options& options = call.options;
  const FloatInput input = float32_input(array, axis, function);
  const Rows rows = rows_of(input.shape);
  auto out = new_array<float>(input.shape);
  const float* in = static_cast<const float*>(input.data());
  float* result = mutable_data(out);
  run_without_gil(input.size, [&] {
    for_each_run(rows, options, [&](std::size_t first, std::size_t count, const mx::Options& run) {
      mx::round_trip(in + first, count * rows.row_length, result + first, element, run);
    });
  });
  const int last = int(input.shape.size()) - 1;
  return axis == last ? py::object(std::move(out)) : moved(out, last, axis);
}

py::object mx_dequantize(const py::object& elements_argument, const py::object& scales_argument,
                         const std::string& element_name, std::int64_t block_size, const py::object& length,
                         int axis) {
  const char* function = "mx_dequantize";
  const mx::Element element = read_element(element_name, function);
  const mx::Options options = read_options(block_size, "floor", function);
  check_options(element, options, function);
  const CodeInput elements = byte_codes(elements_argument, axis, function, "elements");
  const CodeInput scales = byte_codes(scales_argument, axis, function, "scales");
  check_same_rows(elements.shape, scales.shape, function, "scales");
  const Rows element_rows = rows_of(elements.shape);
  const std::size_t row_length = read_row_length(length, element_rows.row_length, mx::element_bits(element), function);
  const std::size_t row_bytes = mx::element_bytes(element, row_length);
  const std::size_t row_scales = mx::scale_count(row_length, options);
  if (row_bytes != element_rows.row_length)
    throw py::value_error(where(function) + "rows of " + std::to_string(row_length) + " " +
                          std::string(mx::element_name(element)) + " values take " + std::to_string(row_bytes) +
                          " bytes, but the elements' blocks axis has " + std::to_string(element_rows.row_length));
  if (row_scales != std::size_t(scales.shape.back()))
    throw py::value_error(where(function) + "rows of " + std::to_string(row_length) + " values in blocks of " +
                          std::to_string(options.block_size) + " have " + std::to_string(row_scales) +
                          " scales, but the scales' blocks axis has " + std::to_string(scales.shape.back()));
  auto out = new_array<float>(with_last(elements.shape, row_length));
  const auto* element_in = static_cast<const std::uint8_t*>(elements.data());
  const auto* scale_in = static_cast<const std::uint8_t*>(scales.data());
  float* result = mutable_data(out);
  const Rows rows{element_rows.rows, row_length};
  run_without_gil(rows.rows * row_length, [&] {
    for_each_run(rows, options, [&](std::size_t first, std::size_t count, const mx::Options& run) {
      const std::size_t r = first / std::max<std::size_t>(row_length, 1);
      mx::dequantize(element_in + r * row_bytes, count * row_bytes, scale_in + r * row_scales, count * row_scales,
                     count * row_length, result + first, element, run);
    });
  });
  const int last = int(elements.shape.size()) - 1;
  const int normalized = read_axis(axis, py::ssize_t(elements.shape.size()), function);
  return normalized == last ? py::object(std::move(out)) : moved(out, last, normalized);
}

// The torch layer's entry points: contiguous float32 rows by address (tensor_buffers.cpp).
void mx_round_trip_buffer(std::uintptr_t in, std::uintptr_t out, std::size_t rows, std::size_t row_length,
                          const std::string& element_name, std::int64_t block_size, const std::string& scale_rule,
                          const std::string& rounding, const py::object& seed, const py::object& offset) {
  const char* function = "torch.mx_quantize";
  const MxCall call = read_mx_call(function, element_name, block_size, scale_rule, rounding, seed, offset);
  const mx::Element element = call.element;
  const mx::Options& options = call.options;
  const auto* values = reinterpret_cast<const float*>(in);
  auto* result = reinterpret_cast<float*>(out);
  run_without_gil(rows * row_length, [&] {
    for_each_run(Rows{rows, row_length}, options, [&](std::size_t first, std::size_t count, const mx::Options& run) {
      mx::round_trip(values + first, count * row_length, result + first, element, run);
    });
  });
}

// softfloat.torch.distributed's wire: one flat run of n values, codes written into and
// read from the caller's memory (the payload and the result), no array in between.
void mx_quantize_buffer(std::uintptr_t in, std::uintptr_t elements, std::uintptr_t scales, std::size_t n,
                        const std::string& element_name, std::int64_t block_size, const std::string& rounding,
                        const py::object& seed) {
  const MxCall call = read_mx_call("torch.distributed", element_name, block_size, "floor", rounding, seed, py::int_(0));
  run_without_gil(n, [&] {
    mx::quantize(reinterpret_cast<const float*>(in), n, reinterpret_cast<std::uint8_t*>(elements),
                 mx::element_bytes(call.element, n), reinterpret_cast<std::uint8_t*>(scales),
                 mx::scale_count(n, call.options), call.element, call.options);
  });
}

void mx_dequantize_buffer(std::uintptr_t elements, std::uintptr_t scales, std::uintptr_t out, std::size_t n,
                          const std::string& element_name, std::int64_t block_size) {
  const char* function = "torch.distributed";
  const mx::Element element = read_element(element_name, function);
  const mx::Options options = read_options(block_size, "floor", function);
  check_options(element, options, function);
  run_without_gil(n, [&] {
    mx::dequantize(reinterpret_cast<const std::uint8_t*>(elements), mx::element_bytes(element, n),
                   reinterpret_cast<const std::uint8_t*>(scales), mx::scale_count(n, options), n,
                   reinterpret_cast<float*>(out), element, options);
  });
}

}  // namespace

void register_mx(py::module_& module) {
  using namespace pybind11::literals;
  const char* rules = R"(scale_rule  "floor": s = floor(log2(amax)) - emax_elem (OCP MX v1.0, the default);
            "rceil": s = ceil(log2(amax / max_elem)), the smallest s with amax <= max_elem * 2^s
            (cuBLAS and torchao's RCEIL; this rule was called "ceil" before);
            "ceil": s = ceil(log2(amax)) - emax_elem (torchao's CEIL);
            "even": s = floor(log2(amax rounded to M_elem + 1 bits, ties away)) - emax_elem
            (torchao's EVEN).)";
  module.def("mx_quantize", &mx_quantize, "array"_a, "element"_a, py::kw_only(), "block_size"_a = 32,
             "scale_rule"_a = "floor", "axis"_a = -1, "rounding"_a = "nearest_even", "seed"_a = py::none(),
             "offset"_a = 0,
             (std::string(R"(OCP MX block quantization along `axis`: returns (elements, scales).

element     "mxfp8_e4m3", "mxfp8_e5m2", "mxfp6_e3m2", "mxfp6_e2m3", "mxfp4_e2m1" or "mxint8".
block_size  values per shared E8M0 scale (32 in the specification); each row's last
            block may be shorter. Packed kinds need a multiple of 2 (FP4) or 4 (FP6).
)") + rules + R"(
axis        the axis the blocks run along (default the last; the backward products of
            a layer need the other one). Results keep that axis: packed bytes and scales
            along it.
rounding    the elements': nearest_even (default), nearest_away, nearest_zero,
            toward_zero or stochastic (element i, counted in C order with `axis` last,
            draws random_bits(seed, offset + i); seed None draws a fresh seed).
Elements are x * 2^-s rounded and clamped to the element's max; a block with a NaN or
infinity gets scale 0xFF (NaN). elements is uint8 (8-bit kinds) or packed bytes (FP6,
FP4); scales is uint8. Input must be float32.)").c_str());
  module.def("mx_dequantize", &mx_dequantize, "elements"_a, "scales"_a, "element"_a, py::kw_only(),
             "block_size"_a = 32, "length"_a = py::none(), "axis"_a = -1,
             R"(The float32 values of MX blocks from mx_quantize: element * 2^s.

length is the row length along `axis` (of the original array); it is needed only for
packed kinds whose rows do not fill their last byte (odd FP4 rows, FP6 rows not a
multiple of 4). The default is as many values as the bytes hold.)");
  module.def("mx_round_trip", &mx_round_trip, "array"_a, "element"_a, py::kw_only(), "block_size"_a = 32,
             "scale_rule"_a = "floor", "axis"_a = -1, "rounding"_a = "nearest_even", "seed"_a = py::none(),
             "offset"_a = 0,
             R"(MX fake quantization: mx_dequantize(mx_quantize(array, ...)) in one pass, float32.)");
  module.def("_mx_round_trip_buffer", &mx_round_trip_buffer, "input"_a, "output"_a, "rows"_a, "row_length"_a,
             "element"_a, "block_size"_a, "scale_rule"_a, "rounding"_a, "seed"_a, "offset"_a,
             "MX fake quantization of contiguous float32 rows by address (private: softfloat.torch).");
  module.def("_mx_quantize_buffer", &mx_quantize_buffer, "input"_a, "elements"_a, "scales"_a, "n"_a, "element"_a,
             "block_size"_a, "rounding"_a, "seed"_a,
             "MX blocks of n contiguous float32 values into element and scale bytes by address (private).");
  module.def("_mx_dequantize_buffer", &mx_dequantize_buffer, "elements"_a, "scales"_a, "output"_a, "n"_a,
             "element"_a, "block_size"_a, "The float32 values of n MX elements by address (private).");
  module.def(
      "mx_elements",
      [] {
        std::vector<std::string> names;
        for (mx::Element element : mx::kAllElements) names.emplace_back(mx::element_name(element));
        return names;
      },
      "The MX element kinds mx_quantize accepts.");
  module.def(
      "mx_scale_rules",
      [] {
        std::vector<std::string> names;
        for (mx::ScaleRule rule : {mx::ScaleRule::floor, mx::ScaleRule::rceil, mx::ScaleRule::ceil, mx::ScaleRule::even})
          names.emplace_back(mx::scale_rule_name(rule));
        return names;
      },
      "The scale rules mx_quantize accepts.");
}

}  // namespace softfloat::python
