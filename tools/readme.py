"""Write README.md from nbs/index.ipynb (markdown cells as they are; code cells fenced), after filling the index's table of the
row's columns from the schema (trn_compat.results.column_table). nbdev_readme needs Quarto, which cannot be installed here; this
does the same for our index. --check: fail, changing nothing, when either file is not what this would write."""
import re
import sys
from pathlib import Path

import nbformat

from trn_compat.results import column_table

root = Path(__file__).resolve().parent.parent
index = root/'nbs'/'index.ipynb'
nb = nbformat.read(index, as_version=4)
BLOCK = re.compile(r'(<!-- columns:start[^\n]*-->\n).*?(<!-- columns:end -->)', re.S)
stale = False
for cell in nb.cells:
    if cell.cell_type == 'markdown' and BLOCK.search(cell.source):
        filled = BLOCK.sub(lambda m: m.group(1) + column_table() + '\n' + m.group(2), cell.source)
        stale, cell.source = stale or filled != cell.source, filled
parts = []
for cell in nb.cells:
    src = cell.source.strip()
    if not src or src.startswith('#|'): continue
    parts.append(src if cell.cell_type == 'markdown' else f'```python\n{src}\n```')
text = '<!-- generated from nbs/index.ipynb by tools/readme.py: edit the notebook, not this file -->\n\n' + '\n\n'.join(parts) + '\n'
out = root/'README.md'
if '--check' in sys.argv:
    if stale: sys.exit("nbs/index.ipynb's table of the row's columns differs from the schema: run python tools/readme.py")
    sys.exit(0 if out.exists() and out.read_text() == text else 'README.md differs from nbs/index.ipynb: run python tools/readme.py')
if stale: nbformat.write(nb, index)
out.write_text(text)
