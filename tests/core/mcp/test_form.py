"""An elicitation form's fields read from its schema, and the person's input checked."""

from __future__ import annotations

import pytest

from agent_tui.core.mcp.form import FormField, checked_value, form_fields

SCHEMA = {
    "type": "object",
    "properties": {
        "name": {"type": "string", "title": "Name", "minLength": 2},
        "age": {"type": "integer", "minimum": 1, "maximum": 120, "default": 30},
        "ratio": {"type": "number"},
        "agree": {"type": "boolean", "description": "Agree to the terms"},
        "pet": {"type": "string", "enum": ["p1", "p2"], "enumNames": ["Cats", "Dogs"]},
        "hero": {"type": "string", "oneOf": [{"const": "h1", "title": "Superman"}]},
        "fish": {"type": "array", "minItems": 1, "maxItems": 2,
                 "items": {"anyOf": [{"const": "f1", "title": "Tuna"}, {"const": "f2"}]}},
        "email": {"type": "string", "format": "email"},
    },
    "required": ["name"],
}


def test_each_kind_of_property_becomes_its_field() -> None:
    fields = {f.name: f for f in form_fields(SCHEMA)}
    assert list(fields) == list(SCHEMA["properties"])
    assert (fields["name"].kind, fields["name"].required, fields["name"].minimum) == \
        ("text", True, 2)
    assert (fields["age"].kind, fields["age"].default, fields["age"].maximum) == \
        ("integer", 30, 120)
    assert fields["ratio"].kind == "number" and fields["ratio"].title == "ratio"
    assert fields["agree"].kind == "boolean" and fields["agree"].description == \
        "Agree to the terms"
    assert fields["pet"].options == (("p1", "Cats"), ("p2", "Dogs"))
    assert fields["hero"].kind == "choice" and fields["hero"].options == (("h1", "Superman"),)
    assert fields["fish"].kind == "choices"
    assert fields["fish"].options == (("f1", "Tuna"), ("f2", "f2"))
    assert fields["email"].format == "email"


@pytest.mark.parametrize(("name", "raw", "value"), [
    ("name", "Ada", "Ada"), ("age", "42", 42), ("ratio", "2.5", 2.5), ("agree", False, False),
    ("pet", "p2", "p2"), ("fish", ["f1"], ["f1"]), ("email", "", None),
])
def test_fitting_input_becomes_its_value(name: str, raw: object, value: object) -> None:
    field = next(f for f in form_fields(SCHEMA) if f.name == name)
    assert checked_value(field, raw) == value


@pytest.mark.parametrize(("name", "raw", "message"), [
    ("name", "", "Name is required"),
    ("name", "A", "Name must be at least 2 characters"),
    ("age", "4.5", "age must be a whole number"),
    ("age", "121", "age must be at most 120"),
    ("ratio", "lots", "ratio must be a number"),
    ("fish", ["f1", "f2", "f3"], "fish must be at most 2 choices"),
])
def test_input_that_does_not_fit_says_what_the_field_needs(name: str, raw: object,
                                                            message: str) -> None:
    field = next(f for f in form_fields(SCHEMA) if f.name == name)
    with pytest.raises(ValueError, match=message):
        checked_value(field, raw)


def test_an_unknown_kind_is_asked_as_text() -> None:
    [field] = form_fields({"properties": {"where": {"type": "object"}}})
    assert field == FormField("where", "text", "where")
