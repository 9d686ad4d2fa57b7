"""A small declarative schema for request fields: types, sizes, ranges, defaults.

`check` returns a value that fits its spec (objects get their defaults filled in) or
raises BadField naming the first problem by its path. Unknown fields are refused.
This module must never treat a value's content as anything but data.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from .framing import valid_id


class _Missing:
    def __repr__(self) -> str:
        return "MISSING"


MISSING: Any = _Missing()  # default of a field whose absence matters (set_settings)


@dataclass(frozen=True)
class Str:
    max_chars: int
    min_chars: int = 0
    choices: tuple[str, ...] | None = None
    pattern: re.Pattern[str] | None = None
    what: str = ""  # how the pattern is described in errors


@dataclass(frozen=True)
class Int:
    lo: int
    hi: int


@dataclass(frozen=True)
class Num:
    lo: float
    hi: float


@dataclass(frozen=True)
class Bool:
    must_be: bool | None = None  # clear.confirm must be literally true


@dataclass(frozen=True)
class IdSpec:
    pass


@dataclass(frozen=True)
class List:
    item: Spec
    max_items: int


@dataclass(frozen=True)
class Obj:
    fields: dict[str, F]
    check: Callable[[dict[str, Any]], str | None] | None = None  # cross-field rule


@dataclass(frozen=True)
class Custom:
    """A value checked by a function: it returns the value (maybe coerced) or raises
    ValueError saying what is wrong (settings: config.check_user_value)."""

    fn: Callable[[Any], Any]


@dataclass(frozen=True)
class F:
    spec: Spec
    required: bool = False
    default: Any = None
    nullable: bool = False


Spec = Str | Int | Num | Bool | IdSpec | List | Obj | Custom


class BadField(Exception):
    def __init__(self, path: str, problem: str) -> None:
        super().__init__(f"{path}: {problem}" if path else problem)



def _type_name(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int | float):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list):
        return "a list"
    return "an object"


def check(spec: Spec, value: Any, path: str) -> Any:
    """`value` if it fits `spec` (objects get their defaults filled in), else BadField."""
    if isinstance(spec, Str):
        if not isinstance(value, str):
            raise BadField(path, f"expected a string, got {_type_name(value)}")
        if len(value) > spec.max_chars:
            raise BadField(path, f"{len(value)} characters; at most {spec.max_chars} allowed")
        if len(value) < spec.min_chars:
            raise BadField(
                path,
                "must not be empty"
                if spec.min_chars == 1
                else f"needs at least {spec.min_chars} characters",
            )
        if spec.choices is not None and value not in spec.choices:
            raise BadField(path, f"must be one of {', '.join(spec.choices)}")
        if spec.pattern is not None and not spec.pattern.match(value):
            raise BadField(path, f"must be {spec.what or spec.pattern.pattern}")
        return _no_lone_surrogates(value)
    if isinstance(spec, Bool):
        if not isinstance(value, bool):
            raise BadField(path, f"expected true or false, got {_type_name(value)}")
        if spec.must_be is not None and value is not spec.must_be:
            raise BadField(path, f"must be {str(spec.must_be).lower()}")
        return value
    if isinstance(spec, Int):
        if isinstance(value, bool) or not isinstance(value, int):
            if isinstance(value, float) and value.is_integer():
                value = int(value)  # JavaScript has only numbers: 10.0 is 10
            else:
                raise BadField(path, f"expected an integer, got {_type_name(value)}")
        if not spec.lo <= value <= spec.hi:
            raise BadField(path, f"{value} is outside {spec.lo}..{spec.hi}")
        return value
    if isinstance(spec, Num):
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise BadField(path, f"expected a number, got {_type_name(value)}")
        if not math.isfinite(value) or not spec.lo <= value <= spec.hi:
            raise BadField(path, f"{value} is outside {spec.lo:g}..{spec.hi:g}")
        return float(value)
    if isinstance(spec, IdSpec):
        if not valid_id(value):
            raise BadField(
                path,
                "expected a request id (an integer 0..2^53-1 or a string "
                "of 1-64 printable ASCII characters)",
            )
        return value
    if isinstance(spec, List):
        if not isinstance(value, list):
            raise BadField(path, f"expected a list, got {_type_name(value)}")
        if len(value) > spec.max_items:
            raise BadField(path, f"{len(value)} items; at most {spec.max_items} allowed")
        return [check(spec.item, v, f"{path}[{i}]") for i, v in enumerate(value)]
    if isinstance(spec, Custom):
        try:
            return spec.fn(value)
        except ValueError as exc:
            raise BadField(path, str(exc)) from None
    if isinstance(spec, Obj):
        if not isinstance(value, dict):
            raise BadField(path, f"expected an object, got {_type_name(value)}")
        return check_fields(spec, value, path)
    raise TypeError(f"unknown spec {spec!r}")


def check_fields(
    spec: Obj, value: dict[str, Any], path: str = "", ignore: tuple[str, ...] = ()
) -> dict[str, Any]:
    prefix = f"{path}." if path else ""
    for key in value:
        if key not in spec.fields and key not in ignore:
            known = ", ".join(spec.fields) or "none"
            raise BadField(f"{prefix}{key}", f"unknown field (known: {known})")
    out: dict[str, Any] = {}
    for key, f in spec.fields.items():
        if key not in value:
            if f.required:
                raise BadField(f"{prefix}{key}", "missing")
            out[key] = f.default
        elif value[key] is None and f.nullable:
            out[key] = None
        elif value[key] is None and not f.required:
            out[key] = f.default  # an explicit null means "the default"
        else:
            out[key] = check(f.spec, value[key], f"{prefix}{key}")
    if spec.check is not None:
        problem = spec.check(out)
        if problem:
            raise BadField(path, problem)
    return out


def _no_lone_surrogates(value: str) -> str:
    """A lone surrogate (JSON can carry "\\ud800") as "?", as replies write it: the models'
    tokenizers and SQLite's UTF-8 refuse one, and a fuzzed search got `internal`."""
    if value.isascii():
        return value
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        return value.encode("utf-8", "replace").decode("utf-8")
    return value
