"""Promises of the README with no other test: `trn-compat tiny` writes a checkpoint that loads, and the same seed gives the same
weights; a checkpoint that ships its own modeling code is skipped unless --trust-remote-code, and then its code is what runs."""
import json

from conftest import cli

REMOTE_CONFIG = '''from transformers import LlamaConfig


class MyConfig(LlamaConfig):
    model_type = "my_llama"
'''
REMOTE_MODEL = '''from transformers import LlamaForCausalLM

from .configuration_my import MyConfig


class MyForCausalLM(LlamaForCausalLM):
    config_class = MyConfig
'''


def test_tiny_writes_a_checkpoint_that_loads_and_the_seed_decides_its_weights(tmp_path):
    import torch
    from safetensors.torch import load_file
    from transformers import AutoModelForCausalLM, AutoTokenizer
    for name, seed in (('a', 0), ('b', 0), ('c', 1)):
        res = cli('tiny', 'qwen3', tmp_path/name, '--seed', seed)
        assert res.returncode == 0 and str(tmp_path/name) in res.stdout, res.stdout + res.stderr
    model = AutoModelForCausalLM.from_pretrained(tmp_path/'a')
    assert model.config.model_type == 'qwen3' and model.num_parameters() < 3_000_000
    ids = AutoTokenizer.from_pretrained(tmp_path/'a')('The sea', return_tensors='pt')['input_ids']
    assert model.generate(ids, max_new_tokens=3, do_sample=False).shape[1] == ids.shape[1] + 3
    w = {n: load_file(tmp_path/n/'model.safetensors') for n in 'abc'}
    assert all(torch.equal(w['a'][k], w['b'][k]) for k in w['a'])            # same seed, same weights
    assert not all(torch.equal(w['a'][k], w['c'][k]) for k in w['a'])        # another seed, other weights
    # by its portable id, from its recipe, into the cache: where `check trn-compat/tiny-qwen3` and a row's run.py find it
    res = cli('tiny', 'trn-compat/tiny-qwen3', env={'TRN_COMPAT_CACHE': str(tmp_path/'cache')})
    assert res.returncode == 0 and res.stdout.startswith(f'trn-compat/tiny-qwen3 (seed 0): {tmp_path}/cache/tiny/qwen3'), res.stdout + res.stderr
    rebuilt = load_file(tmp_path/'cache'/'tiny'/'qwen3'/'model.safetensors')
    assert all(torch.equal(w['a'][k], rebuilt[k]) for k in w['a'])            # the same recipe, the same checkpoint


def test_remote_code_is_skipped_unless_trusted(tmp_path):
    d = tmp_path/'remote'
    assert cli('tiny', 'llama', d).returncode == 0
    config = json.loads((d/'config.json').read_text())
    config.update(model_type='my_llama', auto_map={'AutoConfig': 'configuration_my.MyConfig', 'AutoModelForCausalLM': 'modeling_my.MyForCausalLM'})
    (d/'config.json').write_text(json.dumps(config)); (d/'configuration_my.py').write_text(REMOTE_CONFIG)
    (d/'modeling_my.py').write_text(REMOTE_MODEL)
    env = {'HF_MODULES_CACHE': str(tmp_path/'modules')}   # where transformers copies remote code: this test's, not the user's
    res = cli('plan', d, '--json', env=env)
    out = json.loads(res.stdout)
    assert (out['status'], out['reason']) == ('skip', 'remote-code'), out
    ran = tmp_path/'ran'    # transformers runs a copy of the code from its modules cache: it leaves this file when it runs
    (d/'configuration_my.py').write_text(REMOTE_CONFIG + f'\nopen({str(ran)!r}, "w").write("yes")\n')
    res = cli('plan', d, '--json', env=env)
    assert json.loads(res.stdout)['reason'] == 'remote-code' and not ran.exists()   # not run
    res = cli('plan', d, '--json', '--trust-remote-code', '--platform', 'cpu', env=env)
    out = json.loads(res.stdout)
    assert res.returncode == 0 and out['status'] == 'run' and out['cores'] == 1, res.stdout + res.stderr
    assert ran.exists()                                                        # trusted: its own code read the config
