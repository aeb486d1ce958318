#!/usr/bin/env python3
"""Training under the recipes of real systems: what each does to a small network.

The data are the 1797 8x8 handwritten digits inside scikit-learn (load_digits, no
download), split 80/20 with a fixed seed. Two models train for a fixed number of SGD
steps (momentum 0.9, batch 64, the same seed and batches for every recipe):

    mlp      64 -> 128 -> 128 -> 10, ReLU
    convnet  Conv2d(1, 16, 3, padding 1) -> ReLU -> Conv2d(16, 32, 3, stride 2, padding 1)
             -> ReLU -> Linear(512, 10)

softfloat.torch.convert(model, recipe=...) puts every layer, the 10-output head included,
under the recipe (convolutions as im2col GEMMs, softfloat/torch/recipe_layers.py); fp32
is the model as it is. The result is a table of final test accuracy and loss per model
and recipe, and with --plot a figure of the training-loss curves.

    PYTHONPATH=build/python .venv/bin/python examples/torch_recipes.py --plot docs/figures/torch_recipes.png

--quick trains fewer steps (the test suite runs it that way) and exits non-zero when a
recipe's final accuracy falls more than the margin below fp32's (MARGIN, set from the
measured runs in docs/reference/torch.md).
"""
import argparse
import sys
import time

import torch

import softfloat.torch as sft
from softfloat.torch import recipes

RECIPES = {
    "fp32": None,
    "te_delayed": recipes.te_delayed,
    "te_current": recipes.te_current,
    "te_mxfp8": recipes.te_mxfp8,
    "te_nvfp4": recipes.te_nvfp4,
    "torchao tensorwise": lambda: recipes.torchao_float8("tensorwise"),
    "torchao rowwise": lambda: recipes.torchao_float8("rowwise"),
    "torchao rowwise_with_gw_hp": lambda: recipes.torchao_float8("rowwise_with_gw_hp"),
    "torchao mxfp8_rceil": lambda: recipes.torchao_mxfp8("mxfp8_rceil"),
    "torchao mxfp8_rceil_wgrad_with_hp": lambda: recipes.torchao_mxfp8("mxfp8_rceil_wgrad_with_hp"),
}
BATCH = 64
# How far below fp32's final test accuracy a recipe may end (--quick checks it). Measured
# on an AMD EPYC (docs/reference/torch.md): the widest gap is te_nvfp4's on the convnet, 0.019 at
# 150 steps and 0.003 at 600; the margin leaves room for another CPU's float32 sums.
MARGIN = 0.05
# fp32 itself must learn: 0.95 at 150 steps on both models in the measured run.
FP32_FLOOR = 0.9


def load_digits_split(seed=0):
    from sklearn.datasets import load_digits

    digits = load_digits()
    x = torch.tensor(digits.data, dtype=torch.float32) / 16.0
    y = torch.tensor(digits.target, dtype=torch.int64)
    order = torch.randperm(len(y), generator=torch.Generator().manual_seed(seed))
    split = int(0.8 * len(y))
    return x[order[:split]], y[order[:split]], x[order[split:]], y[order[split:]]


def build(model_name, recipe_name, seed=0):
    torch.manual_seed(seed)
    if model_name == "mlp":
        model = torch.nn.Sequential(torch.nn.Linear(64, 128), torch.nn.ReLU(), torch.nn.Linear(128, 128),
                                    torch.nn.ReLU(), torch.nn.Linear(128, 10))
    else:
        model = torch.nn.Sequential(torch.nn.Unflatten(1, (1, 8, 8)), torch.nn.Conv2d(1, 16, 3, padding=1),
                                    torch.nn.ReLU(), torch.nn.Conv2d(16, 32, 3, stride=2, padding=1),
                                    torch.nn.ReLU(), torch.nn.Flatten(), torch.nn.Linear(512, 10))
    if RECIPES[recipe_name] is not None:
        sft.convert(model, recipe=RECIPES[recipe_name]())
    return model


