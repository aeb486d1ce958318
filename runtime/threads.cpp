// softfloat::set_num_threads / num_threads and the worker pool behind parallel_for
// (runtime/parallel.hpp). Workers sleep on a condition variable between calls: the
// machines this runs on may have fewer cores than threads, where spinning would steal
// the time of the thread doing the work.
#include <condition_variable>
#include <cstdlib>
#include <exception>
#include <mutex>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "runtime/parallel.hpp"
#include "softfloat/escape.hpp"
#include "softfloat/threads.hpp"

namespace softfloat {
namespace {

// The count, and whether it is settled: by the environment at the first use, or by
// set_num_threads(). An invalid environment value leaves it unsettled, so every use
// reports the error until set_num_threads() settles it.
std::mutex count_mutex;
bool count_settled = false;
int thread_count = 1;

int parse_environment(const char* text) {
  const std::string value = text;
  std::size_t used = 0;
  long parsed = 0;
  try {
    parsed = std::stol(value, &used);
  } catch (...) {
    used = 0;
  }
  if (used == 0 || used != value.size() || parsed < 1 || parsed > 4096)
    throw std::invalid_argument("softfloat::num_threads: SOFTFLOAT_NUM_THREADS=\"" + escape_unprintable(value) +
                                "\" is not a thread count (a positive integer up to 4096)");
  return int(parsed);
}

}  // namespace

void set_num_threads(int n) {
  if (n < 1)
    throw std::invalid_argument("softfloat::set_num_threads: " + std::to_string(n) +
                                " threads; the count must be at least 1");
  const std::lock_guard<std::mutex> lock(count_mutex);
  thread_count = n;
  count_settled = true;
}

int num_threads() {
  const std::lock_guard<std::mutex> lock(count_mutex);
  if (!count_settled) {
    if (const char* text = std::getenv("SOFTFLOAT_NUM_THREADS")) thread_count = parse_environment(text);
    count_settled = true;
  }
  return thread_count;
}

namespace detail {
namespace {

// Part i of a call goes to worker i (1-based); workers beyond the call's part count
// stay asleep. One call at a time uses the pool; a concurrent call runs its parts on
// its own thread instead of waiting.
class WorkerPool {
 public:
  ~WorkerPool() {
    {
      const std::lock_guard<std::mutex> lock(mutex_);
      stopping_ = true;
    }
    work_ready_.notify_all();
    for (std::thread& worker : workers_) worker.join();
  }

  void run(int parts, const std::function<void(int)>& body) {
    std::unique_lock<std::mutex> in_use(in_use_, std::try_to_lock);
    if (!in_use.owns_lock()) {
      for (int part = 0; part < parts; ++part) body(part);
      return;
    }
    {
      const std::lock_guard<std::mutex> lock(mutex_);
      while (int(workers_.size()) < parts - 1) {
        const int index = int(workers_.size()) + 1;
        workers_.emplace_back([this, index, seen = generation_] { work(index, seen); });
      }
      body_ = &body;
      parts_ = parts;
      remaining_ = parts - 1;
      error_ = nullptr;
      ++generation_;
    }
    work_ready_.notify_all();
    std::exception_ptr own_error;
    try {
      body(0);
    } catch (...) {
      own_error = std::current_exception();
    }
    std::unique_lock<std::mutex> lock(mutex_);
    all_done_.wait(lock, [this] { return remaining_ == 0; });
    body_ = nullptr;
    if (own_error) std::rethrow_exception(own_error);
    if (error_) std::rethrow_exception(error_);
  }

 private:
  void work(int index, unsigned long long seen) {
    std::unique_lock<std::mutex> lock(mutex_);
    for (;;) {
      work_ready_.wait(lock, [&] { return stopping_ || generation_ != seen; });
      if (stopping_) return;
      seen = generation_;
      if (index >= parts_) continue;
      const std::function<void(int)>* body = body_;
      lock.unlock();
      std::exception_ptr error;
      try {
        (*body)(index);
      } catch (...) {
        error = std::current_exception();
      }
      lock.lock();
      if (error && !error_) error_ = error;
      if (--remaining_ == 0) all_done_.notify_one();
    }
  }

  std::mutex in_use_;
  std::mutex mutex_;  // guards everything below
  std::condition_variable work_ready_, all_done_;
  std::vector<std::thread> workers_;
  const std::function<void(int)>* body_ = nullptr;
  int parts_ = 0;
  int remaining_ = 0;
  unsigned long long generation_ = 0;
  bool stopping_ = false;
  std::exception_ptr error_;
};

}  // namespace

void run_parts(int parts, const std::function<void(int)>& body) {
  static WorkerPool pool;
  pool.run(parts, body);
}

}  // namespace detail
}  // namespace softfloat
