"""Retired: the Juicy Fruits score attack is `fruit_envs.juicy_fruits_solo_v1` (see CHANGELOG.md)."""

from fruit_envs.core.spec import retired_version

retired_version(__name__, "juicy_fruits_solo")
