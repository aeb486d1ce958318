// Runs a test body once per Highway target that the library was compiled for and this
// CPU supports, with that target forced for HWY_DYNAMIC_DISPATCH, so that every code
// path a user's machine may pick is checked here, not only the best one.
//
// For a test that computes its expected values once (the scalar definition over
// millions of inputs) and compares every target with them: split into one case per
// target, it would compute them again for each. A test whose work is per target uses
// Highway's own hwy::TestWithParamTarget (hwy/tests/hwy_gtest.h) instead, one case per
// target named by it (matmul/every_target_test.cpp, simd/array_packed_test.cpp).
#pragma once

#include <gtest/gtest.h>
#include <hwy/targets.h>

#include <cstdint>
#include <string>
#include <vector>

namespace softfloat::test_targets {

// Returns the names of the targets run, in order.
template <class Body>
std::vector<std::string> for_each_target(Body body) {
  std::vector<std::string> names;
  for (std::int64_t target : hwy::SupportedAndGeneratedTargets()) {
    hwy::SetSupportedTargetsForTest(target);
    names.push_back(hwy::TargetName(target));
    SCOPED_TRACE(names.back());
    body(names.back());
  }
  hwy::SetSupportedTargetsForTest(0);
  return names;
}

}  // namespace softfloat::test_targets
