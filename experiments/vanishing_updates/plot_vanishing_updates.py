"""Figure of `softfloat demo vanishing-updates`: training loss against step for each
way of storing the weights (CSV columns: update, weights, step, loss)."""
import sys

sys.dont_write_bytecode = True  # leave no __pycache__ beside the scripts
from plot_common import arguments, load_pyplot, read_rows, save

LABELS = {
    "plain": "{w} weights",
    "master_weights": "{w} + fp32 master weights",
    "kahan": "{w} + Kahan-compensated updates",
    "stochastic_rounding": "{w} + stochastic rounding",
    "fp32": "fp32 weights",
}
STYLES = {
    "plain": dict(color="tab:red", linewidth=2.2),
    "master_weights": dict(color="tab:blue"),
    "kahan": dict(color="tab:green", linestyle="--"),
    "stochastic_rounding": dict(color="tab:orange", linestyle="-."),
    "fp32": dict(color="black", linestyle=":"),
}


def main():
    data_path, figure_path = arguments()
    plt = load_pyplot()
    rows = read_rows(data_path)
    weights = next(r["weights"] for r in rows if r["update"] != "fp32")
    figure, axes = plt.subplots(figsize=(8, 5))
    for update, label in LABELS.items():
        series = [r for r in rows if r["update"] == update]
        if not series:
            continue
        axes.plot([int(r["step"]) for r in series], [float(r["loss"]) for r in series],
                  label=label.format(w=weights), **STYLES[update])
    axes.set_yscale("log")
    axes.set_xlabel("SGD step")
    axes.set_ylabel("training loss, mean squared error / 2 (log scale)")
    axes.set_title(f"Vanishing updates: least squares with weights stored in {weights}\n"
                   f"updates below half an ulp are lost; the three fixes keep them")
    axes.grid(True, which="major", alpha=0.3)
    axes.legend()
    save(figure, figure_path)


if __name__ == "__main__":
    main()
