"""Write README.md from nbs/index.ipynb (markdown cells as they are; code cells fenced).
nbdev_readme needs Quarto, which cannot be installed here; this does the same for our index."""
import sys
from pathlib import Path
import nbformat

root = Path(__file__).resolve().parent.parent
nb = nbformat.read(root/'nbs'/'index.ipynb', as_version=4)
parts = []
for cell in nb.cells:
    src = cell.source.strip()
    if not src or src.startswith('#|'): continue
    parts.append(src if cell.cell_type == 'markdown' else f'```python\n{src}\n```')
text = '<!-- generated from nbs/index.ipynb by tools/readme.py: edit the notebook, not this file -->\n\n' + '\n\n'.join(parts) + '\n'
out = root/'README.md'
if '--check' in sys.argv:
    sys.exit(0 if out.exists() and out.read_text() == text else 'README.md differs from nbs/index.ipynb: run python tools/readme.py')
out.write_text(text)
