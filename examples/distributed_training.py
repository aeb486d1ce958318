#!/usr/bin/env python3
"""Data-parallel training on N processes with the gradients sent in a narrow format.

The digits network of examples/torch_training.py (1797 8x8 images from Debian's
python3-sklearn, 80/20 split, 64 -> 128 -> 128 -> 10 with ReLU, here in plain float32)
trains under DistributedDataParallel on N processes on 127.0.0.1 (gloo), each rank
taking its share of every batch of 64. Only the communication changes: every gradient
bucket goes through softfloat.torch.distributed.compress_hook, in

    fp32                     DDP's own all-reduce (the baseline, bit for bit)
    bf16, fp16               bf16 codes on the ring; fp16 through gloo's fp16 all-reduce
    e4m3, e5m2               codes with a per-tensor power-of-two scale
    e4m3 unscaled            E4M3 codes of the raw gradients: what underflows below 2^-9
    e2m1                     FP4 codes with a per-tensor scale (no blocks)
    mxfp8, mxfp4             OCP MX blocks of 32 with their E8M0 scales
    nvfp4                    E2M1 blocks of 16 with E4M3 scales and the tensor amax

each rounded to nearest or stochastically, with or without error feedback, by all-gather
("gather": one rounding per value) and by the ring ("ring": every hop re-rounds the
partial sum). Per run: bytes each rank sent per step, final test accuracy, the loss
after each epoch, and whether every rank ended with the same parameters (a hash).

    PYTHONPATH=build/python .venv/bin/python examples/distributed_training.py --plot wire.png

--quick trains a few epochs of six settings (the test suite runs it) and exits non-zero
when the results are off (fp32 does not learn, ranks disagree, bytes do not fall).
"""
import argparse
import csv
import hashlib
import os
import sys
import time

import torch
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel

import softfloat.torch.distributed as sfd

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from torch_training import BATCH, load_digits_split  # noqa: E402

GRADIENTS = (64 * 128 + 128) + (128 * 128 + 128) + (128 * 10 + 10)  # the network's parameters
# (name, compress_hook options); the baseline first.
FORMATS = [
    ("fp32", dict(fmt="fp32", scaling="none", algorithm="allreduce")),
    ("bf16", dict(fmt="bf16", scaling="none")),
    ("fp16", dict(fmt="fp16", scaling="tensor", algorithm="allreduce")),
    ("e4m3", dict(fmt="e4m3", scaling="tensor")),
    ("e5m2", dict(fmt="e5m2", scaling="tensor")),
    ("e4m3 unscaled", dict(fmt="e4m3", scaling="none")),
    ("e2m1", dict(fmt="e2m1", scaling="tensor")),
    ("mxfp8", dict(fmt="mxfp8_e4m3")),
    ("mxfp4", dict(fmt="mxfp4_e2m1")),
    ("nvfp4", dict(fmt="nvfp4")),
]
QUICK = [("fp32", "allreduce", "nearest_even", False), ("e4m3", "gather", "nearest_even", False),
         ("e4m3", "ring", "nearest_even", False), ("mxfp4", "ring", "nearest_even", False),
         ("mxfp4", "ring", "stochastic", True), ("nvfp4", "gather", "stochastic", False)]


def settings(quick):
    """(format, algorithm, rounding, error feedback) of every run."""
    if quick:
        return QUICK
    runs = [("fp32", "allreduce", "nearest_even", False)]
    for name, options in FORMATS[1:]:
        algorithms = ["allreduce"] if options.get("algorithm") == "allreduce" else ["gather", "ring"]
        for algorithm in algorithms:
            for rounding in ("nearest_even", "stochastic"):
                for feedback in (False, True):
                    runs.append((name, algorithm, rounding, feedback))
    return runs


def hook_options(name, algorithm, rounding, feedback, seed):
    options = dict(dict(FORMATS)[name])
    if name != "fp32":
        options.update(algorithm=algorithm, rounding=rounding, error_feedback=feedback, seed=seed)
    return options


