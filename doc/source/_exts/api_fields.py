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

"""Check that the API reference documents every request field.

The request bodies the API accepts are the JSON schemas in
``swconfig.api.schemas.v1`` (the same ones ``/v1/openapi.json`` serves).
Every property of every body, nested ones included, must appear as a
literal path (``inputs[].name``, ``template.resources.*.type``) in the API
reference, after the comment ``.. request-body: <schema title>`` that
opens the body's description, and so must the ``description`` of the
body and of each field (whitespace aside): the reference and the OpenAPI
document say the same thing in the same words. A field added to a schema
without documentation is a warning, which the docs build turns into an
error.
"""

import pathlib

from sphinx.util import logging

LOG = logging.getLogger(__name__)


def field_paths(schema: dict, prefix: str = '') -> list[str]:
    """Every property path of ``schema``: ``a``, ``a.b``, ``a[].b`` and
    ``a.*.b`` (for additionalProperties)."""
    paths = []
    for name, sub in (schema.get('properties') or {}).items():
        path = f'{prefix}{name}'
        paths.append(path)
        paths.extend(_nested(sub, path))
    return paths


def _nested(schema: dict, path: str) -> list[str]:
    found = field_paths(schema, f'{path}.')
    items = schema.get('items')
    if isinstance(items, dict):
        found += field_paths(items, f'{path}[].')
    extra = schema.get('additionalProperties')
    if isinstance(extra, dict):
        found += field_paths(extra, f'{path}.*.')
    return found


def descriptions(schema: dict, prefix: str = '') -> list[tuple[str, str]]:
    """(path, description) of ``schema`` itself and of every schema under
    it that has one; the body's own path is ``(body)``."""
    found = []
    if schema.get('description'):
        found.append((prefix.rstrip('.') or '(body)', schema['description']))
    for name, sub in (schema.get('properties') or {}).items():
        found.extend(descriptions(sub, f'{prefix}{name}.'))
    for key, suffix in (('items', '[].'), ('additionalProperties', '.*.')):
        sub = schema.get(key)
        if isinstance(sub, dict):
            found.extend(descriptions(sub, prefix.rstrip('.') + suffix))
    return found


def _flat(text: str) -> str:
    return ' '.join(text.split())


def request_schemas() -> dict[str, dict]:
    """{schema name: schema} of every request body."""
    from swconfig.api import routes
    from swconfig.api.openapi import document
    return document.request_schemas(routes.DOCUMENTED_ROUTES)


def request_fields() -> dict[str, list[str]]:
    """{schema name: [field path, ...]} for every request body."""
    return {name: field_paths(schema)
            for name, schema in request_schemas().items()}


MARKER = '.. request-body:'


def documented_sections(text: str) -> dict[str, str]:
    """{schema name: the text after its ``.. request-body: Name`` comment,
    up to the next such comment}."""
    sections: dict[str, str] = {}
    name = None
    for line in text.splitlines():
        if line.startswith(MARKER):
            name = line[len(MARKER):].strip()
            sections.setdefault(name, '')
        elif name is not None:
            sections[name] += line + '\n'
    return sections


def _check(app, env) -> None:  # noqa: ANN001 - Sphinx's signature
    source = pathlib.Path(app.srcdir) / 'api-ref'
    sections: dict[str, str] = {}
    for path in sorted(source.glob('*.rst')):
        for name, text in documented_sections(path.read_text()).items():
            sections[name] = sections.get(name, '') + text
    for schema, paths in sorted(request_fields().items()):
        if schema not in sections:
            LOG.warning('api-ref: request body %s is not documented (no '
                        '"%s %s" comment in doc/source/api-ref)', schema,
                        MARKER, schema)
            continue
        for path in paths:
            if f'``{path}``' not in sections[schema]:
                LOG.warning('api-ref: request field %s of %s is not '
                            'documented (write ``%s`` after "%s %s")',
                            path, schema, path, MARKER, schema)
        text = _flat(sections[schema])
        for path, wording in descriptions(request_schemas()[schema]):
            if _flat(wording) not in text:
                LOG.warning('api-ref: %s of %s is not documented in its '
                            "schema's words: %r", path, schema, wording)


def setup(app) -> dict:  # noqa: ANN001 - Sphinx's signature
    app.connect('env-updated', _check)
    return {'parallel_read_safe': True, 'version': '1'}
