// What a format costs: memory, time and fit, in namespace softfloat::cost. Each header
// does one job and states its formulas with worked numbers:
//
//   cost/work.hpp              parallel rounds, compute time, 6 P D training FLOPs
//   cost/memory_hierarchy.hpp  an illustrative table of memory levels, transfer time
//   cost/roofline.hpp          ridge point, memory- or compute-bound, attainable FLOP/s
//   cost/format_bytes.hpp      bits and bytes per value of any format, MX and NVFP4 too
//   cost/weights.hpp           weight bytes, decode time per token
//   cost/kv_cache.hpp          KV cache bytes per token, tokens that fit on a device
//   cost/all_reduce.hpp        a simulated ring all-reduce, its traffic and time
//
// The FLOP and traffic counts of matrix multiplication are matmul_model.hpp's.
#pragma once

#include "softfloat/cost/all_reduce.hpp"
#include "softfloat/cost/format_bytes.hpp"
#include "softfloat/cost/kv_cache.hpp"
#include "softfloat/cost/memory_hierarchy.hpp"
#include "softfloat/cost/roofline.hpp"
#include "softfloat/cost/weights.hpp"
#include "softfloat/cost/work.hpp"
