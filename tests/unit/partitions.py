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

"""Partitions for tests of background tasks: which items a task's
engine owns (``swconfig.common.background.Partition``)."""


class Everything:
    """A partition that gives this engine every item."""

    def owns(self, key):
        return True


class Only:
    """A partition that gives this engine ``keys`` only."""

    def __init__(self, keys):
        self.keys = set(keys)
        self.asked = []

    def owns(self, key):
        self.asked.append(key)
        return key in self.keys
