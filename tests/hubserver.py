"""A fake Hugging Face Hub on 127.0.0.1: as much of the Hub's HTTP API as huggingface_hub (2.x) uses to download a model,
read its safetensors headers, and publish and read back a dataset. Repos live in memory, built from local folders."""
import base64
import hashlib
import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import unquote, urlparse


def blob_oid(data: bytes) -> str:
    "A file's git blob sha1, as the Hub reports it (the ETag of a regular file)."
    return hashlib.sha1(b'blob %d\0' % len(data) + data).hexdigest()


def read_folder(folder) -> dict:
    "Every file under `folder`, by its path in a repo."
    folder = Path(folder)
    return {p.relative_to(folder).as_posix(): p.read_bytes() for p in sorted(folder.rglob('*')) if p.is_file()}


class Repo:
    "A repo: its refs (branch or tag -> commit sha), its commits (sha -> {path: bytes}), and whether it is gated."
    def __init__(self, kind, gated=False): self.kind, self.gated, self.refs, self.commits = kind, gated, {}, {}

    def commit_of(self, rev: str):
        "The commit sha a branch, tag or sha names; `None` when none."
        rev = unquote(rev)
        return self.refs.get(rev) or (rev if rev in self.commits else None)


class FakeHub:
    "`add_model` serves a folder as a model repo; datasets are created and committed to by clients. `log`: every request."
    def __init__(self):
        self.repos, self.log, self.commits = {}, [], []   # commits: what clients committed, as {'repo', 'summary', 'files'}
        hub = self
        class Handler(BaseHTTPRequestHandler):
            def do_HEAD(self): hub._handle(self, 'HEAD')
            def do_GET(self): hub._handle(self, 'GET')
            def do_POST(self): hub._handle(self, 'POST')
            def log_message(self, *a): pass
        self.server = ThreadingHTTPServer(('127.0.0.1', 0), Handler)
        self.server.daemon_threads = True
        self.url = f'http://127.0.0.1:{self.server.server_port}'
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def close(self): self.server.shutdown(); self.server.server_close()

    def add_model(self, repo_id: str, folder, revisions: dict | None = None, gated: bool = False) -> dict:
        "Serve `folder`'s files at each revision (name -> 40-hex commit sha; default: main at a sha of the files). Call again to add revisions."
        files = read_folder(folder)
        repo = self.repos.setdefault(('model', repo_id), Repo('model', gated))
        repo.gated = gated
        revisions = revisions or {'main': hashlib.sha1(json.dumps(sorted((p, blob_oid(d)) for p, d in files.items())).encode()).hexdigest()}
        for name, sha in revisions.items():
            assert len(sha) == 40 and int(sha, 16) >= 0, f'a commit sha is 40 hex digits, not {sha!r}'
            repo.refs[name], repo.commits[sha] = sha, files
        return revisions

    def requests(self, method=None, contains=''):
        "The logged `(method, path)` of the requests with this method whose path contains `contains`."
        return [(m, p) for m, p, *_ in self.log if (method is None or m == method) and contains in p]

    # ------------------------------------------------------------------ HTTP
    def _handle(self, h, method):
        url = urlparse(h.path)
        body = h.rfile.read(int(h.headers.get('Content-Length') or 0)) if method == 'POST' else b''
        self.log.append((method, url.path, h.headers.get('Range')))
        parts = url.path.strip('/').split('/')
        try: status, headers, out = self._route(method, parts, h.headers, body)
        except Exception as e: status, headers, out = 400, {}, f'{type(e).__name__}: {e}'.encode()   # never a 5xx: clients would retry
        if isinstance(out, (dict, list)): out, headers = json.dumps(out).encode(), {'Content-Type': 'application/json', **headers}
        h.send_response(status)
        for k, v in headers.items(): h.send_header(k, v)
        if 'Content-Length' not in headers: h.send_header('Content-Length', str(len(out)))
        h.end_headers()
        if method != 'HEAD': h.wfile.write(out)

    @staticmethod
    def _error(status, code, message):
        return status, {'X-Error-Code': code, 'X-Error-Message': message}, {'error': message}

    def _route(self, method, parts, headers, body):
        if parts == ['']: return 200, {}, b'fake hub'   # trn-compat's reachability probe: HEAD /
        if parts == ['api', 'repos', 'create'] and method == 'POST': return self._create(json.loads(body))
        if parts == ['api', 'validate-yaml'] and method == 'POST': return 200, {}, {}   # a README's metadata: taken as it is
        if parts[0] == 'api' and len(parts) >= 4 and parts[1] in ('models', 'datasets'):
            kind, repo_id, rest = parts[1][:-1], '/'.join(parts[2:4]), parts[4:]
            repo = self.repos.get((kind, repo_id))
            if repo is None: return self._error(404, 'RepoNotFound', 'Repository not found')
            if method == 'GET' and rest[:1] in ([], ['revision']): return self._info(repo, repo_id, rest[1] if rest else 'main')
            if method == 'GET' and rest[:1] == ['tree']: return self._tree(repo, rest[1], '/'.join(rest[2:]))
            if method == 'POST' and rest[:1] == ['preupload']:
                return 200, {}, {'files': [{'path': f['path'], 'uploadMode': 'regular', 'shouldIgnore': False, 'oid': None}
                                           for f in json.loads(body)['files']]}
            if method == 'POST' and rest[:1] == ['commit']: return self._commit(repo, repo_id, unquote(rest[1]), body)
        kind = 'model'
        if parts[0] == 'datasets': kind, parts = 'dataset', parts[1:]
        if len(parts) >= 5 and parts[2] == 'resolve' and method in ('HEAD', 'GET'):
            return self._resolve(kind, '/'.join(parts[:2]), parts[3], unquote('/'.join(parts[4:])), headers.get('Range'))
        return 404, {}, {'error': 'not served by the fake hub'}

    def _info(self, repo, repo_id, rev):
        sha = repo.commit_of(rev)
        if sha is None: return self._error(404, 'RevisionNotFound', f'Invalid rev id: {rev}')
        return 200, {}, {'id': repo_id, 'sha': sha, 'private': False, 'gated': 'auto' if repo.gated else False,
                         'siblings': [{'rfilename': p} for p in repo.commits[sha]]}

    def _tree(self, repo, rev, under):
        sha = repo.commit_of(rev)
        if sha is None: return self._error(404, 'RevisionNotFound', f'Invalid rev id: {rev}')
        files = repo.commits[sha]
        return 200, {}, [{'type': 'file', 'path': p, 'size': len(d), 'oid': blob_oid(d)}
                         for p, d in files.items() if not under or p.startswith(under.rstrip('/') + '/')]

    def _resolve(self, kind, repo_id, rev, path, range_):
        repo = self.repos.get((kind, repo_id))
        if repo is None: return self._error(404, 'RepoNotFound', 'Repository not found')
        if repo.gated: return self._error(401, 'GatedRepo', 'Access to this model is restricted: you must accept its conditions')
        sha = repo.commit_of(rev)
        if sha is None: return self._error(404, 'RevisionNotFound', f'Invalid rev id: {rev}')
        data = repo.commits[sha].get(path)
        if data is None:
            status, headers, out = self._error(404, 'EntryNotFound', f'{path} does not exist at {sha}')
            return status, {**headers, 'X-Repo-Commit': sha}, out
        headers = {'X-Repo-Commit': sha, 'ETag': f'"{blob_oid(data)}"', 'Accept-Ranges': 'bytes'}
        if range_ and range_.startswith('bytes='):
            start, _, end = range_[6:].partition('-')
            start, end = int(start), min(int(end) if end else len(data) - 1, len(data) - 1)
            if start >= len(data): return 416, {'Content-Range': f'bytes */{len(data)}'}, b''
            return 206, {**headers, 'Content-Range': f'bytes {start}-{end}/{len(data)}'}, data[start:end + 1]
        return 200, headers, data

    def _create(self, payload):
        kind = payload.get('type') or 'model'
        repo_id = f"{payload['organization']}/{payload['name']}" if payload.get('organization') else payload['name']
        url = f'{self.url}/{"datasets/" if kind == "dataset" else ""}{repo_id}'
        if (kind, repo_id) in self.repos: return 409, {}, {'error': 'You already created this repo', 'url': url}
        repo = self.repos[(kind, repo_id)] = Repo(kind)
        empty = hashlib.sha1(f'{kind}/{repo_id}'.encode()).hexdigest()
        repo.refs['main'], repo.commits[empty] = empty, {}
        return 200, {}, {'url': url}

    def _commit(self, repo, repo_id, branch, body):
        "An ndjson commit: a header line, then one line per file, each file's content in base64 (regular files only)."
        lines = [json.loads(line) for line in body.splitlines() if line.strip()]
        header = next(x['value'] for x in lines if x['key'] == 'header')
        added = {}
        for x in lines:
            if x['key'] == 'file': added[x['value']['path']] = base64.b64decode(x['value']['content'])
            elif x['key'] != 'header': return 400, {}, {'error': f'the fake hub takes regular files only, not {x["key"]}'}
        parent = repo.commit_of(branch)
        files = {**(repo.commits[parent] if parent else {}), **added}
        sha = hashlib.sha1(json.dumps([parent, header, sorted((p, blob_oid(d)) for p, d in files.items())]).encode()).hexdigest()
        repo.refs[branch], repo.commits[sha] = sha, files
        self.commits.append({'repo': repo_id, 'summary': header.get('summary'), 'files': added})
        prefix = 'datasets/' if repo.kind == 'dataset' else ''
        return 200, {}, {'commitUrl': f'{self.url}/{prefix}{repo_id}/commit/{sha}', 'commitOid': sha}
