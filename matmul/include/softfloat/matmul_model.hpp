// The counted models of matrix multiplication: what the plain triple loop and the
// tiled loop nest cost in arithmetic and in traffic between a slow and a fast memory,
// counted while they run, beside the closed forms they agree with. The cost models
// of the project reuse these definitions, so they are stated here once:
//
//   counted_matmul   the triple loop; C with its multiplies and adds. Each of the k
//                    steps of an element is one multiply and one add, the first add
//                    going into the zero accumulator (as a multiply-add unit does), so
//                    multiplies = adds = m n k and FLOPs = matmul_flops = 2 m n k.
//                    [[1,2,3],[4,5,6]] x [[7,8],[9,10],[11,12]] = [[58,64],[139,154]]
//                    in 2 * 2 * 2 * 3 = 24 FLOPs.
//   tiled_matmul(T)  the loops over T x T tiles of C (rows i0, columns j0) and of the
//                    depth (p0), run over a simulated two-level memory: A, B and C live
//                    in slow memory, arithmetic reads only fast memory, and every word
//                    moved between the two is counted. A tile of C starts at zero in
//                    fast memory (never read) and is written back once; for each depth
//                    tile one tile of A and one of B are read. For square n with T
//                    dividing n that is (n/T)^2 C tiles x (n/T) depth tiles x 2 T^2
//                    words = 2 n^3 / T reads (matmul_reads), n^2 writes and a peak of
//                    3 T^2 words in fast memory.
//   matmul_intensity(n, T, b) = 2 n^3 / (b (2 n^3 / T + n^2)): FLOPs per byte of slow
//                    memory traffic (reads plus one write per element of C) with b
//                    bytes per word. 4096, T = 128: 64 / (1 + 1/64) = 4096/65 ~ 63.0
//                    FLOPs per byte at 2 bytes, 126.0 at 1 byte.
//
// The arithmetic is in double, so integer-valued inputs give exact C while every
// partial sum stays below 2^53.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

namespace softfloat {

// 2 m n k: one multiply and one add per step of each element's sum.
constexpr std::uint64_t matmul_flops(std::uint64_t m, std::uint64_t n, std::uint64_t k) { return 2 * m * n * k; }
// Slow-memory reads of tiled_matmul for square n and tile T (T dividing n): 2 n^3 / T.
constexpr double matmul_reads(double n, double tile) { return 2 * n * n * n / tile; }
// Slow-memory writes: each element of C once.
constexpr double matmul_writes(double n) { return n * n; }
// FLOPs per byte of slow-memory traffic with `bytes` bytes per word.
constexpr double matmul_intensity(double n, double tile, double bytes) {
  return 2 * n * n * n / (bytes * (matmul_reads(n, tile) + matmul_writes(n)));
}

struct CountedMatmul {
  std::vector<double> c;  // m x n, row-major
  std::uint64_t multiplies = 0;
  std::uint64_t adds = 0;
  std::uint64_t flops() const { return multiplies + adds; }
};

// Words moved between slow and fast memory, the arithmetic done, and the most words
// held in fast memory at once.
struct Traffic {
  std::uint64_t reads = 0;   // slow -> fast
  std::uint64_t writes = 0;  // fast -> slow
  std::uint64_t flops = 0;
  std::uint64_t peak_fast_words = 0;
  // FLOPs per byte of slow-memory traffic with `bytes` bytes per word.
  double intensity(double bytes) const { return double(flops) / (bytes * double(reads + writes)); }
};

struct TiledMatmul {
  std::vector<double> c;  // m x n, row-major
  Traffic traffic;
};

namespace detail {

inline void check_model_arguments(std::span<const double> a, std::span<const double> b, std::size_t m,
                                  std::size_t n, std::size_t k, const char* function) {
  // Sizes whose products overflow cannot describe the spans the caller holds.
  const std::size_t most = std::size_t(-1);
  if ((k > 0 && m > most / k) || (n > 0 && k > most / n) || (n > 0 && m > most / n))
    throw std::invalid_argument(std::string(function) + ": m, n, k too large");
  if (a.size() < m * k || b.size() < k * n)
    throw std::invalid_argument(std::string(function) + ": A needs m * k = " + std::to_string(m * k) +
                                " values and B k * n = " + std::to_string(k * n) + "; got " +
                                std::to_string(a.size()) + " and " + std::to_string(b.size()));
}

// A slow memory of row-major matrices and a fast memory of tiles. Arithmetic reads and
// writes tiles only; load() and store() are the only ways between the two, and each
// counts the words it moves. The fast memory's occupancy is the sum of the sizes of
// the tiles alive, and its peak is kept.
class TwoLevelMemory {
 public:
  class Tile {
   public:
    Tile(TwoLevelMemory& memory, std::size_t rows, std::size_t columns)
        : memory_(memory), rows_(rows), columns_(columns), words_(rows * columns, 0.0) {
      memory_.occupied_ += words_.size();
      memory_.traffic_.peak_fast_words = std::max(memory_.traffic_.peak_fast_words, memory_.occupied_);
    }
    ~Tile() { memory_.occupied_ -= words_.size(); }
    Tile(const Tile&) = delete;
    Tile& operator=(const Tile&) = delete;

