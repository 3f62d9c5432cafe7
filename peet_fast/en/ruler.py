"""The compiled attribute ruler: an exact, table-driven stand-in for en_core_web_sm's spaCy attribute_ruler and rule
lemmatizer, which the parse stage runs after the neural components (see CompiledAttributeRuler)."""
from __future__ import annotations

import weakref

_TAILS = weakref.WeakKeyDictionary()   # pipeline -> (its component names, compiled tail); never keeps one alive
# Entries of each memo of the parse stage (the parser's hash -> string, this ruler's two, the classifier's stems):
# cleared when full, so each stays within a few tens of MB however many distinct words a corpus has.
MEMO_ENTRIES = 50_000


def tail_components(nlp):
    """For a pipeline ending in attribute_ruler, lemmatizer (as en_core_web_sm does): the names to skip in
    ``nlp.pipe`` and the callables that replace them (the compiled ruler, which also lemmatizes through spaCy's own
    lemmatizer); None when the ruler or lemmatizer cannot be compiled exactly or the pipeline has another shape.
    Compiled once per pipeline instance (again if its active components change)."""
    names = tuple(nlp.pipe_names)
    cached = _TAILS.get(nlp)
    if cached is not None and cached[0] == names:
        return cached[1]
    tail = None
    if names[-2:] == ("attribute_ruler", "lemmatizer"):
        ruler = CompiledAttributeRuler.compile(nlp.get_pipe("attribute_ruler"), nlp.get_pipe("lemmatizer"))
        if ruler is not None:
            tail = (["attribute_ruler", "lemmatizer"], [ruler])
    _TAILS[nlp] = (names, tail)
    return tail


