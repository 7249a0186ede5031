"""The judge as a user runs it (`trn-compat judge`, on a machine with no route to the Hub: the bundled judge, which says so), on texts that are in neither its labelled set nor its lessons:
a coherent answer in markdown, one with a `<think>` block and a short Python function with one sentence of prose pass;
a text that turns into a loop after 15 tokens, and one that turns into random tokens, fail; `--explain` shows why."""
import json

from conftest import cli, no_route_to_the_hub

PASS = [
    'Three tips for better sleep:\n\n1. **Keep a schedule**: go to bed at the same time every night.\n'
    '2. **Limit screens**: put the phone away an hour before bed.\n3. **Stay cool**: a cool, dark room helps you fall asleep.',
    '<think>\nThe user asks for one sentence about autumn. I will mention the leaves and the cooler air.\n</think>\n\n'
    'In autumn the leaves turn red and gold, and the evenings grow cool and crisp.',
    'Here is a function that adds two numbers:\n\n```python\ndef add(a, b):\n    return a + b\n```',
]
FAIL = [
    'Autumn is my favourite season because the leaves turn red and gold and the leaves and the leaves and the leaves '
    'and the leaves and the leaves and the leaves and the leaves',
    'Autumn is my favourite season because the leaves turn red and gold, and the air Hyp quint ]] Vir ph nest oriented grav skew',
]


def test_judge_passes_markdown_reasoning_and_code_and_fails_a_loop(smollm2):
    res = cli('judge', '--json', *PASS, *FAIL, env=no_route_to_the_hub())   # no HF_HUB_OFFLINE, and the Hub does not answer
    assert res.returncode == 0, res.stderr
    out = json.loads(res.stdout)
    assert out['chosen'].startswith('bundled: the Hub cannot be used') and 'did not answer' in out['chosen'], out['chosen']
    assert out['controls_ok'] and out['judge'].startswith('SmolLM2-135M') and out['method_sha']
    got = [v['coherent'] for v in out['verdicts']]
    assert got == [True] * len(PASS) + [False] * len(FAIL), [(v['coherent'], v['decided_by']) for v in out['verdicts']]
    assert out['verdicts'][3]['decided_by'] in ('rule: loop', 'rule: repetition')
    assert all(v['decided_by'] for v in out['verdicts'])   # one line that says what decided


def test_judge_explain_shows_the_windows_that_decided(smollm2):
    res = cli('judge', '--explain', FAIL[1])
    assert res.returncode == 0, res.stderr
    assert 'verdict: not coherent' in res.stdout and 'window' in res.stdout
    assert "'Hyp'" in res.stdout or "' Hyp'" in res.stdout        # the token table
    marks = [line.split()[-1] for line in res.stdout.splitlines() if 'Hyp' in line and 'threshold' not in line]
    assert marks and 'w' in marks[0], marks   # marked in the worst surprise window ('w'; 'c' where also in the worst context window)
