"""Sweeps as a user runs them: the architectures view on CPU, faults in single checks, a killed sweep resumed."""
import os
import signal
import subprocess
import time
from pathlib import Path

import nbformat
import psutil

from conftest import BIN, ROOT, arch_of, cli, ours, rows
from trn_compat.runner import RUN_ENV
from trn_compat.sweep import run_sweep
from trn_compat.views import ViewEntry, architectures

FAST = ['--compile-backend', 'aot_eager', '--jobs', '2']


def leftovers():
    "Processes of a check run of this test session still alive."
    found = []
    for p in psutil.process_iter():
        try:
            if ours(p) and RUN_ENV in p.environ() and p.status() != psutil.STATUS_ZOMBIE: found.append(p.cmdline())
        except psutil.Error: pass
    return found


def notebooks(results):
    return sorted(p for p in Path(results).glob('cpu/*/notebooks/*.ipynb') if not p.name.startswith('.'))


def by_arch(results):
    return {arch_of(r): r for r in rows(results)}


def test_faults_become_error_rows_and_the_sweep_goes_on(tmp_path):
    faults = {'llama': 'load:abort', 'qwen3': 'generate:hang', 'qwen3_moe': 'compile:raise', 'mixtral': 'load:oom',
              'gemma2': 'kernel-load:kill', 'phi3': 'runner:kill', 'qwen2': 'kernel-build:raise'}
    env = {'TRN_COMPAT_FAILPOINT': ','.join(f'{m}@{f}' for m, f in faults.items())}
    # the hang meets a 120 s step limit; it sleeps in one of the two slots while the other seven run in the other, so the limit
    # costs little time, and is generous for the check that must pass (a CI machine once took over 30 s for one step)
    res = cli('sweep', '--view', 'architectures', '--limit', '8', '--results', tmp_path, '--timeout', '120', *FAST, env=env)
    assert res.returncode == 1, res.stdout + res.stderr
    got = by_arch(tmp_path)
    assert len(got) == 8 and len(notebooks(tmp_path)) == 8, res.stdout
    seen = {a: (r['status'], r['stage'], r['error']['type'] if r['error'] else None) for a, r in got.items()}
    assert seen == {
        'llama': ('error', 'killed', 'CheckKilled'),          # run.py aborted (SIGABRT)
        'qwen3': ('error', 'timeout', 'CheckTimeout'),        # run.py hung past --timeout
        'qwen3_moe': ('error', 'compile', 'RuntimeError'),    # raised in compile
        'mixtral': ('error', 'load', 'MemoryError'),          # ran out of memory while loading
        'gemma2': ('error', 'killed', 'CheckKilled'),         # the notebook kernel died
        'phi3': ('error', 'killed', 'CheckKilled'),           # the check process itself died: the sweep wrote the row
        'qwen2': ('error', 'build', 'RuntimeError'),         # building its tiny checkpoint raised
        'mistral': ('pass', None, None)}, seen
    assert 'SIGABRT' in got['llama']['error']['message'] and "stage 'load'" in got['llama']['error']['message']
    assert 'without writing a row' in got['phi3']['error']['message']
    assert leftovers() == []
    assert 'failpoint: kernel-build raises' in got['qwen2']['error']['traceback']
    # --retry-failed re-checks exactly the seven errors; without faults they pass
    res = cli('sweep', '--view', 'architectures', '--limit', '8', '--results', tmp_path, '--retry-failed', *FAST)
    assert res.returncode == 0, res.stdout + res.stderr
    assert '7 checked (7 pass); 1 already had a row' in res.stdout, res.stdout
    assert len(rows(tmp_path)) == 8 and all(r['status'] == 'pass' for r in rows(tmp_path))


def test_sweep_deadline_and_faults_before_the_check(tmp_path, monkeypatch, models):
    # a kernel that hangs outside any script step is stopped by the sweep's own deadline (2 * timeout + grace); a config
    # that cannot be read and a planning crash in the sweep itself do not stop it either. Only the hang meets a short
    # limit: its sweep has a 60 s step limit (a 120 s deadline) and holds nothing else that runs a step; the check that must
    # pass runs in a sweep with a generous one (a loaded CI machine once took over 30 s for one step of a tiny model). The
    # deadline must leave the kernel time to plan before it hangs: with 40 s, two suites at once on 2 cores hung it unplanned
    monkeypatch.setenv('TRN_COMPAT_FAILPOINT', 'llama@kernel-load:hang,mistral@sweep-plan:raise')
    broken = tmp_path/'models'/'broken'
    broken.mkdir(parents=True); (broken/'config.json').write_text('{"model_type": "llama", ')
    hung = [e for e in architectures() if e.tiny == 'llama'] + [ViewEntry(str(broken), 'text-generation')]
    report = run_sweep(hung, tmp_path/'r', jobs=2, timeout_s=60, grace_s=0, progress=False, compile_backend='aot_eager')
    got = {arch_of(r): r for r in report.rows}
    assert (got['llama']['status'], got['llama']['stage'], got['llama']['error']['type']) == ('error', 'timeout', 'CheckTimeout')
    assert 'deadline of 120 s' in got['llama']['error']['message'], got['llama']['error']
    assert (got['broken']['status'], got['broken']['stage'], got['broken']['error']['type']) == ('error', 'plan', 'InvalidCheckpoint')
    nb = tmp_path/'r'/got['llama']['notebook']
    outputs = ''.join(o.get('text', '') for c in nbformat.read(nb, as_version=4).cells for o in c.get('outputs', []))
    assert 'Plan: ' in outputs and '1 core, single' in outputs                           # the evidence shows what ran before the hang
    assert leftovers() == []                                                         # the deadline stopped it; nothing left
    # the sweep's own planning crashed for mistral: its check plans again, and passes on one core
    report = run_sweep([ViewEntry(str(models('mistral')), 'text-generation', params={'dtype': 'float32'})], tmp_path/'r',
                       jobs=1, timeout_s=600, progress=False, compile_backend='aot_eager')
    (mistral,) = report.rows
    assert (mistral['status'], mistral['cores']) == ('pass', 1), mistral['error']


