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
    seen, state = [], {'down': False, 'answer': None}
    class Handler(BaseHTTPRequestHandler):
        def do_GET(self):
            url = urlparse(self.path); q = parse_qs(url.query); seen.append((url.path, q))
            if state['down'] or url.path != '/api/models': self.send_response(503); self.end_headers(); return
            if state['answer'] is not None: body = state['answer']   # a hostile Hub (or a mirror someone else runs)
            else:
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

    res = cli('views', 'downloads', '--limit', '3', '--json', env=online)   # the other ranking, in another order: by downloads
    assert res.returncode == 0, res.stderr
    assert [e['model'] for e in json.loads(res.stdout)['entries']] == ['meta-llama/Llama-3.1-8B-Instruct', 'Qwen/Qwen3-0.6B', 'openai/gpt-oss-20b']

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


def test_a_hostile_hub_answer_is_refused_entry_by_entry(tmp_path, hub):
    # ids that would make from_pretrained read a local folder, or rewrite a terminal, or are not strings; then an answer too large
    bad = ['../../../../home/user/.ssh', '/etc', 'a/b/c', '\x1b[2Jowner/name', 42, None]
    hub['state']['answer'] = json.dumps([{'id': 'ok/model', 'downloads': 'many'}, *({'id': b} for b in bad), 'not an object',
                                         {'id': 'Qwen/Qwen3-0.6B', 'downloads': 5}]).encode()
    cache = tmp_path/'cache'
    env = {'HF_HUB_OFFLINE': '0', 'HF_ENDPOINT': hub['url'], 'TRN_COMPAT_CACHE': str(cache)}
    res = cli('views', 'trending', '--json', env=env)
    assert res.returncode == 0, res.stderr
    out = json.loads(res.stdout)
    assert [e['model'] for e in out['entries']] == ['ok/model', 'Qwen/Qwen3-0.6B']       # the good ones, in the Hub's order
    assert len(out['refused']) == len(bad) + 1 and all(r.startswith('refused ') for r in out['refused']), out['refused']
    assert "refused model id '../../../../home/user/.ssh': not a Hub repo id" in res.stderr
    assert "'\\x1b[2Jowner/name'" in res.stderr and '\x1b' not in res.stderr             # shown escaped, never written raw
    snap = json.loads(next((cache/'views'/'text-generation').glob('trending-*.json')).read_text())
    assert snap['models'][0]['downloads'] is None                                          # a number where a string was: dropped
    assert sorted(p.relative_to(tmp_path).parts[0] for p in tmp_path.rglob('*')) == ['cache'] * len(list(tmp_path.rglob('*')))

    hub['state']['answer'] = b'[' + b'{"id": "a/b"},' * 1_500_000 + b'{"id": "a/b"}]'     # 21 MB
    res = cli('views', 'downloads', '--task', 'image-text-to-text', env=env)
    assert res.returncode == 2 and 'larger than 16,777,216 bytes' in res.stderr, res.stderr


def test_todays_snapshot_answers_until_refresh(tmp_path, hub):
    # a ranking fetched today is read from its snapshot, without asking the Hub, unless --refresh
    hub['state']['answer'] = json.dumps([{'id': f'org/model-{i}', 'downloads': 1000 - i} for i in range(120)]).encode()
    env = {'HF_HUB_OFFLINE': '0', 'HF_ENDPOINT': hub['url'], 'TRN_COMPAT_CACHE': str(tmp_path)}
    def asked(*more):
        before = len(hub['seen'])
        res = cli('views', 'downloads', '--limit', '3', '--json', *more, env=env)
        assert res.returncode == 0, res.stderr
        assert [e['model'] for e in json.loads(res.stdout)['entries']] == ['org/model-0', 'org/model-1', 'org/model-2']
        return len(hub['seen']) - before
    assert (asked(), asked(), asked('--refresh')) == (1, 0, 1)
