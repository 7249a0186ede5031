"""The explorer in headless Chromium, plots, lookup, diff and publish, on a store of real checks with three transformers releases."""
import datetime as dt
import json
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

from conftest import BIN, ROOT, cli, rows
from trn_compat.results import ResultStore, make_row
from trn_compat.stack import stack_versions


ARTIFACTS = ROOT/'test-artifacts'
CHROMIUM = shutil.which('chromium') or '/usr/bin/chromium'
XSS = '<script>alert(1)</script>'


@pytest.fixture(scope='module')
def store(tmp_path_factory):
    "Real checks of two tiny architectures under transformers 5.22.2, 5.23.0 and 5.24.0 (a version matrix), plus a row full of HTML."
    root = tmp_path_factory.mktemp('store')
    res = cli('sweep', '--view', 'architectures', '--limit', '2', '--transformers', '5.22.2,5.23.0,5.24.0', '--jobs', 'auto',
              '--results', root, '--no-progress')    # one environment per release, built once under the trn-compat cache
    assert res.returncode == 0, res.stdout + res.stderr
    now = dt.datetime.now(dt.timezone.utc)
    ResultStore(root).upsert(make_row(
        model_id=f'org/{XSS}', task='text-generation', status='error', stage='compile', platform='cpu', versions=stack_versions(),
        error={'type': 'RuntimeError', 'message': XSS, 'traceback': f'<img src=x onerror=alert(2)>{XSS}'}, generated_text=XSS,
        run_py=f'print("{XSS}")\n', notebook='../../../etc/passwd', started_at=now, finished_at=now))
    return root


@pytest.fixture(scope='module')
def server(store):
    with socket.socket() as s:
        s.bind(('127.0.0.1', 0)); port = s.getsockname()[1]
    proc = subprocess.Popen([str(BIN/'trn-compat'), 'serve', '--results', str(store), '--port', str(port)])
    url = f'http://127.0.0.1:{port}'
    for _ in range(100):
        try: urllib.request.urlopen(url + '/api/rows'); break
        except OSError: time.sleep(0.2)
    yield url
    proc.terminate(); proc.wait()


def test_the_store_has_three_version_pairs_of_real_checks(store):
    files = ResultStore(store).files()
    assert [f.stem.split('__transformers-')[1] for f in files] == ['5.22.2', '5.23.0', '5.24.0']
    for f in files:    # each row was checked by the release its file names
        assert {r['versions']['transformers'] for r in ResultStore(store).read(f).to_pylist()} == {f.stem.split('__transformers-')[1]}
    real = [r for r in rows(store) if 'script' not in r['model_id']]
    assert len(real) == 6 and all(r['status'] == 'pass' and r['compile_backend'] == 'inductor' and r['compile_time_s'] > 0 and r['peak_device_memory_bytes'] is None and r['peak_host_rss_bytes'] > 0 for r in real)


def test_plots_lookup_diff(store, tmp_path):
    res = cli('plot', '--results', store, '--out', tmp_path)
    assert res.returncode == 0, res.stderr
    made = sorted(p.name for p in tmp_path.iterdir())
    assert made == ['models.png', 'models.svg', 'pass_rate.png', 'pass_rate.svg']
    ARTIFACTS.mkdir(exist_ok=True)
    for p in tmp_path.iterdir(): shutil.copy(p, ARTIFACTS/p.name)
    assert all((tmp_path/m).stat().st_size > 10_000 for m in made)

    res = cli('lookup', 'tiny/LLAMA', '--results', store, '--json')
    got = json.loads(res.stdout)
    assert [r['transformers'] for r in got] == ['5.24.0', '5.23.0', '5.22.2'] and all(r['status'] == 'pass' for r in got)
    assert cli('lookup', 'no-such-model', '--results', store).returncode == 1

    res = cli('diff', 'transformers-5.22.2', 'transformers-5.24.0', '--results', store, '--json', '--threshold', '0')
    d = json.loads(res.stdout)
    assert d['a'].endswith('5.22.2') and d['b'].endswith('5.24.0') and d['only_b'] == [f'org/{XSS}']
    assert cli('diff', 'transformers-5', '5.24', '--results', store).returncode == 2      # ambiguous: says so


def test_publish_reads_back_with_datasets(store, tmp_path):
    res = cli('publish', tmp_path/'mirror', '--results', store)
    assert res.returncode == 0, res.stderr
    import datasets
    ds = datasets.load_dataset(str(tmp_path/'mirror'), 'cpu', split='train', cache_dir=str(tmp_path/'hf-cache'))
    assert len(ds) == len(rows(store)) and set(ds['status']) == {'pass', 'error'}


def test_explorer_in_chromium(server):
    from playwright.sync_api import sync_playwright
    ARTIFACTS.mkdir(exist_ok=True)
    dialogs = []
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=['--no-sandbox'])
        page = browser.new_page(viewport={'width': 1400, 'height': 900})
        page.on('dialog', lambda d: (dialogs.append(d.message), d.dismiss()))
        page.goto(server + '/')
        assert page.locator('#view').input_value() == 'selected'
        assert 'untested' in page.locator('#rows').inner_text()          # selected models with no row

        page.select_option('#view', 'tested')
        page.fill('#q', 'LLAMA')                                           # a partial name, any case
        page.wait_for_function("document.querySelectorAll('#rows tr').length == 1")
        assert 'tiny/llama' in page.locator('#rows').inner_text() and '5.24.0' in page.locator('#count').inner_text()

        page.select_option('#transformers', '5.22.2')                      # switch version pair
        page.wait_for_function("document.getElementById('count').textContent.includes('5.22.2')")
        page.screenshot(path=str(ARTIFACTS/'explorer-main.png'), full_page=True)

        page.click('#rows a')                                              # open the row
        page.wait_for_selector('#runpy')
        assert 'transformers 5.22.2' in page.content()
        assert 'def main' in page.locator('#runpy').inner_text()           # its run_py
        assert 'run.py' == page.get_attribute('#download', 'download')
        frame = page.frame_locator('#notebook')                            # its evidence notebook
        assert 'Verdict: pass' in frame.locator('body').inner_text(timeout=20000)
        page.wait_for_timeout(500)
        page.screenshot(path=str(ARTIFACTS/'explorer-detail.png'), full_page=True)

        page.goto(server + '/?view=tested&q=script')                      # the hostile row: shown as text, inert
        page.wait_for_function("document.querySelectorAll('#rows tr').length == 1")
        assert XSS in page.locator('#rows').inner_text()
        page.fill('#q', 'script'); page.wait_for_timeout(300)
        page.click('#rows a')
        page.wait_for_selector('#traceback')
        assert XSS in page.locator('#traceback').inner_text() and XSS in page.locator('#generated').inner_text()
        assert page.locator('#notebook').count() == 0                      # its notebook path leaves the store: not served
        page.wait_for_timeout(500)
        browser.close()
    assert dialogs == []


def test_space_entry_builds_the_app(store):
    env = {'TRN_COMPAT_RESULTS': str(store), 'PATH': '/usr/bin:/bin', 'HF_HUB_OFFLINE': '1'}
    res = subprocess.run([sys.executable, '-c', 'import app; print(type(app.app).__name__, len(app.app.routes))'], cwd=ROOT, env=env,
                         capture_output=True, text=True)
    assert res.stdout.split() == ['Starlette', '8'], res.stderr
