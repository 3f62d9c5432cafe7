"""The synthetic-error generator's hand-written English word lists, inflection rules and token helpers (no parser)."""
from __future__ import annotations

import random
from typing import Callable

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
