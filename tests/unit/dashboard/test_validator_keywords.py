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

"""The dashboard's forms check a body against the API's own request
schema before sending it (``static/validate.js``). That is only "as the
API will" if the validator knows every keyword those schemas use: a
keyword it does not know would be silently ignored, and the form would
send what the API refuses. So every keyword met in the schemas the
scripts name must be one ``validate.js`` checks (``KEYWORDS``) or one
that only describes (``ANNOTATIONS``)."""

import re

from swconfig import dashboard
from swconfig.api import routes

VALIDATOR = dashboard.STATIC_DIR / 'validate.js'
#: Keywords whose value is a map of names to schemas, a schema, or a
#: list of schemas.
SCHEMA_MAPS = ('properties', 'patternProperties', '$defs')
SCHEMA_VALUES = ('items', 'additionalProperties', 'propertyNames', 'not',
                 'contains', 'if', 'then', 'else')
SCHEMA_LISTS = ('allOf', 'anyOf', 'oneOf', 'prefixItems')


def _listed(name: str) -> set[str]:
    match = re.search(rf'export const {name} = \[(.*?)\];',
                      VALIDATOR.read_text(), re.S)
    assert match, f'validate.js exports no {name}'
    return set(re.findall(r"'([$\w-]+)'", match.group(1)))


def _keywords(schema, schemas: dict, seen: set[str]) -> set[str]:
    """Every keyword of ``schema`` and of the schemas within it and those
    it refers to."""
    if not isinstance(schema, dict):
        return set()
    found = set(schema)
    if '$ref' in schema:
        name = schema['$ref'].rsplit('/', 1)[1]
        if name not in seen:
            seen.add(name)
            found |= _keywords(schemas[name], schemas, seen)
    for key, value in schema.items():
        if key in SCHEMA_MAPS:
            for sub in value.values():
                found |= _keywords(sub, schemas, seen)
        elif key in SCHEMA_VALUES:
            found |= _keywords(value, schemas, seen)
        elif key in SCHEMA_LISTS:
            for sub in value:
                found |= _keywords(sub, schemas, seen)
    return found


def _schemas_the_scripts_use(schemas: dict) -> set[str]:
    names = set()
    for path in dashboard.STATIC_DIR.glob('*.js'):
        names |= set(re.findall(r"'([A-Z]\w+)'", path.read_text()))
    return names & set(schemas)


def test_the_forms_schemas_are_found():
    schemas = routes.openapi_document()['components']['schemas']
    assert _schemas_the_scripts_use(schemas) >= {
        'SoftwareConfigCreate', 'SoftwareDeploymentCreate',
        'SoftwareDeploymentAction', 'SoftwareDeploymentTrigger'}


def test_the_walk_sees_nested_keywords():
    schemas = {'Inner': {'type': 'string', 'pattern': '^a$'}}
    outer = {'properties': {'a': {'allOf': [{'$ref': '#/x/Inner'}]}},
             'items': {'minItems': 1}}
    assert _keywords(outer, schemas, set()) == {
        'properties', 'items', 'allOf', '$ref', 'type', 'pattern',
        'minItems'}


def test_the_validator_knows_every_keyword_the_forms_meet():
    schemas = routes.openapi_document()['components']['schemas']
    used = set()
    for name in _schemas_the_scripts_use(schemas):
        used |= _keywords(schemas[name], schemas, set())
    unknown = used - _listed('KEYWORDS') - _listed('ANNOTATIONS')
    assert unknown == set(), (
        f'validate.js does not check {sorted(unknown)}: teach it, or list '
        f'a keyword that only describes in ANNOTATIONS')


def test_each_listed_keyword_is_checked():
    """A keyword in KEYWORDS is read by the code, not only listed."""
    text = VALIDATOR.read_text()
    body = text[text.index('function typeOf'):]
    for keyword in _listed('KEYWORDS'):
        assert (f'schema.{keyword}' in body or f"'{keyword}' in schema"
                in body or f'schema[{keyword!r}]' in body), keyword
