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

"""Authentication for the embedded default: no Keystone, projects apart.

The caller becomes a member of the project named in the URL
(``/v1/{tenant_id}/...``), with the roles ``reader,member`` unless the
request sends ``X-Roles``. Unlike Heat's noauth, nobody is made admin
implicitly, so projects stay isolated. This is for development only.
"""

from typing import Any

from swconfig.api import dispatch

DEFAULT_ROLES = 'reader,member'


class NoAuthMiddleware:
    def __init__(self, app: Any) -> None:
        self.app = app

    def __call__(self, environ: dict, start_response: Any) -> Any:
        project_id = dispatch.route_of(environ).args.get('tenant_id', '')
        environ['HTTP_X_IDENTITY_STATUS'] = 'Confirmed'
        environ.setdefault('HTTP_X_USER_ID', 'noauth')
        environ['HTTP_X_PROJECT_ID'] = project_id
        environ.setdefault('HTTP_X_ROLES', DEFAULT_ROLES)
        return self.app(environ, start_response)
