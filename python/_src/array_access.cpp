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

namespace {

// Whether `dtype` is one of ml_dtypes' floating-point types (bfloat16, float8_e4m3fn,
// float4_e2m1fn, ...; not its int4 / uint4): ml_dtypes.finfo takes exactly those.
bool is_ml_dtypes_float(const py::dtype& dtype) {
  const py::object type = dtype.attr("type");
  if (!py::hasattr(type, "__module__") || py::str(type.attr("__module__")).cast<std::string>() != "ml_dtypes")
    return false;
  try {
    py::module_::import("ml_dtypes").attr("finfo")(dtype);
    return true;
  } catch (const py::error_already_set&) {
    return false;
  }
}

}  // namespace

FloatInput read_float_input(const py::handle& object, const char* function) {
  const py::array array = as_array(object, function);
  const py::dtype dtype = array.dtype();
  FloatInput input;
  if (dtype.kind() == 'f' && dtype.itemsize() == 4) {
    input.array = contiguous<float>(array, function);
  } else if (dtype.kind() == 'f' && dtype.itemsize() == 8) {
    input.array = contiguous<double>(array, function);
    input.is_double = true;
  } else if ((dtype.kind() == 'f' && dtype.itemsize() == 2) || is_ml_dtypes_float(dtype)) {
    // float16 and ml_dtypes' floats hold values that float32 holds exactly (at most 11
    // significant bits, exponents within float32's), so their cast to float32 loses
    // nothing and the conversion rounds each value once, from there.
    input.array = contiguous<float>(array.attr("astype")(py::dtype::of<float>()), function);
  } else {
    throw py::type_error(std::string("softfloat.") + function +
                         ": expected an array of floats (float32, float64, float16 or an ml_dtypes float type), "
                         "got dtype " + dtype_name(array));
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
