"""Bad input: a clear one-line message, an exit status and a row that says which it was, and the
rows already in the store are kept."""
import json

import pytest

from conftest import cli, rows
from trn_compat.protocol import portable_id



@pytest.fixture(scope='module')
def store(models, tmp_path_factory):
    "A result store that already holds one good row, so we can see it survive."
    results = tmp_path_factory.mktemp('results')
    res = cli('check', models('qwen3'), '--platform', 'cpu', '--compile-backend', 'aot_eager', '--results', results)
    assert res.returncode == 0, res.stdout + res.stderr
    return results


def bad(tmp_path, kind, models):
    if kind == 'missing': return tmp_path/'no-such-folder'
    if kind == 'unknown-id': return 'no-such-org/no-such-model'
    d = tmp_path/kind; d.mkdir()
    if kind == 'corrupt': (d/'config.json').write_text('{"model_type": "llama", "hidden_size": ')
    if kind == 'remote-code':
        (d/'config.json').write_text(json.dumps({'model_type': 'my_arch', 'architectures': ['MyModel'],
                                                 'auto_map': {'AutoModelForCausalLM': 'modeling_my.MyModel'}}))
    return d


CASES = [  # kind, task, exit code, status, stage, reason, error type, words of the message
    ('missing', 'text-generation', 2, 'error', 'plan', 'bad-input', 'ModelNotFound', 'no folder'),
    ('unknown-id', 'text-generation', 2, 'error', 'plan', 'bad-input', 'ModelUnavailable', 'not in the local Hub cache'),
    ('no-config', 'text-generation', 2, 'error', 'plan', 'bad-input', 'InvalidCheckpoint', 'has no config.json'),
    ('corrupt', 'text-generation', 2, 'error', 'plan', 'bad-input', 'InvalidCheckpoint', 'not valid JSON'),
    ('remote-code', 'text-generation', 0, 'skip', None, 'remote-code', 'SkipCheck', '--trust-remote-code'),
    ('wrong-task', 'image-text-to-text', 0, 'skip', None, 'unsupported-task', 'SkipCheck', 'cannot load for image-text-to-text'),
]


@pytest.mark.parametrize('kind,task,code,status,stage,reason,etype,words', CASES, ids=[c[0] for c in CASES])
def test_bad_input(store, models, tmp_path, kind, task, code, status, stage, reason, etype, words):
    model = models('llama') if kind == 'wrong-task' else bad(tmp_path, kind, models)
    before = {(r['model_id'], r['status']) for r in rows(store)}
    res = cli('check', model, '--platform', 'cpu', '--task', task, '--results', store)
    assert res.returncode == code, res.stdout + res.stderr
    name = portable_id(str(model))                                     # a folder's row is recorded under its name
    line = [l for l in res.stdout.splitlines() if l.startswith(name)]
    assert len(line) == 1 and words in line[0], res.stdout
    after = rows(store)
    assert before <= {(r['model_id'], r['status']) for r in after}   # nothing lost
    (row,) = [r for r in after if r['model_id'] == name and r['task'] == task]
    assert (row['status'], row['stage'], row['reason'], row['error']['type']) == (status, stage, reason, etype)
    assert row['notebook'] and (store/row['notebook']).exists()
