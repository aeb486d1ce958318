// runtime/remembered.hpp: a thread's last few derived values, by key. What each get()
// returns, when it derives again, and which slot the next new key replaces.
#include "runtime/remembered.hpp"

#include <gtest/gtest.h>

#include <stdexcept>
#include <string>
#include <vector>

namespace softfloat::detail {
namespace {

// A value that says which derivation made it.
struct Made {
  int key = -1;
  int derivation = -1;
};

struct Deriving {
  Remembered<int, Made, 3> remembered;
  std::vector<int> derived;  // the keys derived, in order
  Made get(int key) {
    return remembered.get(key, [&] {
      derived.push_back(key);
      return Made{key, int(derived.size())};
    });
  }
};

TEST(Remembered, DerivesEachKeyOnceWhileItIsRemembered) {
  Deriving d;
  EXPECT_EQ(d.get(7).derivation, 1);
  EXPECT_EQ(d.get(7).derivation, 1);
  EXPECT_EQ(d.get(8).derivation, 2);
  EXPECT_EQ(d.get(7).key, 7);
  EXPECT_EQ(d.get(7).derivation, 1);
  EXPECT_EQ(d.get(8).derivation, 2);
  EXPECT_EQ(d.derived, (std::vector<int>{7, 8}));
}

TEST(Remembered, TheOldestKeyGivesWayFirst) {
  Deriving d;
  for (int key : {1, 2, 3}) d.get(key);
  // A fourth key replaces the first derived (1), whatever was asked since.
  d.get(1);
  EXPECT_EQ(d.get(4).derivation, 4);
  EXPECT_EQ(d.get(2).derivation, 2);
  EXPECT_EQ(d.get(3).derivation, 3);
  EXPECT_EQ(d.get(1).derivation, 5);  // derived again, in the slot of 2
  EXPECT_EQ(d.get(4).derivation, 4);
  EXPECT_EQ(d.get(2).derivation, 6);  // 2 was replaced by 1
  EXPECT_EQ(d.derived, (std::vector<int>{1, 2, 3, 4, 1, 2}));
}

// A derivation that throws remembers nothing: the key is derived again when next asked,
// and no other key loses its slot.
TEST(Remembered, AThrowingDerivationLeavesEverySlot) {
  Deriving d;
  d.get(1);
  d.get(2);
  EXPECT_THROW(d.remembered.get(3, []() -> Made { throw std::runtime_error("no"); }), std::runtime_error);
  EXPECT_EQ(d.get(1).derivation, 1);
  EXPECT_EQ(d.get(2).derivation, 2);
  EXPECT_EQ(d.get(3).derivation, 3);
  EXPECT_EQ(d.get(3).key, 3);
}

TEST(Remembered, KeysCompareByValue) {
  Remembered<std::string, int, 2> remembered;
  int derivations = 0;
  const auto get = [&](const std::string& key) {
    return remembered.get(key, [&] { return int(key.size()) * 100 + ++derivations; });
  };
  EXPECT_EQ(get("e4m3"), 401);
  EXPECT_EQ(get(std::string("e4") + "m3"), 401);
  EXPECT_EQ(get("bf16"), 402);
  EXPECT_EQ(derivations, 2);
}

}  // namespace
}  // namespace softfloat::detail
