"""Deja's `NamedTuple` (built without `typing`, for start-up) behaves as `typing.NamedTuple` for
what the records use: fields with defaults, methods, `_replace`/`_asdict`, the annotations'
text (`operations.py` reads it), pickling, and the same refusals."""

from __future__ import annotations

import pickle
import typing

import pytest

from deja import plain_record
from deja.plain_record import NamedTuple


class Point(NamedTuple):
    """A point."""

    x: int
    label: str | None = None

    def doubled(self) -> int:
        return self.x * 2


class TypedPoint(typing.NamedTuple):
    x: int
    label: str | None = None


def test_a_record_behaves_as_typing_namedtuple() -> None:
    point = Point(3)
    assert point == (3, None) == TypedPoint(3)
    assert repr(point) == "Point(x=3, label=None)"
    assert point.doubled() == 6 and Point.__doc__ == "A point."
    assert point._replace(label="a") == Point(3, "a")
    assert point._asdict() == {"x": 3, "label": None}
    assert Point._fields == TypedPoint._fields
    assert Point._field_defaults == TypedPoint._field_defaults == {"label": None}
    assert Point.__annotations__ == {"x": "int", "label": "str | None"}
    assert Point.__module__ == __name__ and isinstance(point, tuple)
    assert pickle.loads(pickle.dumps(point)) == point
    with pytest.raises(AttributeError):
        point.x = 4  # type: ignore[misc]


def test_the_same_refusals_as_typing() -> None:
    with pytest.raises(TypeError, match="cannot follow"):
        type(
            "Bad",
            (plain_record.NamedTuple,),
            {"__annotations__": {"a": "int", "b": "int"}, "a": 1, "__module__": __name__},
        )
    with pytest.raises(AttributeError, match="_replace"):
        type(
            "Worse",
            (plain_record.NamedTuple,),
            {"__annotations__": {}, "_replace": 1, "__module__": __name__},
        )
