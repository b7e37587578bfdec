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

from swconfig.common import lookup_cache


def test_everything_is_forgotten_when_full():
    held = lookup_cache.LookupCache(2)
    held.keep('a', 1)
    held.keep('b', 2)
    assert held == {'a': 1, 'b': 2}
    held.keep('c', 3)
    assert held == {'c': 3}


def test_a_limit_of_zero_keeps_nothing():
    for held in (lookup_cache.LookupCache(0),
                 lookup_cache.RepeatLookupCache(0)):
        for _ in range(3):
            held.keep('a', 1)
        assert held == {}


def test_a_key_is_kept_on_its_second_keep():
    held = lookup_cache.RepeatLookupCache(2)
    held.keep('a', 1)
    assert held == {}
    held.keep('a', 2)
    assert held == {'a': 2}
    # Full: everything is forgotten, as in a LookupCache.
    for key in ('b', 'b', 'c', 'c'):
        held.keep(key, key)
    assert held == {'c': 'c'}


def test_noted_keys_are_forgotten_past_four_times_the_limit():
    held = lookup_cache.RepeatLookupCache(2)
    held.keep('a', 1)
    for n in range(lookup_cache.RepeatLookupCache.NOTED_PER_KEPT * 2 - 1):
        held.keep(n, n)
    assert held == {}
    # 'a' was among the last notes: still noted, so this keeps it.
    held.keep('a', 1)
    assert held == {'a': 1}
    held = lookup_cache.RepeatLookupCache(2)
    held.keep('a', 1)
    for n in range(lookup_cache.RepeatLookupCache.NOTED_PER_KEPT * 2):
        held.keep(n, n)
    # The notes were forgotten before the last one: 'a' is noted afresh.
    held.keep('a', 1)
    assert held == {}
