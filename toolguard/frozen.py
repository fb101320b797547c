"""Frozen value classes for the check path, without `dataclasses`.

`@frozen` is `@dataclass(frozen=True)` for the modules a `toolguard check` imports: `__init__`
from the annotated fields (defaults and `field(default_factory=...)` included, then
`__post_init__`), `__repr__`, `__eq__` and `__hash__` over the fields, and no assignment after
`__init__`. NOTE: importing `dataclasses` costs a check as much as starting Python (it imports
`inspect`, hence `ast`, `dis` and `tokenize`), and each decorated class generates and compiles
its methods' source; here the methods are shared, written once, and a class costs a dict of its
field names. Elsewhere (lint, diff, serve...) dataclasses are fine. `replace` and `fields`
stand in for their `dataclasses` namesakes. One thing it refuses: a frozen class extending
another (`dataclasses` would put the base's fields first).
"""

from __future__ import annotations

TYPE_CHECKING = False  # NOTE: `typing` itself is a start-up cost the check path does not pay
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any, NoReturn, TypeVar, dataclass_transform

    T = TypeVar("T")
else:

    def dataclass_transform(**_options: object) -> object:  # noqa: D103 - typing's, at run time
        return lambda decorated: decorated


_FIELDS = "__frozen_fields__"  # the class's field names, in order
_FACTORIES = "__frozen_factories__"  # name -> default factory
_NAMES = "__frozen_names__"  # the field names, as a set
_TEMPLATE = "__frozen_template__"  # every field in order: its plain default, or _MISSING
_REQUIRED = "__frozen_required__"  # [k]: the fields without a default after k positional ones
_MISSING = object()
_HIDDEN = "__frozen_unshown__"  # names left out of repr
_POST_INIT = "__frozen_post_init__"  # whether the class has a `__post_init__` (looked up once)


class FrozenInstanceError(AttributeError):
    """Raised on an attempt to assign or delete a field of a frozen instance."""


class _Field:
    __slots__ = ("default", "factory", "repr")

    def __init__(self, default: Any, factory: Callable[[], Any] | None, *, shown: bool) -> None:
        self.default = default
        self.factory = factory  # None: `default` is the value of every instance
        self.repr = shown


def field(
    *,
    default: Any = None,
    default_factory: Callable[[], T] | None = None,
    repr: bool = True,
) -> T:
    """A field with a default made per instance, or one left out of `repr`.

    The options of `dataclasses.field` that the check path uses; `default` is only for a
    field shown nowhere (`repr=False`): plain defaults are written `name: type = value`.
    """
    return _Field(default, default_factory, shown=repr)  # type: ignore[return-value]


@dataclass_transform(frozen_default=True, field_specifiers=(field,))
def frozen(cls: type[T]) -> type[T]:
    """Make `cls` a frozen value class over its annotated fields (see the module docstring).

    A subclass of a frozen class is refused: its fields would be its own annotations alone,
    where `dataclasses` puts the base's first (no toolguard class needs that).
    """
    namespace = cls.__dict__
    if any(_FIELDS in vars(base) for base in cls.__mro__[1:]):
        raise TypeError(f"{cls.__name__}: @frozen cannot extend the frozen class it inherits")
    names: list[str] = []
    defaults: dict[str, Any] = {}
    factories: dict[str, Callable[[], Any]] = {}
    hidden: set[str] = set()
    # NOTE: annotations are strings (`from __future__ import annotations`): a `ClassVar` is
    # recognised by its spelling, as `dataclasses` does for string annotations.
    for name, annotation in namespace.get("__annotations__", {}).items():
        if str(annotation).startswith(("ClassVar", "typing.ClassVar")):
            continue
        names.append(name)
        if name in namespace:
            value = namespace[name]
            if isinstance(value, _Field):
                if value.factory is None:
                    defaults[name] = value.default
                else:
                    factories[name] = value.factory
                if not value.repr:
                    hidden.add(name)
                delattr(cls, name)
            else:
                defaults[name] = value
        elif defaults or factories:
            raise TypeError(f"{cls.__name__}: field {name!r} without a default follows one with")
    setattr(cls, _FIELDS, tuple(names))
    setattr(cls, _FACTORIES, factories)
    setattr(cls, _NAMES, frozenset(names))
    setattr(cls, _TEMPLATE, {name: defaults.get(name, _MISSING) for name in names})
    without = len(names) - len(defaults) - len(factories)  # the first fields (see above)
    setattr(cls, _REQUIRED, tuple(frozenset(names[given:without]) for given in range(without)))
    setattr(cls, _HIDDEN, frozenset(hidden))
    setattr(cls, _POST_INIT, hasattr(cls, "__post_init__"))
    setattr(cls, "__match_args__", tuple(names))  # noqa: B010 - mypy refuses the assignment
    for method in (_init, _repr, _eq, _hash, _setattr, _delattr, _reduce):
        if method.__name__ not in namespace:
            setattr(cls, method.__name__, method)
    return cls


