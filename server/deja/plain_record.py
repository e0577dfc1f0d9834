"""`Plain`: equality and repr from `__slots__`, for the few mutable result classes on `deja
search`'s path. They are not dataclasses: importing `dataclasses` (inspect, ast, dis, tokenize)
and building each class's methods by `exec` was a large share of a search process's start;
immutable ones are `typing.NamedTuple`s."""

from __future__ import annotations


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
