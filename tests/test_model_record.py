"""``generator.model.record``: a dataclass whose ``__repr__`` and ``__eq__`` are shared functions, with the
text and the answers of the methods ``dataclasses.dataclass`` generates. Each check builds the same class
both ways (hand-made classes: what the package's records hold does not matter here) and compares them."""

from __future__ import annotations

import dataclasses
from dataclasses import field

import pytest

from generator.config import SweepConfig
from generator.model import record


def twins(frozen: bool = False):
    """The same class made by ``dataclasses.dataclass`` and by ``record``."""
    made = []
    for deco in (dataclasses.dataclass(frozen=frozen), record(frozen=frozen)):
        @deco
        class Row:
            name: str
            cycles: int = 0
            note: str = field(default="", repr=False, compare=False)
            kids: list = field(default_factory=list)
        made.append(Row)
    return made


@pytest.mark.parametrize("frozen", [False, True])
def test_a_record_shows_and_compares_as_a_dataclass(frozen):
    plain, rec = twins(frozen)
    for args in [("pa", 3, "x", [1]), ("pa", 3, "other note", [1]), ("pa", 4), ("vec_add",)]:
        a, b = plain(*args), rec(*args)
        assert repr(a) == repr(b) == f"{rec.__qualname__}(name={args[0]!r}, cycles={args[1] if len(args) > 1 else 0!r}, " \
                                     f"kids={args[3] if len(args) > 3 else []!r})"
    for x, y in [(("pa", 3, "x"), ("pa", 3, "y")), (("pa", 3), ("pa", 4)), (("pa", 3, "", [1]), ("pa", 3, "", [2]))]:
        assert (plain(*x) == plain(*y)) == (rec(*x) == rec(*y))  # the note is not compared: the first pair is equal
    assert rec("pa", 3, "x") == rec("pa", 3, "y") and rec("pa", 3) != rec("pa", 4)
    assert rec("pa") != plain("pa") and rec("pa").__eq__(("pa", 0, [])) is NotImplemented  # another class: never equal


def test_a_record_that_compares_by_value_is_unhashable_unless_frozen():
    plain, rec = twins()
    with pytest.raises(TypeError):
        hash(rec("pa"))
    with pytest.raises(TypeError):
        hash(plain("pa"))
    fplain, frec = twins(frozen=True)
    assert hash(frec("pa", 3, "", ())) == hash(frec("pa", 3, "x", ())) and {frec("pa", 3, "", ()): 1}[frec("pa", 3, "", ())] == 1
    with pytest.raises(dataclasses.FrozenInstanceError):
        frec("pa").cycles = 1


def test_a_record_holding_itself_shows_dots_as_a_dataclass_does():
    plain, rec = twins()
    a, b = plain("pa"), rec("pa")
    a.kids.append(a)
    b.kids.append(b)
    assert repr(a) == repr(b) == f"{rec.__qualname__}(name='pa', cycles=0, kids=[...])"


def test_a_method_the_class_writes_itself_is_kept():
    @record
    class Said:
        text: str

        def __repr__(self) -> str:
            return f"<{self.text}>"

        def __eq__(self, other: object) -> bool:
            return isinstance(other, Said) and other.text.lower() == self.text.lower()

        __hash__ = object.__hash__

    assert repr(Said("x")) == "<x>" and Said("A") == Said("a") and isinstance(hash(Said("a")), int)


def test_the_package_records_compare_by_value():
    """A real record of the package (the default configuration) equals another made the same way."""
    assert SweepConfig() == SweepConfig() and repr(SweepConfig()).startswith("SweepConfig(")
    assert dataclasses.replace(SweepConfig(), win=2.0) != SweepConfig()
