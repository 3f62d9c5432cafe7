# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
"""ERRANT's English edit classifier (errant/en/classifier.py) over token arrays.

Every rule, in errant's order, with the same string tests; the resources (Hunspell GB word list, PTB->UD tag map,
Lancaster stemmer) are errant's own, handed in once by configure()."""
from peet_fast._ext.chardist cimport levenshtein_str
from peet_fast._ext.tokens cimport Sent, v_lower, v_lemma, F_TAG_POS, F_ALPHA, POS_PART

cdef object _spell = None      # set of words
cdef dict _pos_map = None      # PTB tag -> coarse type (ADP->PREP, PROPN->NOUN, CCONJ->CONJ)
cdef object _stem = None       # callable: word -> Lancaster stem
cdef dict _stem_cache = {}     # word -> stem, cleared when it reaches STEM_CACHE_ENTRIES (flat memory on any corpus)
cdef Py_ssize_t STEM_CACHE_ENTRIES = 50_000      # as peet_fast.en.ruler.MEMO_ENTRIES

cdef frozenset OPEN_POS2 = frozenset({"ADJ", "ADV", "NOUN", "VERB"})
cdef frozenset RARE_POS = frozenset({"INTJ", "NUM", "SYM", "X"})
cdef frozenset CONTS = frozenset({"'d", "'ll", "'m", "n't", "'re", "'s", "'ve"})
cdef dict AUX_CONTS = {"ca": "can", "sha": "shall", "wo": "will"}
cdef dict DEP_MAP = {"acomp": "ADJ", "amod": "ADJ", "advmod": "ADV", "det": "DET", "prep": "PREP", "prt": "PART",
                     "punct": "PUNCT"}
cdef frozenset AUX_DEPS = frozenset({"aux", "auxpass"})


def configure(spell, dict pos_map, stem):
    """Install the classifier's resources: a set of correctly spelled words, the PTB tag map and a stemming function."""
    global _spell, _pos_map, _stem, _stem_cache
    _spell = spell
    _pos_map = pos_map
    _stem = stem
    _stem_cache = {}


def is_configured():
    return _pos_map is not None


def stem_cache_size():
    """Entries of the stem memo (for the tests of its bound)."""
    return len(_stem_cache)


def set_stem_cache_entries(Py_ssize_t entries):
    """Set the stem memo's bound (at least 1); returns the previous one (the tests use a small one)."""
    global STEM_CACHE_ENTRIES
    old = STEM_CACHE_ENTRIES
    STEM_CACHE_ENTRIES = max(1, entries)
    return old


cdef str _stemmed(str word):
    cdef object s = _stem_cache.get(word)
    if s is None:
        s = _stem(word)
        if len(_stem_cache) >= STEM_CACHE_ENTRIES:
            _stem_cache.clear()
        _stem_cache[word] = s
    return s


cdef double lev_normalized_similarity(str a, str b) except? -1.0:
    """rapidfuzz Levenshtein.normalized_similarity (unit weights): 1 - dist / max(len(a), len(b))."""
    cdef Py_ssize_t la = len(a), lb = len(b)
    cdef Py_ssize_t maximum = la if la > lb else lb
    if maximum == 0:
        return 1.0
    return 1.0 - <double>levenshtein_str(a, b) / <double>maximum


def levenshtein_normalized_similarity(str a, str b):
    return lev_normalized_similarity(a, b)


cdef list _coarse(Sent s, Py_ssize_t a, Py_ssize_t b):
    return [_pos_map[s.tag_[t]] for t in range(a, b)]


cdef list _deps(Sent s, Py_ssize_t a, Py_ssize_t b):
    return [s.dep_[t] for t in range(a, b)]


