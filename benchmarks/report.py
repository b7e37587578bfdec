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

"""The results table, the targets of issues 5 and 15, and the README."""

import datetime
import os
import platform

import psutil

from benchmarks import heat
from benchmarks import phases
from benchmarks import rpc_floor

MB = 1024 * 1024
README = os.path.join(os.path.dirname(__file__), 'README.rst')
#: The label of the in-memory reference's polls (benchmarks.reference).
REFERENCE = 'reference (in-memory)'
START = '.. results-start'
END = '.. results-end'


def _mb(values: list[int]) -> str:
    return f'{max(values) / MB:.0f}' if values else '-'


def _line(cells: list[str], widths: list[int]) -> str:
    return '  '.join(str(cell).ljust(width)
                     for cell, width in zip(cells, widths, strict=True))


def _rst_table(header: list[str], lines: list[list[str]]) -> str:
    widths = [max(len(str(cell)) for cell in column)
              for column in zip(header, *lines, strict=False)]
    rule = '  '.join('=' * width for width in widths)
    out = [rule, _line(header, widths), rule]
    out += [_line(line, widths) for line in lines]
    out.append(rule)
    return '\n'.join(out)


def of_reference(rows: list[phases.Row], row: phases.Row) -> float | None:
    """A closed-loop poll's (or tenant view's) req/s as a fraction of the
    in-memory reference's under the same server, in the same run."""
    reference = _find(rows, row.setup, f'poll {REFERENCE}')
    if (reference is None
            or not row.phase.startswith(('poll ', phases.TENANT_VIEW))
            or row.extra.get('rate') or not reference.result.rate):
        return None
    return row.result.rate / reference.result.rate


#: The uWSGI setups whose in-memory reference is every figure's limit:
#: per connection and keep-alive (``stack.UWSGI_MODES``).
UWSGI_LIMITS = {'uwsgi': 'per connection', 'uwsgi-keepalive': 'keep-alive'}


def of_uwsgi_limit(rows: list[phases.Row], row: phases.Row,
                   limit: str) -> float | None:
    """A closed-loop poll's (or tenant view's) req/s as a fraction of the
    in-memory reference under uWSGI setup ``limit`` in the same run: the
    server users run the API under, so swconfig's own per-request work is
    what separates the two."""
    reference = _find(rows, limit, f'poll {REFERENCE}')
    if (reference is None
            or not row.phase.startswith(('poll ', phases.TENANT_VIEW))
            or row.extra.get('rate') or not reference.result.rate):
        return None
    return row.result.rate / reference.result.rate


def cpu_of_uwsgi_limit(rows: list[phases.Row], row: phases.Row,
                       limit: str) -> float | None:
    """The same fraction by the API process's CPU per request (the
    limit's over the row's): what the request costs the server, which
    moves much less than req/s when other work shares the machine."""
    reference = _find(rows, limit, f'poll {REFERENCE}')
    if of_uwsgi_limit(rows, row, limit) is None or not row.api_cpu_us():
        return None
    return reference.api_cpu_us() / row.api_cpu_us()


def _percent(fraction: float | None) -> str:
    return '-' if fraction is None else f'{fraction:.0%}'


def results_table(rows: list[phases.Row]) -> str:
    header = ['setup', 'phase', 'requests', 'req/s', 'of reference',
              *(f'of uWSGI limit ({mode})' for mode in UWSGI_LIMITS.values()),
              'p50 ms', 'p99 ms', 'errors', 'API CPU %', 'DB CPU %',
              'engines CPU %', 'client CPU %', 'others CPU %',
              'server CPU us/req', 'API CPU us/req']
    lines = []
    for row in rows:
        if row.phase == 'idle':
            continue
        result = row.result
        api = row.cpu_percent('api-workers') + row.cpu_percent(
            'api-master') + row.cpu_percent('swconfig-all')
        fraction = of_reference(rows, row)
        lines.append([
            row.setup, row.phase, str(result.requests),
            f'{result.rate:.0f}',
            _percent(fraction),
            *(_percent(of_uwsgi_limit(rows, row, limit))
              for limit in UWSGI_LIMITS),
            f'{result.p50_ms:.1f}',
            f'{result.p99_ms:.1f}', str(result.errors), f'{api:.0f}',
            f'{row.cpu_percent("mariadb"):.0f}',
            f'{row.cpu_percent("engines"):.0f}',
            f'{row.cpu_percent("client"):.0f}',
            f'{row.cpu_percent("other"):.0f}',
            f'{row.server_cpu_us():.0f}', f'{row.api_cpu_us():.0f}'])
    return _rst_table(header, lines)


