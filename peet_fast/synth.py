"""Synthetic GEC pairs: clean pre-tokenised English sentences (TRG) with injected learner / GEC-system errors (MO).

Each clean sentence becomes a pair (MO, TRG): TRG is the sentence (whitespace-normalised), MO is TRG with zero or more
errors injected by rules over the tokens -- no parser, only small hand-written word lists. Every error kind fires at
most once per sentence, independently, with its per-sentence probability (``DEFAULT_RATES``, overridable). A kind
that finds no place to apply in a sentence (no article for ``det``, no known verb for ``verb_tense``, ...) leaves it
unchanged, so the share of identical pairs is higher than the product of ``1 - rate``.

Error kinds (the ERRANT label they are meant to produce, MO -> TRG):

========== ==================================================================== =====================================
kind       what it does                                                         typical ERRANT label
========== ==================================================================== =====================================
det        drop / insert / swap an article (a, an, the)                          M:DET, U:DET, R:DET
prep       swap a preposition for a common confusion, or drop it                 R:PREP, M:PREP
verb_tense past <-> present (irregular table + regular -ed)                     R:VERB:TENSE
verb_form  to + base <-> -ing; base after modal/aux -> -ing/-ed; be + -ing ->   R:VERB:FORM
           base; have + participle -> base/past
verb_sva   is/are, was/were, am, has/have, does/do, 3sg -s dropped/added       R:VERB:SVA
noun_num   singular <-> plural (rules + irregulars); uncountables get an -s      R:NOUN:NUM (R:NOUN:INFL)
spelling   swap / drop / duplicate / substitute a character (word length >= 4)  R:SPELL
punct      drop a comma or the final . ! ?, or add a spurious comma             M:PUNCT, U:PUNCT
word_order swap two adjacent words                                              R:WO
missing    drop a word                                                          M:*
extra      duplicate a word or insert a filler (very, the, that, ...)          U:*
case       lowercase the sentence-initial word or capitalise a word mid-sentence R:ORTH
========== ==================================================================== =====================================

Determinism: sentences are used round-robin in an order shuffled by ``random.Random(seed)``; pair i's errors come
from its own ``random.Random`` seeded with the i-th 64-bit draw of that same generator, so the output is a function of
(sentences, seed, rates) only and the first k pairs for ``n_pairs=N`` are the first k for any larger N.

Invariants: MO and TRG are single-line, single-space-separated tokens (no tabs, newlines, leading or trailing
spaces); MO is never empty. Blank input sentences are skipped.
"""
from __future__ import annotations

import json
import math
import os
import random
from typing import Callable, Iterable, Mapping, Sequence

__all__ = ["ERROR_KINDS", "DEFAULT_RATES", "synthesize", "corrupt", "parse_rates", "write_pairs"]

ERROR_KINDS: tuple[str, ...] = ("det", "prep", "verb_tense", "verb_form", "verb_sva", "noun_num", "spelling",
                                "punct", "word_order", "missing", "extra", "case")

# Per-sentence probability that each kind is attempted. Tuned so that, on short learner-style sentences (the test
# fixture), about 35-40% of pairs come out identical and almost all others carry 1-3 errors (see tests/test_synth.py).
DEFAULT_RATES: dict[str, float] = {
    "det": 0.22,
    "prep": 0.18,
    "verb_tense": 0.10,
    "verb_form": 0.08,
    "verb_sva": 0.10,
    "noun_num": 0.14,
    "spelling": 0.15,
    "punct": 0.13,
    "word_order": 0.04,
    "missing": 0.06,
    "extra": 0.05,
    "case": 0.03,
}

# ------------------------------------------------------------------------------------------------------------------
# Word lists (hand-written for this module)
# ------------------------------------------------------------------------------------------------------------------

_ARTICLES = frozenset({"a", "an", "the"})
_DETERMINERS = frozenset({
    "a", "an", "the", "this", "that", "these", "those", "my", "your", "his", "her", "its", "our", "their", "some",
    "any", "every", "each", "no", "many", "much", "few", "several", "all", "both", "another", "other", "more", "most",
    "'s", "whose", "which", "what", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten",
})
_SUBJ_PLURAL = frozenset({"i", "you", "we", "they"})   # take the base form in the present
_SUBJ_3SG = frozenset({"he", "she", "it", "this", "that", "everybody", "everyone", "nobody", "somebody", "someone"})
_OBJ_PRONOUNS = frozenset({"me", "you", "him", "her", "it", "us", "them"})
_MODALS = frozenset({"can", "could", "will", "would", "shall", "should", "may", "might", "must", "'ll", "'d", "ca",
                     "wo"})
_BE = frozenset({"am", "is", "are", "was", "were", "be", "been", "being", "'m", "'re"})
_HAVE = frozenset({"have", "has", "had", "'ve"})
_DO = frozenset({"do", "does", "did"})
_NEG = frozenset({"not", "n't", "never"})
# a token right after one of these is not a finite verb (infinitive, participle, after an auxiliary)
_NON_FINITE_BEFORE = _MODALS | _BE | _HAVE | _DO | _NEG | {"to", "get", "got", "let", "make", "help"}
_ADVERBS = frozenset({
    "often", "always", "never", "usually", "sometimes", "also", "only", "very", "really", "still", "already", "just",
    "even", "too", "well", "much", "again", "here", "there", "now", "then", "soon", "yesterday", "today", "tomorrow",
    "together", "quickly", "slowly", "hard", "late", "early", "probably", "certainly", "maybe", "definitely",
    "finally", "recently", "almost", "quite", "rather", "enough", "ever", "all",
})
_CLITICS = frozenset({"'s", "n't", "'m", "'re", "'ve", "'ll", "'d", "'"})

