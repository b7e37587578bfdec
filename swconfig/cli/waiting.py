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

"""``--wait``: follow a deployment until its action finishes.

The service does the waiting: ``GET .../software_deployments/{id}?wait=N``
answers as soon as the status changes (or after N seconds), so the
command holds one request open instead of polling. Progress goes to
stderr (stdout keeps only the final deployment, for ``-f json``): on a
terminal one line redrawn with a spinner, elsewhere a plain line whenever
the status or the latest event changes.

A wait outlives a restart of the service: while the service cannot be
reached (or answers 502/503/504) the calls are retried with backoff for
up to ``--retry-for`` seconds, after one line saying so.
"""

import argparse
from collections.abc import Callable
import shutil
import threading
import time
from typing import Any
from typing import TextIO

from swconfig.client import rest as api_client
from swconfig.common import states

#: Seconds each long poll may be held by the service (which answers
#: earlier on any change, a progress note included).
LONG_POLL_SECONDS = 30
#: The least time between two polls that saw no change (a service older
#: than ``?wait`` answers at once).
MIN_POLL_SECONDS = 1.0
#: On a non-terminal, a line at least this often while nothing changes.
QUIET_LINE_SECONDS = 30
SPINNER = '|/-\\'
#: Default of ``--retry-for``: seconds a wait keeps trying to reach a
#: service that went away (a restart takes a few).
RETRY_FOR_SECONDS = 60
#: The longest pause between two attempts to reach the service.
MAX_RETRY_PAUSE = 5.0
#: Answers of a service (or of the proxy in front of it) that is
#: restarting: retried like a refused connection.
_RESTARTING_STATUSES = (502, 503, 504)


def add_retry_for(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        '--retry-for', type=float, default=RETRY_FOR_SECONDS,
        metavar='SECONDS',
        help='While waiting, keep trying this long to reach a service '
             'that went away (a restart) before giving up; the action '
             f'goes on either way (default {RETRY_FOR_SECONDS})')


def line_writer(stream: TextIO) -> Callable[[str], None]:
    """What a wait says outside its progress display: a line on
    ``stream``, flushed."""
    def say(text: str) -> None:
        stream.write(text + '\n')
        stream.flush()
    return say


class Reconnecting:
    """The calls of a wait, retried while the service is away: said once
    on stderr, then quiet until it answers or ``retry_for`` seconds have
    passed; then ``SwconfigError`` naming the command that follows the
    action again (the action itself goes on in the service)."""

    def __init__(self, say: Callable[[str], None], retry_for: float,
                 follow_again: str) -> None:
        self.say = say
        self.retry_for = retry_for
        self.follow_again = follow_again

    def call(self, function: Callable[..., Any], *args: Any,
             **kwargs: Any) -> Any:
        away_since = None
        pause = 0.5
        while True:
            try:
                result = function(*args, **kwargs)
            except api_client.SwconfigError as error:
                if not (isinstance(error, api_client.Unreachable)
                        or error.status in _RESTARTING_STATUSES):
                    raise
                problem = error
            else:
                if away_since is not None:
                    self.say('swconfig answers again; still waiting.')
                return result
            now = time.monotonic()
            if away_since is None:
                away_since = now
                self.say(f'{problem} The action goes on; trying again for '
                         f'up to {self.retry_for:g} s.')
            left = away_since + self.retry_for - now
            if left <= 0:
                raise api_client.SwconfigError(
                    f'Gave up waiting after {self.retry_for:g} s without '
                    f'an answer: {problem} The action goes on: '
                    f'"{self.follow_again}" follows it again.') from problem
            time.sleep(min(pause, left))
            pause = min(pause * 2, MAX_RETRY_PAUSE)


class DeploymentGone(Exception):
    """The deployment was removed: its DELETE action finished."""

    def __init__(self, deployment_id: str) -> None:
        super().__init__(f'Deployment {deployment_id} deleted.')
        self.deployment_id = deployment_id


def describe_event(event: dict | None) -> str:
    """An event in a few words: a progress note or a status change."""
    if not event:
        return ''
    reason = event.get('reason') or ''
    if event.get('old_status') == event.get('new_status'):
        return reason
    change = f'{event.get("action") or ""} {event.get("new_status")}'.strip()
    return f'{change}: {reason}' if reason else change


