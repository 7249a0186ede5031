"""Installing trn-compat beside an existing stack leaves its torch alone: into a venv whose torch is another release
(2.7.1, as the Neuron SDK ships it), pip would install trn-compat and change nothing else. The venv sees this
environment's other packages through a .pth file, and its torch is that release's installed metadata, which is all
pip's resolver reads (a real 2.7.1 wheel is gigabytes); `pip install --dry-run --report` says what pip would do,
offline (--no-index)."""
import json
import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def test_install_beside_another_torch_leaves_it_in_place(tmp_path):
    subprocess.run([sys.executable, '-m', 'venv', '--without-pip', tmp_path/'venv'], check=True)
    py = tmp_path/'venv'/'bin'/'python'
    site = Path(subprocess.run([py, '-c', "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                               capture_output=True, text=True, check=True).stdout.strip())
    (site/'stack.pth').write_text(sysconfig.get_paths()['purelib'] + '\n')     # the rest of the stack, as installed here
    dist = site/'torch-2.7.1.dist-info'
    dist.mkdir()
    (dist/'METADATA').write_text('Metadata-Version: 2.1\nName: torch\nVersion: 2.7.1\n')
    (dist/'INSTALLER').write_text('pip\n'); (dist/'RECORD').write_text('')
    seen = subprocess.run([py, '-c', "import importlib.metadata as m; print(m.version('torch'))"], capture_output=True, text=True)
    assert seen.stdout.strip() == '2.7.1', seen.stderr            # the venv's torch is the other release
    src = tmp_path/'src'   # a copy, so that building the package's metadata writes nothing into the checkout
    shutil.copytree(ROOT/'trn_compat', src/'trn_compat', ignore=shutil.ignore_patterns('__pycache__'))
    for f in ('setup.py', 'settings.ini', 'README.md', 'LICENSE'):
        if (ROOT/f).exists(): shutil.copy(ROOT/f, src/f)
    res = subprocess.run([sys.executable, '-m', 'pip', '--python', str(py), 'install', '--dry-run', '--report', str(tmp_path/'report.json'),
                          '--no-index', '--no-build-isolation', '--quiet', str(src)], capture_output=True, text=True, cwd=tmp_path)
    assert res.returncode == 0, res.stdout + res.stderr
    report = json.loads((tmp_path/'report.json').read_text())
    assert [i['metadata']['name'] for i in report['install']] == ['trn-compat']   # nothing else installed or replaced
