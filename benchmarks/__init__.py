"""Benchmarks: throughput against peer libraries, tournaments with ratings."""

if __name__ != "fruit_envs.benchmarks":  # one import name per module: this folder is fruit_envs.benchmarks
    from fruit_envs._checkout import refuse_bare_name

    refuse_bare_name(__name__)