cdef str one_sided_type(Sent s, Py_ssize_t a, Py_ssize_t b):
    cdef str low, p, d
    if b - a == 1:
        # Possessive noun suffixes; e.g. ' -> 's
        if s.flags[a] & F_TAG_POS:
            return "NOUN:POSS"
        low = s.lower_[a]
        # Contractions. Rule must come after possessive
        if low in CONTS:
            return "CONTR"
        # Infinitival "to" is treated as part of a verb form
        if low == "to" and s.pos[a] == POS_PART and s.dep_[a] != "prep":
            return "VERB:FORM"
        # one token: the general rules below reduce to these
        p = _pos_map[s.tag_[a]]
        d = s.dep_[a]
        if d in AUX_DEPS:
            return "VERB:TENSE"
        if p not in RARE_POS:
            return p
        if d in DEP_MAP:
            return DEP_MAP[d]
        return "OTHER"
    pos_list = _coarse(s, a, b)
    dep_list = _deps(s, a, b)
    dep_set = set(dep_list)
    pos_set = set(pos_list)
    # Auxiliary verbs
    if dep_set <= AUX_DEPS:
        return "VERB:TENSE"
    # POS-based tags. Ignores rare, uninformative categories
    if len(pos_set) == 1 and pos_list[0] not in RARE_POS:
        return pos_list[0]
    # More POS-based tags using special dependency labels
    if len(dep_set) == 1 and dep_list[0] in DEP_MAP:
        return DEP_MAP[dep_list[0]]
    # To-infinitives and phrasal verbs
    if pos_set == {"PART", "VERB"}:
        return "VERB"
    return "OTHER"


cdef list _children(Sent s, Py_ssize_t h):
    """spaCy Token.children in document order: tokens whose head is h, h itself excluded."""
    return [t for t in range(s.n) if s.head[t] == h and t != h]


cdef bint preceded_by_aux(Sent o, Py_ssize_t oi, Sent c, Py_ssize_t ci):
    cdef Py_ssize_t oc, cc
    if (<str>o.dep_[oi]).startswith("aux") and (<str>c.dep_[ci]).startswith("aux"):
        for oc in _children(o, o.head[oi]):
            # Look at the first aux...
            if (<str>o.dep_[oc]).startswith("aux"):
                if o.text[oc] != o.text[oi]:
                    for cc in _children(c, c.head[ci]):
                        if (<str>c.dep_[cc]).startswith("aux"):
                            if c.text[cc] != c.text[ci]:
                                return True
                            break
                break
    else:
        o_deps = [o.dep_[t] for t in _children(o, oi)]
        c_deps = [c.dep_[t] for t in _children(c, ci)]
        if "aux" in o_deps or "auxpass" in o_deps:
            if "aux" in c_deps or "auxpass" in c_deps:
                return True
    return False


cdef inline bint _pair(str a, str b, str x, str y):
    """{a, b} == {x, y} for x != y"""
    return (a == x and b == y) or (a == y and b == x)


