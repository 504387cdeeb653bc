"""Parameter sweeps on a Ray cluster: ``tune``'s shards as Ray tasks, merged on the driver into
exactly the result of ``rate_batch.tune`` on one machine.

    import rate_batch.ray
    t = rate_batch.ray.tune("s3-mounted/codeforces", "elo-mmr", random=1000, seed=7)
    print(t.best, t.trials.head())

Why plain Ray tasks over the package, not Ray Tune's ``Tuner``: the sweep must give the same
best parameters as ``tune`` on one machine, so the work is cut where ``tune --shard K/N`` cuts
it (deterministic slices of the parameter sets, each scored by the program's own code) and put
back by ``tune --merge``, which checks that every set was scored once by the same sweep, ranks
them with ``tune``'s ranking and runs the held-out replays. Ray Tune would bring its own
searchers, schedulers (stopping trials early) and ranking, and a result that is not
``tune``'s; what is wanted from Ray here is only placement, retries and the cluster.

``data`` is a path every node can read (shared storage) or a DataFrame (put once in Ray's
object store, handed to each task). Ray is started locally unless it is already (``ray.init``
with ``address=...`` for a cluster) or ``RAY_ADDRESS`` names one.
"""

from __future__ import annotations

from typing import Any, Mapping, Optional, Sequence, Union

import rate_batch

__all__ = ["tune"]


def _shard(data: Any, system: str, grid: Any, shard: tuple, options: dict) -> bytes:
    """One task: shard ``k`` of ``n`` scored, its file's bytes returned."""
    return rate_batch.tune(data, system, grid, shard=shard, **options).shard_file


def tune(
    data: Any,
    system: str,
    grid: Union[None, str, Mapping[str, Sequence[Any]]] = None,
    *,
    shards: Optional[int] = None,
    num_cpus: float = 1,
    **options: Any,
) -> "rate_batch.Tuning":
    """``rate_batch.tune(data, system, grid, **options)`` with its parameter sets scored in
    ``shards`` Ray tasks (default: one per CPU of the cluster), each asking ``num_cpus``.
    The same :class:`rate_batch.Tuning` as on one machine."""
    import ray

    if not ray.is_initialized():
        ray.init()
    n = shards or max(1, int(ray.cluster_resources().get("CPU", 1)))
    payload = ray.put(data) if rate_batch._is_frame(data) else data
    task = ray.remote(num_cpus=num_cpus)(_shard)
    files = ray.get([task.remote(payload, system, grid, (k, n), options) for k in range(1, n + 1)])
    return rate_batch.tune(data, system, grid, merge=files, **options)
