import json, time, urllib.parse
from tests.functional.api import helpers
from tests.functional.api.test_agent_path import _config, _derived, _local, _signal_url, _wait_finished, _events, _show, _metadata_url, _document

def test_probe(api, project):
    for server in (f'{project} srv', f'{project}/srv', f'{project}-ü', f'{project}%41'):
        q = urllib.parse.quote(server, safe='')
        r = api.get(helpers.url(project, 'servers', f'/{q}/agent-config'))
        print(repr(server), r.status, r.text[:300])
        if r.status == 200:
            url = r.json['os-collect-config']['request']['metadata_url']
            d = api.get(_local(url))
            print('  doc', d.status, d.text[:200])
        src = _config(api, project)
        r = api.post(helpers.url(project, 'software_deployments'), json={'config_id': src['id'], 'server_id': server, 'signal_transport': 'HEAT_SIGNAL'})
        print('  deploy', r.status, r.text[:200])
        r = api.get(helpers.url(project, 'servers', f'/{q}/agent-config'))
        print('  agent-config after', r.status)
        if r.status == 200:
            url = r.json['os-collect-config']['request']['metadata_url']
            d = api.get(_local(url))
            print('  doc', d.status, d.text[:100])
    server = f'{project}-x'
    url = _metadata_url(api, project, server)
    print('star', api.get(_local(url), headers={'If-None-Match': '*'}).status)
    src = _config(api, project)
    dep = _derived(api, project, server, src['id'])
    surl = _local(_signal_url(api, project, dep))
    print('list body', api.put(surl, data='[1,2]').status, _wait_finished(api, project, dep['id']))
    dep = _derived(api, project, server, src['id'])
    surl = _local(_signal_url(api, project, dep))
    print('nonutf8', api.put(surl, data=b'\xff\xfe').status)
    print('string', api.put(surl, data='"abc"').status, _wait_finished(api, project, dep['id']))
    dep = _derived(api, project, server, src['id'])
    surl = _local(_signal_url(api, project, dep))
    print('nul', api.put(surl, data=json.dumps({'deploy_stdout': 'a\x00b'})).status, _wait_finished(api, project, dep['id']))
    dep = _derived(api, project, server, src['id'])
    surl = _local(_signal_url(api, project, dep))
    r1 = api.put(surl, data=json.dumps({'result': 1}))
    r2 = api.put(surl, data=json.dumps({'result': 2}))
    print('double', r1.status, r2.status, _wait_finished(api, project, dep['id']))
    time.sleep(0.5)
    print([ (e['old_status'], e['new_status'], e['reason']) for e in _events(api, project, dep['id'])])
    # raw deployment then auth signal
    raw = helpers.create_deployment(api, project, server_id=server, config_id=src['id'], status='IN_PROGRESS', action='CREATE')
    r = api.post(helpers.url(project, 'software_deployments', f'/{raw["id"]}/signal'), json={'deploy_status_code': 1})
    print('raw auth signal', r.status, r.text, _wait_finished(api, project, raw['id']))
    # timeout validation
    r = api.post(helpers.url(project, 'software_deployments'), json={'config_id': src['id'], 'server_id': server, 'signal_transport': 'HEAT_SIGNAL', 'timeout': 1})
    print('timeout', r.status, r.text[:300])
    r = api.post(helpers.url(project, 'software_deployments'), json={'config_id': src['id'], 'server_id': server, 'signal_transport': 'NO_SIGNAL', 'status': 'FAILED', 'status_reason': 'x'})
    print('nosignal+status', r.status, r.text[:300])
    r = api.post(helpers.url(project, 'software_deployments'), json={'config_id': src['id'], 'server_id': server, 'signal_transport': ''})
    print('empty transport', r.status, r.text[:300])
    assert False
