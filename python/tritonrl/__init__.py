"""tritonrl's adapters for other RL engines: `tritonrl serve` (docs/serve.md) as the reward and
HRD advantage source of TRL (`tritonrl.trl`) and verl (`tritonrl.verl`). docs/adapters.md.

Importing the package, `tritonrl.client`, `tritonrl.hrd`, `tritonrl.tokens`, `tritonrl.verl` or the
reward function of `tritonrl.trl` needs only the standard library; torch and TRL are imported by
`tritonrl.trl.HRDGRPOTrainer` and by the verl advantage estimator when they are used.
"""
from .client import ServerUnavailable, TritonRLClient, TritonRLError

__version__ = "0.1.0"
__all__ = ["TritonRLClient", "TritonRLError", "ServerUnavailable", "__version__"]
