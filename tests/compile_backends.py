"""torch.compile backends that break on purpose, to prove the check notices. Used as
`--compile-backend compile_backends:NAME` (tests put this folder on PYTHONPATH)."""
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
