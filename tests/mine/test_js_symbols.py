"""The names a JavaScript or TypeScript fix touches, and the code of its patch, as a
leak-free statement must not carry them."""

from __future__ import annotations

from bb_mine.js_symbols import modified_names
from bb_mine.reveals import FixFacts, PatchCode

OLD = b"""export class Parser {
  private depth = 0;
  parse(s: string): number {
    return s.length;
  }
  reset() { this.depth = 0 }
}
export const tidy = (s: string) => s.trim();
function _helper(x) { return x }
export interface Opts { a: number }
const LIMIT = 10;
"""
NEW = (
    OLD.replace(b"return s.length;", b"return s.trimEnd().length;")
    .replace(b"const LIMIT = 10", b"const LIMIT = 12")
    .replace(b"{ a: number }", b"{ a: number; b?: string }")
    + b"export function _guard(v) { return v }\nclass Cache { #hits = 0; #bump() { this.#hits++ } }\n"
)


def test_the_names_a_fix_touches() -> None:
    names = modified_names([("src/lib/parse.ts", OLD, NEW)], "src/lib")
    assert names == [
        "#bump",
        "#hits",
        "Cache",
        "Cache.#bump",
        "Cache.#hits",
        "LIMIT",
        "Opts",
        "Parser.parse",
        "_guard",
        "lib/parse",
        "parse",
        "parse.ts",
        "src/lib/parse.ts",
    ]


def test_an_index_file_is_named_by_its_folder_and_a_new_file_is_read_whole() -> None:
    names = modified_names([("src/util/index.js", None, b"export function f() {}\n")], "src")
    assert names == ["f", "index.js", "src/util", "src/util/index.js"]


def test_private_names_of_javascript_are_private() -> None:
    fix = FixFacts.of(["Cache.#bump", "#bump", "_guard", "Parser.parse"], node=True)
    assert fix.private == {"Cache.#bump", "#bump", "_guard"}


def test_patch_code_reads_javascript() -> None:
    patch = (
        "diff --git a/src/a.ts b/src/a.ts\n"
        "+export function normalizeInput(s: string) {\n"
        "+  // strip the #hash marks: keep_this_comment out\n"
        "+  const cleanedText = s.replace(/#/g, '');\n"
        "+  this.#cacheValue = cleanedText;\n"
        "+  parseValue(x: number): string {\n"
        "+  if (x) {\n"
        "+  throw new TypeError('bad');\n"
    )
    code = PatchCode.of(patch, node=True)
    assert code.introduced == {"normalizeInput", "parseValue", "cleanedText"}
    assert code.found_in("It calls normalizeInput first.") == "normalizeInput"
    assert code.found_in("keep_this_comment out") is None
    # Python's reading of the same lines: a # starts a comment, def/class define
    assert PatchCode.of(patch).introduced == set()
