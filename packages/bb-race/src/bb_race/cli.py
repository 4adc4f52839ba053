"""bb-race: the command of its stage (:data:`bb_race.spec.SPEC`)."""

from __future__ import annotations

from bb_core.stage_cli import stage_command

from bb_race.spec import SPEC

main = stage_command(SPEC)
