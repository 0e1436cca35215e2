#include "data/synth.h"

#include <fmt/format.h>

#include <array>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <utility>

#include "rl/rng.h"

namespace tritonrl::data {
namespace {

using Subst = std::vector<std::pair<std::string, std::string>>;

// Replaces every @KEY@ of the template (Python text is full of braces, so no fmt here).
std::string Fill(std::string text, const Subst& subst) {
  for (const auto& [key, value] : subst) {
    const std::string token = "@" + key + "@";
    for (size_t at = text.find(token); at != std::string::npos;
         at = text.find(token, at + value.size())) {
      text.replace(at, token.size(), value);
    }
  }
  return text;
}

template <typename T>
const T& Pick(rl::Xoshiro256& rng, const std::vector<T>& items) {
  return items[rl::UniformBelow(rng, items.size())];
}

bool Coin(rl::Xoshiro256& rng) {
  return rl::UniformBelow(rng, 2) == 1;
}

// An elementwise op: its PyTorch form and its Triton form on an fp32 value, both on `v`.
struct UnaryOp {
  std::string name;
  std::string torch_expr;
  std::string triton_expr;
  std::string words;
};

const std::vector<UnaryOp>& UnaryOps() {
  static const std::vector<UnaryOp> ops = {
      {"relu", "torch.relu(v)", "tl.maximum(v, 0.0)", "ReLU as a max with 0"},
      {"sigmoid", "torch.sigmoid(v)", "1.0 / (1.0 + tl.exp(-v))", "sigmoid as 1/(1+exp(-v))"},
      {"tanh", "torch.tanh(v)", "2.0 / (1.0 + tl.exp(-2.0 * v)) - 1.0",
       "tanh as 2/(1+exp(-2v))-1, which saturates without overflow"},
      {"silu", "F.silu(v)", "v / (1.0 + tl.exp(-v))", "SiLU as v/(1+exp(-v))"},
      {"square", "v * v", "v * v", "the square"},
      {"abs", "torch.abs(v)", "tl.abs(v)", "the absolute value"},
      {"leaky", "F.leaky_relu(v, 0.15)", "tl.where(v >= 0.0, v, v * 0.15)",
       "LeakyReLU (slope 0.15) as a select"},
  };
  return ops;
}

// One of `names`, drawn with the stream, as its UnaryOp (every name is in UnaryOps()).
const UnaryOp& PickOp(rl::Xoshiro256& rng, const std::vector<std::string>& names) {
  const std::string& want = Pick(rng, names);
  for (const auto& o : UnaryOps())
    if (o.name == want) return o;
  std::abort();  // a name outside UnaryOps() is a bug in this file
}

struct Shape {
  std::string shape_class;
  int small_rows, small_cols, medium_rows, medium_cols, large_rows, large_cols;
};

// Row-major [rows, cols] problems. Small sizes are not multiples of any block size and rows of
// 1100-2500 make every column loop run at least twice; large ones move 1-3 GB.
Shape DrawShape(rl::Xoshiro256& rng) {
  Shape s;
  s.small_rows = Pick(rng, std::vector<int>{3, 4, 5});
  s.small_cols = Pick(rng, std::vector<int>{1100, 1700, 2500});
  s.medium_rows = 4096;
  if (Coin(rng)) {
    s.shape_class = "pow2";
    s.medium_cols = Pick(rng, std::vector<int>{2048, 4096, 8192});
    s.large_rows = 20480;
    s.large_cols = 16384;
  } else {
    s.shape_class = "odd";
    s.medium_cols = Pick(rng, std::vector<int>{3000, 5000, 6000});
    s.large_rows = 20000;
    s.large_cols = 16000;
  }
  return s;
}

std::string VariantsText(const std::string& a, const std::string& b, const Shape& s) {
  return fmt::format(
      "VARIANTS = {{\n"
      "    \"small\": {{\"{0}\": {2}, \"{1}\": {3}}},\n"
      "    \"medium\": {{\"{0}\": {4}, \"{1}\": {5}}},\n"
      "    \"large\": {{\"{0}\": {6}, \"{1}\": {7}}},\n"
      "}}\n"
      "{0} = {4}\n"
      "{1} = {5}\n",
      a, b, s.small_rows, s.small_cols, s.medium_rows, s.medium_cols, s.large_rows, s.large_cols);
}

std::string CastIn(const std::string& dtype) {
  if (dtype == "float16") return ".to(torch.float16)";
  if (dtype == "bfloat16") return ".to(torch.bfloat16)";
  return "";
}

std::string Scalar(rl::Xoshiro256& rng, const std::vector<std::string>& choices) {
  return Pick(rng, choices);
}

constexpr const char* kHeader = R"("""@DOC@"""
import torch
import torch.nn as nn
import torch.nn.functional as F

DTYPE = "@DTYPE@"
@TOL@@VARIANTS@

class Model(nn.Module):
    def __init__(self):
        super().__init__()

)";

// The task file up to Model's forward: docstring, imports, metadata, shape constants.
std::string ReferenceHead(const std::string& doc, const std::string& dtype, const std::string& tol,
                          const std::string& variants) {
  return Fill(
      kHeader,
      {{"DOC", "Synthetic: " + doc + "."}, {"DTYPE", dtype}, {"TOL", tol}, {"VARIANTS", variants}});
}

constexpr const char* kSolutionHeader = R"("""Triton solution: @DOC@"""
import torch
import torch.nn as nn
import triton
import triton.language as tl


)";

constexpr const char* kModelNewHead = R"(class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

)";

// A column-loop kernel's decorator and launch meta-parameters: a fixed BLOCK or an autotuned one.
struct LoopStyle {
  std::string decorator;  // lines above @triton.jit
  std::string launch;     // keyword arguments of the launch
  std::string name;
  std::string words;
};

LoopStyle DrawLoopStyle(rl::Xoshiro256& rng) {
  // Block width from the row length at launch (triton.heuristics). triton.autotune is not a
  // style: the CPU interpreter cannot benchmark configs, so its solutions could not be checked.
  if (rl::UniformBelow(rng, 4) == 0) {
    return {
        "@triton.heuristics(\n    {\"BLOCK\": lambda args: "
        "min(1024, triton.next_power_of_2(args[\"n_cols\"]))}\n)\n",
        "", "loop/heuristic(min(1024,pow2(n_cols)))",
        "blocks of min(1024, next power of two of the row length), chosen at launch by "
        "triton.heuristics"};
  }
  const int block = Pick(rng, std::vector<int>{256, 512, 1024});
  return {"", fmt::format(", BLOCK={}", block), fmt::format("loop/BLOCK={}", block),
          fmt::format("blocks of {} elements", block)};
}

std::string Tolerance(double atol, double rtol, const std::string& why) {
  return fmt::format("# {}\nATOL = {}\nRTOL = {}\n", why, atol, rtol);
}

// True when `second` applied after `first` leaves one of the two without effect, so a kernel
// that skips it is exact and the null-model audit rejects the task (measured on the H200: relu
// then leaky, abs then square, sigmoid then relu, ...). Drawing them only wastes verification.
bool DeadComposition(const std::string& first, const std::string& second) {
  if (first == second) return true;
  const bool first_nonnegative =
      first == "relu" || first == "sigmoid" || first == "square" || first == "abs";
  const bool identity_on_nonnegative = second == "relu" || second == "abs" || second == "leaky";
  if (first_nonnegative && identity_on_nonnegative) return true;
  // square(|v|) = square(v); relu(leaky(v)) = relu(v).
  return (first == "abs" && second == "square") || (first == "leaky" && second == "relu");
}

SynthTask Pointwise(rl::Xoshiro256& rng) {
  const auto& ops = UnaryOps();
  const UnaryOp& op1 = Pick(rng, ops);
  const UnaryOp* op2 = nullptr;
  if (Coin(rng)) {
    do op2 = &Pick(rng, ops);
    while (DeadComposition(op1.name, op2->name));
  }
  const std::string bcast = Pick(rng, std::vector<std::string>{"row", "col", "scalar"});
  const bool residual = rl::UniformBelow(rng, 3) == 0;
  const std::string dtype = Coin(rng) ? "float32" : "float16";
  const Shape shape = DrawShape(rng);
  const std::string scale = Scalar(rng, {"0.5", "1.5", "2.0"});
  const std::string shift = Scalar(rng, {"0.25", "-0.5", "0.1"});
  const bool flat = Coin(rng);
  const int block = Pick(rng, std::vector<int>{256, 512, 1024});

  SynthTask t;
  t.family = "pointwise";
  std::string chain = op1.name + (op2 ? "+" + op2->name : "") + (residual ? "+residual" : "");
  t.pattern = fmt::format("pointwise/{}/{}", bcast, chain);
  t.shape_class = shape.shape_class;
  t.dtype = dtype;
  t.style = fmt::format("{}/BLOCK={}", flat ? "flat" : "rows2d", block);

  std::string ref_ops = fmt::format("        v = {}\n", op1.torch_expr);
  std::string tl_ops = fmt::format("    v = {}\n", op1.triton_expr);
  if (op2) {
    ref_ops += fmt::format("        v = {}\n", op2->torch_expr);
    tl_ops += fmt::format("    v = {}\n", op2->triton_expr);
  }
  if (residual) {
    ref_ops += "        v = v + x\n";
    tl_ops += "    v = v + x\n";
  }
  std::string forward_args, first_line, inputs, w_load, launch_args, kernel_args;
  std::string w_words;
  if (bcast == "row") {
    forward_args = "x, w";
    first_line = fmt::format("        v = x * w + {}\n", shift);
    inputs = fmt::format("torch.randn(rows, cols){0}, torch.randn(cols){0}", CastIn(dtype));
    w_load = "    w = tl.load(w_ptr + col, mask=mask, other=0.0).to(tl.float32)\n";
    kernel_args = "x_ptr, w_ptr, out_ptr";
    launch_args = "x, w.contiguous(), out";
    w_words = "a per-column scale vector (broadcast over rows, read by column index)";
  } else if (bcast == "col") {
    forward_args = "x, w";
    first_line = fmt::format("        v = x * w + {}\n", shift);
    inputs = fmt::format("torch.randn(rows, cols){0}, torch.randn(rows, 1){0}", CastIn(dtype));
    // In the 2-D grid the row is one scalar per program, so its scale is one unmasked load.
    w_load = flat ? "    w = tl.load(w_ptr + row, mask=mask, other=0.0).to(tl.float32)\n"
                  : "    w = tl.load(w_ptr + row).to(tl.float32)\n";
    kernel_args = "x_ptr, w_ptr, out_ptr";
    launch_args = "x, w.contiguous(), out";
    w_words = "a per-row scale column (broadcast over columns, read by row index)";
  } else {
    forward_args = "x";
    first_line = fmt::format("        v = x * {} + {}\n", scale, shift);
    inputs = fmt::format("torch.randn(rows, cols){}", CastIn(dtype));
    w_load = fmt::format("    w = {}\n", scale);
    kernel_args = "x_ptr, out_ptr";
    launch_args = "x, out";
    w_words = fmt::format("the scalar {} baked into the kernel", scale);
  }
  std::string doc = fmt::format("pointwise chain x*w+{} then {} on a [rows, cols] {} tensor", shift,
                                chain, dtype);
  t.reference = ReferenceHead(doc, dtype, "", VariantsText("rows", "cols", shape));
  t.reference += "    def forward(self, " + forward_args + "):\n" + first_line + ref_ops +
                 "        return v\n\n\n"
                 "def get_inputs():\n    return [" +
                 inputs + "]\n\n\ndef get_init_inputs():\n    return []\n";

  std::string index;
  std::string grid;
  if (flat) {
    index =
        "    pid = tl.program_id(0).to(tl.int64)\n"
        "    offs = pid * BLOCK + tl.arange(0, BLOCK)\n"
        "    mask = offs < n_rows * n_cols\n"
        "    row = offs // n_cols\n"
        "    col = offs % n_cols\n";
    grid = "(triton.cdiv(rows * cols, BLOCK),)";
  } else {
    index =
        "    row = tl.program_id(0).to(tl.int64)\n"
        "    col = tl.program_id(1) * BLOCK + tl.arange(0, BLOCK)\n"
        "    mask = col < n_cols\n"
        "    offs = row * n_cols + col\n";
    grid = "(rows, triton.cdiv(cols, BLOCK))";
  }
  t.solution = Fill(kSolutionHeader, {{"DOC", "one fused elementwise kernel for " + doc + "."}});
  t.solution += "@triton.jit\ndef _fused_kernel(" + kernel_args +
                ", n_rows, n_cols, BLOCK: tl.constexpr):\n" + index +
                "    x = tl.load(x_ptr + offs, mask=mask, other=0.0).to(tl.float32)\n" + w_load +
                fmt::format("    v = x * w + {}\n", shift) + tl_ops +
                "    tl.store(out_ptr + offs, v.to(out_ptr.dtype.element_ty), mask=mask)\n\n\n" +
                kModelNewHead + "    def forward(self, " + forward_args +
                "):\n"
                "        x = x.contiguous()\n"
                "        rows, cols = x.shape\n"
                "        out = torch.empty_like(x)\n"
                "        BLOCK = " +
                std::to_string(block) + "\n        _fused_kernel[" + grid + "](" + launch_args +
                ", rows, cols, BLOCK=BLOCK)\n        return out\n";
  t.plan = fmt::format(
      "Fuse the whole chain (scale by {}, add {}, {}{}{}) into one elementwise kernel, so x is "
      "read once and the output written once with no intermediates in memory. {} Blocks of {} "
      "elements with a mask on the tail because the sizes are not multiples of the block. "
      "Compute in fp32 and cast to the output dtype ({}) only at the store.",
      w_words, shift, op1.words, op2 ? ", then " + op2->words : "",
      residual ? ", then add x back" : "",
      flat ? "A 1-D grid over the flattened tensor; row and column come from the flat offset."
           : "A 2-D grid: one row per program along axis 0, column blocks along axis 1, "
             "64-bit row offsets.",
      block, dtype);
  return t;
}

SynthTask RowReduce(rl::Xoshiro256& rng) {
  const UnaryOp* op = &Pick(rng, UnaryOps());
  const std::string red = Pick(rng, std::vector<std::string>{"sum", "amax", "mean"});
  // The max of a row of 1100+ normal draws is about 3 or more: relu and leaky do nothing to it
  // and tanh and sigmoid saturate to one value for every row (the audit's mean model passes).
  // The op is drawn again, from the ops that still change a large positive maximum.
  if (red == "amax" &&
      (op->name == "relu" || op->name == "leaky" || op->name == "tanh" || op->name == "sigmoid")) {
    op = &PickOp(rng, {"square", "abs", "silu"});
  }
  const Shape shape = DrawShape(rng);
  const std::string scale = Scalar(rng, {"0.5", "1.5", "2.0"});
  const LoopStyle style = DrawLoopStyle(rng);
  SynthTask t;
  t.family = "row_reduce";
  t.pattern = fmt::format("row_reduce/{}({})", red, op->name);
  t.shape_class = shape.shape_class;
  t.dtype = "float32";
  t.style = style.name;
  const std::string doc =
      fmt::format("{} over each row of {}(x * {}) for a [rows, cols] tensor", red, op->name, scale);
  const std::string tol =
      red == "sum" ? Tolerance(1e-3, 1e-4,
                               "Row sums reach hundreds; a valid summation order moves them by "
                               "~1e-4, so atol is 1e-3 (1e-5 of the output scale).")
                   : "";
  t.reference = ReferenceHead(doc, "float32", tol, VariantsText("rows", "cols", shape));
  t.reference += fmt::format(
      "    def forward(self, x):\n        v = x * {}\n        v = {}\n        return "
      "v.{}(dim=1)\n\n\ndef get_inputs():\n    return [torch.randn(rows, cols)]\n\n\n"
      "def get_init_inputs():\n    return []\n",
      scale, op->torch_expr, red);
  const bool is_max = red == "amax";
  const std::string init = is_max ? "tl.full([BLOCK], float(\"-inf\"), dtype=tl.float32)"
                                  : "tl.zeros([BLOCK], dtype=tl.float32)";
  const std::string fill = is_max ? "float(\"-inf\")" : "0.0";
  const std::string combine = is_max ? "tl.maximum(acc, v)" : "acc + v";
  const std::string finish = is_max         ? "tl.max(acc, axis=0)"
                             : red == "sum" ? "tl.sum(acc, axis=0)"
                                            : "tl.sum(acc, axis=0) / n_cols";
  t.solution = Fill(kSolutionHeader, {{"DOC", "one program per row reduces " + doc + "."}});
  t.solution +=
      style.decorator + "@triton.jit\ndef _row_reduce_kernel(x_ptr, out_ptr, n_cols, BLOCK: " +
      "tl.constexpr):\n    row = tl.program_id(0).to(tl.int64)\n    acc = " + init +
      "\n    for start in range(0, n_cols, BLOCK):\n        offs = start + tl.arange(0, BLOCK)\n"
      "        mask = offs < n_cols\n"
      "        v = tl.load(x_ptr + row * n_cols + offs, mask=mask, other=0.0) * " +
      scale + "\n        v = " + op->triton_expr + "\n        v = tl.where(mask, v, " + fill +
      ")\n        acc = " + combine + "\n    tl.store(out_ptr + row, " + finish + ")\n\n\n" +
      kModelNewHead +
      "    def forward(self, x):\n        x = x.contiguous()\n        rows, cols = x.shape\n"
      "        out = torch.empty((rows,), device=x.device, dtype=x.dtype)\n"
      "        _row_reduce_kernel[(rows,)](x, out, cols" +
      style.launch + ")\n        return out\n";
  t.plan = fmt::format(
      "One program per row; it loops over the row in {} and keeps a vector accumulator in fp32, "
      "reduced to a scalar once at the end. The scale by {} and {} are fused into the loads. "
      "Masked tail lanes are replaced by {} after the op, because the op of a padding 0 is not "
      "neutral for the {}. 64-bit row offsets, since rows*cols passes 2^31 at the large size.",
      style.words, scale, op->words, is_max ? "-inf" : "0", red);
  return t;
}

SynthTask ColReduce(rl::Xoshiro256& rng) {
  const UnaryOp& op = Pick(rng, UnaryOps());
  const std::string red = Pick(rng, std::vector<std::string>{"sum", "mean"});
  Shape shape = DrawShape(rng);
  shape.small_rows = Pick(rng, std::vector<int>{150, 300});
  shape.small_cols = Pick(rng, std::vector<int>{100, 200});
  shape.large_rows = 49152;  // a read-only reduction needs ~3 GB to take 0.5 ms on an H200
  const int block_r = Pick(rng, std::vector<int>{32, 64});
  const int block_c = Pick(rng, std::vector<int>{64, 128});
  SynthTask t;
  t.family = "col_reduce";
  t.pattern = fmt::format("col_reduce/{}({})", red, op.name);
  t.shape_class = shape.shape_class;
  t.dtype = "float32";
  t.style = fmt::format("tile/BLOCK_R={},BLOCK_C={}", block_r, block_c);
  const std::string doc =
      fmt::format("{} over dim 0 of {}(x) for a [rows, cols] tensor", red, op.name);
  const std::string tol =
      red == "sum" ? Tolerance(2e-3, 1e-4,
                               "Column sums over up to 49152 rows reach thousands; a valid "
                               "summation order moves them by ~1e-4 or more.")
                   : "";
  t.reference = ReferenceHead(doc, "float32", tol, VariantsText("rows", "cols", shape));
  t.reference += fmt::format(
      "    def forward(self, x):\n        v = x\n        v = {}\n        return "
      "v.{}(dim=0)\n\n\ndef get_inputs():\n    return [torch.randn(rows, cols)]\n\n\n"
      "def get_init_inputs():\n    return []\n",
      op.torch_expr, red);
  t.solution = Fill(kSolutionHeader, {{"DOC", "column-block programs reduce " + doc + "."}});
  t.solution += std::string(
                    "@triton.jit\ndef _col_reduce_kernel(x_ptr, out_ptr, n_rows, n_cols, "
                    "BLOCK_R: tl.constexpr, BLOCK_C: tl.constexpr):\n"
                    "    cols = tl.program_id(0) * BLOCK_C + tl.arange(0, BLOCK_C)\n"
                    "    col_mask = cols < n_cols\n"
                    "    acc = tl.zeros([BLOCK_R, BLOCK_C], dtype=tl.float32)\n"
                    "    for start in range(0, n_rows, BLOCK_R):\n"
                    "        rows = (start + tl.arange(0, BLOCK_R)).to(tl.int64)\n"
                    "        mask = (rows[:, None] < n_rows) & col_mask[None, :]\n"
                    "        v = tl.load(x_ptr + rows[:, None] * n_cols + cols[None, :], "
                    "mask=mask, other=0.0)\n        v = ") +
                op.triton_expr + "\n        acc += tl.where(mask, v, 0.0)\n" +
                "    total = tl.sum(acc, axis=0)\n" +
                (red == "mean" ? "    total = total / n_rows\n" : "") +
                "    tl.store(out_ptr + cols, total, mask=col_mask)\n\n\n" + kModelNewHead +
                "    def forward(self, x):\n        x = x.contiguous()\n        rows, cols = "
                "x.shape\n        out = torch.empty((cols,), device=x.device, dtype=x.dtype)\n" +
                fmt::format(
                    "        _col_reduce_kernel[(triton.cdiv(cols, {1}),)](x, out, rows, "
                    "cols, BLOCK_R={0}, BLOCK_C={1})\n        return out\n",
                    block_r, block_c);
  t.plan = fmt::format(
      "Each program owns {1} adjacent columns (coalesced loads along a row) and walks down all "
      "rows in tiles of {0}x{1}, applying {2} in registers and summing into an fp32 tile; one "
      "reduction over the tile's rows at the end{3}. Masks on both axes because neither size is "
      "a multiple of the tile, and padding lanes are zeroed after the op. 64-bit row offsets.",
      block_r, block_c, op.words, red == "mean" ? ", then a divide by the row count" : "");
  return t;
}

SynthTask Softmax(rl::Xoshiro256& rng) {
  const bool log = Coin(rng);
  const bool bias = Coin(rng);
  const Shape shape = DrawShape(rng);
  const std::string scale = Scalar(rng, {"0.5", "2.0", "3.0"});
  const LoopStyle style = DrawLoopStyle(rng);
  SynthTask t;
  t.family = "softmax";
  const std::string name = log ? "log_softmax" : "softmax";
  t.pattern = fmt::format("softmax/{}{}", name, bias ? "+bias" : "");
  t.shape_class = shape.shape_class;
  t.dtype = "float32";
  t.style = style.name;
  const std::string doc = fmt::format("{} over dim 1 of x * {}{}", name, scale,
                                      bias ? " + b (b a per-column vector)" : "");
  const std::string tol =
      log ? ""
          : Tolerance(1e-7, 1e-4,
                      "Softmax outputs are about 1/cols: the default atol of 1e-4 would let an "
                      "all-zero output pass.");
  t.reference = ReferenceHead(doc, "float32", tol, VariantsText("rows", "cols", shape));
  t.reference += fmt::format(
      "    def forward(self, {0}):\n        return torch.{1}(x * {2}{3}, dim=1)\n\n\n"
      "def get_inputs():\n    return [torch.randn(rows, cols){4}]\n\n\n"
      "def get_init_inputs():\n    return []\n",
      bias ? "x, b" : "x", name, scale, bias ? " + b" : "", bias ? ", torch.randn(cols)" : "");
  const std::string load =
      fmt::format("tl.load(x_row + offs, mask=mask, other=0.0) * {}{}", scale,
                  bias ? " + tl.load(b_ptr + offs, mask=mask, other=0.0)" : "");
  const std::string out_expr = log ? "v - row_max - log_sum" : "tl.exp(v - row_max) * inv";
  t.solution = Fill(kSolutionHeader, {{"DOC", "a three-pass row kernel for " + doc + "."}});
  t.solution +=
      style.decorator + "@triton.jit\ndef _row_softmax_kernel(x_ptr, " + (bias ? "b_ptr, " : "") +
      "out_ptr, n_cols, BLOCK: tl.constexpr):\n"
      "    row = tl.program_id(0).to(tl.int64)\n"
      "    x_row = x_ptr + row * n_cols\n"
      "    out_row = out_ptr + row * n_cols\n"
      "    m = tl.full([BLOCK], float(\"-inf\"), dtype=tl.float32)\n"
      "    for start in range(0, n_cols, BLOCK):\n"
      "        offs = start + tl.arange(0, BLOCK)\n"
      "        mask = offs < n_cols\n"
      "        v = " +
      load +
      "\n        m = tl.maximum(m, tl.where(mask, v, float(\"-inf\")))\n"
      "    row_max = tl.max(m, axis=0)\n"
      "    s = tl.zeros([BLOCK], dtype=tl.float32)\n"
      "    for start in range(0, n_cols, BLOCK):\n"
      "        offs = start + tl.arange(0, BLOCK)\n"
      "        mask = offs < n_cols\n"
      "        v = " +
      load +
      "\n        s += tl.where(mask, tl.exp(v - row_max), 0.0)\n"
      "    total = tl.sum(s, axis=0)\n" +
      (log ? "    log_sum = tl.log(total)\n" : "    inv = 1.0 / total\n") +
      "    for start in range(0, n_cols, BLOCK):\n"
      "        offs = start + tl.arange(0, BLOCK)\n"
      "        mask = offs < n_cols\n"
      "        v = " +
      load + "\n        tl.store(out_row + offs, " + out_expr + ", mask=mask)\n\n\n" +
      kModelNewHead + "    def forward(self, " + (bias ? "x, b" : "x") +
      "):\n        x = x.contiguous()\n        rows, cols = x.shape\n"
      "        out = torch.empty_like(x)\n        _row_softmax_kernel[(rows,)](x, " +
      (bias ? "b.contiguous(), " : "") + "out, cols" + style.launch + ")\n        return out\n";
  t.plan = fmt::format(
      "One program per row, three passes over the row in {}: the running maximum, the sum of "
      "exp(v - max) in fp32, then the {}. Subtracting the maximum keeps exp from overflowing. "
      "The scale{} is recomputed at each load instead of stored. Masked lanes are -inf for the "
      "max and 0 for the sum.",
      style.words,
      log ? "write of v - max - log(sum) (never the log of a rounded softmax)"
          : "normalised write exp(v - max) / sum",
      bias ? " and the bias add" : "");
  return t;
}

SynthTask Norm(rl::Xoshiro256& rng) {
  const bool layer = Coin(rng);
  const std::string dtype = Pick(rng, std::vector<std::string>{"float32", "float16", "bfloat16"});
  const UnaryOp* act = nullptr;
  if (dtype != "bfloat16" && Coin(rng)) {
    act = &PickOp(rng, {"relu", "silu", "sigmoid", "tanh"});
  }
  const Shape shape = DrawShape(rng);
  const LoopStyle style = DrawLoopStyle(rng);
  SynthTask t;
  t.family = "norm";
  const std::string name = layer ? "layer_norm" : "rms_norm";
  t.pattern = fmt::format("norm/{}{}", name, act ? "+" + act->name : "");
  t.shape_class = shape.shape_class;
  t.dtype = dtype;
  t.style = style.name;
  const std::string eps = layer ? "1e-5" : "1e-6";
  const std::string doc =
      fmt::format("{} over the last dim with weight{}{} ({})", name, layer ? " and bias" : "",
                  act ? ", then " + act->name : "", dtype);
  const std::string cast = CastIn(dtype);
  t.reference = ReferenceHead(doc, dtype, "", VariantsText("rows", "cols", shape));
  const std::string call = layer ? "F.layer_norm(x, (x.shape[-1],), w, b, " + eps + ")"
                                 : "F.rms_norm(x, (x.shape[-1],), w, " + eps + ")";
  t.reference +=
      "    def forward(self, " + std::string(layer ? "x, w, b" : "x, w") +
      "):\n        v = " + call + "\n" + (act ? "        v = " + act->torch_expr + "\n" : "") +
      "        return v\n\n\n"
      "def get_inputs():\n"
      "    # Per-row scales and offsets make the normalisation change every row.\n"
      "    x = torch.randn(rows, cols) * (torch.rand(rows, 1) * 2.0 + 0.5) + torch.randn(rows, 1)\n"
      "    return [x" +
      cast + ", (torch.rand(cols) + 0.5)" + cast + (layer ? ", torch.randn(cols)" + cast : "") +
      "]\n\n\ndef get_init_inputs():\n    return []\n";
  std::string stats =
      layer ? "    s = tl.zeros([BLOCK], dtype=tl.float32)\n"
              "    for start in range(0, n_cols, BLOCK):\n"
              "        offs = start + tl.arange(0, BLOCK)\n"
              "        s += tl.load(x_row + offs, mask=offs < n_cols, "
              "other=0.0).to(tl.float32)\n"
              "    mean = tl.sum(s, axis=0) / n_cols\n"
              "    q = tl.zeros([BLOCK], dtype=tl.float32)\n"
              "    for start in range(0, n_cols, BLOCK):\n"
              "        offs = start + tl.arange(0, BLOCK)\n"
              "        mask = offs < n_cols\n"
              "        d = tl.load(x_row + offs, mask=mask, other=0.0).to(tl.float32) "
              "- mean\n"
              "        q += tl.where(mask, d * d, 0.0)\n"
              "    rstd = 1.0 / tl.sqrt(tl.sum(q, axis=0) / n_cols + eps)\n"
            : "    q = tl.zeros([BLOCK], dtype=tl.float32)\n"
              "    for start in range(0, n_cols, BLOCK):\n"
              "        offs = start + tl.arange(0, BLOCK)\n"
              "        v = tl.load(x_row + offs, mask=offs < n_cols, "
              "other=0.0).to(tl.float32)\n"
              "        q += v * v\n"
              "    mean = 0.0\n"
              "    rstd = 1.0 / tl.sqrt(tl.sum(q, axis=0) / n_cols + eps)\n";
  t.solution = Fill(kSolutionHeader, {{"DOC", "a row kernel for " + doc + "."}});
  t.solution +=
      style.decorator + "@triton.jit\ndef _row_norm_kernel(x_ptr, w_ptr, " +
      (layer ? "b_ptr, " : "") +
      "out_ptr, n_cols, eps, BLOCK: tl.constexpr):\n"
      "    row = tl.program_id(0).to(tl.int64)\n"
      "    x_row = x_ptr + row * n_cols\n"
      "    out_row = out_ptr + row * n_cols\n" +
      stats +
      "    for start in range(0, n_cols, BLOCK):\n"
      "        offs = start + tl.arange(0, BLOCK)\n"
      "        mask = offs < n_cols\n"
      "        x = tl.load(x_row + offs, mask=mask, other=0.0).to(tl.float32)\n"
      "        w = tl.load(w_ptr + offs, mask=mask, other=0.0).to(tl.float32)\n"
      "        v = (x - mean) * rstd * w\n" +
      (layer ? "        v += tl.load(b_ptr + offs, mask=mask, other=0.0).to(tl.float32)\n" : "") +
      (act ? "        v = " + act->triton_expr + "\n" : "") +
      "        tl.store(out_row + offs, v.to(out_ptr.dtype.element_ty), mask=mask)\n\n\n" +
      kModelNewHead + "    def forward(self, " + (layer ? "x, w, b" : "x, w") +
      "):\n        x = x.contiguous()\n        rows, cols = x.shape\n"
      "        out = torch.empty_like(x)\n        _row_norm_kernel[(rows,)](x, w.contiguous(), " +
      (layer ? "b.contiguous(), " : "") + "out, cols, " + eps + style.launch +
      ")\n        return out\n";
  t.plan = fmt::format(
      "One program per row, looping over the row in {}. {} Statistics are accumulated in fp32 "
      "even for {} inputs, and the final pass applies the weight{}{} and casts once at the "
      "store. Masked lanes load 0 and are excluded from the statistics.",
      style.words,
      layer ? "First pass: the mean; second pass: the variance as the mean of (x - mean)^2 "
              "(two passes avoid the cancellation of E[x^2] - mean^2)."
            : "First pass: the mean of x^2 for the root-mean-square.",
      dtype, layer ? " and bias" : "", act ? ", then " + act->words : "");
  return t;
}

SynthTask Matmul(rl::Xoshiro256& rng) {
  const UnaryOp* act = nullptr;
  if (rl::UniformBelow(rng, 3) != 0) {
    act = &PickOp(rng, {"relu", "silu", "sigmoid", "tanh", "leaky"});
  }
  const bool bias = Coin(rng);
  const std::string dtype = Coin(rng) ? "float32" : "float16";
  // Not 1.0: a kernel that skips the scale would be exact (the audit drops such tasks).
  const std::string alpha = Scalar(rng, {"0.5", "1.5", "2.0"});
  struct Tile {
    int m, n, k;
  };
  const Tile tile = Pick(rng, std::vector<Tile>{{32, 32, 32}, {64, 32, 32}, {32, 64, 32}});
  const bool odd = Coin(rng);
  SynthTask t;
  t.family = "matmul";
  t.pattern = fmt::format("matmul/scale{}{}", bias ? "+bias" : "", act ? "+" + act->name : "");
  t.shape_class = odd ? "odd" : "pow2";
  t.dtype = dtype;
  t.style = fmt::format("tile/{}x{}x{}", tile.m, tile.n, tile.k);
  const std::string doc =
      fmt::format("matmul [M,K]x[K,N] scaled by {}{}{} ({})", alpha,
                  bias ? " plus a bias over N" : "", act ? ", then " + act->name : "", dtype);
  const std::string tol =
      dtype == "float32"
          ? Tolerance(5e-3, 5e-3,
                      "tl.dot on fp32 uses TF32 by default; operands scaled by 1/sqrt(K) keep "
                      "outputs near N(0, 1), so 5e-3 admits TF32 and rejects a bf16 downgrade.")
          : "";
  const int medium = odd ? 2000 : 2048;
  const int large = odd ? 4000 : 4096;
  const std::string variants = fmt::format(
      "VARIANTS = {{\n"
      "    \"small\": {{\"M\": 80, \"N\": 72, \"K\": 100}},\n"
      "    \"medium\": {{\"M\": {0}, \"N\": {0}, \"K\": {0}}},\n"
      "    \"large\": {{\"M\": {1}, \"N\": {1}, \"K\": {1}}},\n"
      "}}\nM = {0}\nN = {0}\nK = {0}\n",
      medium, large);
  const std::string cast = CastIn(dtype);
  t.reference = ReferenceHead(doc, dtype, tol, variants);
  t.reference += "    def forward(self, a, b" + std::string(bias ? ", bias" : "") +
                 "):\n        v = (a @ b) * " + alpha + "\n" +
                 (bias ? "        v = v + bias\n" : "") +
                 (act ? "        v = " + act->torch_expr + "\n" : "") +
                 "        return v\n\n\n"
                 "def get_inputs():\n"
                 "    # 1/sqrt(K) keeps outputs near N(0, 1) at every K.\n"
                 "    return [(torch.randn(M, K) / K ** 0.5)" +
                 cast + ", torch.randn(K, N)" + cast + (bias ? ", torch.randn(N)" + cast : "") +
                 "]\n\n\ndef get_init_inputs():\n    return []\n";
  t.solution =
      Fill(kSolutionHeader, {{"DOC", "a tiled tl.dot kernel with a fused epilogue: " + doc + "."}});
  t.solution +=
      "@triton.jit\ndef _matmul_kernel(a_ptr, b_ptr, " + std::string(bias ? "bias_ptr, " : "") +
      "c_ptr, M, N, K, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):\n"
      "    pid_m = tl.program_id(0)\n"
      "    pid_n = tl.program_id(1)\n"
      "    rm = (pid_m * BLOCK_M + tl.arange(0, BLOCK_M)).to(tl.int64)\n"
      "    rn = (pid_n * BLOCK_N + tl.arange(0, BLOCK_N)).to(tl.int64)\n"
      "    acc = tl.zeros([BLOCK_M, BLOCK_N], dtype=tl.float32)\n"
      "    for k0 in range(0, K, BLOCK_K):\n"
      "        rk = k0 + tl.arange(0, BLOCK_K)\n"
      "        a = tl.load(a_ptr + rm[:, None] * K + rk[None, :], "
      "mask=(rm[:, None] < M) & (rk[None, :] < K), other=0.0)\n"
      "        b = tl.load(b_ptr + rk[:, None] * N + rn[None, :], "
      "mask=(rk[:, None] < K) & (rn[None, :] < N), other=0.0)\n"
      "        acc += tl.dot(a, b)\n"
      "    v = acc * " +
      alpha + "\n" +
      (bias ? "    v += tl.load(bias_ptr + rn, mask=rn < N, other=0.0).to(tl.float32)[None, :]\n"
            : "") +
      (act ? "    v = " + act->triton_expr + "\n" : "") +
      "    mask = (rm[:, None] < M) & (rn[None, :] < N)\n"
      "    tl.store(c_ptr + rm[:, None] * N + rn[None, :], v.to(c_ptr.dtype.element_ty), "
      "mask=mask)\n\n\n" +
      kModelNewHead + "    def forward(self, a, b" + (bias ? ", bias" : "") +
      "):\n        a = a.contiguous()\n        b = b.contiguous()\n"
      "        m, k = a.shape\n        n = b.shape[1]\n"
      "        c = torch.empty((m, n), device=a.device, dtype=a.dtype)\n" +
      fmt::format("        grid = (triton.cdiv(m, {0}), triton.cdiv(n, {1}))\n", tile.m, tile.n) +
      "        _matmul_kernel[grid](a, b, " + (bias ? "bias.contiguous(), " : "") +
      fmt::format("c, m, n, k, BLOCK_M={}, BLOCK_N={}, BLOCK_K={})\n        return c\n", tile.m,
                  tile.n, tile.k);
  t.plan = fmt::format(
      "Tile the output in {}x{} blocks, one program each, and loop over K in steps of {} with "
      "tl.dot into an fp32 accumulator. The epilogue (scale by {}{}{}) runs on the accumulator "
      "in registers before the single store, so the product never goes to memory. Masks on M, N "
      "and K because the small sizes are not multiples of the tile; 64-bit offsets for the large "
      "size. {}",
      tile.m, tile.n, tile.k, alpha, bias ? ", bias add" : "", act ? ", " + act->words : "",
      dtype == "float32" ? "fp32 operands go through TF32 tensor cores, inside the tolerance."
                         : "fp16 operands, fp32 accumulation, one cast at the store.");
  return t;
}

SynthTask Gather(rl::Xoshiro256& rng) {
  const UnaryOp& op = Pick(rng, UnaryOps());
  const std::string scale = Scalar(rng, {"0.5", "1.5", "2.0"});
  Shape shape = DrawShape(rng);
  const int block = Pick(rng, std::vector<int>{256, 512, 1024});
  SynthTask t;
  t.family = "gather";
  t.pattern = fmt::format("gather/index_select_rows+{}", op.name);
  t.shape_class = shape.shape_class;
  t.dtype = "float32";
  t.style = fmt::format("rows2d/BLOCK={}", block);
  const std::string doc =
      fmt::format("{}(x.index_select(0, idx) * {}) with idx distinct random rows", op.name, scale);
  const std::string variants = fmt::format(
      "VARIANTS = {{\n"
      "    \"small\": {{\"rows\": 50, \"n_idx\": 20, \"cols\": {0}}},\n"
      "    \"medium\": {{\"rows\": 8192, \"n_idx\": 4096, \"cols\": {1}}},\n"
      "    \"large\": {{\"rows\": 40000, \"n_idx\": 20000, \"cols\": {2}}},\n"
      "}}\nrows = 8192\nn_idx = 4096\ncols = {1}\n",
      shape.small_cols, shape.medium_cols, shape.large_cols);
  t.reference = ReferenceHead(doc, "float32", "", variants);
  t.reference += fmt::format(
      "    def forward(self, x, idx):\n        v = x.index_select(0, idx) * {}\n        v = {}\n"
      "        return v\n\n\n"
      "def get_inputs():\n    return [torch.randn(rows, cols), torch.randperm(rows)[:n_idx]]\n\n\n"
      "def get_init_inputs():\n    return []\n",
      scale, op.torch_expr);
  t.solution = Fill(kSolutionHeader, {{"DOC", "a row-gather kernel for " + doc + "."}});
  t.solution += fmt::format(
      "@triton.jit\ndef _gather_kernel(x_ptr, idx_ptr, out_ptr, n_cols, BLOCK: tl.constexpr):\n"
      "    i = tl.program_id(0).to(tl.int64)\n"
      "    cols = tl.program_id(1) * BLOCK + tl.arange(0, BLOCK)\n"
      "    mask = cols < n_cols\n"
      "    src = tl.load(idx_ptr + i).to(tl.int64)\n"
      "    v = tl.load(x_ptr + src * n_cols + cols, mask=mask, other=0.0) * {0}\n"
      "    v = {1}\n"
      "    tl.store(out_ptr + i * n_cols + cols, v, mask=mask)\n\n\n"
      "{2}"
      "    def forward(self, x, idx):\n        x = x.contiguous()\n        idx = idx.contiguous()\n"
      "        n = idx.shape[0]\n        cols = x.shape[1]\n"
      "        out = torch.empty((n, cols), device=x.device, dtype=x.dtype)\n"
      "        _gather_kernel[(n, triton.cdiv(cols, {3}))](x, idx, out, cols, BLOCK={3})\n"
      "        return out\n",
      scale, op.triton_expr, kModelNewHead, block);
  t.plan = fmt::format(
      "A 2-D grid: one selected row per program along axis 0, blocks of {} columns along axis 1. "
      "Each program reads its source row number from idx once, then copies that row's block with "
      "the scale by {} and {} fused, so the gathered rows are never materialised. Masks on the "
      "column tail; 64-bit source offsets since rows*cols passes 2^31 at the large size.",
      block, scale, op.words);
  return t;
}

using Family = SynthTask (*)(rl::Xoshiro256&);

const std::vector<std::pair<std::string, Family>>& FamilyTable() {
  static const std::vector<std::pair<std::string, Family>> table = {
      {"pointwise", Pointwise},
      {"row_reduce", RowReduce},
      {"col_reduce", ColReduce},
      {"softmax", Softmax},
      {"norm", Norm},
      {"matmul", Matmul},
      {"gather", Gather},
  };
  return table;
}

std::string Slug(const std::string& pattern) {
  std::string out;
  for (char c : pattern) {
    const bool keep = (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9');
    if (keep) {
      out += c;
    } else if (!out.empty() && out.back() != '_') {
      out += '_';
    }
  }
  while (!out.empty() && out.back() == '_') out.pop_back();
  return out;
}

std::uint64_t Fnv1a(const std::string& s) {
  std::uint64_t h = 1469598103934665603ull;
  for (unsigned char c : s) {
    h ^= c;
    h *= 1099511628211ull;
  }
  return h;
}

}  // namespace

const std::vector<std::string>& Families() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> out;
    for (const auto& [name, fn] : FamilyTable()) out.push_back(name);
    return out;
  }();
  return names;
}

std::string SplitFor(const std::string& pattern, const std::string& shape_class) {
  if (Fnv1a(pattern) % 5 == 0) return "heldout_pattern";
  // Among training patterns, the odd medium shapes (columns not a multiple of 128) are held
  // out for the shape split; their large size (16000 columns) is never seen in training either.
  if (shape_class == "odd" && Fnv1a("shape:" + pattern) % 2 == 0) return "heldout_shape";
  return "train";
}

std::vector<SynthTask> GenerateTasks(int n, std::uint64_t seed) {
  std::vector<SynthTask> tasks;
  const auto& table = FamilyTable();
  for (int i = 0; i < n; ++i) {
    // One stream per task: a task's content depends only on (seed, index), never on how
    // many tasks were drawn before it.
    auto rng = rl::Xoshiro256::FromSeed(seed * 1000003ull + static_cast<std::uint64_t>(i));
    SynthTask t = table[static_cast<size_t>(i) % table.size()].second(rng);
    t.id = fmt::format("s{:05d}_{}", i, Slug(t.pattern));
    t.split = SplitFor(t.pattern, t.shape_class);
    tasks.push_back(std::move(t));
  }
  return tasks;
}

nlohmann::json ManifestRecord(const SynthTask& t, bool verified) {
  return {{"task", t.id},     {"family", t.family}, {"pattern", t.pattern},
          {"dtype", t.dtype}, {"style", t.style},   {"shape_class", t.shape_class},
          {"split", t.split}, {"plan", t.plan},     {"verified", verified}};
}

}  // namespace tritonrl::data

namespace tritonrl::data {

Result<std::vector<std::string>> ManifestTaskIds(const std::string& dir, const std::string& split) {
  const std::string manifest = (std::filesystem::path(dir) / "manifest.jsonl").string();
  std::ifstream in(manifest);
  if (!in) return Status::NotFound(manifest + ": cannot read");
  std::vector<std::string> ids;
  std::string line;
  for (int no = 1; std::getline(in, line); ++no) {
    if (line.empty()) continue;
    const nlohmann::json j = nlohmann::json::parse(line, nullptr, false);
    if (!j.is_object() || !j.contains("task") || !j["task"].is_string()) {
      return Status::ParseError(manifest + ":" + std::to_string(no) +
                                ": not a manifest record with a task");
    }
    if (split.empty() || j.value("split", std::string("train")) == split) ids.push_back(j["task"]);
  }
  return ids;
}

Result<TaskFolder> OpenTaskFolder(const std::string& dir, const std::string& split) {
  TaskFolder f;
  if (!std::filesystem::exists(std::filesystem::path(dir) / "manifest.jsonl")) {
    f.suite_dir = dir;
    return f;
  }
  f.suite_dir = (std::filesystem::path(dir) / "tasks").string();
  auto ids = ManifestTaskIds(dir, split);
  if (!ids.ok()) return ids.status();
  f.ids = std::move(ids.value());
  return f;
}

}  // namespace tritonrl::data