class CompiledAttributeRuler:
    """An exact, table-driven stand-in for a pipeline's spaCy ``attribute_ruler`` (and, optionally, the rule
    lemmatizer after it).

    spaCy's AttributeRuler runs a Matcher over every Doc and then sets each matched token's attributes one Python call
    at a time; in en_core_web_sm that is about a third of the whole parse. The rules themselves are simple: token
    specs over TAG, LOWER, DEP and IS_SPACE (equality, IN, NOT_IN, REGEX), patterns of one or two tokens. This class
    reads the ruler's own patterns and applies them with spaCy's semantics: every pattern is matched against the Doc
    as it was before the ruler ran, matches are applied in the order (pattern number, start, end), so a later pattern
    overrides an earlier one, and the attributes are written once per Doc with ``Doc.from_array``. A token's
    single-token matches depend only on (TAG, LOWER, DEP, IS_SPACE), so they are computed once per distinct
    combination. ``compile`` returns None when a ruler uses anything else (operators, other attributes, extension
    attributes), and the caller keeps spaCy's component.

    With ``lemmatizer`` (spaCy's rule Lemmatizer, not overwriting), tokens the ruler left without a lemma get
    ``lemmatizer.rule_lemmatize(token)[0]``, as spaCy's component does; that is a function of (ORTH, POS, MORPH) --
    the key of spaCy's own lemma cache -- so it is computed once per distinct key, by the same steps over the same
    tables but with the word index as a set (spaCy scans a list of up to 21k words per uncached token; the lemmatizer
    then costs more than the compiled ruler). Tests compare every token attribute with spaCy's own pipeline on real
    corpora."""

    _SPEC_ATTRS = ("TAG", "LOWER", "DEP", "IS_SPACE")

    def __init__(self, vocab, specs, entries, lemmatizer=None):
        from spacy.attrs import DEP, IS_SPACE, LEMMA, LOWER, MORPH, ORTH, POS, TAG

        self.vocab = vocab
        self.specs = specs          # [((attr name, op, value), ...)] conjunctions; op in eq/in/not_in/regex/bool
        self.entries = entries      # [(order, [spec ids], target index, {column: value})]
        self.single = [e for e in entries if len(e[1]) == 1]
        self.multi = [e for e in entries if len(e[1]) > 1]
        self.lemmatizer = lemmatizer
        self.read_attrs = [TAG, LOWER, DEP, IS_SPACE, ORTH]
        self.write_attrs = [POS, TAG, MORPH, LEMMA, DEP]
        self._cache: dict = {}      # (TAG, LOWER, DEP, IS_SPACE) -> _token_info's answer; bounded (MEMO_ENTRIES)
        self._infos: dict = {}      # `ok` -> those answers, each kept once
        self._lemmas: dict = {}     # (ORTH, POS, MORPH) -> lemma string; bounded (MEMO_ENTRIES)
        self._tables: dict = {}
        # candidate specs per token: those keyed on the token's LOWER, on its TAG, and the rest
        self._by = {"LOWER": {}, "TAG": {}}
        self._other: list = []
        for i, conds in enumerate(specs):
            for name in ("LOWER", "TAG"):
                keyed = [c for c in conds if c[0] == name and c[1] in ("eq", "in")]
                if keyed:
                    _, op, want = keyed[0]
                    for v in ([want] if op == "eq" else want):
                        self._by[name].setdefault(v, []).append(i)
                    break
            else:
                self._other.append(i)

    @classmethod
    def compile(cls, ruler, lemmatizer=None) -> "CompiledAttributeRuler | None":
        """Compile a spaCy AttributeRuler, or None if it uses anything this class does not implement exactly."""
        from spacy.attrs import DEP, LEMMA, MORPH, POS, TAG

        columns = {POS: 0, TAG: 1, MORPH: 2, LEMMA: 3, DEP: 4}
        strings = ruler.vocab.strings
        spec_ids: dict = {}
        specs: list = []
        entries: list = []
        try:
            raw = ruler.patterns
        except Exception:
            return None
        if len(raw) != len(ruler.attrs):
            return None
        for order, (entry, attrs, index) in enumerate(zip(raw, ruler.attrs, ruler.indices)):
            if set(attrs) - set(columns):
                return None
            values = {columns[a]: int(v) for a, v in attrs.items()}
            for pattern in entry["patterns"]:
                if not isinstance(pattern, list) or not pattern:
                    return None
                ids = []
                for token_spec in pattern:
                    conds = cls._conditions(token_spec, strings)
                    if conds is None:
                        return None
                    key = tuple(sorted(conds, key=repr))
                    if key not in spec_ids:
                        spec_ids[key] = len(specs)
                        specs.append(key)
                    ids.append(spec_ids[key])
                target = index if index >= 0 else len(ids) + index
                if not 0 <= target < len(ids):
                    return None
                entries.append((order, ids, target, values))
        if lemmatizer is not None and not _rule_lemmatizer(lemmatizer):
            return None
        return cls(ruler.vocab, specs, entries, lemmatizer)

    @classmethod
    def _conditions(cls, token_spec: dict, strings) -> list | None:
        """One token spec of a pattern as (attribute, operator, operand) conditions, or None if it uses anything this
        class does not implement exactly."""
        import re

        conds = []
        for name, want in token_spec.items():
            if name not in cls._SPEC_ATTRS:
                return None
            if name == "IS_SPACE":
                if not isinstance(want, bool):
                    return None
                conds.append((name, "bool", want))
            elif isinstance(want, str):
                conds.append((name, "eq", strings.as_int(want) if want else 0))
            elif isinstance(want, dict) and len(want) == 1:
                (op, arg), = want.items()
                if op in ("IN", "NOT_IN") and isinstance(arg, list) and all(isinstance(a, str) for a in arg):
                    conds.append((name, op.lower(), frozenset(strings.as_int(a) if a else 0 for a in arg)))
                elif op == "REGEX" and isinstance(arg, str):
                    conds.append((name, "regex", re.compile(arg)))
                else:
                    return None
            else:
                return None
        return conds

    def _rule_tables(self, univ_pos: str) -> tuple:
        """spaCy's lemma tables for one coarse POS, with the word index as a set (spaCy keeps it as a list and
        searches it linearly on every uncached lemma): (any table present, index set, exceptions, rules)."""
        got = self._tables.get(univ_pos)
        if got is None:
            lookups = self.lemmatizer.lookups
            index = lookups.get_table("lemma_index", {}).get(univ_pos)
            exc = lookups.get_table("lemma_exc", {}).get(univ_pos)
            rules = lookups.get_table("lemma_rules", {}).get(univ_pos)
            got = self._tables[univ_pos] = (bool(index or exc or rules), frozenset(index or ()), exc or {},
                                            rules or [])
        return got

    def _lemma(self, token) -> str:
        """spaCy's Lemmatizer.rule_lemmatize(token)[0], step for step, with set lookups in the word index."""
        string = token.text
        univ_pos = token.pos_.lower()
        if univ_pos in ("", "eol", "space"):
            if univ_pos == "":
                import warnings

                from spacy.errors import Warnings

                warnings.warn(Warnings.W108)
            return string.lower()
        if self.lemmatizer.is_base_form(token):
            return string.lower()
        present, index, exceptions, rules = self._rule_tables(univ_pos)
        if not present:
            return string if univ_pos == "propn" else string.lower()
        orig = string
        string = string.lower()
        forms: list = []
        oov_forms = []
        for old, new in rules:
            if string.endswith(old):
                form = string[: len(string) - len(old)] + new
                if not form:
                    pass
                elif form in index or not form.isalpha():
                    if form in index:
                        forms.insert(0, form)
                    else:
                        forms.append(form)
                else:
                    oov_forms.append(form)
        forms = list(dict.fromkeys(forms))
        for form in exceptions.get(string, []):
            if form not in forms:
                forms.insert(0, form)
        if not forms:
            forms.extend(oov_forms)
        if not forms:
            forms.append(orig)
        return forms[0]

    def _satisfies(self, i: int, values: dict) -> bool:
        for name, op, want in self.specs[i]:
            have = values[name]
            if op == "eq":
                hit = have == want
            elif op == "in":
                hit = have in want
            elif op == "not_in":
                hit = have not in want
            elif op == "bool":
                hit = bool(have) == want
            else:
                hit = want.search(self.vocab.strings[have] if have else "") is not None
            if not hit:
                return False
        return True

    def _token_info(self, key) -> tuple:
        """For a token with these (TAG, LOWER, DEP, IS_SPACE) values: the ids of the token specs it satisfies, the
        single-token entries it matches as (pattern number, values), and the multi-token entries whose first spec
        it satisfies."""
        got = self._cache.get(key)
        if got is None:
            values = dict(zip(self._SPEC_ATTRS, key))
            candidates = (self._by["LOWER"].get(values["LOWER"], []) + self._by["TAG"].get(values["TAG"], [])
                          + self._other)
            ok = frozenset(i for i in candidates if self._satisfies(i, values))
            if len(self._cache) >= MEMO_ENTRIES:   # bounded on open-ended corpora
                self._cache.clear()
                self._infos.clear()
            # the rest follows from `ok`: one answer per distinct `ok` (a few hundred), shared by every key giving it
            got = self._infos.get(ok)
            if got is None:
                singles = tuple((order, vals) for order, ids, _, vals in self.single if ids[0] in ok)
                starts = tuple(e for e in self.multi if e[1][0] in ok)
                got = self._infos[ok] = (ok, singles, starts)
            self._cache[key] = got
        return got

    def __call__(self, doc):
        n = len(doc)
        if not n:
            return doc
        rows = doc.to_array(self.read_attrs).tolist()
        info = [self._token_info((r[0], r[1], r[2], r[3])) for r in rows]
        hits = [(order, i, i + 1, i, vals) for i, (_, singles, _) in enumerate(info) for order, vals in singles]
        for s, (_, _, starts) in enumerate(info):
            for order, ids, target, vals in starts:
                width = len(ids)
                if s + width <= n and all(ids[j] in info[s + j][0] for j in range(1, width)):
                    hits.append((order, s, s + width, s + target, vals))
        out = doc.to_array(self.write_attrs)
        if hits:
            hits.sort(key=lambda h: h[:3])
            for _, _, _, i, vals in hits:
                for col, v in vals.items():
                    out[i, col] = v
        lem = self.lemmatizer
        missing = []
        if lem is not None:
            lemmas = self._lemmas
            add = self.vocab.strings.add
            for i in range(n):
                if out[i, 3] == 0:
                    got = lemmas.get((rows[i][4], out[i, 0], out[i, 2]))
                    if got is None:
                        missing.append(i)
                    else:
                        # the lemma string itself, into this Doc's string store: a memory zone since the memo was
                        # made may have dropped it (the hash is a content hash, the same in every zone)
                        out[i, 3] = add(got)
        if hits or lem is not None:
            doc.from_array(self.write_attrs, out)
        if missing:
            strings = self.vocab.strings
            if len(self._lemmas) + len(missing) > MEMO_ENTRIES:     # bounded on open-ended corpora
                self._lemmas.clear()
            for i in missing:
                token = doc[i]
                lemma = self._lemma(token)
                token.lemma = strings.add(lemma)
                self._lemmas[(rows[i][4], out[i, 0], out[i, 2])] = lemma
        return doc


def _rule_lemmatizer(lemmatizer) -> bool:
    """Whether a lemmatizer is spaCy's own rule lemmatizer (not overwriting, rule_lemmatize not overridden), which
    the compiled ruler reproduces; its lookup tables are validated as spaCy validates them before first use."""
    from spacy.pipeline import Lemmatizer

    if (not isinstance(lemmatizer, Lemmatizer) or lemmatizer.mode != "rule" or lemmatizer.overwrite
            or type(lemmatizer).rule_lemmatize is not Lemmatizer.rule_lemmatize):
        return False
    if not lemmatizer._validated:
        from spacy.errors import Errors

        lemmatizer._validate_tables(Errors.E1004)
    return True
