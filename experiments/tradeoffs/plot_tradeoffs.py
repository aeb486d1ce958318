"""Figure of `softfloat tradeoffs` (CSV columns: format, bytes_per_element,
accumulator, k, relative_error, input_error, fp32_gflops): matmul's relative error
against bytes per element at the largest depth k, each format's points labelled, one
marker per accumulator (left); and the error against k for the common formats (right)."""
import math
import sys

sys.dont_write_bytecode = True  # leave no __pycache__ beside the scripts
from plot_common import arguments, load_pyplot, read_rows, save

MARKERS = ["o", "s", "^", "D", "v"]  # one per accumulator, in the CSV's order
# The right panel's formats: one or two per width, the ones hardware ships.
COMMON = {"fp32": "black", "fp16": "tab:blue", "bf16": "tab:red", "e4m3": "tab:green",
          "e5m2": "tab:olive", "e2m3": "tab:purple", "e2m1": "tab:orange"}


def labels_at(points):
    """(x, y, text) per distinct point: formats whose errors agree within 2% at the same
    width (e4m3, e4m3fnuz and p3109_8p4 carry the same 3 mantissa bits) share one label."""
    groups = []
    for x, y, name in sorted(points):
        if groups and groups[-1][0] == x and abs(math.log(y / groups[-1][1])) < 0.02:
            groups[-1][2].append(name)
        else:
            groups.append((x, y, [name]))
    return [(x, y, ", ".join(names)) for x, y, names in groups]


def main():
    data_path, figure_path = arguments()
    plt = load_pyplot()
    from matplotlib.lines import Line2D  # after load_pyplot, which says what to install if it is missing
    rows = read_rows(data_path)
    accumulators = list(dict.fromkeys(r["accumulator"] for r in rows))
    formats = list(dict.fromkeys(r["format"] for r in rows))
    largest_k = max(int(r["k"]) for r in rows)
    figure, (left, right) = plt.subplots(1, 2, figsize=(14, 6))

    at_largest = {(r["format"], r["accumulator"]): r for r in rows if int(r["k"]) == largest_k}
    for index, accumulator in enumerate(accumulators):
        points = [(float(at_largest[f, accumulator]["bytes_per_element"]),
                   float(at_largest[f, accumulator]["relative_error"]), f) for f in formats]
        filled = index == 0
        left.scatter([x for x, _, _ in points], [y for _, y, _ in points], marker=MARKERS[index % len(MARKERS)],
                     s=36, zorder=3, facecolors="tab:blue" if filled else "none", edgecolors="tab:blue" if filled
                     else "tab:red", label=f"{accumulator} accumulator")
        if filled:  # the labels go with the first accumulator's points
            for x, y, text in labels_at(points):
                left.annotate(text, (x, y), xytext=(6, 0), textcoords="offset points", va="center", fontsize=7)
    # A thin line joins each format's points: what the accumulator costs.
    for f in formats:
        errors = [float(at_largest[f, a]["relative_error"]) for a in accumulators]
        x = float(at_largest[f, accumulators[0]]["bytes_per_element"])
        left.plot([x, x], [min(errors), max(errors)], color="gray", linewidth=0.6, zorder=1)
    widths = sorted({float(r["bytes_per_element"]) for r in rows})
    left.set_xscale("log", base=2)
    left.set_xticks(widths, [f"{w:g}" for w in widths])
    left.set_xlim(widths[0] / 1.25, widths[-1] * 1.6)
    left.set_yscale("log")
    left.set_xlabel("bytes per element (log scale; 4- and 6-bit codes packed)")
    left.set_ylabel("relative error ||C - C64||_F / ||C64||_F (log scale)")
    left.set_title(f"Error against memory per element, k = {largest_k}")
    left.grid(True, which="major", alpha=0.3)
    handles, _ = left.get_legend_handles_labels()
    handles.append(Line2D([], [], color="gray", linewidth=0.6, label="one format, its accumulators"))
    left.legend(handles=handles, fontsize=8, loc="lower left")

    styles = ["-", "--", ":", "-."]  # one per accumulator
    shown = [f for f in COMMON if f in formats]
    for f in shown:
        for index, accumulator in enumerate(accumulators):
            series = sorted((int(r["k"]), float(r["relative_error"])) for r in rows
                            if r["format"] == f and r["accumulator"] == accumulator)
            right.plot([k for k, _ in series], [e for _, e in series], color=COMMON[f],
                       linestyle=styles[index % len(styles)], marker=".")
    # Two legends: the colour names the input format, the line style the accumulator.
    format_handles = [Line2D([], [], color=COMMON[f], marker=".", label=f"{f} inputs") for f in shown]
    accumulator_handles = [Line2D([], [], color="gray", linestyle=styles[i % len(styles)],
                                  label=f"{a} accumulator") for i, a in enumerate(accumulators)]
    right.add_artist(right.legend(handles=format_handles, fontsize=8, ncol=4, loc="upper center",
                                  bbox_to_anchor=(0.5, -0.12)))
    right.legend(handles=accumulator_handles, fontsize=8, ncol=len(accumulators), loc="upper center",
                 bbox_to_anchor=(0.5, -0.21))
    right.set_xscale("log", base=2)
    depths = sorted({int(r["k"]) for r in rows})
    right.set_xticks(depths, [str(k) for k in depths])
    right.set_yscale("log")
    right.set_xlabel("depth k, products per dot product (log scale)")
    right.set_ylabel("relative error ||C - C64||_F / ||C64||_F (log scale)")
    right.set_title("Error against depth k: a bf16 accumulator's error grows")
    right.grid(True, which="major", alpha=0.3)
    figure.suptitle("Precision trade-offs: matmul error against fp64, by input format and accumulator")
    save(figure, figure_path)


if __name__ == "__main__":
    main()
