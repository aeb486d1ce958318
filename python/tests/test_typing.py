"""The package's types (PEP 561): the stub softfloat/_core.pyi names exactly what the
compiled module exports, with the argument names, kinds, defaults and simple types of
its pybind11 bindings; py.typed ships beside __init__.py; every module of the package
lists its public names in an explicit __all__. Everything is read from the package that
`import softfloat` finds (the build tree or an installed copy), and the torch modules are
read as source (ast), so that this file needs no torch.
"""
import ast
import os
import pathlib
import re
import subprocess
import sys

import pytest

import softfloat
from softfloat import _core

PACKAGE = pathlib.Path(softfloat.__file__).parent
STUB = PACKAGE / "_core.pyi"


def is_dunder(name):
    return name.startswith("__") and name.endswith("__")


def runtime_names(namespace):
    return {name for name in namespace if not is_dunder(name)}


def decorator_names(node):
    return {ast.unparse(decorator) for decorator in node.decorator_list}


def stub_tree():
    return ast.parse(STUB.read_text(), filename=str(STUB))


def stub_definitions(body):
    """name -> the stub's nodes of that name (several for an overloaded function). Classes
    marked @type_check_only exist for the type checker alone and are left out."""
    definitions = {}
    for node in body:
        if isinstance(node, (ast.FunctionDef, ast.ClassDef)):
            if "type_check_only" in decorator_names(node):
                continue
            definitions.setdefault(node.name, []).append(node)
        elif isinstance(node, ast.AnnAssign):
            definitions.setdefault(node.target.id, []).append(node)
        elif isinstance(node, ast.Assign):
            for target in node.targets:
                definitions.setdefault(target.id, []).append(node)
    return definitions


def stub_functions():
    return {name: nodes for name, nodes in stub_definitions(stub_tree().body).items()
            if isinstance(nodes[0], ast.FunctionDef)}


def stub_classes():
    return {name: nodes[0] for name, nodes in stub_definitions(stub_tree().body).items()
            if isinstance(nodes[0], ast.ClassDef)}


def runtime_functions():
    return {name: getattr(_core, name) for name in runtime_names(dir(_core))
            if callable(getattr(_core, name)) and not isinstance(getattr(_core, name), type)}


def test_py_typed_ships_beside_the_package():
    assert (PACKAGE / "__init__.py").is_file()
    assert (PACKAGE / "py.typed").is_file(), f"no py.typed in {PACKAGE} (PEP 561)"
    assert STUB.is_file(), f"no _core.pyi in {PACKAGE}"


def test_stub_names_exactly_the_module_exports():
    stubbed = set(stub_definitions(stub_tree().body))
    exported = runtime_names(dir(_core))
    assert sorted(exported - stubbed) == [], "exported by softfloat._core but missing from _core.pyi"
    assert sorted(runtime_names(stubbed) - exported) == [], "in _core.pyi but not exported by softfloat._core"
    for name in stubbed:  # the dunder names the stub declares (__version__) exist too
        assert hasattr(_core, name), name


def test_stub_classes_have_the_members_of_the_module_classes():
    classes = stub_classes()
    assert set(classes) == {name for name in runtime_names(dir(_core)) if isinstance(getattr(_core, name), type)}
    for name, node in classes.items():
        runtime = vars(getattr(_core, name))
        stubbed = stub_definitions(node.body)
        # Every pybind11 class carries _pybind11_conduit_v1_, pybind11's own, not the class's.
        assert runtime_names(stubbed) == {member for member in runtime_names(runtime)
                                          if not member.startswith("_pybind11")}, name
        for member, nodes in stubbed.items():
            if is_dunder(member):
                continue
            is_property = isinstance(nodes[0], ast.FunctionDef) and "property" in decorator_names(nodes[0])
            assert is_property == isinstance(runtime[member], property), f"{name}.{member}"
            if is_property:  # read-only, as every property of the bindings is
                assert runtime[member].fset is None, f"{name}.{member}"
                binding = pybind11_signature(runtime[member].fget)
                check_type(ast.unparse(binding.returns), ast.unparse(nodes[0].returns), RETURN_TYPES,
                           f"{name}.{member}")


