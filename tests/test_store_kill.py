"""A writer killed with SIGKILL in the middle of upserts leaves a readable Parquet file that holds every
row whose upsert had returned."""
import os
import random
import signal
import subprocess
import sys
import time

import pyarrow.parquet as pq

from trn_compat.results import ResultStore, VersionPair

# The writer upserts forever and says when each upsert returned. In 'rename' mode it also says, and
# waits a moment, just before the temporary file replaces the real one, so the test can kill it there:
# the new file is fully written but not yet in place.
WRITER = r'''
import os, sys, time, datetime as dt
from trn_compat import results
store, start, mode = results.ResultStore(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
if mode == 'rename':
    real_replace = os.replace
    def replace(src, dst):
        print('renaming', flush=True); time.sleep(0.5); real_replace(src, dst)
    results.os.replace = replace
big = os.urandom(100_000).hex()   # incompressible rows, so a write takes a while
for i in range(start, start + 100_000):
    now = dt.datetime.now(dt.timezone.utc)
    store.upsert(results.make_row(model_id=f"org/m{i % 40}", revision="r", run_id=str(i), task="text-generation",
                                  status="pass", platform="cpu", versions={"torch": "2.13.0", "transformers": "5.24.0"},
                                  run_py=big, started_at=now, finished_at=now))
    print(i, flush=True)
'''


def kill_writer(store, start, mode, rng):
    """Start a writer, let a few of its upserts return, then SIGKILL it: at a random moment of the next write, or just before
    a rename. Return the upserts that returned. The moment is counted in the writer's own upserts, not in seconds, so a slow
    or loaded machine kills it at the same points of its work."""
    p = subprocess.Popen([sys.executable, '-c', WRITER, str(store), str(start), mode], stdout=subprocess.PIPE, text=True)
    done, stamps, after = [], [], rng.randint(5, 10)
    for line in p.stdout:
        if line.strip().isdigit(): done.append(int(line)); stamps.append(time.monotonic())
        if len(done) < after: continue
        if mode == 'rename' and line.startswith('renaming'): break
        if mode == 'random':
            upsert = (stamps[-1] - stamps[0]) / (len(stamps) - 1)   # how long one upsert takes here, now
            time.sleep(rng.uniform(0, upsert)); break              # somewhere inside the next one
    os.kill(p.pid, signal.SIGKILL)
    done += [int(x) for x in p.communicate()[0].split() if x.isdigit()]
    return done


def test_sigkill_during_upserts_loses_nothing(tmp_path):
    rng = random.Random(0)
    done, left_tmp = [], 0
    for attempt in range(8):
        mode = 'rename' if attempt % 2 == 0 else 'random'
        done += kill_writer(tmp_path, (done[-1] + 1) if done else 0, mode, rng)
        left_tmp += bool(list(tmp_path.rglob('.*.tmp')))
        (path,) = ResultStore(tmp_path).files()
        table = pq.read_table(path).to_pylist()         # readable after every kill
        stored = {r['model_id']: int(r['run_id']) for r in table}
        returned, in_flight = {f'org/m{i % 40}' for i in done}, f'org/m{(done[-1] + 1) % 40}'
        assert len(stored) == len(table) and returned <= set(stored) <= returned | {in_flight}   # one row per model, none lost
        for i in done:                                  # each row holds its latest returned upsert, or a newer one
            assert stored[f'org/m{i % 40}'] >= i
        assert all(len(r['run_py']) == 200_000 for r in table)
    assert left_tmp >= 4, 'the kills did not land inside writes: the test did not test what it says'
    print(f'{len(done)} upserts returned; {left_tmp} of 8 kills left a written but unrenamed temporary file')


CONCURRENT = r'''
import sys, datetime as dt
from trn_compat.results import ResultStore, make_row
store, who = ResultStore(sys.argv[1]), sys.argv[2]
for i in range(40):
    now = dt.datetime.now(dt.timezone.utc)
    store.upsert(make_row(model_id=f"{who}/m{i}", revision="r", task="text-generation", status="pass", platform="cpu",
                          versions={"torch": "2.13.0", "transformers": "5.24.0"}, started_at=now, finished_at=now))
'''


def test_two_writers_at_once_lose_no_row(tmp_path):
    procs = [subprocess.Popen([sys.executable, '-c', CONCURRENT, str(tmp_path), who]) for who in ('a', 'b', 'c')]
    assert [p.wait(timeout=300) for p in procs] == [0, 0, 0]
    (path,) = ResultStore(tmp_path).files()
    ids = sorted(pq.read_table(path)['model_id'].to_pylist())
    assert ids == sorted(f'{w}/m{i}' for w in 'abc' for i in range(40))


def test_readers_during_upserts_see_whole_files(tmp_path):
    # The explorer, lookup and a sweep's resume read the store while checks write it. A writer replaces the file by a rename;
    # a reader that opened the path twice (metadata from the old file, pages from the new) read garbage: 'Couldn't deserialize
    # thrift' in a sweep test. Every read while another process upserts must give a whole table, never fewer rows than before.
    store = ResultStore(tmp_path)
    writer = subprocess.Popen([sys.executable, '-c', WRITER, str(tmp_path), '0', 'random'], stdout=subprocess.PIPE, text=True)
    try:
        assert writer.stdout.readline().strip() == '0'
        reads, last, t0 = 0, 0, time.monotonic()
        while not (reads > 50 and last == 40):   # read until the writer has filled the store and been read 50 times
            assert time.monotonic() - t0 < 600, f'{reads} reads and {last} rows after 600 s: the writer is stuck'
            (path,) = store.files()
            table = store.read(path).to_pylist()
            newest = max(table, key=lambda r: int(r['run_id']))       # rewritten only 40 upserts later
            assert len(table) >= last and store.run_row(VersionPair.of(newest), newest['run_id']) is not None
            n = len(table)
            last, reads = n, reads + 1
    finally:
        writer.kill(); writer.wait()
    print(f'{reads} reads while one process upserted')
