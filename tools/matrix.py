"""Write the architectures matrix into the README from a sweep of the `architectures` view.

    trn-compat sweep --view architectures --task text-generation --jobs 2 --compile-backend aot_eager --results R
    python tools/matrix.py R --took text-generation=1460 --took image-text-to-text=700

Every row of a tiny architecture in the store R becomes one line of the table of its task (status, stage or
reason, the cause in one line, the package that raised the error), between the matrix markers of
nbs/index.ipynb; then README.md is written again from the notebook."""
import argparse
import subprocess
import sys
from collections import Counter
from pathlib import Path

import nbformat

from trn_compat.results import ResultStore
from trn_compat.views import architecture_types, matrix_markdown

START, END = '<!-- matrix:start (written by tools/matrix.py from a sweep: do not edit) -->', '<!-- matrix:end -->'
root = Path(__file__).resolve().parent.parent


def section(rows:list, task:str, took:float|None) -> str:
    types = architecture_types(task)
    rows = [r for r in rows if r['task'] == task and Path(r['model_id']).name in types]
    missing = sorted(set(types) - {Path(r['model_id']).name for r in rows})
    if missing: sys.exit(f'{task}: {len(missing)} architectures of the view have no row in the store: {", ".join(missing[:10])}')
    c = Counter(r['status'] for r in rows)
    built = sum(not (r['status'] == 'skip' and r['reason'] == 'not-built') for r in rows)
    v = rows[0]['versions']
    backend = Counter(r['compile_backend'] for r in rows if r['compile_backend']).most_common(1)
    head = (f'**{task}**: {len(rows)} architectures of transformers {v["transformers"]}, torch {v["torch"]}, '
            f'compile backend `{backend[0][0] if backend else "?"}` on CPU, float32; {built} of {len(rows)} built. '
            + ', '.join(f'{c[s]} {s}' for s in ('pass', 'fail', 'error', 'skip') if c[s])
            + (f'. The whole view took {took / 60:.0f} min with `--jobs 2` on a 2-core machine.' if took else '.'))
    return f'{head}\n\n<details><summary>{task}: one line per architecture</summary>\n\n{matrix_markdown(rows)}\n\n</details>'


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument('results', help='the result store of the sweep')
    ap.add_argument('--took', action='append', default=[], metavar='TASK=SECONDS', help='how long the sweep of a task took')
    args = ap.parse_args()
    took = {k: float(v) for k, v in (t.split('=') for t in args.took)}
    store = ResultStore(args.results)
    rows = [r for p in store.files() for r in store.read(p).to_pylist()]
    tasks = [t for t in ('text-generation', 'image-text-to-text') if any(r['task'] == t for r in rows)]
    text = '\n\n'.join(section(rows, t, took.get(t)) for t in tasks)
    path = root/'nbs'/'index.ipynb'
    nb = nbformat.read(path, as_version=4)
    cell = next(c for c in nb.cells if START in c.source)
    before, rest = cell.source.split(START, 1)
    cell.source = f'{before}{START}\n{text}\n{END}{rest.split(END, 1)[1]}'
    nbformat.write(nb, path)
    subprocess.run([sys.executable, str(root/'tools'/'readme.py')], check=True)


if __name__ == '__main__':
    main()