# preposition -> plausible learner confusions
_PREP_CONFUSIONS: dict[str, tuple[str, ...]] = {
    "in": ("on", "at", "into"),
    "on": ("in", "at", "about"),
    "at": ("in", "on", "to"),
    "of": ("for", "from", "about"),
    "for": ("to", "of", "about"),
    "to": ("for", "at", "in"),
    "with": ("by", "for", "of"),
    "from": ("of", "by", "in"),
    "about": ("of", "on", "for"),
    "by": ("with", "from", "on"),
    "into": ("in", "to", "on"),
    "during": ("in", "for", "on"),
    "through": ("by", "across", "in"),
    "among": ("between", "in", "with"),
    "between": ("among", "in", "at"),
    "towards": ("to", "for", "at"),
    "onto": ("on", "in", "to"),
}

# irregular verbs: base, past, past participle
_IRREGULAR_VERBS: tuple[tuple[str, str, str], ...] = (
    ("begin", "began", "begun"), ("bite", "bit", "bitten"), ("break", "broke", "broken"),
    ("bring", "brought", "brought"), ("build", "built", "built"), ("buy", "bought", "bought"),
    ("catch", "caught", "caught"), ("choose", "chose", "chosen"), ("come", "came", "come"),
    ("drink", "drank", "drunk"), ("drive", "drove", "driven"), ("eat", "ate", "eaten"), ("fall", "fell", "fallen"),
    ("feed", "fed", "fed"), ("feel", "felt", "felt"), ("fight", "fought", "fought"), ("find", "found", "found"),
    ("fly", "flew", "flown"), ("forget", "forgot", "forgotten"), ("forgive", "forgave", "forgiven"),
    ("freeze", "froze", "frozen"), ("get", "got", "got"), ("give", "gave", "given"), ("go", "went", "gone"),
    ("grow", "grew", "grown"), ("hear", "heard", "heard"), ("hide", "hid", "hidden"), ("hold", "held", "held"),
    ("keep", "kept", "kept"), ("know", "knew", "known"), ("lead", "led", "led"), ("leave", "left", "left"),
    ("lend", "lent", "lent"), ("lose", "lost", "lost"), ("make", "made", "made"), ("mean", "meant", "meant"),
    ("meet", "met", "met"), ("pay", "paid", "paid"), ("ride", "rode", "ridden"), ("ring", "rang", "rung"),
    ("rise", "rose", "risen"), ("run", "ran", "run"), ("say", "said", "said"), ("see", "saw", "seen"),
    ("sell", "sold", "sold"), ("send", "sent", "sent"), ("shake", "shook", "shaken"), ("sing", "sang", "sung"),
    ("sit", "sat", "sat"), ("sleep", "slept", "slept"), ("speak", "spoke", "spoken"), ("spend", "spent", "spent"),
    ("stand", "stood", "stood"), ("steal", "stole", "stolen"), ("swim", "swam", "swum"), ("take", "took", "taken"),
    ("teach", "taught", "taught"), ("tell", "told", "told"), ("think", "thought", "thought"),
    ("throw", "threw", "thrown"), ("understand", "understood", "understood"), ("wake", "woke", "woken"),
    ("wear", "wore", "worn"), ("win", "won", "won"), ("write", "wrote", "written"), ("become", "became", "become"),
    ("draw", "drew", "drawn"), ("show", "showed", "shown"), ("forbid", "forbade", "forbidden"),
)
# regular verbs (past and participle in -ed)
_REGULAR_VERBS: tuple[str, ...] = (
    "accept", "admire", "admit", "agree", "allow", "answer", "appear", "apply", "arrange", "arrive", "ask", "attend",
    "avoid", "believe", "belong", "borrow", "call", "carry", "cause", "change", "chat", "check", "clean", "climb",
    "close", "collect", "complain", "complete", "consider", "contain", "continue", "cook", "count", "cry", "dance",
    "decide", "deliver", "depend", "describe", "destroy", "develop", "die", "discover", "discuss", "dream", "earn",
    "enjoy", "enter", "expect", "explain", "fail", "fill", "finish", "fix", "follow", "happen", "hate", "help",
    "hope", "hurry", "imagine", "improve", "include", "invite", "join", "jump", "kill", "kiss", "laugh", "learn",
    "like", "listen", "live", "look", "love", "manage", "marry", "miss", "move", "need", "notice", "offer", "open",
    "order", "organise", "organize", "pass", "permit", "pick", "plan", "play", "prefer", "prepare", "pretend",
    "prevent", "promise", "protect", "provide", "pull", "push", "reach", "receive", "recommend", "refer", "refuse",
    "regret", "relax", "remember", "rent", "repair", "repeat", "reply", "return", "save", "seem", "share", "shop",
    "smile", "solve", "start", "stay", "stop", "study", "succeed", "suggest", "support", "talk", "thank", "touch",
    "travel", "trust", "try", "turn", "use", "visit", "wait", "walk", "want", "wash", "watch", "wish", "work",
    "worry", "cancel", "compare", "create", "drop", "hug", "mention", "occur", "pray", "rain", "stir",
)
# final consonant doubled before -ed / -ing (British spelling for travel/cancel)
_DOUBLE_FINAL = frozenset({
    "admit", "begin", "chat", "drop", "forbid", "forget", "get", "hug", "occur", "permit", "plan", "prefer", "refer",
    "regret", "run", "shop", "sit", "stir", "stop", "swim", "travel", "cancel", "win",
})

