"""SFT records from the built-in suite: for each task with a solution,
prompt = an instruction with the task's PyTorch reference, completion =
"<think>plan</think>" + the solution in a fenced block. The plan is the
solution's docstring. A minimal stand-in until `tritonrl data sft` exists.

    python tests/python/sft_suite_data.py --tasks tasks --train OUT.jsonl [--eval HELD.jsonl]

Every eval_every-th record (by sorted path) goes to the held-out file."""

import argparse
import ast
import json
import os

INSTRUCTION = (
    "Rewrite the PyTorch module below with custom Triton kernels so that it runs faster "
    "on the GPU while computing the same outputs.\n\n"
    "Reference (class Model, get_inputs, get_init_inputs):\n```python\n{code}\n```\n\n"
    "Write a class ModelNew with the same constructor arguments and forward signature that "
    "launches your @triton.jit kernels. Think about the plan first, then give the complete "
    "module in one ```python block."
)


def records(tasks_dir):
    out = []
    sol_root = os.path.join(tasks_dir, "solutions")
    for level in sorted(os.listdir(sol_root)):
        for name in sorted(os.listdir(os.path.join(sol_root, level))):
            if not name.endswith(".py"):
                continue
            ref_path = os.path.join(tasks_dir, level, name)
            if not os.path.exists(ref_path):
                continue
            ref = open(ref_path).read().strip()
            sol = open(os.path.join(sol_root, level, name)).read().strip()
            plan = ast.get_docstring(ast.parse(sol)) or "Write a Triton kernel for the forward pass."
            completion = f"<think>\n{plan}\n</think>\n```python\n{sol}\n```"
            out.append({"id": f"{level}/{name[:-3]}", "prompt": INSTRUCTION.format(code=ref),
                        "completion": completion})
    return out


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--tasks", default="tasks")
    p.add_argument("--train", required=True)
    p.add_argument("--eval")
    p.add_argument("--eval-every", type=int, default=8)
    a = p.parse_args()
    recs = records(a.tasks)
    train, held = [], []
    for i, r in enumerate(recs):
        (held if a.eval and i % a.eval_every == a.eval_every - 1 else train).append(r)
    with open(a.train, "w") as f:
        f.writelines(json.dumps(r) + "\n" for r in train)
    if a.eval:
        with open(a.eval, "w") as f:
            f.writelines(json.dumps(r) + "\n" for r in held)
    print(json.dumps({"train": len(train), "eval": len(held)}))


if __name__ == "__main__":
    main()
