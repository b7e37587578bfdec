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

"""The request to create a software deployment, as one typed value.

The API builds it from the validated body, ``EngineAPI`` sends it over RPC
as a plain dict, and the engine's manager rebuilds it for
``swconfig.engine.deployments.create``: the fields are named here once.
"""

import dataclasses
from typing import Any

#: Fields added after the dict form was first sent over RPC: left out of
#: it while unset, so a request that does not use them has the same RPC
#: form (and Idempotency-Key digest) as before they existed.
LATER_FIELDS = ('input_key', 'input_values_validate')
#: ``input_values_validate``: with an ``input_key``, what a reference to
#: an input that is not there becomes: null (LAX) or a refusal (STRICT).
LAX = 'LAX'
STRICT = 'STRICT'
INPUT_VALUES_VALIDATE = (LAX, STRICT)


@dataclasses.dataclass(frozen=True)
class DeploymentRequest:
    """A deployment to create. Without ``signal_transport`` it is Heat's
    raw form (the client derived the config); with it the engine derives
    the config and issues the transport (``default``: the operator's).
    ``input_key`` and ``input_values_validate`` ask the engine to write
    input values into a structured config as it derives it."""

    server_id: str
    config_id: str | None = None
    input_values: dict | None = None
    action: str | None = None
    status: str | None = None
    status_reason: str | None = None
    stack_user_project_id: str | None = None
    signal_transport: str | None = None
    name: str | None = None
    timeout: int | None = None
    input_key: str | None = None
    input_values_validate: str | None = None

    @property
    def server_derived(self) -> bool:
        return self.signal_transport is not None

    def to_dict(self) -> dict[str, Any]:
        """The RPC form: a JSON-serialisable dict (without the
        ``LATER_FIELDS`` that are unset)."""
        return {key: value for key, value in dataclasses.asdict(self).items()
                if value is not None or key not in LATER_FIELDS}

    @classmethod
    def from_dict(cls, values: dict[str, Any],
                  **overrides: Any) -> 'DeploymentRequest':
        """From a request body or the RPC form; keys that are not fields
        are ignored (the body's schema decides what is allowed, and an
        older API may still send ``base_url``)."""
        known = {field.name for field in dataclasses.fields(cls)}
        given = {key: value for key, value in values.items()
                 if key in known}
        return cls(**dict(given, **overrides))