    double& at(std::size_t i, std::size_t j) { return words_[i * columns_ + j]; }
    double at(std::size_t i, std::size_t j) const { return words_[i * columns_ + j]; }
    std::size_t rows() const { return rows_; }
    std::size_t columns() const { return columns_; }

   private:
    TwoLevelMemory& memory_;
    std::size_t rows_, columns_;
    std::vector<double> words_;
  };

  // tile = slow[row0 .. row0 + rows) x [col0 .. col0 + columns) of a matrix with row stride ld.
  void load(Tile& tile, std::span<const double> slow, std::size_t ld, std::size_t row0, std::size_t col0) {
    for (std::size_t i = 0; i < tile.rows(); ++i)
      for (std::size_t j = 0; j < tile.columns(); ++j) tile.at(i, j) = slow[(row0 + i) * ld + col0 + j];
    traffic_.reads += tile.rows() * tile.columns();
  }
  void store(const Tile& tile, std::span<double> slow, std::size_t ld, std::size_t row0, std::size_t col0) {
    for (std::size_t i = 0; i < tile.rows(); ++i)
      for (std::size_t j = 0; j < tile.columns(); ++j) slow[(row0 + i) * ld + col0 + j] = tile.at(i, j);
    traffic_.writes += tile.rows() * tile.columns();
  }
  void count_flops(std::uint64_t flops) { traffic_.flops += flops; }
  const Traffic& traffic() const { return traffic_; }

 private:
  Traffic traffic_;
  std::uint64_t occupied_ = 0;
};

}  // namespace detail

// C = A * B (A m x k, B k x n, row-major) by the triple loop, p innermost.
inline CountedMatmul counted_matmul(std::span<const double> a, std::span<const double> b, std::size_t m,
                                    std::size_t n, std::size_t k) {
  detail::check_model_arguments(a, b, m, n, k, "softfloat::counted_matmul");
  CountedMatmul result;
  result.c.assign(m * n, 0.0);
  for (std::size_t i = 0; i < m; ++i)
    for (std::size_t j = 0; j < n; ++j) {
      double sum = 0.0;
      for (std::size_t p = 0; p < k; ++p) {
        const double product = a[i * k + p] * b[p * n + j];
        ++result.multiplies;
        sum = sum + product;  // the first add goes into the zero accumulator
        ++result.adds;
      }
      result.c[i * n + j] = sum;
    }
  return result;
}

// C = A * B by T x T tiles over the simulated two-level memory. Tiles at the edges are
// smaller when T does not divide the sizes; each element's sum runs in p order, as in
// counted_matmul, so the two give the same C.
inline TiledMatmul tiled_matmul(std::span<const double> a, std::span<const double> b, std::size_t m, std::size_t n,
                                std::size_t k, std::size_t tile) {
  detail::check_model_arguments(a, b, m, n, k, "softfloat::tiled_matmul");
  if (tile == 0) throw std::invalid_argument("softfloat::tiled_matmul: the tile size must be at least 1");
  using Memory = detail::TwoLevelMemory;
  Memory memory;
  TiledMatmul result;
  result.c.assign(m * n, 0.0);
  for (std::size_t i0 = 0; i0 < m; i0 += tile)
    for (std::size_t j0 = 0; j0 < n; j0 += tile) {
      Memory::Tile c_tile(memory, std::min(tile, m - i0), std::min(tile, n - j0));  // starts at zero
      for (std::size_t p0 = 0; p0 < k; p0 += tile) {
        const std::size_t depth = std::min(tile, k - p0);
        Memory::Tile a_tile(memory, c_tile.rows(), depth);
        Memory::Tile b_tile(memory, depth, c_tile.columns());
        memory.load(a_tile, a, k, i0, p0);
        memory.load(b_tile, b, n, p0, j0);
        for (std::size_t i = 0; i < c_tile.rows(); ++i)
          for (std::size_t j = 0; j < c_tile.columns(); ++j)
            for (std::size_t p = 0; p < depth; ++p) {
              c_tile.at(i, j) = c_tile.at(i, j) + a_tile.at(i, p) * b_tile.at(p, j);
              memory.count_flops(2);
            }
      }
      memory.store(c_tile, result.c, n, i0, j0);
    }
  result.traffic = memory.traffic();
  return result;
}

}  // namespace softfloat