def memory_table(rows: list[phases.Row]) -> str:
    by_setup: dict[str, dict[str, list[int]]] = {}
    for row in rows:
        roles = by_setup.setdefault(row.setup, {})
        for role, values in row.rss.items():
            roles.setdefault(role, []).extend(values)
    lines = []
    for setup, roles in by_setup.items():
        for role in ('api-workers', 'api-master', 'engines', 'swconfig-all'):
            if roles.get(role):
                lines.append([setup, role, _mb(roles[role])])
    return _rst_table(['setup', 'process', 'largest RSS MB (any one)'],
                      lines)


def _find(rows: list[phases.Row], setup: str, phase: str
          ) -> phases.Row | None:
    return next((r for r in rows if r.setup == setup and r.phase == phase),
                None)


def _against_heat(rows: list[phases.Row], create: phases.Row | None,
                  view: phases.Row | None) -> list[list[str]]:
    """swconfig against Heat 27 in the same run: creation per request
    (Heat's deployment POST of a config made beforehand), per deployment
    as Heat's clients make them (``heat.SHAPES``), the floor one RPC call
    puts under any creation, and the tenant view; server CPU per creation
    beside the rates."""
    out = []
    shapes = {shape: _find(rows, heat.Heat.name, phase)
              for shape, (phase, _per) in heat.SHAPES.items()}
    alone = shapes['deployment']
    heat_view = next((r for r in rows if r.setup == heat.Heat.name
                      and r.phase.startswith(phases.TENANT_VIEW)), None)
    for name, shape in (
            ('deployment creation >= 3 x Heat 27 (same run)', 'deployment'),
            ('creation vs Heat 27 config + deployment POST', 'config'),
            ('creation vs Heat 27 as the openstack CLI creates (config '
             'GET + POST, deployment POST)', 'client')):
        row = shapes[shape]
        per_deployment = heat.SHAPES[shape][1]
        if not (create and row and row.result.rate):
            continue
        rate = row.result.rate / per_deployment
        ratio = create.result.rate / rate
        verdict = '-'  # the target is per request
        if per_deployment == 1:
            verdict = 'met' if ratio >= 3 else 'MISSED'
        out.append([name, f'{create.result.rate:.0f}/s vs {rate:.0f}/s = '
                    f'{ratio:.2f} x; server CPU '
                    f'{create.server_cpu_us() / 1000:.1f} vs '
                    f'{row.server_cpu_us() * per_deployment / 1000:.1f} ms '
                    f'per creation', verdict])
    floor = _find(rows, rpc_floor.SETUP, rpc_floor.PHASE)
    if floor and alone and alone.result.rate:
        figures = floor.extra
        out.append([
            'one engine RPC call with nothing behind it (a creation\'s floor)',
            f'{figures["total_ms"]:.2f} ms server CPU (caller '
            f'{figures["client_ms"]:.2f} + engine {figures["server_ms"]:.2f}'
            f' + RabbitMQ {figures["broker_ms"]:.2f}), '
            f'{floor.result.rate:.0f} calls/s; 3 x Heat 27 leaves '
            f'{alone.server_cpu_us() / 3000:.2f} ms per creation', '-'])
    if view and heat_view and heat_view.result.rate:
        ratio = view.result.rate / heat_view.result.rate
        out.append(['tenant view vs Heat 27 (same run)',
                    f'{view.result.rate:.0f} vs {heat_view.result.rate:.0f}'
                    f' req/s = {ratio:.2f} x ({view.result.errors} vs '
                    f'{heat_view.result.errors} errors)', '-'])
    return out


def _uwsgi_targets(rows: list[phases.Row], labels: dict[str, str]
                   ) -> list[list[str]]:
    """Issue 25's: the agent poll and the tenant view under uWSGI, and the
    embedded default, against the limit under uWSGI in the same run."""
    out = []
    for limit, mode in UWSGI_LIMITS.items():
        reference = _find(rows, limit, f'poll {REFERENCE}')
        if reference is None:
            continue
        poll = next((r for r in rows if r.setup == limit
                     and r.phase.startswith('poll ') and r is not reference),
                    None)
        view = next((r for r in rows if r.setup == limit
                     and r.phase.startswith(phases.TENANT_VIEW)), None)
        for name, row, goal in (('poll', poll, 0.75),
                                ('tenant view', view, 0.25)):
            fraction = None if row is None else of_uwsgi_limit(
                rows, row, limit)
            if fraction is not None:
                cpu = cpu_of_uwsgi_limit(rows, row, limit)
                out.append([f'{name} >= {goal:.0%} of the uWSGI limit '
                            f'({mode}, 1 process)',
                            f'{fraction:.0%} ({row.result.rate:.0f} vs '
                            f'{reference.result.rate:.0f} req/s; by API '
                            f'CPU per request {_percent(cpu)})',
                            'met' if fraction >= goal else 'MISSED'])
    embedded = _find(rows, 'embedded', f'poll {labels["main"]}')
    for limit, mode in UWSGI_LIMITS.items():
        fraction = None if embedded is None else of_uwsgi_limit(
            rows, embedded, limit)
        if fraction is not None:
            out.append([f'embedded poll >= 40% of the uWSGI limit ({mode})',
                        f'{fraction:.0%} ({embedded.result.rate:.0f} req/s)',
                        'met' if fraction >= 0.4 else 'MISSED'])
    return out


