"""What the Ray engine costs against the local one, and what a version pair's environment costs, from one run.

    python benchmarks/fleet.py [--limit 8] [--backend aot_eager]

1. `trn-compat sweep --view architectures --limit N --jobs 2` (local) against the same sweep with
   `--engine ray` and no address (an embedded one-node cluster started and stopped by the sweep),
   each into a fresh results folder, with the tiny checkpoints already built: wall time of each
   command, and Ray's share (start, workers, stop) as the difference.
2. The environment of a version pair (transformers 5.23.0, layered on this one) built cold into an
   empty folder, then asked for again (reused).
Everything runs in temporary folders; Ray's session files go to one of them and are removed.
"""
import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import psutil

BIN = Path(sys.executable).parent


def sweep(results, limit, backend, env, *extra):
    cmd = [str(BIN/'trn-compat'), 'sweep', '--view', 'architectures', '--limit', str(limit), '--results', str(results),
           '--compile-backend', backend, '--no-progress', *extra]
    t = time.monotonic()
    out = subprocess.run(cmd, capture_output=True, text=True, env=env)
    took = time.monotonic() - t
    if out.returncode not in (0, 1): sys.exit(f'{" ".join(cmd)} failed:\n{out.stdout}\n{out.stderr}')
    return took, out.stdout


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument('--limit', type=int, default=8)
    ap.add_argument('--backend', default='aot_eager')
    args = ap.parse_args()
    tmp = Path(tempfile.mkdtemp(prefix='fleet-bench-'))
    env = {**os.environ, 'RAY_TMPDIR': str(tmp/'ray'), 'RAY_USAGE_STATS_ENABLED': '0'}
    (tmp/'ray').mkdir()
    try:
        from trn_compat.views import architectures
        from trn_compat.tiny import build_tiny
        for e in architectures('text-generation')[:args.limit]: build_tiny(e.tiny, e.model)   # both engines find them built
        local, _ = sweep(tmp/'local', args.limit, args.backend, env, '--jobs', '2')
        ray, out = sweep(tmp/'ray', args.limit, args.backend, env, '--engine', 'ray')
        left = [p.pid for p in psutil.process_iter(['cmdline']) if str(tmp/'ray') in ' '.join(p.info['cmdline'] or [])]
        print(f'{args.limit} architectures, {args.backend}, 2 cores')
        print(f'  local --jobs 2          {local:6.1f} s')
        print(f'  ray, embedded, 1 node   {ray:6.1f} s   ratio ray/local {ray / local:.2f}, Ray costs {ray - local:+.1f} s')
        print(f'  Ray processes left after the sweep: {len(left)}; session files: {sum(f.stat().st_size for f in (tmp/"ray").rglob("*") if f.is_file()) / 2**20:.0f} MiB')

        from trn_compat.fleet import Stack, pair_env
        t = time.monotonic(); cold = pair_env(Stack('5.23.0'), tmp/'envs'); cold_s = time.monotonic() - t
        t = time.monotonic(); again = pair_env(Stack('5.23.0'), tmp/'envs'); again_s = time.monotonic() - t
        assert cold.versions['transformers'] == again.versions['transformers'] == '5.23.0'
        size = sum(f.stat().st_size for f in (tmp/'envs').rglob('*') if f.is_file() and not f.is_symlink()) / 2**20
        print(f'transformers 5.23.0 environment: cold {cold_s:.1f} s, reused {again_s:.3f} s (ratio {cold_s / max(again_s, 1e-6):.0f}), {size:.0f} MiB on disk')
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == '__main__':
    main()