# countable nouns (singular); plurals by rule unless irregular
_NOUNS: tuple[str, ...] = (
    "animal", "answer", "apartment", "apple", "area", "army", "article", "aunt", "baby", "bag", "ball", "bank",
    "beach", "bed", "bedroom", "bike", "bill", "bird", "birthday", "boat", "body", "book", "bottle", "box", "boy",
    "brother", "building", "bus", "business", "cake", "camera", "car", "card", "castle", "cat", "chair", "chance",
    "child", "church", "city", "class", "classmate", "client", "coat", "college", "colleague", "company", "computer",
    "country", "course", "cousin", "cup", "customer", "daughter", "day", "decision", "dish", "doctor", "dog", "dollar",
    "door", "dream", "dress", "driver", "egg", "email", "employee", "engineer", "event", "exam", "example",
    "exercise", "experience", "eye", "face", "factory", "family", "farm", "father", "festival", "film", "flat",
    "floor", "flower", "foot", "friend", "game", "garden", "gift", "girl", "glass", "goal", "grandparent", "group",
    "guest", "hand", "hat", "holiday", "home", "horse", "hospital", "hotel", "hour", "house", "husband", "idea",
    "island", "job", "journey", "key", "kid", "kitchen", "knife", "lake", "language", "lesson", "letter", "library",
    "life", "book", "man", "manager", "map", "meal", "meeting", "member", "message", "minute", "mistake", "moment",
    "month", "mountain", "mouse", "movie", "museum", "neighbour", "neighbor", "newspaper", "night", "note", "office",
    "opinion", "option", "parent", "park", "party", "person", "phone", "photo", "picture", "place", "plant",
    "player", "present", "price", "problem", "product", "program", "programme", "project", "question", "reason",
    "restaurant", "river", "road", "room", "rule", "school", "season", "seat", "shirt", "shoe", "shop", "sister",
    "situation", "skill", "song", "son", "star", "station", "story", "street", "student", "subject", "supermarket",
    "table", "task", "taxi", "teacher", "team", "thing", "ticket", "tooth", "tourist", "town", "toy", "tree", "trip",
    "uncle", "university", "village", "visitor", "website", "week", "weekend", "wife", "window", "woman", "word",
    "worker", "year", "child", "leaf", "wolf", "shelf", "half", "boss", "watch", "church", "story", "party",
    "activity", "opportunity", "difference", "problem", "solution", "habit", "teenager", "adult", "parent",
    "politician", "government", "law", "price", "bottle", "computer", "device", "smartphone", "app", "road",
    "holiday", "hobby", "sport", "team", "match", "friendship", "relationship", "job", "salary", "interview",
)
_IRREGULAR_PLURALS: dict[str, str] = {
    "child": "children", "man": "men", "woman": "women", "person": "people", "foot": "feet", "tooth": "teeth",
    "mouse": "mice", "life": "lives", "wife": "wives", "knife": "knives", "leaf": "leaves", "wolf": "wolves",
    "shelf": "shelves", "half": "halves",
}
# uncountable nouns learners often pluralise ("informations"); only the singular -> plural direction
_UNCOUNTABLE: tuple[str, ...] = (
    "advice", "information", "furniture", "homework", "equipment", "knowledge", "luggage", "baggage", "news",
    "research", "traffic", "weather", "evidence", "progress", "software", "music", "money", "bread", "work",
)

_FILLERS: tuple[str, ...] = ("very", "the", "that", "so", "really", "also", "just", "more", "to", "of", "it")
_COMMA_BEFORE = frozenset({"that", "and", "but", "because", "which", "who", "when", "if", "so", "or", "than",
                           "where", "while", "although", "then"})

_KEYBOARD_ROWS = ("qwertyuiop", "asdfghjkl", "zxcvbnm")
_VOWELS = "aeiou"


def _keyboard_neighbours() -> dict[str, str]:
    pos = {ch: (r, c) for r, row in enumerate(_KEYBOARD_ROWS) for c, ch in enumerate(row)}
    out = {}
    for ch, (r, c) in pos.items():
        near = [o for o, (r2, c2) in pos.items() if o != ch and abs(r2 - r) <= 1 and abs(c2 - c) <= 1]
        out[ch] = "".join(sorted(near))
    return out


_NEIGHBOURS = _keyboard_neighbours()


# --- verb and noun morphology --------------------------------------------------------------------------------------

def _third_person(base: str) -> str:
    special = {"have": "has", "do": "does", "go": "goes", "be": "is"}
    if base in special:
        return special[base]
    if base.endswith("y") and len(base) > 1 and base[-2] not in _VOWELS:
        return base[:-1] + "ies"
    if base.endswith(("s", "x", "z", "ch", "sh", "o")):
        return base + "es"
    return base + "s"


def _regular_past(base: str) -> str:
    if base.endswith("e"):
        return base + "d"
    if base.endswith("y") and len(base) > 1 and base[-2] not in _VOWELS:
        return base[:-1] + "ied"
    if base in _DOUBLE_FINAL:
        return base + base[-1] + "ed"
    return base + "ed"


def _ing(base: str) -> str:
    if base in ("be", "see", "flee", "agree", "free"):
        return base + "ing"
    if base.endswith("ie"):
        return base[:-2] + "ying"
    if base.endswith("e") and not base.endswith(("ee", "ye", "oe")):
        return base[:-1] + "ing"
    if base in _DOUBLE_FINAL:
        return base + base[-1] + "ing"
    return base + "ing"


def _plural(noun: str) -> str:
    if noun in _IRREGULAR_PLURALS:
        return _IRREGULAR_PLURALS[noun]
    if noun.endswith("y") and len(noun) > 1 and noun[-2] not in _VOWELS:
        return noun[:-1] + "ies"
    if noun.endswith(("s", "x", "z", "ch", "sh")):
        return noun + "es"
    return noun + "s"


class _Verb:
    __slots__ = ("base", "third", "past", "participle", "ing")

    def __init__(self, base: str, past: str | None = None, participle: str | None = None):
        self.base = base
        self.third = _third_person(base)
        self.past = past or _regular_past(base)
        self.participle = participle or self.past
        self.ing = _ing(base)


