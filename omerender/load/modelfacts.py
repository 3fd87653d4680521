"""What a model is, for the serving checks: heads, KV heads, parameter count, bytes per parameter, context length.

``model_facts(model)`` reads a BaseModel or ClusterBaseModel: its own spec first, then what the ``--model-metadata``
overlay filled in (``Obj.overlaid``), each fact with where it was written so that a finding can point at it.

- ``attention_heads``, ``kv_heads``: ``spec.modelConfiguration.num_attention_heads`` and ``.num_key_value_heads``
  (config.json's names: OME's agent does not record heads).
- ``parameter_count``: ``spec.modelConfiguration.parameter_count`` (as OME's agent writes it,
  ``pkg/modelagent/config_parser.go:361``, formatted by ``modelconfig.FormatParamCount``, or an integer), else the
  model's own ``spec.modelParameterSize``. Never the overlay's ``modelParameterSize``: the shipped overlays hold a
  stand-in there, good for runtime matching only.
- ``bytes_per_parameter``: from the quantization, not ``torch_dtype`` alone (an FP8 checkpoint declares
  ``torch_dtype: bfloat16``): ``spec.quantization`` (OME's values ``fp8``, ``fbgemm_fp8``: 1 byte; ``int4``: 0.5),
  else ``spec.modelConfiguration.quant_method`` classified as OME's agent classifies it (``int4`` in it: 0.5;
  ``fp8`` in it: 1; ``config_parser.go:325-337``), else ``torch_dtype`` by OME's table
  (``pkg/hfutil/modelconfig/interface.go:128-142``). A quantization method that cannot be sized leaves it unknown
  unless ``torch_dtype`` itself names an 8-bit or smaller type (as OME's Llama 4 parser reports a float8 checkpoint,
  ``llama4.go:234-244``); an unknown ``torch_dtype`` leaves it unknown (OME would assume 4 bytes).
- ``context_length``: ``spec.modelConfiguration.context_length``, else ``spec.maxTokens`` (the agent writes both).

A value that is present but cannot be read (a string for heads, ``0``) is no fact; ``problems`` says why.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

from omerender import codes
from omerender.diagnostics import WARNING, Diagnostic
from omerender.load.obj import Obj
from omerender.load.yamlio import position
from omerender.names import clip

T = TypeVar("T", int, float)

HEADS = "num_attention_heads"
KV_HEADS = "num_key_value_heads"
PARAMETER_COUNT = "parameter_count"
CONTEXT_LENGTH = "context_length"
TORCH_DTYPE = "torch_dtype"
QUANT_METHOD = "quant_method"
KEYS = (HEADS, KV_HEADS, PARAMETER_COUNT, CONTEXT_LENGTH, TORCH_DTYPE, QUANT_METHOD)
CONFIGURATION = "modelConfiguration"

# OME's quantization values (pkg/apis/ome/v1beta1/model.go:262-268) and their bytes per parameter.
QUANTIZATION_BYTES = {"fp8": 1.0, "fbgemm_fp8": 1.0, "int4": 0.5}
# modelconfig.DtypeSizeBytes (pkg/hfutil/modelconfig/interface.go:128-142), keys lower-cased as OME looks them up.
DTYPE_BYTES = {
    "float32": 4.0,
    "float": 4.0,
    "bfloat16": 2.0,
    "bf16": 2.0,
    "float16": 2.0,
    "fp16": 2.0,
    "half": 2.0,
    "int8": 1.0,
    "fp8": 1.0,
    "float8": 1.0,
    "e4m3": 1.0,
    "int4": 0.5,
    "4bit": 0.5,
}
_COUNT = re.compile(r"(\d{1,15}(?:\.\d{1,6})?)([KMBT]?)")
_UNITS = {"": 1, "K": 10**3, "M": 10**6, "B": 10**9, "T": 10**12}


@dataclass(frozen=True)
class Fact(Generic[T]):
    """A value and where it was written: ``keys`` in the model's body, or the overlay's ``path``, ``line`` and
    ``column`` when the overlay filled it (``overlay`` is then True). ``basis`` says what it was derived from."""

    value: T
    keys: tuple[str, ...]
    overlay: bool = False
    path: str = ""
    line: int = 0
    col: int = 0
    basis: str = ""

    def located(self, model: Obj) -> tuple[str, int, int]:
        """The file, line and column the value was written at (the model's own file when not the overlay's)."""
        if self.overlay:
            return self.path, self.line, self.col
        line, col = position(model.node, self.keys)
        return model.path, line, col


@dataclass(frozen=True)
class ModelFacts:
    """Each fact None when unknown; ``problems``: values present that could not be read."""

    attention_heads: Fact[int] | None = None
    kv_heads: Fact[int] | None = None
    parameter_count: Fact[int] | None = None
    bytes_per_parameter: Fact[float] | None = None
    context_length: Fact[int] | None = None
    problems: tuple[Diagnostic, ...] = ()


def parse_parameter_count(value: Any) -> int | None:
    """A positive integer, or OME's ``FormatParamCount`` text (``7B``, ``7.24B``, ``596.05M``, ``1.5T``, ``340``)."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value if value > 0 else None
    if not isinstance(value, str):
        return None
    found = _COUNT.fullmatch(value.strip())
    if found is None:
        return None
    number, unit = found.groups()
    whole, _, fraction = number.partition(".")
    scale = _UNITS[unit]
    count = int(whole) * scale + (int(fraction) * scale // 10 ** len(fraction) if fraction else 0)
    return count if count > 0 else None


def _positive_int(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else None


def configuration_problem(key: Any, value: Any) -> str | None:
    """Why ``key: value`` is not a fact of an overlay's ``modelConfiguration`` (``KEY: reason``), or None."""
    if key not in KEYS:
        return f"{clip(str(key))} is not a fact omerender reads (allowed: {', '.join(KEYS)})"
    if key in (HEADS, KV_HEADS, CONTEXT_LENGTH) and _positive_int(value) is None:
        return f"{key} must be a positive integer"
    if key == PARAMETER_COUNT and parse_parameter_count(value) is None:
        return f"{key} must be a positive integer or a count such as 7B, 7.24B, 596.05M or 1.5T"
    if key in (TORCH_DTYPE, QUANT_METHOD) and (not isinstance(value, str) or not value.strip()):
        return f"{key} must be a non-empty string"
    return None


class _Reader:
    def __init__(self, model: Obj) -> None:
        self.model = model
        spec = model.body.get("spec")
        self.spec: dict[str, Any] = spec if isinstance(spec, dict) else {}
        found = self.spec.get(CONFIGURATION)
        self.config: dict[str, Any] = found if isinstance(found, dict) else {}
        self.overlaid = model.overlaid or {}
        self.problems: list[Diagnostic] = []

    def raw(self, field: str) -> tuple[Any, tuple[str, ...], str]:
        """The value at ``field`` (``modelConfiguration.KEY`` or a spec field), its keys, its overlay name."""
        if field.startswith(CONFIGURATION + "."):
            key = field.split(".", 1)[1]
            return self.config.get(key), ("spec", CONFIGURATION, key), field
        return self.spec.get(field), ("spec", field), field

    def fact(self, field: str, value: T, basis: str = "") -> Fact[T]:
        keys = self.raw(field)[1]
        source = self.overlaid.get(field)
        if source is None:
            return Fact(value, keys, basis=basis)
        return Fact(value, keys, True, source[0], source[1], source[2], basis)

    def from_overlay(self, field: str) -> bool:
        return field in self.overlaid

    def bad(self, field: str, what: str) -> None:
        """A model's own value that cannot be read (the overlay's were checked as the overlay was read)."""
        if self.from_overlay(field):
            return
        keys = self.raw(field)[1]
        message = f"{self.model.kind} {self.model.name}: spec.{field} {what}; the serving checks do not use it"
        self.problems.append(self.model.diag(WARNING, message, *keys, code=codes.MODEL_METADATA))

    def integer(self, field: str) -> Fact[int] | None:
        value = self.raw(field)[0]
        if value is None:
            return None
        found = _positive_int(value)
        if found is None:
            self.bad(field, f"is {clip(repr(value))}, not a positive integer")
            return None
        return self.fact(field, found)

    def count(self, field: str, *, quiet: bool = False) -> Fact[int] | None:
        """``quiet``: a value that is not a count is left to runtime matching, which reads it its own way."""
        value = self.raw(field)[0]
        if value is None:
            return None
        found = parse_parameter_count(value)
        if found is None:
            if not quiet:
                self.bad(field, f"is {clip(repr(value))}, not a parameter count such as 7B or 7.24B")
            return None
        return self.fact(field, found)

    def text(self, field: str) -> str | None:
        value = self.raw(field)[0]
        return value.strip() if isinstance(value, str) and value.strip() else None


def _bytes(reader: _Reader) -> Fact[float] | None:
    quantization = reader.text("quantization")
    if quantization is not None:
        size = QUANTIZATION_BYTES.get(quantization.lower())
        return None if size is None else reader.fact("quantization", size, f"quantization {quantization}")
    method_field = f"{CONFIGURATION}.{QUANT_METHOD}"
    dtype_field = f"{CONFIGURATION}.{TORCH_DTYPE}"
    method = reader.text(method_field)
    dtype = reader.text(dtype_field)
    dtype_size = DTYPE_BYTES.get(dtype.lower()) if dtype is not None else None
    if method is not None:
        lowered = method.lower()
        if "int4" in lowered:
            return reader.fact(method_field, 0.5, f"quant_method {method}")
        if "fp8" in lowered:
            return reader.fact(method_field, 1.0, f"quant_method {method}")
        if dtype_size is None or dtype_size > 1:
            return None  # quantized in a way omerender cannot size
    if dtype_size is None:
        return None
    return reader.fact(dtype_field, dtype_size, f"torch_dtype {dtype}")


def model_facts(model: Obj) -> ModelFacts:
    """The facts of ``model`` (a BaseModel or ClusterBaseModel), each None when unknown."""
    reader = _Reader(model)
    heads = reader.integer(f"{CONFIGURATION}.{HEADS}")
    kv_heads = reader.integer(f"{CONFIGURATION}.{KV_HEADS}")
    count = reader.count(f"{CONFIGURATION}.{PARAMETER_COUNT}")
    if count is None and not reader.from_overlay("modelParameterSize"):
        count = reader.count("modelParameterSize", quiet=True)
    context = reader.integer(f"{CONFIGURATION}.{CONTEXT_LENGTH}")
    if context is None:
        context = reader.integer("maxTokens")
    return ModelFacts(heads, kv_heads, count, _bytes(reader), context, tuple(reader.problems))
