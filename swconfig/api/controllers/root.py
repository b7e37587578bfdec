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

"""pecan's root controller: routes through the route table.

The dispatcher (``swconfig.api.dispatch``) matched the request before
pecan saw it (an unmatched one never reaches pecan:
``dispatch.RaiseUnmatched``). ``_route``, the extension point pecan
offers a controller to route by itself, hands pecan that match's handler
with the URL's arguments.
"""

from typing import Any

import pecan

from swconfig.api import dispatch


class RootController:

    @pecan.expose()
    def _route(self, args: list[str], request: Any) -> tuple:
        match = dispatch.route_of(request.environ)
        return match.handler, match.handler_args
