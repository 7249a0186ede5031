"""The Hub's rankings through huggingface_hub against a local server that replays the Hub's answer, then offline from the snapshot."""
import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import parse_qs, urlparse

import pytest

from conftest import cli

ANSWER = (Path(__file__).parent/'hub'/'models-text-generation.json').read_text()   # shaped like the Hub's /api/models answer


@pytest.fixture
def hub():
    "A Hub on 127.0.0.1 that answers /api/models, sorted as asked; `down` makes it fail."
    seen, state = [], {'down': False}
    class Handler(BaseHTTPRequestHandler):
        def do_GET(self):
            url = urlparse(self.path); q = parse_qs(url.query); seen.append((url.path, q))
            if state['down'] or url.path != '/api/models': self.send_response(503); self.end_headers(); return
            models = json.loads(ANSWER)
            key = {'trendingScore': 'trendingScore', 'downloads': 'downloads'}[q['sort'][0]]
            models = sorted(models, key=lambda m: -m[key])[:int(q.get('limit', ['100'])[0])]
            body = json.dumps(models).encode()
            self.send_response(200); self.send_header('Content-Type', 'application/json')
            self.send_header('Content-Length', str(len(body))); self.end_headers(); self.wfile.write(body)
        def log_message(self, *a): pass
    server = ThreadingHTTPServer(('127.0.0.1', 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield dict(url=f'http://127.0.0.1:{server.server_port}', seen=seen, state=state)
    server.shutdown()


def test_rankings_online_then_offline(tmp_path, hub):
    online = {'HF_HUB_OFFLINE': '0', 'HF_ENDPOINT': hub['url'], 'TRN_COMPAT_CACHE': str(tmp_path)}
    res = cli('views', 'trending', '--task', 'text-generation', '--limit', '3', '--json', env=online)
    assert res.returncode == 0, res.stderr
    assert [e['model'] for e in json.loads(res.stdout)['entries']] == ['Qwen/Qwen3-0.6B', 'openai/gpt-oss-20b', 'meta-llama/Llama-3.1-8B-Instruct']
    path, q = hub['seen'][0]
    assert q['pipeline_tag'] == ['text-generation'] and q['sort'] == ['trendingScore']
    snaps = list((tmp_path/'views'/'text-generation').glob('trending-*.json'))
    assert len(snaps) == 1 and json.loads(snaps[0].read_text())['models'][0]['trending_score'] == 95

    res = cli('views', 'downloads', '--limit', '2', env=online)          # the other ranking, sorted by downloads
    assert res.returncode == 0 and res.stdout.splitlines()[1].startswith('Qwen/Qwen3-0.6B'), res.stdout + res.stderr

    asked = len(hub['seen'])
    offline = {'HF_HUB_OFFLINE': '1', 'HF_ENDPOINT': hub['url'], 'TRN_COMPAT_CACHE': str(tmp_path)}
    res = cli('views', 'trending', '--limit', '3', '--json', env=offline)
    assert res.returncode == 0 and len(json.loads(res.stdout)['entries']) == 3
    assert len(hub['seen']) == asked                                      # offline: the snapshot answered, not the server


def test_hub_down_and_no_snapshot_is_a_clear_error(tmp_path, hub):
    hub['state']['down'] = True
    env = {'HF_HUB_OFFLINE': '0', 'HF_ENDPOINT': hub['url'], 'TRN_COMPAT_CACHE': str(tmp_path)}
    res = cli('views', 'downloads', '--task', 'image-text-to-text', env=env)
    assert res.returncode == 2
    assert 'no saved downloads list for image-text-to-text and the Hub did not answer' in res.stderr, res.stderr
    assert 'run `trn-compat views downloads --task image-text-to-text` once online' in res.stderr


def test_selected_lists_what_is_left_out_and_why():
    res = cli('views', 'selected')
    assert res.returncode == 0
    out = res.stdout
    assert 'Qwen/Qwen3-0.6B' in out and 'left out, incompatible:' in out and 'left out, low-priority:' in out
    assert 'bitsandbytes 4-bit weights' in out
