"""Training and demonstration scripts."""

if __name__ != "fruit_envs.training":  # one import name per module: this folder is fruit_envs.training
    from fruit_envs._checkout import refuse_bare_name

    refuse_bare_name(__name__)
