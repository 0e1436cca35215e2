"""The Parquet reader on files written by pyarrow (an independent writer and reader): every
codec, dictionary on and off, data pages v1 and v2, nulls, several row groups and pages,
multi-megabyte strings; corrupted copies; and `tritonrl data import kernelbook` on Parquet against
the same rows as JSONL. Run by ctest (tests/parquet/CMakeLists.txt), which passes the binaries."""
import json
import os
import random
import subprocess

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

CAT = os.environ["PARQUET_CAT"]
CAT_ASAN = os.environ["PARQUET_CAT_ASAN"]
TRITONRL = os.environ["TRITONRL"]
FIXTURE = os.environ["KERNELBOOK_FIXTURE"]

CODECS = ["none", "snappy", "gzip", "zstd"]


def cat(binary, paths):
    """Runs parquet_cat on many files in one process; a crash or sanitizer report fails."""
    p = subprocess.run([binary, *map(str, paths)], capture_output=True, text=True, timeout=600)
    assert p.returncode == 0, p.stderr[-4000:]
    out = [json.loads(line) for line in p.stdout.splitlines()]
    assert [o["file"] for o in out] == [str(x) for x in paths]
    return out


def words(rng, n):
    vocab = ["tl.load", "mask", "BLOCK", "offs", "x_ptr", "é", "中文", "\n", "    ", "def", "=", "+"]
    return " ".join(rng.choices(vocab, k=n))


def sample_table(rng, rows=300):
    big = {7: words(rng, 700_000), 150: words(rng, 500_000) + "\U0001f600"}  # several MB each
    cols = {
        "s": [None if i % 5 == 0 else words(rng, i % 9) for i in range(rows)],
        "big": [big.get(i, None if i % 2 else f"row {i}") for i in range(rows)],
        "req": [f"r{i}-" + "é" * (i % 4) for i in range(rows)],
        "cat": [["add", "mul", "relu", ""][i % 4] for i in range(rows)],
        "i32": [None if i % 7 == 0 else (i * 7919 % 65536) - 32768 for i in range(rows)],
        "i64": [(i - 150) * 10**12 + 5 for i in range(rows)],
        "f": [i / 3 for i in range(rows)],
        "nested": [[i, i + 1] for i in range(rows)],
    }
    schema = pa.schema([
        pa.field("s", pa.string()),
        pa.field("big", pa.large_string()),
        pa.field("req", pa.string(), nullable=False),
        pa.field("cat", pa.string()),
        pa.field("i32", pa.int32()),
        pa.field("i64", pa.int64(), nullable=False),
        pa.field("f", pa.float64()),
        pa.field("nested", pa.list_(pa.int64())),
    ])
    return pa.table(cols, schema=schema)


def expected_rows(path, names):
    t = pq.read_table(path, columns=names)
    cols = [t.column(n).to_pylist() for n in names]
    return [[None if v is None else (str(v) if isinstance(v, int) else v) for v in row]
            for row in zip(*cols)]


@pytest.fixture(scope="module")
def matrix(tmp_path_factory):
    d = tmp_path_factory.mktemp("matrix")
    table = sample_table(random.Random(1))
    files = []
    for codec in CODECS:
        for dictionary in (True, False):
            for version in ("1.0", "2.0"):
                path = d / f"{codec}_{'dict' if dictionary else 'plain'}_v{version[0]}.parquet"
                # Small row groups and pages so that every file has several of each.
                pq.write_table(table, path, compression=codec, use_dictionary=dictionary,
                               data_page_version=version, row_group_size=64,
                               data_page_size=4096, write_batch_size=16)
                files.append(path)
    return files


READABLE = ["s", "big", "req", "cat", "i32", "i64"]


def test_every_codec_encoding_and_page_version_reads_as_pyarrow_reads(matrix):
    for got in cat(CAT, matrix):
        path = got["file"]
        assert "error" not in got, got.get("error")
        assert got["columns"] == READABLE
        assert sorted(got["unsupported"]) == ["f", "nested.list.element"]
        assert "FLOAT" not in got["unsupported"]["f"] and "DOUBLE" in got["unsupported"]["f"]
        assert "nested or repeated" in got["unsupported"]["nested.list.element"]
        assert got["num_rows"] == 300
        assert got["rows"] == expected_rows(path, READABLE), path
        meta = pq.ParquetFile(path).metadata
        assert meta.num_row_groups == 5
    # The files really differ in what the reader had to handle.
    md = {p.name: pq.ParquetFile(p).metadata.row_group(0).column(0) for p in matrix}
    assert md["zstd_dict_v2.parquet"].compression == "ZSTD"
    assert "RLE_DICTIONARY" in md["snappy_dict_v1.parquet"].encodings
    assert "RLE_DICTIONARY" not in md["gzip_plain_v1.parquet"].encodings
    assert md["none_plain_v2.parquet"].compression == "UNCOMPRESSED"


