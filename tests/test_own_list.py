"""A sweep of your own list, and what a mistyped id becomes: an `error` row with reason `bad-input` that is reported (lookup
shows why), is not counted in the pass rate, and `forget` removes with its notebook. `diff` with one version pair says so."""
from pathlib import Path

from conftest import cli, rows
from trn_compat.catalog import Catalog
from trn_compat.results import scrub
from trn_compat.plots import pass_rate


def test_a_sweep_of_your_list_and_a_mistyped_id(tmp_path, models):
    good, typo = models('llama'), tmp_path/'lama'                   # a folder that does not exist: a mistyped path
    listing = tmp_path/'models.txt'
    listing.write_text(f'# my models\n{good}\n\n{typo}   # this one is mistyped\n{good}\n')
    store = tmp_path/'results'
    res = cli('sweep', '--models-file', listing, '--platform', 'cpu', '--results', store, '--no-progress', '--compile-backend', 'aot_eager')
    assert res.returncode == 1, res.stdout + res.stderr                # not every row passed: the mistyped one is reported
    assert 'sweep: 2 models of the list of' in res.stdout, res.stdout  # each model once
    got = {r['model_id']: r for r in rows(store)}
    assert got['llama']['status'] == 'pass', got['llama']['error']          # a folder is recorded under its name
    bad = got['lama']
    assert (bad['status'], bad['stage'], bad['reason'], bad['error']['type']) == ('error', 'plan', 'bad-input', 'ModelNotFound')
    cat = Catalog(store)
    (pair,) = cat.pairs()
    assert pass_rate(cat.rows(pair)) == (1, 1)                         # the mistyped id is not a failure of the platform

    res = cli('lookup', 'lama', '--results', store)
    assert res.returncode == 0 and 'error: bad input (not counted)' in res.stdout, res.stdout
    assert scrub(f"ModelNotFound: no folder '{typo}'") in res.stdout and str(store/bad['notebook']) in res.stdout, res.stdout

    res = cli('diff', 'a', 'b', '--results', store)
    assert res.returncode == 2 and f'holds one: {pair.platform}/{pair.name}' in res.stderr, res.stderr

    notebook = store/bad['notebook']
    assert notebook.exists()
    res = cli('forget', typo, '--results', store)
    assert res.returncode == 0 and 'forgot lama' in res.stdout, res.stdout + res.stderr   # the folder given: the id its row holds
    assert [r['model_id'] for r in rows(store)] == ['llama'] and not notebook.exists() and (store/got['llama']['notebook']).exists()
    res = cli('forget', typo, '--results', store)
    assert res.returncode == 1 and 'no row of' in res.stderr, res.stderr

    res = cli('sweep', '--models', 'a/b', '--view', 'selected', '--results', store)
    assert res.returncode == 2 and 'not allowed with' in res.stderr
    (tmp_path/'bad.txt').write_text('org/a org/b\n')
    res = cli('sweep', '--models-file', tmp_path/'bad.txt', '--results', store)
    assert res.returncode == 2 and 'line 1' in res.stderr, res.stderr
