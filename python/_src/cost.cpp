// The cost model's all-reduce for Python: the bytes a ring all-reduce sends, so that
// softfloat.torch.distributed can be checked against the model it runs for real.
#include <cstdint>
#include <vector>

#include "python/_src/bindings.hpp"
#include "softfloat/cost/all_reduce.hpp"

namespace softfloat::python {

void register_cost(pybind11::module_& module) {
  using namespace pybind11::literals;
  module.def(
      "simulate_ring_all_reduce",
      [](std::vector<std::vector<std::int64_t>> inputs) {
        const cost::RingAllReduce ring = cost::simulate_ring_all_reduce(std::move(inputs));
        pybind11::dict result;
        result["devices"] = ring.devices;
        result["numbers_sent"] = ring.numbers_sent;
        result["numbers_received"] = ring.numbers_received;
        result["steps"] = ring.steps;
        result["every_device_has_exact_sum"] = ring.every_device_has_exact_sum;
        return result;
      },
      "inputs"_a,
      R"(softfloat::cost::simulate_ring_all_reduce: the ring all-reduce of one integer list per
device, run step by step. Returns a dict: devices (each list afterwards), numbers_sent
and numbers_received (per device, both phases), steps (2 (N - 1)) and
every_device_has_exact_sum. ValueError for no devices or lists of different lengths.)");
}

}  // namespace softfloat::python
