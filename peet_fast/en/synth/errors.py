"""The error kinds of the synthetic-error generator: one op per kind, each injecting one learner error into tokens."""
from __future__ import annotations

import random

from peet_fast.en.synth.words import (
    _ADVERBS, _ARTICLES, _BE, _CLITICS, _COMMA_BEFORE, _DETERMINERS, _DO, _FILLERS, _HAVE, _MODALS, _NEG, _NEIGHBOURS,
    _NOUN_PLUR, _NOUN_SING, _NOUN_VERB_AMBIGUOUS, _OBJ_PRONOUNS, _Op, _PREP_CONFUSIONS, _SUBJ_3SG, _SUBJ_PLURAL, _Tok,
    _UNCOUNTABLE, _V_BASE, _V_ING, _V_PART, _V_PAST, _V_THIRD, _VOWELS, _Verb, _a_or_an, _finite_context, _free,
    _is_word, _low, _plural, _replace, _subject,
)


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
