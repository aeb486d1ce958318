// softfloat.nvfp4_quantize / nvfp4_dequantize / nvfp4_round_trip (the two-level NVFP4
// scaling, softfloat/nvfp4.hpp) along any axis, in rows along that axis as
// block_rows.hpp describes, and the torch layer's NVFP4 entry points by address. Apart
// from MX (mx.cpp): fixed blocks of 16 E2M1 values with E4M3 scales and one amax for the
// whole tensor, so none of MX's element kinds, block sizes or scale rules apply.
#include <cstdint>
#include <string>
#include <vector>

#include "python/_src/array_access.hpp"
#include "python/_src/bindings.hpp"
#include "python/_src/block_rows.hpp"
#include "python/_src/conversion_options.hpp"
#include "softfloat/nvfp4.hpp"

namespace softfloat::python {

namespace {

// NVFP4's tensor-wide amax ties every row together, so its rows must hold whole blocks
// of 16: then the rows laid end to end are the library's single array.
void check_nvfp4_rows(const Rows& rows, const char* function) {
  if (rows.row_length % nvfp4::kBlockSize != 0)
    throw py::value_error(where(function) + "NVFP4 blocks hold 16 values and the tensor shares one amax, so the "
                          "blocks' axis must be a multiple of 16 long; it is " + std::to_string(rows.row_length));
}

py::tuple nvfp4_quantize(const py::object& array, int axis, const std::string& rounding, const py::object& seed,
                         const py::object& offset) {
  const char* function = "nvfp4_quantize";
  const Rounding mode = read_rounding(rounding, function);
  const RandomStream random = read_random_stream(function, mode, seed, offset);
  const FloatInput input = float32_input(array, axis, function);
  const Rows rows = rows_of(input.shape);
  check_nvfp4_rows(rows, function);
  const std::size_t n = input.size;
  auto elements = new_array<std::uint8_t>(with_last(input.shape, nvfp4::element_bytes(rows.row_length)));
  auto scales = new_array<std::uint8_t>(with_last(input.shape, nvfp4::scale_count(rows.row_length)));
  float amax = 0.0f;
  const float* in = static_cast<const float*>(input.data());
  std::uint8_t* element_out = mutable_data(elements);
  std::uint8_t* scale_out = mutable_data(scales);
  run_without_gil(n, [&] {
    nvfp4::quantize(in, n, element_out, nvfp4::element_bytes(n), scale_out, nvfp4::scale_count(n), &amax, mode,
                    random);
  });
  const int last = int(input.shape.size()) - 1;
  if (axis == last) return py::make_tuple(std::move(elements), std::move(scales), amax);
  return py::make_tuple(moved(elements, last, axis), moved(scales, last, axis), amax);
}

py::object nvfp4_dequantize(const py::object& elements_argument, const py::object& scales_argument, float amax,
                            int axis, const py::object& length) {
  const char* function = "nvfp4_dequantize";
  const CodeInput elements = byte_codes(elements_argument, axis, function, "elements");
  const CodeInput scales = byte_codes(scales_argument, axis, function, "block scales");
  check_same_rows(elements.shape, scales.shape, function, "block scales");
  const Rows element_rows = rows_of(elements.shape);
  const std::size_t row_length = read_row_length(length, element_rows.row_length, 4, function);
  const Rows rows{element_rows.rows, row_length};
  check_nvfp4_rows(rows, function);
  if (nvfp4::element_bytes(row_length) != element_rows.row_length ||
      nvfp4::scale_count(row_length) != std::size_t(scales.shape.back()))
    throw py::value_error(where(function) + "rows of " + std::to_string(row_length) + " values take " +
                          std::to_string(nvfp4::element_bytes(row_length)) + " element bytes and " +
                          std::to_string(nvfp4::scale_count(row_length)) + " scales; got " +
                          std::to_string(element_rows.row_length) + " and " + std::to_string(scales.shape.back()));
  const std::size_t n = rows.rows * row_length;
  auto out = new_array<float>(with_last(elements.shape, row_length));
  float* result = mutable_data(out);
  run_without_gil(n, [&] {
    nvfp4::dequantize(static_cast<const std::uint8_t*>(elements.data()), nvfp4::element_bytes(n),
                      static_cast<const std::uint8_t*>(scales.data()), nvfp4::scale_count(n), amax, n, result);
  });
  const int last = int(elements.shape.size()) - 1;
  const int normalized = read_axis(axis, py::ssize_t(elements.shape.size()), function);
  return normalized == last ? py::object(std::move(out)) : moved(out, last, normalized);
}

// NVFP4 fake quantization of n contiguous values: quantize, then dequantize.
void nvfp4_round_trip_values(const float* in, std::size_t n, float* out, Rounding mode, RandomStream random) {
  std::vector<std::uint8_t> elements(nvfp4::element_bytes(n)), scales(nvfp4::scale_count(n));
  float amax = 0.0f;
  nvfp4::quantize(in, n, elements.data(), elements.size(), scales.data(), scales.size(), &amax, mode, random);
  nvfp4::dequantize(elements.data(), elements.size(), scales.data(), scales.size(), amax, n, out);
}

py::object nvfp4_round_trip(const py::object& array, int axis, const std::string& rounding, const py::object& seed,
                            const py::object& offset) {
  const char* function = "nvfp4_round_trip";
  const Rounding mode = read_rounding(rounding, function);
  const RandomStream random = read_random_stream(function, mode, seed, offset);
  const FloatInput input = float32_input(array, axis, function);
  check_nvfp4_rows(rows_of(input.shape), function);
  auto out = new_array<float>(input.shape);
  float* result = mutable_data(out);
  run_without_gil(input.size, [&] {
    nvfp4_round_trip_values(static_cast<const float*>(input.data()), input.size, result, mode, random);
  });
  const int last = int(input.shape.size()) - 1;
  return axis == last ? py::object(std::move(out)) : moved(out, last, axis);
}

// The torch layer's entry points: contiguous float32 rows by address (tensor_buffers.cpp).
void nvfp4_round_trip_buffer(std::uintptr_t in, std::uintptr_t out, std::size_t rows, std::size_t row_length,
                             const std::string& rounding, const py::object& seed, const py::object& offset) {
  const char* function = "torch.nvfp4_quantize";
  const Rounding mode = read_rounding(rounding, function);
  const RandomStream random = read_random_stream(function, mode, seed, offset);
  check_nvfp4_rows(Rows{rows, row_length}, function);
  run_without_gil(rows * row_length, [&] {
    nvfp4_round_trip_values(reinterpret_cast<const float*>(in), rows * row_length, reinterpret_cast<float*>(out),
                            mode, random);
  });
}

// softfloat.torch.distributed's wire: one flat run of n values, codes written into and
// read from the caller's memory (the payload and the result), no array in between.
float nvfp4_quantize_buffer(std::uintptr_t in, std::uintptr_t elements, std::uintptr_t scales, std::size_t n,
                            const std::string& rounding, const py::object& seed) {
  const char* function = "torch.distributed";
  const Rounding mode = read_rounding(rounding, function);
  const RandomStream random = read_random_stream(function, mode, seed, py::int_(0));
  check_nvfp4_rows(Rows{1, n}, function);
  float amax = 0.0f;
  run_without_gil(n, [&] {
    nvfp4::quantize(reinterpret_cast<const float*>(in), n, reinterpret_cast<std::uint8_t*>(elements),
                    nvfp4::element_bytes(n), reinterpret_cast<std::uint8_t*>(scales), nvfp4::scale_count(n), &amax,
                    mode, random);
  });
  return amax;
}

void nvfp4_dequantize_buffer(std::uintptr_t elements, std::uintptr_t scales, float amax, std::uintptr_t out,
                             std::size_t n) {
  check_nvfp4_rows(Rows{1, n}, "torch.distributed");
  run_without_gil(n, [&] {
    nvfp4::dequantize(reinterpret_cast<const std::uint8_t*>(elements), nvfp4::element_bytes(n),
                      reinterpret_cast<const std::uint8_t*>(scales), nvfp4::scale_count(n), amax, n,
                      reinterpret_cast<float*>(out));
  });
}

}  // namespace

void register_nvfp4(py::module_& module) {
  using namespace pybind11::literals;
  module.def("nvfp4_quantize", &nvfp4_quantize, "array"_a, py::kw_only(), "axis"_a = -1,
             "rounding"_a = "nearest_even", "seed"_a = py::none(), "offset"_a = 0,
             R"(NVFP4 two-level scaling along `axis`: returns (elements, block_scales, tensor_amax).

E2M1 elements packed two a byte (element 0 in the low nibble), one E4M3 scale per block of
16 values, and the tensor's amax (a float) from which the tensor-wide scale follows, as in
softfloat/nvfp4.hpp (TransformerEngine's recipe, bit for bit). The blocks' axis must be a
multiple of 16 long. rounding is the elements' (any direction; stochastic as in
mx_quantize); the scales are always rounded to nearest even. Input must be float32.)");
  module.def("nvfp4_dequantize", &nvfp4_dequantize, "elements"_a, "block_scales"_a, "tensor_amax"_a, py::kw_only(),
             "axis"_a = -1, "length"_a = py::none(),
             R"(The float32 values of nvfp4_quantize's result (length: values per row along `axis`).)");
  module.def("nvfp4_round_trip", &nvfp4_round_trip, "array"_a, py::kw_only(), "axis"_a = -1,
             "rounding"_a = "nearest_even", "seed"_a = py::none(), "offset"_a = 0,
             R"(NVFP4 fake quantization: nvfp4_dequantize(*nvfp4_quantize(array, ...)), float32.)");
  module.def("_nvfp4_round_trip_buffer", &nvfp4_round_trip_buffer, "input"_a, "output"_a, "rows"_a, "row_length"_a,
             "rounding"_a, "seed"_a, "offset"_a,
             "NVFP4 fake quantization of contiguous float32 rows by address (private: softfloat.torch).");
  module.def("_nvfp4_quantize_buffer", &nvfp4_quantize_buffer, "input"_a, "elements"_a, "scales"_a, "n"_a,
             "rounding"_a, "seed"_a, "NVFP4 of n (a multiple of 16) float32 values by address; returns the amax.");
  module.def("_nvfp4_dequantize_buffer", &nvfp4_dequantize_buffer, "elements"_a, "scales"_a, "tensor_amax"_a,
             "output"_a, "n"_a, "The float32 values of n NVFP4 elements by address (private).");
}

}  // namespace softfloat::python
