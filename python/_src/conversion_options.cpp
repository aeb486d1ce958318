// Reading the conversion options of the Python functions (conversion_options.hpp).
#include "python/_src/conversion_options.hpp"

#include <cstring>
#include <stdexcept>
#include <string>

#include "softfloat/escape.hpp"
#include "softfloat/format_spec.hpp"

namespace softfloat::python {

namespace py = pybind11;

namespace {

// An int in [0, 2^64) from any object with __index__ (int, numpy.uint64, ...).
std::uint64_t read_uint64(const py::object& value, const char* function, const char* name) {
  PyObject* index = PyNumber_Index(value.ptr());
  if (index == nullptr) {
    PyErr_Clear();
    throw py::type_error(std::string("softfloat.") + function + ": " + name + " must be an integer, not " +
                         escape_unprintable(std::string(py::str(py::type::of(value).attr("__name__")))));
  }
  const unsigned long long result = PyLong_AsUnsignedLongLong(index);
  Py_DECREF(index);
  if (PyErr_Occurred()) {
    PyErr_Clear();
    throw py::value_error(std::string("softfloat.") + function + ": " + name + " must lie in [0, 2**64), not " +
                          std::string(py::repr(value)));
  }
  return result;
}

// Eight bytes of os.urandom(), the operating system's entropy.
std::uint64_t fresh_seed() {
  const std::string bytes = py::bytes(py::module_::import("os").attr("urandom")(8));
  std::uint64_t seed = 0;
  std::memcpy(&seed, bytes.data(), sizeof seed);
  return seed;
}

}  // namespace


Format read_format(const std::string& spec, const char* function) {
  try {
    return parse_format(spec);
  } catch (const std::invalid_argument& error) {
    throw py::value_error(std::string("softfloat.") + function + ": " + error.what());
  }
}

Rounding read_rounding(const std::string& rounding, const char* function) {
  try {
    return parse_rounding(rounding);
  } catch (const std::invalid_argument& error) {
    throw py::value_error(std::string("softfloat.") + function + ": " + error.what());
  }
}

RandomStream read_random_stream(const char* function, Rounding mode, const py::object& seed,
                                const py::object& offset) {
  RandomStream random;
  random.offset = read_uint64(offset, function, "offset");
  if (!seed.is_none()) random.seed = read_uint64(seed, function, "seed");
  else if (is_stochastic(mode)) random.seed = fresh_seed();
  return random;
}

ConversionOptions read_conversion_options(const char* function, const std::string& format,
                                          const std::string& rounding, bool saturate, const py::object& seed,
                                          const py::object& offset) {
  ConversionOptions options;
  options.format = read_format(format, function);
  options.mode = read_rounding(rounding, function);
  options.policy = saturate ? Overflow::saturate : Overflow::standard;
  options.random = read_random_stream(function, options.mode, seed, offset);
  return options;
}

}  // namespace softfloat::python
