"""Fixtures shared by the unit tests."""

import pytest

from swconfig.conf import CONF


@pytest.fixture
def set_conf():
    """``set_conf(name, value, group=None)``: a config override undone after
    the test. Only for options the session fixtures do not override
    themselves (clearing would drop theirs too)."""
    done = []

    def _set(name, value, group=None):
        CONF.set_override(name, value, group=group)
        done.append((name, group))

    yield _set
    for name, group in reversed(done):
        CONF.clear_override(name, group=group)
