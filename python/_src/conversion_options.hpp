// The options every Python conversion takes, read from the keyword arguments into the
// library's types: a format spec, a rounding name, saturate=True/False and the seed and
// offset of stochastic rounding.
#pragma once

#include <cstdint>
#include <string>

#include <pybind11/pybind11.h>

#include "softfloat/format.hpp"
#include "softfloat/random_bits.hpp"
#include "softfloat/rounding.hpp"

namespace softfloat::python {

struct ConversionOptions {
  Format format;
  Rounding mode = Rounding::nearest_even;
  Overflow policy = Overflow::standard;
  RandomStream random;
};

// parse_format(spec); a bad spec raises ValueError naming `function` and the grammar.
Format read_format(const std::string& spec, const char* function);

// A rounding name (rounding_modes()); ValueError naming `function` otherwise.
Rounding read_rounding(const std::string& rounding, const char* function);

// The seed and offset of a stochastic stream: ints in [0, 2^64); see below for None.
RandomStream read_random_stream(const char* function, Rounding mode, const pybind11::object& seed,
                                const pybind11::object& offset);

// The seed: an int in [0, 2^64). None draws a fresh one from os.urandom(8) for the
// stochastic modes, so that two calls without a seed round independently (as
// numpy.random.default_rng(None) does); the deterministic modes ignore the seed.
ConversionOptions read_conversion_options(const char* function, const std::string& format,
                                          const std::string& rounding, bool saturate, const pybind11::object& seed,
                                          const pybind11::object& offset);

}  // namespace softfloat::python
