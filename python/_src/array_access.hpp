// NumPy arrays in and out of the compiled code. Inputs are checked for their dtype
// (TypeError naming the dtype received and the ones accepted) and made C-contiguous:
// a strided, Fortran-ordered, reversed or byte-swapped array is copied once into a
// contiguous native-order buffer, which the library then reads in one pass. Outputs are
// new C-contiguous arrays of the input's shape.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

namespace softfloat::python {

namespace py = pybind11;

using Shape = std::vector<py::ssize_t>;

// A float32 or float64 array, contiguous (float16 and ml_dtypes' float arrays arrive as
// float32, decoded exactly from their codes by softfloat._native_arrays). `array` owns
// (or borrows) the data.
struct FloatInput {
  py::array array;
  bool is_double = false;
  Shape shape;
  std::size_t size = 0;
  const void* data() const { return array.data(); }
};
FloatInput read_float_input(const py::handle& object, const char* function);

// An array of unsigned integer codes (uint8, uint16, uint32, and uint64 where
// `allow_64` says so), contiguous.
struct CodeInput {
  py::array array;
  int code_bytes = 1;
  Shape shape;
  std::size_t size = 0;
  const void* data() const { return array.data(); }
};
CodeInput read_code_input(const py::handle& object, const char* function, bool allow_64);

// The dtype argument of the functions that return floats: numpy.float32 or
// numpy.float64 in any spelling NumPy accepts ("float32", np.float64, ...); true for
// float64.
bool read_float_dtype(const py::object& dtype, const char* function);

// "float16", "uint8", ...: for messages.
std::string dtype_name(const py::dtype& dtype);
std::string dtype_name(const py::array& array);

Shape shape_of(const py::array& array);
std::size_t element_count(const Shape& shape);

template <class T>
py::array_t<T> new_array(const Shape& shape) {
  return py::array_t<T>(shape);
}
template <class T>
T* mutable_data(py::array_t<T>& array) {
  return static_cast<T*>(array.mutable_data());
}

// Runs `work` without the GIL when the array is large enough for other Python threads
// to gain from it (releasing costs about as much as converting a hundred values).
inline constexpr std::size_t kReleaseGilFrom = 4096;
template <class Work>
void run_without_gil(std::size_t n, Work&& work) {
  if (n >= kReleaseGilFrom) {
    py::gil_scoped_release release;
    std::forward<Work>(work)();
  } else {
    std::forward<Work>(work)();
  }
}

}  // namespace softfloat::python