def _build_verbs():
    verbs = [_Verb(b, p, pp) for b, p, pp in _IRREGULAR_VERBS] + [_Verb(b) for b in _REGULAR_VERBS]
    base, third, past, participle, ing = {}, {}, {}, {}, {}
    for v in verbs:
        base.setdefault(v.base, v)
        third.setdefault(v.third, v)
        past.setdefault(v.past, v)
        participle.setdefault(v.participle, v)
        ing.setdefault(v.ing, v)
    return base, third, past, participle, ing


_V_BASE, _V_THIRD, _V_PAST, _V_PART, _V_ING = _build_verbs()
_NOUN_SING = {n: _plural(n) for n in _NOUNS}
_NOUN_PLUR = {p: s for s, p in _NOUN_SING.items()}
# nouns that are also verb forms in the lexicon ("work", "visits") only count as nouns after a determiner
_NOUN_VERB_AMBIGUOUS = frozenset(w for w in list(_NOUN_SING) + list(_NOUN_PLUR)
                                 if w in _V_BASE or w in _V_THIRD or w in _V_PAST or w in _V_ING)


# ------------------------------------------------------------------------------------------------------------------
# Token helpers
# ------------------------------------------------------------------------------------------------------------------

class _Tok:
    """A token and whether an error has already been injected on or at it (so errors never stack on one place)."""
    __slots__ = ("text", "touched")

    def __init__(self, text: str, touched: bool = False):
        self.text = text
        self.touched = touched


def _match_case(src: str, new: str) -> str:
    if len(src) > 1 and src.isupper() and src.isalpha():
        return new.upper()
    if src[:1].isupper():
        return new[:1].upper() + new[1:]
    return new


def _low(toks: list[_Tok], i: int) -> str:
    """Lowercased text of token i, or '' outside the sentence."""
    return toks[i].text.lower() if 0 <= i < len(toks) else ""


def _free(toks: list[_Tok], i: int, width: int = 1) -> bool:
    """Tokens i..i+width-1 and their neighbours are untouched (keeps errors apart, so ERRANT sees them separately)."""
    lo, hi = max(0, i - 1), min(len(toks), i + width + 1)
    return all(not toks[j].touched for j in range(lo, hi))


def _is_word(text: str) -> bool:
    return text.isalpha()


def _finite_context(toks: list[_Tok], i: int) -> bool:
    """Token i may be a finite verb: not after an auxiliary/modal/'to'/negation, nor after a determiner/preposition."""
    prev = _low(toks, i - 1)
    return (prev not in _NON_FINITE_BEFORE and prev not in _DETERMINERS and prev not in _PREP_CONFUSIONS
            and prev not in _ARTICLES and i > 0)


def _subject(toks: list[_Tok], i: int) -> str:
    """The lowercased subject pronoun right before token i in a declarative clause ("I like"), else ''.
    A pronoun after an auxiliary ("Can you tell", "Do they like") is not taken: the verb there is not finite."""
    prev = _low(toks, i - 1)
    if prev not in _SUBJ_PLURAL and prev not in _SUBJ_3SG:
        return ""
    before = _low(toks, i - 2)
    if before in _MODALS or before in _DO or before in _BE or before in _HAVE or before in _NEG or before == "to":
        return ""
    return prev


def _a_or_an(next_word: str) -> str:
    w = next_word.lower()
    if w.startswith(("hour", "honest", "honour", "honor", "heir")):
        return "an"
    if w.startswith(("uni", "use", "usu", "euro", "one", "once")):
        return "a"
    return "an" if w[:1] in _VOWELS else "a"


# An op gets (tokens, rng) and returns True when it changed something.
_Op = Callable[[list, random.Random], bool]


def _replace(toks: list[_Tok], i: int, new: str) -> None:
    toks[i] = _Tok(_match_case(toks[i].text, new), True)


# ------------------------------------------------------------------------------------------------------------------
# Error kinds
# ------------------------------------------------------------------------------------------------------------------

def _op_det(toks: list[_Tok], rng: random.Random) -> bool:
    arts = [i for i, t in enumerate(toks) if t.text.lower() in _ARTICLES and _free(toks, i)
            and i + 1 < len(toks) and _is_word(toks[i + 1].text)]
    choices = []
    if arts and len(toks) > 1:
        choices += ["drop"] * 4 + ["swap"] * 3
    ins = [i for i, t in enumerate(toks)
           if _is_word(t.text) and t.text.islower() and _free(toks, i) and t.text not in _ARTICLES
           and t.text not in _DETERMINERS and t.text not in _PREP_CONFUSIONS and t.text not in _MODALS
           and t.text not in _BE and t.text not in _HAVE and t.text not in _DO and t.text not in _NEG
           and _low(toks, i - 1) not in _DETERMINERS and _low(toks, i - 1) not in _SUBJ_PLURAL | _SUBJ_3SG
           and (_low(toks, i - 1) in _PREP_CONFUSIONS or t.text in _NOUN_SING or t.text in _NOUN_PLUR
                or t.text in _UNCOUNTABLE)]
    if ins:
        choices += ["insert"] * 3
    if not choices:
        return False
    what = rng.choice(choices)
    if what == "insert":
        i = rng.choice(ins)
        art = "the" if rng.random() < 0.6 else _a_or_an(toks[i].text)
        if i == 0:
            art = art.capitalize()
        toks.insert(i, _Tok(art, True))
        return True
    i = rng.choice(arts)
    if what == "drop":
        del toks[i]
        if i < len(toks):
            toks[i].touched = True
        return True
    old = toks[i].text.lower()
    nxt = toks[i + 1].text if i + 1 < len(toks) else "x"
    if old == "the":
        new = _a_or_an(nxt)
    elif rng.random() < 0.25:                 # a <-> an confusion
        new = "an" if old == "a" else "a"
    else:
        new = "the"
    _replace(toks, i, new)
    return True


