"""Explorer benchmark (run by hand, not in CI): `python benchmarks/explorer.py`

Builds a 100,000-row store across 20 version pairs (5,000 rows each; the rows are synthetic, with
realistic sizes: a 6 KB run_py, a traceback on errors, 300 packages), starts `trn-compat serve`, and
measures in headless Chromium (Debian's, through Playwright):
  - time to first render of the main page (navigation start to the table drawn), cold (first request
    reads the store) and warm;
  - search time: typing a partial name into the box until the table shows the server's answer
    (median and p95 over 40 searches), in the `tested` view of one pair (5,000 rows);
  - the server's own filter time for those searches (median and p95).
Targets (the issue): first render <= 1 s, search <= 150 ms median.
"""
import datetime as dt
import random
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

from trn_compat.results import SCHEMA, ResultStore, VersionPair

PAIRS = [(c, t) for c in ('2.20.0', '2.21.0', '2.22.0', '2.23.0', '2.24.0') for t in ('5.21.0', '5.22.2', '5.23.0', '5.24.0')]
ORGS = ['Qwen', 'meta-llama', 'mistralai', 'google', 'microsoft', 'HuggingFaceTB', 'openai', 'deepseek-ai', 'ibm-granite', 'allenai']


def build(root: Path, per_pair: int = 5000):
    rng = random.Random(0)
    now = dt.datetime.now(dt.timezone.utc)
    script = 'import torch\n' + 'x = 1\n' * 1000
    packages = [f'package-{i}==1.{i}.0' for i in range(300)]
    for cv, tf in PAIRS:
        rows = []
        for i in range(per_pair):
            status = rng.choices(['pass', 'fail', 'error', 'skip'], [70, 10, 15, 5])[0]
            rows.append(dict(model_id=f'{ORGS[i % 10]}/model-{i:05d}-{rng.choice(["instruct", "base", "chat", "coder"])}', revision='abc',
                             task='text-generation', architecture='LlamaForCausalLM', status=status,
                             stage='compile' if status == 'error' else None, reason='too-large' if status == 'skip' else None,
                             error={'type': 'RuntimeError', 'message': 'boom', 'traceback': 'Traceback\n' * 40} if status == 'error' else None,
                             cores=rng.choice([1, 1, 2, 4, 8, 16]), parallelism='tp', dtype='bfloat16', wall_time_s=rng.uniform(20, 900),
                             compile_time_s=rng.uniform(10, 800), peak_device_memory_bytes=rng.randint(2**30, 90 * 2**30),
                             platform='neuron', versions={'neuronx-cc': cv, 'transformers': tf, 'torch': '2.9.0'}, packages=packages,
                             run_py=script, notebook=None, run_id=f'{i}', started_at=now, finished_at=now))
        path = ResultStore(root).path(VersionPair('neuron', 'neuronx-cc', cv, tf))
        path.parent.mkdir(parents=True, exist_ok=True)
        pq.write_table(pa.Table.from_pylist(rows, schema=SCHEMA), path)


def main():
    from playwright.sync_api import sync_playwright
    root = Path(tempfile.mkdtemp(prefix='trn-compat-explorer-bench-'))
    t = time.perf_counter(); build(root); print(f'built 100,000 rows in 20 version pairs in {time.perf_counter() - t:.1f} s '
                                                 f'({sum(p.stat().st_size for p in root.rglob("*.parquet")) / 2**20:.0f} MiB)')
    with socket.socket() as s:
        s.bind(('127.0.0.1', 0)); port = s.getsockname()[1]
    server = subprocess.Popen([str(Path(sys.executable).parent/'trn-compat'), 'serve', '--results', str(root), '--port', str(port)])
    url = f'http://127.0.0.1:{port}'
    for _ in range(100):
        try: urllib.request.urlopen(url + '/openapi-none'); break
        except urllib.error.HTTPError: break
        except OSError: time.sleep(0.1)
    try:
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=shutil.which('chromium') or '/usr/bin/chromium', headless=True, args=['--no-sandbox'])
            renders = []
            for i in range(6):
                page = browser.new_page()
                t = time.perf_counter()
                page.goto(url + '/?view=tested', wait_until='domcontentloaded')
                page.wait_for_selector('#rows tr')
                renders.append(time.perf_counter() - t)
                page.close()
            page = browser.new_page()
            page.goto(url + '/?view=tested')
            words = ['qwen', 'llama', 'model-01', 'instruct', 'MISTRAL', 'coder', 'model-04', 'chat', 'google/', 'deepseek']
            search, server_ms = [], []
            for i in range(40):
                q = words[i % len(words)] + ('' if i < 10 else str(i % 7))
                ms = page.evaluate("""async (q) => {
                    const box = document.getElementById('q'), count = document.getElementById('count');
                    const before = count.dataset.seq || '0', t0 = performance.now();
                    box.value = q; box.dispatchEvent(new Event('input', {bubbles: true}));
                    while ((count.dataset.seq || '0') === before) await new Promise(r => requestAnimationFrame(r));
                    return performance.now() - t0; }""", q)
                search.append(ms)
                server_ms.append(json_get(f'{url}/api/rows?view=tested&q={q}')['filter_ms'])
            browser.close()
    finally:
        server.terminate(); server.wait(); shutil.rmtree(root, ignore_errors=True)
    p95 = lambda xs: sorted(xs)[int(0.95 * (len(xs) - 1))]
    print(f'first render: cold {renders[0] * 1000:.0f} ms (the first request reads the store), warm median {statistics.median(renders[1:]) * 1000:.0f} ms')
    print(f'search in Chromium (type to table drawn), 40 searches over 5,000 rows: median {statistics.median(search):.0f} ms, p95 {p95(search):.0f} ms')
    print(f'server-side filter: median {statistics.median(server_ms):.1f} ms, p95 {p95(server_ms):.1f} ms')


def json_get(u):
    import json
    return json.loads(urllib.request.urlopen(u).read())


if __name__ == '__main__':
    main()
