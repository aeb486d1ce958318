// softfloat.mx_quantize / mx_dequantize: OCP MX block scaling (softfloat/mx.hpp) along
// the last axis. Each row (the last axis) is its own array of blocks, so a block never
// spans two rows and each row's last block may be shorter, as microxcaling scales a
// weight matrix along its reduction axis. Element codes come back as uint8 of the
// input's shape (8-bit kinds) or packed per row (4- and 6-bit kinds, the library's
// layout: shape (..., element_bytes(row length))); the E8M0 scale codes as uint8 of
// shape (..., ceil(row length / block_size)).
#include <string>
#include <vector>

#include "python/array_access.hpp"
#include "python/bindings.hpp"
#include "softfloat/mx.hpp"

namespace softfloat::python {

namespace {

mx::Element read_element(const std::string& name, const char* function) {
  try {
    return mx::parse_element(name);
  } catch (const std::invalid_argument& error) {
    throw py::value_error(std::string("softfloat.") + function + ": " + error.what());
  }
}

mx::Options read_options(std::size_t block_size, const std::string& scale_rule, const char* function) {
  mx::Options options;
  options.block_size = block_size;
  if (scale_rule == "floor") options.rule = mx::ScaleRule::floor;
  else if (scale_rule == "ceil") options.rule = mx::ScaleRule::ceil;
  else
    throw py::value_error(std::string("softfloat.") + function + ": unknown scale_rule '" + scale_rule +
                          "' (accepted: floor, ceil)");
  return options;
}

// The rows of an array: `rows` runs of `row_length` values along the last axis.
struct Rows {
  std::size_t rows = 0;
  std::size_t row_length = 0;
};
Rows rows_of(const Shape& shape, const char* function) {
  if (shape.empty())
    throw py::value_error(std::string("softfloat.") + function + ": expected an array with at least one axis (the "
                          "blocks run along the last one), got a 0-d array");
  Rows rows;
  rows.row_length = std::size_t(shape.back());
  rows.rows = element_count(Shape(shape.begin(), shape.end() - 1));
  return rows;
}

Shape with_last(const Shape& shape, std::size_t last) {
  Shape result = shape;
  result.back() = py::ssize_t(last);
  return result;
}

py::tuple mx_quantize(const py::object& array, const std::string& element_name, std::size_t block_size,
                      const std::string& scale_rule) {
  const mx::Element element = read_element(element_name, "mx_quantize");
  const mx::Options options = read_options(block_size, scale_rule, "mx_quantize");
  const FloatInput input = read_float_input(array, "mx_quantize");
  if (input.is_double)
    throw py::type_error("softfloat.mx_quantize: expected a float32 array, got float64 (MX scaling is defined on "
                         "float32 here; convert with array.astype(numpy.float32) if rounding to float32 first is "
                         "what you want)");
  const Rows rows = rows_of(input.shape, "mx_quantize");
  const std::size_t row_bytes = mx::element_bytes(element, rows.row_length);
  const std::size_t row_scales = mx::scale_count(rows.row_length, options);
  auto elements = new_array<std::uint8_t>(with_last(input.shape, row_bytes));
  auto scales = new_array<std::uint8_t>(with_last(input.shape, row_scales));
  const float* in = static_cast<const float*>(input.data());
  std::uint8_t* element_out = mutable_data(elements);
  std::uint8_t* scale_out = mutable_data(scales);
  run_without_gil(input.size, [&] {
    if (rows.row_length % options.block_size == 0) {
      // Whole blocks: the rows laid end to end are the same blocks, in one call.
      mx::quantize(in, input.size, element_out, rows.rows * row_bytes, scale_out, rows.rows * row_scales, element,
                   options);
      return;
    }
    for (std::size_t r = 0; r < rows.rows; ++r)
      mx::quantize(in + r * rows.row_length, rows.row_length, element_out + r * row_bytes, row_bytes,
                   scale_out + r * row_scales, row_scales, element, options);
  });
  return py::make_tuple(std::move(elements), std::move(scales));
}

py::array mx_dequantize(const py::object& elements_argument, const py::object& scales_argument,
                        const std::string& element_name, std::size_t block_size, const py::object& length) {
  const char* function = "mx_dequantize";
  const mx::Element element = read_element(element_name, function);
  const mx::Options options = read_options(block_size, "floor", function);
  const CodeInput elements = read_code_input(elements_argument, function, false);
  const CodeInput scales = read_code_input(scales_argument, function, false);
  if (elements.code_bytes != 1 || scales.code_bytes != 1)
    throw py::type_error("softfloat.mx_dequantize: element and scale codes are uint8 arrays, got " +
                         dtype_name(elements.array) + " and " +
                         dtype_name(scales.array));
  const Rows element_rows = rows_of(elements.shape, function);
  const Rows scale_rows = rows_of(scales.shape, function);
  if (Shape(elements.shape.begin(), elements.shape.end() - 1) != Shape(scales.shape.begin(), scales.shape.end() - 1))
    throw py::value_error("softfloat.mx_dequantize: elements and scales must agree in every axis but the last; got "
                          "shapes " + std::string(py::str(py::tuple(py::cast(elements.shape)))) + " and " +
                          std::string(py::str(py::tuple(py::cast(scales.shape)))));
  const int bits = mx::element_bits(element);
  std::size_t row_length = element_rows.row_length * 8 / std::size_t(bits);
  if (!length.is_none()) {
    const py::ssize_t given = length.cast<py::ssize_t>();
    if (given < 0) throw py::value_error("softfloat.mx_dequantize: length must not be negative");
    row_length = std::size_t(given);
  }
  const std::size_t row_bytes = mx::element_bytes(element, row_length);
  const std::size_t row_scales = mx::scale_count(row_length, options);
  if (row_bytes != element_rows.row_length)
    throw py::value_error("softfloat.mx_dequantize: rows of " + std::to_string(row_length) + " " +
                          std::string(mx::element_name(element)) + " values take " + std::to_string(row_bytes) +
                          " bytes, but the elements' last axis has " + std::to_string(element_rows.row_length));
  if (row_scales != scale_rows.row_length)
    throw py::value_error("softfloat.mx_dequantize: rows of " + std::to_string(row_length) + " values in blocks of " +
                          std::to_string(options.block_size) + " have " + std::to_string(row_scales) +
                          " scales, but the scales' last axis has " + std::to_string(scale_rows.row_length));
  auto out = new_array<float>(with_last(elements.shape, row_length));
  const auto* element_in = static_cast<const std::uint8_t*>(elements.data());
  const auto* scale_in = static_cast<const std::uint8_t*>(scales.data());
  float* result = mutable_data(out);
  const std::size_t rows = element_rows.rows;
  run_without_gil(rows * row_length, [&] {
    if (row_length % options.block_size == 0) {
      mx::dequantize(element_in, rows * row_bytes, scale_in, rows * row_scales, rows * row_length, result, element,
                     options);
      return;
    }
    for (std::size_t r = 0; r < rows; ++r)
      mx::dequantize(element_in + r * row_bytes, row_bytes, scale_in + r * row_scales, row_scales, row_length,
                     result + r * row_length, element, options);
  });
  return out;
}

}  // namespace

void register_mx(py::module_& module) {
  using namespace pybind11::literals;
  module.def("mx_quantize", &mx_quantize, "array"_a, "element"_a, py::kw_only(), "block_size"_a = 32,
             "scale_rule"_a = "floor",
             R"(OCP MX block quantization along the last axis: returns (elements, scales).

element     "mxfp8_e4m3", "mxfp8_e5m2", "mxfp6_e3m2", "mxfp6_e2m3", "mxfp4_e2m1" or "mxint8".
block_size  values per shared E8M0 scale (32 in the specification); each row's last
            block may be shorter. Packed kinds need a multiple of 2 (FP4) or 4 (FP6).
scale_rule  "floor": s = floor(log2(max|x|)) - emax_elem (the specification's rule);
            "ceil": the smallest s with max|x| <= max_elem * 2^s.
Elements are x * 2^-s rounded to nearest even and clamped to the element's max; a block
with a NaN or infinity gets scale 0xFF (NaN). elements is uint8 of the input's shape for
the 8-bit kinds, or (..., packed bytes per row) for FP6 and FP4; scales is uint8 of shape
(..., blocks per row). Input must be float32.)");
  module.def("mx_dequantize", &mx_dequantize, "elements"_a, "scales"_a, "element"_a, py::kw_only(),
             "block_size"_a = 32, "length"_a = py::none(),
             R"(The float32 values of MX blocks from mx_quantize: element * 2^s.

length is the row length (the last axis of the original array); it is needed only for
packed kinds whose rows do not fill their last byte (odd FP4 rows, FP6 rows not a
multiple of 4). The default is as many values as the bytes hold.)");
  module.def(
      "mx_elements",
      [] {
        std::vector<std::string> names;
        for (mx::Element element : mx::kAllElements) names.emplace_back(mx::element_name(element));
        return names;
      },
      "The MX element kinds mx_quantize accepts.");
}

}  // namespace softfloat::python
