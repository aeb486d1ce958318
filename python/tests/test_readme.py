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