def _op_prep(toks: list[_Tok], rng: random.Random) -> bool:
    cands = []
    for i, t in enumerate(toks):
        w = t.text.lower()
        if w not in _PREP_CONFUSIONS or not _free(toks, i):
            continue
        if w == "to":   # only prepositional "to" (before a determiner, pronoun, name or known noun), not infinitival
            nxt = toks[i + 1].text if i + 1 < len(toks) else ""
            if not (nxt.lower() in _DETERMINERS or nxt.lower() in _OBJ_PRONOUNS or nxt.lower() in _NOUN_SING
                    or nxt.lower() in _NOUN_PLUR or (nxt[:1].isupper() and nxt.isalpha())):
                continue
        cands.append(i)
    if not cands:
        return False
    i = rng.choice(cands)
    if len(toks) > 1 and rng.random() < 0.2:
        del toks[i]
        if i < len(toks):
            toks[i].touched = True
        return True
    _replace(toks, i, rng.choice(_PREP_CONFUSIONS[toks[i].text.lower()]))
    return True


def _present_for(toks: list[_Tok], i: int, verb: _Verb, rng: random.Random) -> str:
    prev = _subject(toks, i)
    if prev in _SUBJ_PLURAL:
        return verb.base
    if prev in _SUBJ_3SG:
        return verb.third
    return verb.third if rng.random() < 0.6 else verb.base


def _op_verb_tense(toks: list[_Tok], rng: random.Random) -> bool:
    cands: list[tuple[int, str]] = []   # (index, replacement)
    for i, t in enumerate(toks):
        if not _free(toks, i):
            continue
        w = t.text.lower()
        prev = _low(toks, i - 1)
        if w in ("is", "am"):
            cands.append((i, "was"))
        elif w == "are":
            cands.append((i, "were"))
        elif w == "was":
            cands.append((i, "am" if prev == "i" else "is"))
        elif w == "were":
            cands.append((i, "are"))
        elif w in ("has", "have") and _finite_context(toks, i):
            cands.append((i, "had"))
        elif w == "had" and i > 0:
            cands.append((i, "have" if prev in _SUBJ_PLURAL else "has"))
        elif w in ("does", "do") and _finite_context(toks, i):
            cands.append((i, "did"))
        elif w == "did" and i > 0:
            cands.append((i, "do" if prev in _SUBJ_PLURAL else "does"))
        elif w in ("can", "will") and i > 0:
            cands.append((i, "could" if w == "can" else "would"))
        elif w in ("could", "would") and i > 0:
            cands.append((i, "can" if w == "could" else "will"))
        elif w in _V_THIRD and _finite_context(toks, i) and w not in _NOUN_VERB_AMBIGUOUS:
            v = _V_THIRD[w]
            cands.append((i, v.past))
        elif w in _V_BASE and _subject(toks, i) in _SUBJ_PLURAL:
            cands.append((i, _V_BASE[w].past))
        elif (w in _V_PAST and _finite_context(toks, i) and w not in _NOUN_VERB_AMBIGUOUS
              and w != _V_PAST[w].base):
            cands.append((i, _present_for(toks, i, _V_PAST[w], rng)))
    if not cands:
        return False
    i, new = rng.choice(cands)
    _replace(toks, i, new)
    return True


def _op_verb_form(toks: list[_Tok], rng: random.Random) -> bool:
    cands: list[tuple[str, int]] = []
    for i, t in enumerate(toks):
        w = t.text.lower()
        prev = _low(toks, i - 1)
        if w in _V_BASE and prev == "to" and i >= 2 and _free(toks, i - 1, 2):
            cands.append(("to_base", i))
        elif w in _V_BASE and prev in (_MODALS | _DO | {"n't", "not"}) and _free(toks, i):
            cands.append(("after_aux", i))
        elif w in _V_ING and w not in _NOUN_VERB_AMBIGUOUS and _free(toks, i) and i > 0:
            if prev in _BE:
                cands.append(("be_ing", i))
            elif prev in _V_BASE or prev in _V_THIRD or prev in _V_PAST:
                cands.append(("ing_to", i))
        elif (w in _V_PART and prev in _HAVE and _free(toks, i)
              and _V_PART[w].participle != _V_PART[w].base):
            cands.append(("have_part", i))
    if not cands:
        return False
    kind, i = rng.choice(cands)
    w = toks[i].text.lower()
    if kind == "to_base":                       # want to leave -> want leaving / want to leaving
        v = _V_BASE[w]
        if rng.random() < 0.6:
            del toks[i - 1]
            _replace(toks, i - 1, v.ing)
        else:
            _replace(toks, i, v.ing)
            toks[i - 1].touched = True
        return True
    if kind == "after_aux":                     # can help -> can helping / did n't go -> did n't went
        v = _V_BASE[w]
        options = [v.ing, v.past if v.past != v.base else v.ing]
        if v.participle not in (v.base, v.past):
            options.append(v.participle)
        _replace(toks, i, rng.choice(options))
        return True
    if kind == "be_ing":                        # is changing -> is change
        _replace(toks, i, _V_ING[w].base)
        return True
    if kind == "ing_to":                        # enjoy swimming -> enjoy to swim
        v = _V_ING[w]
        _replace(toks, i, v.base)
        toks.insert(i, _Tok("to", True))
        return True
    v = _V_PART[w]                              # have gone -> have go / have went
    options = [v.base] + ([v.past] if v.past != v.participle else [])
    _replace(toks, i, rng.choice(options))
    return True


