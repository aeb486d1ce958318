"""The Python example of README.md runs, and gives the values its comments state."""
import pathlib
import re

import numpy as np

README = pathlib.Path(__file__).resolve().parents[2] / "README.md"


def test_readme_python_example():
    text = README.read_text()
    section = text[text.index("\n## Python\n"):]
    snippet = re.search(r"```python\n(.*?)```", section, re.S).group(1)
    names = {}
    exec(compile(snippet, "README.md (## Python)", "exec"), names)
    softfloat, x = names["softfloat"], names["x"]
    assert softfloat.round_trip(x, "e4m3").tolist()[:2] == [0.1015625, -416.0]
    assert softfloat.round_trip(x, "e4m3", saturate=True).tolist() == [0.1015625, -416.0, 448.0]
    assert softfloat.round_trip(x.astype(np.float32), "e4m3").tolist()[:2] == [0.1015625, -448.0]
    assert names["codes"].tolist() == [0x1D, 0xFD, 0x7F]
    assert softfloat.quantize(np.array([1.0, -0.5, 6.0]), "e2m1", packed=True).tolist() == [0x92, 0x07]
    assert names["elements"].shape == (4, 32) and names["scales"].shape == (4, 2)
    assert names["w_mx"].shape == (4, 64) and names["c"].shape == (4, 4)
    assert softfloat.format_info("e5m2").max == 57344.0


def first_python_block(text, heading, source):
    """The first ```python block after `heading` in `text`, run; its names."""
    section = text[text.index(heading):]
    snippet = re.search(r"```python\n(.*?)```", section, re.S).group(1)
    names = {}
    exec(compile(snippet, source, "exec"), names)
    return names


def test_install_with_pip_example():
    names = first_python_block(README.read_text(), "\n## Install with pip\n", "README.md (## Install with pip)")
    result = names["softfloat"].round_trip(names["x"], "e4m3")
    assert result[:2].tolist() == [0.1015625, -416.0] and np.isnan(result[2])


def test_python_packaging_page_example():
    page = README.parent / "docs" / "python-packaging.md"
    names = first_python_block(page.read_text(), "# softfloat for Python", "docs/python-packaging.md")
    softfloat, x = names["softfloat"], names["x"]
    assert softfloat.round_trip(x, "e4m3").tolist() == [0.1015625, 288.0, 0.001953125]
    assert softfloat.quantize(x, "e4m3").tolist() == [29, 121, 1]
