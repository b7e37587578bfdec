"""Reading and validating JSON request bodies, with Heat's rules.

A body counts only if its Content-Type is JSON, text/plain or missing and it
starts with ``{``; anything else is "no body" (400). Bodies larger than
``[api] max_json_body_size`` are refused before they are parsed.
"""

import json
from typing import Any

import jsonschema
from jsonschema import validators

from swconfig.api.middleware import opaque_body
from swconfig.common import exception
from swconfig.conf import CONF

_JSON_TYPES = ('application/json', 'text/plain', '')


def too_large(size: int) -> exception.RequestLimitExceeded:
    limit = CONF.api.max_json_body_size
    return exception.RequestLimitExceeded(
        detail=f'JSON body size ({size} bytes) exceeds maximum allowed '
                f'size ({limit} bytes).')


def read_raw(request: Any) -> bytes:
    """The body, refused with 400 when larger than the configured limit."""
    limit = CONF.api.max_json_body_size
    if request.content_length is not None and request.content_length > limit:
        raise too_large(request.content_length)
    # request.body, not body_file: webob may already have read the body
    # to look for form fields (it treats a missing Content-Type as a form).
    raw = request.body
    if len(raw) > limit:
        raise too_large(len(raw))
    return raw


def read_json(request: Any) -> dict:
    """The request's JSON object body; 400 for anything else."""
    raw = read_raw(request)
    content_type = opaque_body.original_content_type(request)
    content_type = content_type.split(';')[0].strip().lower()
    if content_type not in _JSON_TYPES or not raw.startswith(b'{'):
        raise exception.MalformedRequestBody()
    try:
        document = json.loads(raw)
    except (ValueError, UnicodeDecodeError, RecursionError) as exc:
        raise exception.InvalidParameterValue(
            reason=f'The request body is not valid JSON: {exc}')
    check_depth(document)
    return document


def check_depth(document: Any) -> None:
    """Refuse bodies nested deeper than ``[api] max_json_depth``: deep
    nesting only costs memory and stack in every later step."""
    limit = CONF.api.max_json_depth
    level = [document] if isinstance(document, (dict, list)) else []
    for _depth in range(limit):
        level = [child for value in level
                 for child in (value.values() if isinstance(value, dict)
                               else value)
                 if isinstance(child, (dict, list))]
        if not level:
            return
    raise exception.RequestLimitExceeded(
        detail=f'JSON body is nested deeper than {limit} levels.')


def _has_nul(value: Any) -> bool:
    if isinstance(value, str):
        return '\x00' in value
    if isinstance(value, dict):
        return any(_has_nul(k) or _has_nul(v) for k, v in value.items())
    if isinstance(value, list):
        return any(_has_nul(item) for item in value)
    return False


def _path(error: jsonschema.ValidationError) -> str:
    return ''.join(f'[{p}]' if isinstance(p, int) else f'.{p}'
                   for p in error.absolute_path).lstrip('.') or 'body'


def validate(schema: dict, document: Any) -> None:
    """Raise InvalidParameterValue naming the first offending field."""
    validator_cls = validators.validator_for(schema)
    errors = sorted(validator_cls(schema).iter_errors(document),
                    key=lambda e: list(e.absolute_path))
    if errors:
        error = errors[0]
        raise exception.InvalidParameterValue(
            reason=f'Invalid value for {_path(error)}: {error.message}')


def load(request: Any, schema: dict) -> dict:
    """A validated JSON object body for a create or update.

    NUL characters are refused: PostgreSQL cannot store them in the text
    columns (names, ids, statuses) these bodies fill.
    """
    document = read_json(request)
    if b'\\u0000' in request.body and _has_nul(document):
        raise exception.InvalidParameterValue(
            reason='NUL characters are not allowed in the request body.')
    validate(schema, document)
    return document
