"""Training and demonstration scripts."""

if __name__ != "fruit_envs.training":  # one import name per module: this folder is fruit_envs.training
    raise ImportError(f"{__name__}: the training/ folder is the package fruit_envs.training; import that name")
