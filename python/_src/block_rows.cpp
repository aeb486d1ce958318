// The block rows of block_rows.hpp: reading the axis the blocks run along, moving it
// last and back, and checking the rows that MX and NVFP4 codes come in.
#include "python/_src/block_rows.hpp"

#include <string>

#include "softfloat/escape.hpp"

namespace softfloat::python {

std::string where(const char* function) { return std::string("softfloat.") + function + ": "; }

int read_axis(int axis, py::ssize_t ndim, const char* function) {
  if (ndim == 0)
    throw py::value_error(where(function) + "expected an array with at least one axis (the blocks run along one), "
                          "got a 0-d array");
  if (axis < -ndim || axis >= ndim)
    throw py::value_error(where(function) + "axis " + std::to_string(axis) + " is out of range for an array of " +
                          std::to_string(ndim) + " dimensions");
  return axis < 0 ? int(axis + ndim) : axis;
}

py::object moved(const py::object& array, int from, int to) {
  const py::module_ numpy = py::module_::import("numpy");
  return numpy.attr("ascontiguousarray")(numpy.attr("moveaxis")(array, from, to));
}

Rows rows_of(const Shape& shape) {
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

FloatInput float32_input(const py::object& array, int& axis, const char* function) {
  FloatInput input = read_float_input(array, function);
  if (input.is_double)
    throw py::type_error(where(function) + "expected a float32 array, got float64 (block scaling is defined on "
                         "float32 here; convert with array.astype(numpy.float32) if rounding to float32 first is "
                         "what you want)");
  axis = read_axis(axis, py::ssize_t(input.shape.size()), function);
  if (axis != int(input.shape.size()) - 1) input = read_float_input(moved(input.array, axis, -1), function);
  return input;
}

CodeInput byte_codes(const py::object& array, int axis, const char* function, const char* what) {
  CodeInput codes = read_code_input(array, function, false);
  if (codes.code_bytes != 1)
    throw py::type_error(where(function) + what + " are uint8 codes, got " + dtype_name(codes.array));
  const int last = int(codes.shape.size()) - 1;
  const int normalized = read_axis(axis, py::ssize_t(codes.shape.size()), function);
  if (normalized != last) codes = read_code_input(moved(codes.array, normalized, -1), function, false);
  return codes;
}

void check_same_rows(const Shape& a, const Shape& b, const char* function, const char* what) {
  if (Shape(a.begin(), a.end() - 1) != Shape(b.begin(), b.end() - 1))
    throw py::value_error(where(function) + "elements and " + what + " must agree in every axis but the blocks'; got "
                          "shapes " + std::string(py::str(py::tuple(py::cast(a)))) + " and " +
                          std::string(py::str(py::tuple(py::cast(b)))));
}

std::size_t read_row_length(const py::object& length, std::size_t row_bytes, int bits, const char* function) {
  if (length.is_none()) return row_bytes * 8 / std::size_t(bits);
  // Any object with __index__ (int, numpy.int64); others are a TypeError, not pybind11's
  // cast_error (a RuntimeError).
  PyObject* index = PyNumber_Index(length.ptr());
  if (index == nullptr) {
    PyErr_Clear();
    throw py::type_error(where(function) + "length must be an integer or None, not " +
                         escape_unprintable(std::string(py::str(py::type::of(length).attr("__name__")))));
  }
  const long long given = PyLong_AsLongLong(index);
  Py_DECREF(index);
  if (given == -1 && PyErr_Occurred()) {
    PyErr_Clear();
    throw py::value_error(where(function) + "length " + std::string(py::repr(length)) + " is out of range");
  }
  if (given < 0) throw py::value_error(where(function) + "length must not be negative");
  return std::size_t(given);
}

}  // namespace softfloat::python
