"""The record classes on `deja search`'s and a quiet `deja index`'s path, without `typing` or
`dataclasses` (whose imports, with `re` and `inspect`, were a large share of those runs' start).

`Plain`: equality and repr from `__slots__`, for the few mutable result classes. They are not
dataclasses: importing `dataclasses` (inspect, ast, dis, tokenize) and building each class's
methods by `exec` cost more than the rest of such a run's Python.

`NamedTuple`: the immutable ones, written as with `typing.NamedTuple` (and checked as such) but
built at run time by `collections.namedtuple`, with the class body's methods and its
annotations as written (their text: no `ForwardRef` compiled per field, nor `typing` loaded)."""

from __future__ import annotations

from collections import namedtuple

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import NamedTuple as NamedTuple
else:
    # As `typing.NamedTuple` treats them: names the class body may not set, and names it sets
    # that the tuple class keeps its own.
    _PROHIBITED = frozenset(
        ("__new__", "__init__", "__slots__", "__getnewargs__", "_fields", "_field_defaults")
    ) | {"_make", "_replace", "_asdict", "_source"}
    _OWN = frozenset(("__module__", "__name__", "__annotations__", "__qualname__"))

    class _NamedTupleMeta(type):
        def __new__(cls, name, bases, namespace):
            if namespace.get("_record_root"):
                return super().__new__(cls, name, bases, namespace)
            fields = dict(namespace.get("__annotations__", {}))
            defaults = []
            for field in fields:
                if field in namespace:
                    defaults.append(namespace[field])
                elif defaults:
                    raise TypeError(f"Non-default namedtuple field {field} cannot follow a default")
            made = namedtuple(name, fields, defaults=defaults, module=namespace["__module__"])
            made.__annotations__ = made.__new__.__annotations__ = fields
            for key, value in namespace.items():
                if key in _PROHIBITED:
                    raise AttributeError(f"Cannot overwrite NamedTuple attribute {key}")
                if key not in _OWN and key not in fields and key != "_record_root":
                    setattr(made, key, value)
            made.__qualname__ = namespace.get("__qualname__", name)
            return made

    class NamedTuple(metaclass=_NamedTupleMeta):
        _record_root = True


class Plain:
    __slots__: tuple[str, ...] = ()

    def _values(self) -> tuple[object, ...]:
        return tuple(getattr(self, name) for name in self.__slots__)

    def __eq__(self, other: object) -> bool:
        if type(other) is not type(self):
            return NotImplemented
        assert isinstance(other, Plain)
        return self._values() == other._values()

    __hash__ = None  # type: ignore[assignment]  # mutable, as a dataclass with eq is

    def __repr__(self) -> str:
        fields = ", ".join(f"{name}={getattr(self, name)!r}" for name in self.__slots__)
        return f"{type(self).__qualname__}({fields})"