cdef object one_to_one_type(Sent o, Py_ssize_t o1, Sent c, Py_ssize_t c1):
    """errant's rules for one token replaced by one token; None where none decides (the multi-token rules follow)."""
    cdef str ot, ct, ol, cl, op0, cp0, otag, ctag, od, cd
    cdef double str_sim
    cdef Py_ssize_t lo, lc
    ot = o.text[o1]; ct = c.text[c1]
    ol = o.lower_[o1]; cl = c.lower_[c1]
    # Orthography (and word order, which for one token each is the same test)
    if ol == cl:
        return "ORTH"
    otag = o.tag_[o1]; ctag = c.tag_[c1]
    op0 = _pos_map[otag]; cp0 = _pos_map[ctag]
    od = o.dep_[o1]; cd = c.dep_[c1]
    # 1. SPECIAL CASES
    # Possessive noun suffixes; e.g. ' -> 's
    if otag == "POS" or ctag == "POS":
        return "NOUN:POSS"
    # Contraction. Rule must come after possessive.
    if (ol in CONTS or cl in CONTS) and op0 == cp0:
        return "CONTR"
    # Special auxiliaries in contractions (1); e.g. ca -> can, wo -> will
    if (ol in AUX_CONTS and cl == AUX_CONTS[ol]) or (cl in AUX_CONTS and ol == AUX_CONTS[cl]):
        return "CONTR"
    # Special auxiliaries in contractions (2); e.g. ca -> could, wo -> should
    if ol in AUX_CONTS or cl in AUX_CONTS:
        return "VERB:TENSE"
    # Special: "was" and "were" are the only past tense SVA
    if _pair(ol, cl, "was", "were"):
        return "VERB:SVA"

    # 2. SPELLING AND INFLECTION
    # Only check alphabetical strings on the original side
    if o.flags[o1] & F_ALPHA:
        # Check a GB English dict for both orig and lower case.
        if ot not in _spell and ol not in _spell:
            # Check if both sides have a common lemma
            if v_lemma(&o.v, o1) == v_lemma(&c.v, c1):
                # Inflection; often count vs mass nouns or e.g. got vs getted
                if op0 == cp0 and (op0 == "NOUN" or op0 == "VERB"):
                    return op0 + ":INFL"
                return "MORPH"
            # Use string similarity to detect true spelling errors.
            str_sim = lev_normalized_similarity(ol, cl)
            if str_sim > 0.55:
                return "SPELL"
            # Special scores for shorter sequences are usually SPELL
            if str_sim == 0.5 or round(str_sim, 3) == 0.333:
                if len(ot) <= 4 and len(ct) <= 4:
                    return "SPELL"
            # The remainder are usually word choice: amounght -> number
            if cp0 not in RARE_POS:
                return cp0
            return "OTHER"

    # 3. MORPHOLOGY
    # Only ADJ, ADV, NOUN and VERB can have inflectional changes.
    if v_lemma(&o.v, o1) == v_lemma(&c.v, c1) and op0 in OPEN_POS2 and cp0 in OPEN_POS2:
        # Same POS on both sides
        if op0 == cp0:
            if op0 == "ADJ":
                return "ADJ:FORM"
            if op0 == "NOUN":
                return "NOUN:NUM"
            if op0 == "VERB":
                # Main verbs preceded by aux cannot be tense or SVA.
                if preceded_by_aux(o, o1, c, c1):
                    return "VERB:FORM"
                if otag in ("VBG", "VBN") or ctag in ("VBG", "VBN"):
                    return "VERB:FORM"
                if otag == "VBD" or ctag == "VBD":
                    return "VERB:TENSE"
                if otag == "VBZ" or ctag == "VBZ":
                    return "VERB:SVA"
                if (<str>od).startswith("aux") and (<str>cd).startswith("aux"):
                    return "VERB:TENSE"
        # Use dep labels to find some more ADJ:FORM
        if (od == "acomp" or od == "amod") and (cd == "acomp" or cd == "amod"):
            return "ADJ:FORM"
        # Adj to plural noun is usually noun number; e.g. musical -> musicals.
        if op0 == "ADJ" and ctag == "NNS":
            return "NOUN:NUM"
        # For remaining verb errors (rare), rely on c_pos
        if ctag in ("VBG", "VBN"):
            return "VERB:FORM"
        if ctag == "VBD":
            return "VERB:TENSE"
        if ctag == "VBZ":
            return "VERB:SVA"
        return "MORPH"
    # Derivational morphology.
    if op0 in OPEN_POS2 and cp0 in OPEN_POS2 and _stemmed(ot) == _stemmed(ct):
        return "MORPH"

    # 4. GENERAL
    # Auxiliaries with different lemmas
    if (<str>od).startswith("aux") and (<str>cd).startswith("aux"):
        return "VERB:TENSE"
    # POS-based tags. Some of these are context sensitive mispellings.
    if op0 == cp0 and op0 not in RARE_POS:
        return op0
    # Some dep labels map to POS-based tags.
    if od == cd and od in DEP_MAP:
        return DEP_MAP[od]
    # Phrasal verb particles.
    if _pair(op0, cp0, "PART", "PREP") or _pair(od, cd, "prt", "prep"):
        return "PART"
    # Can use dep labels to resolve DET + PRON combinations.
    if _pair(op0, cp0, "DET", "PRON"):
        if cd in ("nsubj", "nsubjpass", "dobj", "pobj"):
            return "PRON"
        if cd == "poss":
            return "DET"
    # NUM and DET are usually DET; e.g. a <-> one
    if _pair(op0, cp0, "NUM", "DET"):
        return "DET"
    # Special: other <-> another
    if _pair(ol, cl, "other", "another"):
        return "DET"
    # Special: your (sincerely) -> yours (sincerely)
    if ol == "your" and cl == "yours":
        return "PRON"
    # Special: no <-> not; this is very context sensitive
    if _pair(ol, cl, "no", "not"):
        return "OTHER"

    # 5. STRING SIMILARITY
    if o.flags[o1] & F_ALPHA and c.flags[c1] & F_ALPHA:
        str_sim = lev_normalized_similarity(ol, cl)
        lo = len(ot)
        lc = len(ct)
        # A. Short sequences are likely to be SPELL or function word errors
        if lo == 1:
            if lc == 2 and str_sim == 0.5:
                return "SPELL"
        if lo == 2:
            if 2 <= lc <= 3 and str_sim >= 0.5:
                return "SPELL"
        if lo == 3:
            if ol == "the" and cl == "that":
                return "PRON"
            if ol == "all" and cl == "everything":
                return "PRON"
            if 2 <= lc <= 4 and str_sim >= 0.5:
                return "SPELL"
        # B. Longer sequences are also likely to include content word errors
        if lo == 4:
            if _pair(ol, cl, "that", "what"):
                return "PRON"
            if _pair(ol, cl, "good", "well") and cp0 not in RARE_POS:
                return cp0
            if lc == 3 and str_sim > 0.5:
                return "SPELL"
            if lc == 4 and str_sim >= 0.5:
                return "SPELL"
            if lc == 5 and str_sim == 0.8:
                return "SPELL"
            if lc > 5 and str_sim > 0.5 and cp0 not in RARE_POS:
                return cp0
        if lo == 5:
            if _pair(ol, cl, "after", "later") and cp0 not in RARE_POS:
                return cp0
            if lc == 4 and str_sim == 0.8:
                return "SPELL"
            if lc == 5 and str_sim >= 0.6:
                return "SPELL"
            if lc > 5 and cp0 not in RARE_POS:
                return cp0
        # C. Longest sequences include MORPH errors
        if lo > 5 and lc > 5:
            if ol == "therefor" and cl == "therefore":
                return "SPELL"
            if _pair(ol, cl, "though", "thought"):
                return "SPELL"
            if (ot.startswith(ct) or ct.startswith(ot)) and str_sim >= 0.66:
                return "MORPH"
            if str_sim > 0.8:
                return "SPELL"
            if str_sim < 0.55 and cp0 not in RARE_POS:
                return cp0
    else:
        return "OTHER"

    return None


