#!/usr/bin/env python3
"""Weight quantization of a small NumPy MLP: accuracy against bytes, format by format.

A three-layer perceptron (16 -> 64 -> 64 -> 10, ReLU) is trained in float32 on a
synthetic task (10 classes, each a mixture of 4 Gaussian clusters, so the boundary is not
linear and about one test point in eight stays ambiguous). Its weights are then
fake-quantized with softfloat.round_trip to each format, scaled per tensor so that the
largest magnitude lands on the format's max (the common recipe), or with OCP MX block
scaling (softfloat.mx_quantize, blocks of 32 along each neuron's inputs). One row casts
to E2M1 without any scaling, as a plain dtype cast does: most weights then round to zero.
Biases and activations stay float32: only the weights' storage changes. The bytes are
those of the codes as softfloat.quantize stores them (4- and 6-bit formats packed) plus
their scales.

Run with Debian's interpreter and the module on the path, e.g.
    PYTHONPATH=build/python .venv/bin/python examples/mlp_quantization.py
--quick trains for a few epochs only (the test suite runs it that way).
"""
import argparse
import sys

import numpy as np

import softfloat

CLASSES, INPUTS, HIDDEN, CLUSTERS = 10, 16, 64, 4


def make_data(rng, count):
    """Class c is a mixture of CLUSTERS Gaussian clusters, centres drawn once per seed."""
    centres = rng.normal(size=(CLUSTERS * CLASSES, INPUTS)) * 1.2
    labels = rng.integers(0, CLASSES, size=count)
    cluster = CLUSTERS * labels + rng.integers(0, CLUSTERS, size=count)
    x = centres[cluster] + rng.normal(size=(count, INPUTS))
    return x.astype(np.float32), labels


def init_params(rng):
    """[w1, b1, w2, b2, w3, b3], He-initialised weights and zero biases."""
    params = []
    for fan_in, fan_out in [(INPUTS, HIDDEN), (HIDDEN, HIDDEN), (HIDDEN, CLASSES)]:
        params += [(rng.normal(size=(fan_in, fan_out)) * np.sqrt(2 / fan_in)).astype(np.float32),
                   np.zeros(fan_out, np.float32)]
    return params


def forward(params, x):
    """Logits and the hidden activations (for the backward pass)."""
    w1, b1, w2, b2, w3, b3 = params
    h1 = np.maximum(x @ w1 + b1, 0)
    h2 = np.maximum(h1 @ w2 + b2, 0)
    return h2 @ w3 + b3, (h1, h2)


def train(params, x, labels, epochs, rng, batch=64, rate=3e-3):
    """Adam on the softmax cross-entropy."""
    moments = [np.zeros_like(p) for p in params]
    squares = [np.zeros_like(p) for p in params]
    step = 0
    for _ in range(epochs):
        order = rng.permutation(len(x))
        for start in range(0, len(x), batch):
            idx = order[start:start + batch]
            xb, yb = x[idx], labels[idx]
            logits, (h1, h2) = forward(params, xb)
            p = np.exp(logits - logits.max(axis=1, keepdims=True))
            p /= p.sum(axis=1, keepdims=True)
            p[np.arange(len(idx)), yb] -= 1
            g3 = p / len(idx)
            g2 = (g3 @ params[4].T) * (h2 > 0)
            g1 = (g2 @ params[2].T) * (h1 > 0)
            grads = [xb.T @ g1, g1.sum(0), h1.T @ g2, g2.sum(0), h2.T @ g3, g3.sum(0)]
            step += 1
            for i, g in enumerate(grads):
                moments[i] = 0.9 * moments[i] + 0.1 * g
                squares[i] = 0.999 * squares[i] + 0.001 * g * g
                m_hat = moments[i] / (1 - 0.9**step)
                v_hat = squares[i] / (1 - 0.999**step)
                params[i] = (params[i] - rate * m_hat / (np.sqrt(v_hat) + 1e-8)).astype(np.float32)
    return params


def evaluate(params, x, labels):
    """Accuracy and mean cross-entropy (the loss moves before the accuracy does)."""
    logits = forward(params, x)[0].astype(np.float64)
    shifted = logits - logits.max(axis=1, keepdims=True)
    log_p = shifted - np.log(np.exp(shifted).sum(axis=1, keepdims=True))
    return float(np.mean(logits.argmax(axis=1) == labels)), float(-log_p[np.arange(len(x)), labels].mean())


