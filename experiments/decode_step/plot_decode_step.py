"""Figure of `softfloat demo decode-step` (CSV columns: format, bytes_per_weight,
ms_per_token, bound_ms, fraction_of_bound, speedup_over_fp32, relative_error): measured
ms per token against bytes per weight, each format labelled, with the bandwidth bound
(bytes / this machine's read bandwidth) as a line through the origin."""
import sys

sys.dont_write_bytecode = True  # leave no __pycache__ beside the scripts
from plot_common import arguments, load_pyplot, read_rows, save


def main():
    data_path, figure_path = arguments()
    plt = load_pyplot()
    rows = read_rows(data_path)
    figure, axes = plt.subplots(figsize=(8, 6))
    x = [float(r["bytes_per_weight"]) for r in rows]
    y = [float(r["ms_per_token"]) for r in rows]
    axes.scatter(x, y, zorder=3, color="tab:blue", label="measured")
    for xi, yi, r in zip(x, y, rows):
        axes.annotate(r["format"], (xi, yi), xytext=(6, 0), textcoords="offset points", va="center", fontsize=8)
    # The bound is proportional to the bytes: one slope, ms per byte-per-weight.
    slope = max(float(r["bound_ms"]) / float(r["bytes_per_weight"]) for r in rows)
    top = max(x) * 1.1
    axes.plot([0, top], [0, slope * top], color="gray", linestyle="--", label="bandwidth bound")
    axes.set_xlim(0, top)
    axes.set_ylim(0, max(max(y), slope * top) * 1.05)
    axes.set_xlabel("bytes per weight (elements and block scales)")
    axes.set_ylabel("ms per token")
    axes.set_title("One decode step: bytes, not FLOPs")
    axes.legend()
    save(figure, figure_path)


if __name__ == "__main__":
    main()
