"""The repository stands on its own: nothing in it cites a file outside it (the protocol is nbs/00_protocol.ipynb)."""
import subprocess
import sys

from conftest import ROOT

OUTSIDE = ('DESIGN.md', 'CONVENTIONS.md', '../shared', '/work/.library')


def test_nothing_cites_a_file_outside_the_repository():
    files = subprocess.run(['git', 'ls-files'], cwd=ROOT, capture_output=True, text=True, check=True).stdout.split()
    assert 'nbs/00_protocol.ipynb' in files and len(files) > 50
    cited = [(f, word) for f in files if not f.startswith('tests/test_layout.py')
             for word in OUTSIDE if (ROOT/f).is_file() and word in (ROOT/f).read_text(errors='replace')]
    assert cited == [], cited


def package_imports() -> dict[str, set[str]]:
    "Each module of the package: the package's modules it imports, at any depth (a function's import counts too)."
    import ast
    graph = {}
    for f in sorted((ROOT/'trn_compat').glob('*.py')):
        if f.stem in ('__init__', '_modidx'): continue
        found = set()
        for node in ast.walk(ast.parse(f.read_text())):
            if isinstance(node, ast.ImportFrom):
                mod = node.module or ''
                if node.level == 1: names = [mod] if mod else [a.name for a in node.names]
                elif mod.startswith('trn_compat.'): names = [mod.split('.')[1]]
                elif mod == 'trn_compat': names = [a.name for a in node.names]
                else: names = []
                found.update(n.split('.')[0] for n in names)
            elif isinstance(node, ast.Import):
                found.update(a.name.split('.')[1] for a in node.names if a.name.startswith('trn_compat.'))
        graph[f.stem] = {m for m in found if (ROOT/'trn_compat'/f'{m}.py').exists() and m != f.stem}
    return graph


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    "Import cycles, each as the path that closes it."
    found, state = [], {}
    def visit(m, path):
        state[m] = 'open'
        for n in sorted(graph.get(m, ())):
            if state.get(n) == 'open': found.append(path[path.index(n):] + [n])
            elif n not in state: visit(n, path + [n])
        state[m] = 'done'
    for m in sorted(graph):
        if m not in state: visit(m, [m])
    return found


def test_no_import_cycle_among_the_modules():
    graph = package_imports()
    assert {'cli', 'check', 'protocol', 'evidence'} <= set(graph) and 'protocol' in graph['check']
    assert cycles({'a': {'b'}, 'b': {'c'}, 'c': {'a'}}) == [['a', 'b', 'c', 'a']]   # the finder finds one
    assert cycles(graph) == []


def test_the_command_line_loads_no_model_stack():
    # `trn-compat --help`, `lookup` and `diff` answer at once: the CLI module imports neither torch nor transformers
    code = 'import sys, trn_compat.cli; print(sorted(m for m in ("torch", "transformers", "papermill") if m in sys.modules))'
    out = subprocess.run([sys.executable, '-c', code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == '[]', out
    res = subprocess.run([sys.executable, '-c', 'import sys; from trn_compat.cli import main; sys.exit(main(["--help"]))'],
                         capture_output=True, text=True)
    assert res.returncode == 0 and 'sweep' in res.stdout


def test_the_readme_documents_every_column_of_the_row():
    from trn_compat.results import SCHEMA
    text = (ROOT/'README.md').read_text()
    table = text[text.index('<!-- columns:start'):text.index('<!-- columns:end -->')]
    names = [line.split('`')[1] for line in table.splitlines() if line.startswith('| `')]
    assert names == SCHEMA.names
    assert all(line.rstrip().endswith('|') and line.split('|')[4].strip() for line in table.splitlines() if line.startswith('| `'))  # a meaning each
