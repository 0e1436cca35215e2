"""verl adapters (docs/adapters.md), written against verl 0.9.1's contracts; verl itself is not
imported here, nor installed by this project (it pins transformers 5.10 and brings ray: see the
doc).

- `compute_score(data_source, solution_str, ground_truth, extra_info=None, **kwargs)`: verl's
  custom reward function (`custom_reward_function.path=<this file>`, `name=compute_score`). The
  task id is `extra_info["task"]` when given, else `ground_truth`. It returns a dict: verl takes
  `score` as the reward and stores every other key per sample in the batch (`reward_extra_info`).
  Standard library only.
- `make_hrd_estimator(tokenizer, ...)` / `register_hrd_estimator(tokenizer, name)`: an advantage
  estimator with the keyword interface verl's `compute_advantage` calls registered estimators with
  (`token_level_rewards`, `response_mask`, `index` = the group uid per row, `config`), returning
  `(advantages, returns)` of shape (batch, response_length). HRD needs more than a scalar reward
  per row: the task id and the response's token ids, which it takes from the `non_tensor_batch`
  and `batch` keywords. verl 0.9.1 passes those two only to the estimator registered as "gdpo"
  (`verl/trainer/ppo/ray_trainer.py`, `compute_advantage`); the doc gives the two ways to run it.
  torch is imported when the estimator runs, not before.
"""
from .client import TritonRLClient
from .hrd import HRDOptions, score_groups

_CLIENT = None


def _default_client():
    global _CLIENT
    if _CLIENT is None:
        _CLIENT = TritonRLClient()
    return _CLIENT


def task_of(ground_truth, extra_info):
    task = (extra_info or {}).get("task") or ground_truth
    if not isinstance(task, str) or not task:
        raise ValueError(f"tritonrl compute_score: no task id (extra_info['task'] or ground_truth), got {task!r}")
    return task


def compute_score(data_source, solution_str, ground_truth, extra_info=None, client=None, **kwargs):
    """TritonRL's scalar reward for one response, with the verdict's parts as extra keys (all
    floats, so that verl can stack them across the batch)."""
    client = client or _default_client()
    task = task_of(ground_truth, extra_info)
    r = client.reward(task, [{"output": solution_str}])["rollouts"][0]
    return {"score": float(r["reward"]), "r_correct": float(r["r_correct"]), "r_speedup": float(r["r_speedup"]),
            "valid": float(bool(r["valid"])), "correct": float(bool(r["correct"]))}


def make_hrd_estimator(tokenizer, client=None, alpha=0.1, speedup_clip=None, filter_constant_groups=True):
    """The HRD estimator for verl, bound to the policy's tokenizer (to decode each response's token
    ids with their character offsets, as the TRL trainer does) and to a server."""
    client = client or _default_client()

    def compute_tritonrl_hrd_advantage(token_level_rewards, response_mask, index=None, epsilon=1e-6,
                                       norm_adv_by_std_in_grpo=None, config=None, non_tensor_batch=None,
                                       batch=None, **kwargs):
        import torch

        if non_tensor_batch is None or batch is None or index is None:
            raise TypeError("tritonrl HRD estimator: needs index (the rollouts' uid), non_tensor_batch and batch; "
                            "verl 0.9.1 passes the last two only to the estimator named 'gdpo' "
                            "(docs/adapters.md, 'verl')")
        if norm_adv_by_std_in_grpo is None:
            norm_adv_by_std_in_grpo = config.get("norm_adv_by_std_in_grpo", True) if config is not None else True
        options = HRDOptions(alpha=alpha, eps=epsilon, normalize_by_std=bool(norm_adv_by_std_in_grpo),
                             filter_constant_groups=filter_constant_groups, speedup_clip=speedup_clip)
        responses = batch["responses"]
        lengths = response_mask.sum(dim=-1).tolist()
        rows = {}
        for i, uid in enumerate(index):
            rows.setdefault(uid, []).append(i)
        groups, members = [], []
        for uid, idx in rows.items():
            tasks = {_row_task(non_tensor_batch, i) for i in idx}
            if len(tasks) != 1:
                raise ValueError(f"tritonrl HRD estimator: group {uid!r} mixes tasks {sorted(tasks)}")
            groups.append((tasks.pop(), [responses[i, :int(lengths[i])].tolist() for i in idx]))
            members.append(idx)
        scored = score_groups(client, groups, tokenizer, options)
        advantages = torch.zeros_like(token_level_rewards, dtype=torch.float32)
        for idx, group in zip(members, scored):
            for i, s in zip(idx, group):
                advantages[i, :len(s.token_advantages)] = torch.tensor(s.token_advantages, dtype=torch.float32)
        # Outcome-only, as verl's GRPO estimator: the returns are the advantages.
        advantages = advantages * response_mask
        return advantages, advantages

    return compute_tritonrl_hrd_advantage


def _row_task(non_tensor_batch, i):
    extra = non_tensor_batch.get("extra_info")
    extra = extra[i] if extra is not None else None
    model = non_tensor_batch.get("reward_model")
    truth = model[i].get("ground_truth") if model is not None else None
    return task_of(truth, extra)


def register_hrd_estimator(tokenizer, name="tritonrl_hrd", **kwargs):
    """Registers the estimator with verl under `name` (`algorithm.adv_estimator=<name>`) and returns
    it. Needs verl importable in this process."""
    from verl.trainer.ppo.core_algos import register_adv_est

    fn = make_hrd_estimator(tokenizer, **kwargs)
    register_adv_est(name)(fn)
    return fn
