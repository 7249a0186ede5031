"""The README's main command: `trn-compat demo` leaves executed notebooks and four pass rows, under portable ids, with no folder
of this machine in them, so that `publish` sends them."""
import json

import duckdb
import nbformat
import pandas as pd
import pyarrow.parquet as pq

from conftest import cli, rows
from trn_compat.publish import machine_path_leaks


def test_demo_four_passes_with_evidence(tmp_path):
    res = cli('demo', '--results', tmp_path/'results', '--models', tmp_path/'models')
    assert res.returncode == 0, res.stdout + res.stderr
    files = sorted((tmp_path/'results'/'cpu').glob('*.parquet'))
    assert len(files) == 1 and files[0].name.startswith('torch-') and '__transformers-5.24.0' in files[0].name
    table = pq.read_table(files[0]).to_pylist()
    assert sorted(r['architecture'] for r in table) == ['LlamaForCausalLM', 'LlavaForConditionalGeneration',
                                                        'Qwen3ForCausalLM', 'Qwen3MoeForCausalLM']
    for r in table:
        assert r['status'] == 'pass', (r['model_id'], r['match'], r['stage'], r['error'])
        assert r['criterion'] == 'cpu-match' and r['compile_backend'] == 'inductor' and r['graphs_compiled'] >= 1
        assert len(r['generated_ids']) == 32 and r['compile_cache'] in ('cold', 'warm')
        assert r['wall_time_s'] >= r['load_time_s'] and r['peak_device_memory_bytes'] is None and r['peak_host_rss_bytes'] > 0   # CPU: no device memory
        assert dict(r['versions'])['transformers'] == '5.24.0' and dict(r['versions'])['torch-neuronx'] is None
        assert any(p.startswith('torch==') for p in r['packages'])
        nb = nbformat.read(tmp_path/'results'/r['notebook'], as_version=4)
        out = '\n'.join(str(o.get('text', '')) + json.dumps(o.get('data', {})) for c in nb.cells for o in c.get('outputs', []))
        assert 'Verdict: pass' in out and 'transformers' in out and r['run_id'] in out
    assert len(pd.read_parquet(files[0])) == 4
    assert duckdb.sql(f"select count(*) from '{files[0]}' where status = 'pass'").fetchall()[0][0] == 4
    assert 'llava' in res.stdout and 'notebook' in res.stdout  # the summary table
    assert not list((tmp_path/'results').rglob('.*'))           # no partial notebook or temporary file left
    # portable ids: a tiny checkpoint is named by its recipe, not by the folder it was built in
    assert sorted(r['model_id'] for r in table) == [f'trn-compat/tiny-{a}' for a in ('llama', 'llava', 'qwen3', 'qwen3_moe')]
    # no row field and no notebook holds the home, the temp folder (the store and the models are in it) or the venv ...
    assert machine_path_leaks(tmp_path/'results') == []
    # ... so publish sends them; a notebook that holds one is refused, naming the file and the folder
    res = cli('publish', tmp_path/'published', '--results', tmp_path/'results')
    assert res.returncode == 0 and (tmp_path/'published'/table[0]['notebook']).exists(), res.stdout + res.stderr
    nb = tmp_path/'results'/table[0]['notebook']
    nb.write_text(nb.read_text().replace('Verdict: pass', f'Verdict: pass ({tmp_path}/models)', 1))
    res = cli('publish', tmp_path/'published2', '--results', tmp_path/'results')
    assert res.returncode == 2 and f'{table[0]["notebook"]} (notebook): ' in res.stderr, res.stdout + res.stderr
    assert not (tmp_path/'published2').exists()
