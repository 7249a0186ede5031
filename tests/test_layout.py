"""The repository stands on its own: nothing in it cites a file outside it (the protocol is nbs/00_protocol.ipynb)."""
import subprocess

from conftest import ROOT

OUTSIDE = ('DESIGN.md', 'CONVENTIONS.md', '../shared', '/work/.library')


def test_nothing_cites_a_file_outside_the_repository():
    files = subprocess.run(['git', 'ls-files'], cwd=ROOT, capture_output=True, text=True, check=True).stdout.split()
    assert 'nbs/00_protocol.ipynb' in files and len(files) > 50
    cited = [(f, word) for f in files if not f.startswith('tests/test_layout.py')
             for word in OUTSIDE if (ROOT/f).is_file() and word in (ROOT/f).read_text(errors='replace')]
    assert cited == [], cited
