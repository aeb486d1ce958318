// Many threads calling the library at once, under ThreadSanitizer in CI (label threads):
//   - threads converting and multiplying side by side, all sharing the one worker pool
//     (a call that finds the pool busy runs its parts on its own thread);
//   - set_num_threads() changed by one thread while the others' calls run, so that calls
//     read the count as it changes and the pool grows under them;
//   - the process-wide matmul summation order changing while calls that name their own
//     order run.
// Every result is compared with the expected output computed beforehand by independent
// scalar code (threads_test_support.hpp), not just checked for a crash.
#include <gtest/gtest.h>

#include <atomic>
#include <thread>
#include <vector>

#include "verify/runtime/threads_test_support.hpp"

namespace softfloat::threads_test {
namespace {

const Workload& workload() {
  static const Workload w = make_workload();
  return w;
}

// Sets the thread count for a scope and restores 1, the default, after it.
struct ScopedThreadCount {
  explicit ScopedThreadCount(int n) { set_num_threads(n); }
  ~ScopedThreadCount() { set_num_threads(1); }
};

// `callers` threads, each running `rounds` calls of every kind (starting at a different
// kind, so that different calls overlap); returns the differences counted per kind.
std::vector<std::size_t> run_concurrently(int callers, int rounds) {
  const Workload& w = workload();
  std::vector<std::atomic<std::size_t>> wrong(4);
  std::vector<std::thread> threads;
  for (int t = 0; t < callers; ++t)
    threads.emplace_back([&, t] {
      for (int round = 0; round < rounds; ++round)
        for (int kind = 0; kind < 4; ++kind) wrong[(t + kind) % 4] += run_and_count_differences(w, t + kind);
    });
  for (std::thread& thread : threads) thread.join();
  std::vector<std::size_t> counts;
  for (const auto& count : wrong) counts.push_back(count.load());
  return counts;
}

void expect_no_differences(const std::vector<std::size_t>& wrong) {
  const char* names[] = {"quantize E4M3", "quantize BF16", "round_trip E5M2", "matmul in order"};
  for (int kind = 0; kind < 4; ++kind) EXPECT_EQ(wrong[kind], 0u) << names[kind] << ": elements that differ";
}

// The pool's start: in a fresh process several threads make their first calls at once, racing to create the pool and its
// workers. (Defined first, this case runs first in its process, or alone in its own
// ctest where each case is one.) Its stop: the process's exit destroys the pool, which wakes and joins the
// workers; ThreadSanitizer checks that too, and reports at exit fail the run.
TEST(WorkerPool, StartedByManyFirstCallsAndStoppedAtExit) {
  const ScopedThreadCount count(4);
  const Workload& w = workload();  // built before the threads start: not part of the race
  std::atomic<std::size_t> wrong{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) threads.emplace_back([&, t] { wrong += run_and_count_differences(w, t); });
  for (std::thread& thread : threads) thread.join();
  EXPECT_EQ(wrong.load(), 0u);
}

TEST(ConcurrentCalls, LoneCallsGiveTheExpectedOutputs) {
  // One call at a time, on one thread and split over four: the expected outputs.
  for (int threads : {1, 4}) {
    const ScopedThreadCount count(threads);
    for (int kind = 0; kind < 4; ++kind) EXPECT_EQ(run_and_count_differences(workload(), kind), 0u) << kind;
  }
}

TEST(ConcurrentCalls, ManyThreadsConvertAndMultiplyAtOnce) {
  const ScopedThreadCount count(3);
  expect_no_differences(run_concurrently(6, 2));
}

TEST(ConcurrentCalls, ThreadCountChangesWhileCallsRun) {
  const ScopedThreadCount restore(1);
  std::atomic<bool> done{false};
  std::atomic<int> changes{0};
  std::thread changer([&] {
    for (int i = 0; !done.load(); ++i) {
      set_num_threads(1 + i % 4);
      EXPECT_GE(num_threads(), 1);
      ++changes;
      std::this_thread::yield();
    }
  });
  const std::vector<std::size_t> wrong = run_concurrently(3, 2);
  done.store(true);
  changer.join();
  expect_no_differences(wrong);
  EXPECT_GT(changes.load(), 0);
}

TEST(ConcurrentCalls, SummationOrderPerCallWhileTheDefaultChanges) {
  // Calls naming in_order get the in-order chain whatever the process-wide default says
  // as it flips. (matmul_summation_test, also labelled threads, runs threads of two
  // different orders against each other.)
  const Workload& w = workload();
  const MatmulSummation saved = matmul_summation();
  const ScopedThreadCount count(2);
  std::atomic<bool> done{false};
  std::thread flipper([&] {
    for (int i = 0; !done.load(); ++i) {
      set_matmul_summation(i % 2 ? MatmulSummation::pairs : MatmulSummation::in_order);
      std::this_thread::yield();
    }
  });
  std::atomic<std::size_t> wrong{0};
  std::vector<std::thread> callers;
  for (int t = 0; t < 3; ++t)
    callers.emplace_back([&] {
      for (int round = 0; round < 2; ++round) wrong += run_and_count_differences(w, 3);
    });
  for (std::thread& caller : callers) caller.join();
  done.store(true);
  flipper.join();
  set_matmul_summation(saved);
  EXPECT_EQ(wrong.load(), 0u);
}

}  // namespace
}  // namespace softfloat::threads_test
