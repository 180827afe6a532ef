"""Fruit Picking v0 is retired: use `fruit_envs.fruit_picking_v1` (see CHANGELOG.md)."""

from fruit_envs.core.spec import retired_version

retired_version(__name__, "fruit_picking")