cdef str two_sided_type(Sent o, Py_ssize_t o1, Py_ssize_t o2, Sent c, Py_ssize_t c1, Py_ssize_t c2):
    cdef object r
    if o2 - o1 == 1 and c2 - c1 == 1:
        r = one_to_one_type(o, o1, c, c1)
        if r is not None:
            return r
    cdef list o_pos = _coarse(o, o1, o2), c_pos = _coarse(c, c1, c2)
    cdef list o_dep = _deps(o, o1, o2), c_dep = _deps(c, c1, c2)
    if not (o2 - o1 == 1 and c2 - c1 == 1):
        # Orthography; i.e. whitespace and/or case errors.
        if "".join(o.lower_[o1:o2]) == "".join(c.lower_[c1:c2]):
            return "ORTH"
        # Word Order; only matches exact reordering.
        if sorted(o.lower_[o1:o2]) == sorted(c.lower_[c1:c2]):
            return "WO"

    # Multi-token replacements (uncommon), and 1:1 replacements no rule above decided
    all_dep = set(o_dep + c_dep)
    all_pos = set(o_pos + c_pos)
    # All auxiliaries
    if all_dep <= AUX_DEPS:
        return "VERB:TENSE"
    # All same POS
    if len(all_pos) == 1:
        # Final verbs with the same lemma are tense; e.g. eat -> has eaten
        if o_pos[0] == "VERB" and v_lemma(&o.v, o2 - 1) == v_lemma(&c.v, c2 - 1):
            return "VERB:TENSE"
        elif o_pos[0] not in RARE_POS:
            return o_pos[0]
    # All same special dep labels.
    if len(all_dep) == 1 and o_dep[0] in DEP_MAP:
        return DEP_MAP[o_dep[0]]
    # Infinitives, gerunds, phrasal verbs.
    if all_pos == {"PART", "VERB"}:
        if v_lemma(&o.v, o2 - 1) == v_lemma(&c.v, c2 - 1):
            return "VERB:FORM"
        return "VERB"
    # Possessive nouns; e.g. friends -> friend 's
    if (o_pos == ["NOUN", "PART"] or c_pos == ["NOUN", "PART"]) and v_lemma(&o.v, o1) == v_lemma(&c.v, c1):
        return "NOUN:POSS"
    # Adjective forms with "most" and "more"; e.g. more free -> freer
    if (o.lower_[o1] in ("most", "more") or c.lower_[c1] in ("most", "more")) and \
            v_lemma(&o.v, o2 - 1) == v_lemma(&c.v, c2 - 1) and o2 - o1 <= 2 and c2 - c1 <= 2:
        return "ADJ:FORM"
    return "OTHER"