def test_sanitized_build_reads_the_matrix_too(matrix):
    for got in cat(CAT_ASAN, matrix[::3]):
        assert "error" not in got, got.get("error")
        assert got["rows"] == expected_rows(got["file"], READABLE)


def test_unsupported_codec_and_encoding_are_named(tmp_path):
    table = pa.table({"a": ["x", "y", None], "n": [1, 2, 3]})
    lz4 = tmp_path / "lz4.parquet"
    pq.write_table(table, lz4, compression="lz4")
    delta = tmp_path / "delta.parquet"
    pq.write_table(table, delta, use_dictionary=False, column_encoding={"a": "DELTA_BYTE_ARRAY"})
    got = cat(CAT, [lz4, delta])
    assert got[0]["error"].startswith(f"{lz4}: row group 0, column a: unsupported codec LZ4")
    assert got[1]["error"].startswith(
        f"{delta}: row group 0, column a: unsupported encoding DELTA_BYTE_ARRAY")


def corrupt_copies(src, out_dir, rng):
    """Truncations, bad magics, lying footer lengths and random byte flips of a valid file."""
    data = src.read_bytes()
    n = len(data)
    copies = []

    def put(name, content):
        p = out_dir / f"{name}.parquet"
        p.write_bytes(content)
        copies.append((name, p))

    for cut in sorted(set(range(0, n, max(1, n // 300))) | {n - 1, n - 4, n - 8, n - 9}):
        put(f"trunc{cut}", data[:cut])
    put("head_magic", b"PAR2" + data[4:])
    put("tail_magic", data[:-4] + b"PAR2")
    put("encrypted", data[:-4] + b"PARE")
    for v in (0, 1, n - 12, n - 11, n, 2**31, 2**32 - 1):
        put(f"footer_len{v}", data[:-8] + v.to_bytes(4, "little") + b"PAR1")
    for i in range(600):
        b = bytearray(data)
        for _ in range(1 + i % 3):
            pos = rng.randrange(n)
            b[pos] = rng.randrange(256)
        put(f"flip{i}", bytes(b))
    for i in range(100):
        b = bytearray(data)
        pos = rng.randrange(n - 8)
        b[pos:pos + 8] = rng.choice([b"\xff" * 8, b"\x00" * 8, b"\x7f\xff\xff\xff" * 2])
        put(f"stomp{i}", bytes(b))
    return copies


@pytest.mark.parametrize("codec,dictionary,version", [("snappy", True, "1.0"),
                                                      ("zstd", False, "2.0"),
                                                      ("gzip", True, "2.0"),
                                                      ("none", False, "1.0")])
def test_corrupted_copies_get_clean_errors(tmp_path, codec, dictionary, version):
    rng = random.Random(hash((codec, dictionary, version)) & 0xffff)
    table = sample_table(random.Random(2), rows=40).drop(["big"])
    src = tmp_path / "valid.parquet"
    pq.write_table(table, src, compression=codec, use_dictionary=dictionary,
                   data_page_version=version, row_group_size=16, data_page_size=512,
                   write_batch_size=8)
    copies = corrupt_copies(src, tmp_path, rng)
    results = cat(CAT_ASAN, [p for _, p in copies])
    errors = 0
    for (name, path), got in zip(copies, results):
        if "error" in got:
            errors += 1
            assert got["error"].startswith(f"{path}: "), got["error"]
        else:
            assert len(got["rows"]) == got["num_rows"]
        if name.startswith("trunc"):
            assert "error" in got, name
            assert ("bad magic" in got["error"] or "too short" in got["error"]), got["error"]
        if name in ("head_magic", "tail_magic"):
            assert "bad magic" in got["error"]
        if name == "encrypted":
            assert "encrypted footer" in got["error"]
        if name.startswith("footer_len"):
            assert "error" in got, name
    assert errors > len(copies) // 2


def kernelbook_rows():
    rows = [json.loads(line) for line in open(FIXTURE)]
    kept = next(r for r in rows if r["uuid"] == 0)
    extra = []
    big = dict(kept, uuid=10, repo_name=None)
    big["python_code"] = kept["python_code"] + "\n# " + "tiling é中 " * 400_000 + "\n"
    extra.append(big)
    extra.append(dict(kept, uuid=None, repo_name="someone/else"))
    extra.append(dict(kept, uuid=12, entry_point="Missing"))
    return rows + extra


def run_import(path, out):
    p = subprocess.run([TRITONRL, "data", "import", "kernelbook", str(path), "--out", str(out)],
                       capture_output=True, text=True, timeout=300)
    return p.returncode, p.stdout, p.stderr


def kernelbook_table(rows, uuid_type=pa.int64()):
    schema = pa.schema([("uuid", uuid_type), ("entry_point", pa.string()),
                        ("repo_name", pa.string()), ("module_name", pa.string()),
                        ("python_code", pa.string()), ("triton_code", pa.string()),
                        ("synthetic", pa.bool_())])
    return pa.Table.from_pylist(rows, schema=schema)


def test_import_kernelbook_parquet_equals_jsonl(tmp_path):
    rows = kernelbook_rows()
    jsonl = tmp_path / "rows.jsonl"
    jsonl.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows))
    rc, want_stdout, err = run_import(jsonl, tmp_path / "from_jsonl.jsonl")
    assert rc == 0, err
    # 7 rows: the fixture's kept row and its two copies are kept (one with a multi-megabyte
    # reference); the fixture's three rejections and a row whose entry point has no class.
    assert want_stdout.splitlines()[0] == "rows 7  kept 3  rejected 4"
    want = (tmp_path / "from_jsonl.jsonl").read_bytes()
    records = [json.loads(line) for line in want.decode().splitlines()]
    assert [r["task"] for r in records] == ["kernelbook/0", "kernelbook/10", "kernelbook/null"]
    assert len(records[1]["prompt"]) > 4_000_000
    variants = [("snappy", True, "1.0", pa.int64()), ("zstd", False, "2.0", pa.int64()),
                ("gzip", True, "2.0", pa.int32()), ("none", False, "1.0", pa.int64())]
    for codec, dictionary, version, uuid_type in variants:
        path = tmp_path / f"rows_{codec}.parquet"
        pq.write_table(kernelbook_table(rows, uuid_type), path, compression=codec,
                       use_dictionary=dictionary, data_page_version=version, row_group_size=3)
        assert pq.ParquetFile(path).metadata.num_row_groups == 3
        out = tmp_path / f"from_{codec}.jsonl"
        rc, stdout, err = run_import(path, out)
        assert rc == 0, err
        assert stdout == want_stdout, codec
        assert out.read_bytes() == want, codec


def test_import_kernelbook_parquet_errors(tmp_path):
    rows = kernelbook_rows()[:4]
    no_col = tmp_path / "no_triton.parquet"
    pq.write_table(kernelbook_table(rows).drop(["triton_code"]), no_col)
    rc, _, err = run_import(no_col, tmp_path / "o.jsonl")
    assert rc == 1
    assert f"{no_col}: no column 'triton_code' (columns: uuid, entry_point" in err

    nulls = tmp_path / "null_code.parquet"
    pq.write_table(kernelbook_table([rows[0], dict(rows[1], python_code=None)]), nulls)
    rc, _, err = run_import(nulls, tmp_path / "o.jsonl")
    assert rc == 1
    assert f"{nulls}: row group 0, row 1: field 'python_code' is null" in err

    delta = tmp_path / "delta.parquet"
    pq.write_table(kernelbook_table(rows), delta, use_dictionary=False,
                   column_encoding={"triton_code": "DELTA_LENGTH_BYTE_ARRAY"})
    rc, _, err = run_import(delta, tmp_path / "o.jsonl")
    assert rc == 1
    assert (f"{delta}: row group 0, column triton_code: unsupported encoding "
            "DELTA_LENGTH_BYTE_ARRAY") in err

    cut = tmp_path / "cut.parquet"
    cut.write_bytes(no_col.read_bytes()[:-100])
    rc, _, err = run_import(cut, tmp_path / "o.jsonl")
    assert rc == 1 and f"{cut}: bad magic at the end" in err
    assert not (tmp_path / "o.jsonl").exists()

    rc, _, err = run_import(tmp_path / "absent.parquet", tmp_path / "o.jsonl")
    assert rc == 2 and "absent.parquet: cannot open" in err
