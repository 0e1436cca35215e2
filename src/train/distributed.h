// Data-parallel glue for the training loops of src/train (SFT now, GRPO
// later) over libtorch's c10d: a rendezvous through a TCPStore that rank 0
// hosts, started the way torchrun starts ranks (RANK, LOCAL_RANK, WORLD_SIZE,
// MASTER_ADDR, MASTER_PORT), and a Gloo process group for the collectives.
// Every collective has a deadline (the watchdog): a rank that died or hangs
// makes the others fail with a message naming the operation, never wait
// forever. Only src/train includes this header (libtorch types). One context
// per process, used from the training loop's thread. Nothing survives a crash:
// the ranks' shared state is the training checkpoint rank 0 writes.
#pragma once

#include <ATen/core/Tensor.h>

#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include "base/status.h"
#include "train/trainer.h"

namespace tritonrl::train {

struct DistributedGroup;  // the process group (c10d types stay in distributed.cpp)

struct DistributedContext {
  int rank = 0;
  int local_rank = 0;
  int world = 1;
  std::chrono::seconds timeout{600};
  std::shared_ptr<DistributedGroup> group;  // null when world == 1
  bool active() const { return world > 1; }
  bool is_root() const { return rank == 0; }
};

// WORLD_SIZE unset or 1: a single-process context (no collectives, no
// sockets). Otherwise joins the group; rank 0 hosts the store on MASTER_PORT.
// The deadline of each collective is TRITONRL_DIST_TIMEOUT_S (seconds,
// default 600), long enough for rank 0 to evaluate and save meanwhile.
Result<DistributedContext> DistributedFromEnv();

// Overwrites each tensor with rank 0's copy (in place; any device).
Status Broadcast(const DistributedContext& ctx, const std::vector<at::Tensor>& tensors);
// Element-wise sum over the ranks, in place (one flat buffer for all tensors).
Status AllReduceSum(const DistributedContext& ctx, const std::vector<at::Tensor>& tensors);
// Sums every parameter's gradient over the ranks (a missing gradient counts
// as zeros and becomes defined). Callers scale each rank's loss by the global
// normaliser first, so the sum is the gradient one rank would get alone.
Status AllReduceGradients(const DistributedContext& ctx, Trainable& t);
Status Barrier(const DistributedContext& ctx);

}  // namespace tritonrl::train
