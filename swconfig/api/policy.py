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

"""oslo.policy enforcement; the rules themselves live in swconfig.policies.

oslo.policy's checks cost more than most of a request (each one looks for
changed policy files and inspects every check's signature), so
``Enforcer``, oslo.policy's enforcer subclassed, looks for changed policy
files at most every ``Enforcer.RELOAD_INTERVAL`` and reuses its own
decisions (``Decisions``). When a reused decision stops applying:

* a changed policy file: the first look after it (within
  ``RELOAD_INTERVAL``) loads new rules, which retires every decision made
  by the old ones (``Enforcer.generation``);
* a caller's roles, project or domain: a decision is keyed by every
  credential oslo.policy's checks read (the context's
  ``to_policy_values``), so a token with other roles is decided afresh;
* a rule that asks an outside service (an ``http:`` check): its answer
  is reused for at most ``Decisions.LIFETIME`` seconds.

A refusal raised to the caller is never reused: oslo.policy decides it,
and raises it, every time.
"""

from collections.abc import Callable
import operator
import threading
import time
from typing import Any

from oslo_config import cfg
from oslo_policy import policy

from swconfig import policies
from swconfig.common import exception
from swconfig.common import lookup_cache
from swconfig.common.context import POLICY_SCALARS
from swconfig.common.context import RequestContext
from swconfig.conf import CONF

_ENFORCER: policy.Enforcer | None = None
_ENFORCER_LOCK = threading.Lock()


class Decisions:
    """Recent decisions by rule, target and the credentials policy sees
    (the context's ``to_policy_values``): every input of oslo.policy's
    built-in checks. A decision is reused while the enforcer's rules are
    those it was made by (``Enforcer.generation``), for at most
    ``LIFETIME`` seconds, which bounds how long the answer of a rule that
    asks an outside service (an ``http:`` check) is reused. A refusal is
    kept only as an answer (``context_is_admin``): a check that raises is
    decided by oslo.policy every time, so its error is oslo.policy's."""

    #: Seconds a decision is reused at most, its rules unchanged.
    LIFETIME = 30.0
    #: At most this many decisions are kept (all forgotten when full).
    SIZE = 4096

    def __init__(self, clock: Callable[[], float] = time.monotonic
                 ) -> None:
        self._clock = clock
        self._held = lookup_cache.LookupCache(self.SIZE)

    def get(self, key: tuple, generation: int) -> Any:
        """The decision, if one made by the rules of ``generation`` and
        younger than ``LIFETIME`` is held."""
        held = self._held.get(key)
        if (held is None or held[0] != generation
                or self._clock() - held[1] >= self.LIFETIME):
            return None
        return held[2]

    def put(self, key: tuple, generation: int, decision: Any) -> None:
        """Keep ``decision``, made by the rules of ``generation``."""
        self._held.keep(key, (generation, self._clock(), decision))

    def clear(self) -> None:
        self._held.clear()


#: Where a context keeps its credentials as ``_key`` spells them.
_CREDENTIALS = '_swconfig_policy_credentials'
_scalars = operator.attrgetter(*POLICY_SCALARS)


def _hashable(value: Any) -> Any:
    return tuple(value) if isinstance(value, list) else value


def _credentials(context: RequestContext) -> tuple:
    """The values of the context's ``to_policy_values``, read from the
    context itself (that mapping is slow to build and to read), made
    once per context: a request's context is checked twice or more (its
    admin-ness, then the handler's rule), and its identity is never
    changed after it is built (from the token's headers, or by the RPC
    layer)."""
    attributes = context.__dict__
    credentials = attributes.get(_CREDENTIALS)
    if credentials is None:
        credentials = attributes[_CREDENTIALS] = (
            *_scalars(context), _hashable(context.roles),
            _hashable(context.service_roles))
    return credentials


def _key(rule: str, target: dict[str, Any],
         context: RequestContext) -> tuple:
    items = (tuple(target.items()) if len(target) < 2
             else tuple(sorted(target.items())))
    return (rule, items, _credentials(context))


