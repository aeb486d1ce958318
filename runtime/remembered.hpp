// The last few values a thread derived from keys it was asked about, so that a function
// called row by row on small arrays derives its constants once per format rather than
// once per call (simd/array_constants.cpp's conversion constants, matmul/byte_decode.cpp's
// rules for one-byte codes). Each thread keeps its own: no lock, nothing shared.
#pragma once

#include <algorithm>
#include <cstddef>
#include <utility>

namespace softfloat::detail {

// The last kSets values of derive(key), the oldest replaced first. A reference that get()
// returns stays valid until this thread's next get() on the same object. A derive() that
// throws leaves every slot as it was.
template <class Key, class Value, std::size_t kSets>
class Remembered {
 public:
  template <class Derive>
  const Value& get(const Key& key, Derive derive) {
    for (std::size_t i = 0; i < used_; ++i)
      if (keys_[i] == key) return values_[i];
    Value derived = derive();
    const std::size_t slot = next_;
    next_ = (next_ + 1) % kSets;
    used_ = std::max(used_, slot + 1);
    keys_[slot] = key;
    values_[slot] = std::move(derived);
    return values_[slot];
  }

 private:
  Key keys_[kSets]{};
  Value values_[kSets]{};
  std::size_t used_ = 0, next_ = 0;
};

}  // namespace softfloat::detail
