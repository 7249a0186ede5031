"""Triage on rows of real failing checks: several architectures checked with a compile backend that raises form one group,
a backend that corrupts the logits another; a rule of a known-issues file names the first group in `triage`, `lookup` and
the explorer."""
import json

from starlette.testclient import TestClient

from conftest import cli, rows
from trn_compat.explorer import create_app

RULES = '''[[rule]]
id = "test-raising-backend"
title = "the test suite's backend refuses to compile"
explanation = "compile_backends:raises raises in every compilation."
kind = "BackendCompilerFailed"
message = "this backend refuses to compile"
'''


def test_failures_of_real_checks_group_by_cause(tmp_path, models, monkeypatch):
    raising, corrupting = ['llama', 'qwen3', 'mistral'], ['qwen2', 'phi3']
    store = tmp_path/'results'
    for backend, archs in (('compile_backends:raises', raising), ('compile_backends:corrupt_logits', corrupting)):
        listing = tmp_path/f'{backend.split(":")[1]}.txt'
        listing.write_text(''.join(f'{models(a)}\n' for a in archs))
        res = cli('sweep', '--models-file', listing, '--platform', 'cpu', '--results', store, '--no-progress', '--jobs', '2',
                  '--compile-backend', backend, '--dtype', 'float32')
        assert res.returncode == 1, res.stdout + res.stderr
    got = {r['model_id']: r for r in rows(store)}
    assert {(r['status'], r['stage']) for r in got.values()} == {('error', 'compile'), ('fail', None)}, got

    (tmp_path/'rules.toml').write_text(RULES)
    env = {'TRN_COMPAT_KNOWN_ISSUES': str(tmp_path/'rules.toml')}
    res = cli('triage', '--results', store, '--json', env=env)
    assert res.returncode == 0, res.stderr
    groups = json.loads(res.stdout)['groups']
    by_models = {frozenset(g['models']): g for g in groups}
    assert set(by_models) == {frozenset(raising), frozenset(corrupting)}, groups     # each folder by its name
    first = by_models[frozenset(raising)]
    assert (first['count'], first['signature']['stage'], first['known']['id'], first['state']) == (3, 'compile', 'test-raising-backend', 'new')
    assert first['signature']['frame'].startswith('torch/'), first['signature']   # raised inside torch, not in the test's backend file
    second = by_models[frozenset(corrupting)]
    assert (second['signature']['kind'], second['known']) == ('mismatch at the first decode step', None)
    assert groups[0] is first                                                      # the largest first

    text = cli('triage', '--results', store, env=env)
    assert "known: the test suite's backend refuses to compile" in text.stdout and '[new] 3 model(s)' in text.stdout, text.stdout
    repro = cli('triage', '--results', store, '--repro', first['key'], env=env)
    assert repro.returncode == 0 and repro.stdout == got[first['repro_model']]['run_py'] + '\n'
    assert cli('triage', '--results', store, '--repro', 'nope', env=env).returncode == 1

    look = cli('lookup', 'llama', '--results', store, env=env)
    assert "known: the test suite's backend refuses to compile" in look.stdout, look.stdout

    monkeypatch.setenv('TRN_COMPAT_KNOWN_ISSUES', str(tmp_path/'rules.toml'))    # undone after the test
    client = TestClient(create_app(store))
    index = client.get('/').text
    link = index.split('id="failures-link" href="')[1].split('"')[0].replace('&amp;', '&')
    page = client.get(link).text
    assert page.count('<details class="group"') == 2 and "known: the test suite&#39;s backend refuses to compile" in page, page[:3000]
    assert all(f'>{a}</a>' in page for a in raising + corrupting)
    row = got['llama']
    detail = client.get('/model', params=dict(platform='cpu', compiler=row['versions']['torch'], transformers=row['versions']['transformers'],
                                              model=row['model_id'], task='text-generation')).text
    assert "the test suite&#39;s backend refuses to compile" in detail