class Enforcer(policy.Enforcer):
    """oslo.policy's enforcer, looking for changed policy files at most
    every ``RELOAD_INTERVAL`` seconds instead of before every check,
    counting the rule changes it loads (``generation``), and reusing its
    decisions while the rules that made them are unchanged (``Decisions``;
    the module's docstring says when a decision stops applying).

    Each look searches the configuration directories for the policy file
    and for every policy directory, a dozen ``stat`` calls when there are
    none (the default), each releasing the interpreter lock: under 8
    request threads and 100 projects, a second of those searches was
    half of the tenant metadata view's Python time.
    """

    #: Seconds between two looks for changed policy files.
    RELOAD_INTERVAL = 0.25
    #: Bumped whenever the rules may have changed: new rules set (a
    #: changed policy file, ``clear``, a test's ``set_rules``) or a look
    #: that replaced them. Decisions made before are not reused.
    generation = 0

    def __init__(self, conf: cfg.ConfigOpts,
                 clock: Callable[[], float] = time.monotonic,
                 **kwargs: Any) -> None:
        super().__init__(conf, **kwargs)
        self.clock = clock
        #: When, on ``clock``, the next look for changed files is due.
        self.look_due_at = float('-inf')
        self.decisions = Decisions(clock)
        self._decisions_lock = threading.Lock()

    def set_rules(self, rules: Any, overwrite: bool = True,
                  use_conf: bool = False) -> None:
        super().set_rules(rules, overwrite, use_conf)
        self.generation += 1

    def load_rules(self, force_reload: bool = False) -> None:
        """oslo.policy's, unless it looked less than ``RELOAD_INTERVAL``
        ago (a forced reload always runs)."""
        now = self.clock()
        if force_reload or now >= self.look_due_at:
            rules = self.rules
            super().load_rules(force_reload)
            if self.rules is not rules:  # replaced without set_rules
                self.generation += 1
            self.look_due_at = now + self.RELOAD_INTERVAL

    def clear(self) -> None:
        super().clear()
        self.look_due_at = float('-inf')
        self.decisions.clear()

    def rules_generation(self) -> int:
        """The generation of the rules, after looking for changed policy
        files if ``RELOAD_INTERVAL`` has passed: read before a decision
        is made or reused. When no look is due, two attribute reads (the
        test is made here before calling ``load_rules``, which makes it
        again for oslo.policy's own calls)."""
        if self.clock() >= self.look_due_at:
            self.load_rules()
        return self.generation

    def enforce(self, rule: Any, target: Any, creds: Any,
                do_raise: bool = False, exc: Any = None, *args: Any,
                **kwargs: Any) -> bool:
        """oslo.policy's decision, reused for a swconfig context while it
        applies. A decision that would raise is always oslo.policy's."""
        if not isinstance(creds, RequestContext) or not isinstance(rule,
                                                                   str):
            return super().enforce(rule, target, creds, do_raise, exc,
                                   *args, **kwargs)
        key = _key(rule, target, creds)
        generation = self.rules_generation()
        decision = self.decisions.get(key, generation)
        if decision or (decision is not None and not do_raise):
            return decision
        decision = super().enforce(rule, target, creds, do_raise, exc,
                                   *args, **kwargs)
        with self._decisions_lock:
            self.decisions.put(key, generation, decision)
        return decision


def get_enforcer(conf: cfg.ConfigOpts = CONF) -> Enforcer:
    """The process-wide enforcer (also the oslo.policy.enforcer entry point,
    which is why it takes no required argument)."""
    global _ENFORCER
    enforcer = _ENFORCER
    if enforcer is None:
        with _ENFORCER_LOCK:
            if _ENFORCER is None:
                # Published whole: a request thread that found it half
                # built answered 500 PolicyNotRegistered.
                built = Enforcer(conf)
                built.register_defaults(policies.list_rules())
                _ENFORCER = built
            enforcer = _ENFORCER
    return enforcer


def reset() -> None:
    global _ENFORCER
    if _ENFORCER is not None:
        _ENFORCER.clear()
    _ENFORCER = None


def authorize(rule: str, target: dict[str, Any],
              context: RequestContext) -> None:
    """Raise PolicyNotAuthorized unless ``context`` may do ``rule``."""
    (_ENFORCER or get_enforcer()).authorize(
        rule, target, context, do_raise=True,
        exc=exception.PolicyNotAuthorized, action=rule)


def check_is_admin(context: RequestContext) -> bool:
    """Whether the caller is a cloud admin (policy rule context_is_admin)."""
    return bool((_ENFORCER or get_enforcer()).enforce(
        'context_is_admin', {}, context))
