"""A Hub model id end to end, against a fake Hub on 127.0.0.1 (tests/hubserver.py): a check at main and at a tag, a gated repo,
a missing repo, the plan's count from the safetensors headers, then the store published and read back by the Space app."""
import json
import os
import re
import struct
import subprocess
import sys
from math import prod

import pytest

from conftest import ROOT, cli, rows
from hubserver import FakeHub


MAIN, V1, GATED = 'a1' * 20, 'b2' * 20, 'c3' * 20
CHECK = ('--platform', 'cpu', '--compile-backend', 'aot_eager', '--dtype', 'float32')


@pytest.fixture(scope='module')
def hub(models):
    "The fake Hub: org/tiny-llama at main and at the tag v1 (the same files, two commits); org/gated, gated."
    hub = FakeHub()
    hub.add_model('org/tiny-llama', models('llama'), revisions={'main': MAIN, 'v1': V1})
    hub.add_model('org/gated', models('llama'), revisions={'main': GATED}, gated=True)
    yield hub
    hub.close()


def online(hub, tmp, **more) -> dict:
    "The environment of a command that uses the fake Hub, its caches under `tmp`."
    return {'HF_HUB_OFFLINE': '0', 'TRANSFORMERS_OFFLINE': '0', 'HF_ENDPOINT': hub.url, 'HF_HOME': str(tmp/'hf'),
            'HF_TOKEN': 'hf_fake', 'TRN_COMPAT_CACHE': str(tmp/'cache'), **more}


@pytest.fixture(scope='module')
def checked(hub, tmp_path_factory):
    "`check org/tiny-llama`: the store, the environment it ran in, the command's result."
    tmp = tmp_path_factory.mktemp('hub-check')
    env, store = online(hub, tmp), tmp/'results'
    return store, env, cli('check', 'org/tiny-llama', '--results', store, *CHECK, env=env)


@pytest.fixture(scope='module')
def published(hub, checked):
    "`publish org/results` of the checked store: the command's result and the commit the Hub received."
    store, env, _ = checked
    res = cli('publish', 'org/results', '--results', store, env=env)
    return res, [c for c in hub.commits if c['repo'] == 'org/results']


def safetensors_params(path) -> int:
    "Parameters in a safetensors file, from its header."
    with open(path, 'rb') as f:
        header = json.loads(f.read(struct.unpack('<Q', f.read(8))[0]))
    return sum(prod(t['shape']) for k, t in header.items() if k != '__metadata__')


def test_check_of_a_hub_id_records_the_commit_it_ran(hub, checked):
    store, _, res = checked
    assert res.returncode == 0, res.stdout + res.stderr
    [row] = rows(store)
    assert (row['model_id'], row['status'], row['revision']) == ('org/tiny-llama', 'pass', MAIN), row
    assert (store/row['notebook']).is_file()
    got = {p.rsplit('/', 1)[1] for m, p in hub.requests('GET', '/org/tiny-llama/resolve/')}
    assert {'config.json', 'model.safetensors', 'tokenizer.json'} <= got, got     # the checkpoint came from the Hub


def test_check_at_a_tag_records_the_tags_commit(hub, tmp_path):
    # planned onto cores too small to hold it, the check ends at its plan, which has recorded the revision (no load, no compile)
    store = tmp_path/'results'
    res = cli('check', 'org/tiny-llama', '--revision', 'v1', '--core-memory-gib', '1e-6', '--results', store, *CHECK,
              env=online(hub, tmp_path))
    assert res.returncode == 0, res.stdout + res.stderr
    [row] = rows(store)
    assert (row['status'], row['reason'], row['revision']) == ('skip', 'too-large', V1), row   # v1's commit, not main's
    assert hub.requests('HEAD', '/org/tiny-llama/resolve/v1/config.json')


def test_gated_and_missing_repos(hub, tmp_path):
    env, store = online(hub, tmp_path), tmp_path/'results'
    res = cli('check', 'org/gated', '--results', store, *CHECK, env=env)
    assert res.returncode == 0, res.stdout + res.stderr
    [row] = rows(store)
    assert (row['status'], row['reason']) == ('skip', 'gated'), row
    assert hub.requests('HEAD', '/org/gated/resolve/main/config.json')            # asked, and told it is gated
    assert not [p for m, p in hub.requests(contains='/org/gated/') if 'safetensors' in p]   # no weights were asked for

    res = cli('check', 'org/nope', '--results', store, *CHECK, env=env)
    assert res.returncode == 2, res.stdout + res.stderr
    [row] = [r for r in rows(store) if r['model_id'] == 'org/nope']
    assert (row['status'], row['stage'], row['error']['type']) == ('error', 'plan', 'ModelNotFound'), row


def test_plan_counts_parameters_from_the_hub_safetensors(hub, tmp_path, models):
    res = cli('plan', 'org/tiny-llama', '--json', '--platform', 'cpu', env=online(hub, tmp_path))
    assert res.returncode == 0, res.stdout + res.stderr
    plan = json.loads(res.stdout)
    assert plan['count_source'] == 'hub-safetensors', plan
    assert plan['params'] == safetensors_params(models('llama')/'model.safetensors')
    assert [r for r in hub.log if r[1].endswith('/model.safetensors') and r[2]]   # a Range request read the header alone


def test_publish_is_one_commit_of_the_store(checked, published):
    store, _, _ = checked
    res, commits = published
    assert res.returncode == 0, res.stdout + res.stderr
    [commit] = commits
    [row] = rows(store)
    assert {p for p in commit['files'] if p.endswith('.parquet')} == {p.relative_to(store).as_posix() for p in store.rglob('*.parquet')}
    assert row['notebook'] in commit['files'] and 'README.md' in commit['files']
    assert commit['files'][row['notebook']] == (store/row['notebook']).read_bytes()


def test_the_space_shows_the_published_dataset(hub, checked, published):
    _, env, _ = checked
    assert published[0].returncode == 0
    page = ("import runpy; from starlette.testclient import TestClient\n"
            "r = TestClient(runpy.run_path('app.py')['app']).get('/?view=tested'); print(r.status_code); print(r.text)")
    res = subprocess.run([sys.executable, '-c', page], cwd=ROOT, capture_output=True, text=True, timeout=300,
                         env={**os.environ, **env, 'TRN_COMPAT_DATASET': 'org/results'})
    assert res.returncode == 0, res.stderr
    assert hub.requests('GET', '/datasets/org/results/resolve/')                  # read back from the Hub
    status, html = res.stdout.split('\n', 1)
    refused = re.findall(r'<p class="caveat refused">(.*?)</p>', html)
    assert status == '200' and '>org/tiny-llama</a>' in html and not refused, refused or html[-2000:]
