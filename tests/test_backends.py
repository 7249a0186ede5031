"""A compiler that corrupts logits fails with the step of the first divergence; one that raises is an
error at stage compile. Both through the real CLI and papermill."""
from conftest import cli, rows


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
