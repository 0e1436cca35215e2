"""TRL adapters (docs/adapters.md).

- `TritonRLReward`: a reward function for TRL's `GRPOTrainer` (and any trainer that calls
  `reward_func(prompts=..., completions=..., **dataset_columns)` and wants one float per
  completion). Standard library only: importing it pulls in neither torch nor TRL.
- `HRDGRPOTrainer`: a `GRPOTrainer` whose loss gets HRD's per-token advantages. It lives in
  `tritonrl._trl_hrd` and is imported from there on first use of the name, so that this module
  stays importable where TRL is not installed.
"""
from collections import defaultdict
from concurrent.futures import ThreadPoolExecutor

from ._columns import task_ids
from .client import TritonRLClient


def completion_text(completion):
    """TRL passes a plain string, or in conversational datasets a list of messages whose last one
    is the assistant's reply."""
    if isinstance(completion, str):
        return completion
    if isinstance(completion, list) and completion and isinstance(completion[-1], dict):
        return completion[-1].get("content") or ""
    raise TypeError(f"a completion is a string or a list of chat messages, got {type(completion).__name__}")



class TritonRLReward:
    """`reward_funcs=TritonRLReward()` in `GRPOTrainer`: the server's scalar `reward` per completion,
    TritonRL's beta·R_correct + (1 - beta)·R_speedup (beta = 0.3), or AutoTriton's R_binary with
    mode="binary" (docs/rl.md, "The one scalar").

    The completions of each task go to POST /v1/reward together (at most `max_group` per request,
    the server's --max-group), requests for different tasks run concurrently. Errors are raised,
    never turned into a reward of 0: a server that is down or a task id it does not serve would
    otherwise train the policy on silence.
    """

    __name__ = "tritonrl"  # TRL names the reward's metrics after it

    def __init__(self, client=None, task_column="task", mode="uniform", beta=0.3, speedup_clip=None,
                 max_group=64, max_workers=8):
        self.client = client if isinstance(client, TritonRLClient) else TritonRLClient(client)
        self.task_column = task_column
        if mode not in ("uniform", "binary"):
            raise ValueError(f"mode {mode!r}: the scalar reward is 'uniform' (TritonRL) or 'binary' (AutoTriton)")
        self.mode, self.beta, self.speedup_clip = mode, beta, speedup_clip
        self.max_group, self.max_workers = max_group, max_workers

    def __call__(self, prompts, completions, **kwargs):
        texts = [completion_text(c) for c in completions]
        tasks = task_ids(kwargs, self.task_column, len(texts))
        by_task = defaultdict(list)
        for i, t in enumerate(tasks):
            by_task[t].append(i)
        chunks = [(t, idx[k:k + self.max_group]) for t, idx in by_task.items()
                  for k in range(0, len(idx), self.max_group)]
        # The default reply already carries `reward` for uniform with beta 0.3; other settings
        # are sent as an advantages request, whose scalar `reward` follows them.
        adv = None if (self.mode, self.beta) == ("uniform", 0.3) else {"mode": self.mode, "beta": self.beta}

        def score(chunk):
            task, idx = chunk
            reply = self.client.reward(task, [{"id": str(i), "output": texts[i]} for i in idx],
                                       advantages=adv, speedup_clip=self.speedup_clip)
            return [(int(r["id"]), r) for r in reply["rollouts"]]

        rewards, correct = [0.0] * len(texts), 0
        with ThreadPoolExecutor(max_workers=max(1, min(self.max_workers, len(chunks)))) as pool:
            for part in pool.map(score, chunks):
                for i, r in part:
                    rewards[i] = float(r["reward"])
                    correct += bool(r.get("correct"))
        log_metric = kwargs.get("log_metric")
        if callable(log_metric) and texts:
            log_metric("tritonrl/correct_rate", correct / len(texts))
        return rewards


def __getattr__(name):
    if name == "HRDGRPOTrainer":
        from ._trl_hrd import HRDGRPOTrainer

        return HRDGRPOTrainer
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
