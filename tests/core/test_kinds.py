"""bb_core.records.kinds and bb_core.records.vocabulary follow the schemas; the code's lists of codes come from them."""

from __future__ import annotations

import subprocess
import sys
import typing
from pathlib import Path

from bb_core.records import kinds, vocabulary
from bb_core.records.schemas import schema

ROOT = Path(__file__).resolve().parents[2]


def test_kinds_and_vocabulary_modules_are_generated_from_the_current_schemas() -> None:
    done = subprocess.run(
        [sys.executable, str(ROOT / "scripts" / "kinds_gen.py"), "--check"],
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stderr


def test_every_enum_of_the_definitions_is_a_literal_and_a_tuple() -> None:
    defs = schema("defs")["$defs"]
    enums = {name: d["enum"] for name, d in defs.items() if "enum" in d}
    assert {"attempt_status", "category", "policy", "sandbox_kind", "mine_skip_reason"} <= set(
        enums
    )
    for name, values in enums.items():
        alias = getattr(kinds, "".join(p.capitalize() for p in name.split("_")), None)
        if alias is None:  # renamed to read well in Python
            continue
        assert list(typing.get_args(alias)) == values


def test_the_records_required_fields_are_required() -> None:
    attempt = schema("attempt")
    assert kinds.Attempt.__required_keys__ == frozenset(attempt["required"])
    assert set(kinds.Attempt.__annotations__) == set(attempt["properties"])
    assert kinds.Skip.__required_keys__ == frozenset(schema("skip")["required"])


def test_the_codes_stages_use_are_the_schemas() -> None:
    from bb_core.agents import ASSIGNMENTS, ROLES
    from bb_core.records.schemas import KINDS
    from bb_core.sandbox import KINDS as SANDBOX_KINDS
    from bb_judge.policies import POLICIES
    from bb_mine.options import NEW_TESTS, REASONS
    from bb_oracle.oracle import REASONS as ORACLE_REASONS
    from bb_report.statuses import STATUSES

    assert REASONS == kinds.MINE_SKIP_REASONS
    assert tuple(ORACLE_REASONS) == kinds.ORACLE_SKIP_REASONS
    assert tuple(POLICIES) == kinds.POLICIES
    assert SANDBOX_KINDS == kinds.SANDBOX_KINDS
    assert KINDS == kinds.KINDS
    assert (ROLES, ASSIGNMENTS, NEW_TESTS) == (kinds.ROLES, kinds.ASSIGNMENTS, kinds.NEW_TESTS)
    assert STATUSES[:-1] == vocabulary.ATTEMPT_STATUSES


def test_a_skip_with_an_unknown_reason_is_refused() -> None:
    from bb_core.records import check

    good = {"kind": "skip", "v": 1, "stage": "mine", "reason": "not-a-fix", "message": "m"}
    assert check(good, "skip") is None
    problem = check({**good, "reason": "made-up"}, "skip")
    assert problem is not None and problem[0] == "reason"