def train(rank, size, runs, epochs, lr, seed):
    """Every run on this rank: (bytes per step, accuracy, losses per epoch, ranks agree)."""
    torch.set_num_threads(1)
    x_train, y_train, x_test, y_test = load_digits_split(seed)
    share = BATCH // size
    results = []
    for run in runs:
        torch.manual_seed(seed)
        model = torch.nn.Sequential(torch.nn.Linear(64, 128), torch.nn.ReLU(), torch.nn.Linear(128, 128),
                                    torch.nn.ReLU(), torch.nn.Linear(128, 10))
        ddp = DistributedDataParallel(model)
        hook = sfd.compress_hook(**hook_options(*run, seed))
        ddp.register_comm_hook(None, hook)
        sgd = torch.optim.SGD(ddp.parameters(), lr=lr, momentum=0.9)
        generator = torch.Generator().manual_seed(seed)  # the same batches on every rank
        losses, start = [], time.perf_counter()
        for _ in range(epochs):
            order = torch.randperm(len(y_train), generator=generator)
            total, batches = 0.0, 0
            for begin in range(0, len(order) - BATCH + 1, BATCH):
                mine = order[begin + rank * share:begin + (rank + 1) * share]
                sgd.zero_grad()
                loss = torch.nn.functional.cross_entropy(ddp(x_train[mine]), y_train[mine])
                loss.backward()
                sgd.step()
                total, batches = total + loss.item(), batches + 1
            epoch_loss = torch.tensor([total / batches])
            dist.all_reduce(epoch_loss)
            losses.append(epoch_loss.item() / size)
        seconds = time.perf_counter() - start
        with torch.no_grad():
            accuracy = (model(x_test).argmax(dim=1) == y_test).float().mean().item()
        digest = hashlib.sha256(b"".join(p.detach().numpy().tobytes() for p in model.parameters())).digest()[:8]
        hashes = [None] * size
        dist.all_gather_object(hashes, digest)
        results.append(dict(bytes=hook.last_step_bytes, accuracy=accuracy, losses=losses, seconds=seconds,
                            agree=all(h == hashes[0] for h in hashes)))
    return results


def label(run):
    name, algorithm, rounding, feedback = run
    if name == "fp32":
        return "fp32 (DDP's all-reduce)"
    return f"{name} {algorithm} {'SR' if rounding == 'stochastic' else 'RN'}{' +EF' if feedback else ''}"


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="a few epochs of six settings, with checks")
    parser.add_argument("--ranks", type=int, default=2, help="processes (default 2)")
    parser.add_argument("--epochs", type=int, default=None, help="training epochs (default 20, quick 6)")
    parser.add_argument("--lr", type=float, default=0.02, help="SGD learning rate (momentum 0.9)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--csv", help="write the table as CSV to this file")
    parser.add_argument("--plot", help="write the loss curves and accuracies to this PNG or SVG file")
    args = parser.parse_args()
    if BATCH % args.ranks:
        parser.error(f"--ranks must divide the batch of {BATCH}")
    epochs = args.epochs or (6 if args.quick else 20)
    runs = settings(args.quick)
    print(f"digits on {args.ranks} processes (gloo, 127.0.0.1), batch {BATCH} ({BATCH // args.ranks} per rank), "
          f"{epochs} epochs, SGD lr {args.lr} momentum 0.9, torch {torch.__version__}")
    start = time.perf_counter()
    per_rank = sfd.launch(args.ranks, train, runs, epochs, args.lr, args.seed, timeout=60 + 30 * len(runs) * epochs)
    results = per_rank[0]
    baseline = results[0]["bytes"]
    rows = []
    print(f"{'gradients on the wire':<26} {'bytes/step':>10} {'vs fp32':>8} {'test acc':>9} {'final loss':>10} "
          f"{'ranks agree':>11}")
    for run, result in zip(runs, results):
        row = dict(setting=label(run), format=run[0], algorithm=run[1], rounding=run[2], error_feedback=run[3],
                   bytes_per_step=result["bytes"], accuracy=result["accuracy"], final_loss=result["losses"][-1],
                   ranks_agree=result["agree"], losses=result["losses"])
        rows.append(row)
        print(f"{row['setting']:<26} {row['bytes_per_step']:>10} {baseline / row['bytes_per_step']:>7.2f}x "
              f"{row['accuracy']:>9.4f} {row['final_loss']:>10.4f} {'yes' if row['ranks_agree'] else 'NO':>11}")
    print(f"({time.perf_counter() - start:.1f} s; bytes/step: what each rank sent in one step of {GRADIENTS} "
          f"gradients)")
    if args.csv:
        with open(args.csv, "w", newline="") as handle:
            writer = csv.DictWriter(handle, fieldnames=[k for k in rows[0] if k != "losses"])
            writer.writeheader()
            writer.writerows({k: v for k, v in row.items() if k != "losses"} for row in rows)
    if args.plot:
        plot(rows, args.plot, args.ranks, epochs)
    return check(rows) if args.quick else 0


