#!/usr/bin/env python3
"""Training a small network on handwritten digits with every operand in a narrow format.

The data are the 1797 8x8 digit images that ship inside Debian's python3-sklearn
(sklearn.datasets.load_digits: no download), split 80/20 with a fixed seed. The network
is 64 -> 128 -> 128 -> 10 with ReLU; its two hidden layers are softfloat.torch.Linear
layers whose weights, input activations and incoming gradients are rounded into the
setting's format (the classifier head stays float32, as is common practice), and the
products take the library's matmul with an fp32 accumulator. Settings:

    fp32                   no rounding (the baseline)
    bf16, fp16             every operand rounded to the format
    e4m3 / e5m2 delayed    TransformerEngine-style delayed scaling (amax history of 16):
                           e4m3 weights and activations with e5m2 gradients ("hybrid"),
                           or e5m2 for all three
    mxfp8, mxfp6, mxfp4    OCP MX blocks of 32 along each product's reduction axis
                           (e4m3 / e2m3 / e2m1 forward, e5m2 / e3m2 / e2m1 gradients)
    nvfp4                  NVFP4 blocks of 16 with their E4M3 scales and tensor amax

Each low-precision setting stores its weights in bf16 after every SGD step
(softfloat.torch.LowPrecisionOptimizer), once rounded to nearest and once stochastically:
with a small learning rate the nearest-rounded updates vanish and the stochastic ones
accumulate. The result is a table of test accuracy and final training loss per setting,
optionally a CSV and a plot.

    PYTHONPATH=build/python .venv/bin/python examples/torch_training.py --plot digits.png

--quick trains a few epochs on four settings (the test suite runs it that way) and exits
non-zero if the results are off (fp32 does not learn, or a setting collapses).
"""
import argparse
import csv
import sys
import time

import torch

import softfloat.torch as sft

SETTINGS = {
    "fp32": dict(weight=None, input=None, grad_output=None),
    "bf16": dict(weight="bf16", input="bf16", grad_output="bf16"),
    "fp16": dict(weight="fp16", input="fp16", grad_output="fp16"),
    "e4m3 delayed": "delayed e4m3 e4m3 e5m2",
    "e5m2 delayed": "delayed e5m2 e5m2 e5m2",
    "mxfp8": dict(weight="mxfp8_e4m3", input="mxfp8_e4m3", grad_output="mxfp8_e5m2"),
    "mxfp6": dict(weight="mxfp6_e2m3", input="mxfp6_e2m3", grad_output="mxfp6_e3m2"),
    "mxfp4": dict(weight="mxfp4_e2m1", input="mxfp4_e2m1", grad_output="mxfp4_e2m1"),
    "nvfp4": dict(weight="nvfp4", input="nvfp4", grad_output="nvfp4"),
}
QUICK_SETTINGS = ["fp32", "bf16", "e4m3 delayed", "mxfp4"]
BATCH = 64


def load_digits_split(seed=0):
    from sklearn.datasets import load_digits

    digits = load_digits()
    x = torch.tensor(digits.data, dtype=torch.float32) / 16.0  # pixel values 0..16
    y = torch.tensor(digits.target, dtype=torch.int64)
    order = torch.randperm(len(y), generator=torch.Generator().manual_seed(seed))
    split = int(0.8 * len(y))
    return x[order[:split]], y[order[:split]], x[order[split:]], y[order[split:]]


def layer_specs(setting):
    spec = SETTINGS[setting]
    if isinstance(spec, dict):
        return lambda name: spec
    _, w, a, g = spec.split()
    # A fresh recipe per layer and operand: each keeps its own amax history.
    return lambda name: dict(weight=sft.DelayedScaling(w, history_len=16), input=sft.DelayedScaling(a, history_len=16),
                             grad_output=sft.DelayedScaling(g, history_len=16))


def build_model(setting, seed):
    torch.manual_seed(seed)
    model = torch.nn.Sequential(torch.nn.Linear(64, 128), torch.nn.ReLU(), torch.nn.Linear(128, 128),
                                torch.nn.ReLU(), torch.nn.Linear(128, 10))
    specs = layer_specs(setting)
    for index in (0, 2):
        plain = model[index]
        chosen = specs(str(index))
        layer = sft.Linear(plain.in_features, plain.out_features, weight=chosen["weight"], input=chosen["input"],
                           grad_output=chosen["grad_output"])
        with torch.no_grad():
            layer.weight.copy_(plain.weight)
            layer.bias.copy_(plain.bias)
        model[index] = layer
    return model


