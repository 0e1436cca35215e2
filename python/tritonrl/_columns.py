"""The dataset columns TRL passes a reward function as keyword arguments: which task each
completion is for. Shared by the reward function (trl.py) and the HRD trainer (_trl_hrd.py);
standard library only."""


def task_ids(kwargs, column, count):
    """The task id of each completion, from the dataset column TRL passes as a keyword argument."""
    if column not in kwargs:
        columns = sorted(k for k in kwargs if k not in ("trainer_state", "log_extra", "log_metric",
                                                          "completion_ids", "environments"))
        raise KeyError(f"tritonrl reward: no dataset column {column!r} with the task ids (columns passed: "
                       f"{columns}); add one, or name yours with task_column=")
    tasks = list(kwargs[column])
    if len(tasks) != count:
        raise ValueError(f"tritonrl reward: {len(tasks)} task ids for {count} completions")
    for t in tasks:
        if not isinstance(t, str) or not t:
            raise ValueError(f"tritonrl reward: task id {t!r} in column {column!r} is not a non-empty string")
    return tasks
