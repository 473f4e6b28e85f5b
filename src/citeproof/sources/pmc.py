"""PMC Cloud Service: open-access articles from the ``pmc-oa-opendata`` S3 bucket.

Why this source comes first in the text chain: the bucket is anonymous HTTPS with no published
rate limit, it says plainly whether an article may be read (``is_pmc_openaccess``), and its
metadata pins every file by md5 — so a check can say *which bytes* it read, and refuse bytes
that are not the published file.

Steps (see APIS.md, "PMC Cloud Service"):

1. the version listing, S3 ListObjectsV2 ``/?list-type=2&prefix=PMC<id>.`` (skipped when a
   version is pinned), following ``IsTruncated`` pages with ``continuation-token``; an empty
   listing means the article is not in the open-access bucket;
2. the version's metadata ``PMC<id>.<v>/PMC<id>.<v>.json`` (licence, open-access, retraction);
3. the JATS XML (structure), or the plain text when there is no XML, accepted only if its md5
   equals the ``?md5=`` the metadata gives for it.

Every answer is a :class:`PmcResult`: the :class:`~citeproof.sources.base.SourceOutcome` plus
the parsed :class:`PmcMetadata` when it was read, because the retraction check needs
``is_retracted`` even when the text itself could not be used.
"""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass
from typing import Any, Literal
from urllib.parse import parse_qs, urlsplit

import httpx2
from lxml import etree

from citeproof.documents.safe_xml import local_name, parse_xml_safely
from citeproof.errors import BadInputError, CiteproofError, NetworkError, PmcAnswerError
from citeproof.identifiers import Identifier
from citeproof.sources.base import Fetched, SourceOutcome, missing, unavailable

__all__ = [
    "BUCKET",
    "BUCKET_URL",
    "PmcAnswerError",
    "PmcMetadata",
    "PmcResult",
    "fetch_pmc",
    "list_versions",
    "metadata",
    "parse_metadata",
    "parse_pmcid",
]

BUCKET = "pmc-oa-opendata"
BUCKET_URL = f"https://{BUCKET}.s3.amazonaws.com"
SERVICE = "PMC Cloud Service"


def _bad_answer(reason: str) -> PmcAnswerError:
    """The bucket answered, but not with something citeproof can read (bad XML/JSON, odd
    status): a :class:`NetworkError`, so it ends as UNAVAILABLE."""
    return PmcAnswerError(reason, service=SERVICE, host=f"{BUCKET}.s3.amazonaws.com")


#: A listing that keeps saying "truncated" is a broken or hostile answer, not an article
#: with 100,000 files; stop rather than loop.
MAX_LISTING_PAGES = 100

_PMCID_RE = re.compile(r"(?:PMC)?([0-9]+)(?:\.([0-9]+))?", re.IGNORECASE)
_MD5_RE = re.compile(r"[0-9a-f]{32}")

Format = Literal["xml", "text"]
_MEDIA_TYPES: dict[Format, str] = {"xml": "application/xml", "text": "text/plain"}


@dataclass(frozen=True, slots=True)
class PmcMetadata:
    """One article version's metadata JSON, with the bucket's file URLs made HTTPS.

    ``*_url`` are ``https://`` URLs without the ``?md5=`` query (the request the bucket
    answers); ``*_md5`` are the lower-case hex digests the metadata pins each file to.
    """

    pmcid: str
    version: int
    pmid: str | None
    doi: str | None
    title: str | None
    license_code: str | None
    is_open_access: bool
    is_manuscript: bool
    is_retracted: bool | None
    """None when the metadata has no ``is_retracted`` or it is not a JSON boolean: the
    bucket did not say, which a retraction check must report as a failed source."""
    text_url: str | None = None
    text_md5: str | None = None
    xml_url: str | None = None
    xml_md5: str | None = None
    pdf_url: str | None = None
    pdf_md5: str | None = None

    @property
    def versioned_id(self) -> str:
        """``PMC123.2``: how the bucket, and the result's ``version``, name this version."""
        return f"{self.pmcid}.{self.version}"

    def file(self, fmt: Format) -> tuple[str | None, str | None]:
        """``(url, md5)`` of the XML or plain-text file."""
        if fmt == "xml":
            return self.xml_url, self.xml_md5
        return self.text_url, self.text_md5


