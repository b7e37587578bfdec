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

"""``swconfig config create|list|show|delete``."""

import argparse
import difflib
import json
import logging
from typing import Any

from cliff import command
from cliff import lister
from cliff import show
import yaml

from swconfig.cli import views
from swconfig.client import rest as api_client

LOG = logging.getLogger(__name__)

#: The groups whose hook takes the config as an object (what
#: OS::Heat::StructuredConfig and OS::Heat::SoftwareComponent store): a
#: config file that is a YAML or JSON mapping (or list) is sent as one.
#: Other groups' hooks (script, ansible, puppet, salt...) write the
#: config to a file as text.
STRUCTURED_GROUPS = ('component', 'apply-config', 'cfn-init', 'docker-cmd',
                     'docker-compose', 'hiera', 'json-file', 'kubelet')
#: The hooks heat-agents ships (and the groups its 55-heat-config runs
#: without one): another group runs only where someone installed a hook
#: of that name, so ``config create`` warns that it may be a typo.
SHIPPED_GROUPS = ('Heat::Ungrouped', 'ansible', 'apply-config', 'cfn-init',
                  'chef', 'component', 'docker-cmd', 'docker-compose',
                  'hiera', 'json-file', 'kubelet', 'puppet', 'salt',
                  'script')
#: ``--config-format``: how to read the config file, whatever the group
#: (``--format``/``-f`` is the output format of every cliff command).
FORMATS = ('json', 'yaml', 'text')
DEFINITION_KEYS = ('inputs', 'outputs', 'options')


def _read(path: str) -> str:
    """The file's text; configs are JSON strings, so it must be UTF-8
    (whatever the locale says)."""
    try:
        with open(path, encoding='utf-8') as handle:
            return handle.read()
    except OSError as error:
        raise api_client.SwconfigError(
            f'Cannot read {path}: {error.strerror}') from error
    except UnicodeDecodeError as error:
        raise api_client.SwconfigError(
            f'{path} is not UTF-8 text (line {_first_bad_line(path)} is '
            f'not valid UTF-8); save it as UTF-8.') from error


def _first_bad_line(path: str) -> int:
    """The number of the first line that is not UTF-8 (the decoder's
    error counts from the start of its buffer, not of the file)."""
    with open(path, 'rb') as handle:
        for number, line in enumerate(handle, 1):
            try:
                line.decode('utf-8')
            except UnicodeDecodeError:
                return number
    return 1  # the file changed since: no better guess


def _load_yaml(path: str) -> Any:
    try:
        return yaml.safe_load(_read(path))
    except yaml.YAMLError as error:
        raise api_client.SwconfigError(
            f'{path} is not valid YAML or JSON: {error}') from error


def _load_json(path: str) -> Any:
    try:
        return json.loads(_read(path))
    except ValueError as error:
        raise api_client.SwconfigError(
            f'{path} is not valid JSON: {error}') from error


def config_from_file(path: str, group: str, file_format: str | None
                     ) -> Any:
    """The config as the API takes it: the file's text, or the object a
    YAML/JSON file holds for a structured group (or when ``--format``
    says json or yaml). A structured group's file that is not a mapping
    or list (a script, say) stays text, as Heat would store it.
    ``file_format`` is ``--config-format``."""
    if file_format == 'text':
        return _read(path)
    if file_format == 'json':
        return _load_json(path)
    if file_format == 'yaml':
        return _load_yaml(path)
    if group not in STRUCTURED_GROUPS:
        return _read(path)
    text = _read(path)
    try:
        document = yaml.safe_load(text)
    except yaml.YAMLError as error:
        if group == 'component':
            raise api_client.SwconfigError(
                f'{path} is not valid YAML or JSON: {error}') from error
        return text
    return document if isinstance(document, (dict, list)) else text


def _definition(path: str | None) -> dict:
    """The inputs, outputs and options of a definition file (the same file
    ``openstack software config create --definition-file`` takes)."""
    if path is None:
        return {}
    document = _load_yaml(path) or {}
    if not isinstance(document, dict) or set(document) - set(
            DEFINITION_KEYS):
        raise api_client.SwconfigError(
            f'{path} must be a mapping with only the keys '
            f'{", ".join(DEFINITION_KEYS)}')
    return document


def _warn_of_unknown_group(group: str) -> None:
    if group in SHIPPED_GROUPS:
        return
    close = difflib.get_close_matches(group, SHIPPED_GROUPS, n=1)
    LOG.warning('Group %s is not a hook heat-agents ships%s: an agent runs '
                'its deployments only if the server has a hook of that '
                'name installed; elsewhere they wait until they time out.',
                group, f' (did you mean {close[0]}?)' if close else '')


