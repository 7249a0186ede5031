"""`trn-compat plan` on config.json files written from published models' config values: the protocol's rule (nbs/00_protocol.ipynb)
(bf16 weights, at most 90% of a 24 GiB trn2 logical core, n in 1, 2, 4, 8, 16 dividing heads / experts)."""
import json
import shutil
from pathlib import Path

import pytest

from conftest import cli

CONFIGS = Path(__file__).parent/'configs'

CASES = [  # model, published parameter count, cores, parallelism, tp, ep, status, reason
    ('Qwen--Qwen3-0.6B', 596_049_920, 1, 'single', 1, 1, 'run', None),
    ('meta-llama--Llama-3.1-8B-Instruct', 8_030_261_248, 1, 'single', 1, 1, 'run', None),      # 14.96 GiB
    ('Qwen--Qwen3-14B', 14_768_307_200, 2, 'tp', 2, 1, 'run', None),                           # 27.5 GiB
    ('Qwen--Qwen3-32B', 32_762_123_264, 4, 'tp', 4, 1, 'run', None),                           # 61.0 GiB
    ('Qwen--Qwen3-30B-A3B', 30_532_122_624, 4, 'tp+ep', 4, 4, 'run', None),                    # MoE, 128 experts
    ('meta-llama--Llama-3.3-70B-Instruct', 70_553_706_496, 8, 'tp', 8, 1, 'run', None),        # 131.4 GiB
    ('mistralai--Mixtral-8x7B-Instruct-v0.1', 46_702_792_704, 8, 'tp+ep', 8, 8, 'run', None),  # 87.0 GiB: just over 4 cores
    ('meta-llama--Llama-3.1-405B-Instruct', 405_853_388_800, None, None, None, None, 'skip', 'too-large'),  # 756 GiB
]


def folder(tmp_path, name):
    d = tmp_path/name; d.mkdir(); shutil.copy(CONFIGS/f'{name}.json', d/'config.json'); return d


@pytest.mark.parametrize('name,params,cores,par,tp,ep,status,reason', CASES, ids=[c[0] for c in CASES])
def test_plan_published_configs(tmp_path, name, params, cores, par, tp, ep, status, reason):
    res = cli('plan', folder(tmp_path, name), '--platform', 'neuron', '--json')
    assert res.returncode == 0, res.stdout + res.stderr
    p = json.loads(res.stdout)
    assert p['params'] == params and p['weight_bytes'] == 2 * params and p['count_source'] == 'meta-device'
    assert (p['status'], p['reason'], p['cores'], p['parallelism'], p['tp_degree'], p['ep_degree']) == (status, reason, cores, par, tp, ep)
    assert p['core_memory_bytes'] == 24 * 2**30


def test_plan_dtype_and_small_cores(tmp_path, smollm2):
    p = json.loads(cli('plan', folder(tmp_path, 'meta-llama--Llama-3.1-8B-Instruct'), '--dtype', 'float32', '--json').stdout)
    assert (p['weight_bytes'], p['cores'], p['parallelism']) == (4 * 8_030_261_248, 2, 'tp')   # 29.9 GiB in fp32
    # SmolLM2-135M has 9 heads and 3 key-value heads: a core too small for it has no power-of-two plan
    p = json.loads(cli('plan', smollm2, '--platform', 'cpu', '--core-memory-gib', '0.2', '--json').stdout)
    assert (p['status'], p['reason']) == ('skip', 'no-parallel-plan')
    p = json.loads(cli('plan', smollm2, '--platform', 'cpu', '--cores', '3', '--json').stdout)
    assert (p['status'], p['cores'], p['parallelism'], p['tp_degree'], p['forced']) == ('run', 3, 'tp', 3, True)
    text = cli('plan', folder(tmp_path, 'Qwen--Qwen3-30B-A3B')).stdout
    assert '4 cores, tp+ep (tp=4, ep=4)' in text and '30,532,122,624 parameters' in text


def test_plan_bad_input(tmp_path):
    res = cli('plan', tmp_path/'nothing', '--json')
    assert res.returncode == 2 and json.loads(res.stdout)['error'].startswith('ModelNotFound')