@dataclass(frozen=True, slots=True)
class PmcResult:
    """What :func:`fetch_pmc` found: the outcome, and the metadata when it was read."""

    outcome: SourceOutcome
    metadata: PmcMetadata | None = None


def parse_pmcid(pmcid: str) -> tuple[str, int | None]:
    """``"PMC123.2"`` -> ``("PMC123", 2)``; ``"pmc123"``/``"123"`` -> ``("PMC123", None)``.

    Raises :class:`BadInputError` for anything else, so a typo is reported as bad input
    rather than as an article missing from the bucket.
    """
    match = _PMCID_RE.fullmatch(pmcid.strip())
    if match is None or int(match.group(1)) == 0:
        raise BadInputError(
            f"{pmcid!r} is not a PMCID; write it as PMC123 or, to pin a version, PMC123.2."
        )
    version = int(match.group(2)) if match.group(2) is not None else None
    if version == 0:
        raise BadInputError(f"{pmcid!r} pins version 0; PMC versions start at 1.")
    return f"PMC{int(match.group(1))}", version


def _text(element: etree._Element, name: str) -> str | None:
    """Text of the first direct child called ``name`` (any namespace)."""
    for child in element:
        if local_name(child) == name:
            return str(child.text or "")
    return None


def _parse_listing(data: bytes, prefix: str) -> tuple[set[int], bool, str | None]:
    """One ListObjectsV2 page -> (versions, is_truncated, next continuation token)."""
    try:
        root = parse_xml_safely(data)
    except CiteproofError as exc:
        raise _bad_answer(
            f"{SERVICE} sent a version listing for {prefix} that is not safe, valid XML "
            f"({exc}); nothing was concluded."
        ) from exc
    if root is None or local_name(root) != "ListBucketResult":
        raise _bad_answer(
            f"{SERVICE} sent a version listing for {prefix} that is not an S3 "
            "ListBucketResult; nothing was concluded."
        )
    key_re = re.compile(re.escape(prefix) + r"([0-9]+)/")
    versions: set[int] = set()
    for element in root:
        if local_name(element) == "Contents":
            key = _text(element, "Key") or ""
            found = key_re.match(key)
            if found is not None:
                versions.add(int(found.group(1)))
    truncated = (_text(root, "IsTruncated") or "").strip().lower() == "true"
    token = (_text(root, "NextContinuationToken") or "").strip() or None
    return versions, truncated, token


async def list_versions(client: httpx2.AsyncClient, pmcid: str) -> list[int]:
    """The versions of ``pmcid`` in the bucket, ascending; ``[]`` if it is not there.

    The prefix ends with a dot so that PMC12 does not list PMC123's folders. Raises
    :class:`NetworkError` (including :class:`PmcAnswerError`) when the listing cannot be read.
    """
    base, _ = parse_pmcid(pmcid)
    prefix = f"{base}."
    versions: set[int] = set()
    token: str | None = None
    seen_tokens: set[str] = set()
    for _page in range(MAX_LISTING_PAGES):
        params = {"list-type": "2", "prefix": prefix}
        if token is not None:
            params["continuation-token"] = token
        response = await client.get(f"{BUCKET_URL}/", params=params)
        if response.status_code != 200:
            raise _bad_answer(
                f"{SERVICE} answered {response.status_code} to the version listing of {base}; "
                "nothing was concluded."
            )
        page_versions, truncated, token = _parse_listing(response.content, prefix)
        versions |= page_versions
        if not truncated:
            return sorted(versions)
        if token is None or token in seen_tokens:
            raise _bad_answer(
                f"{SERVICE} said the version listing of {base} continues but gave no new "
                "continuation token; nothing was concluded."
            )
        seen_tokens.add(token)
    raise _bad_answer(
        f"{SERVICE} kept the version listing of {base} going past {MAX_LISTING_PAGES} pages; "
        "nothing was concluded."
    )