def _input(text: str) -> dict:
    """``NAME`` or ``NAME=DEFAULT`` -> an input declaration."""
    name, has_default, default = text.partition('=')
    if not name:
        raise argparse.ArgumentTypeError(f'{text!r}: NAME[=DEFAULT] needs '
                                         'a name')
    return {'name': name, 'default': default} if has_default else {
        'name': name}


class CreateConfig(show.ShowOne):
    """Create a software config (configs are immutable: a change is a new
    config)."""

    def get_parser(self, prog_name: str) -> argparse.ArgumentParser:
        parser = super().get_parser(prog_name)
        parser.add_argument('name', metavar='NAME', help='Name of the config')
        parser.add_argument(
            '--group', required=True,
            help='The hook that runs it on the server: script, ansible, '
                 'puppet, component, ... (a group that is not one of '
                 "heat-agents' hooks is taken, with a warning)")
        parser.add_argument(
            '--config-file', required=True, metavar='FILE',
            help='The config: the script (or playbook, manifest) as text; '
                 'for the structured groups '
                 f'({", ".join(STRUCTURED_GROUPS)}) a YAML or JSON '
                 'mapping is stored as an object (for component: '
                 '{"configs": [{"actions": [...], "config": ..., '
                 '"tool": ...}]})')
        parser.add_argument(
            '--config-format', dest='file_format', choices=FORMATS,
            help='Read --config-file as JSON or YAML (stored as an object '
                 'whatever the group) or as text (stored as a string); '
                 'default: by the group, as above')
        parser.add_argument(
            '--definition-file', metavar='FILE',
            help='YAML with the inputs, outputs and options of the config')
        parser.add_argument(
            '--input', dest='inputs', metavar='NAME[=DEFAULT]',
            action='append', type=_input, default=[],
            help='Declare an input (a String), with an optional default; '
                 'repeat for more')
        parser.add_argument(
            '--output', dest='outputs', metavar='NAME', action='append',
            default=[], help='Declare an output; repeat for more')
        return parser

    def take_action(self, parsed_args: argparse.Namespace) -> tuple:
        body: dict[str, Any] = {'inputs': [], 'outputs': [], 'options': {}}
        body.update(_definition(parsed_args.definition_file))
        config = config_from_file(parsed_args.config_file,
                                  parsed_args.group, parsed_args.file_format)
        body.update(name=parsed_args.name, group=parsed_args.group,
                    config=config)
        body['inputs'] = list(body['inputs'] or []) + parsed_args.inputs
        body['outputs'] = list(body['outputs'] or []) + [
            {'name': name} for name in parsed_args.outputs]
        created = self.app.client.config_create(body)
        _warn_of_unknown_group(parsed_args.group)
        return views.one(created, views.CONFIG)


class ListConfigs(lister.Lister):
    """List the project's software configs, newest first: those people
    created, without the ones the service derived for deployments unless
    asked."""

    def get_parser(self, prog_name: str) -> argparse.ArgumentParser:
        parser = super().get_parser(prog_name)
        parser.add_argument(
            '--all', action='store_true',
            help='Also list the configs the service derived for '
                 'deployments (what their agents run; deployment show '
                 'names them as config_id)')
        return parser

    def take_action(self, parsed_args: argparse.Namespace) -> tuple:
        derived = None if parsed_args.all else False
        return views.many(self.app.client.config_list(derived=derived),
                          views.CONFIG_LIST)


class ShowConfig(show.ShowOne):
    """Show a software config."""

    def get_parser(self, prog_name: str) -> argparse.ArgumentParser:
        parser = super().get_parser(prog_name)
        parser.add_argument('config_id', metavar='ID', help='The config')
        parser.add_argument(
            '--config-only', action='store_true',
            help='Print only the config itself (a script as it is, a '
                 'structured config as JSON)')
        return parser

    def run(self, parsed_args: argparse.Namespace) -> int:
        if not parsed_args.config_only:
            return super().run(parsed_args)
        config = self.app.client.config_show(parsed_args.config_id)['config']
        text = config if isinstance(config, str) else json.dumps(
            config, indent=2, sort_keys=True)
        self.app.stdout.write(text if text.endswith('\n') else text + '\n')
        return 0

    def take_action(self, parsed_args: argparse.Namespace) -> tuple:
        return views.one(self.app.client.config_show(parsed_args.config_id),
                         views.CONFIG)


class DeleteConfigs(command.Command):
    """Delete software configs (a config a deployment uses is refused)."""

    def get_parser(self, prog_name: str) -> argparse.ArgumentParser:
        parser = super().get_parser(prog_name)
        parser.add_argument('config_ids', metavar='ID', nargs='+',
                            help='The configs to delete')
        return parser

    def take_action(self, parsed_args: argparse.Namespace) -> int:
        failed = 0
        for config_id in parsed_args.config_ids:
            try:
                self.app.client.config_delete(config_id)
            except api_client.SwconfigError as error:
                LOG.error('%s: %s', config_id, error)
                failed += 1
        return 1 if failed else 0