# pybind11's spelling of a simple type -> the spellings the stub may use for it (pybind11
# 3's, and pybind11 2's where they differ). Types not listed (object, sequences, dicts)
# are the stub's to choose.
ARGUMENT_TYPES = {
    "str": {"str"},
    "bool": {"bool"},
    "str | None": {"str | None"},
    "Optional[str]": {"str | None"},
    "typing.SupportsInt | typing.SupportsIndex": {"int", "SupportsIndex"},
    "int": {"int", "SupportsIndex"},
    "typing.SupportsFloat | typing.SupportsIndex": {"float"},
    "float": {"float"},
}
RETURN_TYPES = {
    "None": {"None"},
    "str": {"str"},
    "int": {"int"},
    "float": {"float"},
    "bool": {"bool"},
    "list[str]": {"list[str]"},
    "List[str]": {"list[str]"},
    "softfloat._core.FormatInfo": {"FormatInfo"},
}


def check_type(binding, stub, table, where):
    if binding in table:
        assert stub in table[binding], f"{where}: pybind11 says {binding}, the stub {stub}"
    elif binding in ("numpy.ndarray", "numpy.typing.NDArray[numpy.float32]"):
        assert all(part.startswith("NDArray[") for part in stub.split(" | ")), f"{where}: {stub}"
        if binding.endswith("[numpy.float32]"):
            assert stub == "NDArray[np.float32]", f"{where}: {stub}"
    elif binding == "tuple":
        assert stub.startswith("tuple["), f"{where}: {stub}"


def pybind11_signature(function):
    """The first line of a pybind11 docstring, `name(a: T, *, b: U = d) -> R`, as an ast
    function. Defaults that are no Python expression (<class 'numpy.float32'>) become `...`."""
    first_line = function.__doc__.lstrip().splitlines()[0]
    if first_line.startswith("("):  # a property's getter: (arg0: softfloat._core.FormatInfo) -> int
        first_line = "getter" + first_line
    source = "def " + re.sub(r"<[^<>]*>", "...", first_line) + ": ..."
    return ast.parse(source).body[0]


def parameters(function):
    """(name, kind, default, annotation) of each parameter; kind: positional or keyword;
    default and annotation: ast nodes, default None where there is none."""
    args = function.args
    positional = args.posonlyargs + args.args
    defaults = [None] * (len(positional) - len(args.defaults)) + list(args.defaults)
    return ([(arg.arg, "positional", default, arg.annotation) for arg, default in zip(positional, defaults)] +
            [(arg.arg, "keyword", default, arg.annotation) for arg, default in zip(args.kwonlyargs, args.kw_defaults)])


def test_stub_signatures_match_the_bindings():
    stubbed = stub_functions()
    functions = runtime_functions()
    assert set(functions) <= set(stubbed)
    for name, function in sorted(functions.items()):
        binding = pybind11_signature(function)
        assert binding.name == name
        expected = parameters(binding)
        overloads = stubbed[name]
        if len(overloads) > 1:
            assert all("overload" in decorator_names(node) for node in overloads), name
        for node in overloads:
            actual = parameters(node)
            stub_kinds, binding_kinds = [p[:2] for p in actual], [p[:2] for p in expected]
            assert stub_kinds == binding_kinds, f"{name}: the stub's parameters differ from the binding's"
            for (parameter, _, default, annotation), (_, _, runtime_default, runtime_type) in zip(actual, expected):
                where = f"{name}({parameter})"
                check_type(ast.unparse(runtime_type), ast.unparse(annotation), ARGUMENT_TYPES, where)
                # An overload may leave a default out (dequantize's dtype=np.float64 case); a
                # lone signature has exactly the binding's.
                if len(overloads) == 1:
                    assert (default is None) == (runtime_default is None), where
                if default is None or ast.unparse(default) == "...":
                    continue
                assert runtime_default is not None, where
                assert ast.literal_eval(default) == ast.literal_eval(runtime_default), where
            check_type(ast.unparse(binding.returns), ast.unparse(node.returns), RETURN_TYPES, name)


# softfloat's own Python functions beside _core's names (softfloat/_native_arrays.py).
PYTHON_FUNCTIONS = {"encode", "decode"}


