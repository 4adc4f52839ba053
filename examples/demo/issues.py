"""The offline issue export written beside the demo repository as ``issues.jsonl``.

One record per issue or pull request that the demo history names, in the shape bb-mine
reads: ``number``, ``title``, ``body``, ``is_pull_request``, ``closes``. Like real reports,
most bodies go beyond the symptom: a "Solution" or "Proposed fix" section, a ``diff`` block
and a sentence telling where the bug is - exactly what redaction has to remove.

Each report states its reproducing input in a sentence that names no function or module,
so the input survives redaction; the scripted agents recognise a task by that input.
"""

from __future__ import annotations

from typing import Any

from history import text


def _issue(number: int, title: str, body: str) -> dict[str, Any]:
    return {
        "number": number,
        "title": title,
        "body": text(body),
        "is_pull_request": False,
        "closes": [],
    }


ISSUES: tuple[dict[str, Any], ...] = (
    _issue(
        9,
        "README shows the wrong slug",
        """
        The first example in the README says the result is 'hello_world', but running it
        gives 'hello-world'.

        ## Proposed fix

        Change the example to match what slugify() returns.
        """,
    ),
    _issue(
        11,
        "Accented letters disappear from slugs",
        """
        A recipe titled "Crème Brûlée" gets the slug `cr-me-br-l-e`: every accented letter is
        dropped and leaves a gap. I expected `creme-brulee`, the way other slug tools fold
        accents to plain letters. Any text with accents shows it, not just this title.

        Steps: make a slug from "Crème Brûlée" with the default separator.

        The culprit is slugify(), which only keeps the ASCII letters a-z and digits.

        ## Solution

        Normalise to NFKD and drop the combining marks first:

        ```diff
        -    return sep.join(re.findall(r"[a-z0-9]+", text.lower()))
        +    folded = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode("ascii")
        +    return sep.join(re.findall(r"[a-z0-9]+", folded.lower()))
        ```
        """,
    ),
    {
        "number": 12,
        "title": "Fix slugify dropping accented letters",
        "body": text(
            """
            Fixes #11. A title such as "Crème Brûlée" became a slug with holes in it.

            ## Changes

            slugify() now decomposes the text (NFKD) and drops the combining marks before it
            picks out letters and digits, so accented letters fold to their plain forms.

            ```diff
            -    return sep.join(re.findall(r"[a-z0-9]+", text.lower()))
            +    folded = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode("ascii")
            +    return sep.join(re.findall(r"[a-z0-9]+", folded.lower()))
            ```
            """
        ),
        "is_pull_request": True,
        "closes": [11],
    },
    _issue(
        15,
        "Acronyms are split letter by letter in snake case",
        """
        Converting the identifier "HTTPServer" gives `h_t_t_p_server`; it should be
        `http_server`. Names with an acronym in the middle, like "parseXMLFile", are just as
        bad.

        The bug is in snake_case(), which puts an underscore before every capital letter.

        ## Proposed fix

        Only split where a lower-case letter meets a capital, or before the last capital of a
        run that starts a new word:

        ```diff
        -    return re.sub(r"(?<!^)(?=[A-Z])", "_", name).lower()
        +    return re.sub(r"(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])", "_", name).lower()
        ```
        """,
    ),
    _issue(
        17,
        "Shortened text is longer than the width asked for",
        """
        Shortening "abcdefghij" to a width of 8 gives `abcdefgh...`, which is eleven characters
        long. The documentation promises at most *width* characters, so I expected `abcde...`.
        The same happens with any long text and with a custom ellipsis.

        The bug is in truncate(): it cuts the text at *width* and only then adds the ellipsis.

        ## Solution

        Leave room for the ellipsis:

        ```diff
        -    return text[:width] + ellipsis
        +    return text[: max(width - len(ellipsis), 0)] + ellipsis
        ```
        """,
    ),
    _issue(
        21,
        "Lone punctuation is counted as a word",
        """
        The sentence "wait - what?" is counted as 3 words instead of 2: the dash standing on
        its own between spaces is counted as a word. Other punctuation standing alone, such as
        an em dash or an ellipsis character, is counted too.

        The problem is in word_count(), which splits on whitespace and counts whatever comes out.

        It would help to have the tokenizer public as well, as `split_words(text)` in the same
        module, returning the words that are counted.

        ## Proposed fix

        ```diff
        +_WORD = re.compile(r"\\w+(?:['’]\\w+)*")
        +
        +def split_words(text):
        +    return _WORD.findall(text)
        +
         def word_count(text):
        -    return len(text.split())
        +    return len(split_words(text))
        ```
        """,
    ),
    _issue(
        23,
        "TypeError on None",
        """
        Passing None where a text is expected raises TypeError in three places. An empty
        result would be friendlier for optional form fields.

        ## Solution

        Treat None like the empty string in slugify(), truncate() and word_count().
        """,
    ),
    _issue(
        25,
        "Titles starting with a small word keep it lower case",
        """
        "the lord of the rings" becomes "the Lord of the Rings": the first word of a title
        should always be capitalised.

        ## Proposed fix

        In title_case(), capitalise the first word the way the last one already is.

        ```diff
        +    titled[0] = titled[0].capitalize()
             titled[-1] = titled[-1].capitalize()
        ```
        """,
    ),
    _issue(
        27,
        "camelCase result starts with a capital letter",
        """
        Converting "User Name" gives `UserName`, which is PascalCase; camelCase starts lower
        case, so I expected `userName`. Any text whose first word starts with a capital, an
        acronym included, shows the same thing.

        The bug is in camel_case(), which lower-cases nothing and keeps the first word as given.
        This patch makes it work for me:

        ```diff
        -    return words[0] + "".join(word[:1].upper() + word[1:] for word in words[1:])
        +    return words[0].lower() + "".join(word[:1].upper() + word[1:] for word in words[1:])
        ```

        ## Solution

        Lower-case the first word before joining the others to it.
        """,
    ),
    _issue(
        29,
        "Hyphenated words count as two, and the longest word keeps its punctuation",
        """
        Counting the words of "a well-known fact" gives 4; a hyphenated word is one word, so
        I expected 3. And the longest word of "Stop, thief!" comes back as `thief!`, with its
        exclamation mark, where I expected `thief`: the longest word should be one of the
        words that are counted.

        The culprit is the word pattern, which stops at a hyphen, and longest_word(), which
        splits on whitespace instead of using it.

        ## Proposed fix

        Let the pattern join word characters across a hyphen too, and find the longest word
        among split_words(text):

        ```diff
        -_WORD = re.compile(r"\\w+(?:['’]\\w+)*")
        +_WORD = re.compile(r"\\w+(?:['’-]\\w+)*")
        -    return max(text.split(), key=len, default="")
        +    return max(split_words(text), key=len, default="")
        ```
        """,
    ),
)