def plot(rows, path, ranks, epochs):
    """Left: loss per epoch of each format's best and worst variant beside fp32; right:
    final training loss against bytes per step, every run (the test accuracies of 360
    images differ by a few images only; the loss shows what the rounding costs)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    figure, (curves, scatter) = plt.subplots(1, 2, figsize=(13, 5))
    names = list(dict.fromkeys(row["format"] for row in rows))
    colors = dict(zip(names, plt.rcParams["axes.prop_cycle"].by_key()["color"] * 2))
    for name in names:
        variants = sorted((row for row in rows if row["format"] == name), key=lambda row: row["final_loss"])
        for row, style in ((variants[0], "-"), (variants[-1], ":")) if len(variants) > 1 else ((variants[0], "-"),):
            curves.plot(range(1, epochs + 1), row["losses"], style, color=colors[name], label=row["setting"])
    curves.set_yscale("log")
    curves.set_xlabel("epoch")
    curves.set_ylabel("training loss")
    curves.set_title("each format's best (solid) and worst (dotted) variant")
    curves.legend(fontsize=7)
    for row in rows:
        marker = "o" if row["algorithm"] == "gather" else "s" if row["algorithm"] == "ring" else "D"
        filled = row["rounding"] == "stochastic"
        scatter.scatter(row["bytes_per_step"], row["final_loss"], marker=marker, edgecolors=colors[row["format"]],
                        facecolors=colors[row["format"]] if filled else "none",
                        s=60 if row["error_feedback"] else 25)
    scatter.set_xscale("log")
    scatter.set_yscale("log")
    scatter.set_xlabel("bytes each rank sends per step")
    scatter.set_ylabel("final training loss")
    scatter.set_title("o gather, s ring, D engine all-reduce; filled: stochastic; large: error feedback",
                      fontsize=9)
    figure.suptitle(f"Digits MLP on {ranks} processes, gradients sent in each format ({epochs} epochs)")
    figure.tight_layout()
    figure.savefig(path)


def check(rows):
    by_setting = {row["setting"]: row for row in rows}
    fp32 = rows[0]
    problems = []
    if fp32["accuracy"] < 0.85:
        problems.append(f"fp32 did not learn ({fp32['accuracy']:.3f})")
    for row in rows:
        if not row["ranks_agree"]:
            problems.append(f"{row['setting']}: the ranks' parameters differ")
        # The ring sends 2 (N - 1) / N of the codes, as fp32's does of its 4 bytes; gather
        # sends N - 1 payloads, which stays below fp32's ring for 8-bit codes up to N = 7.
        limit = fp32["bytes_per_step"] / (3.5 if row["algorithm"] == "ring" else 1)
        if row is not fp32 and not row["bytes_per_step"] < limit:
            problems.append(f"{row['setting']}: {row['bytes_per_step']} bytes per step, not under {limit:.0f}")
        if row["accuracy"] < 0.5:
            problems.append(f"{row['setting']} collapsed ({row['accuracy']:.3f})")
    if by_setting["e4m3 gather RN"]["accuracy"] < fp32["accuracy"] - 0.05:
        problems.append("e4m3 gradients cost more than 5 points of accuracy")
    for problem in problems:
        print("check failed:", problem, file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
