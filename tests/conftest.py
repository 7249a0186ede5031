"""Shared fixtures: tiny checkpoints built at test time, the CLI as a user runs it, offline."""
import contextlib
import os
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

from trn_compat.protocol import tiny_arch
from trn_compat.results import ResultStore
from trn_compat.tiny import build_tiny
from trn_compat.tiny import smollm2 as smollm2_folder

ROOT = Path(__file__).resolve().parent.parent
BIN = Path(sys.executable).parent
os.environ.setdefault('HF_HUB_OFFLINE', '1')
# Every process this test session starts inherits this token: a test looks for the processes it left behind among its own,
# never among the machine's (another suite, or a sweep of the user's, may be running beside it).
OWNER = 'TRN_COMPAT_TEST_OWNER'
os.environ[OWNER] = TOKEN = f'{os.getpid()}-{os.urandom(4).hex()}'


def ours(p) -> bool:
    "Whether a psutil process was started by this test session (it carries our token)."
    import psutil
    try: return p.environ().get(OWNER) == TOKEN
    except psutil.Error: return False


@pytest.fixture(scope='session')
def models(tmp_path_factory):
    "Build tiny checkpoints on demand, once per session."
    root, built = tmp_path_factory.mktemp('models'), {}
    def get(arch):
        if arch not in built: built[arch] = build_tiny(arch, root/arch)
        return built[arch]
    return get


@pytest.fixture(scope='session')
def smollm2():
    "SmolLM2-135M-Instruct as a bf16 folder, converted once and kept in the user cache."
    return smollm2_folder()


def cli(*args, env=None, timeout=1800):
    "Run the `trn-compat` command; the tests' backends are importable through PYTHONPATH."
    env = {**os.environ, 'PYTHONPATH': str(ROOT/'tests'), **(env or {})}
    return subprocess.run([str(BIN/'trn-compat'), *map(str, args)], capture_output=True, text=True, env=env, timeout=timeout)


def no_route_to_the_hub():
    "The environment of a machine that cannot reach the Hub and was not told so: HF_HUB_OFFLINE unset, the endpoint a closed port."
    import socket
    with socket.socket() as s:
        s.bind(('127.0.0.1', 0)); port = s.getsockname()[1]
    return {'HF_HUB_OFFLINE': '0', 'HF_ENDPOINT': f'http://127.0.0.1:{port}'}


def arch_of(row):
    "The architecture a row's model is named by: a tiny checkpoint's (trn-compat/tiny-llama), else the folder's name."
    return tiny_arch(row['model_id']) or Path(row['model_id']).name


def rows(results):
    "Every row in a result store."
    store = ResultStore(results)
    return [r for p in store.files() for r in store.read(p).to_pylist()]


ARTIFACTS = ROOT/'test-artifacts'   # screenshots and plots a run keeps for people to look at
CHROMIUM = shutil.which('chromium') or '/usr/bin/chromium'


@contextlib.contextmanager
def serve(store, cache):
    "`trn-compat serve` of `store` on a free loopback port, with its own trn-compat cache (no saved Hub ranking); its URL."
    with socket.socket() as s:
        s.bind(('127.0.0.1', 0)); port = s.getsockname()[1]
    proc = subprocess.Popen([str(BIN/'trn-compat'), 'serve', '--results', str(store), '--port', str(port)],
                            env={**os.environ, 'TRN_COMPAT_CACHE': str(cache)})
    url = f'http://127.0.0.1:{port}'
    try:
        for _ in range(150):
            try: urllib.request.urlopen(url + '/api/rows'); break
            except OSError: time.sleep(0.2)
        yield url
    finally: proc.terminate(); proc.wait()
