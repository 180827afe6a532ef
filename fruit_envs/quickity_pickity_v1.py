"""Retired: Quickity Pickity is `fruit_envs.quickity_pickity_v2` (see CHANGELOG.md)."""

from fruit_envs.core.spec import retired_version

retired_version(__name__, "quickity_pickity")
