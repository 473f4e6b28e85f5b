"""Every tool, the resource and the prompt through the SDK's in-process client.

For each tool: it is listed with an output schema, its structured content validates against
that schema (the client checks every result; ``detail: "full"`` results also parse back into
the library's model), bad input is a tool error whose message says what to change, and an
unreadable source is a verdict or a status, not an error.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from mcp import Client
from mcp.server.mcpserver import MCPServer
from mcp.shared.exceptions import MCPError
from mcp_helpers import (
    CORPUS,
    EXAMPLE,
    call,
    error_text,
    full,
    run,
    structured,
)

from citeproof import service
from citeproof.evidence.log import EvidenceLog, default_log_path
from citeproof.mcp.outputs import CheckQuotesResult, SupportRecord
from citeproof.mcp.server import PROMPT_NAME, TOOL_NAMES, build_server
from citeproof.mcp.tools import CiteproofTools, ToolSettings
from citeproof.models import CheckResult, RetractionReport
from citeproof.models.search import SearchRecord
from citeproof.models.source import ResolvedSource, SourceText
from citeproof.store.paths import default_dirs

EXACT = "Mean sleep onset latency fell by 14 minutes (95% CI 9 to 19) in the walking group"
NUMBERS_CHANGED = EXACT.replace("14 minutes", "41 minutes")


def _text() -> str:
    return service.load(EXAMPLE).text


def _log() -> EvidenceLog:
    return EvidenceLog(default_log_path())


# ------------------------------------------------------------------------------ listing


def test_every_tool_is_listed_with_schemas_and_a_front_loaded_description(
    server: MCPServer,
) -> None:
    async def go() -> Any:
        async with Client(server) as client:
            return (await client.list_tools()).tools

    tools = {tool.name: tool for tool in run(go)}
    assert set(tools) == set(TOOL_NAMES)
    for name, tool in tools.items():
        assert tool.output_schema is not None and tool.output_schema["type"] == "object", name
        assert tool.input_schema["type"] == "object"
        assert tool.description and len(tool.description) > 200, name
        assert "Side effect" in tool.description or "Read only" in tool.description, name
        assert tool.annotations is not None
        hints = tool.annotations
        assert hints.read_only_hint is True or hints.destructive_hint is False, name
    check = tools["check_quote"].description or ""
    assert check.startswith("Check that QUOTE occurs word for word in SOURCE")
    for words in ("before presenting", "NEAR", "risk flag", "UNAVAILABLE", "evidence log"):
        assert words in check
    assert "never" in check and "support" in check
    assert tools["check_quote"].input_schema["required"] == ["quote", "source"]
    props = tools["check_quote"].input_schema["properties"]
    assert "DOI" in props["source"]["description"]
    assert tools["verify_log"].annotations is not None
    assert tools["verify_log"].annotations.read_only_hint is True
    assert (
        tools["check_quote"].output_schema
        == CheckResult.model_json_schema(by_alias=True, mode="serialization")
        or "verdict" in tools["check_quote"].output_schema["properties"]
    )


def test_no_description_tells_an_agent_to_drop_what_was_not_verified() -> None:
    """verify_references said "Fix or drop each one not verified": during an outage an agent
    would delete real references.  unavailable is retried, ambiguous kept, and a flag is a
    lead to check by hand, never a finding to act on."""
    import re

    from citeproof.mcp import descriptions
    from citeproof.mcp.tools import TOOLS

    texts = {
        name: value
        for name, value in vars(descriptions).items()
        if name.isupper() and isinstance(value, str)
    } | {name: spec.description for name, spec in TOOLS.items()}
    for name, text in texts.items():
        for sentence in re.split(r"(?<=[.;])\s+", text):
            if re.search(r"\b(drop|delete|remove)", sentence, re.IGNORECASE):
                assert re.search(r"\b(never|before|by hand)\b", sentence), (name, sentence)
    references = TOOLS["verify_references"].description
    assert "Fix or drop" not in references
    for words in (
        "ambiguous (several real works fit: keep it",
        "unavailable (a database could not be read: nothing concluded; retry later, never drop",
        "A flag is a lead, not a finding: check each flagged reference by hand",
    ):
        assert words in references
    assert "unavailable is no finding: retry it" in TOOLS["audit_answer"].description


# ------------------------------------------------------------------------------ check_quote


def test_check_quote_exact_on_a_local_file_writes_an_evidence_line(server: MCPServer) -> None:
    data = full(
        server,
        "check_quote",
        {"quote": EXACT, "source": str(EXAMPLE), "claim": "Walking shortened sleep onset."},
    )
    result = CheckResult.model_validate(data)
    assert result.verdict == "EXACT" and data["schema"] == "citeproof.check/1"
    match = result.matches[0]
    assert _text()[match.start : match.end] == EXACT
    assert match.location.region == "abstract"
    assert result.source.sha256 is not None and result.source.coverage == "file"
    assert result.log_seq == 1
    (entry,) = _log().entries()
    assert entry.kind == "check" and entry.payload["claim"] == "Walking shortened sleep onset."
    assert entry.payload["verdict"] == "EXACT"


def test_check_quote_near_with_changed_numbers_is_flagged(server: MCPServer) -> None:
    result = CheckResult.model_validate(
        full(server, "check_quote", {"quote": NUMBERS_CHANGED, "source": str(EXAMPLE)})
    )
    assert result.verdict == "NEAR"
    assert result.near is not None and "numbers_differ" in result.near.flags
    assert "14 minutes" in result.near.text


def test_check_quote_not_found(server: MCPServer) -> None:
    result = CheckResult.model_validate(
        full(
            server,
            "check_quote",
            {
                "quote": "cycling doubled the incidence of insomnia in every group",
                "source": str(EXAMPLE),
            },
        )
    )
    assert result.verdict == "NOT_FOUND" and result.matches == []


def test_an_unreadable_identifier_is_a_verdict_not_an_error() -> None:
    server = build_server(offline=True)  # nothing pinned: UNAVAILABLE, and no request made
    result = CheckResult.model_validate(
        full(server, "check_quote", {"quote": EXACT, "source": "PMC9990002"})
    )
    assert result.verdict == "UNAVAILABLE"
    assert result.reason and "not in the cache" in result.reason
    assert result.retraction is not None and result.retraction.status == "UNVERIFIABLE"
    assert not default_dirs().cache_db.exists()  # offline never creates a cache


def test_one_cache_connection_serves_every_check_until_closed(pinned: str) -> None:
    tools = CiteproofTools(ToolSettings(offline=True, log=False))
    assert tools._check(EXACT, "PMC9990001", None, False).verdict == "EXACT"
    held = tools._cache
    assert held is not None
    assert tools._check(EXACT, "PMC9990001", None, False).verdict == "EXACT"
    assert tools._cache is held
    tools.close()
    assert tools._cache is None
    assert tools._check(EXACT, "PMC9990001", None, False).verdict == "EXACT"  # reopened
    assert tools._cache is not None and tools._cache is not held
    tools.close()


def test_the_server_closes_its_tools_when_a_session_ends(
    monkeypatch: pytest.MonkeyPatch, pinned: str
) -> None:
    closed: list[CiteproofTools] = []
    monkeypatch.setattr(CiteproofTools, "close", lambda self: closed.append(self))
    server = build_server(offline=True, log=False)
    assert call(server, "check_quote", {"quote": EXACT, "source": "PMC9990001"})
    assert len(closed) == 1  # one client session: one server run
    assert call(server, "check_quote", {"quote": EXACT, "source": "PMC9990001"})
    assert len(closed) == 2 and closed[0] is closed[1]  # the same tools, reopened lazily


def test_check_quote_on_a_pinned_identifier_asks_the_retraction_status(
    server: MCPServer, pinned: str
) -> None:
    result = CheckResult.model_validate(
        full(server, "check_quote", {"quote": EXACT, "source": "PMC9990001"})
    )
    assert result.verdict == "EXACT"
    assert result.source.identifier == pinned and result.source.served_by == "pmc-oa"
    assert result.retraction is not None  # asked; replay has no recordings: unverifiable
    assert result.retraction.status == "UNVERIFIABLE"


@pytest.mark.parametrize(
    ("arguments", "expected"),
    [
        ({"quote": "   ", "source": str(EXAMPLE)}, "the quote is empty"),
        ({"quote": EXACT, "source": "no/such/file.pdf"}, "does not exist"),
        ({"quote": EXACT, "source": "-"}, "standard input"),
        ({"quote": EXACT, "source": ""}, "the source is empty"),
        ({"quote": EXACT, "source": "PMC0"}, "PMC0"),
        ({"quote": EXACT}, "source"),
    ],
)
def test_check_quote_bad_input_is_a_tool_error_saying_what_to_change(
    server: MCPServer, arguments: dict[str, Any], expected: str
) -> None:
    assert expected in error_text(server, "check_quote", arguments)
    assert not default_log_path().exists() or not list(_log().entries())


def test_without_file_access_a_path_is_refused(tmp_path: Path) -> None:
    server = build_server(allow_files=False)
    message = error_text(server, "check_quote", {"quote": EXACT, "source": str(EXAMPLE)})
    assert "local files are not read here" in message
    message = error_text(server, "read_source", {"source": str(EXAMPLE)})
    assert "local files are not read here" in message


def test_no_log_writes_nothing() -> None:
    server = build_server(log=False)
    data = structured(server, "check_quote", {"quote": EXACT, "source": str(EXAMPLE)})
    assert data["verdict"] == "EXACT" and "log_seq" not in data  # null: left out of a summary
    assert not default_log_path().exists()


# ------------------------------------------------------------------------------ failures


def test_an_evidence_log_that_cannot_be_written_is_a_reason_not_a_bare_error(
    tmp_path: Path,
) -> None:
    """A server started with its log under a regular file answered "Error executing tool
    check_quote" and nothing more: the agent could not tell a bad quote from a bad server."""
    (tmp_path / "notes.txt").write_text("a file, not a folder", encoding="utf-8")
    log_path = tmp_path / "notes.txt" / "evidence.jsonl"
    server = build_server(log_path=str(log_path))
    message = error_text(server, "check_quote", {"quote": EXACT, "source": str(EXAMPLE)})
    assert "the check ran (verdict EXACT)" in message  # the verdict was computed
    assert "evidence line could not be written" in message and str(log_path) in message
    assert "is a file, not a folder" in message
    for tool, arguments in (
        ("verify_log", {}),
        ("record_support", {"seq": 1, "support": "supports", "by": "a test"}),
    ):
        message = error_text(server, tool, arguments)
        assert f"evidence log {log_path} cannot be used" in message, message
        assert "is a file, not a folder" in message and "--no-log" in message
    batch = structured(
        server, "check_quotes", {"items": [{"quote": EXACT, "source": str(EXAMPLE)}]}
    )
    (item,) = batch["items"]
    assert "the check ran (verdict EXACT)" in item["error"]


