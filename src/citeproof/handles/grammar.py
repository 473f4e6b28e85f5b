"""Citation handles: the grammar, the canonical form and the check code.  Pure: no I/O.

Why handles exist: a model that cites ``pmcid:PMC3166277/body.results.p4~7G2KQ1XM`` names one
passage of one source, and the check code lets anyone holding the secret tell a handle
citeproof issued from one a model made up, without a database.  The store of issued passages
(:mod:`citeproof.store.issued`) then says what the passage said when it was issued.

Grammar (``scheme:id[.vN]/path~code``):

* ``scheme`` is one of :data:`SCHEMES` (any case; canonical lower case).
* ``id`` is the identifier in the form :mod:`citeproof.identifiers` gives it (PMID digits,
  ``PMC123``, a DOI lower-cased, which contains ``/``): each scheme is a kind that
  :data:`~citeproof.identifiers.KINDS` declares with ``handles``, and its id is read by that
  kind's own canonical form.
* ``.vN`` pins a PMC article version and is accepted for ``pmcid`` only: a DOI may itself
  end in ``.v2``, so reading a version off any other scheme would be ambiguous.
* ``path`` is what follows the **last** ``/``: dot-separated segments of ``a-z``, ``0-9`` and
  ``-`` (``body.results.p4``, ``abstract.2``, ``caption.fig2``, ``table.t1.r3``).
* ``code`` is 8 Crockford base32 characters.  Reading is case-insensitive and maps Crockford's
  aliases (``O`` to ``0``, ``I`` and ``L`` to ``1``); the canonical form is upper case.

The code is the first 40 bits of HMAC-SHA256(key, canonical handle without code + ``"\\n"`` +
sha256 hex of the passage text as issued).  Binding the passage's hash, not only its path,
means a handle stops verifying when the words at its path change; 40 bits make a guessed
code right once in about a trillion tries, while the handle stays short enough to cite.
Comparison is constant-time (:func:`hmac.compare_digest`).
"""

from __future__ import annotations

import hashlib
import hmac
import re
from dataclasses import dataclass
from typing import Final, Literal, get_args

from citeproof.errors import MalformedHandleError
from citeproof.identifiers import KINDS, Identifier, UnknownIdentifierError, parse_identifier

__all__ = [
    "CODE_LENGTH",
    "CROCKFORD",
    "SCHEMES",
    "Handle",
    "MalformedHandleError",
    "Scheme",
    "encode_code",
    "format_handle",
    "handle_for",
    "issue_code",
    "normalize_code",
    "parse_handle",
    "passage_sha256",
    "valid_path",
    "verify",
]

Scheme = Literal["pmid", "pmcid", "doi", "ppr", "nct", "setid"]
SCHEMES: Final[tuple[Scheme, ...]] = get_args(Scheme)
CROCKFORD: Final = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"
CODE_LENGTH: Final = 8
MAX_HANDLE_CHARS: Final = 600
_CODE_BITS: Final = 5 * CODE_LENGTH
_ALIASES: Final = {"O": "0", "I": "1", "L": "1"}
_PATH_RE = re.compile(r"[a-z0-9](?:[a-z0-9-]*[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]*[a-z0-9])?)*")
_SCHEME_RE = re.compile(r"[A-Za-z]+")
_VERSION_RE = re.compile(r"(.+)\.[vV](\d{1,4})")
_ASCII_LOWER = str.maketrans("ABCDEFGHIJKLMNOPQRSTUVWXYZ", "abcdefghijklmnopqrstuvwxyz")


@dataclass(frozen=True, slots=True)
class Handle:
    """One parsed handle, every part canonical; ``str()`` gives the canonical text."""

    scheme: Scheme
    id: str
    path: str
    code: str
    version: int | None = None

    @property
    def base(self) -> str:
        """The canonical handle without its code: what the code is computed over."""
        version = f".v{self.version}" if self.version is not None else ""
        return f"{self.scheme}:{self.id}{version}/{self.path}"

    @property
    def identifier(self) -> Identifier:
        """The source the handle names (with the pinned PMC version, if any)."""
        return Identifier(self.scheme, self.id, self.base, self.version)

    def __str__(self) -> str:
        return format_handle(self)


def format_handle(handle: Handle) -> str:
    """The canonical text of ``handle``: ``scheme:id[.vN]/path~CODE``."""
    return f"{handle.base}~{handle.code}"


def passage_sha256(text: str) -> str:
    """The sha256 hex of a passage's text (UTF-8; lone surrogates kept as they are)."""
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


def encode_code(digest: bytes) -> str:
    """The first 40 bits of ``digest`` as 8 Crockford base32 characters."""
    value = int.from_bytes(digest[:5], "big")
    chars = [CROCKFORD[(value >> shift) & 31] for shift in range(_CODE_BITS - 5, -1, -5)]
    return "".join(chars)


def issue_code(key: bytes, canonical: str, passage_sha: str) -> str:
    """The check code for the canonical handle ``canonical`` (without code) and the sha256
    hex of the passage text it is issued for."""
    message = f"{canonical}\n{passage_sha}".encode()
    return encode_code(hmac.new(key, message, hashlib.sha256).digest())


def normalize_code(code: str) -> str | None:
    """``code`` in canonical form (upper case, aliases mapped), or None if it is not 8
    Crockford base32 characters."""
    if len(code) != CODE_LENGTH or not code.isascii():
        return None
    upper = "".join(_ALIASES.get(ch, ch) for ch in code.upper())
    return upper if all(ch in CROCKFORD for ch in upper) else None


