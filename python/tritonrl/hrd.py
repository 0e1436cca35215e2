"""Per-token GRPO advantages from `tritonrl serve`, for engines whose loss takes a [batch, tokens]
advantage tensor (TRL's GRPOTrainer, verl's actor). Standard library only.

The arithmetic is not here: the server computes it with the same `src/rl` code as `tritonrl
train grpo` and `tritonrl advantages` (docs/rl.md), so there is one definition of HRD. This module
sends each GRPO group's completions with their token offsets and expands the `token_spans` that
come back into one advantage per token.

HRD as the server computes it (the TritonRL paper, §2.1; docs/rl.md,
"Advantages"), for a group of G completions of one task:
  R_correct = syntax·functionality·correct, R_speedup = R_correct-gated min(speedup, clip);
  A(r)_i = (r_i - mean(r)) / (std(r) + eps), std the sample std (G - 1), eps = 1e-6, or
  r_i - mean(r) with normalize_by_std=False (Dr. GRPO); a group whose values are all equal gets 0;
  plan tokens (inside the first <think>...</think>) get alpha·A(R_speedup), alpha = 0.1 by
  default as in TritonRL's objective J = alpha·J_plan + J_code; every other token A(R_correct).
The paper's alpha weighs the plan objective; here it scales the plan tokens' advantage inside one
token-averaged loss (the reading docs/train.md uses), so a plan token weighs alpha times a code
token of equal advantage, whatever the plan's length.
"""
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

from .tokens import text_and_offsets


@dataclass
class HRDOptions:
    """The `advantages` object of a /v1/reward request (docs/serve.md); defaults are the server's."""
    alpha: float = 0.1
    normalize_by_std: bool = True
    eps: float = 1e-6
    filter_constant_groups: bool = True
    mode: str = "hrd"  # "hrd", or "uniform" / "binary" to put one advantage on every token
    beta: float = 0.3  # uniform mode's weight of R_correct (also the scalar `reward`'s)
    speedup_clip: float | None = None  # None: the server's default, 2.0

    def request(self):
        return {"mode": self.mode, "alpha": self.alpha, "beta": self.beta, "normalize_by_std": self.normalize_by_std,
                "filter_constant_groups": self.filter_constant_groups, "eps": self.eps}


@dataclass
class ScoredRollout:
    """One completion of a group: its decoded text, the token offsets sent, one advantage per token
    id, and the server's reply for it (verdict fields, r_correct, r_speedup, adv_plan, adv_code,
    plan_tokens, token_spans, reward)."""
    text: str
    offsets: list
    token_advantages: list
    reply: dict

    @property
    def reward(self):
        return self.reply["reward"]


def expand_spans(spans, num_tokens):
    """[[begin, end, advantage], ...] covering [0, num_tokens) in order -> one float per token.
    Raises ValueError when the spans do not tile the range (a server/client mismatch in lengths
    must not silently leave tokens at 0)."""
    row, at = [], 0
    for begin, end, adv in spans:
        if begin != at or end < begin:
            raise ValueError(f"token spans {spans} do not tile [0, {num_tokens})")
        row.extend([float(adv)] * (end - begin))
        at = end
    if at != num_tokens:
        raise ValueError(f"token spans {spans} cover {at} tokens, the completion has {num_tokens}")
    return row


def score_group(client, task, token_ids, tokenizer, options=None):
    """One GRPO group: the completions `token_ids` (lists of ints) sampled for `task`, decoded and
    scored together -> [ScoredRollout] in the same order."""
    options = options or HRDOptions()
    texts_offsets = [text_and_offsets(tokenizer, ids) for ids in token_ids]
    rollouts = [{"id": str(i), "output": text, "token_offsets": offsets}
                for i, (text, offsets) in enumerate(texts_offsets)]
    reply = client.reward(task, rollouts, advantages=options.request(), speedup_clip=options.speedup_clip)
    by_id = {r["id"]: r for r in reply["rollouts"]}
    scored = []
    for i, ((text, offsets), ids) in enumerate(zip(texts_offsets, token_ids)):
        r = by_id[str(i)]
        if r.get("num_tokens") != len(ids):
            raise ValueError(f"task {task!r} rollout {i}: the server counted {r.get('num_tokens')} tokens, "
                             f"the completion has {len(ids)}")
        scored.append(ScoredRollout(text, offsets, expand_spans(r["token_spans"], len(ids)), r))
    return scored


def score_groups(client, groups, tokenizer, options=None, max_workers=8):
    """[(task, [token ids, ...]), ...] -> [[ScoredRollout], ...], the groups scored concurrently
    (the server shares its evaluation workers among requests)."""
    if not groups:
        return []
    with ThreadPoolExecutor(max_workers=max(1, min(max_workers, len(groups)))) as pool:
        return list(pool.map(lambda g: score_group(client, g[0], g[1], tokenizer, options), groups))