def train(model_name, recipe_name, data, steps, lr, seed=0):
    """(training loss at each step, final test accuracy, final test loss, seconds)."""
    x_train, y_train, x_test, y_test = data
    model = build(model_name, recipe_name, seed)
    optimizer = torch.optim.SGD(model.parameters(), lr=lr, momentum=0.9)
    batches = torch.Generator().manual_seed(seed + 1)
    torch.manual_seed(seed + 2)  # the stochastic rounding's seeds
    losses, start = [], time.perf_counter()
    for _ in range(steps):
        index = torch.randint(0, len(y_train), (BATCH,), generator=batches)
        loss = torch.nn.functional.cross_entropy(model(x_train[index]), y_train[index])
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        losses.append(loss.item())
    with torch.no_grad():
        logits = model(x_test)
        accuracy = (logits.argmax(1) == y_test).float().mean().item()
        test_loss = torch.nn.functional.cross_entropy(logits, y_test).item()
    return losses, accuracy, test_loss, time.perf_counter() - start


def plot(results, path, steps):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    models = sorted({model for model, _ in results})
    figure, axes = plt.subplots(1, len(models), figsize=(6 * len(models), 4.2), squeeze=False)
    window = max(1, steps // 30)
    for axis, model in zip(axes[0], models):
        for (m, recipe), (losses, accuracy, _, _) in results.items():
            if m != model:
                continue
            smooth = torch.tensor(losses).unfold(0, window, 1).mean(1)  # a running mean of `window` steps
            axis.plot(range(window, len(losses) + 1), smooth, label=f"{recipe} ({accuracy:.3f})",
                      linewidth=2.2 if recipe == "fp32" else 1.1, color="black" if recipe == "fp32" else None)
        axis.set_yscale("log")
        axis.set_xlabel("step")
        axis.set_ylabel(f"training loss (mean of {window} steps)")
        axis.set_title(f"digits {model}, {steps} steps: recipe (test accuracy)")
        axis.legend(fontsize=7)
    figure.tight_layout()
    figure.savefig(path)
    print(f"figure: {path}")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="fewer steps, then the accuracy check")
    parser.add_argument("--steps", type=int, default=None, help="SGD steps (default 600, quick 150)")
    parser.add_argument("--lr", type=float, default=0.05, help="SGD learning rate (momentum 0.9)")
    parser.add_argument("--models", default="mlp,convnet", help="comma-separated: mlp, convnet")
    parser.add_argument("--plot", help="write the loss curves to this PNG or SVG file")
    args = parser.parse_args()
    steps = args.steps or (150 if args.quick else 600)
    torch.set_num_threads(1)
    data = load_digits_split()
    print(f"digits: {len(data[1])} training and {len(data[3])} test images, {steps} steps, batch {BATCH}, "
          f"SGD lr {args.lr} momentum 0.9, torch {torch.__version__}, 1 thread")
    print(f"{'model':8} {'recipe':34} {'test accuracy':>13} {'test loss':>10} {'seconds':>8}")
    results = {}
    for model in args.models.split(","):
        for recipe in RECIPES:
            results[(model, recipe)] = train(model, recipe, data, steps, args.lr)
            _, accuracy, test_loss, seconds = results[(model, recipe)]
            print(f"{model:8} {recipe:34} {accuracy:13.4f} {test_loss:10.4f} {seconds:8.2f}", flush=True)
    if args.plot:
        plot(results, args.plot, steps)
    if args.quick:
        failures = [f"{model} {recipe}: {accuracy:.3f} < fp32's {results[(model, 'fp32')][1]:.3f} - {MARGIN}"
                    for (model, recipe), (_, accuracy, _, _) in results.items()
                    if accuracy < results[(model, "fp32")][1] - MARGIN]
        failures += [f"{model} fp32 did not learn: {accuracy:.3f} < {FP32_FLOOR}"
                     for (model, recipe), (_, accuracy, _, _) in results.items()
                     if recipe == "fp32" and accuracy < FP32_FLOOR]
        for failure in failures:
            print("FAIL:", failure, file=sys.stderr)
        return 1 if failures else 0
    return 0


if __name__ == "__main__":
    sys.exit(main())
