"""Figure of `softfloat demo gradient-underflow` (CSV columns: kind, format, step,
log2_scale, survived, flushed_to_zero, overflowed). Left: the share of a log-normal
sample of gradients that survives storage (neither flushed to zero nor overflowed)
against the static loss scale, with the dynamic scaler's median scale and mean
survival marked. Right: the dynamic scale step by step."""
import sys

sys.dont_write_bytecode = True  # leave no __pycache__ beside the scripts
from plot_common import arguments, load_pyplot, read_rows, save

COLORS = {"fp16": "tab:blue", "bf16": "black", "e5m2": "tab:orange", "e4m3": "tab:red"}
# fp16 and e5m2 overflow at nearly the same magnitude, so their dynamic scales often
# coincide: different dashes keep both visible.
DASHES = {"fp16": "-", "bf16": "-", "e5m2": "--", "e4m3": "-"}


def median(values):
    ordered = sorted(values)
    return ordered[len(ordered) // 2]


def main():
    data_path, figure_path = arguments()
    plt = load_pyplot()
    rows = read_rows(data_path)
    formats = list(dict.fromkeys(r["format"] for r in rows))
    figure, (left, right) = plt.subplots(1, 2, figsize=(12, 5), gridspec_kw={"width_ratios": [3, 2]})
    for name in formats:
        static = [r for r in rows if r["kind"] == "static" and r["format"] == name]
        line, = left.plot([2.0 ** int(r["log2_scale"]) for r in static],
                          [100 * float(r["survived"]) for r in static], color=COLORS.get(name), label=name)
        dynamic = [r for r in rows if r["kind"] == "dynamic" and r["format"] == name]
        if not dynamic:
            continue
        applied = [r for r in dynamic if float(r["overflowed"]) == 0]
        survived = sum(float(r["survived"]) for r in applied) / max(1, len(applied))
        left.plot([2.0 ** median(int(r["log2_scale"]) for r in dynamic)], [100 * survived], marker="o",
                  markersize=9, linestyle="none", markerfacecolor="none", markeredgewidth=2, color=line.get_color())
        right.plot([int(r["step"]) for r in dynamic], [int(r["log2_scale"]) for r in dynamic],
                   color=line.get_color(), linestyle=DASHES.get(name, "-"), label=name, drawstyle="steps-post")
    # One legend entry explains the markers for every format.
    left.plot([], [], marker="o", markersize=9, linestyle="none", markerfacecolor="none", markeredgewidth=2,
              color="gray", label="dynamic scaler: median scale, mean survival")
    left.set_xscale("log", base=2)
    exponents = sorted({int(r["log2_scale"]) for r in rows if r["kind"] == "static"})
    if exponents:
        step = max(1, (exponents[-1] - exponents[0]) // 5)
        left.set_xticks([2.0 ** k for k in range(exponents[0], exponents[-1] + 1, step)])
    left.set_xlabel("static loss scale S (gradients stored as g * S; log scale)")
    left.set_ylabel("gradients surviving storage, % (not flushed to 0, not overflowed)")
    left.set_title("Gradient underflow: log-normal gradients stored after loss scaling")
    left.set_ylim(-2, 102)
    left.grid(True, alpha=0.3)
    left.legend(fontsize=9, loc="upper center", bbox_to_anchor=(0.5, -0.13), ncol=3)
    right.set_xlabel("training step")
    right.set_ylabel("dynamic loss scale, log2 S")
    right.set_title("Dynamic loss scaling: halve on overflow,\ndouble after a run of clean steps")
    right.grid(True, alpha=0.3)
    right.legend(fontsize=9)
    save(figure, figure_path)


if __name__ == "__main__":
    main()