def targets(rows: list[phases.Row], labels: dict[str, str]
            ) -> list[list[str]]:
    """Issue 5's targets against the production-like figures."""
    out = []

    def add(name: str, measured: str, ok: bool | None) -> None:
        verdict = '-' if ok is None else ('met' if ok else 'MISSED')
        out.append([name, measured, verdict])

    main = _find(rows, 'production', f'poll {labels["main"]}')
    paced = _find(rows, 'production',
                  f'poll {labels["main"]} at {labels["rate"]}/s')
    if paced:
        result = paced.result
        add(f'poll >= 2,000 req/s at 64 pollers (paced at '
            f'{labels["rate"]}/s)', f'{result.rate:.0f} req/s, '
            f'{result.errors} errors', result.rate >= 1960
            and result.errors == 0)
        add('poll p99 <= 25 ms (paced)', f'{result.p99_ms:.1f} ms',
            result.p99_ms <= 25)
    half = next((r for r in rows if r.setup == 'production'
                 and r.phase.startswith(f'poll {labels["main"]} at ')
                 and r is not paced), None)
    if half:
        add(f'poll p99, {half.phase.split(" at ")[1]} (paced)',
            f'{half.result.p99_ms:.1f} ms', None)
    if main:
        result = main.result
        add('poll capacity at 64 pollers (closed loop)',
            f'{result.rate:.0f} req/s, p99 {result.p99_ms:.1f} ms, '
            f'{result.errors} errors', None)
    for setup in ('production', 'embedded'):
        row = _find(rows, setup, f'poll {labels["main"]}')
        fraction = None if row is None else of_reference(rows, row)
        if fraction is not None:
            reference = _find(rows, setup, f'poll {REFERENCE}')
            add(f'poll >= 60% of the in-memory reference ({setup}, same '
                f'processes)', f'{fraction:.0%} ({row.result.rate:.0f} vs '
                f'{reference.result.rate:.0f} req/s)', fraction >= 0.6)
    for setup in ('production', 'embedded'):
        row = _find(rows, setup, f'{phases.TENANT_VIEW} {labels["main"]}')
        if row is None:
            continue
        fraction = of_reference(rows, row)
        if fraction is not None:
            add(f'tenant view >= 15% of the reference ({setup})',
                f'{fraction:.0%} ({row.result.rate:.0f} req/s)',
                fraction >= 0.15)
        add(f'tenant view p99 <= 50 ms ({setup})',
            f'{row.result.p99_ms:.1f} ms, {row.result.errors} errors',
            row.result.p99_ms <= 50 and row.result.errors == 0)
    out += _uwsgi_targets(rows, labels)
    small = _find(rows, 'production', f'poll {labels["small"]}')
    if main and small:
        ratio = main.server_cpu_us() / small.server_cpu_us()
        add(f'poll cost {labels["small"]} vs {labels["main"]} <= 1.5x',
            f'{small.server_cpu_us():.0f} vs {main.server_cpu_us():.0f} '
            f'us/req ({ratio:.2f}x)', max(ratio, 1 / ratio) <= 1.5)
    polled = [row for name in sorted(labels) if name.startswith('n')
              for row in [_find(rows, 'production', f'poll {labels[name]}')]
              if row is not None]
    if main and polled:
        costs = [row.server_cpu_us() for row in polled + [main]]
        ratio = max(costs) / min(costs)
        add('poll cost polling 1, 100, 10,000 and all servers <= 1.5x',
            ' / '.join(f'{cost:.0f}' for cost in costs)
            + f' us/req ({ratio:.2f}x)', ratio <= 1.5)
    for kind in ('', ' steady'):
        one = _find(rows, 'production', f'poll {labels["d1"]}{kind}')
        many = _find(rows, 'production', f'poll {labels["dmany"]}{kind}')
        if one and many:
            ratio = many.server_cpu_us() / one.server_cpu_us()
            add(f'poll cost{kind} {labels["d1"]} vs {labels["dmany"]} '
                f'<= 1.5x', f'{one.server_cpu_us():.0f} vs '
                f'{many.server_cpu_us():.0f} us/req ({ratio:.2f}x)',
                max(ratio, 1 / ratio) <= 1.5)
    burst = _find(rows, 'production', 'signal burst')
    if burst:
        result = burst.result
        add('signals accepted >= 1,000/s',
            f'{burst.extra["accepted"] / result.seconds:.0f}/s '
            f'({burst.extra["accepted"]} accepted, {result.errors} errors)',
            burst.extra['accepted'] / result.seconds >= 1000
            and result.errors == 0)
        done = burst.extra['applied'] >= burst.extra['accepted']
        add('all signals applied <= 5 s after the burst',
            f'{burst.extra["applied_after_s"]:.1f} s '
            f'({burst.extra["applied"]} applied)',
            done and burst.extra['applied_after_s'] <= 5)
    for setup in ('production', 'embedded'):
        one_by_one = next((r for r in rows if r.setup == setup and r.phase
                           .startswith('create ') and r.phase.endswith(
                               ' one by one')), None)
        listed = next((r for r in rows if r.setup == setup and r.phase
                       .startswith('create ') and r.phase.endswith(
                           ' in one list')), None)
        if one_by_one and listed and one_by_one.result.rate:
            add(f'{listed.phase} vs one POST each ({setup})',
                f'{listed.result.rate:.0f} vs '
                f'{one_by_one.result.rate:.0f} deployments/s = '
                f'{listed.result.rate / one_by_one.result.rate:.1f} x; '
                f'server CPU {listed.server_cpu_us() / 1000:.2f} vs '
                f'{one_by_one.server_cpu_us() / 1000:.2f} ms per '
                f'deployment', None)
    for row in rows:
        if row.phase.startswith('create ') and row.phase.endswith(
                ' by a rollout'):
            add(f'{row.phase} ({row.setup}): every deployment in its '
                f'document <= 10 s', f'{row.result.seconds:.1f} s '
                f'({row.result.rate:.0f} deployments/s)',
                row.result.seconds <= 10)
            add(f'{row.phase} ({row.setup}): the first in its document '
                f'<= 1 s after the request',
                f'{row.extra["first_in_document_s"]:.2f} s',
                row.extra['first_in_document_s'] <= 1)
    create = _find(rows, 'production', 'create deployments')
    if create:
        result = create.result
        add('deployment creation >= 300/s',
            f'{result.rate:.0f}/s ({result.errors} errors)',
            result.rate >= 300 and result.errors == 0)
    out += _against_heat(rows, create, _find(
        rows, 'production', f'{phases.TENANT_VIEW} {labels["main"]}'))
    rss: dict[str, list[int]] = {}
    for row in rows:
        if row.setup == 'production':
            for role, values in row.rss.items():
                rss.setdefault(role, []).extend(values)
    if rss.get('api-workers'):
        add('API worker RSS <= 150 MB', f'{_mb(rss["api-workers"])} MB',
            max(rss['api-workers']) <= 150 * MB)
    if rss.get('engines'):
        add('engine RSS <= 200 MB', f'{_mb(rss["engines"])} MB',
            max(rss['engines']) <= 200 * MB)
    return out


