"""`HRDGRPOTrainer`: TRL's `GRPOTrainer` with HRD's per-token advantages from `tritonrl serve`.

Where it hooks into TRL 1.16 (trl/trainer/grpo_trainer.py):
- `_generate_and_score_completions` generates, calls the reward functions through
  `_calculate_rewards`, turns the summed reward into one advantage per completion (B,) and returns
  the batch dict that `_prepare_inputs` shuffles, splits and buffers for the optimisation steps;
- `_compute_loss` reads `inputs["advantages"]` and unsqueezes it only when it is 1-D: a (B, T)
  tensor is used per token as it is, in every loss type's `coef · advantages` product.
So the trainer's one reward function is this trainer's own: it sends each GRPO group's sampled
token ids (decoded, with their character offsets) to /v1/reward with `advantages: hrd`, returns
the server's scalar `reward` for TRL's bookkeeping and logs, and keeps the per-token rows. The
override of `_generate_and_score_completions` then replaces the (B,) advantages by those rows as
a (B, T) tensor aligned with `completion_ids`. Nothing else of TRL's loop changes.

Groups: TRL's sampler repeats each prompt `num_generations` times in a row across the global
generation batch, and every process sees its own slice of it (`_calculate_rewards` runs on local
rows, then gathers). A group can straddle two processes, so the token ids of the whole batch are
gathered first and each process requests the groups that touch its slice; the server answers a
repeated group from its store.
"""
import torch
from accelerate.utils import gather_object
from trl import GRPOTrainer

from ._columns import task_ids
from .client import TritonRLClient
from .hrd import HRDOptions, score_groups

# Loss types whose per-sequence factor depends on the sign of one advantage per completion.
_SEQUENCE_SIGN_LOSSES = ("vespo",)


class HRDGRPOTrainer(GRPOTrainer):
    """`HRDGRPOTrainer(model, args=GRPOConfig(...), train_dataset=ds, processing_class=tok,
    tritonrl="http://127.0.0.1:8000", alpha=0.1)`.

    The dataset needs a column (`task_column`, default "task") with each prompt's task id in the
    server's suite. Rewards and advantages come only from the server, so `reward_funcs` is not
    taken. `args.scale_rewards` "group" (TRL's default) divides by the group's std as TritonRL
    does, "none" centres only (Dr. GRPO); "batch" has no HRD counterpart and is refused.
    `last_hrd_batch` holds, after each generation, one dict per local completion: task, group
    (index in the global batch), completion_ids, text, token_advantages and the server's reply.
    """

    def __init__(self, model, args=None, train_dataset=None, *, tritonrl=None, task_column="task", alpha=0.1,
                 eps=1e-6, speedup_clip=None, filter_constant_groups=True, max_workers=8, reward_funcs=None, **kwargs):
        if reward_funcs is not None:
            raise TypeError("HRDGRPOTrainer takes its rewards and advantages from tritonrl serve; "
                            "pass tritonrl=URL or a TritonRLClient instead of reward_funcs")
        self.tritonrl = tritonrl if isinstance(tritonrl, TritonRLClient) else TritonRLClient(tritonrl)
        self.task_column = task_column
        self._hrd_options = HRDOptions(alpha=alpha, eps=eps, speedup_clip=speedup_clip,
                                       filter_constant_groups=filter_constant_groups)
        self._hrd_workers = max_workers
        self._hrd_rows = None
        self.last_hrd_batch = []

        def tritonrl_hrd(prompts, completions, completion_ids, **columns):
            return self._hrd_reward(prompts, completions, completion_ids, **columns)

        super().__init__(model=model, reward_funcs=[tritonrl_hrd], args=args, train_dataset=train_dataset, **kwargs)
        if self.loss_type in _SEQUENCE_SIGN_LOSSES:
            raise ValueError(f"loss_type {self.loss_type!r} weighs each completion by the sign of one advantage; "
                             "HRD gives plan and code tokens different ones")
        if self.off_policy_mask_threshold is not None:
            raise ValueError("off_policy_mask_threshold keeps or drops whole completions by their advantage's "
                             "sign; it is not defined for HRD's per-token advantages")
        if self.scale_rewards not in ("group", "none"):
            raise ValueError(f"scale_rewards {self.scale_rewards!r}: HRD normalises within each group "
                             "('group') or only centres ('none')")
        self._hrd_options.normalize_by_std = self.scale_rewards == "group"

    def _hrd_reward(self, prompts, completions, completion_ids, **kwargs):
        """The trainer's reward function: scores whole groups, keeps the local rows' per-token
        advantages for `_generate_and_score_completions`, returns the scalar rewards."""
        local_tasks = task_ids(kwargs, self.task_column, len(completions))
        local_ids = [[int(t) for t in ids] for ids in completion_ids]
        n_local = len(local_ids)
        everything = gather_object(list(zip(local_tasks, local_ids)))
        start = self.accelerator.process_index * n_local
        size = self.num_generations if self.model.training else self.num_generations_eval
        if len(everything) % size:
            raise ValueError(f"{len(everything)} completions are not whole groups of {size}")
        first, last = start // size, (start + n_local - 1) // size
        groups = []
        for g in range(first, last + 1):
            members = everything[g * size:(g + 1) * size]
            tasks = {t for t, _ in members}
            if len(tasks) != 1:
                raise ValueError(f"completions {g * size}..{(g + 1) * size - 1} should be one prompt's group but "
                                 f"have tasks {sorted(tasks)}")
            groups.append((members[0][0], [ids for _, ids in members]))
        scored = score_groups(self.tritonrl, groups, self._tokenizer, self._hrd_options, self._hrd_workers)
        rows = []
        for i in range(n_local):
            g, k = divmod(start + i, size)
            s = scored[g - first][k]
            rows.append({"task": local_tasks[i], "group": g, "completion_ids": local_ids[i], "text": s.text,
                         "token_advantages": s.token_advantages, "reply": s.reply})
        self._hrd_rows = rows
        log_metric = kwargs.get("log_metric")
        if callable(log_metric) and rows:
            log_metric("tritonrl/correct_rate", sum(bool(r["reply"].get("correct")) for r in rows) / len(rows))
        return [float(r["reply"]["reward"]) for r in rows]

    def _generate_and_score_completions(self, inputs):
        self._hrd_rows = None
        output = super()._generate_and_score_completions(inputs)
        rows, self._hrd_rows = self._hrd_rows, None
        if rows is None or len(rows) != output["completion_ids"].size(0):
            raise RuntimeError("HRD advantages were not computed for this batch (is the trainer's reward "
                               "function still its own?)")
        width = output["completion_ids"].size(1)
        adv = torch.zeros(output["completion_ids"].shape, dtype=torch.float32)
        for i, row in enumerate(rows):
            values = row["token_advantages"]
            if len(values) > width:
                raise RuntimeError(f"completion {i} has {len(values)} tokens, the batch is {width} wide")
            adv[i, :len(values)] = torch.tensor(values, dtype=torch.float32)
        # Padding positions stay 0; the completion mask keeps them out of the loss anyway.
        output["advantages"] = adv.to(output["completion_ids"].device)
        self.last_hrd_batch = rows
        return output
