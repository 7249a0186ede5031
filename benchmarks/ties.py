"""How far compiled and eager runs drift apart, and how often they diverge at ties (run by hand, not in CI):
`python benchmarks/ties.py [--prompts N] [--sharded-prompts N]`

It measures what the near-tie tolerance of the verdict (`trn_compat.compare.TIE_ULPS`) must cover.
Prompts are "Write one sentence about X." with X chosen so that every prompt has the same token count
(so inductor compiles each configuration's decode step once, not once per prompt).

1. One core, for SmolLM2-135M-Instruct and tiny random Llama and Qwen3, in bf16, fp16 and fp32: the decode
   step compiled with inductor, then the eager CPU reference teacher-forced on the compiled run's own
   tokens. Per step, the *noise* is the largest |compiled - eager| logit among the reference's top 5
   tokens, in ulps of the dtype at the reference's top-1 score; a *divergence* is a step where the
   compiled run took another token than the reference's top-1, and its *gap* (top-1 score minus the
   taken token's reference score, in ulps) is what the tolerance must excuse.
2. Through the check itself (`check.run_sharded` with tensor parallelism, then `run_reference(score=...)`
   and `compare.compare_steps`): the same gaps for sharded runs, SmolLM2 on 3 workers and the tiny
   models on 2, in the same dtypes.
"""
import argparse
import math
import os
import statistics
import sys
import tempfile
from dataclasses import replace
from pathlib import Path

os.environ.setdefault('HF_HUB_OFFLINE', '1')
os.environ.setdefault('TOKENIZERS_PARALLELISM', 'false')
os.environ.setdefault('TORCHINDUCTOR_COMPILE_THREADS', '1')   # no forked compile workers (they would repeat buffered output)
import torch
import transformers

from trn_compat.check import (CheckParams, build_inputs, generation_kwargs, load_model, run_reference, run_sharded, step_scores,
                              teacher_forced, tokenizer_of)
from trn_compat.compare import TIE_ULPS, compare_steps, ulp
from trn_compat.tiny import build_tiny, smollm2

TOPICS = ('sea moon sun river city forest winter music coffee history science love money time rain snow fire wind war art food '
          'sleep dogs cats birds trees books school work home family friends space stars').split()


def same_length_prompts(model:str, n:int) -> list[str]:
    "Up to `n` prompts 'Write one sentence about X.' that share the most common token count under the model's chat template."
    tok = transformers.AutoTokenizer.from_pretrained(model)
    def length(t):
        text = tok.apply_chat_template([{'role': 'user', 'content': t}], add_generation_prompt=True, tokenize=False) if tok.chat_template else t
        return len(tok(text, add_special_tokens=False)['input_ids'])
    prompts = [f'Write one sentence about {x}.' for x in TOPICS]
    lengths = [length(p) for p in prompts]
    common = statistics.mode(lengths)
    return [p for p, l in zip(prompts, lengths) if l == common][:n]


def in_ulps(x:float, top1:float, dtype:str) -> float: return x / ulp(top1, dtype)


def one_core(model:str, dtype:str, prompts:list[str]) -> dict:
    "Compiled (inductor) against eager, teacher-forced on the compiled tokens: noise per step and the gap at each divergence."
    p = CheckParams(model, dtype=dtype)
    m, proc = load_model(p, 'cpu')
    tok = tokenizer_of(proc)
    eager, compiled = generation_kwargs(p, tok, None), generation_kwargs(p, tok, 'inductor') | dict(output_logits=True, return_dict_in_generate=True)
    noise, gaps, steps = [], [], 0
    for prompt in prompts:
        inputs, _ = build_inputs(proc, replace(p, prompt=prompt), 'cpu', m.dtype)
        out = m.generate(**inputs, **compiled)
        ids = out.sequences[0, inputs['input_ids'].shape[1]:].tolist()
        ref = teacher_forced(m, inputs, eager, ids)
        for i, (d, r) in enumerate(zip(ids, ref)):
            dev, top1 = out.logits[i][0].float(), r.max().item()
            top5 = torch.topk(r, 5).indices
            noise.append(in_ulps((dev[top5] - r[top5]).abs().max().item(), top1, dtype))
            if d != int(r.argmax()): gaps.append(in_ulps(top1 - r[d].item(), top1, dtype))
        steps += len(ids)
    return dict(checks=len(prompts), steps=steps, noise=noise, gaps=gaps)


