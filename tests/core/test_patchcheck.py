"""What a patch's text gives away, read without running anything."""

from __future__ import annotations

from pathlib import Path

from bb_core.patch import apply_patch, diff_trees
from bb_core.patch.check import (
    binary_files,
    find_credentials,
    outside_links,
    patch_credentials,
    redact_patch,
)


def patch_of(
    tmp_path: Path, files: dict[str, str | bytes], links: dict[str, str] | None = None
) -> str:
    base, work = tmp_path / "base", tmp_path / "work"
    (base / "pkg").mkdir(parents=True)
    (base / "pkg" / "core.py").write_text("X = 1\n")
    (work / "pkg").mkdir(parents=True)
    (work / "pkg" / "core.py").write_text("X = 1\n")
    for name, data in files.items():
        path = work / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data if isinstance(data, bytes) else data.encode())
    for name, target in (links or {}).items():
        (work / name).symlink_to(target)
    return diff_trees(base, work)


def test_links_out_of_the_tree_and_binary_files(tmp_path: Path) -> None:
    patch = patch_of(
        tmp_path,
        {"pkg/blob.zip": b"PK\x03\x04\x00\x00", "pkg/data.bin": b"\x00\x01\x02"},
        {"pkg/out.py": "/home/agent/fixed.py", "pkg/up.py": "../../peer/core.py",
         "pkg/in.py": "core.py"},
    )  # fmt: skip
    assert outside_links(patch) == {
        "pkg/out.py": "/home/agent/fixed.py",
        "pkg/up.py": "../../peer/core.py",
    }
    assert sorted(binary_files(patch)) == ["pkg/blob.zip", "pkg/data.bin"]


def test_credentials_are_found_and_redacted_from_added_lines_only(tmp_path: Path) -> None:
    token = "ghp_" + "x" * 36
    aws = "AKIA" + "ABCDEFGHIJKLMNOP"
    patch = patch_of(tmp_path, {"pkg/core.py": (
        "X = 1\n"
        "# -----BEGIN RSA PRIVATE KEY-----\n# MIIEowIBAAKCAQEAexample\n# -----END RSA PRIVATE KEY-----\n"
        f"TOKEN = '{token}'\nKEY = '{aws}'\n"
    )})  # fmt: skip
    assert set(patch_credentials(patch)) == {"private key", "GitHub token", "AWS access key id"}
    redacted = redact_patch(patch)
    assert token not in redacted and aws not in redacted and "MIIEow" not in redacted
    assert "+# [redacted]\n" in redacted and "+TOKEN = '[redacted]'" in redacted
    # Still a patch that applies, with the same shape.
    dest = tmp_path / "applied"
    (dest / "pkg").mkdir(parents=True)
    (dest / "pkg" / "core.py").write_text("X = 1\n")
    apply_patch(redacted, dest)
    assert (dest / "pkg" / "core.py").read_text().count("\n") == 6
    assert find_credentials("nothing here: sk-short, ghp_tooshort") == []
    assert patch_credentials(patch, ["X = 1"]) == patch_credentials(patch)  # context is not added