class Progress:
    """What the user sees on stderr while waiting."""

    def __init__(self, stream: TextIO, deployment_id: str) -> None:
        self.stream = stream
        self.deployment_id = deployment_id
        self.tty = stream.isatty()
        self.started = time.monotonic()
        self.status = ''
        self.event = ''
        self._seen = 0
        self._last_line = 0.0
        self._lock = threading.Lock()
        self._done = threading.Event()
        self._spinner: threading.Thread | None = None
        if self.tty:
            self._spinner = threading.Thread(target=self._spin, daemon=True)
            self._spinner.start()

    def elapsed(self) -> str:
        seconds = int(time.monotonic() - self.started)
        return f'{seconds // 60}m{seconds % 60:02d}s' if seconds >= 60 \
            else f'{seconds}s'

    def _line(self) -> str:
        line = f'{self.deployment_id} {self.status} {self.elapsed()}'
        return f'{line} {self.event}' if self.event else line

    def _spin(self) -> None:
        turn = 0
        while not self._done.wait(0.1):
            # One row, or the carriage return would not go back over it.
            width = shutil.get_terminal_size().columns - 1
            with self._lock:
                line = f'{SPINNER[turn % len(SPINNER)]} {self._line()}'
                self.stream.write('\r\033[K' + line[:width])
                self.stream.flush()
            turn += 1

    def update(self, status: str, events: list[dict]) -> None:
        """The deployment's status and all its events so far: a terminal
        shows the latest; elsewhere each new event gets a line (and a
        line every QUIET_LINE_SECONDS while nothing happens)."""
        with self._lock:
            new = events[self._seen:]
            self._seen = len(events)
            self.status = status
            if events:
                self.event = describe_event(events[-1])
            if self.tty:
                return
            now = time.monotonic()
            for event in new:
                self._write(event.get('new_status') or status,
                            describe_event(event))
            if not new and now - self._last_line >= QUIET_LINE_SECONDS:
                self._write(status, self.event)

    def _write(self, status: str, text: str) -> None:
        line = f'{self.deployment_id} {status} {self.elapsed()}'
        self.stream.write((f'{line} {text}' if text else line) + '\n')
        self.stream.flush()
        self._last_line = time.monotonic()

    def note(self, text: str) -> None:
        """A line of its own (the spinner's line is redrawn after it)."""
        with self._lock:
            if self.tty:
                self.stream.write('\r\033[K')
            self.stream.write(text + '\n')
            self.stream.flush()
            self._last_line = time.monotonic()

    def finish(self, message: str) -> None:
        self._done.set()
        if self._spinner is not None:
            self._spinner.join()
        with self._lock:
            if self.tty:
                self.stream.write('\r\033[K')
            self.stream.write(message + '\n')
            self.stream.flush()


def stopped_message(deployment_id: str) -> str:
    """What Ctrl-C prints: the action goes on, and how to follow it again
    or stop it."""
    return (f'Stopped waiting; deployment {deployment_id} goes on: '
            f'swconfig deployment wait {deployment_id} follows it again, '
            f'swconfig deployment cancel {deployment_id} stops it.')


def _deleted(deployment: dict, error: api_client.SwconfigError) -> bool:
    return error.status == 404 and deployment.get('action') == \
        states.DELETE


def _events_unless_deleted(calls: Reconnecting, client: api_client.Client,
                           deployment: dict) -> list[dict]:
    try:
        return calls.call(client.deployment_events, deployment['id'])
    except api_client.SwconfigError as error:
        if _deleted(deployment, error):
            raise DeploymentGone(deployment['id']) from error
        raise


def _show_unless_deleted(calls: Reconnecting, client: api_client.Client,
                         deployment: dict) -> dict:
    """The next state of the deployment, held by the service until it
    changes (a long poll)."""
    try:
        return calls.call(client.deployment_show, deployment['id'],
                          wait=LONG_POLL_SECONDS)
    except api_client.SwconfigError as error:
        if _deleted(deployment, error):
            raise DeploymentGone(deployment['id']) from error
        raise


def wait(client: api_client.Client, deployment: dict, stream: TextIO,
         retry_for: float = RETRY_FOR_SECONDS) -> dict:
    """The deployment once its status is final, reporting as it goes.
    ``DeploymentGone`` when a DELETE action removed it."""
    progress = Progress(stream, deployment['id'])
    calls = Reconnecting(progress.note, retry_for,
                         f'swconfig deployment wait {deployment["id"]}')
    try:
        while True:
            events = _events_unless_deleted(calls, client, deployment)
            progress.update(deployment['status'] or '', events)
            if deployment['status'] in states.FINAL_STATUSES:
                break
            asked = time.monotonic()
            previous = deployment['status']
            deployment = _show_unless_deleted(calls, client, deployment)
            quick = time.monotonic() - asked
            if deployment['status'] == previous and quick < MIN_POLL_SECONDS:
                time.sleep(MIN_POLL_SECONDS - quick)
    except DeploymentGone:
        progress.finish(f'DELETE COMPLETE after {progress.elapsed()}')
        raise
    except KeyboardInterrupt:
        progress.finish(stopped_message(deployment['id']))
        raise
    except BaseException:
        progress.finish('')
        raise
    reason = deployment.get('status_reason')
    progress.finish(f'{deployment["status"]} after {progress.elapsed()}'
                    + (f': {reason}' if reason else ''))
    return deployment
