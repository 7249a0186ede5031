"""torch.compile backends that break on purpose, to prove the check notices. Used as
`--compile-backend compile_backends:NAME` (tests put this folder on PYTHONPATH)."""
import os

import torch


def raises(gm, example_inputs):
    "A backend whose compilation fails."
    raise RuntimeError('compile_backends.raises: this backend refuses to compile')


def corrupt_logits(gm, example_inputs):
    "A backend that compiles fine but shifts the vocabulary axis of the logits by one."
    def run(*args):
        outs = gm(*args)
        single = not isinstance(outs, (tuple, list))
        fixed = [torch.roll(o, 1, -1) if isinstance(o, torch.Tensor) and o.is_floating_point() and o.dim() == 3
                 and o.shape[-1] >= 256 else o for o in ([outs] if single else outs)]
        return fixed[0] if single else type(outs)(fixed)
    return run


STEPS = 31   # compiled calls per generate: 32 tokens, the first from the eager prefill


def wrong_from_step(gm, example_inputs):
    """A backend that is right for the first decode steps and then wrong: from decode step
    `TRN_COMPAT_TEST_WRONG_FROM` (default 9; step 0 is the eager prefill) to the end of each generate, it
    makes the token the logits rank `TRN_COMPAT_TEST_WRONG_RANK` (default 100) the top-1."""
    start = int(os.environ.get('TRN_COMPAT_TEST_WRONG_FROM', '9'))
    rank = int(os.environ.get('TRN_COMPAT_TEST_WRONG_RANK', '100'))
    calls = [0]

    def promote(logits):
        row = logits[0, -1].float()
        low = torch.topk(row, rank + 1).indices[rank]
        out = logits.clone()
        out[0, -1, low] = (row.max() + 1).to(logits.dtype)
        return out

    def run(*args):
        outs = gm(*args)
        step = calls[0] % STEPS + 1
        calls[0] += 1
        if step < start: return outs
        single = not isinstance(outs, (tuple, list))
        fixed = [promote(o) if isinstance(o, torch.Tensor) and o.is_floating_point() and o.dim() == 3 and o.shape[-1] >= 256 else o
                 for o in ([outs] if single else outs)]
        return fixed[0] if single else type(outs)(fixed)
    return run
