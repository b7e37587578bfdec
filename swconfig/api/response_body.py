# Copyright 2026 swconfig developers
#
#    Licensed under the Apache License, Version 2.0 (the "License"); you may
#    not use this file except in compliance with the License. You may obtain
#    a copy of the License at
#
#         http://www.apache.org/licenses/LICENSE-2.0
#
#    Unless required by applicable law or agreed to in writing, software
#    distributed under the License is distributed on an "AS IS" BASIS, WITHOUT
#    WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied. See the
#    License for the specific language governing permissions and limitations
#    under the License.

"""Response bodies that are cheap for the WSGI server to finish.

PEP 3333 has the server call the body's ``close()`` if it has one, and
uWSGI asks every body with ``PyObject_HasAttrString(body, "close")``. For
a list or bytes, which have none, that builds and drops an AttributeError
with its message: about a microsecond and a half, spent holding the
interpreter lock, on every answer (more than an agent's repeat poll costs
in all). A ``Body`` answers ``close`` at once, and its ``close`` does
nothing. Other servers call it too, at the cost of a method call.
"""

from typing import Any


class Body(tuple):
    """An immutable WSGI body (a tuple of bytes) with a no-op ``close``:
    one may be shared by any number of answers."""

    __slots__ = ()

    def close(self) -> None:
        """Nothing to release: the chunks are in memory."""


#: The empty body (HEAD, 304).
EMPTY = Body()


def closable(result: Any) -> Any:
    """``result`` of a WSGI application, a list made a ``Body`` (a body
    of any other type is returned as it is: it may have a ``close`` of
    its own that must run)."""
    return Body(result) if result.__class__ is list else result
