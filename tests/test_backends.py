"""A compiler that corrupts logits fails with the step of the first divergence; one that raises is an
error at stage compile (both through the real CLI and papermill). A compiler that is right for a few
decode steps and then takes a token the reference ranks far down fails at exactly that step, for
every step it may start at."""
import nbformat

from compile_backends import STEPS
from conftest import ARTIFACTS, CHROMIUM, cli, rows, serve
from trn_compat.check import CheckParams, run_check, run_reference
from trn_compat.compare import compare_steps


def test_corrupting_backend_fails_at_first_decode_step(models, tmp_path):
    res = cli('check', models('llama'), '--platform', 'cpu', '--compile-backend', 'compile_backends:corrupt_logits',
              '--results', tmp_path)
    assert res.returncode == 1, res.stdout + res.stderr
    (row,) = rows(tmp_path)
    assert (row['status'], row['match'], row['criterion']) == ('fail', 'mismatch', 'cpu-match')
    # the prefill runs eagerly and gives token 0; the first compiled decode step gives token 1
    assert row['first_divergence'] == 1
    assert row['generated_ids'][:1] == row['reference_ids'][:1] and row['generated_ids'][1] != row['reference_ids'][1]
    assert row['ref_margin'] > 0 and 'first divergence at step 1' in res.stdout
    assert (row['mismatch_step'], row['excused_steps']) == (1, 0) and 'mismatch at step 1' in res.stdout
    # the evidence shows the divergence as a table: the step, both tokens decoded, and the reference's top 5 there
    shown = ''.join(o.get('text', '') for c in nbformat.read(tmp_path/row['notebook'], as_version=4).cells for o in c.get('outputs', []))
    table = shown[shown.index('step  device token'):].splitlines()
    assert table[1].split()[0] == '1' and table[1].rstrip().endswith('MISMATCH') and table[2].lstrip().startswith('reference top 5: '), table[:3]
    assert len(table[2].split(', ')) == 5, table[2]
    # and the explorer shows it: the row's page, its notebook with the table (kept as a screenshot)
    from urllib.parse import urlencode
    from playwright.sync_api import sync_playwright
    from trn_compat.results import VersionPair
    pair = VersionPair.of(row)
    with serve(tmp_path, tmp_path/'server-cache') as url, sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=['--no-sandbox'])
        page = browser.new_page(viewport={'width': 1400, 'height': 1000})
        page.goto(url + '/model?' + urlencode(dict(platform=pair.platform, compiler=pair.compiler_version, transformers=pair.transformers,
                                                   model=row['model_id'], task=row['task'])))
        assert 'fail' in page.locator('h1').inner_text()
        frame = page.frame_locator('#notebook')
        assert 'reference top 5: ' in frame.locator('body').inner_text(timeout=20000)
        frame.locator('body').evaluate("b => [...b.querySelectorAll('pre')].find(e => e.textContent.includes('reference top 5')).scrollIntoView()")
        ARTIFACTS.mkdir(exist_ok=True)
        page.locator('#notebook').screenshot(path=str(ARTIFACTS/'explorer-divergence.png'))
        browser.close()


def test_raising_backend_is_a_compile_error(models, tmp_path):
    res = cli('check', models('qwen3'), '--platform', 'cpu', '--compile-backend', 'compile_backends:raises', '--results', tmp_path)
    assert res.returncode == 3, res.stdout + res.stderr
    (row,) = rows(tmp_path)
    assert (row['status'], row['stage'], row['error']['type']) == ('error', 'compile', 'BackendCompilerFailed')
    assert 'refuses to compile' in row['error']['traceback'] and row['run_py']
    assert 'at stage compile' in res.stdout


def test_dead_kernel_still_leaves_a_row_and_the_notebook(models, tmp_path):
    "The notebook kernel itself dies (SIGKILL at the plan step): the runner writes an error/killed row."
    res = cli('check', models('qwen3'), '--platform', 'cpu', '--results', tmp_path, env={'TRN_COMPAT_FAILPOINT': 'kernel-plan:kill'})
    assert res.returncode == 3, res.stdout + res.stderr
    (row,) = rows(tmp_path)
    assert (row['status'], row['stage'], row['error']['type']) == ('error', 'killed', 'CheckKilled')
    assert 'DeadKernelError' in row['error']['message'] or 'kernel' in row['error']['message'].lower()
    assert (tmp_path/row['notebook']).exists() and not list(tmp_path.rglob('.*partial*'))


def test_a_wrong_token_from_any_decode_step_fails(models, monkeypatch):
    "Steps before k are the compiler's honest work; from k on it promotes the token ranked 100th. bf16, where ties are common."
    model = str(models('llama'))
    for k in range(1, STEPS + 1):
        monkeypatch.setenv('TRN_COMPAT_TEST_WRONG_FROM', str(k))
        dev = run_check(CheckParams(model, compile_backend='compile_backends:wrong_from_step'))
        assert dev['status'] == 'ok' and dev['repeat_ids'] == dev['generated_ids'], dev['error']
        ref = run_reference(CheckParams(model), score=[dev['generated_ids']], generate=False)
        c = compare_steps(dev['generated_ids'], ref['scored'][0]['steps'], 'bfloat16')
        assert (c.status, c.match) == ('fail', 'mismatch'), (k, c.explain())
        assert c.mismatch['step'] == k, (k, c.explain())
        assert c.mismatch['margin'] > 10 * c.mismatch['tolerance'], c.explain()    # far down the reference's ranking
