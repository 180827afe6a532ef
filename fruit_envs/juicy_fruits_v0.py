from fruit_envs.core.spec import retired_version

retired_version(__name__, "juicy_fruits")