def _init(self: Any, *args: Any, **kwargs: Any) -> None:
    # NOTE: the instance's dict is filled by `update`s, in field order (`__setattr__`
    # refuses, and one `object.__setattr__` per field made a 17-field `Diagnostics` cost 6 µs
    # on every check); the arguments are checked with set operations made at decoration.
    cls = type(self)
    names: tuple[str, ...] = getattr(cls, _FIELDS)
    given = len(args)
    values = self.__dict__  # a new instance's: empty
    if given == len(names) and not kwargs:
        # NOTE: every field, by position (`Request`, `Outcome`: each request of `serve` makes
        # them): nothing to check, no default to fill in.
        values.update(zip(names, args, strict=False))  # the same length
    else:
        _fill(cls, values, names, args, kwargs)
    if getattr(cls, _POST_INIT):
        self.__post_init__()


def _fill(
    cls: type, values: dict[str, Any], names: tuple[str, ...], args: Any, kwargs: Any
) -> None:
    """The fields from positional and keyword arguments, defaults and factories."""
    given = len(args)
    if given > len(names):
        raise TypeError(f"{cls.__name__}() takes {len(names)} arguments, {given} given")
    values.update(getattr(cls, _TEMPLATE))
    values.update(zip(names, args, strict=False))
    if kwargs:
        named = kwargs.keys()
        if not named <= getattr(cls, _NAMES) or not named.isdisjoint(names[:given]):
            _refuse(cls, named, names[:given])
        values.update(kwargs)
    required: tuple[frozenset[str], ...] = getattr(cls, _REQUIRED)
    if given < len(required) and not kwargs.keys() >= required[given]:
        missing = next(name for name in names[given:] if name not in kwargs)
        raise TypeError(f"{cls.__name__}() missing argument {missing!r}")
    for name, factory in getattr(cls, _FACTORIES).items():
        if values[name] is _MISSING:
            values[name] = factory()


def _refuse(cls: type, named: Any, positional: tuple[str, ...]) -> NoReturn:
    """Why keyword arguments do not fit: a field given twice, or a name that is no field."""
    for name in named:
        if name in positional:
            raise TypeError(f"{cls.__name__}() got multiple values for {name!r}")
        if name not in getattr(cls, _NAMES):
            raise TypeError(f"{cls.__name__}() got an unexpected argument {name!r}")
    raise AssertionError  # unreachable: the caller found one of the two


_init.__name__ = "__init__"


def _values(self: Any) -> tuple[Any, ...]:
    return tuple(getattr(self, name) for name in getattr(type(self), _FIELDS))


def _repr(self: Any) -> str:
    cls = type(self)
    hidden = getattr(cls, _HIDDEN)
    shown = ", ".join(
        f"{name}={getattr(self, name)!r}" for name in getattr(cls, _FIELDS) if name not in hidden
    )
    return f"{cls.__qualname__}({shown})"


_repr.__name__ = "__repr__"


def _eq(self: Any, other: object) -> Any:
    if other.__class__ is not self.__class__:
        return NotImplemented
    return _values(self) == _values(other)


_eq.__name__ = "__eq__"


def _hash(self: Any) -> int:
    return hash(_values(self))


_hash.__name__ = "__hash__"


def _setattr(self: Any, name: str, value: object) -> None:
    raise FrozenInstanceError(f"cannot assign to field {name!r}")


_setattr.__name__ = "__setattr__"


def _delattr(self: Any, name: str) -> None:
    raise FrozenInstanceError(f"cannot delete field {name!r}")


_delattr.__name__ = "__delattr__"


def _reduce(self: Any) -> tuple[Any, ...]:
    """Copies and pickles are rebuilt through `__init__` (its checks included)."""
    return (type(self), _values(self))


_reduce.__name__ = "__reduce__"


def fields(value: object) -> tuple[str, ...]:
    """The field names of a frozen class or instance, in order (`dataclasses.fields`' names)."""
    cls = value if isinstance(value, type) else type(value)
    names: tuple[str, ...] = getattr(cls, _FIELDS)
    return names


def is_frozen(value: object) -> bool:
    """Whether `value` is a frozen class or an instance of one."""
    cls = value if isinstance(value, type) else type(value)
    return _FIELDS in cls.__dict__


def replace(value: T, /, **changes: Any) -> T:
    """A copy of the frozen `value` with `changes` (`dataclasses.replace`).

    Through `__init__` where the class has its own `__init__` or a `__post_init__` (its checks
    run again); else the fields are copied as they are: the shared `__init__` would add nothing
    but its cost (`mcp` replaces the diagnostics of every answer; that `__init__`, taking 17
    fields by keyword, costs several times the copy).
    """
    cls = type(value)
    names: tuple[str, ...] = getattr(cls, _FIELDS)
    unknown = changes.keys() - set(names)
    if unknown:
        raise TypeError(f"{cls.__name__} has no field {sorted(unknown)[0]!r}")
    state = getattr(value, "__dict__", None)
    if state is None or cls.__init__ is not _init or hasattr(cls, "__post_init__"):
        return cls(**{**{name: getattr(value, name) for name in names}, **changes})
    copy = object.__new__(cls)
    copied = copy.__dict__
    for name in names:
        copied[name] = changes[name] if name in changes else state[name]
    return copy
