"""Sweep benchmark (run by hand, not in CI): `python benchmarks/sweep.py`

Prints, from one run on this machine:
  (a) harness overhead per model: the check through papermill (its own kernel) vs the same check
      called in-process (CheckRecord's steps in this process), as a ratio;
  (b) a sweep of 8 tiny architectures with --jobs 1 vs --jobs 2, as a ratio (each sweep with a
      fresh inductor cache, so both compile cold);
  (c) a second run of the same sweep (everything resumed) vs the first.
"""
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

os.environ.setdefault('HF_HUB_OFFLINE', '1')
from trn_compat.evidence import CheckRecord
from trn_compat.runner import check_notebook
from trn_compat.tiny import build_tiny

BIN = Path(sys.executable).parent


def timed(f):
    t = time.perf_counter(); f(); return time.perf_counter() - t


def in_process(model, results):
    rec = CheckRecord(model, compile_backend='aot_eager', results_dir=results)
    rec.stack(); rec.plan(); rec.check(); rec.reference(); rec.judge(); rec.verdict(); row = rec.save()
    assert row['status'] == 'pass', row


def through_papermill(model, results):
    row = check_notebook(model, results, compile_backend='aot_eager')
    assert row['status'] == 'pass', row


def sweep(results, jobs, cache):
    env = {**os.environ, 'TORCHINDUCTOR_CACHE_DIR': cache}
    cmd = [str(BIN/'trn-compat'), 'sweep', '--view', 'architectures', '--limit', '8', '--results', results, '--jobs', str(jobs), '--no-progress']
    t = time.perf_counter()
    res = subprocess.run(cmd, env=env, capture_output=True, text=True)
    took = time.perf_counter() - t
    assert res.returncode == 0, res.stdout + res.stderr
    return took, res.stdout


def main():
    tmp = Path(tempfile.mkdtemp(prefix='trn-compat-bench-'))
    model = str(build_tiny('llama', tmp/'llama'))
    with open(os.devnull, 'w') as null:   # the in-process check prints its evidence; keep the report readable
        import contextlib
        with contextlib.redirect_stdout(null):
            through_papermill(model, tmp/'warm')   # warm the OS file cache and pyc for both
            inproc = [timed(lambda i=i: in_process(model, tmp/f'in{i}')) for i in range(3)]
        pm = [timed(lambda i=i: through_papermill(model, tmp/f'pm{i}')) for i in range(3)]
    a_in, a_pm = statistics.median(inproc), statistics.median(pm)
    print(f'(a) one tiny Llama check (aot_eager, check + CPU reference), median of 3:')
    print(f'    in-process {a_in:.1f} s, through papermill {a_pm:.1f} s: ratio {a_pm / a_in:.2f} (overhead {a_pm - a_in:.1f} s per model)')

    for arch in ('llama', 'qwen3', 'qwen3_moe', 'mixtral', 'mistral', 'qwen2', 'gemma2', 'phi3'):   # build outside the timing
        from trn_compat.views import architectures
        [build_tiny(e.tiny, e.model) for e in architectures() if e.tiny == arch]
    t1, _ = sweep(str(tmp/'s1'), 1, str(tmp/'ind1'))
    t2, _ = sweep(str(tmp/'s2'), 2, str(tmp/'ind2'))
    t3, out = sweep(str(tmp/'s2'), 2, str(tmp/'ind2'))
    assert 'nothing to do' in out
    print(f'(b) sweep of 8 tiny architectures (inductor, cold cache), {os.cpu_count()} cores:')
    print(f'    --jobs 1 {t1:.1f} s, --jobs 2 {t2:.1f} s: ratio jobs1/jobs2 {t1 / t2:.2f}')
    print(f'(c) the same sweep again, everything resumed: {t3:.1f} s vs {t2:.1f} s first: ratio {t3 / t2:.3f}')


if __name__ == '__main__':
    main()
