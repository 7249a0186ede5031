"""Build a result store across transformers releases, with real checks: `python tools/version_pairs.py RESULTS`.

Each release is installed (without its dependencies) into a folder of its own under the
trn-compat cache and put first on PYTHONPATH for one `trn-compat sweep` of the architectures
view, so each sweep's rows land in that release's version-pair file. The installed torch and the
rest of the stack stay the same; the releases chosen must work with them (5.22-5.24 do).
"""
import argparse
import os
import subprocess
import sys
from pathlib import Path

from trn_compat.stack import package_version
from trn_compat.tiny import cache_dir

RELEASES = ('5.22.2', '5.23.0', '5.24.0')


def release_path(version: str) -> str | None:
    "A folder holding transformers `version` for PYTHONPATH (None: the installed one is that version)."
    if package_version('transformers') == version: return None
    target = cache_dir()/'transformers'/version
    if not (target/'transformers'/'__init__.py').exists():
        subprocess.run([sys.executable, '-m', 'pip', 'install', '-q', '--no-deps', '--target', str(target), f'transformers=={version}'], check=True)
    return str(target)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument('results'); ap.add_argument('--transformers', nargs='+', default=list(RELEASES))
    ap.add_argument('--limit', type=int, default=3); ap.add_argument('--compile-backend', default=None)
    ap.add_argument('--jobs', default='auto')
    args = ap.parse_args(argv)
    for v in args.transformers:
        path = release_path(v)
        env = {**os.environ, **({'PYTHONPATH': os.pathsep.join(filter(None, [path, os.environ.get('PYTHONPATH')]))} if path else {})}
        cmd = [str(Path(sys.executable).parent/'trn-compat'), 'sweep', '--view', 'architectures', '--limit', str(args.limit),
               '--results', args.results, '--jobs', args.jobs, '--no-progress'] + (['--compile-backend', args.compile_backend] if args.compile_backend else [])
        print(f'transformers {v}:', ' '.join(cmd), flush=True)
        subprocess.run(cmd, env=env, check=False)


if __name__ == '__main__':
    main()