cdef str _classify(Sent orig, Py_ssize_t o1, Py_ssize_t o2, Sent cor, Py_ssize_t c1, Py_ssize_t c2, bint same_str):
    if o2 == o1 and c2 == c1:
        return "UNK"
    if o2 == o1:
        return "M:" + one_sided_type(cor, c1, c2)
    if c2 == c1:
        return "U:" + one_sided_type(orig, o1, o2)
    # Same to same is a detected but not corrected edit (errant compares the untruncated strings)
    if same_str:
        return "UNK"
    # Ignore case change at the end of multi token edits: classify as if the last token wasn't there
    if v_lower(&orig.v, o2 - 1) == v_lower(&cor.v, c2 - 1) and (o2 - o1 > 1 or c2 - c1 > 1):
        return _classify(orig, o1, o2 - 1, cor, c1, c2 - 1, same_str)
    return "R:" + two_sided_type(orig, o1, o2, cor, c1, c2)


cdef str classify_edit(Sent orig, Py_ssize_t o1, Py_ssize_t o2, Sent cor, Py_ssize_t c1, Py_ssize_t c2,
                       bint same_str):
    """same_str: the edit's orig and cor strings (spaCy Span.text) are equal."""
    if _pos_map is None:
        raise RuntimeError("classifier resources not configured; call peet_fast._ext.classify.configure() first")
    return _classify(orig, o1, o2, cor, c1, c2, same_str)


def classify(Sent orig, Py_ssize_t o1, Py_ssize_t o2, Sent cor, Py_ssize_t c1, Py_ssize_t c2):
    """The ERRANT type of the edit orig[o1:o2] -> cor[c1:c2]."""
    if not (0 <= o1 <= o2 <= orig.n and 0 <= c1 <= c2 <= cor.n):
        raise IndexError("edit span out of range")
    return classify_edit(orig, o1, o2, cor, c1, c2, orig.span_text(o1, o2) == cor.span_text(c1, c2))