def render(rows: list[phases.Row], labels: dict[str, str],
           settings: str, speed: float) -> str:
    """The whole report, as reStructuredText (also printed as is);
    ``speed``: ``common.python_speed()`` before the run."""
    machine = (f'{psutil.cpu_count()} cores, '
               f'{psutil.virtual_memory().total / 2**30:.0f} GiB, '
               f'Python {platform.python_version()} (10 million additions '
               f'in {speed:.2f} s)')
    when = datetime.datetime.now(datetime.timezone.utc).strftime(
        '%Y-%m-%d %H:%M UTC')
    return '\n\n'.join([
        f'Run of {when} on {machine}; {settings}.',
        results_table(rows),
        memory_table(rows),
        _rst_table(['target (issues 5, 15 and 25)', 'measured',
                    'verdict'], targets(rows, labels)),
    ]) + '\n'


def update_readme(text: str, path: str = README) -> None:
    """Replace what stands between the results markers."""
    with open(path) as handle:
        content = handle.read()
    head, start, rest = content.partition(START)
    _, end, tail = rest.partition(END)
    if not start or not end:
        raise RuntimeError(f'{path} lacks the {START} / {END} markers')
    with open(path, 'w') as handle:
        handle.write(f'{head}{START}\n\n{text}\n{END}{tail}')