def test_softfloat_all_is_the_public_names_of_core():
    names = softfloat.__all__
    assert len(names) == len(set(names)), "a name twice in softfloat.__all__"
    assert sorted(set(names) - PYTHON_FUNCTIONS) == sorted(name for name in dir(_core) if not name.startswith("_"))
    assert PYTHON_FUNCTIONS <= set(names)
    for name in set(names) - PYTHON_FUNCTIONS:
        assert getattr(softfloat, name) is getattr(_core, name), name
    for name in PYTHON_FUNCTIONS:
        assert getattr(softfloat, name).__module__ == "softfloat._native_arrays", name


def top_level_statements(body):
    """The module's statements, those inside top-level if / try blocks included."""
    for node in body:
        yield node
        if isinstance(node, ast.If):
            yield from top_level_statements(node.body + node.orelse)
        elif isinstance(node, ast.Try):
            yield from top_level_statements(node.body + node.orelse + node.finalbody +
                                            [statement for handler in node.handlers for statement in handler.body])


def module_names(tree):
    """(names the module binds, including imported ones; names it defines itself)."""
    bound, defined = set(), set()
    for node in top_level_statements(tree.body):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            defined.add(node.name)
        elif isinstance(node, ast.Assign):
            defined.update(target.id for target in node.targets if isinstance(target, ast.Name))
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            defined.add(node.target.id)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            bound.update((alias.asname or alias.name).split(".")[0] for alias in node.names)
    return bound | defined, defined


def explicit_all(tree, path):
    """The module's __all__, which must be one literal list of strings."""
    assignments = [node for node in tree.body if isinstance(node, ast.Assign)
                   and any(isinstance(target, ast.Name) and target.id == "__all__" for target in node.targets)]
    assert len(assignments) == 1, f"{path}: no explicit __all__ (or more than one)"
    names = ast.literal_eval(assignments[0].value)
    assert isinstance(names, list) and all(isinstance(name, str) for name in names), f"{path}: __all__ not a list"
    return names


MODULES = sorted(str(path.relative_to(PACKAGE)) for path in PACKAGE.rglob("*.py"))


@pytest.mark.parametrize("module", MODULES)
def test_every_module_has_an_explicit_all(module):
    path = PACKAGE / module
    tree = ast.parse(path.read_text(), filename=str(path))
    names = explicit_all(tree, module)
    assert len(names) == len(set(names)), f"{module}: a name twice in __all__"
    bound, defined = module_names(tree)
    assert sorted(set(names) - bound) == [], f"{module}: __all__ names what the module does not have"
    assert sorted(name for name in defined if not name.startswith("_") and name not in names) == [], \
        f"{module}: public names missing from __all__"


def test_every_module_is_checked():
    assert "__init__.py" in MODULES and os.path.join("torch", "__init__.py") in MODULES
    assert os.path.join("torch", "distributed", "__init__.py") in MODULES


def test_stubtest_finds_the_stub_consistent(tmp_path):
    """mypy's stubtest: the stub type-checks, and each name is the kind of object the
    module has (function, class, read-only property). pybind11 functions carry no
    inspectable signature, so their signatures are test_stub_signatures_match_the_bindings's."""
    pytest.importorskip("mypy.stubtest")
    allowlist = tmp_path / "allowlist.txt"
    allowlist.write_text(
        "# pybind11's metaclass, an implementation detail no stub spells\n"
        "softfloat._core.FormatInfo\n"
        "# pybind11's __init__ that raises TypeError (no constructor: format_info() makes them)\n"
        "softfloat._core.FormatInfo.__init__\n")
    environment = dict(os.environ, PYTHONPATH=os.pathsep.join([str(PACKAGE.parent), os.environ.get("PYTHONPATH", "")]),
                       MYPY_CACHE_DIR=str(tmp_path / "mypy_cache"))
    result = subprocess.run([sys.executable, "-m", "mypy.stubtest", "softfloat._core", "--allowlist", str(allowlist)],
                            capture_output=True, text=True, cwd=tmp_path, env=environment, timeout=300)
    assert result.returncode == 0, result.stdout + result.stderr
