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

"""Reading and validating JSON request bodies of the tenant API.

A body counts only if it starts with ``{`` and its Content-Type is
``application/json`` or one of the two Heat also reads as JSON and real
clients send: ``text/plain`` and none at all. Any other Content-Type is
refused with 415, so a JSON body sent as a form says what is wrong instead
of passing for "no body". Bodies larger than ``[api] max_json_body_size``
are refused before they are parsed (one up to twice that size is read and
dropped first, so the client's keep-alive connection stays usable).

Python's JSON parser accepts more than JSON, and what it lets through
would fail later: a lone UTF-16 surrogate (``"\\ud800"``) cannot be
encoded for any database (a 500), and NaN or Infinity would be stored and
then echoed back as invalid JSON. Both are refused with a 400 naming the
field, as are NUL characters in what create and update store.
"""

import difflib
import json
import math
import re
from typing import Any

import jsonschema
from jsonschema import validators

from swconfig.api.middleware import opaque_body
from swconfig.common import exception
from swconfig.common import json_depth
from swconfig.common import json_errors
from swconfig.conf import CONF

_JSON_TYPES = frozenset(('application/json', 'text/plain', ''))
#: Raw bytes that may hide a lone surrogate: a ``\u`` escape, or the
#: lead byte of a UTF-8 encoded surrogate (the parser lets both through).
_SURROGATE_HINTS = (b'\\u', b'\xed')


class _NonFinite:
    """Stands in for NaN, Infinity or an overflowing number while parsing,
    so the check after it can name the field."""

    __slots__ = ('text',)

    def __init__(self, text: str) -> None:
        self.text = text


def too_large(size: int) -> exception.RequestLimitExceeded:
    limit = CONF.api.max_json_body_size
    return exception.RequestLimitExceeded(
        detail=f'JSON body size ({size} bytes) exceeds maximum allowed '
                f'size ({limit} bytes).')


#: A refused body up to this many times ``[api] max_json_body_size`` is
#: read and dropped before the 400: an HTTP server that answers with
#: part of the body unread closes the connection, and a keep-alive client
#: that sends its next request before it sees the close gets no answer.
DRAIN_FACTOR = 2
_DRAIN_CHUNK = 65536


def _drain(request: Any, size: int) -> None:
    """Read and drop ``size`` bytes of the request body (less if it
    ends sooner, or the client went away: the 400 is what matters)."""
    stream = request.body_file_raw
    try:
        while size > 0:
            chunk = stream.read(min(size, _DRAIN_CHUNK))
            if not chunk:
                return
            size -= len(chunk)
    except OSError:
        return


def read_raw(request: Any) -> bytes:
    """The body, refused with 400 when larger than the configured limit
    (a body up to ``DRAIN_FACTOR`` times the limit is read and dropped
    first, so the client's connection stays usable)."""
    limit = CONF.api.max_json_body_size
    if request.content_length is not None and request.content_length > limit:
        if request.content_length <= DRAIN_FACTOR * limit:
            _drain(request, request.content_length)
        raise too_large(request.content_length)
    # request.body, not body_file: webob may already have read the body
    # to look for form fields (it treats a missing Content-Type as a form).
    raw = request.body
    if len(raw) > limit:
        raise too_large(len(raw))
    return raw


def _check_content_type(request: Any) -> None:
    """415 unless the body is declared JSON (or one of Heat's aliases)."""
    content_type = opaque_body.original_content_type(request)
    media_type = content_type.split(';')[0].strip().lower()
    if media_type not in _JSON_TYPES:
        raise exception.UnsupportedMediaType(content_type=media_type)


def _kind(document: Any) -> str:
    if isinstance(document, list):
        return 'a JSON array'
    if isinstance(document, str):
        return 'a JSON string'
    if isinstance(document, bool):
        return 'a JSON boolean'
    if document is None:
        return 'JSON null'
    return 'a JSON number'


def _not_an_object(raw: bytes,
                  schema: dict | None = None) -> exception.SwconfigException:
    """The 400 for a body that does not start with ``{``: for JSON of
    another kind (a list of configs, say) one that says an object is
    expected, with the fields ``schema`` allows; Heat's generic
    "malformed" for anything else."""
    try:
        document = json.loads(raw)
    except RecursionError:
        return json_depth.too_deep()
    except (ValueError, UnicodeDecodeError):
        return exception.MalformedRequestBody()
    if isinstance(document, dict):
        return exception.MalformedRequestBody()  # text before the "{"
    fields = ''
    if schema and schema.get('properties'):
        fields = f', with the fields {", ".join(schema["properties"])}'
        if schema.get('required'):
            fields += f' ({", ".join(schema["required"])} required)'
    return exception.InvalidParameterValue(
        reason=f'The request body is {_kind(document)}; a JSON object is '
               f'expected{fields}.')


