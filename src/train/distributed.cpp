#include "train/distributed.h"

#include <ATen/ATen.h>
#include <ATen/core/grad_mode.h>

#include <cstdlib>
#include <optional>
#include <string>

#ifdef TRITONRL_HAVE_GLOO
#include <torch/csrc/distributed/c10d/PrefixStore.hpp>
#include <torch/csrc/distributed/c10d/ProcessGroupGloo.hpp>
#include <torch/csrc/distributed/c10d/TCPStore.hpp>
#endif

namespace tritonrl::train {

#ifdef TRITONRL_HAVE_GLOO
struct DistributedGroup {
  c10::intrusive_ptr<c10d::Store> store;
  c10::intrusive_ptr<c10d::Backend> backend;
};
#else
struct DistributedGroup {};
#endif

namespace {

Result<int> EnvInt(const char* name, int fallback, int min) {
  const char* v = std::getenv(name);
  if (v == nullptr || *v == '\0') return fallback;
  char* end = nullptr;
  const long n = std::strtol(v, &end, 10);
  if (*end != '\0' || n < min || n > 1 << 20) {
    return Status::InvalidArgument(std::string("environment variable ") + name + "=" + v +
                                   " is not an integer >= " + std::to_string(min));
  }
  return static_cast<int>(n);
}

#ifdef TRITONRL_HAVE_GLOO
std::string Who(const DistributedContext& ctx) {
  return "rank " + std::to_string(ctx.rank) + "/" + std::to_string(ctx.world);
}

// Runs one collective and waits for it under the group's deadline; a peer that
// died (connection closed) or hangs (deadline) becomes an error naming it.
template <typename Start>
Status RunCollective(const DistributedContext& ctx, const char* what, Start start) {
  try {
    c10::intrusive_ptr<c10d::Work> work = start(*ctx.group->backend);
    work->wait(std::chrono::duration_cast<std::chrono::milliseconds>(ctx.timeout));
    return Status::Ok();
  } catch (const std::exception& e) {
    std::string msg = e.what();
    if (const auto* ce = dynamic_cast<const c10::Error*>(&e)) msg = ce->what_without_backtrace();
    return Status::Unavailable("distributed " + std::string(what) + " failed on " + Who(ctx) +
                               " (another rank died, hung or left; deadline " +
                               std::to_string(ctx.timeout.count()) +
                               " s, TRITONRL_DIST_TIMEOUT_S): " + msg);
  }
}

// Gloo reduces host tensors: a flat CPU buffer of every tensor, in order, in
// the first tensor's dtype (callers pass tensors of one dtype).
at::Tensor Flatten(const std::vector<at::Tensor>& tensors) {
  std::vector<at::Tensor> flat;
  for (const at::Tensor& x : tensors) {
    flat.push_back(x.detach().reshape({-1}).to(at::kCPU, tensors.front().scalar_type()));
  }
  return at::cat(flat);
}

void Unflatten(const at::Tensor& buffer, const std::vector<at::Tensor>& tensors) {
  int64_t at_offset = 0;
  for (const at::Tensor& x : tensors) {
    const int64_t n = x.numel();
    x.detach().copy_(buffer.narrow(0, at_offset, n).view(x.sizes()));
    at_offset += n;
  }
}

// One collective over a flat host copy of `tensors`, whose result is copied back into them.
template <typename Op>
Status FlatCollective(const DistributedContext& ctx, const std::vector<at::Tensor>& tensors,
                      const char* what, Op op) {
  at::NoGradGuard no_grad;
  std::vector<at::Tensor> buf{Flatten(tensors)};
  TRITONRL_RETURN_IF_ERROR(RunCollective(ctx, what, [&](c10d::Backend& b) { return op(b, buf); }));
  Unflatten(buf[0], tensors);
  return Status::Ok();
}
#else
Status NoGloo() {
  return Status::FailedPrecondition("no Gloo in this build");
}
#endif

}  // namespace

Result<DistributedContext> DistributedFromEnv() {
  DistributedContext ctx;
  auto world = EnvInt("WORLD_SIZE", 1, 1);
  if (!world.ok()) return world.status();
  ctx.world = *world;
  if (ctx.world == 1) return ctx;
  auto rank = EnvInt("RANK", -1, 0);
  if (!rank.ok()) return rank.status();
  if (*rank < 0 || *rank >= ctx.world) {
    return Status::InvalidArgument("WORLD_SIZE=" + std::to_string(ctx.world) +
                                   " needs RANK in [0, WORLD_SIZE)");
  }
  ctx.rank = *rank;
  auto local = EnvInt("LOCAL_RANK", ctx.rank, 0);
  if (!local.ok()) return local.status();
  ctx.local_rank = *local;
  auto timeout = EnvInt("TRITONRL_DIST_TIMEOUT_S", 600, 1);
  if (!timeout.ok()) return timeout.status();
  ctx.timeout = std::chrono::seconds(*timeout);
  const char* addr = std::getenv("MASTER_ADDR");
  auto port = EnvInt("MASTER_PORT", -1, 1);
  if (!port.ok()) return port.status();
  if (addr == nullptr || *addr == '\0' || *port < 0 || *port > 65535) {
    return Status::InvalidArgument(
        "WORLD_SIZE > 1 needs MASTER_ADDR and MASTER_PORT (rank 0's address and a free port)");
  }
#ifdef TRITONRL_HAVE_GLOO
  try {
    // Under torchrun the elastic agent already hosts the store on MASTER_PORT
    // (TORCHELASTIC_USE_AGENT_STORE=True): every rank joins it as a client.
    const char* agent = std::getenv("TORCHELASTIC_USE_AGENT_STORE");
    const bool agent_store = agent != nullptr && std::string(agent) == "True";
    c10d::TCPStoreOptions so;
    so.port = static_cast<uint16_t>(*port);
    so.isServer = ctx.rank == 0 && !agent_store;
    so.numWorkers = agent_store ? std::nullopt : std::optional<size_t>(ctx.world);
    so.waitWorkers = !agent_store;
    so.timeout = std::chrono::duration_cast<std::chrono::milliseconds>(ctx.timeout);
    auto group = std::make_shared<DistributedGroup>();
    // Our keys under their own prefix: the agent's store holds the agent's too.
    group->store = c10::make_intrusive<c10d::PrefixStore>(
        "tritonrl/", c10::make_intrusive<c10d::TCPStore>(addr, so));
    auto opts = c10d::ProcessGroupGloo::Options::create(
        std::chrono::duration_cast<std::chrono::milliseconds>(ctx.timeout));
    // GLOO_SOCKET_IFNAME picks the interface, as with torchrun; a loopback
    // MASTER_ADDR (one host) binds the loopback; otherwise this host's name.
    const std::string master = addr;
    const char* ifname = std::getenv("GLOO_SOCKET_IFNAME");
    if (ifname != nullptr && *ifname != '\0') {
      opts->devices.push_back(c10d::ProcessGroupGloo::createDeviceForInterface(ifname));
    } else if (master == "127.0.0.1" || master == "localhost") {
      opts->devices.push_back(c10d::ProcessGroupGloo::createDeviceForHostname("127.0.0.1"));
    } else {
      opts->devices.push_back(c10d::ProcessGroupGloo::createDefaultDevice());
    }
    group->backend =
        c10::make_intrusive<c10d::ProcessGroupGloo>(group->store, ctx.rank, ctx.world, opts);
    ctx.group = std::move(group);
  } catch (const std::exception& e) {
    std::string msg = e.what();
    if (const auto* ce = dynamic_cast<const c10::Error*>(&e)) msg = ce->what_without_backtrace();
    return Status::Unavailable("distributed rendezvous at " + std::string(addr) + ":" +
                               std::to_string(*port) + " failed on " + Who(ctx) + ": " + msg);
  }
  return ctx;
#else
  return Status::FailedPrecondition(
      "WORLD_SIZE > 1 but this build has no Gloo (install the gloo headers, e.g. libgloo-dev, "
      "and rebuild)");
#endif
}

Status Broadcast(const DistributedContext& ctx, const std::vector<at::Tensor>& tensors) {
  if (!ctx.active() || tensors.empty()) return Status::Ok();
#ifdef TRITONRL_HAVE_GLOO
  return FlatCollective(ctx, tensors, "broadcast", [](c10d::Backend& b, auto& buf) {
    return b.broadcast(buf, c10d::BroadcastOptions{0, 0});
  });
#else
  return NoGloo();
#endif
}

Status AllReduceSum(const DistributedContext& ctx, const std::vector<at::Tensor>& tensors) {
  if (!ctx.active() || tensors.empty()) return Status::Ok();
#ifdef TRITONRL_HAVE_GLOO
  return FlatCollective(ctx, tensors, "all-reduce", [](c10d::Backend& b, auto& buf) {
    c10d::AllreduceOptions o;
    o.reduceOp = c10d::ReduceOp::SUM;
    return b.allreduce(buf, o);
  });
#else
  return NoGloo();
#endif
}

Status AllReduceGradients(const DistributedContext& ctx, Trainable& t) {
  if (!ctx.active()) return Status::Ok();
  at::NoGradGuard no_grad;
  std::vector<at::Tensor> grads;
  for (Param& p : t.params) {
    if (!p.value.grad().defined()) p.value.mutable_grad() = at::zeros_like(p.value.detach());
    grads.push_back(p.value.grad());
  }
  return AllReduceSum(ctx, grads);
}

Status Barrier(const DistributedContext& ctx) {
  if (!ctx.active()) return Status::Ok();
#ifdef TRITONRL_HAVE_GLOO
  return RunCollective(ctx, "barrier",
                       [&](c10d::Backend& b) { return b.barrier(c10d::BarrierOptions{}); });
#else
  return NoGloo();
#endif
}

}  // namespace tritonrl::train
