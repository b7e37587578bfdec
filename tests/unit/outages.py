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

"""The outages background tasks meet, as the libraries raise them: a
backend answering 503, a database that refuses connections."""

from oslo_db import exception as db_exc
from sqlalchemy import exc as sa_exc

from swconfig.common import exception


def backend_down() -> exception.BackendUnavailable:
    return exception.BackendUnavailable(service='Swift',
                                        reason='503 on /v1/AUTH_svc')


def database_down() -> db_exc.DBConnectionError:
    refused = sa_exc.OperationalError(
        'SELECT 1', {}, Exception("(2003) Can't connect to MySQL server"))
    return db_exc.DBConnectionError(refused)