def read_json(request: Any, allow_nul: bool = True,
              schema: dict | None = None) -> dict:
    """The request's JSON object body; 415 for a body that is not declared
    JSON, 400 for anything else that is not a storable JSON object (the
    fields of ``schema`` named when the body is JSON of another kind)."""
    raw = read_raw(request)
    _check_content_type(request)
    if not raw.startswith(b'{'):
        raise _not_an_object(raw, schema)
    return _parse(raw, allow_nul)


def _parse(raw: bytes, allow_nul: bool, root: tuple = ()) -> Any:
    """The JSON document ``raw`` holds, checked to be storable (400
    naming the field, under ``root``, that is not)."""
    non_finite: list[str] = []

    def parse_constant(text: str) -> _NonFinite:
        non_finite.append(text)
        return _NonFinite(text)

    def parse_float(text: str) -> Any:
        value = float(text)
        return value if math.isfinite(value) else parse_constant(text)

    try:
        document = json.loads(raw, parse_constant=parse_constant,
                              parse_float=parse_float)
    except (ValueError, UnicodeDecodeError, RecursionError) as exc:
        raise json_errors.unparsable(exc, 'The request body')
    json_depth.check_depth(document)
    # Walk the document only when something in the raw text may need it.
    if non_finite or any(hint in raw for hint in _SURROGATE_HINTS):
        check_storable(document, allow_nul, root)
    return document


def is_list(request: Any) -> bool:
    """Whether the body is a JSON array (it starts with ``[``, as an
    object body starts with ``{``): a list of things to create."""
    return read_raw(request).startswith(b'[')


def _printable(text: str) -> str:
    """``text`` for an error message: surrogates and control characters
    as escapes (the message itself must stay valid JSON text)."""
    if text.isascii() and text.isprintable():
        return text
    return ''.join(
        ch if ch.isprintable() and not '\ud800' <= ch <= '\udfff'
        else (f'\\u{ord(ch):04x}' if ord(ch) < 0x10000
              else f'\\U{ord(ch):08x}')
        for ch in text)


def _path(parts: Any) -> str:
    return ''.join(f'[{p}]' if isinstance(p, int) else f'.{_printable(p)}'
                   for p in parts).lstrip('.') or 'body'


def _text_problem(text: str, allow_nul: bool) -> str | None:
    if not allow_nul and '\x00' in text:
        return 'NUL characters are not allowed in the request body.'
    if not text.isascii():
        try:
            text.encode('utf-8')
        except UnicodeEncodeError as exc:
            surrogate = _printable(text[exc.start:exc.end])
            return (f'the text holds a lone UTF-16 surrogate ({surrogate}),'
                    f' which is not a Unicode character.')
    return None


def check_storable(document: Any, allow_nul: bool = True,
                   root: tuple = ()) -> None:
    """400 naming the first string (value or key) holding a lone surrogate
    (or a NUL, unless ``allow_nul``) and the first NaN or Infinity; its
    path starts with ``root``."""
    stack: list[tuple[tuple, Any]] = [(root, document)]
    while stack:
        path, value = stack.pop()
        problem = None
        if isinstance(value, str):
            problem = _text_problem(value, allow_nul)
        elif isinstance(value, _NonFinite):
            problem = (f'{value.text} is not a JSON number (JSON has no '
                       f'NaN or Infinity, and numbers must fit a double).')
        elif isinstance(value, dict):
            for key in value:
                key_problem = _text_problem(key, allow_nul)
                if key_problem:
                    raise exception.InvalidParameterValue(
                        reason=f'Invalid field name {_path(path + (key,))}:'
                               f' {key_problem}')
            stack.extend((path + (key,), child)
                         for key, child in reversed(value.items()))
        elif isinstance(value, list):
            stack.extend((path + (index,), child) for index, child
                         in reversed(list(enumerate(value))))
        if problem:
            raise exception.InvalidParameterValue(
                reason=f'Invalid value for {_path(path)}: {problem}')


def _first_repeated(items: list) -> Any:
    """The first item of ``items`` equal to an earlier one (compared as
    canonical JSON text: JSON values need not be hashable)."""
    seen = set()
    for item in items:
        text = json.dumps(item, sort_keys=True)
        if text in seen:
            return item
        seen.add(text)
    return None


#: The schema keyword (an OpenAPI extension, ignored by validators) that
#: says what a field must be, as the end of "It must be ...": a value
#: refused by a pattern, a range or a type is explained in a sentence of
#: its own, whatever the field's description says.
MUST_BE = 'x-must-be'