def _https_file(raw: Any, field: str, where: str) -> tuple[str | None, str | None]:
    """``s3://pmc-oa-opendata/KEY?md5=HEX`` -> (``https://…/KEY``, ``hex``).

    Only keys in this bucket are accepted: the metadata must not be able to send the client to
    another host. A URL without a well-formed md5 keeps ``md5 = None``; the fetch then refuses
    the file, since its bytes could not be verified.
    """
    if raw is None:
        return None, None
    if not isinstance(raw, str):
        raise _bad_answer(f"{SERVICE} metadata of {where} has a {field} that is not a string.")
    parts = urlsplit(raw)
    key = parts.path.lstrip("/")
    if parts.scheme != "s3" or parts.netloc != BUCKET or not key or ".." in key.split("/"):
        raise _bad_answer(
            f"{SERVICE} metadata of {where} has a {field} outside the {BUCKET} bucket: {raw!r}."
        )
    md5_values = parse_qs(parts.query).get("md5", [])
    md5 = md5_values[0].lower() if len(md5_values) == 1 else None
    if md5 is not None and not _MD5_RE.fullmatch(md5):
        md5 = None
    return f"{BUCKET_URL}/{key}", md5


def _optional_str(value: Any) -> str | None:
    if value is None or isinstance(value, bool):
        return None
    if isinstance(value, (str, int)):
        text = str(value).strip()
        return text or None
    return None


def parse_metadata(data: bytes, pmcid: str, version: int) -> PmcMetadata:
    """The metadata JSON -> :class:`PmcMetadata`; raises :class:`PmcAnswerError` if malformed."""
    where = f"{pmcid}.{version}"
    try:
        record = json.loads(data)
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise _bad_answer(f"{SERVICE} metadata of {where} is not valid JSON: {exc}.") from exc
    if not isinstance(record, dict):
        raise _bad_answer(f"{SERVICE} metadata of {where} is not a JSON object.")
    if str(record.get("pmcid", "")).upper() != pmcid:
        raise _bad_answer(
            f"{SERVICE} metadata of {where} is about {record.get('pmcid')!r}, not {pmcid}."
        )
    if record.get("version", version) != version:
        raise _bad_answer(
            f"{SERVICE} metadata of {where} says it is version {record.get('version')!r}."
        )
    text_url, text_md5 = _https_file(record.get("text_url"), "text_url", where)
    xml_url, xml_md5 = _https_file(record.get("xml_url"), "xml_url", where)
    pdf_url, pdf_md5 = _https_file(record.get("pdf_url"), "pdf_url", where)
    return PmcMetadata(
        pmcid=pmcid,
        version=version,
        pmid=_optional_str(record.get("pmid")),
        doi=_optional_str(record.get("doi")),
        title=_optional_str(record.get("title")),
        license_code=_optional_str(record.get("license_code")),
        # Only an explicit true opens the text: a missing flag is not permission.
        is_open_access=record.get("is_pmc_openaccess") is True,
        is_manuscript=record.get("is_manuscript") is True,
        is_retracted=(
            record["is_retracted"] if isinstance(record.get("is_retracted"), bool) else None
        ),
        text_url=text_url,
        text_md5=text_md5,
        xml_url=xml_url,
        xml_md5=xml_md5,
        pdf_url=pdf_url,
        pdf_md5=pdf_md5,
    )


async def metadata(client: httpx2.AsyncClient, pmcid: str, version: int) -> PmcMetadata | None:
    """The metadata of ``pmcid`` version ``version``, or ``None`` if the bucket has none (404)."""
    base, _ = parse_pmcid(pmcid)
    name = f"{base}.{version}"
    response = await client.get(f"{BUCKET_URL}/{name}/{name}.json")
    if response.status_code == 404:
        return None
    if response.status_code != 200:
        raise _bad_answer(
            f"{SERVICE} answered {response.status_code} to the metadata of {name}; "
            "nothing was concluded."
        )
    return parse_metadata(response.content, base, version)


def _file_name(url: str) -> str:
    return url.rsplit("/", 1)[-1]


