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

"""What the API's unit tests share."""

import pytest

from swconfig.api import background


@pytest.fixture
def run_as_a_worker():
    """``run_as_a_worker(*tasks)``: the tasks run as an API worker runs
    its background work (``background.Work``), stopped after the test;
    returns the first task."""
    started: list[background.Work] = []

    def run(*tasks):
        work = background.Work(lambda: list(tasks))
        work.start()
        started.append(work)
        return tasks[0]

    yield run
    for work in started:
        work.stop()
