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

"""Response bodies the WSGI server finishes without an AttributeError."""

import ctypes

from swconfig.api import response_body

_HAS_ATTR = ctypes.pythonapi.PyObject_HasAttrString
_HAS_ATTR.argtypes = [ctypes.py_object, ctypes.c_char_p]
_HAS_ATTR.restype = ctypes.c_int


def test_a_list_is_made_a_body_with_a_close_the_server_finds():
    body = response_body.closable([b'a', b'b'])
    assert isinstance(body, response_body.Body)
    assert b''.join(body) == b'ab'
    # What uWSGI asks of every body: found without an exception.
    assert _HAS_ATTR(body, b'close') == 1
    assert body.close() is None
    assert _HAS_ATTR([b'a'], b'close') == 0


def test_a_body_with_a_close_of_its_own_is_kept():
    closed = []

    def chunks():
        try:
            yield b'a'
        finally:
            closed.append(True)

    generator = chunks()
    assert response_body.closable(generator) is generator
    body = response_body.Body((b'x',))
    assert response_body.closable(body) is body
    next(generator)
    generator.close()
    assert closed == [True]


def test_the_empty_body_is_empty():
    assert list(response_body.EMPTY) == []
    assert _HAS_ATTR(response_body.EMPTY, b'close') == 1
