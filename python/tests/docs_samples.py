"""The fenced ```python blocks of README.md and docs/**/*.md, which test_docs_samples.py
and test_torch_docs_samples.py run (the blocks that import torch in the second, so that
they carry the torch label and stay out of the builds that do not load torch).

Each block runs on its own, in a fresh namespace: a page's example must work as a
reader copies it. The line right before a fence may say otherwise,
    <!-- sample: skip (why it cannot run on its own) -->
for a block that needs several processes, say; keep those rare, and give the reason.
The tests that check the values an example's comments state are test_readme.py and
test_torch_layers.py."""
import ast
import dataclasses
import importlib.util
import pathlib
import re

ROOT = pathlib.Path(__file__).resolve().parents[2]
FENCE = re.compile(r"^```python\n(.*?)^```[ \t]*$", re.S | re.M)
MARKER = re.compile(r"<!-- sample: (.*?) -->\n\Z")
SKIP = re.compile(r"skip \((.+)\)\Z")


@dataclasses.dataclass
class Sample:
    page: str        # relative to the repository root
    index: int       # 1 for the page's first Python block
    line: int        # of the block's first code line
    code: str
    marker: str      # the text of <!-- sample: ... --> before the fence, or ""
    modules: frozenset  # the top-level modules the block imports

    @property
    def name(self):
        return f"{self.page}:{self.line}"

    @property
    def skip_reason(self):
        match = SKIP.match(self.marker)
        return match.group(1) if match else None


def pages():
    return [ROOT / "README.md"] + sorted((ROOT / "docs").rglob("*.md"))


def imported_modules(code):
    """The top-level modules `code` imports; softfloat.torch counts as torch too."""
    modules = []
    for node in ast.walk(ast.parse(code)):
        if isinstance(node, ast.Import):
            modules += [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0:
            modules.append(node.module)
    names = {module.split(".")[0] for module in modules}
    if any(module == "softfloat.torch" or module.startswith("softfloat.torch.") for module in modules):
        names.add("torch")
    return frozenset(names)


def samples():
    found = []
    for page in pages():
        text = page.read_text()
        for index, match in enumerate(FENCE.finditer(text), 1):
            marker = MARKER.search(text[:match.start()])
            code = match.group(1)
            found.append(Sample(page=str(page.relative_to(ROOT)), index=index,
                                line=text.count("\n", 0, match.start(1)) + 1, code=code,
                                marker=marker.group(1) if marker else "",
                                modules=imported_modules(code)))
    return found


def run(sample, directory):
    """Runs the block in `directory` (a scratch folder: a block may write files)."""
    missing = sorted(m for m in sample.modules if importlib.util.find_spec(m) is None)
    if missing:
        return missing
    names = {"__name__": "__docs_sample__"}
    exec(compile(sample.code, f"{sample.page} (Python block {sample.index}, line {sample.line})", "exec"), names)
    return []