def running_checks():
    "The checks of this test session alive now: run id -> the CPUs its process may use."
    found = {}
    for p in psutil.process_iter():
        try:
            if not ours(p) or p.status() == psutil.STATUS_ZOMBIE: continue
            rid = p.environ().get(RUN_ENV)
            if rid and 'check' in p.cmdline(): found[rid] = frozenset(p.cpu_affinity())
        except psutil.Error: pass
    return found


def test_stopped_sweep_exits_130_then_killed_sweep_resumes_without_loss(tmp_path):
    # --jobs 2 on this machine's first 2 CPUs: two 1-core checks at once, each pinned to its own CPU. SIGTERM: exit 130 and
    # no row for the checks it stopped; SIGKILL: its checks die with it; the same command then finishes without loss
    cpus = sorted(os.sched_getaffinity(0))[:2]
    cmd = ['taskset', '-c', ','.join(map(str, cpus)), str(BIN/'trn-compat'), 'sweep', '--view', 'architectures', '--limit', '6',
           '--results', str(tmp_path), '--no-progress', *FAST]
    env = {**os.environ, 'PYTHONPATH': str(ROOT/'tests')}
    def sweep_until(n, sig):
        "Start the sweep, watch its checks until `n` rows are in the store and a check without a row runs, then send `sig`."
        out = open(tmp_path/f'sweep-{sig.name}.txt', 'w+')
        proc, seen = subprocess.Popen(cmd, env=env, stdout=out, stderr=subprocess.STDOUT), []
        deadline, unfinished = time.monotonic() + 600, set()
        while time.monotonic() < deadline and proc.poll() is None:
            seen.append(running_checks()); have = rows(tmp_path)
            unfinished = set(seen[-1]) - {r['run_id'] for r in have}
            if len(have) >= n and unfinished: break
            time.sleep(0.1)
        proc.send_signal(sig); proc.wait(); out.seek(0)
        return proc.returncode, out.read(), seen, unfinished

    code, out, seen, stopped_runs = sweep_until(2, signal.SIGTERM)
    assert code == 130 and 'interrupted after' in out and 'the same command resumes' in out, out
    assert stopped_runs, seen[-1]                                                      # a check was running when it was stopped
    assert max(map(len, seen)) == 2                                                    # --jobs 2: two checks at once
    for now in seen:                                                                   # never more; each on one CPU of its own
        assert len(now) <= 2 and all(len(c) == 1 and c <= set(cpus) for c in now.values()), now
        assert len(set().union(*now.values())) == len(now), now
    for _ in range(60):
        if not leftovers(): break
        time.sleep(0.5)
    assert leftovers() == []
    stopped = rows(tmp_path)
    # no row for the checks it stopped: neither a `killed` row from the sweep nor an `error` row from the check (one that finished
    # in the instant before the signal wrote its own `pass`)
    assert 2 <= len(stopped) < 6 and all(r['status'] == 'pass' for r in stopped), stopped
    assert not list(Path(tmp_path).rglob('.*partial*'))

    code, out, _, _ = sweep_until(len(stopped) + 1, signal.SIGKILL)
    assert code == -signal.SIGKILL, out
    for _ in range(60):                                      # its checks die with it (PR_SET_PDEATHSIG)
        if not leftovers(): break
        time.sleep(0.5)
    assert leftovers() == []
    during = {r['model_id']: r for r in rows(tmp_path)}       # a check may have finished as the sweep died
    res = subprocess.run(cmd, env=env, capture_output=True, text=True)
    assert res.returncode == 0, res.stdout + res.stderr
    final = rows(tmp_path)
    assert len(final) == 6 and len({r['model_id'] for r in final}) == 6
    assert all(r['status'] == 'pass' for r in final)
    after = {r['model_id']: r for r in final}
    assert all(after[m] == r for m, r in during.items())      # every row written before the restart is intact
    assert f'{len(during)} already had a row' in res.stdout, res.stdout
    assert len(notebooks(tmp_path)) == 6 and not list(Path(tmp_path).rglob('.*partial*'))
