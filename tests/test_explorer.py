"""The explorer in headless Chromium, plots, lookup, diff and publish, on a store of real checks with three transformers releases."""
import datetime as dt
import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import ARTIFACTS, BIN, CHROMIUM, ROOT, cli, rows, serve
from trn_compat.results import ResultStore, make_row
from trn_compat.stack import stack_versions


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
def server(store, tmp_path_factory):
    with serve(store, tmp_path_factory.mktemp('server-cache')) as url: yield url


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
        assert 'trn-compat/tiny-' in page.locator('#rows tr').first.inner_text()   # what was tested comes first ...
        assert 'untested' in page.locator('#rows').inner_text()          # ... then the selected models with no row
        banner = page.locator('#banner')                                 # cpu rows, under a title about Trainium: said plainly
        assert banner.is_visible() and 'ran on cpu, not on Trainium' in banner.inner_text()
        page.screenshot(path=str(ARTIFACTS/'explorer-first-page.png'), full_page=True)
        page.fill('#q', 'llama')                                         # the tested one, from the first page
        page.wait_for_function("document.querySelector('#rows tr a') && document.querySelector('#rows tr a').textContent == 'trn-compat/tiny-llama'")
        page.select_option('#view', 'trending')                          # no saved ranking here: the reason, at once
        page.wait_for_function("!document.getElementById('note').hidden", timeout=5000)
        assert 'no saved trending list' in page.locator('#note').inner_text()

        page.select_option('#view', 'tested')
        page.fill('#q', 'LLAMA')                                           # a partial name, any case
        page.wait_for_function("document.querySelectorAll('#rows tr').length == 1")
        assert 'trn-compat/tiny-llama' in page.locator('#rows').inner_text() and '5.24.0' in page.locator('#count').inner_text()

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
