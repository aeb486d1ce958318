"""The Python examples of README.md and of docs/reference/python.md and
docs/python-packaging.md give the values their comments state. (test_docs_samples.py
runs every Python block of the documentation; here the values are checked. The torch
examples are checked in test_torch_layers.py.)"""
import pathlib
import re

import numpy as np

ROOT = pathlib.Path(__file__).resolve().parents[2]
README = ROOT / "README.md"


def first_python_block(path, heading):
    """The first ```python block after `heading` in the page at `path`, run; its names."""
    text = path.read_text()
    section = text[text.index(heading):]
    snippet = re.search(r"```python\n(.*?)```", section, re.S).group(1)
    names = {}
    exec(compile(snippet, f"{path.relative_to(ROOT)} ({heading.strip()})", "exec"), names)
    return names


def test_readme_numpy_example():
    names = first_python_block(README, "\n### NumPy\n")
    softfloat, x = names["softfloat"], names["x"]
    result = softfloat.round_trip(x, "e4m3")
    assert result[:2].tolist() == [0.1015625, -416.0] and np.isnan(result[2])
    assert softfloat.round_trip(x, "e4m3", saturate=True).tolist() == [0.1015625, -416.0, 448.0]
    assert names["codes"].dtype == np.uint8 and names["codes"].tolist() == [0x1D, 0xFD, 0x7F]
    # The prose under the example: through float32, -431.99999999999994 is -432 first.
    assert softfloat.round_trip(x.astype(np.float32), "e4m3")[1] == -448.0
    # Stochastic rounding repeats with its seed and lands on one of the two bf16 neighbours.
    stochastic = softfloat.round_trip(x, "bf16", rounding="stochastic", seed=42)
    assert np.array_equal(stochastic, softfloat.round_trip(x, "bf16", rounding="stochastic", seed=42))
    down = softfloat.round_trip(x, "bf16", rounding="toward_zero")
    away = softfloat.round_trip(x, "bf16", rounding="away_from_zero")
    assert all(s in (d, a) for s, d, a in zip(stochastic.tolist(), down.tolist(), away.tolist()))
    # The MX block: amax 7 gives the scale 2^0 (code 0x7F), and 7 clamps to E2M1's max 6.
    assert names["scales"].tolist() == [[0x7F]]
    values = softfloat.mx_dequantize(names["elements"], names["scales"], "mxfp4_e2m1")
    assert values.shape == (1, 32) and values[0].tolist() == [1.0, 2.0, 3.0, 6.0] * 8


def test_python_reference_example():
    names = first_python_block(ROOT / "docs" / "reference" / "python.md", "# Python reference")
    softfloat, x = names["softfloat"], names["x"]
    assert softfloat.round_trip(x, "e4m3").tolist()[:2] == [0.1015625, -416.0]
    assert softfloat.round_trip(x, "e4m3", saturate=True).tolist() == [0.1015625, -416.0, 448.0]
    assert softfloat.round_trip(x.astype(np.float32), "e4m3").tolist()[:2] == [0.1015625, -448.0]
    assert names["codes"].tolist() == [0x1D, 0xFD, 0x7F]
    assert softfloat.quantize(np.array([1.0, -0.5, 6.0]), "e2m1", packed=True).tolist() == [0x92, 0x07]
    assert names["elements"].shape == (4, 32) and names["scales"].shape == (4, 2)
    assert names["w_mx"].shape == (4, 64) and names["c"].shape == (4, 4)
    assert softfloat.format_info("e5m2").max == 57344.0


def test_python_packaging_page_example():
    names = first_python_block(ROOT / "docs" / "python-packaging.md", "# softfloat for Python")
    softfloat, x = names["softfloat"], names["x"]
    assert softfloat.round_trip(x, "e4m3").tolist() == [0.1015625, 288.0, 0.001953125]
    assert softfloat.quantize(x, "e4m3").tolist() == [29, 121, 1]
