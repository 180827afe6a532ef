"""Benchmarks: throughput against peer libraries, tournaments with ratings."""

if __name__ != "fruit_envs.benchmarks":  # one import name per module: this folder is fruit_envs.benchmarks
    raise ImportError(f"{__name__}: the benchmarks/ folder is the package fruit_envs.benchmarks; import that name")
