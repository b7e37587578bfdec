// Copyright 2026 swconfig developers
//
//    Licensed under the Apache License, Version 2.0 (the "License"); you may
//    not use this file except in compliance with the License. You may obtain
//    a copy of the License at
//
//         http://www.apache.org/licenses/LICENSE-2.0
//
//    Unless required by applicable law or agreed to in writing, software
//    distributed under the License is distributed on an "AS IS" BASIS, WITHOUT
//    WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied. See the
//    License for the specific language governing permissions and limitations
//    under the License.

// A small JSON Schema validator for the API's request schemas, read from
// its OpenAPI document, so a form is refused here for what the API would
// refuse with 400, before anything is sent. It covers the keywords those
// schemas use (tests/unit/dashboard/test_validator_keywords.py checks
// that every keyword the forms' schemas use is listed below).

// Keywords that constrain a value, each checked below.
export const KEYWORDS = [
  '$ref', 'type', 'enum', 'const', 'properties', 'required',
  'additionalProperties', 'propertyNames', 'minProperties',
  'maxProperties', 'items', 'minItems', 'maxItems', 'uniqueItems',
  'minLength', 'maxLength', 'pattern', 'minimum', 'maximum', 'allOf',
  'anyOf', 'oneOf', 'not',
];
// Keywords that only describe a value.
export const ANNOTATIONS = [
  'title', 'description', 'default', 'examples', 'deprecated',
  'readOnly', 'writeOnly',
  // Ours: what a patterned field must be, the end of the API 400; the
  // sentence of a rule among a body's fields (exactly one of these).
  'x-must-be', 'x-rule',
];

function typeOf(value) {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'number') {
    return Number.isInteger(value) ? 'integer' : 'number';
  }
  return typeof value;
}

function typeMatches(value, type) {
  const actual = typeOf(value);
  return actual === type || (type === 'number' && actual === 'integer');
}

function equal(a, b) {
  return JSON.stringify(a) === JSON.stringify(b);
}

function where(path) {
  return path.length ? path.join('.') : 'the body';
}

// The errors of ``value`` against ``schema``: a list of messages, each
// naming where it is (``inputs.0.name``).
export function validate(value, schema, document, path = []) {
  const errors = [];
  const fail = (text) => errors.push(`${where(path)}: ${text}`);
  if (schema === true || schema === undefined) return errors;
  if (schema === false) {
    fail('is not allowed');
    return errors;
  }
  if (schema.$ref) {
    const name = schema.$ref.split('/').pop();
    errors.push(...validate(value, document.components.schemas[name],
                            document, path));
  }
  if (schema.type !== undefined) {
    const types = [].concat(schema.type);
    if (!types.some((type) => typeMatches(value, type))) {
      fail(`must be of type ${types.join(' or ')}, not ${typeOf(value)}`);
      return errors;
    }
  }
  if (schema.enum && !schema.enum.some((item) => equal(item, value))) {
    fail(`must be one of ${schema.enum.map((e) => JSON.stringify(e))
      .join(', ')}`);
  }
  if ('const' in schema && !equal(schema.const, value)) {
    fail(`must be ${JSON.stringify(schema.const)}`);
  }
  const kind = typeOf(value);
  if (kind === 'string') checkString(value, schema, fail);
  if (kind === 'integer' || kind === 'number') {
    if (schema.minimum !== undefined && value < schema.minimum) {
      fail(`must be at least ${schema.minimum}`);
    }
    if (schema.maximum !== undefined && value > schema.maximum) {
      fail(`must be at most ${schema.maximum}`);
    }
  }
  if (kind === 'array') {
    checkArray(value, schema, document, path, errors, fail);
  }
  if (kind === 'object') {
    checkObject(value, schema, document, path, errors, fail);
  }
  for (const sub of schema.allOf || []) {
    errors.push(...validate(value, sub, document, path));
  }
  // A rule among the fields says what is wrong in its own words.
  const broken = (generic) => (schema['x-rule']
    ? errors.push(`${schema['x-rule']}.`) : fail(generic));
  if (schema.anyOf && !schema.anyOf.some(
    (sub) => !validate(value, sub, document, path).length)) {
    broken('matches none of the allowed forms');
  }
  if (schema.oneOf && schema.oneOf.filter(
    (sub) => !validate(value, sub, document, path).length).length !== 1) {
    broken('must match exactly one of the allowed forms');
  }
  if (schema.not && !validate(value, schema.not, document, path).length) {
    broken('is not allowed');
  }
  return errors;
}

function checkString(value, schema, fail) {
  const length = [...value].length;
  if (schema.minLength !== undefined && length < schema.minLength) {
    fail(schema.minLength === 1 ? 'must not be empty'
      : `must be at least ${schema.minLength} characters`);
  }
  if (schema.maxLength !== undefined && length > schema.maxLength) {
    fail(`must be at most ${schema.maxLength} characters`);
  }
  if (schema.pattern !== undefined
      && !new RegExp(schema.pattern, 'u').test(value)) {
    fail(schema.description ? `must be ${schema.description}`
      : `must match ${schema.pattern}`);
  }
}

function checkArray(value, schema, document, path, errors, fail) {
  if (schema.minItems !== undefined && value.length < schema.minItems) {
    fail(`must have at least ${schema.minItems} items`);
  }
  if (schema.maxItems !== undefined && value.length > schema.maxItems) {
    fail(`must have at most ${schema.maxItems} items`);
  }
  if (schema.uniqueItems) {
    const seen = new Set(value.map((item) => JSON.stringify(item)));
    if (seen.size !== value.length) fail('must not repeat an item');
  }
  if (schema.items !== undefined) {
    value.forEach((item, index) => errors.push(
      ...validate(item, schema.items, document, [...path, index])));
  }
}

function checkObject(value, schema, document, path, errors, fail) {
  const names = Object.keys(value);
  for (const name of schema.required || []) {
    if (!(name in value)) fail(`${name} is required`);
  }
  if (schema.minProperties !== undefined
      && names.length < schema.minProperties) {
    fail(`must have at least ${schema.minProperties} keys`);
  }
  if (schema.maxProperties !== undefined
      && names.length > schema.maxProperties) {
    fail(`must have at most ${schema.maxProperties} keys`);
  }
  const properties = schema.properties || {};
  for (const name of names) {
    if (schema.propertyNames) {
      errors.push(...validate(name, schema.propertyNames, document,
                              [...path, name]));
    }
    if (name in properties) {
      errors.push(...validate(value[name], properties[name], document,
                              [...path, name]));
    } else if (schema.additionalProperties === false) {
      fail(`has no key ${JSON.stringify(name)}`);
    } else if (typeof schema.additionalProperties === 'object') {
      errors.push(...validate(value[name], schema.additionalProperties,
                              document, [...path, name]));
    }
  }
}