#: The schema keyword (an OpenAPI extension, ignored by validators) of a
#: rule among a body's fields (an entry of its ``allOf``: exactly one of
#: these, this one only with that one): the sentence, without its final
#: period, that refuses a body breaking it. Where the rule is a ``oneOf``
#: of ``required`` lists, the message adds which of them the request
#: gives.
RULE = 'x-rule'

_TYPE_WORDS = {'string': 'a string', 'integer': 'a whole number',
               'number': 'a number', 'object': 'a JSON object',
               'array': 'a JSON array', 'boolean': 'true or false',
               'null': 'null'}
#: Longest value echoed in a message.
_SHOWN_LENGTH = 80


def _shown(value: Any) -> str:
    """The refused value in a few words (long ones are not echoed)."""
    if value == '':
        return 'the empty string'
    if isinstance(value, str):
        shown = repr(value)
        return shown if len(shown) <= _SHOWN_LENGTH else \
            f'a string of {len(value)} characters'
    if isinstance(value, list):
        return 'an empty list' if not value else \
            f'a list of {len(value)} item{"s" if len(value) > 1 else ""}'
    if isinstance(value, dict):
        return 'an empty object' if not value else \
            f'an object of {len(value)} entr' \
            f'{"ies" if len(value) > 1 else "y"}'
    return json.dumps(value)


def _what_it_must_be(error: jsonschema.ValidationError,
                     schema: dict) -> str:
    """The end of "It must be ...": the schema's own words when it has
    them, else words made from the keyword that refused the value."""
    if MUST_BE in schema:
        return schema[MUST_BE]
    limit = error.validator_value
    if error.validator == 'type':
        kinds = [limit] if isinstance(limit, str) else list(limit)
        return ' or '.join(_TYPE_WORDS.get(kind, kind) for kind in kinds)
    if error.validator == 'enum':
        return 'one of ' + ', '.join(json.dumps(choice) for choice in limit)
    entries = f'{limit} entr{"y" if limit == 1 else "ies"}'
    items = f'{limit} item{"" if limit == 1 else "s"}'
    words = {
        'minimum': f'at least {limit}',
        'maximum': f'at most {limit}',
        'exclusiveMinimum': f'more than {limit}',
        'exclusiveMaximum': f'less than {limit}',
        'minLength': (f'at least {limit} characters long' if limit != 1
                      else 'a string that is not empty'),
        'maxLength': f'at most {limit} characters long',
        'minItems': f'a list of at least {items}',
        'maxItems': f'a list of at most {items}',
        'minProperties': f'an object of at least {entries}',
        'maxProperties': f'an object of at most {entries}',
    }
    return words.get(error.validator, 'as the API reference describes it')


def _chosen_branch(error: jsonschema.ValidationError
                   ) -> jsonschema.ValidationError | None:
    """For a ``oneOf`` whose branches each fix a field (``const`` or
    ``enum``: a resource's ``type``), the first error of the one branch
    the value chose; None when no single branch was chosen."""
    if error.validator != 'oneOf' or not error.context:
        return None
    by_branch: dict[Any, list] = {}
    for sub in error.context:
        by_branch.setdefault(sub.relative_schema_path[0], []).append(sub)
    chosen = [errors for errors in by_branch.values()
              if not any(sub.validator in ('const', 'enum')
                         for sub in errors)]
    if len(chosen) != 1 or len(by_branch) != len(error.schema['oneOf']):
        return None
    return sorted(chosen[0], key=lambda sub: list(sub.absolute_path))[0]


def _first_to_tell(error: jsonschema.ValidationError) -> tuple:
    """Errors by where they are, the body's first; a ``oneOf`` that
    neither states its rule nor was chosen by a field goes last: another
    error (the field that chose no branch) says more."""
    schema = error.schema if isinstance(error.schema, dict) else {}
    vague = (error.validator == 'oneOf' and RULE not in schema
             and _chosen_branch(error) is None)
    return vague, list(error.absolute_path)


def _given(error: jsonschema.ValidationError, schema: dict) -> str:
    """`` (the request gives a and b)`` for a ``oneOf`` of ``required``
    lists the body breaks by giving more than one."""
    named = [key for branch in schema.get('oneOf', ())
             for key in branch.get('required', ())]
    given = [key for key in dict.fromkeys(named)
             if isinstance(error.instance, dict) and key in error.instance]
    if len(given) < 2:
        return ''
    return f' (the request gives {", ".join(given[:-1])} and {given[-1]})'


