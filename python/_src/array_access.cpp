// Checking and converting NumPy arrays (array_access.hpp).
#include "python/_src/array_access.hpp"

#include <string>

#include "softfloat/escape.hpp"

namespace softfloat::python {

namespace {

// Anything NumPy turns into an array (a list, a scalar) is accepted as that array.
py::array as_array(const py::handle& object, const char* function) {
  py::array array = py::array::ensure(object);
  if (!array)
    throw py::type_error(std::string("softfloat.") + function + ": expected a NumPy array, not " +
                         escape_unprintable(std::string(py::str(py::type::of(object).attr("__name__")))));
  return array;
}

// The same values as a C-contiguous array of native T: `array` itself when it is one,
// else a copy (a dtype with the same kind and size but the other byte order converts
// exactly).
template <class T>
py::array contiguous(const py::array& array, const char* function) {
  auto result = py::array_t<T, py::array::c_style>::ensure(array);
  if (!result)
    throw py::type_error(std::string("softfloat.") + function + ": could not read the " + dtype_name(array) +
                         " array as a contiguous array of " + dtype_name(py::dtype::of<T>()));
  return result;
}

}  // namespace

std::string dtype_name(const py::dtype& dtype) { return py::str(dtype.attr("name")).cast<std::string>(); }
std::string dtype_name(const py::array& array) { return dtype_name(array.dtype()); }

Shape shape_of(const py::array& array) { return Shape(array.shape(), array.shape() + array.ndim()); }

std::size_t element_count(const Shape& shape) {
  std::size_t count = 1;
  for (py::ssize_t extent : shape) count *= std::size_t(extent);
  return count;
}

FloatInput read_float_input(const py::handle& object, const char* function) {
  const py::array array = as_array(object, function);
  const py::dtype dtype = array.dtype();
  FloatInput input;
  if (dtype.kind() == 'f' && dtype.itemsize() == 4) {
    input.array = contiguous<float>(array, function);
  } else if (dtype.kind() == 'f' && dtype.itemsize() == 8) {
    input.array = contiguous<double>(array, function);
    input.is_double = true;
  } else {
    // float16 and ml_dtypes' floats hold values that float32 holds exactly (at most 11
    // significant bits, exponents within float32's): softfloat._native_arrays decodes
    // them from their codes, NaN payloads included, and the conversion rounds each value
    // once, from there.
    const py::object values = py::module_::import("softfloat._native_arrays").attr("_exact_values")(array);
    if (values.is_none())
      throw py::type_error(std::string("softfloat.") + function +
                           ": expected an array of floats (float32, float64, float16 or an ml_dtypes float type), "
                           "got dtype " + dtype_name(array));
    input.array = contiguous<float>(values, function);
  }
  input.shape = shape_of(input.array);
  input.size = std::size_t(input.array.size());
  return input;
}

CodeInput read_code_input(const py::handle& object, const char* function, bool allow_64) {
  const py::array array = as_array(object, function);
  const py::dtype dtype = array.dtype();
  const int size = int(dtype.itemsize());
  if (dtype.kind() != 'u' || (size == 8 && !allow_64))
    throw py::type_error(std::string("softfloat.") + function + ": expected codes as uint8, uint16 or uint32" +
                         (allow_64 ? " (uint64 for formats wider than 32 bits)" : "") + ", got dtype " +
                         dtype_name(array));
  CodeInput input;
  input.code_bytes = size;
  switch (size) {
    case 1: input.array = contiguous<std::uint8_t>(array, function); break;
    case 2: input.array = contiguous<std::uint16_t>(array, function); break;
    case 4: input.array = contiguous<std::uint32_t>(array, function); break;
    default: input.array = contiguous<std::uint64_t>(array, function); break;
  }
  input.shape = shape_of(input.array);
  input.size = std::size_t(input.array.size());
  return input;
}

bool read_float_dtype(const py::object& dtype_argument, const char* function) {
  const py::dtype dtype = py::dtype::from_args(dtype_argument);
  if (dtype.kind() == 'f' && dtype.itemsize() == 4) return false;
  if (dtype.kind() == 'f' && dtype.itemsize() == 8) return true;
  throw py::type_error(std::string("softfloat.") + function + ": dtype must be float32 or float64, not " +
                       dtype_name(dtype));
}

}  // namespace softfloat::python
