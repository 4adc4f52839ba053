"""The offline issue export written beside the TypeScript demo repository as ``issues.jsonl``.

The same shape and the same habits as textkit's (``issues.py``): each report states its
reproducing input in a sentence that names no function or file, so the input survives
redaction, and most go on to say where the bug is and how to fix it - what redaction
removes. The scripted agents recognise a task by that input.
"""

from __future__ import annotations

from typing import Any

from history import text
from issues import _issue

ISSUES: tuple[dict[str, Any], ...] = (
    _issue(
        31,
        "README shows the wrong slug",
        """
        The first example in the README says the result is "hello_world", but running it
        gives "hello-world".

        ## Proposed fix

        Change the example to match what slugify() returns.
        """,
    ),
    _issue(
        33,
        "Acronyms are split letter by letter in kebab case",
        """
        Converting the identifier "HTTPServer" gives `h-t-t-p-server`; it should be
        `http-server`. Names with an acronym in the middle, like "parseXMLFile", are just as
        bad.

        The bug is in kebabCase(), which puts a dash before every capital letter.

        ## Proposed fix

        Only split where a lower-case letter meets a capital, or before the last capital of a
        run that starts a new word:

        ```diff
        -  return name.replace(/(?<!^)(?=[A-Z])/g, "-").toLowerCase();
        +  return name.replace(/(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])/g, "-").toLowerCase();
        ```
        """,
    ),
    _issue(
        35,
        "Shortened text is longer than the width asked for",
        """
        Shortening "hello world" to a width of 8 gives `hello wo...`, which is eleven
        characters long. The documentation promises at most *width* characters, so I expected
        `hello...`. The same happens with any long text and with a custom ellipsis.

        The bug is in truncate(): it cuts the text at *width* and only then adds the ellipsis.

        ## Solution

        Leave room for the ellipsis:

        ```diff
        -  return text.slice(0, width) + ellipsis;
        +  return text.slice(0, Math.max(width - ellipsis.length, 0)) + ellipsis;
        ```
        """,
    ),
    _issue(
        37,
        "Accented letters disappear from slugs",
        """
        A film titled "Déjà Vu" gets the slug `d-j-vu`: every accented letter is dropped and
        leaves a gap. I expected `deja-vu`, the way other slug tools fold accents to plain
        letters. Any text with accents shows it, not just this title.

        Steps: make a slug from "Déjà Vu" with the default separator.

        The culprit is slugify(), which only keeps the ASCII letters a-z and digits.

        ## Solution

        Normalise to NFKD and drop the combining marks first:

        ```diff
        -  return (text.toLowerCase().match(/[a-z0-9]+/g) ?? []).join(sep);
        +  const folded = text.normalize("NFKD").replace(/[\\u0300-\\u036f]/g, "");
        +  return (folded.toLowerCase().match(/[a-z0-9]+/g) ?? []).join(sep);
        ```
        """,
    ),
    {
        "number": 38,
        "title": "Fix slugify dropping accented letters",
        "body": text(
            """
            Fixes #37. A title such as "Déjà Vu" became a slug with holes in it.

            ## Changes

            slugify() now decomposes the text (NFKD) and drops the combining marks before it
            picks out letters and digits, so accented letters fold to their plain forms.
            """
        ),
        "is_pull_request": True,
        "closes": [37],
    },
    _issue(
        39,
        "Lone punctuation is counted as a word",
        """
        The sentence "ready, set - go!" is counted as 4 words instead of 3: the dash standing
        on its own between spaces is counted as a word. Other punctuation standing alone, such
        as an em dash or an ellipsis character, is counted too.

        The problem is in wordCount(), which splits on whitespace and counts whatever comes out.

        It would help to have the tokenizer public as well, as `splitWords(text)` in the same
        module, returning the words that are counted.

        ## Proposed fix

        ```diff
        +const WORD = /[\\p{L}\\p{N}_]+(?:['’][\\p{L}\\p{N}_]+)*/gu;
        +
        +export function splitWords(text: string): string[] {
        +  return text.match(WORD) ?? [];
        +}
        +
         export function wordCount(text: string): number {
        -  return text.split(/\\s+/).filter(Boolean).length;
        +  return splitWords(text).length;
         }
        ```
        """,
    ),
    _issue(
        41,
        "TypeError on undefined",
        """
        Passing undefined where a text or a list is expected throws a TypeError in three
        places. An empty result would be friendlier for optional form fields.

        ## Solution

        Treat undefined like the empty string in slugify() and wordCount(), and like the empty
        array in chunk().
        """,
    ),
    _issue(
        43,
        "Titles starting with a small word keep it lower case",
        """
        "the lord of the rings" becomes "the Lord of the Rings": the first word of a title
        should always be capitalised.

        ## Proposed fix

        In titleCase(), capitalise the first word the way the last one already is.
        """,
    ),
    _issue(
        45,
        "camelCase result starts with a capital letter",
        """
        Converting "Order Total" gives `OrderTotal`, which is PascalCase; camelCase starts
        lower case, so I expected `orderTotal`. Any text whose first word starts with a
        capital, an acronym included, shows the same thing.

        The bug is in camelCase(), which lower-cases nothing and keeps the first word as given.
        This patch makes it work for me:

        ```diff
        -  return words[0] + words.slice(1).map(capitalize).join("");
        +  return words[0].toLowerCase() + words.slice(1).map(capitalize).join("");
        ```

        ## Solution

        Lower-case the first word before joining the others to it.
        """,
    ),
    _issue(
        47,
        "Hyphenated words count as several, and the longest word keeps its punctuation",
        """
        Counting the words of "a state-of-the-art tool" gives 6; a hyphenated word is one
        word, so I expected 3. And the longest word of "Stop, thief!" comes back as `thief!`,
        with its exclamation mark, where I expected `thief`: the longest word should be one
        of the words that are counted.

        The culprit is the word pattern, which stops at a hyphen, and longestWord(), which
        splits on whitespace instead of using it.

        ## Proposed fix

        Let the pattern join word characters across a hyphen too, and find the longest word
        among splitWords(text):

        ```diff
        -const WORD = /[\\p{L}\\p{N}_]+(?:['’][\\p{L}\\p{N}_]+)*/gu;
        +const WORD = /[\\p{L}\\p{N}_]+(?:['’-][\\p{L}\\p{N}_]+)*/gu;
        -  for (const word of text.split(/\\s+/)) {
        +  for (const word of splitWords(text)) {
        ```
        """,
    ),
)
