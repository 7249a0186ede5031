"""Sweeps on Ray: a two-node cluster on loopback gives the rows the local engine gives; a node lost mid-sweep costs no row."""
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import psutil
import pytest

from conftest import BIN, arch_of, cli, rows
from trn_compat.runner import RUN_ENV

FAST = ['--view', 'architectures', '--compile-backend', 'aot_eager', '--no-progress']


@pytest.fixture
def cluster(monkeypatch):
    """Two Ray nodes on this machine, on loopback, each with one CPU of its own: the head pinned to CPU 0, the other to CPU 1
    (their raylets and workers inherit the affinity they are started with). Ray's files go to a temporary folder of the test's."""
    tmp = tempfile.mkdtemp(prefix='rt-')          # short: Ray's socket paths must fit 107 characters
    monkeypatch.setenv('RAY_TMPDIR', tmp)
    monkeypatch.setenv('RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER', '0')   # keeps every node on 127.0.0.1
    monkeypatch.setenv('RAY_USAGE_STATS_ENABLED', '0')
    from ray.cluster_utils import Cluster
    full = os.sched_getaffinity(0)
    cpus = sorted(full)
    try:
        os.sched_setaffinity(0, {cpus[0]})
        c = Cluster(initialize_head=True, head_node_args=dict(num_cpus=1, include_dashboard=False))
        os.sched_setaffinity(0, {cpus[-1]})
        other = c.add_node(num_cpus=1)
    finally: os.sched_setaffinity(0, full)
    c.other, c.cpus = other, cpus
    yield c
    c.shutdown()
    shutil.rmtree(tmp, ignore_errors=True)


def ours(cache):
    "Live processes of checks started under this test's trn-compat cache."
    found = []
    for p in psutil.process_iter():
        try:
            env = p.environ()
            if RUN_ENV in env and env.get('TRN_COMPAT_CACHE') == str(cache) and p.status() != psutil.STATUS_ZOMBIE: found.append(p)
        except psutil.Error: pass
    return found


def by_arch(results):
    return {arch_of(r): r for r in rows(results)}


def test_two_nodes_give_the_local_rows_stop_resume_and_then_do_nothing(cluster, tmp_path):
    env = {'TRN_COMPAT_CACHE': str(tmp_path/'cache')}
    local = cli('sweep', *FAST, '--limit', '6', '--jobs', '2', '--results', tmp_path/'local', env=env)
    assert local.returncode == 0, local.stdout + local.stderr
    stamp = {p: p.stat().st_mtime_ns for p in (tmp_path/'local').rglob('*') if p.is_file()}
    again = cli('sweep', *FAST, '--limit', '6', '--jobs', '2', '--results', tmp_path/'local', env=env)
    assert again.returncode == 0 and 'nothing to do: all 6 models already have a row' in again.stdout, again.stdout + again.stderr
    assert {p: p.stat().st_mtime_ns for p in (tmp_path/'local').rglob('*') if p.is_file()} == stamp   # not a byte written
    ray_cmd = ['sweep', *FAST, '--limit', '6', '--engine', 'ray', '--address', cluster.address, '--results', tmp_path/'ray']
    # stopped with SIGTERM once two rows have landed and checks are running: its checks are cancelled on both nodes
    driver = subprocess.Popen([str(BIN/'trn-compat'), *map(str, ray_cmd)], env={**os.environ, **env}, stdout=subprocess.PIPE,
                              stderr=subprocess.STDOUT, text=True)
    t = time.monotonic()
    while not (len(rows(tmp_path/'ray')) >= 2 and ours(tmp_path/'cache')) and time.monotonic() - t < 600 and driver.poll() is None:
        time.sleep(0.3)
    assert driver.poll() is None, driver.communicate()[0]
    driver.send_signal(signal.SIGTERM)
    out, _ = driver.communicate(timeout=120)
    assert driver.returncode == 130 and 'the same command resumes' in out, out
    for _ in range(50):
        if not ours(tmp_path/'cache'): break
        time.sleep(0.2)
    assert ours(tmp_path/'cache') == [] and 2 <= len(rows(tmp_path/'ray')) < 6
    on_ray = cli(*ray_cmd, env=env)                          # resumes: only the models without a row
    assert on_ray.returncode == 0, on_ray.stdout + on_ray.stderr
    assert 'already had a row' in on_ray.stdout, on_ray.stdout
    a, b = by_arch(tmp_path/'local'), by_arch(tmp_path/'ray')
    assert len(a) == 6 and {k: r['status'] for k, r in a.items()} == {k: r['status'] for k, r in b.items()}
    assert {'llama', 'qwen3', 'qwen3_moe', 'mixtral'} <= set(a) and all(r['status'] == 'pass' for r in a.values()), a
    assert {r['notebook'] for r in a.values()} == {r['notebook'] for r in b.values()}
    assert all((tmp_path/'ray'/r['notebook']).exists() and not r['notebook'].startswith('/') for r in b.values())
    nodes = {r['node'] for r in b.values()}
    assert len(nodes) == 2 and all(n.startswith('127.0.0.1/') for n in nodes), nodes    # both nodes checked models
    assert all(r['node'] is None for r in a.values())
    assert not list((tmp_path/'ray').rglob('.*.partial.ipynb'))

    again = cli(*ray_cmd, env=env)
    assert again.returncode == 0 and 'nothing to do: all 6 models already have a row' in again.stdout, again.stdout + again.stderr
    assert ours(tmp_path/'cache') == []


