"""A server's elicitation form (a flat JSON schema) as fields a front end can draw, and the
person's input checked against it."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

FieldKind = Literal["text", "integer", "number", "boolean", "choice", "choices"]


@dataclass(frozen=True)
class FormField:
    """One field of an elicitation form.

    Attributes:
        name: The property's name (the answer's key).
        kind: ``text``, ``integer``, ``number``, ``boolean``, ``choice`` (one of
            ``options``) or ``choices`` (several of ``options``).
        title: What the field is called for the person.
        description: What the server says about it.
        required: The form cannot be accepted without it.
        default: The value it starts with (None: empty).
        options: For a choice, (value, label) pairs.
        minimum: The least number (or string length, or choices) allowed.
        maximum: The greatest number (or string length, or choices) allowed.
        format: A string's format (``email``, ``uri``, ``date``, ``date-time``), as a hint.
    """

    name: str
    kind: FieldKind
    title: str
    description: str = ""
    required: bool = False
    default: Any = None
    options: tuple[tuple[str, str], ...] = field(default_factory=tuple)
    minimum: float | None = None
    maximum: float | None = None
    format: str = ""


def form_fields(schema: dict[str, Any]) -> list[FormField]:
    """The fields of a requested schema, in its order; a property of a kind the spec does
    not allow (an object, say) becomes a text field."""
    required = set(schema.get("required") or [])
    found: list[FormField] = []
    for name, spec in (schema.get("properties") or {}).items():
        if not isinstance(spec, dict):
            continue
        kind: FieldKind = "text"
        options: tuple[tuple[str, str], ...] = ()
        low, high = spec.get("minimum"), spec.get("maximum")
        kind_name = spec.get("type")
        if kind_name == "array":
            kind, options = "choices", _options(spec.get("items") or {})
            low, high = spec.get("minItems"), spec.get("maxItems")
        elif (listed := _options(spec)):
            kind, options = "choice", listed
        elif kind_name in ("integer", "number", "boolean"):
            kind = kind_name
        else:
            low, high = spec.get("minLength"), spec.get("maxLength")
        found.append(FormField(
            name, kind, str(spec.get("title") or name), str(spec.get("description") or ""),
            name in required, spec.get("default"), options,
            float(low) if isinstance(low, int | float) else None,
            float(high) if isinstance(high, int | float) else None,
            str(spec.get("format") or "")))
    return found


def _options(spec: dict[str, Any]) -> tuple[tuple[str, str], ...]:
    if isinstance(spec.get("enum"), list):
        names = spec.get("enumNames")
        labels = names if isinstance(names, list) and len(names) == len(spec["enum"]) \
            else spec["enum"]
        return tuple((str(v), str(label)) for v, label in zip(spec["enum"], labels,
                                                              strict=False))
    listed = spec.get("oneOf") or spec.get("anyOf")
    if isinstance(listed, list):
        return tuple((str(o["const"]), str(o.get("title") or o["const"])) for o in listed
                     if isinstance(o, dict) and "const" in o)
    return ()


def checked_value(form_field: FormField, raw: Any) -> Any:
    """The answer for ``form_field`` from what the person entered (text for text and
    numbers, a bool, a value or a list of values); None when left empty and optional.

    Raises:
        ValueError: the input does not fit; the message says what the field needs.
    """
    title = form_field.title
    if raw is None or raw == "" or raw == []:
        if form_field.required:
            raise ValueError(f"{title} is required")
        return None
    if form_field.kind == "boolean":
        return bool(raw)
    if form_field.kind in ("integer", "number"):
        try:
            number: float = int(raw) if form_field.kind == "integer" else float(raw)
        except (TypeError, ValueError):
            raise ValueError(f"{title} must be {'a whole' if form_field.kind == 'integer' else 'a'}"
                             " number") from None
        _within(title, number, form_field, "")
        return number
    if form_field.kind == "choices":
        values = list(raw)
        _within(title, len(values), form_field, " choices")
        return values
    if form_field.kind == "text":
        _within(title, len(str(raw)), form_field, " characters")
    return raw if form_field.kind == "choice" else str(raw)


def _within(title: str, value: float, form_field: FormField, unit: str) -> None:
    low, high = form_field.minimum, form_field.maximum
    if low is not None and value < low:
        raise ValueError(f"{title} must be at least {low:g}{unit}")
    if high is not None and value > high:
        raise ValueError(f"{title} must be at most {high:g}{unit}")
