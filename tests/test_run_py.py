"""The run_py of a row is the script that ran: in a fresh venv with only torch and transformers (no
trn-compat; plus accelerate for a sharded check), `python run.py` prints the row's tokens."""
import json
import os
import subprocess
import sys

from conftest import cli, rows


def test_run_py_reproduces_tokens_in_fresh_venv(models, tmp_path):
    res = cli('check', models('qwen3'), '--platform', 'cpu', '--results', tmp_path/'results')   # inductor, as by default
    assert res.returncode == 0, res.stdout + res.stderr
    (row,) = rows(tmp_path/'results')
    assert row['status'] == 'pass' and row['compile_backend'] == 'inductor'

    venv = tmp_path/'venv'
    subprocess.run([sys.executable, '-m', 'venv', str(venv)], check=True)
    py = str(venv/'bin'/'python')
    pip = subprocess.run([py, '-m', 'pip', 'install', '--quiet', 'torch==2.13.0', 'transformers==5.24.0'],
                         capture_output=True, text=True)
    assert pip.returncode == 0, pip.stdout + pip.stderr
    env = {k: v for k, v in os.environ.items() if k not in ('PYTHONPATH', 'VIRTUAL_ENV')}
    no_pkg = subprocess.run([py, '-c', 'import trn_compat'], capture_output=True, text=True, env=env, cwd=tmp_path)
    assert no_pkg.returncode != 0 and 'No module named' in no_pkg.stderr   # really without trn-compat

    # a folder's run.py names the model by the row's id (the folder's name) and takes the folder as --model, as its header says
    (tmp_path/'run.py').write_text(row['run_py'])
    folder = ['--model', str(models('qwen3'))]
    assert row['model_id'] == 'qwen3' and str(models('qwen3')) not in row['run_py'] and 'pass --model FOLDER' in row['run_py']
    run = subprocess.run([py, 'run.py', *folder], capture_output=True, text=True, env=env, cwd=tmp_path, timeout=900)
    assert run.returncode == 0, run.stdout + run.stderr
    tokens = [l for l in run.stdout.splitlines() if l.startswith('tokens: ')]
    assert json.loads(tokens[0].removeprefix('tokens: ')) == row['generated_ids']
    ref = subprocess.run([py, 'run.py', *folder, '--reference'], capture_output=True, text=True, env=env, cwd=tmp_path, timeout=900)
    assert ref.returncode == 0 and f'tokens: {json.dumps(row["reference_ids"])}' in ref.stdout

    # a sharded check's run_py spawns its own two workers, in the same trn-compat-free venv; transformers
    # needs accelerate to load a model with a tensor plan, and says so
    pip = subprocess.run([py, '-m', 'pip', 'install', '--quiet', 'accelerate'], capture_output=True, text=True)
    assert pip.returncode == 0, pip.stdout + pip.stderr
    res = cli('check', models('qwen3'), '--platform', 'cpu', '--cores', '2', '--compile-backend', 'aot_eager',
              '--results', tmp_path/'sharded')
    assert res.returncode == 0, res.stdout + res.stderr
    (row,) = rows(tmp_path/'sharded')
    assert (row['status'], row['parallelism']) == ('pass', 'tp')
    (tmp_path/'run_tp.py').write_text(row['run_py'])
    run = subprocess.run([py, 'run_tp.py', *folder], capture_output=True, text=True, env=env, cwd=tmp_path, timeout=900)
    assert run.returncode == 0, run.stdout + run.stderr
    assert '[trn-compat] stage spawn' in run.stdout and '[trn-compat] stage shard' in run.stdout
    assert f'tokens: {json.dumps(row["generated_ids"])}' in run.stdout
