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

"""Exceptions carry their HTTP status and Heat's error.type."""

import inspect
import sys

from oslo_messaging._drivers import common as messaging_common
import pytest

from swconfig.common import exception
from swconfig.common import rpc

ALL = [cls for _, cls in inspect.getmembers(exception, inspect.isclass)
       if issubclass(cls, exception.SwconfigException)]


@pytest.mark.parametrize('cls, code, type_name', [
    (exception.SwconfigException, 500, 'SwconfigException'),
    (exception.Invalid, 400, 'Invalid'),
    (exception.InvalidParameterValue, 400, 'InvalidParameterValue'),
    (exception.MalformedRequestBody, 400, 'HTTPBadRequest'),
    (exception.RequestLimitExceeded, 400, 'RequestLimitExceeded'),
    (exception.InvalidTemplate, 400, 'InvalidTemplate'),
    (exception.Forbidden, 403, 'Forbidden'),
    (exception.PolicyNotAuthorized, 403, 'Forbidden'),
    (exception.TenantMismatch, 403, 'HTTPForbidden'),
    (exception.NotFound, 404, 'NotFound'),
    (exception.ConfigNotFound, 404, 'NotFound'),
    (exception.DeploymentNotFound, 404, 'NotFound'),
    (exception.Conflict, 409, 'Conflict'),
    (exception.ConfigInUse, 409, 'ConfigInUse'),
    (exception.ConcurrentUpdate, 409, 'ConcurrentUpdate'),
    (exception.ServiceUnavailable, 503, 'ServiceUnavailable'),
])
def test_code_and_type(cls, code, type_name):
    exc = cls()
    assert exc.code == code
    assert int(exc.code) == code
    assert exc.type_name == type_name


@pytest.mark.parametrize('cls', ALL, ids=lambda cls: cls.__name__)
def test_every_exception_has_an_http_error_code_and_a_type(cls):
    assert 400 <= cls.code <= 599
    assert cls().type_name
    assert not cls().type_name.endswith('_Remote')
    assert cls.msg_fmt


@pytest.mark.parametrize('exc, message', [
    (exception.ConfigNotFound(config_id='c1'),
     'Software config with id c1 not found'),
    (exception.ConfigNotFound(config_id=None),
     'Software config with id None not found'),
    (exception.DeploymentNotFound(deployment_id='d1'),
     'Deployment with id d1 not found'),
    (exception.PolicyNotAuthorized(action='software_configs:create'),
     'You are not authorized to use software_configs:create.'),
    (exception.TenantMismatch(), 'Access was denied to this resource.'),
    (exception.Invalid(reason='"x" is bad'),
     'Data supplied was not valid: "x" is bad'),
    (exception.InvalidParameterValue(reason='Bad value.'), 'Bad value.'),
    (exception.ConfigInUse(config_id='c1'),
     'Software config with id c1 can not be deleted as it is referenced.'),
    (exception.InvalidTemplate(reason='no resources'),
     'The template is not valid: no resources'),
])
def test_message_is_formatted_from_keywords(exc, message):
    assert exc.message == message
    assert str(exc) == message


def test_explicit_message_wins():
    exc = exception.ConfigNotFound('custom text', config_id='c1')
    assert exc.message == 'custom text'
    assert exc.kwargs == {'config_id': 'c1'}


def test_missing_keywords_fall_back_to_the_format():
    exc = exception.ConfigNotFound()
    assert exc.message == exception.ConfigNotFound.msg_fmt


@pytest.mark.parametrize('exc, expected', [
    (exception.ConfigInUse(config_id='c1'), 'ConfigInUse'),
    (exception.ConcurrentUpdate(deployment_id='d1'), 'ConcurrentUpdate'),
    (exception.InvalidParameterValue(reason='r'), 'InvalidParameterValue'),
    (exception.ConfigNotFound(config_id='c1'), 'NotFound'),
    (exception.PolicyNotAuthorized(action='a'), 'Forbidden'),
])
def test_remote_suffix_is_stripped(exc, expected):
    try:
        raise exc
    except exception.SwconfigException:
        data = messaging_common.serialize_remote_exception(sys.exc_info())
    remote = messaging_common.deserialize_remote_exception(
        data, rpc.ALLOWED_EXMODS)
    assert type(remote).__name__ == type(exc).__name__ + '_Remote'
    assert isinstance(remote, type(exc))
    assert remote.type_name == expected
    assert remote.code == exc.code
    assert remote.message == exc.message


def test_only_the_suffix_is_stripped():
    remote_cls = type('Remote_Conflict_Remote', (exception.Conflict,), {})
    assert remote_cls().type_name == 'Remote_Conflict'
