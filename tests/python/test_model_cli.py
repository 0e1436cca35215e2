"""`tritonrl generate` on the built-in tiny model (CPU): JSONL shape, samples per
prompt, seeding, and FILE:LINE errors for bad input."""

import json
import os
import subprocess

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BUILD = os.environ.get("TRITONRL_BUILD_DIR", os.path.join(ROOT, "build"))
TRITONRL = os.path.join(BUILD, "tritonrl")


def has_generate():
    if not os.path.exists(TRITONRL):
        return False
    r = subprocess.run([TRITONRL, "--help"], capture_output=True, text=True)
    return "generate" in r.stdout


pytestmark = pytest.mark.skipif(not has_generate(), reason="tritonrl generate needs the libtorch build")


def gen(*args):
    env = dict(os.environ, OMP_NUM_THREADS="1")
    return subprocess.run([TRITONRL, "generate", "--model", "builtin:tiny", "--device", "cpu", *args],
                          capture_output=True, text=True, env=env)


def test_prompts_file_gives_n_samples_each(tmp_path):
    f = tmp_path / "p.jsonl"
    f.write_text(json.dumps({"id": "a", "prompt": "def relu(x):"}) + "\n\n" +
                 json.dumps({"messages": [{"role": "user", "content": "hi"}]}) + "\n")
    r = gen("--prompts", str(f), "--n", "3", "--max-new-tokens", "8", "--seed", "5")
    assert r.returncode == 0, r.stderr
    rows = [json.loads(line) for line in r.stdout.splitlines()]
    assert [(x["prompt_index"], x["sample"]) for x in rows] == [(p, s) for p in range(2) for s in range(3)]
    assert rows[0]["id"] == "a" and "id" not in rows[3]
    for x in rows:
        assert 1 <= len(x["tokens"]) <= 8
        assert len(x["logprobs"]) == len(x["tokens"])
        assert all(lp <= 0 for lp in x["logprobs"])
        assert x["finish_reason"] in ("stop", "length")
    again = gen("--prompts", str(f), "--n", "3", "--max-new-tokens", "8", "--seed", "5")
    assert again.stdout == r.stdout  # seeded


def test_greedy_single_prompt(tmp_path):
    out = tmp_path / "o.jsonl"
    r = gen("--prompt", "hello", "--temperature", "0", "--max-new-tokens", "5", "--out", str(out))
    assert r.returncode == 0, r.stderr
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    assert len(rows) == 1 and len(rows[0]["tokens"]) <= 5


def test_bad_line_is_reported_with_file_and_line(tmp_path):
    f = tmp_path / "bad.jsonl"
    f.write_text(json.dumps({"prompt": "ok"}) + "\n" + '{"prompt": "trunc\n')
    r = gen("--prompts", str(f))
    assert r.returncode == 2
    assert f"{f}:2:" in r.stderr


def test_missing_prompt_is_a_usage_error():
    assert gen().returncode == 2
    assert gen("--prompt", "x", "--model", "/nonexistent/model").returncode == 2