def test_a_node_lost_mid_sweep_costs_no_row(cluster, tmp_path):
    from conftest import ROOT
    cache = tmp_path/'cache'
    env = {**os.environ, 'PYTHONPATH': str(ROOT/'tests'), 'TRN_COMPAT_CACHE': str(cache),
           'TRN_COMPAT_FAILPOINT': 'qwen3_moe@kernel-build:raise'}     # and a build that fails is its row, on whichever node
    driver = subprocess.Popen([str(BIN/'trn-compat'), 'sweep', *FAST, '--limit', '4', '--engine', 'ray', '--address', cluster.address, '--transformers', '5.23.0',
                               '--results', str(tmp_path/'r')], env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    victim, t = None, time.monotonic()
    while victim is None and time.monotonic() - t < 300 and driver.poll() is None:   # a check running on the other node, for 2 s
        victim = next((p for p in ours(cache) if p.cpu_affinity() == [cluster.cpus[-1]] and time.time() - p.create_time() > 2), None)
        time.sleep(0.2)
    assert victim is not None, 'no check ran on the second node'
    lost_run = victim.environ()[RUN_ENV]
    cluster.remove_node(cluster.other)
    out, _ = driver.communicate(timeout=900)
    assert driver.returncode == 1, out
    got = rows(tmp_path/'r')
    assert len(got) == 4 and len({r['model_id'] for r in got}) == 4, [r['model_id'] for r in got]     # one row each
    seen = {arch_of(r): (r['status'], r['stage']) for r in got}
    assert seen == {'llama': ('pass', None), 'qwen3': ('pass', None), 'qwen3_moe': ('error', 'build'), 'mixtral': ('pass', None)}, seen
    assert {r['versions']['transformers'] for r in got} == {'5.23.0'}     # checked in the pair's environment, built on the nodes
    moved = [r for r in got if r['lost_nodes']]
    assert len(moved) >= 1 and all(r['run_id'] != lost_run for r in moved), moved
    assert all(len(r['lost_nodes']) == 1 and r['node'] != r['lost_nodes'][0] for r in moved)      # ran again, elsewhere
    assert 'lost with 127.0.0.1/' in out and 'trying again' in out, out
    for _ in range(50):                       # the lost node's check got SIGTERM when its worker died, and killed its run
        if not ours(cache): break
        time.sleep(0.2)
    assert ours(cache) == []


def test_dry_run_plans_the_matrix_and_bad_releases_are_refused(tmp_path):
    env = {'TRN_COMPAT_CACHE': str(tmp_path/'cache')}
    plan = cli('sweep', '--view', 'architectures', '--limit', '3', '--transformers', '5.23.0,5.24.0', '--dry-run', '--results', tmp_path/'r', env=env)
    assert plan.returncode == 0, plan.stdout + plan.stderr
    lines = [l for l in plan.stdout.splitlines() if '__transformers-' in l]
    assert [l.split()[0].split('__transformers-')[1] for l in lines] == ['5.23.0', '5.24.0'] and all(' to build ' in l for l in lines)
    assert all(l.split()[3:6] == ['3', '0', '3x1'] for l in lines), lines     # 3 to check, none with a row, three 1-core checks
    assert '6 checks in 2 version pair(s) on local; dry run' in plan.stdout
    assert not (tmp_path/'r').exists() and not (tmp_path/'cache'/'envs').exists()   # nothing run, nothing built
    bad = cli('sweep', '--transformers', '5.23.0;touch x', '--dry-run', '--results', tmp_path/'r', env=env)
    assert bad.returncode == 2 and "not a transformers release: '5.23.0;touch x'" in bad.stderr, bad.stdout + bad.stderr
