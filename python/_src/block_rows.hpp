// The block rows that the MX (mx.cpp) and NVFP4 (nvfp4.cpp) bindings share: the axis the
// blocks run along, moved last and back, and the rows along it. The blocks run along
// `axis` (the last one by default): an array whose blocks lie along another axis is
// moved so that they lie along the last (numpy.moveaxis, one contiguous copy) and the
// results are moved back. Each row along that axis is its own array of blocks, so a block
// never spans two rows and each row's last block may be shorter, as microxcaling scales a
// weight matrix along its reduction axis. Element codes come back as uint8 of the input's
// shape (8-bit kinds) or packed along the axis (4- and 6-bit kinds, the library's layout:
// element_bytes(row length) bytes per row); the scale codes as uint8 with
// ceil(row length / block_size) entries per row. Stochastic rounding numbers the elements
// in C order with the axis moved last: element i draws random_bits(seed, offset + i).
// A file of its own because both block formats read their arrays this way, and neither
// format's file should hold the other's helpers.
#pragma once

#include <cstddef>
#include <string>

// std::vector <-> list, as in every part of the module (bindings.hpp); check_same_rows
// casts a Shape for its message.
#include <pybind11/stl.h>

#include "python/_src/array_access.hpp"

namespace softfloat::python {

// "softfloat.<function>: ", the start of every message.
std::string where(const char* function);

// The axis the blocks run along, as a non-negative index.
int read_axis(int axis, py::ssize_t ndim, const char* function);

// `array` with axis `from` moved to position `to` (numpy.moveaxis), C-contiguous.
py::object moved(const py::object& array, int from, int to);

// The rows of an array whose blocks lie along the last axis.
struct Rows {
  std::size_t rows = 0;
  std::size_t row_length = 0;
};
Rows rows_of(const Shape& shape);

Shape with_last(const Shape& shape, std::size_t last);

// A float32 array whose blocks run along `axis` (normalized in place), moved so that
// they run along the last; TypeError for float64.
FloatInput float32_input(const py::object& array, int& axis, const char* function);

// A uint8 code array whose blocks run along `axis`, moved so that they run along the last.
CodeInput byte_codes(const py::object& array, int axis, const char* function, const char* what);

// ValueError unless elements and `what` agree in every axis but the last.
void check_same_rows(const Shape& a, const Shape& b, const char* function, const char* what);

// The row length of packed or byte elements: `length`, or as many as the bytes hold.
std::size_t read_row_length(const py::object& length, std::size_t row_bytes, int bits, const char* function);

}  // namespace softfloat::python
