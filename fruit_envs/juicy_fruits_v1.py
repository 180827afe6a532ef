"""Retired: Juicy Fruits is `fruit_envs.juicy_fruits_v2` (see CHANGELOG.md)."""

from fruit_envs.core.spec import retired_version

retired_version(__name__, "juicy_fruits")
