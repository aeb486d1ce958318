"""Every Python block of README.md and docs/ that imports torch runs (docs_samples.py
says how blocks are found and marked); the others are test_docs_samples.py's."""
import pytest

import docs_samples

torch = pytest.importorskip("torch")

SAMPLES = [s for s in docs_samples.samples() if "torch" in s.modules]


def test_the_torch_pages_have_samples():
    assert any(s.page == "README.md" for s in SAMPLES)
    assert any(s.page == "docs/reference/torch.md" for s in SAMPLES)


@pytest.mark.parametrize("sample", SAMPLES, ids=lambda s: s.name)
def test_torch_sample_runs(sample, tmp_path, monkeypatch):
    if sample.skip_reason:
        pytest.skip(sample.skip_reason)
    monkeypatch.chdir(tmp_path)
    torch.manual_seed(0)
    missing = docs_samples.run(sample, tmp_path)
    if missing:
        pytest.skip(f"needs {', '.join(missing)}")