def _op_verb_sva(toks: list[_Tok], rng: random.Random) -> bool:
    cands: list[tuple[int, str]] = []
    for i, t in enumerate(toks):
        if not _free(toks, i) or i == 0:
            continue
        w = t.text.lower()
        prev = _low(toks, i - 1)
        if w == "is":
            cands.append((i, "are"))
        elif w == "are":
            cands.append((i, "is"))
        elif w == "am":
            cands.append((i, rng.choice(("is", "are"))))
        elif w == "was":
            cands.append((i, "were"))
        elif w == "were":
            cands.append((i, "was"))
        elif w == "has" and _finite_context(toks, i):
            cands.append((i, "have"))
        elif w == "have" and (_subject(toks, i) in _SUBJ_PLURAL - {"i"} or prev in _NOUN_PLUR):
            cands.append((i, "has"))
        elif w == "does" and _finite_context(toks, i):
            cands.append((i, "do"))
        elif w == "do" and _finite_context(toks, i) and (_subject(toks, i) in _SUBJ_PLURAL or prev in _NOUN_PLUR):
            cands.append((i, "does"))
        elif w in _V_THIRD and _finite_context(toks, i) and w not in _NOUN_VERB_AMBIGUOUS and w not in _BE:
            cands.append((i, _V_THIRD[w].base))
        elif (w in _V_BASE and (_subject(toks, i) in _SUBJ_PLURAL or prev in _NOUN_PLUR)
              and w not in ("be", "have", "do")):
            cands.append((i, _V_BASE[w].third))
    if not cands:
        return False
    i, new = rng.choice(cands)
    _replace(toks, i, new)
    return True


def _op_noun_num(toks: list[_Tok], rng: random.Random) -> bool:
    cands: list[tuple[int, str]] = []
    for i, t in enumerate(toks):
        w = t.text.lower()
        if not _free(toks, i) or not _is_word(t.text) or (i > 0 and not t.text.islower()):
            continue    # capitalised mid-sentence: a name or title, leave it
        if w in _NOUN_VERB_AMBIGUOUS and _low(toks, i - 1) not in _DETERMINERS:
            continue
        if w in _NOUN_SING:
            cands.append((i, _NOUN_SING[w]))
        elif w in _NOUN_PLUR:
            cands.append((i, _NOUN_PLUR[w]))
        elif w in _UNCOUNTABLE and w != "news":
            cands.append((i, _plural(w)))
    if not cands:
        return False
    i, new = rng.choice(cands)
    _replace(toks, i, new)
    return True


def _typo(word: str, rng: random.Random) -> str:
    """A one-character typo inside word (the first letter is kept); differs from word."""
    for _ in range(8):
        op = rng.random()
        j = rng.randrange(1, len(word))
        if op < 0.25 and j < len(word) - 1 and word[j] != word[j + 1]:          # transpose
            new = word[:j] + word[j + 1] + word[j] + word[j + 2:]
        elif op < 0.5:                                                          # drop
            new = word[:j] + word[j + 1:]
        elif op < 0.7:                                                          # duplicate
            new = word[:j] + word[j] + word[j:]
        else:                                                                   # substitute
            ch = word[j]
            low = ch.lower()
            pool = _VOWELS.replace(low, "") if low in _VOWELS and rng.random() < 0.5 else _NEIGHBOURS.get(low, "")
            if not pool:
                continue
            sub = rng.choice(pool)
            new = word[:j] + (sub.upper() if ch.isupper() else sub) + word[j + 1:]
        if new != word and new:
            return new
    return word[:1] + word[1:][::-1] if word[1:] != word[1:][::-1] else word + word[-1]


def _op_spelling(toks: list[_Tok], rng: random.Random) -> bool:
    cands = [i for i, t in enumerate(toks) if len(t.text) >= 4 and _is_word(t.text) and _free(toks, i)]
    if not cands:
        return False
    i = rng.choice(cands)
    toks[i] = _Tok(_typo(toks[i].text, rng), True)
    return True


_FINAL_PUNCT = frozenset({".", "!", "?"})


def _op_punct(toks: list[_Tok], rng: random.Random) -> bool:
    commas = [i for i, t in enumerate(toks) if t.text == "," and _free(toks, i)]
    final = (len(toks) > 1 and toks[-1].text in _FINAL_PUNCT and _free(toks, len(toks) - 1)
             and toks[-2].text not in _FINAL_PUNCT)
    # spurious comma between two words, preferably before a conjunction/complementiser
    gaps = [i for i in range(1, len(toks))
            if _is_word(toks[i - 1].text) and _is_word(toks[i].text) and not toks[i - 1].touched
            and not toks[i].touched and _low(toks, i - 1) not in _DETERMINERS
            and _low(toks, i - 1) not in _PREP_CONFUSIONS and _low(toks, i - 1) not in _MODALS
            and _low(toks, i - 1) not in _SUBJ_PLURAL and _low(toks, i - 1) not in _SUBJ_3SG]
    good_gaps = [i for i in gaps if toks[i].text.lower() in _COMMA_BEFORE]
    choices = (["comma"] * 3 if commas and len(toks) > 1 else []) + (["final"] * 3 if final else []) \
        + (["add"] * 2 if gaps else [])
    if not choices:
        return False
    what = rng.choice(choices)
    if what == "comma":
        del toks[rng.choice(commas)]
    elif what == "final":
        del toks[-1]
        toks[-1].touched = True
    else:
        i = rng.choice(good_gaps) if good_gaps and rng.random() < 0.7 else rng.choice(gaps)
        toks.insert(i, _Tok(",", True))
    return True


def _op_word_order(toks: list[_Tok], rng: random.Random) -> bool:
    def ok(i):
        a, b = toks[i].text, toks[i + 1].text
        return (_is_word(a) and _is_word(b) and a.lower() != b.lower() and a not in _CLITICS and b not in _CLITICS
                and _free(toks, i, 2))
    cands = [i for i in range(1, len(toks) - 1) if ok(i)]
    if not cands and len(toks) > 1 and ok(0) and toks[1].text.islower():
        cands = [0]
    if not cands:
        return False
    # typical learner swaps: an adverb out of place ("I very like"), noun before its adjective ("a car red")
    typical = [i for i in cands
               if toks[i].text.lower() in _ADVERBS or toks[i + 1].text.lower() in _ADVERBS
               or (toks[i + 1].text.lower() in _NOUN_SING or toks[i + 1].text.lower() in _NOUN_PLUR)
               and toks[i].text.lower() not in _DETERMINERS and toks[i].text.lower() not in _PREP_CONFUSIONS]
    i = rng.choice(typical) if typical and rng.random() < 0.75 else rng.choice(cands)
    a, b = toks[i].text, toks[i + 1].text
    if i == 0:      # keep sentence-initial capitalisation: "Yesterday I went" -> "I yesterday went"
        b = b[:1].upper() + b[1:]
        if a != "I" and a[1:].islower():
            a = a.lower()
    toks[i], toks[i + 1] = _Tok(b, True), _Tok(a, True)
    return True


