"""The torch releases softfloat.torch supports: 2.13 and newer (pyproject.toml's extra
`torch` says the same). Older ones are refused at import with the version found, rather
than failing later inside an operation that their torch lacks."""
import re

__all__ = ["OLDEST_SUPPORTED_TORCH", "require_supported_torch"]

OLDEST_SUPPORTED_TORCH = (2, 13)


def require_supported_torch(version):
    """Raises ImportError unless `version` (torch.__version__, e.g. "2.13.0+cpu" or
    "2.14.0a0+git1234") is 2.13 or newer."""
    match = re.match(r"(\d+)\.(\d+)", str(version))
    if match is None:
        raise ImportError(f"softfloat.torch cannot read torch's version {version!r}")
    found = (int(match.group(1)), int(match.group(2)))
    if found < OLDEST_SUPPORTED_TORCH:
        raise ImportError(f"softfloat.torch needs torch {OLDEST_SUPPORTED_TORCH[0]}.{OLDEST_SUPPORTED_TORCH[1]} "
                          f"or newer; this environment has torch {version}")