def run(setting, weight_rounding, data, epochs, lr, seed=0):
    """(test accuracy, final training loss, seconds) for one setting."""
    x_train, y_train, x_test, y_test = data
    model = build_model(setting, seed)
    sgd = torch.optim.SGD(model.parameters(), lr=lr, momentum=0.9)
    optimizer = sgd if weight_rounding is None else sft.LowPrecisionOptimizer(sgd, "bf16", rounding=weight_rounding,
                                                                              seed=seed + 1)
    generator = torch.Generator().manual_seed(seed)
    start = time.perf_counter()
    loss_value = float("nan")
    for _ in range(epochs):
        order = torch.randperm(len(y_train), generator=generator)
        losses = []
        # Whole batches: the weight gradient's NVFP4 blocks run along the batch (16 | 64).
        for begin in range(0, len(order) - BATCH + 1, BATCH):
            batch = order[begin:begin + BATCH]
            optimizer.zero_grad()
            loss = torch.nn.functional.cross_entropy(model(x_train[batch]), y_train[batch])
            loss.backward()
            optimizer.step()
            losses.append(loss.item())
        loss_value = sum(losses) / len(losses)
    seconds = time.perf_counter() - start
    with torch.no_grad():  # the forward pass blocks along the features: any batch size
        accuracy = (model(x_test).argmax(dim=1) == y_test).float().mean().item()
    return accuracy, loss_value, seconds


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="a few epochs of four settings, with checks")
    parser.add_argument("--epochs", type=int, default=None, help="training epochs (default 40, quick 10)")
    parser.add_argument("--lr", type=float, default=0.02, help="SGD learning rate (momentum 0.9)")
    parser.add_argument("--csv", help="write the table as CSV to this file")
    parser.add_argument("--plot", help="write a bar chart of the accuracies to this PNG or SVG file")
    args = parser.parse_args()
    torch.set_num_threads(1)
    epochs = args.epochs or (10 if args.quick else 40)
    data = load_digits_split()
    settings = QUICK_SETTINGS if args.quick else list(SETTINGS)
    rows = []
    print(f"digits: {len(data[1])} training and {len(data[3])} test images, {epochs} epochs, batch {BATCH}, "
          f"SGD lr {args.lr} momentum 0.9, torch {torch.__version__}, 1 thread")
    print(f"{'setting':<14} {'weights':<16} {'test accuracy':>13} {'final loss':>10} {'seconds':>8}")
    for setting in settings:
        for rounding in ([None] if setting == "fp32" else ["nearest_even", "stochastic"]):
            accuracy, loss, seconds = run(setting, rounding, data, epochs, args.lr)
            weights = "fp32" if rounding is None else f"bf16 {'nearest' if rounding == 'nearest_even' else 'stochastic'}"
            rows.append(dict(setting=setting, weights=weights, accuracy=accuracy, loss=loss, seconds=seconds))
            print(f"{setting:<14} {weights:<16} {accuracy:>13.4f} {loss:>10.4f} {seconds:>8.2f}")
    if args.csv:
        with open(args.csv, "w", newline="") as handle:
            writer = csv.DictWriter(handle, fieldnames=list(rows[0]))
            writer.writeheader()
            writer.writerows(rows)
    if args.plot:
        plot(rows, args.plot, epochs)
    return check(rows) if args.quick else 0


def plot(rows, path, epochs):
    """Test accuracy and final training loss per setting, nearest and stochastic bf16
    weights side by side (fp32 in grey)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    settings = list(dict.fromkeys(row["setting"] for row in rows))
    figure, axes = plt.subplots(1, 2, figsize=(12, 4))
    width = 0.4
    for axis, key, label in ((axes[0], "accuracy", "test accuracy"), (axes[1], "loss", "final training loss")):
        for row in rows:
            i = settings.index(row["setting"])
            if row["weights"] == "fp32":
                axis.bar(i, row[key], width, color="#999999")
            else:
                stochastic = row["weights"].endswith("stochastic")
                axis.bar(i + (width / 2 if stochastic else -width / 2), row[key], width,
                         color="#4c72b0" if stochastic else "#c44e52")
        axis.set_xticks(range(len(settings)))
        axis.set_xticklabels(settings, rotation=25)
        axis.set_ylabel(label)
    low = min(row["accuracy"] for row in rows)
    axes[0].set_ylim(max(0.0, low - 0.03), 1.0)
    handles = [plt.Rectangle((0, 0), 1, 1, color=c) for c in ("#999999", "#c44e52", "#4c72b0")]
    figure.legend(handles, ["fp32 weights", "bf16 weights, nearest", "bf16 weights, stochastic"], loc="lower center",
                  ncol=3)
    figure.suptitle(f"Digits, 64-128-128-10 MLP, hidden layers' operands in each format ({epochs} epochs)")
    figure.tight_layout(rect=(0, 0.07, 1, 1))
    figure.savefig(path)


def check(rows):
    by_key = {(row["setting"], row["weights"]): row for row in rows}
    problems = []
    if by_key[("fp32", "fp32")]["accuracy"] < 0.85:
        problems.append("fp32 did not learn")
    for row in rows:
        if row["accuracy"] < 0.5:
            problems.append(f"{row['setting']} with {row['weights']} weights collapsed ({row['accuracy']:.3f})")
    for problem in problems:
        print("check failed:", problem, file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
