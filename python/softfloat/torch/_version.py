"""The torch releases softfloat.torch accepts: torch 2 from 2.1, the first with the float8
dtypes. The tests run torch 2.13, which pyproject.toml's extra `torch` asks for; 2.1 to
2.12 import but are untested. torch 1 is refused at import with the version found,
rather than failing later inside an operation that it lacks."""
import re

__all__ = ["OLDEST_SUPPORTED_TORCH", "require_supported_torch"]

OLDEST_SUPPORTED_TORCH = (2, 1)


def require_supported_torch(version):
    """Raises ImportError unless `version` (torch.__version__, e.g. "2.13.0+cpu" or
    "2.14.0a0+git1234") is 2.1 or newer."""
    match = re.match(r"(\d+)\.(\d+)", str(version))
    if match is None:
        raise ImportError(f"softfloat.torch cannot read torch's version {version!r}")
    found = (int(match.group(1)), int(match.group(2)))
    if found < OLDEST_SUPPORTED_TORCH:
        raise ImportError(f"softfloat.torch needs torch {OLDEST_SUPPORTED_TORCH[0]}.{OLDEST_SUPPORTED_TORCH[1]} "
                          f"or newer; this environment has torch {version}")
