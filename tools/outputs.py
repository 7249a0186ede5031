"""Store the shown output of notebook lessons that is small and deterministic, so a notebook reads as a document with its proof.

Each notebook named is run twice, each time in a fresh kernel (execnb, as nbdev_test runs it); a code cell keeps its outputs only
when both runs gave the same ones, they are text (no images, no HTML), they hold no path of this machine and are at most 2,000
characters. Every other cell is left without output, so timings, temporary folders and host details never enter the repository.
Export cells never keep output. Run by hand after changing a lesson:

    .venv/bin/python tools/outputs.py nbs/00_protocol.ipynb nbs/14_catalog.ipynb ...

then `nbdev_clean`; CI checks that notebooks are clean, not that their outputs are current (nbdev_test runs every lesson)."""
import copy
import os
import sys
import tempfile
from pathlib import Path

from execnb.nbio import read_nb, write_nb
from execnb.shell import CaptureShell

MAX_CHARS = 2000
LOCAL = (str(Path.home()), tempfile.gettempdir(), str(Path(__file__).resolve().parent.parent), sys.prefix)


def run(path: Path) -> list:
    "The outputs of each cell of a fresh run of the notebook at `path`."
    nb = copy.deepcopy(read_nb(path))
    cwd = os.getcwd()
    os.chdir(path.parent)
    try: CaptureShell().run_all(nb, exc_stop=True)
    finally: os.chdir(cwd)
    return [c.get('outputs', []) for c in nb.cells]


def text_of(outputs: list) -> str | None:
    "The text of `outputs`, or None when any is not plain text (an image, HTML, an error)."
    parts = []
    for o in outputs:
        if o.get('output_type') == 'stream': parts.append(o.get('text', ''))
        elif o.get('output_type') in ('execute_result', 'display_data') and set(o.get('data', {})) <= {'text/plain'}:
            parts.append(o['data'].get('text/plain', ''))
        else: return None
    return ''.join(''.join(p) if isinstance(p, list) else p for p in parts)


def keep(outputs: list, again: list) -> bool:
    "Whether a cell's outputs are worth storing: the same in both runs, plain text, short, without a path of this machine."
    text = text_of(outputs)
    return (bool(outputs) and text is not None and text_of(again) == text and 0 < len(text) <= MAX_CHARS
            and not any(p in text for p in LOCAL))


def store(path: Path) -> int:
    "Write the stored outputs into the notebook at `path`; how many cells keep one."
    first, second = run(path), run(path)
    nb, kept = read_nb(path), 0
    for cell, a, b in zip(nb.cells, first, second):
        if cell.cell_type != 'code': continue
        exported = cell.source.lstrip().startswith(('#| export', '#|export'))
        cell['outputs'] = a if not exported and keep(a, b) else []
        kept += bool(cell['outputs'])
    write_nb(nb, path)
    return kept


if __name__ == '__main__':
    for name in sys.argv[1:]: print(f'{name}: {store(Path(name).resolve())} cells keep their output')
