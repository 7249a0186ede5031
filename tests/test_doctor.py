"""`trn-compat doctor` as a user runs it first on a new machine: on this CPU every step runs for real and none
fails; an unwritable compile-cache folder and a compile backend that raises each fail their own step, with the fix,
the other steps still run, and the exit status is 1."""
import json

from conftest import cli

NAMES = ['platform', 'stack versions', 'neuron devices', 'cuda devices', 'compile cache', 'results folder', 'host memory',
         'check, 1 core', 'check, 2 cores', 'judge', 'hub']


def test_doctor_on_cpu_runs_every_step_and_none_fails(tmp_path):
    res = cli('doctor', '--platform', 'cpu', '--json', '--results', tmp_path/'results', '--workdir', tmp_path/'work')
    assert res.returncode == 0, res.stdout + res.stderr
    steps = {s['name']: s for s in json.loads(res.stdout)}
    assert list(steps) == NAMES and all(set(s) == {'name', 'status', 'found', 'fix'} for s in steps.values())
    assert {n: s['status'] for n, s in steps.items()} == {
        **{n: 'pass' for n in NAMES}, 'neuron devices': 'not run', 'cuda devices': 'not run', 'hub': 'warn',
        'host memory': steps['host memory']['status']}, steps   # the hub: offline here; host memory depends on the machine
    assert steps['check, 1 core']['found'].startswith('pass in ') and '(inductor, 1 core)' in steps['check, 1 core']['found']
    assert steps['check, 2 cores']['found'].startswith('pass in ') and '2 cores' in steps['check, 2 cores']['found']
    assert '9/9 control items right' in steps['judge']['found'] and 'bundled' in steps['judge']['found']
    assert 'HF_HUB_OFFLINE' in steps['hub']['found'] and steps['hub']['fix']
    assert (tmp_path/'results').is_dir() and not list((tmp_path/'results').iterdir())   # the doctor's own checks wrote elsewhere
    assert not list((tmp_path/'work').iterdir())                                          # and removed it, both having passed


def doctor_lines(tmp_path, *args, env=None):
    res = cli('doctor', '--platform', 'cpu', '--results', tmp_path/'results', '--workdir', tmp_path/'work', *args, env=env)
    assert res.returncode == 1, res.stdout + res.stderr
    assert 'Traceback' not in res.stdout + res.stderr
    lines = res.stdout.splitlines()
    return lines, lambda name: next(i for i, l in enumerate(lines) if l.startswith(name + ' '))


def test_doctor_fails_an_unwritable_compile_cache_with_its_fix(tmp_path):
    (tmp_path/'file').write_text('in the way')   # a folder under a file cannot be made, even by root
    lines, line = doctor_lines(tmp_path, env={'TORCHINDUCTOR_CACHE_DIR': str(tmp_path/'file'/'cache')})
    cache = line('compile cache')
    assert ' fail ' in lines[cache] and 'not writable' in lines[cache]
    assert 'fix: make' in lines[cache + 1] and 'TORCHINDUCTOR_CACHE_DIR' in lines[cache + 1]
    assert ' pass ' in lines[line('results folder')] and lines[line('hub')]   # the other steps still ran
    assert lines[-1] == '4 step(s) failed: compile cache, check, 1 core, check, 2 cores, judge'   # torch needs that folder too
    assert 'not tried: torch cannot work without its compile-cache folder' in lines[line('judge')]


def test_doctor_fails_a_raising_backend_and_names_the_evidence(tmp_path):
    lines, line = doctor_lines(tmp_path, '--compile-backend', 'compile_backends:raises')
    one = line('check, 1 core')
    assert ' fail ' in lines[one] and 'stage compile' in lines[one] and 'BackendCompilerFailed' in lines[one]
    kept = list((tmp_path/'work').glob('*/results-1/cpu/*/notebooks/*.ipynb'))
    assert kept and f'fix: read the evidence notebook {kept[0]}' in lines[one + 1]    # kept, and named
    assert ' pass ' in lines[line('judge')] and ' pass ' in lines[line('compile cache')]   # the other steps still ran
    assert lines[-1] == '2 step(s) failed: check, 1 core, check, 2 cores'
