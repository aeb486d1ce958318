// softfloat cost fit | weights | transfer | roofline | allreduce: what a format costs in
// memory, time and fit, from the arithmetic of softfloat/cost.hpp. Every number is
// printed with its unit; formats are specs (parse_format()'s grammar, or mxfp4, nvfp4,
// ...), sizes and rates plain numbers such as 70e9.
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <cstdint>
#include <iostream>
#include <memory>
#include <string>
#include <system_error>
#include <vector>

#include "cli/commands.hpp"
#include "cli/number_text.hpp"
#include "cli/options.hpp"
#include "cli/table.hpp"
#include "softfloat/cost.hpp"
#include "softfloat/escape.hpp"
#include "softfloat/matmul_model.hpp"

namespace softfloat::cli {
namespace {

using namespace softfloat::cost;

// "70 GB", "3.35 TB/s", "1 PFLOP/s": decimal (SI) prefixes, as the figures they are
// compared with are quoted; values below 1e6 are written out ("327680 B").
std::string with_unit(double value, const std::string& unit) {
  const char* prefixes[] = {"k", "M", "G", "T", "P", "E"};
  if (std::fabs(value) < 1e6) return significant(value, 6) + " " + unit;
  int power = 0;
  double scaled = value;
  while (std::fabs(scaled) >= 1000 && power < 6) {
    scaled /= 1000;
    ++power;
  }
  return significant(scaled, 4) + " " + prefixes[power - 1] + unit;
}

// "4.776 ms", "320 ms", "1.2 s", "850 us".
std::string seconds_text(double seconds) {
  if (seconds == 0) return "0 s";
  if (seconds >= 1) return significant(seconds, 4) + " s";
  if (seconds >= 1e-3) return significant(seconds * 1e3, 4) + " ms";
  if (seconds >= 1e-6) return significant(seconds * 1e6, 4) + " us";
  return significant(seconds * 1e9, 4) + " ns";
}

// A count as written on the command line: 70e9, 37.19e9, 16384.
std::string count_text(double value) {
  if (value < 1e6) return significant(value, 6);
  int exponent = 0;
  double mantissa = value;
  while (mantissa >= 1000) {
    mantissa /= 1000;
    exponent += 3;
  }
  return significant(mantissa, 4) + "e" + std::to_string(exponent);
}

std::string bits_text(const StorageFormat& format) { return significant(format.bits_per_value(), 4); }

// Accepts what parse_storage_format() accepts (format specs, mxfp4, nvfp4, ...) and
// reports its message.
CLI::Validator storage_spec_validator() {
  return parse_validator([](const std::string& spec) { parse_storage_format(spec); }, "storage format spec", "SPEC");
}

// A rate or an amount: a finite number (70e9, 3.35e12) above zero, or from zero when
// `zero_allowed`. CLI11's own range checks print their bounds in full; this says what
// is expected.
CLI::Validator number_validator(bool zero_allowed) {
  return CLI::Validator(
      [zero_allowed](std::string& text) -> std::string {
        const std::string expected = zero_allowed ? "a finite number >= 0" : "a finite number > 0";
        char* end = nullptr;
        const double value = std::strtod(text.c_str(), &end);
        const bool read = !text.empty() && end == text.c_str() + text.size() && std::isfinite(value);
        if (!read || value < 0 || (value == 0 && !zero_allowed))
          return "expected " + expected + "; got '" + escape_unprintable(text) + "'";
        return {};
      },
      zero_allowed ? "NUMBER>=0" : "NUMBER>0", "number");
}

// A count of layers, heads, devices: a whole number from 1 to `most`.
CLI::Validator count_validator(std::uint64_t most) {
  return CLI::Validator(
      [most](std::string& text) -> std::string {
        std::uint64_t value = 0;
        const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
        if (text.empty() || error != std::errc() || end != text.data() + text.size() || value < 1 || value > most)
          return "expected a whole number from 1 to " + std::to_string(most) + "; got '" +
                 escape_unprintable(text) + "'";
        return {};
      },
      "COUNT", "count");
}

const std::string kSpecHelp = " (a format spec, or mxfp8_e4m3 mxfp8_e5m2 mxfp6_e3m2 mxfp6_e2m3 mxfp4 mxint8 nvfp4)";

const std::string kIllustrativeRates =
    "Rates are those given; the defaults are illustrative round figures (H100-class), not measurements.";

// ---- fit ---------------------------------------------------------------------------

struct FitRequest {
  ModelShape shape = LLAMA3_70B_SHAPE;
  double memory_bytes = 80e9;
  std::vector<std::string> weights{"e4m3"};
  std::vector<std::string> caches{"bf16"};
};

void print_fit(const FitRequest& request) {
  const ModelShape& shape = request.shape;
  Table table;
  table.title = "Weights and KV cache on one device of " + with_unit(request.memory_bytes, "B") + ": " +
                count_text(shape.params) + " parameters, " + std::to_string(shape.layers) + " layers, " +
                std::to_string(shape.kv_heads) + " KV heads of " + std::to_string(shape.head_dim);
  table.columns = {"weights", "bits/value", "weight bytes", "cache", "bits/value", "cache bytes/token", "free bytes",
                   "max cache tokens"};
  for (const auto& weights_spec : request.weights)
    for (const auto& cache_spec : request.caches) {
      const StorageFormat weights(weights_spec), cache(cache_spec);
      const DeviceFit fit = fit_on_device(request.memory_bytes, shape, weights, cache);
      table.rows.push_back({weights.name(), bits_text(weights), with_unit(fit.weight_bytes, "B"), cache.name(),
                            bits_text(cache), with_unit(fit.cache_bytes_per_token, "B"),
                            with_unit(fit.free_bytes, "B"),
                            fit.weights_fit ? std::to_string(fit.max_cache_tokens) : "weights do not fit"});
    }
  table.notes = {"cache bytes/token = 2 (K and V) x layers x KV heads x head dim x bytes/value; max cache tokens = "
                 "floor(free bytes / cache bytes/token).",
                 "Bytes are decimal (1 GB = 1e9 B). An upper bound: activations and workspace need memory too."};
  print_table(std::cout, table);
}

void add_fit(CLI::App& cost, Execution execution) {
  auto request = std::make_shared<FitRequest>();
  CLI::App* command = cost.add_subcommand(
      "fit", "How many tokens of KV cache fit beside the weights in one device's memory (default: the Llama-3-70B "
             "shape on 80e9 bytes)");
  command->add_option("--params", request->shape.params, "parameters (weights)")
      ->check(number_validator(false))->capture_default_str();
  command->add_option("--layers", request->shape.layers, "transformer layers")
      ->check(count_validator(std::uint64_t{1} << 32))->capture_default_str();
  command->add_option("--kv-heads", request->shape.kv_heads, "key/value heads per layer")
      ->check(count_validator(std::uint64_t{1} << 32))->capture_default_str();
  command->add_option("--head-dim", request->shape.head_dim, "elements of one head's key or value")
      ->check(count_validator(std::uint64_t{1} << 32))->capture_default_str();
  command->add_option("--memory", request->memory_bytes, "device memory in bytes")
      ->check(number_validator(false))->capture_default_str();
  command->add_option("--weights", request->weights, "formats of the weights" + kSpecHelp)
      ->delimiter(',')->check(storage_spec_validator())->capture_default_str();
  command->add_option("--cache", request->caches, "formats of the KV cache" + kSpecHelp)
      ->delimiter(',')->check(storage_spec_validator())->capture_default_str();
  set_action(*command, execution, [] {}, [request] { print_fit(*request); });
}

// ---- weights -----------------------------------------------------------------------

struct WeightsRequest {
  double params = 70e9;
  std::vector<std::string> formats{"bf16", "e4m3", "e2m1", "mxfp4"};
  double bytes_per_second = 3.35e12;
};

void print_weights(const WeightsRequest& request) {
  Table table;
  table.title = "Weights of " + count_text(request.params) + " parameters, and the least time per generated token "
                "reading them at " + with_unit(request.bytes_per_second, "B/s");
  table.columns = {"format", "bits/value", "weight bytes", "decode time/token"};
  for (const auto& spec : request.formats) {
    const StorageFormat format(spec);
    table.rows.push_back({format.name(), bits_text(format), with_unit(weight_bytes(request.params, format), "B"),
                          seconds_text(decode_seconds_per_token(request.params, format, request.bytes_per_second))});
  }
  table.notes = {"bits/value: packed 4- and 6-bit codes as stored; MX adds an 8-bit scale per 32 values, NVFP4 an "
                 "8-bit scale per 16.",
                 "decode time = weight bytes / bandwidth: every weight is read once per token at batch size 1.",
                 kIllustrativeRates};
  print_table(std::cout, table);
}

void add_weights(CLI::App& cost, Execution execution) {
  auto request = std::make_shared<WeightsRequest>();
  CLI::App* command =
      cost.add_subcommand("weights", "Bytes of a model's weights per format, and the decode time per token they set");
  command->add_option("--params", request->params, "parameters")->check(number_validator(false))->capture_default_str();
  command->add_option("--formats", request->formats, "formats" + kSpecHelp)
      ->delimiter(',')->check(storage_spec_validator())->capture_default_str();
  command->add_option("--bandwidth", request->bytes_per_second, "memory bandwidth in bytes per second")
      ->check(number_validator(false))->capture_default_str();
  set_action(*command, execution, [] {}, [request] { print_weights(*request); });
}

// ---- transfer ----------------------------------------------------------------------

void print_transfer(double bytes) {
  Table table;
  table.title = "Moving " + with_unit(bytes, "B") + " out of each level of an ILLUSTRATIVE memory hierarchy "
                "(round figures of one H100-class device and its host, not measurements)";
  table.columns = {"level", "capacity", "bandwidth", "time"};
  for (const MemoryLevel& level : kIllustrativeMemoryHierarchy)
    table.rows.push_back({std::string(level.name), level.capacity_bytes > 0 ? with_unit(level.capacity_bytes, "B") : "-",
                          with_unit(level.bytes_per_second, "B/s"),
                          seconds_text(transfer_seconds(bytes, level.bytes_per_second))});
  const double hbm = illustrative_memory_level("HBM").bytes_per_second;
  const double host = illustrative_memory_level("host memory").bytes_per_second;
  table.notes = {"time = bytes / bandwidth (latency left out). Host memory is " + significant(hbm / host, 3) +
                 "x slower than HBM here."};
  print_table(std::cout, table);
}

void add_transfer(CLI::App& cost, Execution execution) {
  auto bytes = std::make_shared<double>(16e9);
  CLI::App* command = cost.add_subcommand(
      "transfer", "Time to move a number of bytes out of each level of an illustrative memory hierarchy");
  command->add_option("--bytes", *bytes, "bytes to move")->check(number_validator(true))->capture_default_str();
  set_action(*command, execution, [] {}, [bytes] { print_transfer(*bytes); });
}

// ---- roofline ----------------------------------------------------------------------

struct RooflineRequest {
  Roofline machine{1e15, 3.35e12};
  std::uint64_t size = 4096;
  std::uint64_t tile = 128;
  std::vector<std::string> formats{"bf16", "e4m3"};
  std::vector<double> intensities;
};

void print_roofline(const RooflineRequest& request) {
  const Roofline& machine = request.machine;
  Table table;
  table.title = "Roofline of " + with_unit(machine.flops_per_second, "FLOP/s") + " over " +
                with_unit(machine.bytes_per_second, "B/s") + ": ridge point " +
                significant(ridge_intensity(machine), 4) + " FLOPs/byte";
  table.columns = {"kernel", "FLOPs/byte", "bound", "attainable", "of peak"};
  auto add_row = [&](const std::string& kernel, double intensity) {
    const double attainable = attainable_flops_per_second(machine, intensity);
    table.rows.push_back({kernel, significant(intensity, 4), std::string(bound_name(bound_at(machine, intensity))),
                          with_unit(attainable, "FLOP/s"), percent(attainable / machine.flops_per_second, 3)});
  };
  const std::string n = std::to_string(request.size), t = std::to_string(request.tile);
  for (const auto& spec : request.formats) {
    const StorageFormat format(spec);
    add_row("matmul " + n + "^3, tiles of " + t + ", " + format.name(),
            matmul_intensity(double(request.size), double(request.tile), format.bytes_per_value()));
    // y = W x with each weight read once: 2 FLOPs (multiply, add) per weight's bytes.
    add_row("matrix-vector, " + format.name() + " weights", 2 / format.bytes_per_value());
  }
  for (const double intensity : request.intensities) add_row("given", intensity);
  table.notes = {"attainable = min(peak, FLOPs/byte x bandwidth); below the ridge point a kernel waits for memory.",
                 "matmul FLOPs/byte = 2 n^3 / (bytes/value x (2 n^3 / T + n^2)), the tiled traffic of "
                 "matmul_model.hpp.",
                 kIllustrativeRates};
  print_table(std::cout, table);
}

void add_roofline(CLI::App& cost, Execution execution) {
  auto request = std::make_shared<RooflineRequest>();
  CLI::App* command = cost.add_subcommand(
      "roofline", "Ridge point of a machine, and whether tiled matmul and matrix-vector kernels in each format are "
                  "memory- or compute-bound");
  command->add_option("--peak", request->machine.flops_per_second, "peak FLOP/s")
      ->check(number_validator(false))->capture_default_str();
  command->add_option("--bandwidth", request->machine.bytes_per_second, "memory bandwidth in bytes per second")
      ->check(number_validator(false))->capture_default_str();
  command->add_option("--size", request->size, "matmul size n (n x n times n x n)")
      ->check(count_validator(std::uint64_t{1} << 20))->capture_default_str();
  command->add_option("--tile", request->tile, "tile size T of the tiled matmul")
      ->check(count_validator(std::uint64_t{1} << 20))->capture_default_str();
  command->add_option("--formats", request->formats, "formats of the operands" + kSpecHelp)
      ->delimiter(',')->check(storage_spec_validator())->capture_default_str();
  command->add_option("--intensity", request->intensities, "further kernels, by their FLOPs per byte")
      ->delimiter(',')->check(number_validator(false));
  set_action(*command, execution, [] {}, [request] { print_roofline(*request); });
}

// ---- allreduce ---------------------------------------------------------------------

struct AllReduceRequest {
  double bytes = 0;  // 0: the gradients of --params in --format
  double params = 7e9;
  std::string format = "bf16";
  std::uint64_t devices = 8;
  std::vector<double> bandwidths{500e9, 50e9};
  double tokens = 16384;
  double peak = 1e15;
  double sent = -1;  // below 0: not given (--sent takes no negatives)
};

// "3 ms (4x less)", "-1 ms (1.5x more)": the ring's seconds less the measured ones.
// `ratio` is of the bytes (ring / measured), so every row shows the same one; with
// nothing on one side it is 0 or infinite and left out.
std::string saved_text(double ring, double measured, double ratio) {
  const std::string time = (ring < measured ? "-" : "") + seconds_text(std::fabs(ring - measured));
  if (ratio == 1 || ratio == 0 || !std::isfinite(ratio)) return time;
  return time + " (" + (ratio > 1 ? significant(ratio, 3) + "x less)" : significant(1 / ratio, 3) + "x more)");
}

void print_all_reduce(const AllReduceRequest& request) {
  const bool from_params = request.bytes == 0;
  const double bytes = from_params ? weight_bytes(request.params, StorageFormat(request.format)) : request.bytes;
  const double sent = ring_all_reduce_bytes_sent_per_device(bytes, request.devices);
  Table table;
  table.title = "Ring all-reduce of " + with_unit(bytes, "B") +
                (from_params ? " (" + count_text(request.params) + " " + StorageFormat(request.format).name() +
                                   " gradients)"
                             : "") +
                " over " + std::to_string(request.devices) + " devices: each sends " + with_unit(sent, "B") +
                " (2 (N - 1) / N = " + significant(sent / bytes, 4) + " times the array)";
  const bool compare = request.sent >= 0;
  table.columns = {"link bandwidth", "time"};
  if (compare) table.columns.insert(table.columns.end(), {"time of --sent bytes", "saved"});
  for (const double bandwidth : request.bandwidths) {
    const double ring = all_reduce_seconds(bytes, request.devices, bandwidth);
    std::vector<std::string> cells{with_unit(bandwidth, "B/s"), seconds_text(ring)};
    if (compare) {
      // transfer_seconds() is what all_reduce_seconds() times the ring with: only the bytes differ.
      const double measured = transfer_seconds(request.sent, bandwidth);
      cells.insert(cells.end(), {seconds_text(measured), saved_text(ring, measured, sent / request.sent)});
    }
    table.rows.push_back(cells);
  }
  table.notes = {"time = bytes sent per device / bandwidth, every link busy at once; latency left out.",
                 kIllustrativeRates};
  if (compare)
    table.notes.insert(table.notes.begin() + 1,
                       "time of --sent bytes = the " + with_unit(request.sent, "B") + " measured on one device / "
                       "bandwidth, compared with the ring of the --bytes/--params array (2 (N - 1) / N of it: " +
                       with_unit(sent, "B") + ").");
  if (from_params)
    table.notes.push_back("For scale, one training step's compute over " + count_text(request.tokens) +
                          " tokens: 6 P D / peak = " +
                          seconds_text(training_step_seconds(request.params, request.tokens, request.peak)) + " at " +
                          with_unit(request.peak, "FLOP/s") + ".");
  print_table(std::cout, table);
}

void add_all_reduce(CLI::App& cost, Execution execution) {
  auto request = std::make_shared<AllReduceRequest>();
  CLI::App* command = cost.add_subcommand(
      "allreduce", "Traffic and time of a ring all-reduce of gradients across devices (default: 7e9 bf16 "
                   "gradients, 14e9 bytes, over 8 devices)");
  CLI::Option* bytes = command->add_option("--bytes", request->bytes, "bytes to all-reduce (instead of --params)")
                           ->check(number_validator(false));
  command->add_option("--params", request->params, "gradients (parameters) to all-reduce")
      ->check(number_validator(false))->capture_default_str()->excludes(bytes);
  command->add_option("--format", request->format, "format of the gradients" + kSpecHelp)
      ->check(storage_spec_validator())->capture_default_str()->excludes(bytes);
  command->add_option("--devices", request->devices, "devices in the ring")
      ->check(count_validator(std::uint64_t{1} << 40))->capture_default_str();
  command->add_option("--bandwidth", request->bandwidths, "bytes per second each device sends, one row each")
      ->delimiter(',')->check(number_validator(false))->capture_default_str();
  command->add_option("--tokens", request->tokens, "tokens per training step (for the compute time beside it)")
      ->check(number_validator(false))->capture_default_str()->excludes(bytes);
  command->add_option("--peak", request->peak, "FLOP/s of a device (for the compute time)")
      ->check(number_validator(false))->capture_default_str()->excludes(bytes);
  command->add_option("--sent", request->sent,
                      "bytes one device measured sending for this array (what softfloat.torch.distributed.all_reduce "
                      "returns, or CompressHook.last_step_bytes), timed beside the ring")
      ->check(number_validator(true));
  set_action(*command, execution, [] {}, [request] { print_all_reduce(*request); });
}

}  // namespace

void add_cost_command(CLI::App& app, Execution execution) {
  CLI::App* cost = app.add_subcommand(
      "cost", "What a format costs: weight and KV-cache bytes and fit, transfer and decode time, roofline, "
              "all-reduce");
  add_fit(*cost, execution);
  add_weights(*cost, execution);
  add_transfer(*cost, execution);
  add_roofline(*cost, execution);
  add_all_reduce(*cost, execution);
  // Without a calculation, say which there are (CLI11 alone would only ask for one).
  cost->allow_extras();
  cost->callback([cost] {
    if (!cost->get_subcommands().empty()) return;
    const auto extras = cost->remaining();
    const std::string names = "fit, weights, transfer, roofline, allreduce";
    throw std::invalid_argument(extras.empty() ? "cost: name a calculation: " + names
                                               : "cost: unknown calculation '" + escape_unprintable(extras.front()) +
                                                     "'; expected " + names);
  });
}

}  // namespace softfloat::cli