async def _fetch_file(
    client: httpx2.AsyncClient, meta: PmcMetadata, order: tuple[Format, ...]
) -> SourceOutcome:
    """Fetch the first file in ``order`` the metadata lists and the bucket serves; verify md5.

    A file the bucket does not have (404) gives way to the next format; a file whose md5 differs
    or cannot be checked stops here, so a user is told about bytes that are not the published
    ones rather than silently handed another representation.
    """
    absent: list[str] = []
    for fmt in order:
        url, expected = meta.file(fmt)
        if url is None:
            continue
        name = _file_name(url)
        if expected is None:
            return unavailable(
                f"{SERVICE} metadata of {meta.versioned_id} gives no md5 for {name}, so its "
                "bytes could not be verified; nothing was checked against them."
            )
        response = await client.get(url)
        if response.status_code == 404:
            absent.append(name)
            continue
        if response.status_code != 200:
            raise _bad_answer(
                f"{SERVICE} answered {response.status_code} for {name}; nothing was concluded."
            )
        data = response.content
        actual = hashlib.md5(data, usedforsecurity=False).hexdigest()
        if actual != expected:
            return SourceOutcome(
                "md5_mismatch",
                f"{name} from {SERVICE} has md5 {actual}, but its metadata says {expected}: "
                "these are not the published bytes, so nothing was checked against them.",
            )
        return SourceOutcome(
            "fetched",
            fetched=Fetched(
                data=data,
                media_type=_MEDIA_TYPES[fmt],
                url=url,
                served_by="pmc",
                coverage="full_text",
                identifier=Identifier(kind="pmcid", value=meta.pmcid).key,
                version=meta.versioned_id,
                md5_ok=True,
                licence=meta.license_code,
                title=meta.title,
            ),
        )
    if absent:
        return missing(
            f"{SERVICE} metadata of {meta.versioned_id} lists {' and '.join(absent)}, but the "
            "bucket has no such file."
        )
    return SourceOutcome(
        "not_open_access",
        f"{meta.versioned_id} has no XML or plain-text file in the PMC open-access bucket.",
    )


async def fetch_pmc(
    client: httpx2.AsyncClient,
    pmcid: str,
    version: int | None = None,
    *,
    prefer: Format = "xml",
) -> PmcResult:
    """Fetch an article's verified full text from the PMC Cloud Service.

    ``pmcid`` may pin a version (``PMC123.2``), or ``version`` may; without either the latest
    version in the listing is used. ``prefer="text"`` asks for the plain text first (the XML
    is the default because it carries the article's structure); the other format is the
    fallback when the preferred one is not in the bucket. Network failures and answers that
    cannot be read become ``unavailable``; nothing else is raised except
    :class:`BadInputError` for a malformed PMCID or two different pinned versions.
    """
    base, pinned = parse_pmcid(pmcid)
    if version is not None and pinned is not None and version != pinned:
        raise BadInputError(f"{pmcid} pins version {pinned}, but version {version} was asked for.")
    if version is not None and version < 1:
        raise BadInputError(f"Version {version} of {base} was asked for; PMC versions start at 1.")
    wanted = version if version is not None else pinned
    order: tuple[Format, ...] = ("xml", "text") if prefer == "xml" else ("text", "xml")
    meta: PmcMetadata | None = None
    try:
        if wanted is None:
            versions = await list_versions(client, base)
            if not versions:
                return PmcResult(missing(f"{base} is not in the PMC open-access bucket"))
            wanted = versions[-1]
        meta = await metadata(client, base, wanted)
        if meta is None:
            return PmcResult(
                missing(f"{base}.{wanted} is not in the PMC open-access bucket (no such version)")
            )
        if not meta.is_open_access:
            licence = f" (licence {meta.license_code})" if meta.license_code else ""
            return PmcResult(
                SourceOutcome(
                    "not_open_access",
                    f"{meta.versioned_id} is in PMC but not open access{licence}: its text may "
                    "not be read here.",
                ),
                meta,
            )
        return PmcResult(await _fetch_file(client, meta, order), meta)
    except NetworkError as err:
        return PmcResult(unavailable(str(err)), meta)
