"""The sources of one audit: each loaded, described, cut into passages and checked once.

Why a class per audit: an answer cites a handful of works many times, so each distinct source
is loaded once (by the check pipeline, through one cache connection held for the audit;
pinned bytes, parsed once per process), its passages are cut once, the handle secret and the
issued-passage store are opened once, and a quote repeated against the same source is
matched once.  A handle's passage, as issued, becomes a small Document of its own; those are
kept process-wide by their words (:data:`TEXT_DOCUMENTS_KEEP_CHARS`), like the parse memo keeps
sources, so a passage cited again in a later audit is not read and prepared for the matcher
again.
"""

from __future__ import annotations

import os
import threading
from collections import OrderedDict
from typing import Final, Literal

from citeproof.audit.verdicts import Outcome, because, short_quote
from citeproof.documents.model import Document
from citeproof.errors import CiteproofError, RecordingError, UnavailableError
from citeproof.handles.grammar import Handle
from citeproof.handles.passages import Passage, cut_passages
from citeproof.handles.registry import SourceFailure, judge_handle
from citeproof.loading.describe import source_info
from citeproof.loading.failure import FetchFailure
from citeproof.loading.files import document_from_text
from citeproof.loading.pins import open_cache_for
from citeproof.match.normalize import normalize
from citeproof.match.types import MIN_QUOTE_CHARS, MatchOptions
from citeproof.models import CheckResult, SourceInfo
from citeproof.models.handle import HandleStatus
from citeproof.service.inputs import validate_quote
from citeproof.service.pipeline import CheckOptions, Pipeline
from citeproof.store.cache import Cache
from citeproof.store.issued import IssuedPassage, PassageStore, default_store_path
from citeproof.store.keys import handle_key
from citeproof.store.paths import default_dirs

__all__ = ["TEXT_DOCUMENTS_KEEP_CHARS", "CitedWorks"]

#: Characters of passage text whose Documents are kept process-wide (a Document prepared
#: for the matcher takes some 25 bytes per character: about 5 MB in all).
TEXT_DOCUMENTS_KEEP_CHARS: Final = 200_000
_TEXT_DOCUMENTS: OrderedDict[str, Document] = OrderedDict()
_TEXT_LOCK = threading.Lock()
_text_chars = 0


def _text_document(text: str) -> Document:
    """:func:`document_from_text`, a pure function of ``text``, made once per process."""
    global _text_chars
    with _TEXT_LOCK:
        document = _TEXT_DOCUMENTS.get(text)
        if document is not None:
            _TEXT_DOCUMENTS.move_to_end(text)
            return document
    document = document_from_text(text)
    if len(text) <= TEXT_DOCUMENTS_KEEP_CHARS // 8:
        with _TEXT_LOCK:
            if text not in _TEXT_DOCUMENTS:
                _TEXT_DOCUMENTS[text] = document
                _text_chars += len(text)
                while _text_chars > TEXT_DOCUMENTS_KEEP_CHARS:
                    _text_chars -= len(_TEXT_DOCUMENTS.popitem(last=False)[0])
    return document