def test_an_unexpected_failure_says_what_it_was(monkeypatch: pytest.MonkeyPatch) -> None:
    """The SDK answers an exception that is not a ToolError with the bare "Error executing
    tool NAME"; the agent gets at least its type and message (the traceback is logged)."""
    from citeproof.service import reading

    def broken(*args: Any, **kwargs: Any) -> Any:
        raise RuntimeError("the parser lost its place")

    def refused(*args: Any, **kwargs: Any) -> Any:
        raise PermissionError(13, "Permission denied", "/invented/cache.sqlite")

    monkeypatch.setattr(reading, "read_source", broken)
    monkeypatch.setattr(reading, "resolve_identifier", refused)
    server = build_server(log=False)
    assert error_text(server, "read_source", {"source": str(EXAMPLE)}) == (
        "Error executing tool read_source: unexpected RuntimeError: the parser lost its place "
        "(a fault in citeproof; the server's log has the details)."
    )
    assert error_text(server, "resolve_identifier", {"identifier": "PMC9990001"}) == (
        "Error executing tool resolve_identifier: permission denied on /invented/cache.sqlite."
    )


def test_one_items_unexpected_failure_is_its_own(
    server: MCPServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    checking = CiteproofTools._check

    def flaky(self: CiteproofTools, quote: str, *args: Any) -> CheckResult:
        if quote == "boom":
            raise KeyError("boom")
        return checking(self, quote, *args)

    monkeypatch.setattr(CiteproofTools, "_check", flaky)
    items = [{"quote": "boom", "source": str(EXAMPLE)}, {"quote": EXACT, "source": str(EXAMPLE)}]
    batch = structured(server, "check_quotes", {"items": items})
    failed, checked = batch["items"]
    assert failed["error"].startswith("unexpected KeyError: 'boom'")
    assert checked["result"]["verdict"] == "EXACT"


# ------------------------------------------------------------------------------ check_quotes


def test_check_quotes_isolates_a_bad_item(server: MCPServer) -> None:
    items = [
        {"quote": EXACT, "source": str(EXAMPLE), "claim": "c1"},
        {"quote": "", "source": str(EXAMPLE)},
        {"quote": NUMBERS_CHANGED, "source": str(EXAMPLE)},
        {"quote": EXACT, "source": "missing-file.txt"},
    ]
    batch = CheckQuotesResult.model_validate(full(server, "check_quotes", {"items": items}))
    assert [item.index for item in batch.items] == [0, 1, 2, 3]
    first, empty, near, missing = batch.items
    assert first.result is not None and first.result.verdict == "EXACT"
    assert empty.result is None and empty.error and "empty" in empty.error
    assert near.result is not None and near.result.verdict == "NEAR"
    assert missing.error and "does not exist" in missing.error
    assert batch.errors == 2 and batch.by_verdict == {"EXACT": 1, "NEAR": 1}
    seqs = sorted(i.result.log_seq for i in batch.items if i.result and i.result.log_seq)
    assert seqs == [1, 2]


def test_check_quotes_refuses_more_than_100(server: MCPServer) -> None:
    items = [{"quote": EXACT, "source": str(EXAMPLE)}] * 101
    assert "split them" in error_text(server, "check_quotes", {"items": items})


# ------------------------------------------------------------------------------ read_source


def test_read_source_pages_through_the_exact_text(server: MCPServer) -> None:
    text = _text()
    pieces, start = [], 0
    while True:
        page = SourceText.model_validate(
            structured(
                server, "read_source", {"source": str(EXAMPLE), "start": start, "limit": 1000}
            )
        )
        assert page.status == "ok" and page.total_chars == len(text)
        assert page.start == start and page.text == text[page.start : page.end]
        assert page.blocks and all(b.start < page.end and b.end > page.start for b in page.blocks)
        pieces.append(page.text)
        if page.next_start is None:
            break
        start = page.next_start
    assert "".join(pieces) == text and len(pieces) == -(-len(text) // 1000)


def test_read_source_blocks_carry_section_and_region(server: MCPServer) -> None:
    text = _text()
    at = text.index("Mean sleep onset latency")
    page = SourceText.model_validate(
        structured(server, "read_source", {"source": str(EXAMPLE), "start": at, "limit": 20})
    )
    (block,) = page.blocks
    assert block.region == "abstract" and block.section == ["Abstract", "Results"]


def test_read_source_errors_and_unavailable(server: MCPServer) -> None:
    past = len(_text()) + 1
    message = error_text(server, "read_source", {"source": str(EXAMPLE), "start": past})
    assert "past the end" in message
    assert "limit" in error_text(server, "read_source", {"source": str(EXAMPLE), "limit": 0})
    offline = build_server(offline=True)
    page = SourceText.model_validate(structured(offline, "read_source", {"source": "PMC9990003"}))
    assert page.status == "UNAVAILABLE" and page.text == "" and page.reason


# ------------------------------------------------------------------------------ resolve


def test_resolve_identifier(server: MCPServer, pinned: str) -> None:
    resolved = ResolvedSource.model_validate(
        structured(server, "resolve_identifier", {"identifier": "PMC9990001"})
    )
    assert resolved.status == "RESOLVED" and resolved.key == pinned and resolved.kind == "pmcid"
    assert resolved.resolved.doi == "10.5555/citeproof.example.1"
    assert resolved.coverage == "full_text" and resolved.format == "jats"
    assert resolved.sha256 and resolved.total_chars == len(_text())
    offline = build_server(offline=True)
    missing = ResolvedSource.model_validate(
        structured(offline, "resolve_identifier", {"identifier": "doi:10.5555/nothing.here"})
    )
    assert missing.status == "UNAVAILABLE" and missing.reason and missing.key.startswith("doi:")
    assert "not" in error_text(server, "resolve_identifier", {"identifier": "hello world"})


# ------------------------------------------------------------------------------ retraction


def test_retraction_status_offline_is_unverifiable() -> None:
    server = build_server(offline=True)
    report = RetractionReport.model_validate(
        structured(server, "retraction_status", {"identifier": "10.5555/invented.1"})
    )
    assert report.status == "UNVERIFIABLE" and report.identifier == "doi:10.5555/invented.1"
    message = error_text(server, "retraction_status", {"identifier": "NCT01234567"})
    assert "DOI, PMID or PMCID" in message


# ------------------------------------------------------------------------------ searches


def test_an_offline_server_answers_a_search_with_a_failed_record() -> None:
    """--offline used to make a search a tool error; the contract says a search that could
    not be made is a failed record (nothing was asked, so nothing is logged)."""
    server = build_server(offline=True)
    arguments = {"engine": "europepmc", "query": "walking", "since": "2020"}
    record = SearchRecord.model_validate(structured(server, "search_literature", arguments))
    assert record.status == "failed" and record.reason and "needs the network" in record.reason
    assert record.engine == "europepmc" and record.query == "walking" and record.items == []
    assert record.params == {"limit": "25", "since": "2020"} and record.log_seq is None
    citing = SearchRecord.model_validate(
        structured(server, "citing_papers", {"identifier": "W2474002222"})
    )
    assert citing.status == "failed" and citing.engine == "openalex"
    assert not default_log_path().exists()
    # bad input is still an error, offline too
    assert "empty" in error_text(server, "search_literature", {"engine": "pubmed", "query": " "})


def test_an_unrecorded_replay_answers_a_search_with_a_failed_record(server: MCPServer) -> None:
    """CITEPROOF_REPLAY points at an empty folder (conftest): no recording answers."""
    record = structured(server, "search_literature", {"engine": "pubmed", "query": "walking"})
    assert record["status"] == "failed" and "was not recorded" in record["reason"]
    citing = structured(server, "citing_papers", {"identifier": "10.5555/invented.1"})
    assert citing["status"] == "failed" and citing["engine"] == "openalex"


def test_search_bad_input_is_a_tool_error(server: MCPServer) -> None:
    assert "engine" in error_text(server, "search_literature", {"engine": "bing", "query": "x"})
    message = error_text(
        server, "search_literature", {"engine": "litsense", "query": "x", "limit": 500}
    )
    assert "1 to 100" in message
    assert "empty" in error_text(server, "search_literature", {"engine": "pubmed", "query": " "})
    assert "empty" in error_text(server, "citing_papers", {"identifier": " "})


def _corpus_replay(tmp_path: Path) -> Path:
    if not CORPUS.is_dir():
        pytest.skip("../shared/corpus not found: the replayed searches need the shared corpus")
    folder = tmp_path / "replay"
    folder.mkdir()
    for name in (
        "epmc-search-arteriosclerosis-large-artery-elasticity",
        "openalex-cites-w2474002222",
    ):
        for suffix in (".body", ".meta.json"):
            source = CORPUS / "litcheck-fixtures" / f"{name}{suffix}"
            (folder / source.name).symlink_to(source)
    return folder


def test_replayed_search_and_citing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, server: MCPServer
) -> None:
    monkeypatch.setenv("CITEPROOF_REPLAY", str(_corpus_replay(tmp_path)))
    record = SearchRecord.model_validate(
        structured(
            server,
            "search_literature",
            {"engine": "europepmc", "query": "arteriosclerosis large-artery elasticity"},
        )
    )
    assert record.status == "ok" and record.items and record.next_cursor
    assert record.log_seq == 1
    (entry,) = _log().entries()
    assert entry.kind == "search" and entry.payload["ids"] == [i.id for i in record.items]
    citing = SearchRecord.model_validate(
        structured(server, "citing_papers", {"identifier": "W2474002222"})
    )
    assert citing.engine == "openalex" and citing.hit_count == 5 and citing.log_seq == 2


# ------------------------------------------------------------------------------ log tools


def test_verify_log_and_record_support(server: MCPServer) -> None:
    check = structured(server, "check_quote", {"quote": EXACT, "source": str(EXAMPLE)})
    support = SupportRecord.model_validate(
        structured(
            server,
            "record_support",
            {
                "seq": check["log_seq"],
                "support": "supports",
                "by": "Dr A. Reviewer",
                "note": "abstract, results",
            },
        )
    )
    assert support.seq == 2 and support.target_seq == 1 and support.target_kind == "check"
    entry = _log().get(2)
    assert entry.kind == "annotation" and entry.payload["by"] == "Dr A. Reviewer"
    report = structured(server, "verify_log", {})
    assert report["ok"] is True and report["entries"] == 2 and report["problems"] == []
    checkpoint = _log().checkpoint()
    assert structured(server, "verify_log", {"checkpoint": checkpoint})["ok"] is True


def test_record_support_errors(server: MCPServer) -> None:
    structured(server, "check_quote", {"quote": EXACT, "source": str(EXAMPLE)})
    assert "not in the evidence log" in error_text(
        server, "record_support", {"seq": 99, "support": "supports", "by": "me"}
    )
    assert "--by" in error_text(
        server, "record_support", {"seq": 1, "support": "absent", "by": "  "}
    )
    assert "support" in error_text(
        server, "record_support", {"seq": 1, "support": "maybe", "by": "me"}
    )


def test_verify_log_reports_a_tampered_log(server: MCPServer) -> None:
    structured(server, "check_quote", {"quote": EXACT, "source": str(EXAMPLE)})
    path = default_log_path()
    line = json.loads(path.read_text(encoding="utf-8").splitlines()[0])
    line["payload"]["verdict"] = "NOT_FOUND"
    path.write_text(json.dumps(line) + "\n", encoding="utf-8")
    report = structured(server, "verify_log", {})
    assert report["ok"] is False and report["problems"]


# ------------------------------------------------------------------------------ resource, prompt


def test_source_resource_reads_the_cache_only(server: MCPServer, pinned: str) -> None:
    async def go() -> tuple[Any, Any]:
        async with Client(server) as client:
            templates = (await client.list_resource_templates()).resource_templates
            content = await client.read_resource(f"citeproof://source/{pinned}")
            return templates, content

    templates, content = run(go)
    assert [t.uri_template for t in templates] == ["citeproof://source/{+identifier}"]
    (item,) = content.contents
    assert item.text == _text() and item.mime_type == "text/plain"

    async def missing() -> str:
        async with Client(server) as client:
            try:
                await client.read_resource("citeproof://source/10.5555/never.fetched")
            except MCPError as err:
                return str(err)
        return "no error"

    assert "not in the local cache; call read_source or check_quote" in run(missing)


def test_prompt_tells_the_agent_how_to_quote(server: MCPServer) -> None:
    async def go() -> tuple[Any, Any]:
        async with Client(server) as client:
            listed = (await client.list_prompts()).prompts
            return listed, await client.get_prompt(PROMPT_NAME)

    listed, prompt = run(go)
    assert [p.name for p in listed] == [PROMPT_NAME]
    text = prompt.messages[0].content.text
    for words in ("check_quote", "near.text", "risk flag", "UNAVAILABLE", "Never say that support"):
        assert words in text


def test_call_result_also_carries_json_text(server: MCPServer) -> None:
    result = call(server, "check_quote", {"quote": EXACT, "source": str(EXAMPLE)})
    (block,) = result.content
    assert json.loads(getattr(block, "text", ""))["verdict"] == "EXACT"


def test_a_changed_file_is_read_again_not_served_from_the_parse_memo(
    server: MCPServer, tmp_path: Path
) -> None:
    path = tmp_path / "notes.txt"
    path.write_text("The first version of this file says that walking helps sleep a lot.\n")
    quote = "walking helps sleep a lot"
    first = full(server, "check_quote", {"quote": quote, "source": str(path)})
    again = full(server, "check_quote", {"quote": quote, "source": str(path)})
    assert first["verdict"] == again["verdict"] == "EXACT"
    assert first["source"]["sha256"] == again["source"]["sha256"]
    path.write_text("The second version of this file says that walking does not help at all.\n")
    changed = full(server, "check_quote", {"quote": quote, "source": str(path)})
    assert changed["verdict"] != "EXACT"
    assert changed["source"]["sha256"] != first["source"]["sha256"]


def test_without_file_access_identifiers_still_work(pinned: str) -> None:
    server = build_server(allow_files=False)
    data = structured(server, "check_quote", {"quote": EXACT, "source": "PMC9990001"})
    assert data["verdict"] == "EXACT" and data["source"]["identifier"] == pinned
    page = structured(server, "read_source", {"source": "PMC9990001", "limit": 50})
    assert page["text"] == _text()[:50]


# ------------------------------------------------------------------------------ handles, audits


def test_find_passages_issues_handles_for_an_identifier(server: MCPServer, pinned: str) -> None:
    from citeproof.mcp.outputs import PassagesResult

    data = structured(server, "find_passages", {"source": "PMC9990001", "query": "sleep onset"})
    listed = PassagesResult.model_validate(data)
    assert listed.status == "ok" and listed.schema_ == "citeproof.passages/1"
    assert listed.passages and all(p.handle for p in listed.passages)
    assert listed.passages[0].handle.startswith("pmcid:PMC9990001/")  # type: ignore[union-attr]
    assert "sleep onset" in listed.passages[0].text.lower()
    local = PassagesResult.model_validate(
        structured(server, "find_passages", {"source": str(EXAMPLE), "limit": 3})
    )
    assert len(local.passages) == 3 and all(p.handle is None for p in local.passages)
    assert call(server, "find_passages", {"source": "PMC9990001", "limit": 0}).is_error


def test_audit_answer_judges_each_citation_and_signs_the_report(
    server: MCPServer, pinned: str
) -> None:
    from citeproof.models.audit import AuditReport

    listed = structured(server, "find_passages", {"source": "PMC9990001", "query": "sleep onset"})
    handle = listed["passages"][0]["handle"]
    words = listed["passages"][0]["text"].split()[:8]
    forged = handle[:-1] + ("0" if handle[-1] != "0" else "1")
    answer = (
        f'The walkers slept sooner: "{" ".join(words)}" [{handle}].\n'
        f"The same handle, altered, still looks plausible [{forged}].\n"
        f'It says "{NUMBERS_CHANGED}" (PMC9990001).\n'
    )
    report = AuditReport.model_validate(full(server, "audit_answer", {"answer": answer}))
    verdicts = [c.verdict for s in report.sentences for c in s.citations]
    assert verdicts == ["ok", "forged", "misquote"]
    assert report.verdict == "fail" and report.signature is not None
    assert _log().last(1)[0].kind == "audit"
    relaxed = AuditReport.model_validate(
        full(server, "audit_answer", {"answer": answer, "fail_on": ["retracted"]})
    )
    assert relaxed.fail_on == ["retracted"]
    assert relaxed.verdict in ("warn", "pass")  # forged and misquote no longer fail it
    assert call(server, "audit_answer", {"answer": "   "}).is_error