def quantize_scaled(weight, fmt):
    """Per-tensor scaling to the format's max, then round to nearest even. Returns the
    dequantized weight and the bytes of its codes plus one float32 scale."""
    scale = np.float32(np.abs(weight).max() / softfloat.format_info(fmt).max)
    scaled = weight / scale
    packed = softfloat.format_info(fmt).bits in (4, 6)
    stored = softfloat.quantize(scaled, fmt, packed=packed).nbytes + 4
    return softfloat.round_trip(scaled, fmt) * scale, stored


def quantize_mx(weight, kind):
    """MX blocks of 32 along each output neuron's inputs (the reduction axis of x @ w)."""
    elements, scales = softfloat.mx_quantize(np.ascontiguousarray(weight.T), kind)
    restored = softfloat.mx_dequantize(elements, scales, kind, length=weight.shape[0]).T
    return restored, elements.nbytes + scales.nbytes


def quantize_unscaled(weight, fmt):
    """A plain cast: values below half the smallest magnitude (E2M1: 0.25) become zero."""
    return softfloat.round_trip(weight, fmt), softfloat.quantize(weight, fmt, packed=True).nbytes


def quantize_plain(weight, fmt):
    """16- and 32-bit formats: no scaling needed."""
    return softfloat.round_trip(weight, fmt), softfloat.quantize(weight, fmt).nbytes


SCHEMES = [  # (label, function, argument)
    ("fp32", quantize_plain, "fp32"),
    ("bf16", quantize_plain, "bf16"),
    ("fp16", quantize_plain, "fp16"),
    ("e5m2, per-tensor scale", quantize_scaled, "e5m2"),
    ("e4m3, per-tensor scale", quantize_scaled, "e4m3"),
    ("mxfp8_e4m3", quantize_mx, "mxfp8_e4m3"),
    ("e3m2, per-tensor scale", quantize_scaled, "e3m2"),
    ("e2m3, per-tensor scale", quantize_scaled, "e2m3"),
    ("mxfp6_e2m3", quantize_mx, "mxfp6_e2m3"),
    ("e2m1, per-tensor scale", quantize_scaled, "e2m1"),
    ("mxfp4_e2m1", quantize_mx, "mxfp4_e2m1"),
    ("e2m1, no scaling", quantize_unscaled, "e2m1"),
]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seed", type=int, default=1, help="seed of the data, the initial weights and the batches")
    parser.add_argument("--quick", action="store_true", help="train for 4 epochs instead of 12")
    args = parser.parse_args()

    rng = np.random.default_rng(args.seed)
    x, labels = make_data(rng, 6000)
    train_x, train_y, test_x, test_y = x[:5000], labels[:5000], x[5000:], labels[5000:]
    params = train(init_params(rng), train_x, train_y, 4 if args.quick else 12, rng)
    baseline, baseline_loss = evaluate(params, test_x, test_y)
    count = sum(w.size for w in params[0::2])
    print(f"MLP {INPUTS}-{HIDDEN}-{HIDDEN}-{CLASSES}: {count} weights; float32 test accuracy {baseline:.4f}, "
          f"loss {baseline_loss:.4f}")
    print(f"{'weights stored as':<24} {'bytes':>7} {'bits/weight':>11} {'accuracy':>9} {'change':>8} {'loss':>7}")
    rows = []
    for label, scheme, name in SCHEMES:
        quantized = list(params)
        total = 0
        for i in (0, 2, 4):
            quantized[i], stored = scheme(params[i], name)
            total += stored
        score, loss = evaluate(quantized, test_x, test_y)
        rows.append((label, total, score))
        print(f"{label:<24} {total:>7} {8 * total / count:>11.3f} {score:>9.4f} {score - baseline:>+8.4f} {loss:>7.4f}")

    # Sanity of the run, so that the test suite notices a broken example: the network
    # learned (chance is 1/10), the 16-bit formats cost almost nothing, and the bytes fall
    # as the formats narrow.
    by_label = {label: (total, score) for label, total, score in rows}
    checks = [baseline > 0.6,
              abs(by_label["bf16"][1] - baseline) < 0.02 and abs(by_label["fp16"][1] - baseline) < 0.01,
              by_label["fp32"][0] > by_label["bf16"][0] > by_label["e4m3, per-tensor scale"][0]
              > by_label["e3m2, per-tensor scale"][0] > by_label["e2m1, per-tensor scale"][0]]
    if not all(checks):
        print("unexpected results:", checks, file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
