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

"""The Swift transports, in swconfig's own Swift account (``[swift]``).

``TEMP_URL_SIGNAL`` (``signal``): agents PUT their signals to TempURLs;
engines list the signal containers they own and fetch what changed
(``poller``); a deployment whose config the client derived is read with
the user's token when shown (``client_derived``).
``POLL_TEMP_URL`` (``metadata``): engines PUT each server's document;
agents poll its TempURL. ``client`` talks to Swift; ``options`` holds
``[swift]``, registered when this package is imported.
"""

from swconfig.conf import CONF
from swconfig.transports.swift import options

options.register_opts(CONF)
