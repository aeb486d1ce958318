// How many threads the array functions (softfloat/simd.hpp) may use. Default 1: every
// call runs on the calling thread. The environment variable SOFTFLOAT_NUM_THREADS,
// read once at the first use, sets the starting value; set_num_threads() overrides it.
// Large arrays are split into contiguous blocks, one per thread, and every element is
// converted on its own, so the output bits never depend on the thread count.
#pragma once

namespace softfloat {

// n >= 1, else std::invalid_argument.
void set_num_threads(int n);
// The current value. Until set_num_threads() is called, a SOFTFLOAT_NUM_THREADS that is
// not a positive integer makes this (and so every array call) throw
// std::invalid_argument naming the bad value.
int num_threads();

}  // namespace softfloat
