"""Shared pieces of the plot scripts (experiments/NAME/plot_NAME.py): reading the CSV
that `softfloat demo NAME --csv FILE` writes, and saving a figure as SVG or PNG.

The scripts run under a Python with matplotlib (the project's .venv, or $SOFTFLOAT_PYTHON);
`softfloat demo NAME --plot FILE` calls them, from the folder that holds them beside
this file (share/softfloat/scripts installed, cli/plot_scripts in the build tree), as
    python3 plot_NAME.py DATA.csv FIGURE.svg|FIGURE.png
From the source tree: PYTHONPATH=experiments .venv/bin/python experiments/NAME/plot_NAME.py ...
"""
import csv
import sys


def load_pyplot():
    """matplotlib.pyplot with a file-only backend, or exit 3 with one line saying what to install."""
    try:
        import matplotlib
    except ImportError:
        sys.exit(f"{sys.argv[0]}: matplotlib is not installed for {sys.executable} "
                 "(pip install matplotlib into it, or set SOFTFLOAT_PYTHON to a Python that has it)")
    matplotlib.use("Agg")
    matplotlib.rcParams["svg.hashsalt"] = "softfloat"  # reproducible SVG element ids
    import matplotlib.pyplot as plt
    return plt


def arguments():
    """(csv path, figure path) from the command line."""
    if len(sys.argv) != 3 or not sys.argv[2].endswith((".svg", ".png")):
        sys.exit(f"usage: {sys.argv[0]} DATA.csv FIGURE.svg|FIGURE.png")
    return sys.argv[1], sys.argv[2]


def read_rows(path):
    """The CSV's rows as dicts keyed by the header's column names."""
    with open(path, newline="") as file:
        return list(csv.DictReader(file))


def save(figure, path):
    # A fixed date keeps SVG output identical from run to run.
    metadata = {"Date": None} if path.endswith(".svg") else {}
    figure.savefig(path, dpi=150, bbox_inches="tight", metadata=metadata)
