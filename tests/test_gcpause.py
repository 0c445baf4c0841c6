"""generator.read.gcpause: collection paused inside, the previous state restored after."""

from __future__ import annotations

import gc

import pytest

from generator.read.gcpause import gc_paused


def test_gc_is_paused_inside_and_restored_after_even_on_error():
    assert gc.isenabled()
    with gc_paused():
        assert not gc.isenabled()
    assert gc.isenabled()
    with pytest.raises(ValueError):
        with gc_paused():
            raise ValueError("bad file")
    assert gc.isenabled()


def test_gc_left_off_when_it_was_off():
    gc.disable()
    try:
        with gc_paused():
            assert not gc.isenabled()
        assert not gc.isenabled()
    finally:
        gc.enable()


def test_gc_paused_as_a_decorator():
    @gc_paused()
    def read():
        return gc.isenabled()
    assert read() is False and gc.isenabled()