def _op_missing(toks: list[_Tok], rng: random.Random) -> bool:
    if len(toks) < 2:
        return False
    cands = [i for i, t in enumerate(toks) if _is_word(t.text) and _free(toks, i)]
    if not cands:
        return False
    i = rng.choice(cands)
    del toks[i]
    if i < len(toks):
        toks[i].touched = True
    return True


def _op_extra(toks: list[_Tok], rng: random.Random) -> bool:
    words = [i for i, t in enumerate(toks) if _is_word(t.text) and _free(toks, i)]
    # insertion points: before token i (1 <= i), never after a final . ! ?
    gaps = [i for i in range(1, len(toks)) if _is_word(toks[i].text) and not toks[i - 1].touched
            and not toks[i].touched]
    if not words and not gaps:
        return False
    if words and (not gaps or rng.random() < 0.4):
        i = rng.choice(words)
        toks.insert(i + 1, _Tok(toks[i].text.lower() if i == 0 and toks[i].text != "I" else toks[i].text, True))
        return True
    i = rng.choice(gaps)
    nxt = _low(toks, i)
    filler = rng.choice(_FILLERS)
    if filler == nxt or filler == _low(toks, i - 1):
        filler = "very" if filler != "very" else "really"
    toks.insert(i, _Tok(filler, True))
    return True


def _op_case(toks: list[_Tok], rng: random.Random) -> bool:
    first = toks[0]
    can_lower = (not first.touched and first.text[:1].isupper() and first.text.isalpha()
                 and first.text[1:] == first.text[1:].lower())
    mids = [i for i in range(1, len(toks)) if toks[i].text.isalpha() and toks[i].text.islower() and _free(toks, i)]
    if not can_lower and not mids:
        return False
    if can_lower and (not mids or rng.random() < 0.5):
        toks[0] = _Tok(first.text.lower(), True)
    else:
        i = rng.choice(mids)
        toks[i] = _Tok(toks[i].text.capitalize(), True)
    return True


_OPS: dict[str, _Op] = {
    "det": _op_det, "prep": _op_prep, "verb_tense": _op_verb_tense, "verb_form": _op_verb_form,
    "verb_sva": _op_verb_sva, "noun_num": _op_noun_num, "spelling": _op_spelling, "punct": _op_punct,
    "word_order": _op_word_order, "missing": _op_missing, "extra": _op_extra, "case": _op_case,
}
assert tuple(_OPS) == ERROR_KINDS


# ------------------------------------------------------------------------------------------------------------------
# Public API
# ------------------------------------------------------------------------------------------------------------------

def _check_rate(kind: str, value) -> float:
    if kind not in _OPS:
        raise ValueError(f"unknown error kind {kind!r} (known: {', '.join(ERROR_KINDS)})")
    if isinstance(value, bool):
        raise ValueError(f"rate for {kind!r} must be a number in [0, 1], got {value!r}")
    try:
        rate = float(value)
    except (TypeError, ValueError):
        raise ValueError(f"rate for {kind!r} must be a number in [0, 1], got {value!r}") from None
    if not math.isfinite(rate) or not 0.0 <= rate <= 1.0:
        raise ValueError(f"rate for {kind!r} must be in [0, 1], got {value!r}")
    return rate


def _resolve_rates(rates: Mapping[str, float] | None) -> dict[str, float]:
    """DEFAULT_RATES with the given kinds overridden (kinds not named keep their default)."""
    out = dict(DEFAULT_RATES)
    if rates is not None:
        if not isinstance(rates, Mapping):
            raise ValueError(f"rates must be a mapping of error kind -> probability, got {type(rates).__name__}")
        for kind, value in rates.items():
            out[kind] = _check_rate(kind, value)
    return out


def parse_rates(spec: str) -> dict[str, float]:
    """Parse ``"det=0.2,prep=0.1"`` into ``{"det": 0.2, "prep": 0.1}``.

    ``all=X`` (first) sets every kind, so ``"all=0,det=1"`` gives det errors only. Refuses with ValueError (naming the
    offending item) an unknown kind, a value that is not a number in [0, 1], an item without ``=``, and a kind given
    twice. An empty spec gives ``{}`` (no overrides)."""
    if not isinstance(spec, str):
        raise ValueError(f"rates spec must be a string, got {type(spec).__name__}")
    out: dict[str, float] = {}
    seen: set[str] = set()
    items = [s.strip() for s in spec.split(",")]
    if items == [""]:
        return out
    for pos, item in enumerate(items):
        if not item:
            raise ValueError(f"empty item in rates spec {spec!r}")
        kind, sep, value = item.partition("=")
        kind, value = kind.strip(), value.strip()
        if not sep or not kind or not value:
            raise ValueError(f"rates item {item!r} is not KIND=RATE")
        if kind == "all":
            if pos != 0:
                raise ValueError(f"rates item {item!r}: 'all' must come first")
            try:
                rate = _check_rate(ERROR_KINDS[0], value)
            except ValueError:
                raise ValueError(f"rate for 'all' must be a number in [0, 1], got {value!r}") from None
            out.update({k: rate for k in ERROR_KINDS})
            continue
        if kind in seen:
            raise ValueError(f"error kind {kind!r} given twice in rates spec {spec!r}")
        seen.add(kind)
        out[kind] = _check_rate(kind, value)
    return out