def _message(error: jsonschema.ValidationError,
             name: str | None = None) -> str:
    """A message that names the field, without echoing huge values, and
    says in a sentence of its own what the field must be; ``name`` is the
    value's own name when it is not a body (a path parameter)."""
    path = list(error.absolute_path)
    where = _path(path) if path or name is None else name
    schema = error.schema if isinstance(error.schema, dict) else {}
    if RULE in schema:
        return f'{schema[RULE]}{_given(error, schema)}.'
    chosen = _chosen_branch(error)
    if chosen is not None:
        return _message(chosen, name)
    if error.validator == 'additionalProperties':
        known = list(schema.get('properties', {}))
        unknown = sorted(key for key in error.instance if key not in known)
        name = unknown[0]
        close = difflib.get_close_matches(name, known, n=1)
        hint = f' (did you mean {close[0]}?)' if close else ''
        return (f'Unknown field {_path(path + [name])}{hint}; '
                f'{"the body" if not path else where} accepts only: '
                f'{", ".join(known)}.')
    if error.validator == 'required':
        missing = [key for key in error.validator_value
                   if key not in error.instance]
        return f'Missing required field {_path(path + missing[:1])}.'
    if error.validator == 'uniqueItems':
        shown = repr(_first_repeated(error.instance))
        return (f'Invalid value for {where}: '
                f'{shown if len(shown) <= _SHOWN_LENGTH else "an item"} is '
                f'given more than once.')
    if 'propertyNames' in error.schema_path:
        # A key of the object, not the object, is what is refused.
        return (f'Invalid key in {where}: {_shown(error.instance)}. It '
                f'must be {_what_it_must_be(error, schema)}.')
    return (f'Invalid value for {where}: {_shown(error.instance)}. It must '
            f'be {_what_it_must_be(error, schema)}.')


def _full_match(validator: Any, pattern: str, instance: Any,
                schema: dict) -> Any:
    # JSON Schema patterns follow ECMA-262, where "$" is the end of the
    # text; in Python it also matches before a final newline, so
    # "CREATE\n" would pass "^[A-Z]+$".
    if validator.is_type(instance, 'string') and not re.fullmatch(
            pattern, instance):
        yield jsonschema.ValidationError(
            f'{instance!r} does not match {pattern!r}')


_Validator = validators.extend(validators.Draft202012Validator,
                               {'pattern': _full_match})
#: One validator per schema (the schemas are module constants): building
#: one per request cost more than validating a small body.
_VALIDATORS: dict[int, tuple[dict, Any]] = {}


def _validator(schema: dict) -> Any:
    known = _VALIDATORS.get(id(schema))
    if known is None or known[0] is not schema:
        known = _VALIDATORS[id(schema)] = (schema, _Validator(schema))
    return known[1]


def validate(schema: dict, document: Any, name: str | None = None) -> None:
    """Raise InvalidParameterValue naming the first offending field (or
    ``name``, for a value that is not a body)."""
    errors = sorted(_validator(schema).iter_errors(document),
                    key=_first_to_tell)
    if errors:
        raise exception.InvalidParameterValue(
            reason=_message(errors[0], name))


def load(request: Any, schema: dict) -> dict:
    """A validated JSON object body for a create or update.

    NUL characters are refused too: PostgreSQL cannot store them in the
    text columns (names, ids, statuses) these bodies fill.
    """
    # A NUL can only come as a \u0000 escape, which read_json checks.
    document = read_json(request, allow_nul=False, schema=schema)
    validate(schema, document)
    return document


#: How a list body's items are named in messages: ``items[3]``.
ITEMS = 'items'


def load_list(request: Any, schema: dict, item_schema: dict,
              max_items: int) -> list[dict]:
    """A validated JSON array body of objects, for creating several
    things at once (``schema``: the array, whose ``items`` refer to
    ``item_schema`` by name).

    An empty list, or one longer than ``max_items``, is refused. Every
    item is validated with ``item_schema``; the 400 names each bad item
    by its index (``items[3]: ...``) with the message the item alone
    would get. NUL characters are refused as ``load`` refuses them.
    """
    raw = read_raw(request)
    _check_content_type(request)
    document = _parse(raw, allow_nul=False, root=(ITEMS,))
    if len(document) < schema.get('minItems', 0):
        raise exception.InvalidParameterValue(
            reason='The request body is an empty list; give at least one '
                   'item to create.')
    if len(document) > max_items:
        raise exception.RequestLimitExceeded(
            detail=f'The list holds {len(document)} items; at most '
                   f'{max_items} may be created in one request.')
    problems = {}
    for index, item in enumerate(document):
        if not isinstance(item, dict):
            problems[index] = f'{_kind(item)}; a JSON object is expected.'
            continue
        errors = sorted(_validator(item_schema).iter_errors(item),
                        key=_first_to_tell)
        if errors:
            problems[index] = _message(errors[0])
    if problems:
        raise exception.BatchInvalid.of(problems, len(document))
    return document
