"""The sources of one audit: each loaded, described, cut into passages and checked once.

Why a class per audit: an answer cites a handful of works many times, so each distinct source
is loaded once (``service.load_source`` through one cache connection held for the audit;
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
from typing import TYPE_CHECKING, Final, Literal

from citeproof.audit.verdicts import Outcome, short_quote
from citeproof.documents.model import Document
from citeproof.errors import CiteproofError, UnavailableError
from citeproof.service.results import source_info

if TYPE_CHECKING:
    from citeproof.handles.passages import Passage
    from citeproof.loading.pins import FetchFailure
    from citeproof.match.types import MatchOptions
    from citeproof.models import CheckResult, SourceInfo
    from citeproof.models.handle import HandleStatus
    from citeproof.store.cache import Cache
    from citeproof.store.issued import IssuedPassage, PassageStore

__all__ = ["TEXT_DOCUMENTS_KEEP_CHARS", "Sources"]

#: Characters of passage text whose Documents are kept process-wide (a Document prepared
#: for the matcher takes some 25 bytes per character: about 5 MB in all).
TEXT_DOCUMENTS_KEEP_CHARS: Final = 200_000
_TEXT_DOCUMENTS: OrderedDict[str, Document] = OrderedDict()
_TEXT_LOCK = threading.Lock()
_text_chars = 0


def _text_document(text: str) -> Document:
    """``service.load(text=text)``, a pure function of ``text``, made once per process."""
    global _text_chars
    with _TEXT_LOCK:
        document = _TEXT_DOCUMENTS.get(text)
        if document is not None:
            _TEXT_DOCUMENTS.move_to_end(text)
            return document
    from citeproof import service

    document = service.load(text=text)
    if len(text) <= TEXT_DOCUMENTS_KEEP_CHARS // 8:
        with _TEXT_LOCK:
            if text not in _TEXT_DOCUMENTS:
                _TEXT_DOCUMENTS[text] = document
                _text_chars += len(text)
                while _text_chars > TEXT_DOCUMENTS_KEEP_CHARS:
                    _text_chars -= len(_TEXT_DOCUMENTS.popitem(last=False)[0])
    return document


class Sources:
    """Every source, passage list, handle lookup and quote check, done once per audit."""

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
            from citeproof.loading.pins import open_cache_for

            try:
                self._cache = open_cache_for(offline=self.offline)
            except Exception:  # each load meets (and reports) the problem on its own
                self._cache = None
        return self._cache

    def load(self, key: str) -> Document | FetchFailure | Outcome:
        if key not in self._loaded:
            from citeproof import service

            try:
                self._loaded[key] = service.load_source(
                    key, offline=self.offline, replay=self.replay, cache=self.cache()
                )
            except UnavailableError as exc:  # one bad source never rejects the audit
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
        from citeproof.handles.passages import cut_passages

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
            from citeproof.store.keys import handle_key
            from citeproof.store.paths import default_dirs

            self._key = handle_key(default_dirs().keys)
        return self._key

    def issued(self, handle: str) -> IssuedPassage | None:
        if not self._store_opened:
            from citeproof.store.issued import PassageStore, default_store_path

            self._store_opened = True
            path = default_store_path()
            self._store = PassageStore(path) if path.exists() else None
        return self._store.lookup(handle) if self._store is not None else None

    def resolve_handle(self, text: str) -> HandleStatus:
        """:func:`citeproof.handles.registry.resolve_handle`, with this audit's shared loads."""
        from citeproof.handles.grammar import Handle
        from citeproof.handles.registry import SourceFailure, judge_handle

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
        from citeproof import service
        from citeproof.match.normalize import normalize
        from citeproof.match.types import MIN_QUOTE_CHARS

        try:
            service.validate_quote(quote)
        except CiteproofError as exc:
            return Outcome("malformed", (), f"the quote cannot be checked: {exc}")
        norm = normalize(quote)
        if len(norm) < MIN_QUOTE_CHARS and document.text.strip():
            return short_quote(norm in document.prepared.norm.text)
        result = service.check_document(quote, document, self.options)
        if self.find_source:
            result = service.find_source_for(
                quote, result, self.options, offline=self.offline, replay=self.replay,
                cache=self.cache(),
            )
        return result
