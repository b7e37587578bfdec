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

"""The API warns at start-up when agents would be given URLs they cannot
reach: a loopback public URL while the API listens on another address."""

import logging

import pytest

from swconfig.conf import CONF


@pytest.fixture
def api_options(inprocess_stack):
    """Override [api] options for one test; restore the in-process stack's
    own afterwards (it sets public_url)."""
    before = {name: CONF.api[name] for name in ('bind_host', 'public_url')}
    yield lambda **values: [CONF.set_override(name, value, group='api')
                            for name, value in values.items()]
    for name, value in before.items():
        CONF.set_override(name, value, group='api')


def _warnings(caplog) -> list[str]:
    return [record.getMessage() for record in caplog.records
            if record.levelno == logging.WARNING
            and 'public_url' in record.getMessage()]


def test_loopback_agent_urls_on_a_public_bind_warn(api_options, caplog):
    from swconfig.api import app

    api_options(bind_host='0.0.0.0', public_url='http://127.0.0.1:8004')
    with caplog.at_level(logging.WARNING, logger='swconfig.api.app'):
        app.setup_app()
    [warning] = _warnings(caplog)
    assert 'http://127.0.0.1:8004' in warning
    assert 'listens on 0.0.0.0' in warning


def test_reachable_agent_urls_do_not_warn(api_options, caplog):
    from swconfig.api import app

    api_options(bind_host='0.0.0.0', public_url='http://192.0.2.10:8004')
    with caplog.at_level(logging.WARNING, logger='swconfig.api.app'):
        app.setup_app()
    assert _warnings(caplog) == []
