"""LowPrecisionOptimizer: any torch optimizer, with the parameters (and optionally its
state, such as Adam's moments) stored in a low-precision format after every step.

    opt = LowPrecisionOptimizer(torch.optim.SGD(model.parameters(), lr=0.1), weight="bf16")

After each step every parameter is rounded into `weight` (stochastic rounding by
default, or any other direction); with master_weights=True the optimizer updates fp32
master copies and the parameters the model computes with are their roundings, so
updates smaller than half an ulp of the weight accumulate instead of vanishing. state=
names a format (or a dict {state name: format}) for the optimizer's floating-point
state tensors. Stochastic rounding draws from a counter stream: seed= fixes it (each
step and parameter continues the stream), None draws the seed from torch's generator.
"""
import torch

from softfloat.torch import _tensors
from softfloat.torch.fake_quantize import quantize

__all__ = ["LowPrecisionOptimizer"]


class LowPrecisionOptimizer:
    def __init__(self, optimizer, weight, rounding="stochastic", master_weights=False, state=None, *,
                 state_rounding="nearest_even", seed=None):
        if not isinstance(optimizer, torch.optim.Optimizer):
            raise TypeError(f"softfloat.torch.LowPrecisionOptimizer: expected a torch.optim.Optimizer, not "
                            f"{type(optimizer).__name__}")
        _tensors.format_info(weight, "LowPrecisionOptimizer")
        if isinstance(state, str):
            _tensors.format_info(state, "LowPrecisionOptimizer")
        elif isinstance(state, dict):
            for fmt in state.values():
                _tensors.format_info(fmt, "LowPrecisionOptimizer")
        elif state is not None:
            raise TypeError("softfloat.torch.LowPrecisionOptimizer: state must be None, a format spec or a dict of "
                            "them")
        self.optimizer = optimizer
        self.weight, self.rounding, self.master_weights = weight, rounding, bool(master_weights)
        self.state_format, self.state_rounding = state, state_rounding
        self.seed = _tensors.resolve_seed(seed, rounding) if seed is not None else None
        self.offset = 0
        self.masters = {}
        with torch.no_grad():
            for p in self._parameters():
                if self.master_weights:
                    self.masters[p] = p.detach().clone().to(torch.float32)
                p.copy_(self._round(p.detach()))

    def _parameters(self):
        for group in self.optimizer.param_groups:
            yield from group["params"]

    def _round(self, values, fmt=None, rounding=None):
        fmt, rounding = fmt or self.weight, rounding or self.rounding
        seed, offset = self.seed, 0
        if seed is not None and _tensors.is_stochastic(rounding):
            offset, self.offset = self.offset, self.offset + values.numel()
        return quantize(values, fmt, rounding, seed=seed, offset=offset)

    @torch.no_grad()
    def step(self, closure=None):
        params = list(self._parameters())
        stored = {}
        if self.master_weights:  # the optimizer updates the masters in place
            for p in params:
                stored[p] = p.data
                p.data = self.masters[p]
        loss = self.optimizer.step(closure)
        for p in params:
            if self.master_weights:
                self.masters[p] = p.data
                p.data = self._round(self.masters[p]).to(stored[p].dtype)
            else:
                p.copy_(self._round(p.detach()))
        if self.state_format is not None:
            for p in params:
                for name, value in self.optimizer.state.get(p, {}).items():
                    fmt = self.state_format if isinstance(self.state_format, str) else self.state_format.get(name)
                    if fmt is not None and torch.is_tensor(value) and value.is_floating_point() and value.dim() > 0:
                        value.copy_(self._round(value, fmt, self.state_rounding))
        return loss

    def zero_grad(self, set_to_none=False):
        self.optimizer.zero_grad(set_to_none=set_to_none)

    @property
    def param_groups(self):
        return self.optimizer.param_groups

    @property
    def state(self):
        return self.optimizer.state

    def state_dict(self):
        index = {id(p): i for i, p in enumerate(self._parameters())}
        return {"optimizer": self.optimizer.state_dict(), "offset": self.offset, "seed": self.seed,
                "masters": {index[id(p)]: m for p, m in self.masters.items()}}

    def load_state_dict(self, state_dict):
        self.optimizer.load_state_dict(state_dict["optimizer"])
        self.offset, self.seed = state_dict["offset"], state_dict["seed"]
        params = list(self._parameters())
        self.masters = {params[i]: m.clone() for i, m in state_dict["masters"].items()}

    def __repr__(self):
        return (f"LowPrecisionOptimizer({self.optimizer.__class__.__name__}, weight={self.weight!r}, "
                f"rounding={self.rounding!r}, master_weights={self.master_weights}, state={self.state_format!r})")
