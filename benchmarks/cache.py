"""Compile-cache benchmark (run by hand, not in CI): `python benchmarks/cache.py [ARCH ...]`

For three tiny architectures (default llama, qwen3, mixtral) on CPU with inductor, from one run:
  cold: `trn-compat check --cache file://REMOTE` on an empty local inductor cache (compiles, publishes);
  warm: the same check on another empty local cache (fetches the model's entries first).
Prints each check's compile time (first generate minus steady decode, as the row records it), its
wall time with compilation, the fetch size, and the cold/warm ratios.
"""
import os
import subprocess
import sys
import tempfile
from pathlib import Path

os.environ.setdefault('HF_HUB_OFFLINE', '1')
from trn_compat.results import ResultStore
from trn_compat.tiny import build_tiny

BIN = Path(sys.executable).parent


def check(model, results, cache_dir, remote):
    env = {**os.environ, 'TORCHINDUCTOR_CACHE_DIR': str(cache_dir)}
    r = subprocess.run([str(BIN/'trn-compat'), 'check', str(model), '--dtype', 'float32', '--results', str(results), '--cache', remote],
                       env=env, capture_output=True, text=True)
    assert r.returncode == 0, r.stdout[-2000:] + r.stderr[-2000:]
    store = ResultStore(results)
    [row] = [x for p in store.files() for x in store.read(p).to_pylist()]
    return row


def main(archs):
    tmp = Path(tempfile.mkdtemp(prefix='trn-compat-cache-bench-'))
    remote = f'file://{tmp}/remote'
    print(f'{"arch":10} {"cold compile":>13} {"warm compile":>13} {"ratio":>6} {"cold wall":>10} {"warm wall":>10} {"ratio":>6}  entries  fetched')
    for arch in archs:
        model = build_tiny(arch, tmp/'models'/arch)
        cold = check(model, tmp/arch/'r1', tmp/arch/'machine1', remote)
        warm = check(model, tmp/arch/'r2', tmp/arch/'machine2', remote)
        assert (cold['compile_cache'], warm['compile_cache']) == ('cold', 'warm'), (cold['compile_cache'], warm['compile_cache'])
        assert cold['compile_cache_keys'] == warm['compile_cache_keys']
        size = sum(p.stat().st_size for p in (tmp/arch/'machine2').rglob('*') if p.is_file())
        print(f'{arch:10} {cold["compile_time_s"]:12.1f}s {warm["compile_time_s"]:12.1f}s {cold["compile_time_s"] / warm["compile_time_s"]:6.2f} '
              f'{cold["wall_time_s"]:9.1f}s {warm["wall_time_s"]:9.1f}s {cold["wall_time_s"] / warm["wall_time_s"]:6.2f}  '
              f'{len(cold["compile_cache_keys"]):7}  {len(warm["compile_cache_fetched"])} ({size / 2**20:.1f} MiB local)')


if __name__ == '__main__':
    main(sys.argv[1:] or ['llama', 'qwen3', 'mixtral'])
