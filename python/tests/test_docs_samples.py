"""Every Python block of README.md and docs/ runs (docs_samples.py says how blocks are
found and marked; the blocks that import torch are test_torch_docs_samples.py's), and
every relative link between the pages resolves."""
import re

import pytest

import docs_samples

SAMPLES = docs_samples.samples()


def test_the_pages_have_samples_and_every_marker_is_known():
    # A guard against the reader silently finding nothing, or a misspelt marker.
    assert len(SAMPLES) >= 6, [s.name for s in SAMPLES]
    assert any(s.page == "README.md" for s in SAMPLES)
    for sample in SAMPLES:
        assert sample.marker == "" or sample.skip_reason, \
            f"{sample.name}: unknown marker <!-- sample: {sample.marker} -->; use 'skip (reason)'"


@pytest.mark.parametrize("sample", [s for s in SAMPLES if "torch" not in s.modules], ids=lambda s: s.name)
def test_python_sample_runs(sample, tmp_path, monkeypatch):
    if sample.skip_reason:
        pytest.skip(sample.skip_reason)
    monkeypatch.chdir(tmp_path)
    missing = docs_samples.run(sample, tmp_path)
    if missing:
        # ml_dtypes and friends are optional: the wheel's own test environment has NumPy only.
        pytest.skip(f"needs {', '.join(missing)}")


def slug(heading):
    """The anchor GitHub gives a heading: lower case, punctuation dropped, spaces to hyphens."""
    text = re.sub(r"[`*_]", "", heading.strip().lower())
    text = re.sub(r"[^\w\- ]", "", text)
    return text.replace(" ", "-")


def anchors(page):
    return {slug(line.lstrip("#")) for line in page.read_text().splitlines() if re.match(r"#{1,6} ", line)}


def test_every_relative_link_of_the_pages_resolves():
    # Links to other pages and to their headings: a moved page or a renamed section breaks
    # them silently otherwise. Links into code blocks are not links, so fences are dropped.
    broken = []
    for page in docs_samples.pages():
        text = re.sub(r"^```.*?^```", "", page.read_text(), flags=re.S | re.M)
        for target in re.findall(r"\]\(([^)\s]+)\)", text):
            if re.match(r"[a-z]+:", target):
                continue
            path, _, anchor = target.partition("#")
            resolved = (page.parent / path).resolve() if path else page
            if not resolved.exists():
                broken.append(f"{page.relative_to(docs_samples.ROOT)}: {target}")
            elif anchor and resolved.suffix == ".md" and anchor not in anchors(resolved):
                broken.append(f"{page.relative_to(docs_samples.ROOT)}: {target} (no such heading)")
    assert not broken, "\n".join(broken)