class CitedWorks:
    """Every source, passage list, handle lookup and quote check, done once per audit.

    Loads and quote checks run through one :class:`~citeproof.service.pipeline.Pipeline`
    (matching, and find-source when asked; retraction is asked once per work by the audit,
    and the audit logs itself, so those steps are off here).
    """

    def __init__(
        self,
        *,
        offline: bool,
        replay: str | os.PathLike[str] | None,
        options: MatchOptions,
        find_source: bool,
    ) -> None:
        self.offline = offline
        self.replay = replay
        self.options = options
        self.find_source = find_source
        self._loaded: dict[str, Document | FetchFailure | Outcome] = {}
        self._passages: dict[int, list[Passage]] = {}
        self._checks: dict[tuple[int, str], CheckResult | Outcome] = {}
        self._texts: dict[str, Document] = {}
        self._infos: dict[int, SourceInfo] = {}
        self._key: bytes | None = None
        self._store: PassageStore | None = None
        self._store_opened = False
        self._cache: Cache | None = None
        self._cache_opened = False
        self._pipeline: Pipeline | None = None

    def close(self) -> None:
        if self._store is not None:
            self._store.close()
        if self._cache is not None:
            self._cache.close()

    # ------------------------------------------------------------------ sources

    def cache(self) -> Cache | None:
        """The source cache, opened once for the whole audit; None where each load must
        decide for itself (offline with no cache at all: none is created just to look; or
        the cache would not open, so every load reports that as it would alone)."""
        if not self._cache_opened:
            self._cache_opened = True
            try:
                self._cache = open_cache_for(offline=self.offline)
            except Exception:  # each load meets (and reports) the problem on its own
                self._cache = None
        return self._cache

    def pipeline(self) -> Pipeline:
        """The audit's check pipeline, on the audit's cache connection."""
        if self._pipeline is None:
            options = CheckOptions(
                near_threshold=self.options.near_threshold,
                max_gap=self.options.max_gap,
                profile=self.options.profile,
                offline=self.offline,
                replay=os.fspath(self.replay) if self.replay is not None else None,
                find_source=self.find_source,
            )
            self._pipeline = Pipeline(options, cache=self.cache())
        return self._pipeline

    def load(self, key: str) -> Document | FetchFailure | Outcome:
        if key not in self._loaded:
            try:
                self._loaded[key] = self.pipeline().load(key)
            except (UnavailableError, RecordingError) as exc:  # one bad source never
                # rejects the audit; nor does a replay that holds no answer for it: that is
                # citeproof's failure to read the work, not a fault of the citation
                self._loaded[key] = Outcome("unavailable", (), str(exc))
            except CiteproofError as exc:
                self._loaded[key] = Outcome("malformed", (), str(exc))
        return self._loaded[key]

    def source_info(self, document: Document) -> SourceInfo:
        """The citations of one document share its (frozen) description."""
        info = self._infos.get(id(document))
        if info is None:
            info = self._infos[id(document)] = source_info(document)
        return info

    def passages(self, document: Document) -> list[Passage]:
        found = self._passages.get(id(document))
        if found is None:
            found = self._passages[id(document)] = cut_passages(document)
        return found

    def text_document(self, text: str) -> Document:
        """A passage's words as a Document of their own (the same one for the same words
        throughout the audit, so its checks are shared too)."""
        document = self._texts.get(text)
        if document is None:
            document = self._texts[text] = _text_document(text)
        return document

    # ------------------------------------------------------------------ handles

    def handle_secret(self) -> bytes:
        if self._key is None:
            self._key = handle_key(default_dirs().keys)
        return self._key

    def issued(self, handle: str) -> IssuedPassage | None:
        if not self._store_opened:
            self._store_opened = True
            path = default_store_path()
            self._store = PassageStore(path) if path.exists() else None
        return self._store.lookup(handle) if self._store is not None else None

    def resolve_handle(self, text: str) -> HandleStatus:
        """:func:`citeproof.handles.registry.resolve_handle`, with this audit's shared loads."""

        def load(handle: Handle) -> Document | SourceFailure:
            loaded = self.load(handle.identifier.key)
            if isinstance(loaded, Document):
                return loaded
            state = loaded.verdict if isinstance(loaded, Outcome) else loaded.kind
            kind: Literal["unavailable", "unresolvable"] = (
                "unavailable" if state == "unavailable" else "unresolvable"
            )
            return kind, loaded.reason or ""

        return judge_handle(
            text, key=self.handle_secret, issued_for=self.issued, load=load, passages=self.passages
        )

    def check(self, quote: str, document: Document) -> CheckResult | Outcome:
        """The check of ``quote`` against ``document`` (an Outcome when no matcher ran)."""
        memo = (id(document), quote)
        if memo not in self._checks:
            self._checks[memo] = self._check(quote, document)
        return self._checks[memo]

    def _check(self, quote: str, document: Document) -> CheckResult | Outcome:
        try:
            validate_quote(quote)
        except CiteproofError as exc:
            return Outcome("malformed", (), because("the quote cannot be checked", str(exc)))
        norm = normalize(quote)
        if len(norm) < MIN_QUOTE_CHARS and document.has_text:
            return short_quote(norm in document.prepared.norm.text)
        return self.pipeline().check(quote, document)