def verify(key: bytes, handle: Handle, passage_sha: str) -> bool:
    """Whether ``handle``'s code was issued with ``key`` for a passage with this sha256."""
    expected = issue_code(key, handle.base, passage_sha)
    return hmac.compare_digest(expected.encode("ascii"), handle.code.encode("ascii"))


def handle_for(
    key: bytes, scheme: Scheme, ident: str, path: str, text: str, version: int | None = None
) -> Handle:
    """Issue the handle for the passage ``text`` at ``path`` of the source ``scheme:ident``.

    ``ident`` is canonicalised as :func:`parse_handle` would; a bad part raises
    :class:`MalformedHandleError`.
    """
    shown = f"{scheme}:{ident}/{path}"
    canonical_id = _canonical_id(shown, scheme, ident)
    if version is not None and (scheme != "pmcid" or version < 1):
        raise MalformedHandleError(shown, "only a pmcid takes a version, and versions start at 1")
    if not valid_path(path):
        raise MalformedHandleError(shown, f"the path {path!r} is not valid")
    unsigned = Handle(scheme, canonical_id, path, "0" * CODE_LENGTH, version)
    code = issue_code(key, unsigned.base, passage_sha256(text))
    return Handle(scheme, canonical_id, path, code, version)


def valid_path(path: str) -> bool:
    """Whether ``path`` is dot-separated segments of ``a-z0-9-`` (no empty segment, and no
    segment starting or ending with ``-``)."""
    return _PATH_RE.fullmatch(path) is not None


def parse_handle(text: str) -> Handle:
    """Parse a handle; :class:`MalformedHandleError` says exactly what is wrong.

    Surrounding whitespace is ignored; nothing else is forgiven, since a handle is copied,
    not typed.
    """
    if not isinstance(text, str):
        raise TypeError(f"a handle must be str, not {type(text).__name__}")
    raw = text.strip()
    if not raw:
        raise MalformedHandleError(text, "it is empty")
    if len(raw) > MAX_HANDLE_CHARS:
        raise MalformedHandleError(text, f"it is over {MAX_HANDLE_CHARS} characters long")
    if any(ch.isspace() for ch in raw):
        raise MalformedHandleError(text, "it contains whitespace")
    scheme_text, colon, rest = raw.partition(":")
    if not colon:
        raise MalformedHandleError(text, "there is no ':' after the scheme")
    scheme = scheme_text.lower()
    if not _SCHEME_RE.fullmatch(scheme_text) or scheme not in SCHEMES:
        raise MalformedHandleError(
            text, f"the scheme {scheme_text!r} is not one of {', '.join(SCHEMES)}"
        )
    head, slash, tail = rest.rpartition("/")
    if not slash:
        raise MalformedHandleError(text, "there is no '/' before the passage path")
    path, tilde, code_text = tail.partition("~")
    if not tilde:
        raise MalformedHandleError(text, "there is no '~' before the check code")
    if "~" in code_text:
        raise MalformedHandleError(text, "it has more than one '~'")
    if not path:
        raise MalformedHandleError(text, "the passage path is empty")
    if not valid_path(path):
        raise MalformedHandleError(
            text,
            f"the passage path {path!r} is not dot-separated lower-case letters, digits and '-'",
        )
    code = normalize_code(code_text)
    if code is None:
        raise MalformedHandleError(
            text,
            f"the check code {code_text!r} is not {CODE_LENGTH} Crockford base32 characters "
            "(0-9 and A-Z without I, L, O, U)",
        )
    ident, version = _split_version(text, scheme, head)
    return Handle(scheme, _canonical_id(text, scheme, ident), path, code, version)


def _split_version(text: str, scheme: Scheme, head: str) -> tuple[str, int | None]:
    if not head:
        raise MalformedHandleError(text, "the identifier is empty")
    if scheme != "pmcid":
        return head, None
    m = _VERSION_RE.fullmatch(head)
    if m is None:
        return head, None
    version = int(m.group(2))
    if version < 1:
        raise MalformedHandleError(text, "the version is 0; PMC versions start at 1")
    return m.group(1), version


def _canonical_id(text: str, scheme: Scheme, ident: str) -> str:
    """The identifier in the form :mod:`citeproof.identifiers` gives it."""
    if scheme == "doi":
        return _canonical_doi(text, ident)
    value = KINDS[scheme].canonical(ident)
    if value is None:
        if scheme == "pmcid" and "." in ident:
            raise MalformedHandleError(
                text, f"{ident!r} is not a PMCID (a version is written .vN, e.g. .v2)"
            )
        raise MalformedHandleError(text, f"{ident!r} is not a valid {scheme} identifier")
    return value


def _canonical_doi(text: str, ident: str) -> str:
    """A DOI as :func:`parse_identifier` canonicalises it, refusing one it would have to trim."""
    if "~" in ident or not ident.isprintable():
        raise MalformedHandleError(text, f"{ident!r} is not a valid DOI")
    try:
        parsed = parse_identifier("doi:" + ident)
    except UnknownIdentifierError:
        raise MalformedHandleError(text, f"{ident!r} is not a valid DOI") from None
    lowered = ident.translate(_ASCII_LOWER)
    if parsed.kind != "doi" or parsed.value != lowered:
        raise MalformedHandleError(
            text, f"{ident!r} is not a DOI as written (it would have to be trimmed or decoded)"
        )
    return parsed.value
