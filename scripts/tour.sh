#!/usr/bin/env bash
# The main demonstration: a short tour of the softfloat command, from one number in
# one format to the precision experiments with their figures. Called by
# `bash scripts/dev.sh demo` after the build; by hand:
#
#   bash scripts/tour.sh [BUILD_DIR]      (default build/)
#
# Prints each command before its output; the figures go to BUILD_DIR/tour/.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
build=${1:-build}
command="$build/cli/softfloat"
figures="$build/tour"
mkdir -p "$figures"

step() {
  echo
  echo "\$ softfloat $*"
  "$command" "$@"
}

# What a format is: its limits, and what becomes of one number in it.
step formats fp32 bf16 fp16 e5m2 e4m3 e2m1
step encode bf16 0.1
step encode e4m3 0.1
step encode bf16 -6.5
# A gradient of 1e-8: below fp16's smallest subnormal (2^-24), inside bf16's range.
step encode fp16 1e-8
step encode bf16 1e-8
step decode e4m3 0x7e
# What a format loses in training and in sums, and what it costs.
step demo vanishing-updates --plot "$figures/vanishing_updates.svg"
step demo gradient-underflow --plot "$figures/gradient_underflow.svg"
step demo accumulation --plot "$figures/accumulation.svg"
step tradeoffs --plot "$figures/tradeoffs.svg"
# Bytes, not FLOPs: one decode step per weight format against this machine's bandwidth.
step demo decode-step --plot "$figures/decode_step.svg"
echo
echo "Figures: $figures/vanishing_updates.svg gradient_underflow.svg accumulation.svg tradeoffs.svg decode_step.svg"
