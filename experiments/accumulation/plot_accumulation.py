"""Figure of `softfloat demo accumulation` (CSV columns: workload, accumulator,
terms, relative_error): relative error of a running sum against the number of terms,
for n copies of one constant (left) and for random dot products (right)."""
import sys

sys.dont_write_bytecode = True  # leave no __pycache__ beside the scripts
from plot_common import arguments, load_pyplot, read_rows, save

COLORS = {"fp32": "black", "bf16": "tab:red", "fp16": "tab:blue"}


def style(accumulator):
    base = accumulator.split(" + ")[0]
    kahan = accumulator.endswith("+ kahan")
    return dict(color=COLORS.get(base), linestyle="--" if kahan else "-", marker="." if kahan else None)


def main():
    data_path, figure_path = arguments()
    plt = load_pyplot()
    rows = read_rows(data_path)
    workloads = list(dict.fromkeys(r["workload"] for r in rows))
    figure, panels = plt.subplots(1, len(workloads), figsize=(6 * len(workloads), 5), squeeze=False)
    for axes, workload in zip(panels[0], workloads):
        selected = [r for r in rows if r["workload"] == workload]
        for accumulator in dict.fromkeys(r["accumulator"] for r in selected):
            series = [r for r in selected if r["accumulator"] == accumulator]
            # An exact sum has error 0, which a log axis cannot show: those points are left out.
            points = [(int(r["terms"]), float(r["relative_error"])) for r in series if float(r["relative_error"]) > 0]
            axes.plot([n for n, _ in points], [e for _, e in points], label=accumulator, **style(accumulator))
        axes.set_xscale("log")
        axes.set_yscale("log")
        axes.set_xlabel("number of terms n (log scale)")
        axes.set_ylabel("relative error of the sum |sum - exact| / exact (log scale)")
        if workload.startswith("constant"):
            axes.set_title(f"Sum of n copies of {workload.split(' ', 1)[1]}")
        else:
            axes.set_title("Dot products of n pairs uniform in [0, 1), mean over trials")
        axes.grid(True, which="major", alpha=0.3)
        axes.legend(fontsize=8)
    figure.suptitle("Accumulation: 16-bit running sums stall once terms fall below half an ulp of the sum")
    save(figure, figure_path)


if __name__ == "__main__":
    main()
