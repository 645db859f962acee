"""Usernames that cannot be mistaken for one another: a name's skeleton is what it looks like
(NFKC, Cyrillic, Greek and Armenian look-alikes as the Latin letters they resemble, I/l/1 and O/0
as one, case folded, punctuation at either end dropped), and a new
name whose skeleton is an existing name's is refused (docs/security.md, "Accounts")."""

from __future__ import annotations

import unicodedata

from django.contrib.auth import get_user_model

# Letters drawn like a Latin letter in common fonts, by case (an upper-case Greek Nu is an N, its
# lower case a v), mapped before folding case. Unicode's full list (UTS #39 confusables) is larger;
# these are the ones a name made of Latin letters can be forged with.
LOOK_ALIKES = str.maketrans({
    # Cyrillic
    "А": "A", "В": "B", "С": "C", "Е": "E", "Н": "H", "І": "I", "Ј": "J", "К": "K", "М": "M", "О": "O",
    "Р": "P", "Ѕ": "S", "Т": "T", "Х": "X", "У": "Y", "Ү": "Y", "Ԛ": "Q", "Ԝ": "W", "Ӏ": "l",
    "а": "a", "с": "c", "ԁ": "d", "е": "e", "һ": "h", "і": "i", "ј": "j", "к": "k", "о": "o", "р": "p",
    "ԛ": "q", "ѕ": "s", "ԝ": "w", "х": "x", "у": "y", "ӏ": "l", "ү": "y",
    # Greek
    "Α": "A", "Β": "B", "Ε": "E", "Ζ": "Z", "Η": "H", "Ι": "I", "Κ": "K", "Μ": "M", "Ν": "N", "Ο": "O",
    "Ρ": "P", "Τ": "T", "Υ": "Y", "Χ": "X",
    "α": "a", "ι": "i", "κ": "k", "ν": "v", "ο": "o", "ρ": "p", "τ": "t", "υ": "u", "χ": "x",
    # Armenian
    "օ": "o", "Օ": "O", "ս": "u", "ց": "g", "հ": "h", "ո": "n", "զ": "q", "Ս": "U", "Տ": "S",
    # Latin letters from other blocks that NFKC keeps
    "ı": "i", "ȷ": "j", "ɑ": "a", "ɡ": "g",
})
# After folding case: a capital I, a one and an l are one stroke in most sans-serif fonts, and a
# zero is an O. Since case is folded first (ADMIN is admin), a lower-case i joins them too.
STROKES = str.maketrans({"i": "l", "1": "l", "0": "o"})
# Dropped at the ends: `alice.` and `_alice` read as alice in a sentence or a table. Folded rather
# than refused, so such a name is still free when no one holds the name inside it.
_END_PUNCTUATION = ".@+-_"  # the punctuation a username may hold (Django's validator)


def skeleton(name: str) -> str:
    shape = unicodedata.normalize("NFKC", name).strip(_END_PUNCTUATION).translate(LOOK_ALIKES)
    return shape.casefold().translate(STROKES)


def look_alike_of(name: str) -> str | None:
    """An existing username other than `name` itself that looks the same, if any. Every name is
    read: fine for the number of accounts a leaderboard has."""
    wanted = skeleton(name)
    names = get_user_model().objects.exclude(username=name).values_list("username", flat=True)
    return next((taken for taken in names.iterator() if skeleton(taken) == wanted), None)