def sharded(model:str, dtype:str, cores:int, prompts:list[str]) -> dict:
    "The check's own sharded run (TP over `cores` workers, inductor) against the teacher-forced reference."
    gaps, steps, mismatches = [], 0, 0
    for prompt in prompts:
        p = CheckParams(model, dtype=dtype, cores=cores, tp_degree=cores, prompt=prompt)
        dev = run_sharded(p)
        assert dev['status'] == 'ok', dev['error']
        ref = run_reference(p, score=[dev['generated_ids']], generate=False)
        st = ref['scored'][0]['steps']
        c = compare_steps(dev['generated_ids'], st, dtype)
        mismatches += c.match == 'mismatch'
        gaps += [in_ulps(st['top1'][i] - st['token_scores'][i], st['top1'][i], dtype)
                 for i in range(len(st['tokens'])) if st['tokens'][i] != st['top1_ids'][i]]
        steps += len(st['tokens'])
    return dict(checks=len(prompts), steps=steps, gaps=gaps, mismatches=mismatches)


def line(name:str, dtype:str, r:dict) -> str:
    g = r['gaps']
    noise = f'{max(r["noise"]):7.1f} {statistics.quantiles(r["noise"], n=100)[98]:7.1f}' if 'noise' in r else f'{"-":>7} {"-":>7}'
    return (f'{name:34} {dtype:9} {r["checks"]:6} {r["steps"]:6} {noise} {len(g):6} {max(g, default=0):8.1f} '
            f'{sum(x > TIE_ULPS[dtype] for x in g):10}')


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument('--prompts', type=int, default=16, help='prompts per one-core configuration')
    ap.add_argument('--sharded-prompts', type=int, default=6, help='prompts per sharded configuration (0: none)')
    ap.add_argument('--dtypes', default='bfloat16,float16,float32', help='comma-separated dtypes')
    ap.add_argument('--models', default='smollm2,llama,qwen3', help='comma-separated: smollm2 and tiny architectures')
    args = ap.parse_args(argv)
    torch.set_num_threads(max(1, len(os.sched_getaffinity(0))))
    tmp = Path(tempfile.mkdtemp(prefix='trn-compat-ties-'))
    models = {('SmolLM2-135M-Instruct' if m == 'smollm2' else f'tiny {m}'): (str(smollm2() if m == 'smollm2' else build_tiny(m, tmp/m)), 3 if m == 'smollm2' else 2)
              for m in args.models.split(',')}
    print(f'tolerance: {TIE_ULPS} ulps of the reference\'s top-1 score\n')
    print(f'{"configuration":34} {"dtype":9} {"checks":>6} {"steps":>6} {"noise":>7} {"p99":>7} {"divs":>6} {"max gap":>8} {"> tol.":>10}')
    print(f'{"":34} {"":9} {"":6} {"":6} {"(ulps)":>7} {"(ulps)":>7} {"":6} {"(ulps)":>8}')
    for name, (path, cores) in models.items():
        for dtype in args.dtypes.split(','):
            prompts = same_length_prompts(path, args.prompts)
            print(line(f'{name}, 1 core', dtype, one_core(path, dtype, prompts)), flush=True)
            if not args.sharded_prompts: continue
            r = sharded(path, dtype, cores, prompts[:args.sharded_prompts])
            print(line(f'{name}, {cores} cores TP', dtype, r) + (f'  ({r["mismatches"]} mismatch)' if r['mismatches'] else ''), flush=True)


if __name__ == '__main__':
    sys.exit(main())