def corrupt(sentence: str, rng: random.Random, rates: Mapping[str, float] | None = None) -> str:
    """One MO for a clean sentence: each kind is attempted with its probability, in ERROR_KINDS order.

    Returns the sentence's tokens joined by single spaces (the sentence itself when nothing applied or it is blank)."""
    full = _resolve_rates(rates)
    return _corrupt(sentence.split(), rng, full)


def _corrupt(words: list[str], rng: random.Random, rates: Mapping[str, float]) -> str:
    fire = [kind for kind in ERROR_KINDS if rng.random() < rates[kind]]   # draws independent of the sentence
    if not words:
        return ""
    toks = [_Tok(w) for w in words]
    for kind in fire:
        _OPS[kind](toks, rng)
    out = [t.text for t in toks if t.text]
    return " ".join(out) if out else " ".join(words)


def synthesize(sentences: Sequence[str], n_pairs: int, seed: int,
               rates: Mapping[str, float] | None = None) -> list[tuple[str, str]]:
    """``n_pairs`` (MO, TRG) pairs from clean pre-tokenised sentences (blank ones skipped).

    TRG is a sentence with its whitespace normalised to single spaces; MO is TRG with injected errors. Sentences are
    taken round-robin in an order shuffled by ``random.Random(seed)``; each pair has its own generator seeded from that
    one, so the result is deterministic and prefix-stable in ``n_pairs``. ``rates`` overrides ``DEFAULT_RATES`` for
    the kinds it names. Raises ValueError for a negative ``n_pairs``, bad rates, or no non-blank sentence."""
    if isinstance(n_pairs, bool) or not isinstance(n_pairs, int) or n_pairs < 0:
        raise ValueError(f"n_pairs must be a non-negative integer, got {n_pairs!r}")
    if isinstance(seed, bool) or not isinstance(seed, int):
        raise ValueError(f"seed must be an integer, got {seed!r}")
    full = _resolve_rates(rates)
    if isinstance(sentences, str):
        raise ValueError("sentences must be a sequence of strings, not one string")
    clean = [s.split() for s in sentences]
    clean = [w for w in clean if w]
    if n_pairs == 0:
        return []
    if not clean:
        raise ValueError("no non-blank sentences to synthesise from")
    master = random.Random(seed)
    order = list(range(len(clean)))
    master.shuffle(order)
    pairs = []
    for i in range(n_pairs):
        words = clean[order[i % len(order)]]
        rng = random.Random(master.getrandbits(64))
        pairs.append((_corrupt(words, rng, full), " ".join(words)))
    return pairs


# ------------------------------------------------------------------------------------------------------------------
# Output
# ------------------------------------------------------------------------------------------------------------------

_FORMATS = {".tsv": "tsv", ".jsonl": "jsonl", ".parquet": "parquet"}


def _pair_format(path: str) -> str:
    _, ext = os.path.splitext(path)
    fmt = _FORMATS.get(ext.lower())
    if fmt is None:
        raise ValueError(f"{path}: unknown output format {ext or '(no suffix)'!r}: use .tsv, .jsonl or .parquet")
    return fmt


def _check_pairs(pairs: Iterable) -> list[tuple[str, str]]:
    out = []
    for n, pair in enumerate(pairs):
        if not isinstance(pair, (tuple, list)) or len(pair) != 2 or not all(isinstance(s, str) for s in pair):
            raise ValueError(f"pair {n} is not a (mo, trg) pair of strings: {pair!r}")
        out.append((pair[0], pair[1]))
    return out


def write_pairs(path: str | os.PathLike, pairs: Iterable[tuple[str, str]], ids: bool = True) -> None:
    """Write pairs to ``.tsv`` (header ``id<TAB>mo<TAB>trg``), ``.jsonl`` (``{"id", "mo", "trg"}`` a line) or
    ``.parquet`` (columns ``id`` int64, ``mo``, ``trg`` string), chosen by the suffix; ids are 0-based line numbers
    and omitted with ``ids=False``. Written to a temporary file beside ``path`` and renamed over it on success.

    TSV fields are written raw, unquoted (read them back with ``quoting=csv.QUOTE_NONE``), so a field containing a
    tab or a line break is refused with ValueError; so is an unknown suffix."""
    from peet_fast.io import atomic_write

    path = os.fspath(path)
    fmt = _pair_format(path)
    rows = _check_pairs(pairs)
    if fmt == "tsv":
        for n, (mo, trg) in enumerate(rows):
            for name, s in (("mo", mo), ("trg", trg)):
                if any(c in s for c in "\t\n\r"):
                    raise ValueError(f"{path}: pair {n}: {name} contains a tab or line break; cannot write TSV")
        with atomic_write(path, "w") as fh:
            fh.write("id\tmo\ttrg\n" if ids else "mo\ttrg\n")
            for n, (mo, trg) in enumerate(rows):
                fh.write(f"{n}\t{mo}\t{trg}\n" if ids else f"{mo}\t{trg}\n")
    elif fmt == "jsonl":
        with atomic_write(path, "w") as fh:
            for n, (mo, trg) in enumerate(rows):
                rec = {"id": n, "mo": mo, "trg": trg} if ids else {"mo": mo, "trg": trg}
                fh.write(json.dumps(rec, ensure_ascii=False) + "\n")
    else:
        import pyarrow as pa
        import pyarrow.parquet as pq

        cols = {"mo": pa.array([r[0] for r in rows], pa.string()), "trg": pa.array([r[1] for r in rows], pa.string())}
        if ids:
            cols = {"id": pa.array(range(len(rows)), pa.int64()), **cols}
        table = pa.table(cols)
        with atomic_write(path, "wb") as fh:
            pq.write_table(table, fh, compression="zstd")
